"""torch.cuda / torch.accelerator / torch.backends on a CPU-only machine, compared with a CPU build of torch,
and the answers mstorch gives when MindSpore's device target is GPU or Ascend (the target is simulated:
these answers come from one table keyed by the target, which is all that changes between machines)."""
import warnings

import pytest

import mstorch
from mstorch import _runtime

from harness import check, check_raises


# --- CPU-only: every answer equals a CPU build of torch ------------------------------------------------

@pytest.mark.parametrize("name", ["is_available", "device_count", "is_initialized", "memory_allocated",
                                  "max_memory_allocated", "memory_reserved", "empty_cache"])
def test_cuda_queries_cpu_only(name):
    check(lambda T: getattr(T.cuda, name)())


@pytest.mark.parametrize("name", ["current_device", "synchronize", "get_device_name", "get_device_capability"])
def test_cuda_calls_that_need_a_gpu_raise(name):
    check_raises(lambda T: getattr(T.cuda, name)())


def test_cuda_seeding_is_accepted_on_cpu():
    def fn(T):
        T.cuda.manual_seed(3)
        T.cuda.manual_seed_all(3)
        T.manual_seed(3)
        return T.rand(3)
    check(fn)


def test_accelerator_cpu_only():
    check(lambda T: (T.accelerator.is_available(), T.accelerator.current_accelerator(),
                     T.accelerator.device_count()))


def test_tensor_to_cuda_on_cpu_only():
    check_raises(lambda T: T.zeros(2).to("cuda"))
    check_raises(lambda T: T.zeros(2).cuda())
    check_raises(lambda T: T.zeros(2, device="cuda"))
    check_raises(lambda T: T.nn.Linear(2, 2).cuda())


def test_cpu_path_of_a_typical_script():
    def fn(T):
        device = T.device("cuda" if T.cuda.is_available() else "cpu")
        model = T.nn.Linear(3, 2).to(device)
        return repr(device), model(T.ones(1, 3, device=device)).shape, next(model.parameters()).device
    check(fn)


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


# --- simulated accelerator targets ---------------------------------------------------------------------

@pytest.fixture
def target(monkeypatch):
    def set_target(name):
        monkeypatch.setitem(_runtime._state, "device_target", name)
    return set_target


def test_gpu_target_answers(target):
    target("GPU")
    T = mstorch
    assert T.cuda.is_available() and T.accelerator.is_available()
    assert T.accelerator.current_accelerator() == T.device("cuda")
    assert T.cuda.current_device() == 0 and T.accelerator.current_device_index() == 0
    assert not T.npu.is_available()
    assert T.get_default_device() == T.device("cpu") or T.get_default_device() == T.device("cuda", 0)
    # a script's GPU path is taken, and its device strings are accepted
    device = T.device("cuda" if T.cuda.is_available() else "cpu")
    assert device.type == "cuda"
    T.zeros(2).to(device)
    T.zeros(2, device="cuda:0")
    T.cuda.set_device(0)


def test_ascend_target_answers(target):
    target("Ascend")
    T = mstorch
    assert not T.cuda.is_available()          # torch_npu's convention: the accelerator is spelled npu
    assert T.npu.is_available() and T.npu.device_count() == 1 and T.npu.current_device() == 0
    assert T.accelerator.is_available()
    assert T.accelerator.current_accelerator() == T.device("npu")
    # .to("npu") and .to("cuda") are both accepted: the work runs on the one target MindSpore has
    T.zeros(2).to("npu")
    T.zeros(2).to("cuda")
    T.zeros(2, device="npu:0")


def test_cpu_target_npu_is_refused(target):
    target("CPU")
    assert not mstorch.npu.is_available()
    with pytest.raises(RuntimeError, match="no Ascend device"):
        mstorch.npu.current_device()
    with pytest.raises(RuntimeError, match="not available"):
        mstorch.zeros(2).to("npu")
