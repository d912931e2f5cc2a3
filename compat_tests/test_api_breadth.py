"""Python-level torch names of issue 16 (API breadth): torch.cond, torch.autograd.graph's multi-grad hooks and
version bump, set_multithreading_enabled, torch.nn.grad, nn.Container, nn.factory_kwargs, nn.common_types."""
import warnings

import numpy as np
import pytest

from harness import check, check_raises, rand


def _t(T, a, grad=False):
    return T.tensor(a, requires_grad=grad)


# --- torch.cond ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("pred", [True, False, 1, 0.0, "tensor_true", "tensor_false"])
def test_cond_takes_the_branch(pred):
    def fn(T):
        x = _t(T, rand(3), grad=True)
        p = {"tensor_true": T.tensor(True), "tensor_false": T.tensor([0.0])}.get(pred, pred)
        out = T.cond(p, lambda a: a.cos() * 2, lambda a: a.sin() + 1, (x,))
        out.sum().backward()
        return out, x.grad
    check(fn)


def test_cond_nested_operands_and_no_operands():
    check(lambda T: T.cond(T.tensor(1) > 0, lambda: T.ones(2), lambda: T.zeros(2)))
    check(lambda T: T.cond(T.tensor(False), lambda a, b: a + b, lambda a, b: a - b, [T.ones(2), T.ones(2) * 3]))


@pytest.mark.parametrize("case", ["multi_element", "not_bool", "branch", "operand"])
def test_cond_checks(case):
    def fn(T):
        x = T.ones(2)
        args = {"multi_element": (T.ones(2) > 0, x.cos, x.sin, ()), "not_bool": ("yes", x.cos, x.sin, ()),
                "branch": (T.tensor(True), 1, x.sin, ()), "operand": (T.tensor(True), x.add, x.sub, (1.0,))}[case]
        return T.cond(*args)
    check_raises(fn)


# --- torch.autograd.graph ------------------------------------------------------------------------------

def test_multi_grad_hook_all():
    def fn(T):
        a, b, c = (_t(T, rand(3, seed=i), grad=True) for i in range(3))
        calls = []
        handle = T.autograd.graph.register_multi_grad_hook(
            (a, b, c), lambda grads: calls.append([None if g is None else g.clone() for g in grads]))
        (a * 2 + b.exp()).sum().backward()          # c is not in the graph: None
        (a * b).sum().backward(inputs=[b])          # only b's gradient computed
        handle.remove()
        (a * 3).sum().backward()                    # removed: no call
        return calls
    check(fn)


def test_multi_grad_hook_any():
    def fn(T):
        a, b = _t(T, rand(3), grad=True), _t(T, rand(3, seed=1), grad=True)
        calls = []
        T.autograd.graph.register_multi_grad_hook((a, b), lambda g: calls.append(g.clone()), mode="any")
        (a * b).sum().backward()
        (b * 4).sum().backward()
        return len(calls), calls[1]
    check(fn)


def test_multi_grad_hook_mode_error():
    check_raises(lambda T: T.autograd.graph.register_multi_grad_hook((T.ones(1, requires_grad=True),), print,
                                                                      mode="some"))


def test_increment_version_makes_backward_refuse():
    def fn(T):
        x = _t(T, rand(3), grad=True)
        y = x * 1
        z = y.exp()                                 # saves its output
        v0 = y._version
        T.autograd.graph.increment_version(z)
        T.autograd.graph.increment_version([y, y])
        return v0, y._version, z._version
    check(fn)

    def refused(T):
        x = _t(T, rand(3), grad=True)
        z = (x * 1).exp()
        T.autograd.graph.increment_version(z)
        z.sum().backward()
    check_raises(refused)


def test_set_multithreading_enabled():
    def fn(T):
        x = _t(T, rand(3), grad=True)
        with T.autograd.set_multithreading_enabled(False):
            (x * x).sum().backward()
        T.autograd.set_multithreading_enabled(True)
        cm = T.autograd.set_multithreading_enabled(False)
        clone = cm.clone()
        with cm:
            pass
        return x.grad, clone.mode
    check(fn)


# --- torch.nn.grad ---------------------------------------------------------------------------------------

