"""Sparse COO tensors (torch.sparse_coo_tensor, Tensor.to_sparse, torch.sparse.mm/sum/softmax) against torch."""
import warnings

import numpy as np
import pytest
import torch

import mstorch

warnings.filterwarnings("ignore", message="Sparse invariant checks")

IDX = [[0, 1, 1, 2], [2, 0, 2, 1]]
VAL = [3.0, 4.0, 5.0, -1.5]
DUP = ([[1, 0, 1, 2], [0, 2, 0, 1]], [1.0, 2.0, 3.0, 4.0])


def both(fn):
    return fn(torch), fn(mstorch)


def np_of(t):
    return t.detach().numpy()


def same_sparse(a, b):
    assert type(b).__name__ == "SparseCooTensor" and b.is_sparse and a.is_sparse
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype) == str(b.dtype)
    assert a.is_coalesced() == b.is_coalesced()
    assert a._nnz() == b._nnz() and a.sparse_dim() == b.sparse_dim() and a.dense_dim() == b.dense_dim()
    np.testing.assert_array_equal(a._indices().numpy(), b._indices().numpy())
    np.testing.assert_allclose(np_of(a._values()), np_of(b._values()), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np_of(a.to_dense()), np_of(b.to_dense()), rtol=1e-5, atol=1e-6)


def same_error(fn):
    with pytest.raises(Exception) as et:
        fn(torch)
    with pytest.raises(type(et.value)) as em:
        fn(mstorch)
    assert str(em.value).split("\n")[0] == str(et.value).split("\n")[0]


def test_construct_attributes():
    t, m = both(lambda T: T.sparse_coo_tensor(IDX, VAL, (3, 3)))
    same_sparse(t, m)
    assert repr(m.layout) == repr(t.layout) == "torch.sparse_coo"
    assert m.layout is mstorch.sparse_coo and mstorch.ones(1).layout is mstorch.strided
    assert isinstance(m, mstorch.Tensor)
    assert (m.size(), m.size(1), m.dim(), m.numel(), len(m)) == (t.size(), t.size(1), t.dim(), t.numel(), len(t))
    assert str(m.device) == str(t.device) and m.requires_grad is t.requires_grad is False
    assert mstorch.ones(2).is_sparse is False


@pytest.mark.parametrize("case", [
    (IDX, VAL, None, {}),
    (IDX, [1, 2, 3, 4], (4, 5), {}),
    (IDX, VAL, (3, 3), {"dtype": "float64"}),
    ([[0, 1]], [[1.0, 2.0], [3.0, 4.0]], None, {}),
    ([[0, 2, 0], [1, 1, 1]], [1.0, 2.0, 3.0], (3, 2), {"is_coalesced": False}),
])
def test_construct_cases(case):
    idx, val, size, kw = case

    def build(T):
        k = {n: getattr(T, v) if n == "dtype" else v for n, v in kw.items()}
        return T.sparse_coo_tensor(T.tensor(idx), T.tensor(val), size, **k) if size else \
            T.sparse_coo_tensor(idx, val, **k)
    same_sparse(*both(build))


def test_empty():
    same_sparse(*both(lambda T: T.sparse_coo_tensor(T.zeros(2, 0, dtype=T.long), T.zeros(0), (2, 3))))


@pytest.mark.parametrize("kind", ["plain", "f64", "empty", "int", "grad", "hybrid"])
def test_repr(kind):
    def build(T):
        if kind == "f64":
            return T.sparse_coo_tensor(IDX, VAL, (3, 3), dtype=T.float64)
        if kind == "empty":
            return T.sparse_coo_tensor(T.zeros(2, 0, dtype=T.long), T.zeros(0), (2, 3))
        if kind == "int":
            return T.sparse_coo_tensor(*DUP)
        if kind == "grad":
            return T.sparse_coo_tensor(IDX, VAL, (3, 3), requires_grad=True)
        if kind == "hybrid":
            return T.sparse_coo_tensor([[0, 1]], [[1.0, 2.0], [3.0, 4.0]])
        return T.sparse_coo_tensor(IDX, VAL, (3, 3))
    t, m = both(build)
    assert repr(m) == repr(t)


def test_coalesce_and_indices():
    t, m = both(lambda T: T.sparse_coo_tensor(*DUP))
    same_error(lambda T: T.sparse_coo_tensor(*DUP).indices())
    same_error(lambda T: T.sparse_coo_tensor(*DUP).values())
    tc, mc = t.coalesce(), m.coalesce()
    same_sparse(tc, mc)
    np.testing.assert_array_equal(mc.indices().numpy(), tc.indices().numpy())
    np.testing.assert_array_equal(mc.values().numpy(), tc.values().numpy())
    assert str(mc.values().dtype) == str(tc.values().dtype) and str(mc.indices().dtype) == "torch.int64"


def test_to_sparse():
    d = [[0.0, 1.5, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, -3.0]]
    same_sparse(*both(lambda T: T.tensor(d).to_sparse()))
    same_sparse(*both(lambda T: T.tensor(d).to_sparse(1)))
    same_sparse(*both(lambda T: T.tensor([[1, 0], [0, 0]]).to_sparse()))
    same_sparse(*both(lambda T: T.tensor(2.5).to_sparse()))
    same_sparse(*both(lambda T: T.tensor(d).to_sparse().to_dense().to_sparse()))


def test_transpose_mul_neg_dtype():
    def build(T):
        return T.sparse_coo_tensor(IDX, VAL, (3, 4))
    for op in (lambda s: s.t(), lambda s: s.transpose(0, 1), lambda s: s * 2, lambda s: 0.5 * s,
               lambda s: s.mul(3), lambda s: -s, lambda s: s / 2, lambda s: s.double(),
               lambda s: s.to(torch.float64 if isinstance(s, torch.Tensor) else mstorch.float64),
               lambda s: s.detach(), lambda s: s.clone()):
        same_sparse(*both(lambda T: op(build(T))))


