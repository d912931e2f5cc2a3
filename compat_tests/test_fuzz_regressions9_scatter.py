"""Regression tests against torch for differential-fuzzer findings on scatter_reduce (expanded indices)
and embedding_bag (scale_grad_by_freq gradients, unsorted offsets).

torch 2.13's CPU gather reads an *int32* index that is expanded along the other dims (its expanded-index
fast path) wrongly: every row takes the first row's index. scatter_reduce's backward gathers the
gradient with that index, so torch's own src gradient is wrong there; mstorch computes the true one.
Those cases compare mstorch's int32 expanded index with torch given the same index made contiguous.
"""
import pytest
import torch

from harness import check

X0 = [[-1.6947669, 1.1196752, -0.24636307, 0.8938607], [1.9119581, 0.15398349, 0.004481855, -1.7117954],
      [-0.9262441, -0.0004699967, 0.71691996, 1.2149562]]
X3 = [[1.4937177, 1.8741627, 1.4767781, 0.123422764], [-0.6, 1.4, 1.5, -0.3],
      [-1.0690867, -1.9544048, -0.27812472, -0.39059457], [0.2, 2.6, 2.9, 0.7]]


def _backward(T, r, *xs):
    g = r if isinstance(r, T.Tensor) else r[0]
    (g * T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype)).sum().backward()
    return (r,) + tuple(None if x is None else x.grad for x in xs)


def _expanded(T, rows, dtype, shape):
    index = T.tensor(rows, dtype=getattr(T, dtype)).expand(*shape)
    if T is torch and dtype == "int32":
        index = index.contiguous()   # (torch's int32 expanded-index gather is wrong, see above)
    return index


def test_torch_int32_expanded_gather_is_torch_bug():
    # documents why the int32 cases above compare with a contiguous index on torch's side
    x = torch.arange(20.).reshape(5, 4)
    index = torch.tensor([[4], [1], [3]], dtype=torch.int32).expand(3, 4)
    if torch.equal(torch.gather(x, 0, index), torch.gather(x, 0, index.contiguous())):
        pytest.skip("this torch gathers an int32 expanded index correctly")
    check(lambda T: T.gather(T.arange(20.).reshape(5, 4), 0,
                             _expanded(T, [[4], [1], [3]], "int32", (3, 4))))