CONVS = {1: ((2, 3, 7), (4, 3, 3)), 2: ((2, 4, 6, 5), (6, 2, 3, 2)), 3: ((1, 2, 4, 5, 4), (3, 2, 2, 3, 2))}


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("kw", [{}, {"stride": 2, "padding": 1, "dilation": 1}, {"dilation": 2}])
def test_nn_grad_conv(n, kw):
    in_shape, w_shape = CONVS[n]
    groups = 2 if n == 2 else 1

    def fn(T):
        x, w = _t(T, rand(*in_shape)), _t(T, rand(*w_shape, seed=1))
        conv = getattr(T.nn.functional, f"conv{n}d")
        out_shape = conv(x, w, None, groups=groups, **kw).shape
        go = _t(T, rand(*out_shape, seed=2))
        gi = getattr(T.nn.grad, f"conv{n}d_input")(x.shape, w, go, groups=groups, **kw)
        gw = getattr(T.nn.grad, f"conv{n}d_weight")(x, w.shape, go, groups=groups, **kw)
        return gi, gw
    check(fn, rtol=1e-4, atol=1e-5)


def test_nn_grad_shape_error():
    check_raises(lambda T: T.nn.grad.conv2d_input((1, 3, 4, 4), T.ones(2, 2, 3, 3), T.ones(1, 2, 2, 2)))


# --- torch.nn: Container, factory_kwargs, common_types ---------------------------------------------------

def test_container():
    def fn(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            c = T.nn.Container(lin=T.nn.Linear(2, 3), act=T.nn.ReLU())
        return ([str(x.message) for x in w], [x.category.__name__ for x in w], [n for n, _ in c.named_children()],
                sorted(c.state_dict()), repr(c))
    check(fn)


@pytest.mark.parametrize("kwargs", [None, {}, {"dtype": "float64", "device": "cpu"},
                                    {"factory_kwargs": {"dtype": "float16"}, "device": "cpu"},
                                    {"dtype": "float64", "factory_kwargs": {"dtype": "float16"}}, {"bias": True}])
def test_factory_kwargs(kwargs):
    def fn(T):
        kw = None if kwargs is None else {k: getattr(T, v) if k == "dtype" else (
            {kk: getattr(T, vv) for kk, vv in v.items()} if k == "factory_kwargs" else v) for k, v in kwargs.items()}
        r = T.nn.factory_kwargs(kw)
        return sorted((k, repr(v)) for k, v in r.items())
    check(fn, raises=kwargs is not None and ("bias" in kwargs or ("dtype" in kwargs and "factory_kwargs" in kwargs)))


def test_common_types():
    def fn(T):
        ct = T.nn.common_types
        names = sorted(n for n in dir(ct) if n.startswith("_") and n.endswith("_t"))
        # (the Tensor class prints as mstorch._tensor.Tensor: compare the structure, not the module path)
        return names, [repr(getattr(ct, n)).replace("mstorch._tensor.Tensor", "torch.Tensor") for n in names]
    check(fn)


# --- fractional max pooling and CrossMapLRN2d ------------------------------------------------------------

@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fractional_max_pool_draws_torch_stream(nd, dtype):
    """Without _random_samples the windows come from torch.rand(N, C, nd) on torch's stream: the same pooling
    under the same seed, through the functional and the module forms."""
    def fn(T):
        T.manual_seed(11)
        x = T.tensor(rand(2, 3, 9, 8, 7)[..., :9 - nd] if nd == 3 else rand(2, 3, 9, 8), dtype=getattr(T, dtype),
                     requires_grad=True)
        pool = getattr(T.nn.functional, f"fractional_max_pool{nd}d")
        out, idx = pool(x, 2, output_ratio=(0.5,) * nd, return_indices=True)
        module = getattr(T.nn, f"FractionalMaxPool{nd}d")(3, output_size=3)
        out2 = module(x)
        (out.sum() + out2.sum()).backward()
        return out, idx, out2, x.grad, repr(module), T.rand(2)
    check(fn)


def test_fractional_max_pool_module_checks():
    check_raises(lambda T: T.nn.FractionalMaxPool2d(2))
    check_raises(lambda T: T.nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5))
    check_raises(lambda T: T.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 1.0, 0.5)))
    check_raises(lambda T: T.nn.FractionalMaxPool3d((2, 0, 2), output_size=3))
    check(lambda T: T.nn.FractionalMaxPool2d(2, output_size=3, _random_samples=T.ones(1, 1, 2) * 0.5)(
        T.arange(36.).reshape(1, 1, 6, 6)))


