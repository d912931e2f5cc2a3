"""Samples for matrix products, einsum, trace/cross/cdist and det/inverse (float inputs get gradients)."""
import numpy as np

from .common import OpInfo, S, E, EType


def _r(*shape, seed=0, dtype=np.float32):
    return np.random.RandomState(seed + 7 * len(shape) + sum(shape)).uniform(-2, 2, size=shape).astype(dtype)


def _i(*shape, seed=0):
    return np.random.RandomState(seed + sum(shape)).randint(-4, 5, size=shape).astype(np.int64)


def _spd(n, batch=(), seed=0, dtype=np.float32):
    a = _r(*batch, n, n, seed=seed).astype(np.float64)
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def _bf16(arr):
    return lambda T: T.tensor(arr).to(T.bfloat16)


def _f64(arr):
    return arr.astype(np.float64)


_c64 = lambda *s: (_r(*s) + 1j * _r(*s, seed=5)).astype(np.complex64)  # noqa: E731

OPS = [
    OpInfo("matmul", [
        S(_r(3), _r(3, seed=1)), S(_r(2, 3), _r(3)), S(_r(3), _r(3, 4)), S(_r(2, 3), _r(3, 4)),
        S(_r(2, 2, 3), _r(2, 3, 4)), S(_r(2, 2, 3), _r(3, 4)), S(_r(2, 3), _r(5, 3, 4)),
        S(_r(2, 1, 2, 3), _r(3, 3, 4)), S(_r(2), _r(4, 2, 3)), S(_r(2, 2, 3), _r(3)),
        S(_f64(_r(2, 3)), _f64(_r(3, 2))), S(_i(2, 3), _i(3, 2)), S(_c64(2, 3), _c64(3, 2)),
        E(_r(2, 3), _f64(_r(3, 2))), E(_r(3), _f64(_r(3))), E(_r(2, 3), _r(4, 2)), E(_r(3), _r(4)),
        E(_r(2, 3), _r(4)), E(_r(2, 2, 3), _r(2, 4, 2)), E(_r(2, 2, 3), _r(3, 3, 4)),
        E(lambda T: T.tensor(1.0), _r(3)), E(lambda T: T.ones(2, 2, dtype=T.bool), lambda T: T.ones(2, 2, dtype=T.bool)),
    ]),
    OpInfo("matmul", [S(_bf16(_r(4, 8)), _bf16(_r(8, 3))), S(_bf16(_r(2, 4, 8)), _bf16(_r(8, 3))),
                      S(_bf16(_r(5)), _bf16(_r(5, 2)))], rtol=1e-2, atol=1e-2),
    OpInfo("mm", [S(_r(2, 3), _r(3, 4)), S(_i(2, 3), _i(3, 2)), S(_f64(_r(1, 3)), _f64(_r(3, 1))),
                  E(_r(2, 2, 3), _r(3, 2)), E(_r(2, 3), _r(4, 2)), E(_r(2, 3), _f64(_r(3, 2)))]),
    OpInfo("bmm", [S(_r(2, 2, 3), _r(2, 3, 4)), S(_i(1, 2, 3), _i(1, 3, 2)), S(_f64(_r(3, 2, 5)), _f64(_r(3, 5, 2))),
                   E(_r(2, 3), _r(3, 2)), E(_r(2, 2, 3), _r(2, 4, 2)), E(_r(2, 2, 3), _r(3, 3, 2)),
                   E(_r(2, 2, 3), _f64(_r(2, 3, 2)))]),
    # bfloat16 products accumulate in float32 and round once: a bfloat16 ulp
    OpInfo("bmm", [S(_bf16(_r(2, 2, 3)), _bf16(_r(2, 3, 2)))], rtol=2 ** -7, atol=1e-3),
    OpInfo("dot", [S(_r(4), _r(4, seed=1)), S(_i(3), _i(3)), S(_f64(_r(2)), _f64(_r(2))),
                   E(_r(2, 3), _r(2, 3)), E(_r(3), _r(4)), E(_r(3), _f64(_r(3))),
                   E(lambda T: T.ones(2, dtype=T.bool), lambda T: T.ones(2, dtype=T.bool))]),
    OpInfo("vdot", [S(_r(4), _r(4, seed=1)), S(_c64(3), _c64(3) * 2), E(_r(3), _r(4))]),
    OpInfo("mv", [S(_r(2, 3), _r(3)), S(_i(2, 3), _i(3)), E(_r(2, 3), _r(4)), E(_r(3), _r(3)),
                  E(_r(2, 3), _f64(_r(3)))]),
    OpInfo("outer", [S(_r(3), _r(2)), S(_i(3), _r(2)), S(lambda T: T.ones(2, dtype=T.bool), lambda T: T.ones(3, dtype=T.bool)),
                     E(_r(3, 1), _r(2)), E(_r(3), _r(2, 1))]),
    OpInfo("outer", [S(_r(3), _r(2))], call=lambda T, a, b: (T.ger(a, b), a.ger(b))),
    OpInfo("addmm", [S(_r(2, 2), _r(2, 3), _r(3, 2)), S(_r(2, 2), _r(2, 3), _r(3, 2), beta=0.5, alpha=2.0),
                     S(_r(2), _r(2, 3), _r(3, 2)).rejects("inplace"), S(_i(2, 2), _i(2, 3), _i(3, 2), alpha=2),
                     E(_r(3), _r(2, 3), _r(3, 2)), E(_f64(_r(2, 2)), _r(2, 3), _r(3, 2)),
                     E(_r(2, 2), _r(2, 2, 3), _r(3, 2)), E(_r(2, 2), _r(2, 3), _r(2, 2))]),
    OpInfo("addmm", [S(lambda T: T.full((2, 2), float("nan")), _r(2, 3), _r(3, 2), beta=0)], grad=False),
    OpInfo("addmv", [S(_r(2), _r(2, 3), _r(3)), S(_r(2), _r(2, 3), _r(3), beta=0.5, alpha=-1.0),
                     S(_r(1), _r(2, 3), _r(3)).rejects("inplace"), E(_r(2), _r(2, 3), _r(4)), E(_r(2), _r(2, 3), _f64(_r(3)))]),
    OpInfo("addbmm", [S(_r(2, 2), _r(4, 2, 3), _r(4, 3, 2)), S(_r(2, 2), _r(3, 2, 3), _r(3, 3, 2), beta=2.0, alpha=0.5),
                      E(_r(2, 2), _r(4, 2, 3), _r(3, 3, 2)), E(_r(2, 2), _r(2, 3), _r(3, 2)),
                      E(_r(2, 2), _r(1, 4, 2, 3), _r(4, 3, 2))]),
    # torch's addbmm_ resizes a smaller receiver to the result; mstorch raises (docs/known-differences.md)
    OpInfo("addbmm", [S(_r(2), _r(3, 2, 3), _r(3, 3, 2))], inplace=False),
    OpInfo("baddbmm", [S(_r(4, 2, 2), _r(4, 2, 3), _r(4, 3, 2)), S(_r(2), _r(4, 2, 3), _r(4, 3, 2), alpha=0.5).rejects("inplace"),
                       E(_r(4, 2, 2), _r(4, 2, 3), _r(4, 4, 2)), E(_r(4, 2, 2), _r(2, 3), _r(3, 2))]),
    OpInfo("addr", [S(_r(3, 2), _r(3), _r(2)), S(_r(2), _r(3), _r(2), beta=0.5, alpha=2.0).rejects("inplace"), E(_r(3, 2), _r(3, 1), _r(2))]),
    OpInfo("inner", [S(_r(3), _r(3, seed=1)), S(_r(2, 3), _r(4, 3)), S(_r(2, 2, 3), _r(3)),
                     S(lambda T: T.tensor(2.5), _r(4, 3)), E(_r(2, 3), _r(4, 2)), E(_i(3), _r(3))]),
    OpInfo("kron", [S(_r(2, 3), _r(2, 2)), S(_r(2, 3), _r(4)), S(_r(2), _r(1, 3)), S(_i(2), _r(2)),
                    S(lambda T: T.ones(2, dtype=T.bool), lambda T: T.zeros(2, dtype=T.bool))]),
    OpInfo("tensordot", [S(_r(2, 3, 4), _r(3, 4, 5)), S(_r(2, 3), _r(3, 4), dims=1),
                         S(_r(2, 3, 4), _r(4, 3, 5), dims=([1, 2], [1, 0])), S(_r(2, 3), _r(4), dims=0),
                         S(_r(2, 3), _r(3, 2), dims=([1], [0])),
                         E(_r(2, 3), _r(4), dims=1), E(_r(2, 3), _f64(_r(3)), dims=1)], method=False),
    OpInfo("chain_matmul", [S(_r(2, 3), _r(3, 4), _r(4, 5)), S(_r(2, 3)), E(_r(2, 3), _r(3)), E()], method=False),
    OpInfo("trace", [S(_r(3, 3)), S(_r(2, 4)), S(_i(3, 3)), S(lambda T: T.ones(2, 2, dtype=T.int32)),
                     S(_f64(_r(2, 2))), E(_r(2, 2, 2)), E(lambda T: T.ones(2, 2, dtype=T.bool))]),
    OpInfo("cross", [S(_r(4, 3), _r(4, 3, seed=1), dim=1), S(_r(3, 2), _r(3, 2, seed=1)), S(_r(2, 3), _r(1, 3), dim=-1),
                     S(_i(2, 3), _i(2, 3), dim=1), E(_r(2, 4), _r(2, 4), dim=1), E(_r(2, 2), _r(2, 2)),
                     E(_r(2, 3), _r(2, 3), dim=2), E(_i(3), _r(3), dim=0), E(_r(2, 3), _r(3, 3), dim=1)]),
    OpInfo("cdist", [S(_r(4, 3), _r(5, 3, seed=1)), S(_r(4, 3), _r(5, 3, seed=1), p=1.0), S(_r(4, 3), _r(2, 3), p=3.0),
                     S(_r(2, 3, 2), _r(1, 4, 2)), S(_f64(_r(3, 2)), _f64(_r(2, 2))),
                     S(_r(30, 2), _r(27, 2, seed=2)), E(_i(2, 3), _i(4, 3)), E(_r(2, 3), _r(4, 2)),
                     E(_r(2, 3), _r(4, 3), p=-1.0), E(_r(3), _r(3)), E(_r(2, 3), _f64(_r(2, 3)))],
           method=False, rtol=1e-4, atol=1e-5),
    OpInfo("cdist", [S(_r(3, 2), _r(2, 2), p=float("inf")), S(lambda T: T.tensor([[0.0, 1], [2, 2]]),
                                                               lambda T: T.tensor([[0.0, 1], [2, 3]]), p=0.0)],
           method=False, grad=False),
    # coinciding points: torch's gradient is 0 there, not NaN
    OpInfo("cdist", [S(lambda T: T.tensor([[0.0, 1.0], [2.0, 2.0]], requires_grad=True),
                       lambda T: T.tensor([[0.0, 1.0], [1.0, 1.0]]))],
           method=False, call=lambda T, a, b: (T.cdist(a, b), T.autograd.grad(T.cdist(a, b).sum(), a)[0])),
    # coinciding points for every p (p < 1: |d|**p is not differentiable at 0, torch's gradient is 0)
    OpInfo("cdist", [S(lambda T: T.tensor([[0.0, 1.0], [2.0, 2.0]], requires_grad=True),
                       lambda T: T.tensor([[0.0, 1.0], [1.0, 1.0]]), p=p) for p in (0.0, 0.5, 1.0, 1.5, 3.0, float("inf"))],
           method=False, call=lambda T, a, b, p: (T.cdist(a, b, p=p), T.autograd.grad(T.cdist(a, b, p=p).sum(), a)[0])),
    OpInfo("pdist", [S(_r(5, 3)), S(_r(4, 3), p=1.0), S(_r(4, 2), p=3.0), S(_r(4, 2), p=0.5), S(_r(3, 2), p=float("inf")),
                     S(_f64(_r(4, 3))), S(_r(40, 3)),
                     E(_r(2, 2, 2)), E(_r(3, 2), p=-1.0), E(_i(3, 2)), E(lambda T: T.ones(3, 2, dtype=T.float16))],
           method=False, rtol=1e-4, atol=1e-5),
    # fewer than two rows: torch's backward there returns uninitialised memory, so values only
    OpInfo("pdist", [S(_r(1, 3)), S(_r(0, 3))], method=False, grad=False),
    OpInfo("pdist", [S(_r(3, 0))], method=False),
    OpInfo("pdist", [S(lambda T: T.tensor([[1.0, 2.0], [1.0, 2.0], [0.0, 0.0], [3.0, -1.0]], requires_grad=True), p=p)
                     for p in (0.0, 0.5, 1.0, 2.0, 3.0, float("inf"))],
           method=False, call=lambda T, a, p: (T.pdist(a, p=p), T.autograd.grad(T.pdist(a, p=p).sum(), a)[0])),
    OpInfo("det", [S(_r(3, 3)), S(_r(2, 3, 3)), S(_f64(_r(4, 4))), S(_r(1, 1)), S(_r(2, 2)),
                   E(_i(2, 2)), E(_r(2, 3)), E(_r(3)), E(lambda T: T.ones(2, 2, dtype=T.float16))], rtol=1e-4, atol=1e-5),
    OpInfo("logdet", [S(_spd(3)), S(_spd(3, batch=(2,))), S(_f64(_spd(2))), S(lambda T: -T.eye(3)),
                      S(lambda T: T.zeros(2, 2)), E(_i(2, 2))], rtol=1e-4, atol=1e-5),
    OpInfo("slogdet", [S(_r(3, 3)), S(_f64(_r(2, 2))), S(lambda T: T.zeros(2, 2)), S(_r(2, 3, 3)),
                       # 1x1 complex: logabsdet is real (found by tools/fuzz.py)
                       S(np.array([[[0.08 - 0.46j]], [[-1.4 + 1j]]], dtype=np.complex64))], rtol=1e-4, atol=1e-5),
    OpInfo("inverse", [S(_spd(3)), S(_spd(2, batch=(3,))), S(_f64(_spd(4))), S(_r(1, 1) + 3),
                       # complex: through the real 2n x 2n form (MindSpore has no complex inverse kernel)
                       S(_spd(3) + 1j * _r(3, 3)), S((_spd(2, batch=(2,)) - 0.5j * _r(2, 2, 2)).astype(np.complex128)),
                       S(_r(1, 1) + 3 + 1j), EType(lambda T: T.zeros(2, 2, dtype=T.complex64)),
                       # torch names the zero pivot of its LU factorisation, which MindSpore does not report
                       EType(lambda T: T.zeros(2, 2)), EType(lambda T: T.stack([T.eye(2), T.zeros(2, 2)])),
                       E(_i(2, 2)), E(_r(2, 3)), E(lambda T: T.ones(2, 2, dtype=T.float16))], rtol=1e-4, atol=1e-5),
    OpInfo("einsum", [
        S("ij,jk->ik", _r(2, 3), _r(3, 4)), S("bij,bjk->bik", _r(2, 2, 3), _r(2, 3, 4)),
        S("bhqd,bhkd->bhqk", _r(2, 2, 3, 4), _r(2, 2, 5, 4)), S("ii->i", _r(3, 3)), S("ii", _r(3, 3)),
        S("i,j->ij", _r(3), _r(2)), S("...ij->...ji", _r(2, 3, 4)), S("ijk->", _r(2, 3, 4)), S("ij,jk", _r(2, 3), _r(3, 4)),
        S("ba,Ab", _r(2, 3), _r(4, 2)), S("...ij,...jk->...ik", _r(5, 1, 2, 3), _r(7, 3, 4)),
        S("...ij,...jk", _r(5, 2, 3), _r(3, 4)), S("ij,jk,kl->il", _r(2, 3), _r(3, 4), _r(4, 5)),
        S("iij->ij", _r(2, 2, 3)), S("i,i->i", _r(3), _r(3, seed=1)), S("ij->j", _r(2, 3)),
        S("bn,anm,bm->ba", _r(2, 3), _r(4, 3, 5), _r(2, 5)), S(" i j , j k -> i k ", _r(2, 3), _r(3, 4)),
        S("ij,jk->ik", _r(2, 1), _r(3, 2)), S(",i->i", lambda T: T.tensor(2.0), _r(3)), S("...->...", _r(2)),
        S("ij,jk", _i(2, 3), _i(3, 2)), S("ij,jk", [_r(2, 3), _r(3, 2)]), S("ij,ij->", _f64(_r(2, 3)), _f64(_r(2, 3))),
        S("bij,bkj->bik", _r(1, 3, 2), _r(4, 5, 2)),
        E("ij,jk->ik", _r(2, 3)), E("ij->ik", _r(2, 3)), E("ij,jk->ik", _r(2, 3), _r(4, 2)), E("i1->i", _r(2)),
        E("ijk->", _r(2, 3)), E("ij->ii", _r(2, 2)), E("...i...->i", _r(2, 2)), E("i,i->", _r(3), _f64(_r(3))),
        E("ij,jk", lambda T: T.ones(2, 3, dtype=T.bool), lambda T: T.ones(3, 2, dtype=T.bool)),
        E("i,i,i->i", _r(2), _r(2)),
    ], method=False, rtol=1e-5, atol=1e-5),
    OpInfo("einsum", [S("ij,jk->ik", _bf16(_r(2, 8)), _bf16(_r(8, 3)))], method=False, rtol=1e-2, atol=1e-2),
    OpInfo("einsum", [S(_r(2, 3), [0, 1], _r(3, 2), [1, 2], [0, 2]), S(_r(3, 3), [0, 0])], method=False,
           call=lambda T, *a: T.einsum(*a)),
    OpInfo("matrix_exp", [S(_r(3, 3)), S(_r(2, 4, 4) * 3), S(_r(3, 3).astype(np.float64) * 5),
                          E(lambda T: T.ones(3, 3, dtype=T.long)), E(_r(2, 3))], rtol=1e-4, atol=1e-5),
    OpInfo("vander", [S(_r(3)), S(_r(3), 2, True), S(_r(4), increasing=True), S(_i(4)), S(_r(3), 0), S(_r(3), 1),
                      S(lambda T: T.tensor([1, 2, 3], dtype=T.uint8)), S(lambda T: T.tensor([True, False])),
                      E(_r(2, 2)), E(_r(3), -1)], method=False, grad=False),   # torch 2.13's own vander backward fails (in-place cumprod)
]
