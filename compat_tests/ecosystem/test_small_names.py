"""Top-level names libraries touch at import (transformers, timm): constants, sym_* on plain numbers,
typename, is_storage, torch.version, autograd.graph's saved-tensor hooks."""
import numpy as np
import pytest

from harness import check_as_torch as check  # value and error cases side by side: as torch does


def test_constants():
    check(lambda T: [T.pi, T.e, T.inf, -T.inf, T.newaxis, str(T.nan), type(T.pi).__name__])


@pytest.mark.parametrize("args", [(2, 3), (2, 3.0), (3, 2.0), (2.5, 1.5), (np.int64(4), 2), (np.float32(1.5), 2),
                                  (-1, -1.0)])
def test_sym_max_min(args):
    check(lambda T: [T.sym_max(*args), type(T.sym_max(*args)).__name__, T.sym_min(*args),
                     type(T.sym_min(*args)).__name__])


def test_sym_helpers():
    check(lambda T: [T.sym_int(2.7), T.sym_int(-2.7), T.sym_int(True), T.sym_float(3), T.sym_not(True),
                     T.sym_not(0), T.sym_ite(True, 1, 2), T.sym_ite(False, 1.0, 2.0), T.sym_sqrt(4),
                     T.sym_sqrt(2.0), T.sym_sum([1, 2, 3]), T.sym_sum(1, 2.5), T.sym_sum(()), T.sym_sum((1,))])
    check(lambda T: T.sym_max("a", 1))
    check(lambda T: T.sym_ite(1, 1, 2))
    check(lambda T: T.sym_ite(True, 1, 2.0))


def test_typename_and_is_storage():
    check(lambda T: [T.typename(1), T.typename(T.zeros(2)), T.typename(T.zeros(2, dtype=T.int64)),
                     T.typename(T.nn.Linear(1, 1)), T.typename(T.nn.Linear), T.typename(T.nn.Parameter),
                     T.typename(len), T.typename([]), T.typename(np.float32(1))])
    check(lambda T: [T.is_storage(T.zeros(2)), T.is_storage([1]), T.is_storage(None)])


def test_version_module():
    check(lambda T: [sorted(T.version.__all__), T.version.cuda, T.version.hip, T.version.rocm, T.version.xpu,
                     T.version.debug, type(T.version.git_version).__name__, T.__version__ > "2.12",
                     T.__version__.split("+")[0], type(T.__version__).__name__])


def test_save_on_cpu_is_identity_on_cpu():
    def fn(T):
        T.manual_seed(0)
        lin = T.nn.Linear(4, 3)
        x = T.randn(5, 4, requires_grad=True)
        with T.autograd.graph.save_on_cpu(pin_memory=False):
            y = T.tanh(lin(x)).sum()
        y.backward()
        return y, x.grad, lin.weight.grad
    check(fn)


def _hooked_step(T, pack, unpack):
    T.manual_seed(0)
    lin = T.nn.Linear(4, 3)
    x = T.randn(5, 4, requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (T.tanh(lin(x)) * x[:, :3]).sum()
    y.backward()
    return y, x.grad, lin.weight.grad, lin.bias.grad


def test_saved_tensors_hooks_run_and_keep_gradients():
    def fn(T):
        calls = {"pack": 0, "unpack": 0}

        def pack(t):  # a host copy, as offloading hooks do
            calls["pack"] += 1
            return (t.detach().numpy().copy(), t.dtype)

        def unpack(p):
            calls["unpack"] += 1
            return T.from_numpy(p[0]).to(p[1])
        out = _hooked_step(T, pack, unpack)
        # which tensors are saved is each engine's own choice; both ran the hooks
        return out + (calls["pack"] > 0, calls["unpack"] > 0)
    check(fn)


def test_saved_tensors_hooks_unpack_must_give_a_tensor():
    check(lambda T: _hooked_step(T, lambda t: 1, lambda p: p))


def test_disable_saved_tensors_hooks_message():
    def fn(T):
        with T.autograd.graph.disable_saved_tensors_hooks("no hooks in this region"):
            with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    check(fn)


def test_backends_answers():
    def fn(T):
        b = T.backends
        out = [b.mps.is_available(), b.mps.is_built(), b.cudnn.is_available(), b.cuda.is_built(),
               b.openmp.is_available(), b.opt_einsum.is_available(), b.opt_einsum.get_opt_einsum(),
               b.mha.get_fastpath_enabled()]
        b.mha.set_fastpath_enabled(False)
        out.append(b.mha.get_fastpath_enabled())
        b.mha.set_fastpath_enabled(True)
        return out
    check(fn)
    check(lambda T: T.backends.mps.is_macos_or_newer(14, 0))
    check(lambda T: T.backends.mps.is_macos13_or_newer())