@pytest.mark.parametrize("size", [2, 3, 4, 5, 8])
def test_cross_map_lrn2d(size):
    def fn(T):
        x = _t(T, rand(2, 5, 3, 4), grad=True)
        m = T.nn.CrossMapLRN2d(size, alpha=1e-2, beta=0.75, k=1.5)
        y = m(x)
        y.backward(_t(T, rand(2, 5, 3, 4, seed=1)))
        return y, x.grad, repr(m)
    check(fn, rtol=1e-5, atol=1e-6)


def test_cross_map_lrn2d_errors():
    check_raises(lambda T: T.nn.CrossMapLRN2d(3)(T.ones(2, 3, 4)))

    def size_one_backward(T):
        x = T.ones(1, 2, 2, 2, requires_grad=True)
        T.nn.CrossMapLRN2d(1)(x).sum().backward()
    check_raises(size_one_backward)


# --- torch.optim.Adafactor ---------------------------------------------------------------------------------

ADAFACTOR = [dict(), dict(lr=0.05, weight_decay=0.1, maximize=True, d=1.5), dict(eps=(1e-6, 1e-2), beta2_decay=-0.5),
             dict(lr=0.5)]


@pytest.mark.parametrize("kwargs", ADAFACTOR, ids=[str(i) for i in range(len(ADAFACTOR))])
def test_adafactor_steps_and_state_dict(kwargs):
    """20 steps on matrices and a vector, two groups: parameters, state (step, row_var/col_var, variance) and
    param_groups as torch's (state_dict layout included)."""
    from test_optim import _run
    check(lambda T: _run(T, "Adafactor", kwargs), rtol=1e-5, atol=1e-6)


