"""Sparse arithmetic as GNN code uses it, against torch: sparse +- sparse/dense, * and / by scalars,
dense and sparse tensors, zero-preserving unary ops, mm/addmm/matmul (sparse @ sparse too),
index_select, transpose, sum, in-place forms, gradients to values and dense operands, and CSR tensors
(construction, conversion, products)."""
import warnings

import numpy as np
import pytest
import torch

import mstorch
from test_sparse import both, np_of, same_error, same_sparse

warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
warnings.filterwarnings("ignore", message="Sparse invariant checks")

RNG = np.random.default_rng(0)
D33 = RNG.standard_normal((3, 3)).astype(np.float32)
ROW = RNG.standard_normal(3).astype(np.float32)
COL = RNG.standard_normal((3, 1)).astype(np.float32)

# sparse operands: (indices, values, size); "u" has repeated indices, "e" no entries
SP = {
    "a": ([[0, 1, 1, 2], [2, 0, 2, 1]], [3.0, 4.0, 5.0, -1.5], (3, 3)),
    "b": ([[0, 2], [2, 2]], [1.0, 2.0], (3, 3)),
    "u": ([[1, 0, 1, 1], [0, 2, 0, 1]], [1.0, 2.0, 3.0, -4.0], (3, 3)),
    "v": ([[2, 0, 2], [2, 0, 0]], [5.0, 7.0, 11.0], (3, 3)),
    "e": ([[], []], [], (3, 3)),
}


def sp(T, name, coalesce=False, requires_grad=False, dtype=None):
    idx, val, size = SP[name]
    v = T.tensor(val, dtype=dtype or T.float32, requires_grad=requires_grad)
    s = T.sparse_coo_tensor(T.tensor(idx, dtype=T.long).reshape(2, -1), v, size)
    return (s.coalesce() if coalesce else s), v


def S(name, c=False):
    return lambda T: sp(T, name, c)[0]


def same(t, m):
    if t.layout == torch.sparse_coo:
        same_sparse(t, m)
    else:
        assert repr(m.layout) == "torch.strided", m.layout
        assert tuple(m.shape) == tuple(t.shape) and str(m.dtype) == str(t.dtype)
        np.testing.assert_allclose(np_of(m), np_of(t), rtol=1e-5, atol=1e-6)


def _pairs():
    out = {}
    for x, y in [("a", "b"), ("u", "v"), ("a", "u"), ("v", "a"), ("a", "e"), ("e", "v"), ("u", "u")]:
        for cx in (False, True):
            for cy in (False, True):
                out[f"{x}{'c' if cx else ''}-{y}{'c' if cy else ''}"] = (x, cx, y, cy)
    return out


PAIRS = _pairs()


@pytest.mark.parametrize("op", ["add", "sub", "add alpha", "sub alpha", "mul", "+", "-", "*"])
@pytest.mark.parametrize("pair", list(PAIRS))
def test_sparse_sparse(op, pair):
    x, cx, y, cy = PAIRS[pair]

    def run(T):
        a, b = sp(T, x, cx)[0], sp(T, y, cy)[0]
        return {"add": lambda: T.add(a, b), "sub": lambda: T.sub(a, b), "add alpha": lambda: T.add(a, b, alpha=2),
                "sub alpha": lambda: a.sub(b, alpha=0.5), "mul": lambda: T.mul(a, b), "+": lambda: a + b,
                "-": lambda: a - b, "*": lambda: a * b}[op]()
    same(*both(run))