def test_sum():
    t, m = both(lambda T: T.sparse.sum(T.sparse_coo_tensor(IDX, VAL, (3, 3))))
    np.testing.assert_allclose(np_of(m), np_of(t)) and None
    assert tuple(m.shape) == () and str(m.dtype) == str(t.dtype)
    same_sparse(*both(lambda T: T.sparse.sum(T.sparse_coo_tensor(IDX, VAL, (3, 3)), 0)))
    t, m = both(lambda T: T.sparse.sum(T.sparse_coo_tensor(IDX, VAL, (3, 3)), (0, 1)))
    np.testing.assert_allclose(np_of(m), np_of(t))


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1])
def test_softmax(fn, dim):
    same_sparse(*both(lambda T: getattr(T.sparse, fn)(T.sparse_coo_tensor(IDX, VAL, (3, 3)).coalesce(), dim)))


@pytest.mark.parametrize("how", ["sparse.mm", "mm", "spmm", "matmul_op", "method", "vec", "rmatmul", "dup"])
def test_mm_values_and_grads(how):
    rng = np.random.default_rng(0)
    dn = rng.standard_normal((3, 2)).astype(np.float32)
    g = rng.standard_normal((3, 2)).astype(np.float32)

    def run(T):
        idx, val = DUP if how == "dup" else (IDX, VAL)
        v = T.tensor(val, requires_grad=True)
        s = T.sparse_coo_tensor(T.tensor(idx), v, (3, 3))
        d = T.tensor(dn, requires_grad=True)
        if how == "sparse.mm":
            out = T.sparse.mm(s, d)
        elif how == "spmm":
            out = T.spmm(s, d)
        elif how in ("mm", "dup"):
            out = T.mm(s, d)
        elif how == "matmul_op":
            out = s @ d
        elif how == "method":
            out = s.matmul(d)
        elif how == "vec":
            out = s @ d[:, 0]
        else:
            out = d.t() @ s
        gg = T.tensor(g[:, 0] if how == "vec" else (g.T if how == "rmatmul" else g))
        (out * gg).sum().backward()
        return out, v.grad, d.grad
    (to, tv, td), (mo, mv, md) = both(run)
    assert tuple(mo.shape) == tuple(to.shape) and str(mo.dtype) == str(to.dtype)
    np.testing.assert_allclose(np_of(mo), np_of(to), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np_of(md), np_of(td), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np_of(mv), np_of(tv), rtol=1e-5, atol=1e-6)


def test_to_dense_grad_and_sparse_leaf_grad():
    rng = np.random.default_rng(1)
    g = rng.standard_normal((3, 3)).astype(np.float32)
    dn = rng.standard_normal((3, 2)).astype(np.float32)

    def run(T):
        s = T.sparse_coo_tensor(IDX, VAL, (3, 3), requires_grad=True)
        (s.to_dense() * T.tensor(g)).sum().backward()
        s2 = T.sparse_coo_tensor(IDX, VAL, (3, 3), requires_grad=True)
        T.sparse.mm(s2, T.tensor(dn)).sum().backward()
        return s.grad, s2.grad
    (t1, t2), (m1, m2) = both(run)
    for a, b in ((t1, m1), (t2, m2)):
        assert b.is_sparse and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(np_of(b.to_dense()), np_of(a.to_dense()), rtol=1e-5, atol=1e-6)


def test_values_leaf_requires_grad():
    t, m = both(lambda T: T.sparse_coo_tensor(IDX, VAL, (3, 3)).requires_grad_())
    assert m.requires_grad is t.requires_grad is True
    same_error(lambda T: T.sparse_coo_tensor(IDX, [1, 2, 3, 4], (3, 3), requires_grad=True))


@pytest.mark.parametrize("bad", [
    lambda T: T.sparse_coo_tensor([[0, -1]], [1.0, 2.0]),
    lambda T: T.sparse_coo_tensor([[0, 1]], [1.0, 2.0, 3.0], (2,)),
    lambda T: T.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (2, 3)),
    lambda T: T.sparse_coo_tensor([[0, 1]], [[1.0, 2.0], [3.0, 4.0]], (2, 3)),
    lambda T: T.sparse_coo_tensor([[0, 2]], [1.0, 2.0], (2,), check_invariants=True),
    lambda T: T.sparse_coo_tensor([[0, -1]], [1.0, 2.0], (2,), check_invariants=True),
    lambda T: T.mm(T.sparse_coo_tensor(IDX, VAL, (3, 3)), T.ones(4, 2)),
    lambda T: T.mm(T.sparse_coo_tensor(IDX, VAL, (3, 3)), T.ones(3, 2, dtype=T.float64)),
    lambda T: T.sparse_coo_tensor(IDX, VAL, (3, 3)).numpy(),
    lambda T: T.sparse_coo_tensor(IDX, VAL, (3, 3)) + T.ones(3, 3),
])
def test_errors(bad):
    same_error(bad)


def test_unsupported_ops_raise_naming_the_op():
    s = mstorch.sparse_coo_tensor(IDX, VAL, (3, 3))
    with pytest.raises(NotImplementedError, match="aten::view.*SparseCPU"):
        s.view(9)
    with pytest.raises(NotImplementedError, match="aten::exp.*SparseCPU"):
        mstorch.exp(s)
    with pytest.raises(NotImplementedError, match="serialize sparse"):
        mstorch.save(s, __import__("io").BytesIO())
