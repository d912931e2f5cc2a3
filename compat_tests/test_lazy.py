"""Lazy layers and uninitialised parameters against real torch: shapes, seeded init (bit-exact), class swap,
repr, state_dict / load_state_dict behaviour and errors."""
import copy

import numpy as np
import pytest
import torch

import mstorch
from harness import check

LAYERS = [
    ("LazyLinear", (3,), {}, (2, 5)),
    ("LazyLinear", (4,), {"bias": False}, (2, 3, 6)),
    ("LazyConv1d", (4, 3), {"padding": 1}, (2, 3, 7)),
    ("LazyConv2d", (4, 3), {"stride": 2, "groups": 2}, (1, 2, 6, 6)),
    ("LazyConv2d", (3, 2), {"bias": False}, (2, 5, 5)),
    ("LazyConv3d", (2, 2), {}, (1, 3, 4, 4, 4)),
    ("LazyConvTranspose1d", (4, 3), {"groups": 2}, (1, 6, 5)),
    ("LazyConvTranspose2d", (3, 2), {"stride": 2, "output_padding": 1}, (1, 2, 4, 4)),
    ("LazyConvTranspose3d", (2, 2), {}, (1, 3, 3, 3, 3)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm1d", (), {"affine": False}, (4, 3, 5)),
    ("LazyBatchNorm2d", (), {"momentum": 0.3}, (2, 3, 4, 4)),
    ("LazyBatchNorm3d", (), {"track_running_stats": False}, (2, 2, 3, 3, 3)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 6)),
    ("LazyInstanceNorm2d", (), {"affine": True, "track_running_stats": True}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {"affine": True}, (2, 3, 4, 4, 4)),
]


def _input(shape):
    return np.random.RandomState(sum(shape)).standard_normal(shape).astype(np.float32)


def _describe(T, m):
    return (type(m).__name__, repr(m), m.has_uninitialized_params() if hasattr(m, "has_uninitialized_params")
            else None, {k: type(v).__name__ for k, v in m.state_dict(keep_vars=True).items()})


@pytest.mark.parametrize("name,args,kw,shape", LAYERS, ids=[f"{n}-{i}" for i, (n, *_r) in enumerate(LAYERS)])
def test_first_forward_materialises(name, args, kw, shape):
    def fn(T):
        T.manual_seed(7)
        m = getattr(T.nn, name)(*args, **kw)
        before = _describe(T, m)
        out = m(T.tensor(_input(shape)))
        after = _describe(T, m)
        lazy = isinstance(m, T.nn.modules.lazy.LazyModuleMixin)
        return before, after, lazy, out, dict(m.state_dict()), dict(m.named_parameters())
    ref, got = check(fn, rtol=1e-5, atol=1e-5)
    # seeded uniform inits are bit-exact
    for k, v in ref[5].items():
        np.testing.assert_array_equal(got[5][k].detach().numpy(), v.detach().numpy(), err_msg=k)


def test_training_step_after_materialisation():
    def fn(T):
        T.manual_seed(3)
        net = T.nn.Sequential(T.nn.LazyConv2d(4, 3), T.nn.LazyBatchNorm2d(), T.nn.ReLU(), T.nn.Flatten(),
                              T.nn.LazyLinear(2))
        x = T.tensor(_input((2, 3, 6, 6)))
        net(x)  # materialise before building the optimizer, as torch's docs require
        opt = T.optim.SGD(net.parameters(), lr=0.1)
        loss = net(x).square().mean()
        loss.backward()
        opt.step()
        return loss, [p.detach().clone() for p in net.parameters()], repr(net)
    check(fn, rtol=1e-4, atol=1e-5)


def test_load_state_dict_materialises():
    def fn(T):
        T.manual_seed(0)
        src = T.nn.Linear(5, 3)
        m = T.nn.LazyLinear(3)
        res = m.load_state_dict(src.state_dict())
        mid = (type(m).__name__, m.has_uninitialized_params(), m.weight.shape, repr(m))
        out = m(T.ones(2, 5))
        return tuple(res), mid, type(m).__name__, out, m.weight
    check(fn)