DENSE_CASES = {
    "dense + sparse": lambda T, s: T.tensor(D33) + s,
    "dense - sparse": lambda T, s: T.tensor(D33) - s,
    "add(dense, sparse, alpha)": lambda T, s: T.add(T.tensor(D33), s, alpha=2),
    "sub(dense, sparse, alpha)": lambda T, s: T.tensor(D33).sub(s, alpha=3),
    "int dense + sparse": lambda T, s: T.ones(3, 3, dtype=T.long) + s,
    "f64 dense + sparse": lambda T, s: T.tensor(D33, dtype=T.float64) + s,
    "sparse * dense": lambda T, s: s * T.tensor(D33),
    "dense * sparse": lambda T, s: T.tensor(D33) * s,
    "sparse * row": lambda T, s: s * T.tensor(ROW),
    "sparse * col": lambda T, s: T.mul(s, T.tensor(COL)),
    "sparse * f64 dense": lambda T, s: s * T.tensor(D33, dtype=T.float64),
    "sparse * 2": lambda T, s: s * 2,
    "2.5 * sparse": lambda T, s: 2.5 * s,
    "sparse * 0-d": lambda T, s: s * T.tensor(-3.0),
    "sparse / 2": lambda T, s: s / 2,
    "sparse / 0-d": lambda T, s: T.div(s, T.tensor(4.0)),
    "div floor": lambda T, s: T.div(s, 2, rounding_mode="floor"),
    "neg": lambda T, s: -s,
    "abs": lambda T, s: s.abs(), "sqrt": lambda T, s: T.sqrt(s.abs()), "relu": lambda T, s: T.relu(s),
    "sin": lambda T, s: s.sin(), "sign": lambda T, s: s.sign(), "floor": lambda T, s: s.floor(),
    "square": lambda T, s: s.square(), "log1p": lambda T, s: s.abs().log1p(), "pow 2": lambda T, s: s.pow(2),
    "pow 3 op": lambda T, s: s ** 3,
    "t": lambda T, s: s.t(), "transpose fn": lambda T, s: T.transpose(s, 1, 0),
    "index_select 0": lambda T, s: s.index_select(0, T.tensor([2, 0, 0])),
    "index_select 1": lambda T, s: T.index_select(s, 1, T.tensor([2, 2, 0])),
    "index_select neg dim": lambda T, s: s.index_select(-1, T.tensor([1])),
    "index_select empty": lambda T, s: s.index_select(0, T.tensor([], dtype=T.long)),
    "sum": lambda T, s: s.sum(), "sum dtype": lambda T, s: s.sum(dtype=T.float64),
    "sum 0": lambda T, s: s.sum(0), "sparse.sum 1": lambda T, s: T.sparse.sum(s, 1),
    "sparse.sum -1": lambda T, s: T.sparse.sum(s, -1), "sparse.sum both": lambda T, s: T.sparse.sum(s, (0, 1)),
    "sum keepdim": lambda T, s: s.sum(0, keepdim=True),
    "mm dense": lambda T, s: T.mm(s, T.tensor(D33)), "spmm": lambda T, s: T.spmm(s, T.tensor(D33)),
    "sparse.mm dense": lambda T, s: T.sparse.mm(s, T.tensor(D33)),
    "dense @ sparse": lambda T, s: T.tensor(D33) @ s, "mm(dense, sparse)": lambda T, s: T.mm(T.tensor(D33), s),
    "mv": lambda T, s: s.mv(T.tensor(ROW)), "matmul vec": lambda T, s: T.matmul(s, T.tensor(ROW)),
    "addmm": lambda T, s: T.addmm(T.tensor(D33), s, T.tensor(D33)),
    "addmm beta alpha": lambda T, s: T.addmm(T.tensor(D33), s, T.tensor(D33), beta=0.5, alpha=2),
    "addmm beta 0": lambda T, s: T.addmm(T.full((3, 3), float("nan")), s, T.tensor(D33), beta=0),
    "Tensor.addmm": lambda T, s: T.tensor(D33).addmm(s, T.tensor(D33)),
    "sparse.addmm": lambda T, s: T.sparse.addmm(T.tensor(D33), s, T.tensor(D33), beta=0.5, alpha=2.0),
    "sparse @ sparse": lambda T, s: s @ sp(T, "v")[0], "sparse.mm sparse": lambda T, s: T.sparse.mm(s, s),
    "mm sparse t": lambda T, s: T.mm(s, s.t()),
    "sparse.softmax 1": lambda T, s: T.sparse.softmax(s, 1),
    "sparse.log_softmax 0": lambda T, s: T.sparse.log_softmax(s, 0),
}


@pytest.mark.parametrize("case", list(DENSE_CASES))
@pytest.mark.parametrize("which", ["a", "u", "uc", "e"])
def test_sparse_ops(case, which):
    same(*both(lambda T: DENSE_CASES[case](T, sp(T, which.rstrip("c"), which.endswith("c"))[0])))


GRAD_CASES = ["dense + sparse", "dense - sparse", "sub(dense, sparse, alpha)", "sparse * dense", "dense * sparse",
              "sparse * col", "sparse * 2", "sparse / 0-d", "neg", "abs", "relu", "square", "pow 2", "t",
              "index_select 0", "index_select 1", "sum", "sum 0", "sparse.sum 1", "mm dense", "dense @ sparse", "mv",
              "addmm beta alpha", "sparse.addmm", "sparse @ sparse", "sparse.mm sparse", "mm sparse t",
              "sparse.softmax 1", "sparse.log_softmax 0"]