@pytest.mark.parametrize("reduce", ["mean", "sum", "prod", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("dim", [0, 1])
def test_scatter_reduce_grad_expanded_index(reduce, include_self, dtype, dim):
    def f(T):
        x0 = T.tensor(X0, requires_grad=True)
        x3 = T.tensor(X3, requires_grad=True)
        src = x3[::2]
        if dim == 0:
            index = _expanded(T, [[2], [1]], dtype, (2, 4))
        else:
            index, src = _expanded(T, [[3, 0, 3]], dtype, (2, 3)), src[:, :3]
        r = T.scatter_reduce(x0, dim, index, src, reduce, include_self=include_self)
        return _backward(T, r, x0, x3)
    check(f)


@pytest.mark.parametrize("op", ["scatter_add", "scatter", "gather"])
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_scatter_family_grad_expanded_index(op, dtype):
    def f(T):
        x0 = T.tensor(X0, requires_grad=True)
        x3 = T.tensor(X3, requires_grad=True)
        if op == "gather":
            return _backward(T, T.gather(x0, 0, _expanded(T, [[2], [1], [2]], dtype, (3, 4))), x0, x3)
        index = _expanded(T, [[2], [1]], dtype, (2, 4))
        r = getattr(T, op)(x0, 0, index, x3[::2])
        return _backward(T, r, x0, x3)
    check(f)


W6 = [[-1.0, 0.19, 0.35], [0.89, 1.35, -1.38], [-1.27, 0.67, -0.27], [-0.3, 0.19, 1.19], [1.66, -0.97, -1.37],
      [-1.75, 1.75, 0.72]]


def test_embedding_bag_scale_grad_by_freq_fuzz_case():
    # torch's CPU backward divides the gradient of the k-th distinct index by the count of the k-th of all
    # the sorted indices: sorted [2, 4, 4, 5] gives 5 the count of 4 (2)
    def f(T):
        w = T.tensor(W6, requires_grad=True)
        r = T.embedding_bag(w, T.tensor([4, 2, 5, 4], dtype=T.int32), T.tensor([1, 0, 1], dtype=T.int32)[1:],
                            True, 0)
        return _backward(T, r, w)
    check(f)


@pytest.mark.parametrize("mode", ["sum", "mean"])
@pytest.mark.parametrize("case", ["1d", "2d", "padding", "weights", "last_offset", "float64"])
def test_embedding_bag_scale_grad_by_freq(mode, case):
    if case == "weights" and mode != "sum":
        pytest.skip("per_sample_weights is sum mode only")

    def f(T):
        dt = T.float64 if case == "float64" else T.float32
        w = T.tensor(W6, dtype=dt, requires_grad=True)
        idx, off = T.tensor([4, 2, 5, 4, 0, 0, 3, 1, 3, 3]), T.tensor([0, 2, 3, 7])
        kw = {}
        if case == "2d":
            idx, off = idx.reshape(2, 5), None
        if case == "padding":
            kw["padding_idx"] = 0
        if case == "last_offset":
            # (in sum mode torch's backward reads past the gradient for indices after the last offset)
            kw["include_last_offset"] = True
            off = off if mode == "mean" else T.tensor([0, 2, 3, 10])
        psw = None
        if case == "weights":
            psw = kw["per_sample_weights"] = T.linspace(-1, 1, 10, dtype=dt).requires_grad_()
        r = T.nn.functional.embedding_bag(idx, w, off, mode=mode, scale_grad_by_freq=True, **kw)
        return _backward(T, r, w, psw)
    check(f)


def test_embedding_bag_unsorted_offsets_outputs():
    # offset2bag is torch's cumulated offsets (unsorted ones included), bag_size each bag's offset span less
    # its padding (negative here)
    def f(T):
        w = T.tensor([[1.265, -0.149, -0.944], [-0.669, 0.797, -0.73], [-1.552, 0.349, -0.686],
                      [-0.762, -1.67, 0.388], [-1.847, -0.53, 0.983], [0.498, -1.324, -1.197]], requires_grad=True)
        r = T.embedding_bag(w, T.tensor([-1, 3, 5, 1, 1, 3, 5])[1:], T.tensor([0, 5, 5, 1]), False, 1, False, None,
                            False, 5)
        return _backward(T, r, w)
    check(f)


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding_idx", [None, 5])
@pytest.mark.parametrize("offsets", [[0, 5, 5, 1], [0, 2, 0], [0, 1, 0], [0, 6, 0]])
def test_embedding_bag_unsorted_offsets_grad(mode, padding_idx, offsets):
    # mean: the backward divides by any nonzero bag_size (a negative one too), the forward by max(it, 1);
    # max: an empty bag of nonzero bag_size sends its gradient to row 0, a bag of bag_size 0 none
    def f(T):
        w = T.tensor(W6, dtype=T.float64, requires_grad=True)
        r = T.embedding_bag(w, T.tensor([3, 5, 1, 0, 3, 5]), T.tensor(offsets), False, mode, False, None, False,
                            padding_idx)
        return _backward(T, r, w)
    check(f)


@pytest.mark.parametrize("requires_grad", [True, False])
@pytest.mark.parametrize("mode", [0, 1, 2])
def test_embedding_bag_last_offset_bag_size(requires_grad, mode):
    # in sum mode bag_size is zeros, one per bag when the weight requires grad, else one per offset
    check(lambda T: T.embedding_bag(T.tensor(W6, requires_grad=requires_grad), T.tensor([1, 2, 3, 4]),
                                    T.tensor([0, 1, 3]), False, mode, False, None, True)[1:])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_only_padding_has_grad(mode):
    def f(T):
        w = T.tensor(W6, requires_grad=True)
        psw = T.tensor([1.0, 2.0, 3.0], requires_grad=True) if mode == "sum" else None
        r = T.nn.functional.embedding_bag(T.tensor([2, 2, 2]), w, T.tensor([0, 1]), mode=mode, padding_idx=2,
                                          per_sample_weights=psw)
        return _backward(T, r, w, psw)
    check(f)


@pytest.mark.parametrize("mode", ["sum", "mean"])
@pytest.mark.parametrize("layout", ["weight", "per_sample_weights"])
@pytest.mark.parametrize("offsets", [[0, 0, 0], [0, 2, 4], [0, 4, 2]])
def test_embedding_bag_strided_arguments_leave_the_fast_path(mode, layout, offsets):
    # torch's fast path (sums over offset ranges) wants unit strides; elsewhere offset2bag places every index,
    # those past the last offset (include_last_offset) in the last bag, and unsorted offsets are taken
    if layout == "per_sample_weights" and mode != "sum":
        pytest.skip("per_sample_weights is sum mode only")

    def f(T):
        base = T.tensor([[v, -v, 2 * v, 0.5] for v in (0.3, -1.2, 0.7, 2.0, -0.4, 1.1)], requires_grad=True)
        w = base[:, ::2] if layout == "weight" else base
        psw = None
        if layout == "per_sample_weights":
            pbase = T.linspace(-1, 1, 12).requires_grad_()
            psw = pbase[::2]
        r = T.nn.functional.embedding_bag(T.tensor([1, 4, 3, 5, 0, 2]), w, T.tensor(offsets), mode=mode,
                                          per_sample_weights=psw, include_last_offset=True)
        return _backward(T, r, base, None if psw is None else pbase)
    check(f)