def test_adafactor_float64_and_3d():
    def fn(T):
        rng = np.random.RandomState(3)
        p = T.nn.Parameter(T.tensor(rng.standard_normal((2, 3, 4))))
        v = T.nn.Parameter(T.tensor(rng.standard_normal(5)))
        opt = T.optim.Adafactor([p, v], lr=0.1)
        for i in range(5):
            opt.zero_grad()
            ((p ** 3).sum() + (v * T.tensor(rng.standard_normal(5))).sum()).backward()
            opt.step()
        return p.detach(), v.detach(), opt.state_dict()
    check(fn, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("bad", [dict(lr=-1.0), dict(beta2_decay=0.5), dict(eps=(-1.0, 1e-3)), dict(eps=(None, -1.0)),
                                 dict(d=0.5), dict(weight_decay=-0.1)])
def test_adafactor_argument_errors(bad):
    check_raises(lambda T: T.optim.Adafactor([T.nn.Parameter(T.ones(2))], **bad))


# --- torch.optim.Muon --------------------------------------------------------------------------------------

MUON = [dict(), dict(lr=0.02, nesterov=False, adjust_lr_fn="match_rms_adamw"),
        dict(lr=0.01, momentum=0.5, weight_decay=0.0, ns_steps=3), dict(lr=0.05, ns_coefficients=(2.0, -1.5, 0.5))]


@pytest.mark.parametrize("kwargs", MUON, ids=[str(i) for i in range(len(MUON))])
def test_muon_steps_and_state_dict(kwargs):
    """The bfloat16 Newton-Schulz iteration as torch's CPU kernels round it: parameters and the momentum buffers
    agree with torch to the float32 ulp (tall, wide and square matrices, two groups)."""
    def fn(T):
        rng = np.random.RandomState(0)
        ps = [T.nn.Parameter(T.tensor(rng.standard_normal(s).astype(np.float32))) for s in [(4, 6), (7, 3), (3, 3)]]
        opt = T.optim.Muon([{"params": ps[:2]}, {"params": ps[2:], "lr": 0.03}], **kwargs)
        for _ in range(6):
            opt.zero_grad()
            sum(((p * p).sum() * 0.5 + (p * T.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32))).sum())
                for p in ps).backward()
            opt.step()
        return [p.detach() for p in ps], opt.state_dict()
    check(fn, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("case", ["vector", "lr", "momentum", "wd", "adjust", "ns_steps"])
def test_muon_errors(case):
    def fn(T):
        p = T.nn.Parameter(T.ones(3) if case == "vector" else T.ones(2, 3))
        kw = {"lr": dict(lr=-1.0), "momentum": dict(momentum=-0.1), "wd": dict(weight_decay=-1.0),
              "adjust": dict(adjust_lr_fn="other"), "ns_steps": dict(ns_steps=100)}.get(case, {})
        opt = T.optim.Muon([p], **kw)
        p.grad = T.ones(2, 3)
        opt.step()
    check_raises(fn)


# --- torch.serialization helpers --------------------------------------------------------------------------

def test_default_mmap_options(tmp_path):
    """MAP_PRIVATE (the default): in-place writes to an mmap-loaded tensor stay in memory; MAP_SHARED: they reach
    the file. The setting takes effect when called and is restored on leaving the ``with``."""
    import mmap

    def fn(T):
        path = str(tmp_path / f"{T.__name__}.pt")
        T.save({"a": T.arange(4.0)}, path)
        default = T.serialization.get_default_mmap_options() == mmap.MAP_PRIVATE
        T.load(path, mmap=True)["a"].add_(1)
        private = T.load(path)["a"]
        with T.serialization.set_default_mmap_options(mmap.MAP_SHARED):
            inside = T.serialization.get_default_mmap_options() == mmap.MAP_SHARED
            loaded = T.load(path, mmap=True)
            loaded["a"].add_(10)
            del loaded
        return default, private, inside, T.load(path)["a"], T.serialization.get_default_mmap_options() == mmap.MAP_PRIVATE
    check(fn)
    check_raises(lambda T: T.serialization.set_default_mmap_options(12345))


def test_module_version_check_and_mkdtemp():
    import os
    import types

    def fn(T):
        ok = [T.serialization.check_module_version_greater_or_equal(types.SimpleNamespace(__version__=v, __name__="m"), req)
              for v, req in (("1.2.3", (1, 2)), ("1.2.3", (1, 3)), ("2.0.1", (1, 9, 9)), ("1.10", (1, 9)))]
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lax = T.serialization.check_module_version_greater_or_equal(
                types.SimpleNamespace(__version__="1.x", __name__="m"), (1, 2), error_if_malformed=False)
        with T.serialization.mkdtemp() as d:
            existed = os.path.isdir(d)
        return ok, lax, [str(x.message) for x in w], existed, os.path.exists(d)
    check(fn)
    check_raises(lambda T: T.serialization.check_module_version_greater_or_equal(
        __import__("types").SimpleNamespace(__version__="1.x", __name__="m"), (1, 2)))


# --- torch.nn.functional's module-level helpers ------------------------------------------------------------

def test_functional_helpers():
    def fn(T):
        F = T.nn.functional
        f = F.boolean_dispatch("flag", 1, False, lambda x, flag=False: ("T", x), lambda x, flag=False: ("F", x),
                               "mod", "name")
        return ([f(1), f(1, True), f(1, flag=True), f(2, False)], f.__name__, f.__module__,
                F.GRID_SAMPLE_INTERPOLATION_MODES, F.GRID_SAMPLE_PADDING_MODES, F.TYPE_CHECKING,
                [F.BroadcastingList1[int], F.BroadcastingList2[float], F.BroadcastingList3[int]],
                F.assert_int_or_pair(3, "k", "{} bad"), F.assert_int_or_pair((1, 2), "k", "{} bad"))
    check(fn)
    check_raises(lambda T: T.nn.functional.assert_int_or_pair((1, 2, 3), "k", "{} must be an int or a pair"))

    def two_docs(T):
        def a():
            """a"""

        def b():
            """b"""
        return T.nn.functional.boolean_dispatch("x", 0, False, a, b, None, None)
    check_raises(two_docs)