@pytest.mark.parametrize("case", GRAD_CASES)
@pytest.mark.parametrize("which", ["a", "u"])
def test_sparse_op_grads(case, which):
    """Gradients to the sparse tensor's values and to the dense operands (D33 / ROW / COL leaves)."""
    w = RNG.standard_normal((3, 3)).astype(np.float32)

    def run(T, densify=False):
        s, v = sp(T, which, requires_grad=True)
        if densify:
            s = s.to_dense()
        dense = {}
        real_tensor = T.tensor

        def tracked(data, *args, **kwargs):   # the case's dense operands become leaves
            x = real_tensor(data, *args, **kwargs)
            if any(data is c for c in (D33, ROW, COL)) and x.dtype == T.float32:
                x.requires_grad_(True)
                dense[len(dense)] = x
            return x
        T.tensor = tracked
        try:
            out = DENSE_CASES[case](T, s)
        finally:
            T.tensor = real_tensor
        d = out.to_dense() if out.layout != T.strided else out
        weight = T.tensor(w[tuple(slice(0, n) for n in d.shape)]) if d.ndim else T.tensor(1.0)
        (d * weight).sum().backward()
        return [v.grad] + [x.grad for x in dense.values()]
    try:
        t = run(torch)
    except (RuntimeError, NotImplementedError):
        # torch has no backward for some sparse ops (a sparse gradient meets a dense-only kernel): its
        # gradient of the same function through to_dense() is the reference
        t = run(torch, densify=True)
    m = run(mstorch)
    assert len(t) == len(m)
    for a, b in zip(t, m):
        assert (a is None) == (b is None)
        if a is not None:   # torch's gradient of a dense operand of sparse * dense is sparse
            a, b = (x.to_dense() if x.layout != torch.strided and x.layout != mstorch.strided else x for x in (a, b))
            np.testing.assert_allclose(np_of(b), np_of(a), rtol=1e-5, atol=1e-5)


def test_gcn_normalisation_grads():
    """The GCN recipe: A + I, degree from torch.sparse.sum, D^-1/2 A D^-1/2 as sparse products, then
    two propagation steps; gradients to the features (torch's backward through sparse @ sparse fails)."""
    rng = np.random.default_rng(5)
    edges = rng.integers(0, 6, size=(2, 14))
    wts = rng.uniform(0.5, 1.5, 14).astype(np.float32)
    feats = rng.standard_normal((6, 4)).astype(np.float32)

    def run(T):
        w = T.tensor(wts)
        x = T.tensor(feats, requires_grad=True)
        adj = T.sparse_coo_tensor(T.tensor(edges), w, (6, 6))
        eye = T.sparse_coo_tensor(T.arange(6).repeat(2, 1), T.ones(6), (6, 6))
        a = (adj + adj.t()) * 0.5 + eye
        deg = T.sparse.sum(a, 1).to_dense()
        dinv = deg.pow(-0.5)
        dm = T.sparse_coo_tensor(T.arange(6).repeat(2, 1), dinv, (6, 6))
        norm = T.sparse.mm(T.sparse.mm(dm, a), dm)
        h = T.spmm(norm, T.spmm(norm, x).relu())
        (h * h).sum().backward()
        return norm, h, x.grad
    (tn, th, tx), (mn, mh, mx) = both(run)
    same_sparse(tn, mn)
    for a, b in ((th, mh), (tx, mx)):
        np.testing.assert_allclose(np_of(b), np_of(a), rtol=1e-5, atol=1e-5)


def test_inplace():
    def run(T):
        a, b = sp(T, "a")[0], sp(T, "v")[0]
        a.add_(b)
        a.mul_(2)
        a -= sp(T, "b")[0]
        d = T.tensor(D33)
        d.add_(a)
        d.sub_(b, alpha=2)
        return a, d
    (ta, td), (ma, md) = both(run)
    same(ta, ma)
    same(td, md)
    same_error(lambda T: T.sparse_coo_tensor(*SP["a"], requires_grad=True).mul_(2))
    t, m = both(lambda T: [s.is_leaf for s in (sp(T, "a", requires_grad=True)[0], T.sparse_coo_tensor(
        *SP["a"], requires_grad=True), T.sparse_coo_tensor(*SP["a"], requires_grad=True) * 2, sp(T, "a")[0])])
    assert t == m


def test_repr_of_results():
    for fn in (lambda T: S("a")(T) + S("v")(T), lambda T: S("a", True)(T) * T.tensor(D33, dtype=T.float64),
               lambda T: S("u")(T).index_select(0, T.tensor([1, 0]))):
        t, m = both(fn)
        assert repr(m) == repr(t)


