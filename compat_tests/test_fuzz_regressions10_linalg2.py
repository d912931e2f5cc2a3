"""Regression tests against torch for linear-algebra classes the differential fuzzer found (issue 18, tenth
batch, second part): cdist's matrix-product path and empty feature dimension, triangular solves with
inf/NaN, complex addmv/addmm scaling, addmv's empty-matrix shortcut, einsum's size-1 contractions."""
import math

import numpy as np
import pytest

from harness import check, check_grad

inf, nan = math.inf, math.nan


def ev(src):
    return lambda T: eval(src, {"T": T, "inf": inf, "nan": nan, "complex": complex})


# --- cdist -------------------------------------------------------------------------------------

@pytest.mark.parametrize("src", [
    # no coordinates: every distance is 0 (p = inf took a maximum over nothing)
    "T.cdist(T.zeros((1, 1, 0)), T.zeros((1, 1, 0))[:, :, ::2], p=inf)",
    "T.cdist(T.zeros((2, 3, 0)), T.zeros((2, 1, 0)), p=1.5)",
    # more than 25 rows with p = 2: torch's matrix-product path, which has half kernels and keeps its
    # inf/NaN pattern (inf * subnormal, a float32 product that overflows)
    "T.cdist(T.tensor([[0.1, inf], [1.6484375, inf]] + [[0.5, -1.25]] * 28, dtype=T.bfloat16), "
    "T.tensor([[1.5859375, -9.2e-41], [1.078125, 3.3895313892515355e+38], [0.0, 0.5]] * 9, dtype=T.bfloat16))",
    "T.cdist(T.arange(60.).reshape(30, 2).half() / 7, T.arange(8.).reshape(4, 2).half())",
    "T.cdist(T.arange(60.).reshape(30, 2).double() / 7, T.arange(8.).reshape(4, 2).double() * 3)",
    "T.cdist(T.arange(12.).reshape(6, 2).double() / 7, T.arange(8.).reshape(4, 2).double(), "
    "compute_mode='use_mm_for_euclid_dist')",
])
def test_cdist(src):
    check(ev(src), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("src", [
    "T.cdist(T.ones(3, 4), T.ones(2, 4), compute_mode='bad')",
    "T.cdist(T.ones(3, 4, dtype=T.float16), T.ones(2, 4, dtype=T.float16))",
    "T.cdist(T.ones(30, 4, dtype=T.bfloat16), T.ones(2, 4, dtype=T.bfloat16), p=1)",
])
def test_cdist_raises(src):
    check(ev(src), raises=True)


def test_cdist_mm_grad():
    rng = np.random.RandomState(0)
    x1, x2 = rng.standard_normal((2, 30, 3)), rng.standard_normal((1, 4, 3))
    x2[0, 0] = x1[0, 3]   # (a zero distance: torch's subgradient 0)
    check_grad(lambda T, a, b: T.cdist(a, b), [x1, x2])


# --- triangular solves with inf/NaN --------------------------------------------------------------

@pytest.mark.parametrize("src", [
    "T.triangular_solve(T.tensor([[[complex(-1.3, -1.48)], [complex(3.4e38, -1.07)], [complex(-1.1, 0.63)]], "
    "[[complex(inf, 1.23)], [complex(nan, -0.66)], [complex(-0.3, 0.98)]]]), "
    "T.tensor([[complex(-0.9, 4.5), complex(-0.6, -0.37), complex(-inf, 0.28)], "
    "[complex(4.0, 0.83), complex(4.3, -0.08), complex(1.3, 2.7)], "
    "[complex(-0.6, 3.18), complex(2.3, 1.63), complex(inf, -0.42)]]))",
    "T.linalg.solve_triangular(T.tensor([[complex(inf, -0.42)]]), T.tensor([[complex(-1.1, 0.63)]]), upper=True)",
    "T.linalg.solve_triangular(T.tensor([[complex(2.04, 0.65)]]), T.tensor([[complex(0, inf)]]), upper=True)",
    "T.linalg.solve_triangular(T.tensor([[complex(2, 1), complex(inf, 0)], [0, complex(1, 1)]]), "
    "T.tensor([[complex(1, 0), 1], [complex(0, 0), 1]]), upper=True)",
    "T.linalg.solve_triangular(T.tensor([[2., 1, 3], [0, 1.5, 1], [0, 0, inf]]), T.tensor([[1.], [inf], [0]]), "
    "upper=True)",
    "T.linalg.solve_triangular(T.tensor([[2., 0], [inf, 1]]), T.tensor([[0.], [1]]), upper=False)",
    "T.linalg.solve_triangular(T.tensor([[nan, 0], [3., 1]]), T.tensor([[1.], [2]]), upper=False, "
    "unitriangular=True)",
    "T.linalg.solve_triangular(T.tensor([[complex(nan, 1), 0], [complex(3, inf), 1]]), "
    "T.tensor([[complex(1, 1), 2], [complex(2, 0), 1]]), upper=False, unitriangular=True)",
])
def test_triangular_solve_nonfinite(src):
    check(ev(src), rtol=1e-4, atol=1e-5)


# --- complex addmv / addmm: alpha and beta scale as plain complex products --------------------------

@pytest.mark.parametrize("src", [
    "T.addmv(T.tensor([complex(inf, -1.68), complex(-1.034, -1.09)]), "
    "T.tensor([[complex(0.3, -0.66), complex(1e-45, 0.47), complex(-0.3, 0.18)], "
    "[complex(-0.5, 0.73), complex(-0.4, 0.18), complex(-0.1, 0.97)]]), "
    "T.tensor([complex(-1.892, 1.06), complex(0.0, 0.58), complex(-0.34, 0.81)]), out=T.zeros(0, dtype=T.complex64))",
    "T.addmv(T.tensor([complex(inf, -1.68), complex(-1.0, -1.0)]), "
    "T.tensor([[complex(0.3, -0.66), complex(1, 0.47)], [complex(-0.5, 0.73), complex(-0.4, 0.18)]]), "
    "T.tensor([complex(1, 1), complex(2, 0.5)]), alpha=2)",
    "T.tensor([[complex(-0.3, 2.47)]]).addmm_(T.tensor([[complex(-inf, -2.35), complex(-0.7, 0.86), "
    "complex(0.0, -1.27)]]), T.tensor([[complex(1e+30, 2.88)], [complex(1e-45, -3.38)], [complex(1.537, -2.01)]]), "
    "alpha=2)",
])
def test_complex_scaling(src):
    check(ev(src), rtol=1e-4, atol=1e-4)


# --- addmv: torch's checks and its empty-matrix shortcut (beta * input in input's shape) --------------

@pytest.mark.parametrize("src", [
    "T.addmv(T.tensor([-2.40625], dtype=T.bfloat16), T.zeros((4, 0), dtype=T.bfloat16), "
    "T.tensor([-1.0546875], dtype=T.bfloat16)[1:])",
    "T.addmv(T.tensor([0.1]), T.zeros((0, 2)), T.tensor([-0.203, -1.824]), out=T.zeros(0))",
    "T.addmv(T.tensor(2.), T.zeros(4, 0), T.zeros(0), beta=0.5)",
    "T.addmv(T.tensor([2.]), T.zeros(4, 0), T.zeros(0), beta=0)",
    "T.addmv(T.tensor([2], dtype=T.int64), T.zeros(4, 0, dtype=T.int64), T.zeros(0, dtype=T.int64), beta=3)",
])
def test_addmv_empty(src):
    check(ev(src))


@pytest.mark.parametrize("src", [
    "T.addmv(T.tensor(2.), T.zeros(4, 1), T.zeros(3))",
    "T.addmv(T.zeros(2, 2), T.zeros(4, 1), T.zeros(3))",
    "T.addmv(T.zeros(3), T.zeros(4, 3), T.zeros(3, dtype=T.float64))",
    "T.tensor([True, False]).addmv(T.zeros((4, 0), dtype=T.bool), T.tensor([False])[1:])",
])
def test_addmv_raises(src):
    check(ev(src), raises=True)


# --- einsum: a summed label of size 1 in one operand (torch sums the other first: int64) ---------------

@pytest.mark.parametrize("src", [
    "T.einsum('ij,jk,kl->il', T.tensor([[1, -2]], dtype=T.int8), T.tensor([[-1, -1]], dtype=T.int8), "
    "T.tensor([[2, -4]], dtype=T.int8))",
    "T.einsum('ij,jk->ik', T.ones(2, 1, dtype=T.int8), T.ones(1, 3, dtype=T.int8))",
    "T.einsum('ij,jk->ik', T.ones(2, 3, dtype=T.uint8), T.ones(1, 3, dtype=T.uint8))",
    "T.einsum('ij,jk->ik', T.ones(2, 1, dtype=T.bool), T.ones(1, 3, dtype=T.bool))",
    "T.einsum('ij,jk->ik', T.ones(2, 3, dtype=T.bool), T.ones(1, 3, dtype=T.bool))",
    "T.einsum('ij,j->', T.ones(2, 1, dtype=T.int8), T.ones(1, dtype=T.int8))",
    "T.einsum('ij,jk->k', T.ones(2, 1, dtype=T.int8), T.ones(3, 4, dtype=T.int8))",
    "T.einsum('bij,bjk->bik', T.arange(12.).reshape(2, 2, 3), T.arange(4.).reshape(1, 1, 4))",
])
def test_einsum_size1_contraction(src):
    check(ev(src))


def test_einsum_mixed_int_raises():
    check(ev("T.einsum('ij,jk->k', T.ones(2, 3, dtype=T.int8), T.ones(3, 4, dtype=T.int8))"), raises=True)
