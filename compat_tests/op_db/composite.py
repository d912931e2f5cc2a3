"""Samples for block_diag, diagflat, adjoint, ravel, cov, corrcoef, _grouped_mm, _softmax_backward_data, put,
index_reduce, nonzero_static, resize, resize_as, gradient, apply_, map_, map2_
(mstorch/ops/composite.py)."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E

A = rand(2, 2)
OBS = rand(3, 6)


def _t(a, dtype=None):
    return lambda T: T.tensor(a, dtype=None if dtype is None else getattr(T, dtype))


_OFFS = _t([2, 3, 6], "int32")

OPS = [
    OpInfo("block_diag", method=False, samples=[
        S(A, rand(3), lambda T: T.tensor(3.)), S(A), S(rand(0, 2), rand(1, 1)), S(_t([[1, 2]]), rand(1)),
        S(), E(rand(2, 2, 1))]),
    OpInfo("diagflat", samples=[S(A), S(A, 1), S(rand(3), -2), S(_t([[1, 2], [3, 4]]), 1)]),
    OpInfo("adjoint", samples=[S(rand(2, 3)), S(rand(2, 3, 4)), E(rand(3)),
                               S(_t((rand(2, 3) + 1j * rand(2, 3, seed=1)).astype(np.complex64)))]),
    OpInfo("ravel", samples=[S(A), S(rand(2, 3, 4)), S(lambda T: T.tensor(2.))]),
    OpInfo("cov", rtol=1e-4, atol=1e-5, samples=[
        S(OBS), S(rand(6)), S(OBS, correction=0), S(OBS, correction=2), S(_t([[0, 1, 2], [2, 1, 0]])),
        S(OBS, fweights=_t([1, 2, 3, 1, 1, 2])), S(OBS, aweights=rand(6, low=0.1, high=2.)),
        S(OBS, correction=0, fweights=_t([1, 2, 3, 1, 1, 2]), aweights=rand(6, low=0.1, high=2.)),
        E(rand(2, 2, 2)), E(OBS, fweights=_t([1., 2.])), E(OBS, fweights=_t([1, 2])),
        E(OBS, aweights=_t([1, 2, 3, 1, 1, 2])), E(OBS, fweights=_t([1, -2, 3, 1, 1, 2]))]),
    OpInfo("corrcoef", rtol=1e-4, atol=1e-5, samples=[S(OBS), S(rand(6)), S(rand(2, 4)), E(rand(2, 2, 2))]),
    OpInfo("detach_", method=False, grad=False, samples=[S(A), S(_t([1, 2]))]),
    OpInfo("constant_pad_nd", method=False, samples=[S(A, (1, 1)), S(rand(2, 3, 4), (1, 2, 0, 1), 2.5),
                                                     S(A, (-1, 1)), E(A, (1,))]),
    OpInfo("igamma", rtol=1e-4, grad=False, samples=[S(rand(3, low=0.1, high=3.), rand(3, low=0.1, high=3.)),
                                                     E(rand(2, 3, low=0.5, high=2.), 1.5)]),
    OpInfo("igammac", rtol=1e-4, grad=False, samples=[S(rand(3, low=0.1, high=3.), rand(3, low=0.1, high=3.))]),
    OpInfo("trapezoid", method=False, samples=[
        S(rand(5)), S(rand(5), dx=2.0), S(rand(5), rand(5, seed=1)), S(rand(2, 3), dim=0),
        S(rand(2, 3), rand(3)), S(rand(2, 3), rand(2, 3, seed=2)), S(_t([1, 2, 3])), S(rand(0)), S(rand(2, 0)),
        E(rand(4), rand(2)), E(_t([True, False]))]),
    OpInfo("cumulative_trapezoid", method=False, samples=[
        S(rand(5)), S(rand(5), dx=0.5), S(rand(5), rand(5, seed=1)), S(rand(2, 3), dim=0), S(_t([1, 2, 4])),
        E(rand(4), rand(2))]),
    OpInfo("trapz", method=False, samples=[S(rand(5), rand(5, seed=1)), S(rand(5), dx=0.5), S(rand(2, 3), dim=0)]),
    OpInfo("combinations", method=False, samples=[
        S(rand(3)), S(rand(4), 3), S(rand(3), 2, True), S(_t([1, 2, 3])), S(rand(3), 0), S(rand(3), 4), S(rand(3), 1),
        E(A), E(rand(3), -1)]),
    OpInfo("unravel_index", method=False, grad=False, samples=[
        S(_t([4, 1]), (2, 3)), S(_t(5), (2, 3)), S(_t([[7, -1], [0, 3]]), (2, 3)), S(_t([3, 2], "int32"), 6),
        S(_t([5]), (2, 1, 3)), E(_t([1.0]), (2, 3)), E(_t([1]), (2, -3))]),
    OpInfo("renorm", samples=[S(rand(2, 3), 2, 0, 1.0), S(rand(2, 3), 1, 1, 0.5), S(rand(2, 3, 4), 3, -1, 0.8),
                              S(rand(2, 3), 2, 0, 100.0), E(_t([[1, 2]]), 2, 0, 5), E(A, -1, 0, 5), E(A, 2, 0, -5)]),
    OpInfo("sum_to_size", function=False, samples=[S(rand(2, 3), 1, 3), S(rand(2, 3), (3,)), S(rand(2, 3, 4), 3, 1),
                                                   S(rand(2, 3), 2, 3), E(rand(2, 3), 2, 2)]),
    OpInfo("fill_diagonal_", function=False, grad=False, inplace=False, samples=[
        S(rand(3, 4), 5.0), S(rand(7, 3), 5.0, True), S(rand(7, 3), 5.0), S(rand(2, 2, 2), 1.0), S(rand(4, 4), 2),
        S(_t([[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]]), 0, True), E(rand(2, 3, 3), 1.0), E(rand(3), 1.0)],
        call=lambda T, a, *args, **kw: a.clone().fill_diagonal_(*args, **kw)),
    # groups of a's rows (2-D x 3-D), of the shared K (2-D x 2-D), of b's columns (3-D x 2-D), batched (3-D x 3-D);
    # no empty group where gradients are compared (torch's backward rejects an empty group's strides)
    OpInfo("_grouped_mm", method=False, samples=[
        S(rand(6, 8), rand(3, 8, 4), offs=_OFFS), S(rand(4, 8), rand(8, 4), offs=_t([4, 8], "int32")),
        S(rand(3, 4, 8), rand(8, 12), offs=_t([4, 8, 12], "int32")), S(rand(3, 4, 8), rand(3, 8, 4)),
        S(lambda T: T.tensor(rand(6, 8)).to(T.bfloat16), lambda T: T.tensor(rand(3, 8, 8)).to(T.bfloat16),
          offs=_OFFS),
        E(rand(6, 8), rand(3, 8, 4)), E(rand(3, 4, 8), rand(3, 8, 4), offs=_OFFS),
        E(lambda T: T.ones(6, 8, dtype=T.float64), lambda T: T.ones(3, 8, 4, dtype=T.float64), offs=_OFFS),
        E(rand(6, 8), rand(3, 8, 4), offs=_t([2, 3, 6])), E(rand(6, 8), rand(3, 8, 4), offs=_OFFS, bias=rand(3, 4)),
        E(rand(6, 8), rand(3, 8, 4), offs=_OFFS, out_dtype=lambda T: T.float16),
        E(rand(6, 8), rand(3, 8, 5), offs=_OFFS), E(lambda T: T.tensor(rand(8, 6)).t(), rand(3, 8, 4), offs=_OFFS),
        E(lambda T: T.tensor(rand(6, 16))[:, ::2], rand(3, 8, 4), offs=_OFFS),
        E(lambda T: T.tensor(rand(1, 8)).expand(6, 8), rand(3, 8, 4), offs=_OFFS)]),
    # the public keyword-only form (transformers' MoE experts)
    OpInfo("grouped_mm", method=False, samples=[
        S(rand(6, 8), rand(3, 8, 4), offs=_OFFS), S(rand(3, 4, 8), rand(3, 8, 4)),
        E(rand(6, 8), rand(3, 8, 4)), E(rand(6, 8), rand(3, 8, 4), offs=_OFFS, bias=rand(3, 4)),
        E(rand(6, 8), rand(3, 8, 4), _OFFS)]),
    OpInfo("_softmax_backward_data", method=False, samples=[
        S(rand(2, 3), lambda T: T.tensor(rand(2, 3, seed=1)).softmax(-1), -1, lambda T: T.float32),
        S(rand(2, 3, 4), lambda T: T.tensor(rand(2, 3, 4, seed=1)).softmax(1), 1, lambda T: T.float64),
        E(rand(2, 3), lambda T: T.tensor(rand(2, 3)).softmax(-1), 2, lambda T: T.float32),
        E(rand(2, 3), lambda T: T.tensor(rand(2, 3)).softmax(-1).half(), -1, lambda T: T.float32),
        E(rand(2, 3), lambda T: T.tensor(rand(2, 3)).softmax(-1), -1, lambda T: T.float16)]),
    # float16 arithmetic: a half ulp of the largest term
    OpInfo("_softmax_backward_data", method=False, rtol=1e-3, atol=1e-3, samples=[
        S(lambda T: T.tensor(rand(2, 3)).half(), lambda T: T.tensor(rand(2, 3, seed=1)).softmax(0).half(), 0,
          lambda T: T.float32)]),
    # flat writes: negative indices, repeats with accumulate, a transposed receiver; errors in torch's order
    OpInfo("put", samples=[
        S(rand(2, 3), np.array([0, -1]), rand(2, seed=1)), S(rand(2, 3), np.array([[1], [4]]), rand(2, 1, seed=1)),
        S(rand(2, 3), np.array([0, 0, 5]), rand(3, seed=1), accumulate=True),
        S(rand(3), np.array([], dtype=np.int64), rand(0)),
        S(lambda T: T.tensor(rand(3, 2)).t(), np.array([1, 2]), rand(2, seed=1)),
        E(rand(2, 3), np.array([6]), rand(1)), E(rand(2, 3), np.array([-7]), rand(1)),
        E(rand(2, 3), np.array([0, 1]), rand(1)), E(rand(2, 3), np.array([0.]), rand(1)),
        E(rand(2, 3), np.array([0]), np.array([1]))]),
    OpInfo("index_reduce", samples=[
        # (mean first: the double-backward sweep takes the first sample, and a prod's double backward goes through
        # MindSpore's UnsortedSegmentProd, refused: docs/known-differences.md)
        S(rand(2, 3), 1, np.array([0, 2, 0]), rand(2, 3, seed=1), "mean", include_self=False),
        S(rand(2, 3), 0, np.array([0, 0]), rand(2, 3, seed=1), "prod"),
        S(rand(2, 3), 0, np.array([1]), rand(1, 3, seed=1), "amax"), S(rand(2, 3), -1, np.array([1]), rand(2, 1, seed=1),
                                                                      "amin", include_self=False),
        S(np.arange(4), 0, np.array([0, 0]), np.array([3, 4]), "mean"),
        E(rand(2, 3), 0, np.array([0]), rand(1, 3), "sum"), E(rand(2, 3), 0, np.array([5]), rand(1, 3), "amax"),
        E(rand(2, 3), 0, np.array([-1]), rand(1, 3), "amax"), E(rand(2, 3), 0, np.array([0, 1]), rand(1, 3), "amax"),
        E(rand(2, 3), 0, np.array([[0]]), rand(1, 3), "amax"),
        E(rand(2, 3), 0, np.array([0]), lambda T: T.ones(1, 3, dtype=T.float64), "amax")]),
    OpInfo("nonzero_static", method=False, grad=False, samples=[
        S(np.array([0, 1, 2, 0]), size=3), S(np.array([[0, 1], [2, 0]]), size=1, fill_value=7),
        S(np.array([[0, 1], [2, 0]]), size=4), S(np.array(3.), size=2), S(np.array([0., 0.]), size=0),
        E(np.array([0, 1]), size=-1)]),
    OpInfo("resize", function=False, samples=[S(rand(2, 3), 3, 2), S(rand(2, 3), 6), E(rand(2, 3), (3, 2)),
                                              S(lambda T: T.tensor(rand(3, 2)).t(), 6), E(rand(2, 3), 4)]),
    OpInfo("resize_as", function=False, samples=[S(rand(2, 3), rand(3, 2)), S(rand(2, 3), rand(6)),
                                                 E(rand(2, 3), rand(3))]),
    # coordinates (a tuple of 1-d tensors as spacing) come as ``coords``: the sample's arrays become tensors
    OpInfo("gradient", method=False, call=lambda T, a, *args, coords=None, **kw: T.gradient(
        a, *args, **kw, **({} if coords is None else {"spacing": (coords,)})), samples=[
        S(rand(5)), S(rand(5), spacing=2.), S(rand(2, 3)), S(rand(2, 3), dim=1, spacing=[3.]),
        S(rand(5), edge_order=2), S(rand(3, 4), spacing=(2., 0.5), edge_order=2),
        S(rand(5), coords=np.array([0., 1, 3, 4, 7])), S(rand(5), coords=np.array([0., 1, 3, 4, 7]), edge_order=2),
        S(rand(2, 4), dim=-1, coords=np.array([0., 1.5, 2., 4.])), S(np.array([1, 4, 9, 16])), S(rand(2, 3), dim=[]),
        E(rand(1)), E(rand(2), edge_order=2), E(rand(5), edge_order=3), E(rand(5), spacing=[1., 2.]),
        E(rand(2, 3), dim=[0, 0]), E(rand(2, 3), dim=[0, 1], spacing=[1.]),
        E(rand(3), coords=np.array([[0., 1, 3]]))]),
    # Python callables per element (the callable is fixed by ``call``; more cases: test_legacy_api.py)
    OpInfo("apply_", function=False, grad=False, call=lambda T, a: a.clone().apply_(lambda v: v * 2 + 1),
           samples=[S(rand(2, 3)), S(np.arange(4)), S(np.array([True, False]))]),
    OpInfo("map_", function=False, grad=False, call=lambda T, a, b: a.clone().map_(b, lambda u, v: u * v - 1),
           samples=[S(rand(2, 3), rand(3, seed=1)), S(rand(2, 3), rand(2, 1, seed=1)), E(rand(2, 3), rand(4))]),
    OpInfo("map2_", function=False, grad=False,
           call=lambda T, a, b, c: a.clone().map2_(b, c, lambda u, v, w: u + v * w),
           samples=[S(rand(2, 3), rand(3, seed=1), rand(2, 1, seed=2)), E(rand(2, 3), rand(3), np.arange(3))]),
]
