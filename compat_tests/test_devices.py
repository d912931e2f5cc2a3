"""Devices: torch.cuda / torch.accelerator / torch.backends and device placement.

On this CPU-only machine every answer is compared with a CPU build of torch. Placement on an accelerator
(``.to('cuda')`` round trips, factories with ``device=``, the default device, modules, optimizers, device
generators and torch's mixed-device errors) runs on simulated CUDA devices (``mstorch._device.simulate``,
what ``MSTORCH_FAKE_DEVICES=cuda:2`` gives a process): tensors labelled ``cuda:i`` held in host memory. The
CPU torch wheel cannot make a CUDA tensor, so those tests compare values with torch computing the same thing
on the CPU, and errors with the messages torch's CUDA build raises (quoted below from torch 2.13's
TensorIterator and Python sources)."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import mstorch
from mstorch import _device

from harness import assert_same, check, check_raises

# the first tests compare with a CPU-only torch build: on a machine with a device (tools/gpu_smoke.sh) they skip
CPU_ONLY = pytest.mark.skipif(_device.accel["kind"] is not None, reason="answers of a machine without a device")
# simulated devices exist only on a CPU target
SIMULATED = pytest.mark.skipif(_device.accel["kind"] is not None or mstorch._runtime.device_target() != "CPU",
                               reason="simulated devices need a CPU-only process")


# --- CPU-only: every answer equals a CPU build of torch ------------------------------------------------

@pytest.mark.parametrize("name", ["is_available", "device_count", "is_initialized", "memory_allocated",
                                  "max_memory_allocated", "memory_reserved", "empty_cache"])
@CPU_ONLY
def test_cuda_queries_cpu_only(name):
    check(lambda T: getattr(T.cuda, name)())


@CPU_ONLY
@pytest.mark.parametrize("name", ["current_device", "synchronize", "get_device_name", "get_device_capability"])
def test_cuda_calls_that_need_a_gpu_raise(name):
    check_raises(lambda T: getattr(T.cuda, name)())


@CPU_ONLY
def test_cuda_seeding_is_accepted_on_cpu():
    def fn(T):
        T.cuda.manual_seed(3)
        T.cuda.manual_seed_all(3)
        T.manual_seed(3)
        return T.rand(3)
    check(fn)


@CPU_ONLY
def test_accelerator_cpu_only():
    check(lambda T: (T.accelerator.is_available(), T.accelerator.current_accelerator(),
                     T.accelerator.device_count()))


def outcome(call):
    """What a call gives: its value, or the exact exception type and message."""
    try:
        r = call()
    except Exception as exc:  # noqa: BLE001 - the exception is the result being compared
        return ("raised", type(exc).__name__, str(exc))
    return r


@CPU_ONLY
def test_tensor_to_cuda_on_cpu_only():
    check_raises(lambda T: T.zeros(2).to("cuda"))
    check_raises(lambda T: T.zeros(2).cuda())
    check_raises(lambda T: T.zeros(2, device="cuda"))
    check_raises(lambda T: T.nn.Linear(2, 2).cuda())


# every way of asking for CUDA on a CPU-only build: exception type and message exactly as torch's
CPU_ONLY_CALLS = {
    "factory": lambda T: T.zeros(1, device="cuda"),
    "tensor()": lambda T: T.tensor([1.0], device="cuda:0"),
    "like": lambda T: T.zeros_like(T.ones(2), device="cuda"),
    "new_zeros": lambda T: T.ones(2).new_zeros(2, device="cuda"),
    "rand": lambda T: T.rand(2, device="cuda"),
    "randperm": lambda T: T.randperm(3, device="cuda"),
    ".cuda()": lambda T: T.ones(2).cuda(),
    ".cuda(1)": lambda T: T.ones(2).cuda(1),
    ".to(cuda)": lambda T: T.ones(2).to("cuda"),
    "set_device(0)": lambda T: T.cuda.set_device(0),
    "set_device(-1)": lambda T: T.cuda.set_device(-1),
    "set_default_device": lambda T: (T.set_default_device("cuda"), T.get_default_device()),
    "default device factory": lambda T: (T.set_default_device("cuda"), T.zeros(1)),
    "with device": lambda T: _zeros_inside(T, T.device("cuda")),
    "cuda.device": lambda T: T.cuda.device(0).__enter__(),
    "cuda.device(-1)": lambda T: T.cuda.device(-1).__enter__(),
    "device_of": lambda T: T.cuda.device_of(T.ones(1)).__enter__(),
    "manual_seed": lambda T: (T.cuda.manual_seed(1), T.cuda.manual_seed_all(1), T.cuda.seed(), T.cuda.seed_all()),
    "get_rng_state": lambda T: T.cuda.get_rng_state(),
    "get_rng_state_all": lambda T: T.cuda.get_rng_state_all(),
    "set_rng_state": lambda T: (T.cuda.set_rng_state(T.zeros(16, dtype=T.uint8)), T.cuda.set_rng_state_all([])),
    "initial_seed": lambda T: T.cuda.initial_seed(),
    "default_generators": lambda T: T.cuda.default_generators,
    "Generator(cuda)": lambda T: T.Generator(device="cuda"),
    "Generator(meta)": lambda T: T.Generator(device="meta"),
    "is_cuda, get_device": lambda T: (T.ones(1).is_cuda, T.ones(1).get_device(), T.ones(1).device),
    "module.cuda": lambda T: T.nn.Linear(2, 2).cuda(),
    "module.to(cuda)": lambda T: T.nn.Linear(2, 2).to("cuda"),
}


@CPU_ONLY
@pytest.mark.parametrize("name", sorted(CPU_ONLY_CALLS))
def test_cuda_requests_on_cpu_only(name):
    def fn(T):
        try:
            return outcome(lambda: CPU_ONLY_CALLS[name](T))
        finally:
            T.set_default_device(None)
    check(fn)


def _zeros_inside(T, dev):
    with dev:
        return T.zeros(1)


@CPU_ONLY
def test_unavailable_target_imports_and_reports_no_device():
    # MSTORCH_DEVICE_TARGET names a backend MindSpore cannot load here: the import works and reports no
    # device, as torch does on a machine without one
    code = ("import mstorch as T; print(T.cuda.is_available(), T.npu.is_available(), T.accelerator.is_available(), "
            "T.ones(2).device, (T.ones(2) + 1).sum().item())")
    for target in ("GPU", "Ascend"):
        env = dict(os.environ, MSTORCH_DEVICE_TARGET=target)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stdout.split("\n")[-2] == "False False False cpu 4.0"


@CPU_ONLY
def test_cpu_path_of_a_typical_script():
    def fn(T):
        device = T.device("cuda" if T.cuda.is_available() else "cpu")
        model = T.nn.Linear(3, 2).to(device)
        return repr(device), model(T.ones(1, 3, device=device)).shape, next(model.parameters()).device
    check(fn)


@CPU_ONLY
def test_backends_flags():
    def fn(T):
        before = (T.backends.cudnn.benchmark, T.backends.cudnn.deterministic, T.backends.cuda.matmul.allow_tf32,
                  T.backends.mps.is_available(), T.backends.cudnn.is_available())
        T.backends.cudnn.benchmark = True
        T.backends.cudnn.deterministic = True
        T.backends.cuda.matmul.allow_tf32 = True
        after = (T.backends.cudnn.benchmark, T.backends.cudnn.deterministic, T.backends.cuda.matmul.allow_tf32)
        T.backends.cudnn.benchmark = False
        T.backends.cudnn.deterministic = False
        T.backends.cuda.matmul.allow_tf32 = False
        return before, after
    check(fn)


@CPU_ONLY
def test_runtime_knobs():
    def fn(T):
        n = T.get_num_threads()
        T.set_num_threads(1)
        one = T.get_num_threads()
        T.set_num_threads(n)
        T.set_float32_matmul_precision("high")
        prec = T.get_float32_matmul_precision()
        T.set_float32_matmul_precision("highest")
        T.use_deterministic_algorithms(True)
        det = T.are_deterministic_algorithms_enabled()
        T.use_deterministic_algorithms(False)
        return one, prec, det, T.are_deterministic_algorithms_enabled()
    check(fn)

    def unknown_precision(T):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            T.set_float32_matmul_precision("fast")
        return T.get_float32_matmul_precision(), [str(w.message).split(" (Triggered")[0] for w in caught]
    check(unknown_precision)




# --- placement on simulated CUDA devices -------------------------------------------------------------------

# torch's CUDA build: TensorIterator's check (aten/src/ATen/TensorIterator.cpp), the first device that is
# not the CPU named first; other kernels add "(when checking argument for argument ... in method ...)"
MIXED = "Expected all tensors to be on the same device, but found at least two devices, {} and {}!"
TO_NUMPY = ("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host "
            "memory first.")


@pytest.fixture
def cuda2():
    if _device.accel["kind"] is not None or mstorch._runtime.device_target() != "CPU":
        pytest.skip("simulated devices need a CPU-only process")
    with _device.simulate("cuda", 2):
        yield
    mstorch.set_default_device(None)


def _devices(r):
    if isinstance(r, mstorch.Tensor):
        return [str(r.device)]
    if isinstance(r, (list, tuple)):
        return [d for x in r for d in _devices(x)]
    if isinstance(r, dict):
        return [d for x in r.values() for d in _devices(x)]
    return []


def _to_cpu(r):
    if isinstance(r, mstorch.Tensor):
        return r.cpu()
    if isinstance(r, (list, tuple)):
        return type(r)(_to_cpu(x) for x in r)
    if isinstance(r, dict):
        return {k: _to_cpu(v) for k, v in r.items()}
    return r


def on_device(fn, **kw):
    """``fn(T, dev)``: torch computes it on the CPU, mstorch on a simulated CUDA device; values, dtypes and
    shapes must agree (mstorch's results are brought back with ``.cpu()``). Returns mstorch's devices."""
    ref = fn(torch, "cpu")
    got = fn(mstorch, "cuda")
    devices = _devices(got)
    assert_same(ref, _to_cpu(got), **kw)
    return devices


def test_round_trip(cuda2):
    def fn(T, dev):
        x = T.arange(12.0).reshape(3, 4)
        y = x.to(dev)
        z = (y * 2 + 1).t().contiguous()
        return [y, z, z.cpu(), y.to(dev, T.float64), y.to(T.int32), y.cuda() if dev == "cuda" else y,
                y[1], y[:, 1:3], y.sum(0), y.double().to(x), T.tensor([1, 2], device=dev).to(y)]
    devices = on_device(fn)
    assert devices == ["cuda:0", "cuda:0", "cpu", "cuda:0", "cuda:0", "cuda:0", "cuda:0", "cuda:0", "cuda:0",
                       "cpu", "cuda:0"]


def test_moves_as_torch(cuda2):
    T = mstorch
    x = T.ones(2)
    y = x.cuda()
    assert (y.is_cuda, y.is_cpu, y.get_device(), y.device) == (True, False, 0, T.device("cuda", 0))
    assert (x.is_cuda, x.get_device()) == (False, -1)
    assert y.to("cuda") is y and y.cuda(0) is y and x.cpu() is x and x.to("cpu") is x   # no move: the same tensor
    assert y.to("cuda", copy=True) is not y and y.to("cuda", copy=True).device == y.device
    assert x.cuda(1).device == T.device("cuda", 1) and x.to("cuda:1").get_device() == 1
    y.add_(1)   # new memory: the source is untouched
    assert x.tolist() == [1.0, 1.0] and y.tolist() == [2.0, 2.0] and y.sum().item() == 4.0
    assert outcome(lambda: y.numpy()) == ("raised", "TypeError", TO_NUMPY)
    assert repr(y) == "tensor([2., 2.], device='cuda:0')"
    assert outcome(lambda: x.cuda(2)) == ("raised", "RuntimeError", "CUDA error: invalid device ordinal")
    # the move is recorded: gradients flow back to the CPU leaf
    leaf = T.ones(3, requires_grad=True)
    (leaf.cuda() * 3).sum().backward()
    assert leaf.grad.device == T.device("cpu") and leaf.grad.tolist() == [3.0, 3.0, 3.0]


def test_mixed_device_errors(cuda2):
    T = mstorch
    a, b = T.ones(2, 2), T.ones(2, 2).cuda()
    cases = {
        "cuda + cpu": (lambda: b + a, MIXED.format("cuda:0", "cpu")),
        "cpu + cuda": (lambda: a + b, MIXED.format("cuda:0", "cpu")),
        "cuda:1 + cuda:0": (lambda: b.cuda(1) + b, MIXED.format("cuda:1", "cuda:0")),
        "in place": (lambda: a.add_(b), MIXED.format("cuda:0", "cpu")),
        "matmul": (lambda: T.matmul(b, a), MIXED.format("cuda:0", "cpu")),
        "cat": (lambda: T.cat([b, a]), MIXED.format("cuda:0", "cpu")),
        "linear": (lambda: T.nn.functional.linear(a, b), MIXED.format("cuda:0", "cpu")),
        "where": (lambda: T.where(b > 0, a, b), MIXED.format("cuda:0", "cpu")),
    }
    for name, (call, message) in cases.items():
        got = outcome(call)
        assert got[:2] == ("raised", "RuntimeError") and got[2].startswith(message[:-1]), (name, got)
    # a 0-dim CPU tensor joins a CUDA operation, as in torch
    assert (b + T.tensor(2.0)).device == b.device and (b * T.tensor(3)).sum().item() == 12.0


def test_factories_and_default_device(cuda2):
    def fn(T, dev):
        x = T.ones(2, 3, device=dev)
        out = [x, T.zeros(2, device=dev + ":1" if dev == "cuda" else dev), T.zeros_like(x), T.full_like(x, 2.0),
               x.new_zeros(3), x.new_tensor([1.0, 2.0]), x.new_full((2,), 5.0), T.arange(4, device=dev),
               T.eye(2, device=dev), T.tensor([[1.0]], device=dev), T.as_tensor(np.ones(2), device=dev),
               T.ones_like(x, device="cpu")]
        with T.device(dev):
            out += [T.zeros(2), T.ones(2, device="cpu")]
        T.set_default_device(dev)
        try:
            out += [T.linspace(0, 1, 3), T.get_default_device().type == ("cuda" if dev == "cuda" else "cpu")]
        finally:
            T.set_default_device(None)
        return out
    devices = on_device(fn)
    assert devices == ["cuda:0", "cuda:1", "cuda:0", "cuda:0", "cuda:0", "cuda:0", "cuda:0", "cuda:0", "cuda:0",
                       "cuda:0", "cuda:0", "cpu", "cuda:0", "cpu", "cuda:0"]


def _train(T, dev, model, x, y, adam, steps=3):
    # (Adam only for the MLP: it turns the zero gradients of a bias before BatchNorm or of attention's key
    # bias into full steps of rounding noise)
    model = model.to(dev)
    opt = T.optim.Adam(model.parameters(), lr=0.01) if adam else T.optim.SGD(model.parameters(), 0.1, 0.9)
    x, y = x.to(dev), y.to(dev)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = T.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    first = next(model.parameters())
    state = opt.state[first]
    return losses, list(model.state_dict().values()), first.grad, [state[k] for k in sorted(state)]


def _models(T):
    T.manual_seed(0)
    mlp = T.nn.Sequential(T.nn.Linear(8, 16), T.nn.ReLU(), T.nn.Dropout(0.0), T.nn.Linear(16, 3))
    cnn = T.nn.Sequential(T.nn.Conv2d(1, 4, 3, padding=1, bias=False), T.nn.BatchNorm2d(4), T.nn.ReLU(), T.nn.MaxPool2d(2),
                          T.nn.Flatten(), T.nn.Linear(4 * 2 * 2, 3))
    block = T.nn.Sequential(T.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
                            T.nn.Flatten(), T.nn.Linear(8 * 5, 3))
    r = np.random.RandomState(0)
    return [(mlp, T.tensor(r.randn(4, 8).astype("float32"))),
            (cnn, T.tensor(r.randn(4, 1, 4, 4).astype("float32"))),
            (block, T.tensor(r.randn(4, 5, 8).astype("float32")))]


@pytest.mark.parametrize("which", [0, 1, 2], ids=["mlp", "cnn", "transformer"])
def test_training_step_on_device(cuda2, which):
    def fn(T, dev):
        model, x = _models(T)[which]
        return _train(T, dev, model, x, T.tensor([0, 1, 2, 1]), adam=which == 0)
    devices = on_device(fn, rtol=1e-4, atol=1e-5)
    # parameters, buffers, gradients and optimizer states live on the device; torch keeps Adam's step on the CPU
    if which == 0:
        assert set(devices[:-1]) == {"cuda:0"} and devices[-1] == "cpu"
    else:
        assert set(devices) == {"cuda:0"}


def test_module_moves(cuda2):
    T = mstorch
    m = T.nn.BatchNorm1d(3)
    w = m.weight
    m.cuda()
    assert m.weight is w and {str(t.device) for t in m.state_dict().values()} == {"cuda:0"}
    assert outcome(lambda: m(T.ones(2, 3)))[:2] == ("raised", "RuntimeError")
    m.cpu()
    assert {str(t.device) for t in m.state_dict().values()} == {"cpu"}
    m.to("cuda:1", T.float64)
    assert {(str(t.device), t.dtype) for t in m.parameters()} == {("cuda:1", T.float64)}


def test_cuda_api_on_simulated_devices(cuda2):
    T = mstorch
    assert T.cuda.is_available() and T.cuda.device_count() == 2 and T.cuda.current_device() == 0
    assert T.accelerator.current_accelerator() == T.device("cuda") and T.accelerator.device_count() == 2
    with T.cuda.device(1):
        assert T.cuda.current_device() == 1 and T.ones(1).cuda().device == T.device("cuda", 1)
        assert T.zeros(1, device="cuda").get_device() == 1
    assert T.cuda.current_device() == 0
    with T.cuda.device_of(T.ones(1).cuda(1)):
        assert T.cuda.current_device() == 1
    T.cuda.set_device("cuda:1")
    assert T.cuda.current_device() == 1 and T.ones(1).cuda().get_device() == 1
    T.cuda.set_device(0)
    assert outcome(lambda: T.cuda.set_device(5)) == ("raised", "RuntimeError", "CUDA error: invalid device ordinal")


@SIMULATED
def test_ascend_simulated():
    T = mstorch
    with _device.simulate("npu", 1):
        assert not T.cuda.is_available() and T.npu.is_available() and T.npu.device_count() == 1
        assert T.accelerator.current_accelerator() == T.device("npu")
        x = T.ones(2).npu()
        assert x.device == T.device("npu", 0) and not x.is_cuda
        # torch_npu's convention: on an Ascend machine "cuda" names the NPU
        assert T.ones(2).to("cuda").device == T.device("npu", 0)
        assert outcome(lambda: x + T.ones(2))[2] == MIXED.format("npu:0", "cpu")
    assert not T.npu.is_available()
    with pytest.raises(RuntimeError, match="not available"):
        T.zeros(2).to("npu")


@SIMULATED
def test_devices_from_the_environment():
    code = ("import mstorch as T; x = T.ones(2).cuda(1); print(T.cuda.device_count(), x.device, "
            "(x * 2).device, x.cpu().device)")
    env = dict(os.environ, MSTORCH_FAKE_DEVICES="cuda:2")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[-2] == "2 cuda:1 cuda:1 cpu"


@SIMULATED
def test_cpu_only_process_has_no_device_check():
    # without devices the op wrapper's intercept stays off (the CPU path pays one test of a global)
    # (a Tensor subclass with __torch_function__ defined by an earlier test keeps it on for its own reason)
    from mstorch.ops import _bind
    others = bool(_bind.PROXIES_ALIVE or _bind.TORCH_FUNCTION_SUBCLASSES or _bind.TORCH_FUNCTION_MODES)
    assert not _bind.DEVICES and _bind.INTERCEPT == others
    with _device.simulate("cuda", 1):
        assert _bind.DEVICES and _bind.INTERCEPT
    assert not _bind.DEVICES and _bind.INTERCEPT == others


# --- random numbers on devices -------------------------------------------------------------------------------

def test_device_draws_leave_the_cpu_stream_as_torch(cuda2):
    # torch draws CUDA tensors from the CUDA generator: the CPU stream is what it would be without them
    def fn(T):
        T.manual_seed(7)
        if T is mstorch:
            T.rand(5, device="cuda"), T.randn(3, device="cuda"), T.nn.functional.dropout(T.ones(8).cuda(), 0.5)
        return T.rand(4)
    check(fn)


def test_device_seeding_and_state(cuda2):
    T = mstorch
    T.cuda.manual_seed(3)
    a = T.rand(4, device="cuda")
    T.cuda.manual_seed(3)
    assert T.rand(4, device="cuda").tolist() == a.tolist()
    T.manual_seed(5)   # torch.manual_seed seeds every device too
    state = T.cuda.get_rng_state()
    assert (state.dtype, state.shape, state.device) == (T.uint8, T.Size([16]), T.device("cpu"))
    assert T.cuda.initial_seed() == 5 and int.from_bytes(bytes(state.tolist()[:8]), "little") == 5
    b = T.randn(6, device="cuda")
    T.cuda.set_rng_state(state)
    assert T.randn(6, device="cuda").tolist() == b.tolist()
    assert [s.tolist() for s in T.cuda.get_rng_state_all()] == [T.cuda.get_rng_state(i).tolist() for i in (0, 1)]
    assert len(T.cuda.default_generators) == 2 and T.cuda.default_generators[1].device == T.device("cuda", 1)
    T.cuda.manual_seed_all(9)
    assert [g.initial_seed() for g in T.cuda.default_generators] == [9, 9]
    with T.random.fork_rng():
        T.rand(3, device="cuda")
    assert T.cuda.get_rng_state().tolist() == T.cuda.default_generators[0].get_state().tolist()
    after_fork = T.rand(3, device="cuda")
    T.cuda.manual_seed_all(9)
    assert T.rand(3, device="cuda").tolist() == after_fork.tolist()


def test_device_generator_objects(cuda2):
    T = mstorch
    g = T.Generator(device="cuda")
    assert isinstance(g, T.Generator) and g.device == T.device("cuda", 0)
    assert g.initial_seed() == torch.Generator().initial_seed()   # torch's default seed, for every generator
    g.manual_seed(11)
    a = T.randn(5, device="cuda", generator=g)
    g2 = T.Generator(device="cuda:1").manual_seed(11)
    assert T.randn(5, device="cuda:1", generator=g2).tolist() == a.tolist()
    g.set_state(g2.get_state())
    assert T.empty(3, device="cuda").uniform_(generator=g).tolist() == \
        T.empty(3, device="cuda:1").uniform_(generator=g2).tolist()
    # torch's errors for a generator of the other device type
    assert outcome(lambda: T.randn(2, generator=g)) == (
        "raised", "RuntimeError", "Expected a 'cpu' device type for generator but found 'cuda'")
    assert outcome(lambda: T.randn(2, device="cuda", generator=T.Generator())) == (
        "raised", "RuntimeError", "Expected a 'cuda' device type for generator but found 'cpu'")
    assert outcome(lambda: g.set_state(T.zeros(3, dtype=T.uint8))) == ("raised", "RuntimeError",
                                                                        "RNG state is wrong size")


def test_device_distributions(cuda2):
    # not torch's CUDA values (its Philox is not reproduced): the distributions, checked by statistics
    T = mstorch
    T.manual_seed(0)
    n = 20000
    u = T.rand(n, device="cuda")
    z = T.randn(n, device="cuda", dtype=T.float64)
    assert u.device == z.device == T.device("cuda", 0) and z.dtype == T.float64
    assert 0 <= u.min().item() and u.max().item() < 1 and abs(u.mean().item() - 0.5) < 0.01
    assert abs(z.mean().item()) < 0.03 and abs(z.std().item() - 1) < 0.03
    ints = T.randint(3, 9, (n,), device="cuda")
    assert ints.dtype == T.int64 and set(ints.unique().tolist()) == set(range(3, 9))
    assert sorted(T.randperm(50, device="cuda").tolist()) == list(range(50))
    p = T.full((n,), 0.3, device="cuda")
    assert abs(T.bernoulli(p).mean().item() - 0.3) < 0.015 and abs(p.bernoulli().mean().item() - 0.3) < 0.015
    assert abs(T.empty(n, device="cuda").exponential_(2.0).mean().item() - 0.5) < 0.02
    assert abs(T.empty(n, device="cuda").normal_(3.0, 0.5).std().item() - 0.5) < 0.02
    assert abs(T.normal(T.full((n,), 2.0, device="cuda"), 1.0).mean().item() - 2) < 0.03
    kept = T.nn.functional.dropout(T.ones(n, device="cuda"), 0.25)
    assert set(kept.unique().tolist()) == {0.0, float(np.float32(1) / np.float32(0.75))} and abs((kept > 0).float().mean().item() - 0.75) < 0.015
    assert T.rand_like(u).device == u.device and T.randn_like(u, device="cpu").device == T.device("cpu")


def test_checkpoints_keep_devices(cuda2):
    # torch.save records each storage's device ("cuda:1"); torch.load puts it back there unless map_location
    # says otherwise, and a CPU-only process refuses it with torch's message
    import io
    T = mstorch
    buf = io.BytesIO()
    T.save({"x": T.arange(3.0).cuda(), "y": T.ones(2), "p": T.nn.Parameter(T.ones(2).cuda(1))}, buf)
    data = buf.getvalue()
    for map_location, want in [(None, ["cuda:0", "cpu", "cuda:1"]), ("cpu", ["cpu", "cpu", "cpu"]),
                               ("cuda", ["cuda:0", "cuda:0", "cuda:0"]),
                               ({"cuda:0": "cuda:1"}, ["cuda:1", "cpu", "cuda:1"])]:
        loaded = T.load(io.BytesIO(data), map_location=map_location)
        assert [str(v.device) for v in loaded.values()] == want, map_location
        assert loaded["x"].tolist() == [0.0, 1.0, 2.0] and isinstance(loaded["p"], T.nn.Parameter)
    # real torch reads it as a checkpoint saved on CUDA (mapped to the CPU here), without mstorch's attributes
    ref = torch.load(io.BytesIO(data), map_location="cpu")
    assert ref["x"].tolist() == [0.0, 1.0, 2.0] and not hasattr(ref["x"], "_dev")
    # and a CPU-only process refuses it as torch's CPU build does, word for word
    assert outcome(lambda: _cpu_only_load(data)) == outcome(lambda: torch.load(io.BytesIO(data)))


def _cpu_only_load(data):
    import io
    saved = dict(_device.accel)
    _device._set(None, 0, False)
    try:
        return mstorch.load(io.BytesIO(data))
    finally:
        _device._set(saved["kind"], saved["count"], saved["simulated"], saved["index"])


class _Cube:
    """A custom autograd Function, written for either library."""

    @staticmethod
    def make(T):
        class Cube(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x * x
        return Cube


def test_autograd_keeps_devices(cuda2):
    from torch.utils import checkpoint as torch_checkpoint
    from mstorch.utils import checkpoint as ms_checkpoint

    def fn(T, dev):
        ckpt = torch_checkpoint if T is torch else ms_checkpoint
        x = T.linspace(-1, 1, 6, device=dev).reshape(2, 3).requires_grad_()
        seen = []
        x.register_hook(lambda g: seen.append(g * 1))
        y = _Cube.make(T).apply(x)
        z = ckpt.checkpoint(lambda t: (t * t).sin(), y, use_reentrant=False)
        (gx,) = T.autograd.grad(z.exp().sum(), x, retain_graph=True)
        w = ckpt.checkpoint(lambda t: t.exp(), z, use_reentrant=True)
        w.sum().backward()
        return [y, z, w, gx, x.grad, seen[0]]
    assert set(on_device(fn)) == {"cuda:0"}
    # dropout under checkpoint: the recomputation draws the forward's mask from the device generator again
    T = mstorch
    for reentrant in (True, False):
        x = T.ones(6, 6, device="cuda", requires_grad=True)
        y = ms_checkpoint.checkpoint(lambda t: T.nn.functional.dropout(t * 2, 0.5), x, use_reentrant=reentrant)
        y.sum().backward()
        assert y.device == x.grad.device == x.device and T.equal(x.grad != 0, y != 0)


def test_deterministic_debug_mode():
    def fn(T):
        seen = [T.get_deterministic_debug_mode()]
        for mode in ("warn", 2, "default", 1, 0, "error"):
            T.set_deterministic_debug_mode(mode)
            seen.append((T.get_deterministic_debug_mode(), T.are_deterministic_algorithms_enabled(),
                         T.is_deterministic_algorithms_warn_only_enabled()))
        T.use_deterministic_algorithms(True, warn_only=True)
        seen.append(T.get_deterministic_debug_mode())
        T.use_deterministic_algorithms(False)
        return seen, T.get_deterministic_debug_mode()
    check(fn)
    from test_autograd import check_message
    for bad in ("x", 3, 1.5):
        check_message(lambda T: T.set_deterministic_debug_mode(bad))


def test_error_types_and_accelerator():
    # transformers catches torch.OutOfMemoryError and asks torch._C._get_accelerator() for the device type
    check(lambda T: (T.OutOfMemoryError is T.cuda.OutOfMemoryError, [c.__name__ for c in T.OutOfMemoryError.__mro__],
                     [c.__name__ for c in T.AcceleratorError.__mro__], T.OutOfMemoryError.__module__,
                     str(T._C._get_accelerator()), T._C._get_accelerator().type,
                     issubclass(T.OutOfMemoryError, RuntimeError)))