def test_lazy_state_into_lazy_and_into_initialised():
    def fn(T):
        a, b = T.nn.LazyConv1d(2, 3), T.nn.LazyConv1d(2, 3)
        res = a.load_state_dict(b.state_dict())
        return tuple(res), a.has_uninitialized_params(), type(a.weight).__name__
    check(fn)

    def into_linear(T):
        return T.nn.Linear(2, 3).load_state_dict(T.nn.LazyLinear(3).state_dict())
    ref, got = check(into_linear, raises=True)
    assert str(got.exc) == str(ref.exc) and "Can't access the shape" in str(ref.exc)


def test_uninitialized_parameter_and_buffer():
    def fn(T):
        p = T.nn.UninitializedParameter()
        q = T.nn.UninitializedParameter(requires_grad=False, dtype=T.float64)
        b = T.nn.UninitializedBuffer()
        facts = (repr(p), repr(b), p.size(), p.requires_grad, q.requires_grad, q.dtype, b.requires_grad,
                 isinstance(p, T.nn.Parameter), isinstance(b, T.nn.Parameter), repr(copy.deepcopy(q)),
                 copy.deepcopy(q).dtype)
        q.materialize((2, 3))
        b.materialize((4,), dtype=T.float16)
        return facts, type(q).__name__, q.shape, q.dtype, q.requires_grad, type(b).__name__, b.shape, b.dtype
    check(fn)


def test_deepcopy_uninitialized_buffer():
    ref, got = check(lambda T: copy.deepcopy(T.nn.UninitializedBuffer()), raises=True)
    assert type(ref.exc) is ValueError and "Attempted to use an uninitialized parameter" in str(got.exc)


@pytest.mark.parametrize("case", ["shape", "share_memory", "not_divisible", "conv_dims", "bn_dims", "in_dims",
                                  "unbatched_instance_norm", "base_initialize"])
def test_errors(case):
    def fn(T):
        if case == "shape":
            return T.nn.UninitializedParameter().shape
        if case == "share_memory":
            return T.nn.UninitializedBuffer().share_memory_()
        if case == "not_divisible":
            return T.nn.LazyConv2d(4, 3, groups=2)(T.ones(1, 3, 5, 5))
        if case == "conv_dims":
            return T.nn.LazyConv2d(4, 3)(T.ones(5, 5))
        if case == "bn_dims":
            return T.nn.LazyBatchNorm1d()(T.ones(2, 3, 4, 5))
        if case == "in_dims":
            return T.nn.LazyInstanceNorm2d()(T.ones(2, 3))
        if case == "unbatched_instance_norm":  # torch reads num_features from dim 1 even when unbatched
            return T.nn.LazyInstanceNorm3d(affine=True)(T.ones(3, 4, 4, 4))
        return T.nn.modules.lazy.LazyModuleMixin.initialize_parameters(T.nn.LazyLinear(2))
    ref, got = check(fn, raises=True)
    assert str(got.exc) == str(ref.exc)


def test_dtype_and_exports():
    def fn(T):
        T.manual_seed(1)
        m = T.nn.LazyLinear(2, dtype=T.float64)
        m(T.ones(1, 3, dtype=T.float64))
        return m.weight, m.bias
    check(fn)
    lazy_names = sorted(n for n in dir(torch.nn) if n.startswith("Lazy") or n.startswith("Uninitialized"))
    assert [n for n in lazy_names if not hasattr(mstorch.nn, n)] == []


def test_parameter_given_data_of_a_new_shape_trains():
    """``.data =`` a new shape (what materialisation does) and shape-changing in-place ops under no_grad:
    the next backward gives the new shape's gradients (MindSpore keeps a Parameter's first shape for its
    custom Functions' gradient checks, which mstorch's host linear is)."""
    def fn(T):
        T.manual_seed(0)
        m = T.nn.Linear(4, 2)
        m.weight.data = T.randn(3, 4)
        m.bias.data = T.randn(3)
        x = T.randn(5, 4)
        m(x).square().sum().backward()
        grads = [m.weight.grad.clone(), m.bias.grad.clone()]
        w = T.nn.Parameter(T.randn(4, 3))
        with T.no_grad():
            w.t_()
        F = T.nn.functional
        F.linear(x, w).sum().backward()
        d = T.nn.Linear(4, 2).double()         # a new dtype: float64 gradients (not cast to the first dtype)
        d(x.double()).sum().backward()
        return grads, w.grad, w.shape, d.weight.grad, d.bias.grad
    check(fn)
