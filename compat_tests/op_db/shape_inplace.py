"""Samples for the in-place shape ops and as_strided (mstorch/ops/shape_inplace.py): the receiver's own
shape changes, writes through the result reach the base, autograd flows through, leaves are refused."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E

A = rand(2, 3)
X = rand(2, 1, 3, 1, seed=1)
V = rand(6, seed=2)
I = rand(2, 3, dtype="int64")
BF = lambda T: T.tensor([[1.5, -2.0, 3.25], [0.5, 4.0, -1.0]], dtype=T.bfloat16)   # noqa: E731


def _on_copy(method, strides=True):
    """``method`` on a non-leaf copy of the input: the result, whether it is the receiver, its new shape
    and strides (gradients flow back through the copy). as_strided results report contiguous strides in
    mstorch (docs/known-differences.md)."""
    def call(T, x, *args, **kwargs):
        y = x * 1
        r = getattr(y, method)(*args, **kwargs)
        return (r, r is y, tuple(y.shape)) + ((y.stride(), y.is_contiguous()) if strides else ())
    return call


def _through_view(method, make_view):
    """``method`` on a view, then an in-place write into it: the base sees the write as in torch."""
    def call(T, x, *args):
        base = x * 1
        v = make_view(base)
        getattr(v, method)(*args)
        v.mul_(10)
        return base, v
    return call


def _on_leaf(method):
    def call(T, x, *args):
        return getattr(x.detach().requires_grad_(), method)(*args)
    return call


def _on_parameter(method):
    def call(T, x, *args):
        with T.no_grad():
            p = T.nn.Parameter(x.detach().clone())
            r = getattr(p, method)(*args)
        return r is p, type(p).__name__, p.requires_grad, p.detach().clone()
    return call


def _twice(T, x):
    y = x * 1
    y.t_()
    y.add_(1)
    y.t_()
    return y, y.is_contiguous()


def _resize_round_trip(T, x):
    y = x.detach().clone()
    y.resize_(2)
    a = y.clone()
    y.resize_(6)
    b = y.clone()
    y.resize_(2, 2)
    c = y.clone()
    y.resize_(7)
    return a, b, c, y[:6], tuple(y.shape)


def _resize_view(T, x):
    base = x.detach().clone()
    v = base[:4]
    v.resize_(2)
    v.fill_(-1)
    return base, v


def _old_view_reads(T, x):
    base = x.detach().clone()
    v = base.view(6)
    base.t_()
    base.mul_(2)
    return base, v, base.is_contiguous()


def _as_strided_write(T, x):
    base = x * 1
    v = base.view(2, 3)
    v.as_strided_((3,), (2,))
    v.fill_(-1)
    return base, v, tuple(v.shape)


OPS = [
    OpInfo("dim_order", grad=False, samples=[
        S(rand(2, 3, 4, 5)), S(lambda T: T.empty(2, 3, 5, 7).transpose(1, 2)), S(lambda T: T.empty(2, 5, 7, 3).permute(0, 3, 1, 2)),
        S(lambda T: T.empty(3, 4)[:, ::2].t()), S(lambda T: T.empty(2, 3).expand(4, 2, 3)), S(np.array(1.0, np.float32)),
        S(rand(1, 2, 3, 4), ambiguity_check=lambda T: [T.contiguous_format, T.channels_last]),
        S(rand(2, 3), ambiguity_check=True),
        E(rand(1, 2, 3, 4), ambiguity_check=True), E(rand(1, 2), ambiguity_check="x"),
        E(lambda T: T.empty(2, 3).expand(4, 2, 3), ambiguity_check=True)]),
    # torch.slice_inverse(x[1:3], x, 0, 1, 3): x's storage seen with x's geometry, through the slice
    OpInfo("slice_inverse", method=False, call=lambda T, x, *a: T.slice_inverse(x[1:3], x, *a),
           samples=[S(rand(5, 3), 0, 1, 3)]),
    OpInfo("slice_inverse", method=False, grad=False,
           call=lambda T, x, *a: x[1:3].slice_inverse(x.t(), *a), samples=[S(rand(5, 3), 0, 1, 3)]),
    OpInfo("t_", [S(A), S(V), S(np.array(2.0, np.float32)), S(I), S(BF), E(X)], call=_on_copy("t_")),
    OpInfo("t_", [S(A)], call=_through_view("t_", lambda b: b.view(3, 2))),
    OpInfo("t_", [S(A)], call=_twice),
    OpInfo("t_", [S(A)], call=_old_view_reads, grad=False),
    OpInfo("t_", [E(A)], call=_on_leaf("t_")),
    OpInfo("t_", [S(A)], call=_on_parameter("t_"), grad=False),
    OpInfo("transpose_", [S(A, 0, 1), S(X, 1, -1), S(X, 2, 2), S(I, 1, 0), E(A, 0, 2)], call=_on_copy("transpose_")),
    OpInfo("transpose_", [S(X, 0, 2)], call=_through_view("transpose_", lambda b: b[:, :, 1:])),
    OpInfo("transpose_", [S(A, 0, 1)], call=_on_copy("swapaxes_")),
    OpInfo("transpose_", [S(A, 1, 0)], call=_on_copy("swapdims_")),
    OpInfo("transpose_", [E(A, 0, 1)], call=_on_leaf("transpose_")),
    OpInfo("squeeze_", [S(X), S(X, 1), S(X, -1), S(X, (1, 3)), S(X, 0), S(A), S(BF), E(X, 4)],
           call=_on_copy("squeeze_")),
    OpInfo("squeeze_", [S(X)], call=_through_view("squeeze_", lambda b: b.transpose(0, 2))),
    OpInfo("squeeze_", [E(X)], call=_on_leaf("squeeze_")),
    OpInfo("squeeze_", [S(X, 1)], call=_on_parameter("squeeze_"), grad=False),
    OpInfo("unsqueeze_", [S(A, 0), S(A, -1), S(A, 1), S(V, 1), S(np.array(2.0, np.float32), 0), E(A, 3)],
           call=_on_copy("unsqueeze_")),
    OpInfo("unsqueeze_", [S(A, 1)], call=_through_view("unsqueeze_", lambda b: b.t())),
    OpInfo("unsqueeze_", [E(A, 0)], call=_on_leaf("unsqueeze_")),
    OpInfo("resize_", [S(V, 2), S(V, 2, 3), S(V, (3, 2)), S(V, 0), S(A, 6), S(I, 3, 2), S(V, 6), E(V, -1)],
           call=_on_copy("resize_"), grad=False),
    OpInfo("resize_", [S(V)], call=_resize_round_trip, grad=False),
    OpInfo("resize_", [S(V)], call=_resize_view, grad=False),
    OpInfo("resize_", [E(V, 2)], call=_on_leaf("resize_")),
    OpInfo("resize_", [E(V, 3)], call=lambda T, x, n: (x.detach().requires_grad_() * 1).resize_(n)),
    OpInfo("resize_as_", [S(V, A), S(A, V), S(A, np.zeros((3, 1), np.float32)), E(V, 2)],
           call=lambda T, x, t: (lambda y: (y.resize_as_(t), tuple(y.shape)))(x.detach().clone()), grad=False),
    OpInfo("resize_as_", [S(lambda T: T.arange(6.), lambda T: T.ones(2, 2))], method=False, grad=False),
    OpInfo("as_strided", [S(V, (2, 2), (1, 2)), S(V, (2, 2), (1, 2), 1), S(V, (3,), (2,)), S(V, (2, 3), (0, 1)),
                          S(A, (3, 2), (1, 3)), S(V, (0, 2), (1, 1)), S(I, (2,), (3,)), S(BF, (2,), (2,)),
                          S(lambda T: T.tensor(V)[1:], (2,), (2,)), S(lambda T: T.tensor(V)[1:], (2,), (2,), 0),
                          S(lambda T: T.tensor(A).t(), (3,), (2,)),
                          E(V, (4, 2), (2, 1)), E(V, (2, 2), (1, -1)), E(V, (2, 2), (1,)), E(V, (2,), (1,), 5)]),
    OpInfo("as_strided_", [S(V, (2, 2), (1, 2)), S(V, (3,), (2,), 1), E(V, (7,), (1,))],
           call=_on_copy("as_strided_", strides=False)),
    OpInfo("as_strided_", [S(V)], call=_as_strided_write),
    OpInfo("as_strided_", [E(V, (2,), (1,))], call=_on_leaf("as_strided_")),
]
