"""torch names the libraries call (not at import): the parser behind ``.to()`` (accelerate), torch.xpu on a
machine without XPU (accelerate, transformers), the TorchScript fuser flags (timm), shape_as_tensor
(torchvision), torch.backends.fp32_precision (transformers)."""
import pytest

from harness import check_as_torch as check  # value and error cases side by side: as torch does


@pytest.mark.parametrize("case", [
    ((), {}), (("cpu",), {}), (("float16",), {}), (("cpu", "float64", True), {}), (("TENSOR",), {}),
    ((), {"dtype": "float32", "copy": True}), ((), {"copy": False}), ((), {"memory_format": "channels_last"}),
    (("DEVICE",), {"dtype": "half", "non_blocking": True}), ((1,), {}), (("cuda",), {}), (("meta",), {}),
    (("foo",), {}), ((3.0,), {}), ((True,), {}), ((), {"bad": 1}), (("cpu", None), {}), ((None,), {}),
    (("cpu", "float64", True, False), {}), (("float64", False, True), {}), (("float64",), {"non_blocking": True}),
    (("cpu",), {"non_blocking": 1}), (("TENSOR", True), {})])
def test_parse_to(case):
    """torch._C._nn._parse_to (accelerate's big_modeling reads the device of a .to() call with it)."""
    args, kwargs = case

    def arg(T, a):
        if a == "TENSOR":
            return T.zeros(2, dtype=T.int8)
        if a == "DEVICE":
            return T.device("cpu")
        if isinstance(a, str) and hasattr(T, a) and a not in ("cpu", "cuda", "meta"):
            return getattr(T, a)
        return a
    check(lambda T: T._C._nn._parse_to(*[arg(T, a) for a in args], **{k: arg(T, v) for k, v in kwargs.items()}))


@pytest.mark.parametrize("call", [
    lambda T: T.xpu.get_rng_state(), lambda T: T.xpu.get_rng_state_all(), lambda T: T.xpu.mem_get_info(),
    lambda T: T.xpu.mem_get_info("cpu"), lambda T: T.xpu.set_rng_state(T.ByteTensor(2)),
    lambda T: T.xpu.set_rng_state(5), lambda T: T.xpu.set_rng_state_all([T.ByteTensor(2)]),
    lambda T: T.xpu.set_rng_state_all(5), lambda T: T.xpu.is_current_stream_capturing(),
    lambda T: [(d.idx, d.prev_idx) for d in (T.xpu.device(0), T.xpu.device(-1), T.xpu.device(None),
                                             T.xpu.device("xpu:1"))],
    lambda T: T.xpu.device("cpu"), lambda T: T.xpu.device(T.device("cpu")), lambda T: T.xpu.device(0).__enter__()])
def test_xpu_without_xpu(call):
    """torch.xpu as torch's CPU build answers it (accelerate saves and restores every device's RNG state)."""
    check(call)


def test_jit_fuser_flags():
    """The TorchScript fuser switches timm's set_jit_fuser turns (kept as state; mstorch has no TorchScript):
    setters return what torch returns (the previous value or None), getters read them back, bad arguments raise
    TypeError."""
    def fn(T):
        C = T._C
        out = [C._jit_set_profiling_executor(True), C._jit_set_profiling_executor(False),
               C._jit_set_profiling_executor(True), C._jit_set_profiling_mode(True), C._jit_set_profiling_mode(None),
               C._jit_set_profiling_mode(2.5), C._jit_can_fuse_on_cpu(), C._jit_can_fuse_on_gpu(),
               C._jit_override_can_fuse_on_cpu(True), C._jit_can_fuse_on_cpu(), C._jit_override_can_fuse_on_cpu(False),
               C._jit_can_fuse_on_cpu(), C._jit_override_can_fuse_on_gpu(True), C._jit_can_fuse_on_gpu(),
               C._jit_override_can_fuse_on_gpu(False), C._jit_set_texpr_fuser_enabled(False),
               C._jit_texpr_fuser_enabled(), C._jit_set_texpr_fuser_enabled(True), C._jit_texpr_fuser_enabled(),
               C._jit_set_nvfuser_enabled(True), C._jit_nvfuser_enabled(), C._jit_set_nvfuser_guard_mode(True)]
        C._jit_set_profiling_mode(True)
        return out
    check(fn)
    for bad in ("a", [1]):
        check(lambda T: T._C._jit_set_profiling_executor(bad))
        check(lambda T: T._C._jit_override_can_fuse_on_cpu(bad))
    check(lambda T: T._C._jit_set_texpr_fuser_enabled())