@pytest.mark.parametrize("bad", [
    lambda T: S("a")(T) + T.tensor(D33), lambda T: S("a")(T) - 1, lambda T: 1 + S("a")(T), lambda T: 1 - S("a")(T),
    lambda T: S("a")(T).add(2.0), lambda T: T.ones(2, 2) + S("a")(T),
    lambda T: S("a")(T) + T.sparse_coo_tensor([[0]], [1.0], (4,)),
    lambda T: S("a")(T) * T.sparse_coo_tensor([[0], [0]], [1.0], (3, 4)),
    lambda T: S("a", True)(T) * T.sparse_coo_tensor([[0], [0]], [1.0], (3, 4)).coalesce(),
    lambda T: S("a")(T) / T.tensor(D33), lambda T: T.tensor(D33) / S("a")(T),
    lambda T: S("a")(T).pow(0), lambda T: T.addmm(S("a")(T), S("a")(T), T.tensor(D33)),
    lambda T: T.mm(S("a")(T), T.ones(3, 2, dtype=T.float64)),
    lambda T: S("a")(T).index_select(0, T.tensor([3])), lambda T: S("a")(T).sum(2),
])
def test_errors(bad):
    same_error(bad)


def test_unsupported_op_names_itself():
    s = S("a")(mstorch)
    for call, op in ((lambda: s.exp(), "exp"), (lambda: mstorch.cat([s, s]), "cat"), (lambda: s == s, "eq"),
                     (lambda: s.mean(), "mean"), (lambda: 2 / s, "reciprocal")):
        with pytest.raises(NotImplementedError, match=f"Could not run 'aten::{op}' with arguments from the "
                                                      "'SparseCPU' backend"):
            call()


def test_legacy_constructor():
    t, m = both(lambda T: T.sparse.FloatTensor(T.tensor(SP["a"][0]), T.tensor(SP["a"][1]), T.Size([3, 3])))
    same_sparse(t, m)
    t, m = both(lambda T: T.sparse.FloatTensor(2, 3))
    same_sparse(t, m)


# --- CSR ---------------------------------------------------------------------------------------------

def same_csr(t, m):
    assert type(m).__name__ == "SparseCsrTensor" and t.layout == torch.sparse_csr
    assert repr(m.layout) == "torch.sparse_csr" and m.is_sparse is t.is_sparse is False
    assert m.is_sparse_csr and tuple(m.shape) == tuple(t.shape) and str(m.dtype) == str(t.dtype)
    assert m._nnz() == t._nnz()
    for a, b in ((t.crow_indices(), m.crow_indices()), (t.col_indices(), m.col_indices())):
        assert str(a.dtype) == str(b.dtype)
        np.testing.assert_array_equal(b.numpy(), a.numpy())
    np.testing.assert_allclose(np_of(m.values()), np_of(t.values()), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np_of(m.to_dense()), np_of(t.to_dense()), rtol=1e-5, atol=1e-6)
    assert repr(m) == repr(t)


CSR = {
    "constructor": lambda T: T.sparse_csr_tensor([0, 1, 3, 4], [2, 0, 2, 1], [3.0, 4.0, 5.0, -1.5], (3, 3)),
    "inferred size": lambda T: T.sparse_csr_tensor([0, 2, 3], [1, 0, 1], [1.0, 2.0, 3.0]),
    "int32 indices": lambda T: T.sparse_csr_tensor(T.tensor([0, 2, 3], dtype=T.int32),
                                                   T.tensor([0, 1, 1], dtype=T.int32), T.tensor([1.0, 2.0, 3.0])),
    "f64": lambda T: T.sparse_csr_tensor([0, 1, 1], [1], [2.0], (2, 2), dtype=T.float64),
    "dense.to_sparse_csr": lambda T: T.tensor(D33).relu().to_sparse_csr(),
    "to_sparse(layout)": lambda T: T.eye(3).to_sparse(layout=T.sparse_csr),
    "coo.to_sparse_csr": lambda T: S("u")(T).to_sparse_csr(),
    "csr * 2": lambda T: S("a")(T).to_sparse_csr() * 2,
    "csr + csr": lambda T: S("a")(T).to_sparse_csr() + S("v")(T).to_sparse_csr(),
    "csr * dense": lambda T: S("a")(T).to_sparse_csr() * T.tensor(D33),
    "neg": lambda T: -S("a")(T).to_sparse_csr(),
    "requires_grad": lambda T: T.sparse_csr_tensor([0, 1, 1], [1], [2.0], (2, 2), requires_grad=True),
}


@pytest.mark.parametrize("case", list(CSR))
def test_csr(case):
    same_csr(*both(CSR[case]))


@pytest.mark.parametrize("fn", [
    lambda T, c: c.to_sparse(), lambda T, c: c.to_dense(), lambda T, c: T.mm(c, T.tensor(D33)),
    lambda T, c: c @ T.tensor(ROW), lambda T, c: T.sparse.mm(c, T.tensor(D33)), lambda T, c: T.tensor(D33) + c,
    lambda T, c: c.sum(), lambda T, c: T.addmm(T.tensor(D33), c, T.tensor(D33)),
])
def test_csr_to_coo_and_dense(fn):
    same(*both(lambda T: fn(T, T.sparse_csr_tensor([0, 2, 3, 4], [2, 0, 2, 1], [3.0, 4.0, 5.0, -1.5], (3, 3)))))


def test_csr_mm_grads():
    def run(T):
        v = T.tensor([3.0, 4.0, 5.0, -1.5], requires_grad=True)
        d = T.tensor(D33, requires_grad=True)
        c = T.sparse_csr_tensor([0, 1, 3, 4], [2, 0, 2, 1], v, (3, 3))
        (T.mm(c, d) * T.tensor(D33)).sum().backward()
        return v.grad, d.grad
    (tv, td), (mv, md) = both(run)
    np.testing.assert_allclose(np_of(mv), np_of(tv), rtol=1e-5)
    np.testing.assert_allclose(np_of(md), np_of(td), rtol=1e-5)


@pytest.mark.parametrize("bad", [
    lambda T: T.ones(2, 2, 2).to_sparse().to_sparse_csr(),
    lambda T: T.sparse_csr_tensor([0, 1, 1], [1], [2.0], (2, 2)).coalesce(),
])
def test_csr_errors(bad):
    same_error(bad)


# --- hybrid tensors (dense dims in the values) --------------------------------------------------------

def _h1(T):
    return T.sparse_coo_tensor([[0, 1, 0]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], (3, 2))


def _h2(T):
    return T.sparse_coo_tensor([[1, 2]], [[1.0, 1.0], [2.0, 2.0]], (3, 2))


@pytest.mark.parametrize("fn", [
    lambda T: _h1(T) + _h2(T), lambda T: _h1(T).coalesce() + _h2(T).coalesce(), lambda T: _h1(T) * T.ones(3, 2) * 2,
    lambda T: _h1(T) * T.tensor([1.0, 10.0]), lambda T: _h1(T).coalesce() * _h2(T).coalesce(),
    lambda T: T.ones(3, 2) + _h1(T), lambda T: T.sparse.sum(_h1(T), 0), lambda T: T.sparse.sum(_h1(T), 1),
    lambda T: _h1(T).index_select(0, T.tensor([0, 2])), lambda T: _h1(T).index_select(1, T.tensor([1])),
    lambda T: (-_h1(T)).abs(), lambda T: _h1(T) / 2,
])
def test_hybrid(fn):
    same(*both(fn))


def test_custom_function_saving_a_sparse_tensor():
    """pyGAT's sparse attention: a custom autograd.Function builds a sparse matrix, saves it for
    backward and reads its ``_indices()`` there."""
    rng = np.random.default_rng(0)
    edges = rng.integers(0, 5, (2, 8))
    weights = rng.uniform(0.1, 1, 8).astype(np.float32)
    feats = rng.standard_normal((5, 3)).astype(np.float32)

    def run(T):
        class SpecialSpmm(T.autograd.Function):
            @staticmethod
            def forward(ctx, indices, values, shape, b):
                a = T.sparse_coo_tensor(indices, values, shape)
                ctx.save_for_backward(a, b)
                ctx.N = shape[0]
                return T.matmul(a, b)

            @staticmethod
            def backward(ctx, grad_output):
                a, b = ctx.saved_tensors
                grad_values = grad_b = None
                if ctx.needs_input_grad[1]:
                    edge_idx = a._indices()[0, :] * ctx.N + a._indices()[1, :]
                    grad_values = grad_output.matmul(b.t()).view(-1)[edge_idx]
                if ctx.needs_input_grad[3]:
                    grad_b = a.t().matmul(grad_output)
                return None, grad_values, None, grad_b

        v = T.tensor(weights, requires_grad=True)
        b = T.tensor(feats, requires_grad=True)
        e = T.exp(-T.nn.functional.leaky_relu(v))
        out = SpecialSpmm.apply(T.tensor(edges), e, T.Size([5, 5]), b)
        rowsum = SpecialSpmm.apply(T.tensor(edges), e, T.Size([5, 5]), T.ones(5, 1))
        h = out.div(rowsum + 1e-9)
        h.sum().backward()
        return h, v.grad, b.grad
    for a, b in zip(*both(run)):
        np.testing.assert_allclose(np_of(b), np_of(a), rtol=1e-5, atol=1e-6)
