"""torch.autograd.functional against torch: values, output structure (Tensor vs tuple, nesting),
requires_grad of the results, gradients through create_graph=True results, and the exceptions (type and
message) of the argument checks and of strict mode."""
import numpy as np
import pytest
import torch

import mstorch
from harness import check, run, Raised

A = np.array([[0.5, -1.2, 0.3], [1.1, 0.7, -0.4]], dtype=np.float32)
B = np.array([0.2, -0.6, 1.5], dtype=np.float32)
C = np.array([0.9, 0.4], dtype=np.float32)


def structure(res):
    """('T', requires_grad) per tensor, tuples kept: the exact shape of what the API returned."""
    if isinstance(res, tuple):
        return tuple(structure(r) for r in res)
    if isinstance(res, (torch.Tensor, mstorch.Tensor)):
        return ("T", res.requires_grad)
    return type(res).__name__


def with_structure(fn):
    def wrapped(T):
        res = fn(T)
        return res, structure(res)
    return wrapped


def same_error(fn):
    ref, got = run(fn, torch), run(fn, mstorch)
    assert isinstance(ref, Raised), f"torch did not raise: {ref!r}"
    assert isinstance(got, Raised), f"mstorch did not raise: {got!r}"
    assert (type(got.exc).__name__, str(got.exc)) == (type(ref.exc).__name__, str(ref.exc))


def AF(T):
    return T.autograd.functional


# --- vjp ------------------------------------------------------------------------------------------

VJP = {
    "reduce_dim": lambda T: AF(T).vjp(lambda a: a.exp().sum(dim=1), T.tensor(A), T.ones(2)),
    "two_inputs": lambda T: AF(T).vjp(lambda a, b: (a * b).tanh(), (T.tensor(A), T.tensor(B)), T.ones(2, 3)),
    "two_outputs": lambda T: AF(T).vjp(lambda a: (a.sin(), a.sum()), T.tensor(B), (T.ones(3), T.tensor(2.0))),
    "scalar_no_v": lambda T: AF(T).vjp(lambda a: (a ** 2).sum(), T.tensor(B)),
    "tuple_of_one": lambda T: AF(T).vjp(lambda a: a * 3, (T.tensor(B),), T.tensor(C[:1].repeat(3))),
    "unused_input": lambda T: AF(T).vjp(lambda a, b: a * 2, (T.tensor(B), T.tensor(C)), T.ones(3)),
    "create_graph": lambda T: AF(T).vjp(lambda a: a.exp() * a, T.tensor(B), T.ones(3), create_graph=True),
    "matmul": lambda T: AF(T).vjp(lambda a, w: a @ w, (T.tensor(A), T.tensor(A).t().contiguous()), T.ones(2, 2)),
}


@pytest.mark.parametrize("name", sorted(VJP))
def test_vjp(name):
    check(with_structure(VJP[name]))


def test_vjp_create_graph_is_differentiable():
    def fn(T):
        x = T.tensor(B, requires_grad=True)
        out, vj = AF(T).vjp(lambda a: a.exp() * a, x, T.ones(3), create_graph=True)
        (vj * T.tensor([1.0, 2.0, 3.0])).sum().backward()
        return out, vj, x.grad
    check(fn)


def test_captured_tensor_is_not_the_input():
    def fn(T):
        x = T.tensor(B)
        return AF(T).jacobian(lambda a: a * x, x), AF(T).vjp(lambda a: (a * x).sum(), x)
    check(with_structure(fn))


# --- jvp ------------------------------------------------------------------------------------------

JVP = {
    "elementwise": lambda T: AF(T).jvp(lambda a: a.exp() * 2, T.tensor(A), T.ones(2, 3)),
    "reduce_dim": lambda T: AF(T).jvp(lambda a: a.exp().sum(dim=1), T.tensor(A), T.tensor(A)),
    "two_in_two_out": lambda T: AF(T).jvp(lambda a, b: (a * b, (a + b).sum()), (T.tensor(B), T.tensor(B[::-1].copy())),
                                           (T.ones(3), T.tensor([1.0, 0.0, -1.0]))),
    "matmul_2d": lambda T: AF(T).jvp(lambda a: a @ a.t(), T.tensor(A), T.ones(2, 3)),
    "matmul_1d": lambda T: AF(T).jvp(lambda a: a @ T.tensor(A).t(), T.tensor(B), T.tensor([1.0, 2.0, 3.0])),
    "scalar_input_no_v": lambda T: AF(T).jvp(lambda a: a.sin() * 3, T.tensor([0.5])),
    "unused_input": lambda T: AF(T).jvp(lambda a, b: a * 2, (T.tensor(B), T.tensor(C)), (T.ones(3), T.ones(2))),
    "create_graph": lambda T: AF(T).jvp(lambda a: a.exp() * a, T.tensor(B), T.ones(3), create_graph=True),
    "create_graph_reduce": lambda T: AF(T).jvp(lambda a: (a * a).sum(dim=1), T.tensor(A), T.ones(2, 3),
                                                create_graph=True),
}


@pytest.mark.parametrize("name", sorted(JVP))
def test_jvp(name):
    check(with_structure(JVP[name]))


# --- jacobian -------------------------------------------------------------------------------------

JAC = {
    "single": lambda T: AF(T).jacobian(lambda a: a.exp() * a.sum(), T.tensor(A)),
    "two_in_two_out": lambda T: AF(T).jacobian(lambda a, b: (a * b, b.sin()), (T.tensor(A), T.tensor(B))),
    "tuple_of_one_in": lambda T: AF(T).jacobian(lambda a: a ** 2, (T.tensor(B),)),
    "tuple_of_one_out": lambda T: AF(T).jacobian(lambda a: (a ** 2,), T.tensor(B)),
    "scalar_out": lambda T: AF(T).jacobian(lambda a: (a ** 3).sum(), T.tensor(B)),
    "reduce_dim": lambda T: AF(T).jacobian(lambda a: a.sum(dim=0), T.tensor(A)),
    "unused_input": lambda T: AF(T).jacobian(lambda a, b: a * 2, (T.tensor(B), T.tensor(C))),
    "create_graph": lambda T: AF(T).jacobian(lambda a: a.exp() * a, T.tensor(B), create_graph=True),
    "output_without_grad": lambda T: AF(T).jacobian(lambda a: (a * 2, T.ones(2)), T.tensor(B)),
    "float64": lambda T: AF(T).jacobian(lambda a: a.tanh(), T.tensor(B, dtype=T.float64)),
}


@pytest.mark.parametrize("name", sorted(JAC))
def test_jacobian(name):
    check(with_structure(JAC[name]))


def test_jacobian_create_graph_is_differentiable():
    def fn(T):
        x = T.tensor(B, requires_grad=True)
        j = AF(T).jacobian(lambda a: a.exp() * a, x, create_graph=True)
        (j * T.arange(9.0).reshape(3, 3)).sum().backward()
        return j, x.grad
    check(fn)


@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_jacobian_vectorized_and_forward_mode(strategy):
    """torch computes these with vmap / forward-mode AD; mstorch with one backward per row: same Jacobian."""
    check(lambda T: AF(T).jacobian(lambda a, b: ((a * b.sum()).exp(), a @ b.T), (T.tensor(B), T.tensor(A)),
                                   vectorize=True, strategy=strategy))
    check(lambda T: AF(T).hessian(lambda a: (a.exp() * a).sum(), T.tensor(B), vectorize=True,
                                  outer_jacobian_strategy=strategy))


# --- hessian / vhp / hvp --------------------------------------------------------------------------

HESS = {
    "hessian_cubic": lambda T: AF(T).hessian(lambda a: (a ** 3).sum(), T.tensor(B)),
    "hessian_two_inputs": lambda T: AF(T).hessian(lambda a, b: (a.sin() * b).sum(), (T.tensor(B), T.tensor(B * 2))),
    "hessian_2d_input": lambda T: AF(T).hessian(lambda a: (a.exp() * a).sum(), T.tensor(A)),
    "hessian_create_graph": lambda T: AF(T).hessian(lambda a: (a ** 3).sum(), T.tensor(B), create_graph=True),
    "hessian_linear_is_zero": lambda T: AF(T).hessian(lambda a: (a * 2).sum(), T.tensor(B)),
    "vhp": lambda T: AF(T).vhp(lambda a: (a ** 3).sum(), T.tensor(B), T.tensor([1.0, -1.0, 0.5])),
    "vhp_two_inputs": lambda T: AF(T).vhp(lambda a, b: (a * b * b).sum(), (T.tensor(B), T.tensor(B * 2)),
                                          (T.ones(3), T.tensor([1.0, 0.0, 2.0]))),
    "vhp_create_graph": lambda T: AF(T).vhp(lambda a: (a.exp() * a).mean(), T.tensor(B), T.ones(3),
                                            create_graph=True),
    "hvp": lambda T: AF(T).hvp(lambda a: (a ** 3).sum(), T.tensor(B), T.tensor([1.0, -1.0, 0.5])),
    "hvp_mean": lambda T: AF(T).hvp(lambda a: (a.exp() * a).mean(), T.tensor(B), T.ones(3)),
    "hvp_two_inputs": lambda T: AF(T).hvp(lambda a, b: (a * b * b).sum(), (T.tensor(B), T.tensor(B * 2)),
                                          (T.ones(3), T.tensor([1.0, 0.0, 2.0]))),
    "hvp_reduce_keepdim": lambda T: AF(T).hvp(lambda a: (a * a).sum(dim=1, keepdim=True).exp().sum(), T.tensor(A),
                                              T.tensor(A)),
    "hessian_reduce_keepdim": lambda T: AF(T).hessian(lambda a: (a * a).sum(1, keepdim=True).exp().sum(), T.tensor(A)),
    "hvp_create_graph": lambda T: AF(T).hvp(lambda a: (a ** 3).sum(), T.tensor(B), T.ones(3), create_graph=True),
    "hvp_scalar_no_v": lambda T: AF(T).hvp(lambda a: (a ** 4).sum(), T.tensor([0.7])),
}


@pytest.mark.parametrize("name", sorted(HESS))
def test_second_order(name):
    check(with_structure(HESS[name]), rtol=1e-5, atol=1e-5)


def test_second_order_through_sum_over_a_dim():
    # MindSpore does not record sum(dim)'s backward completely; mstorch's own formula does
    # (autograd/_higher_order.py)
    check(lambda T: AF(T).hvp(lambda a: (a * a).sum(dim=1).exp().sum(), T.tensor(A), T.tensor(A)),
          rtol=1e-5, atol=1e-5)


def test_hessian_through_vector_matrix_product():
    # a 1-D @ 2-D product: runs as a 2-D MatMul, whose backward records completely
    check(lambda T: AF(T).hvp(lambda a: (a @ T.tensor(A).t()).pow(2).sum(), T.tensor(B), T.ones(3)),
          rtol=1e-5, atol=1e-5)


def test_hessian_through_max_over_a_dim():
    # MindSpore's ReduceMax backward is not recorded completely; mstorch's own formula is
    check(lambda T: AF(T).hvp(lambda a: (a * a).amax(dim=1).exp().sum(), T.tensor(A), T.tensor(A)),
          rtol=1e-5, atol=1e-5)


def test_second_order_through_svdvals():
    # MindSpore's Svd backward is not recorded: real matrices carry torch's svd_backward in recorded ops
    check(lambda T: AF(T).hvp(lambda a: T.linalg.svdvals(a * a).exp().sum(), T.tensor(A), T.tensor(A)),
          rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("what", ["hvp", "hessian"])
def test_second_order_through_det_of_a_singular_matrix(what):
    # torch's det backward switches to an SVD formula at singular matrices, differentiable there
    singular = [[1.0, 2.0], [2.0, 4.0]]
    if what == "hvp":
        check(lambda T: AF(T).hvp(lambda a: T.det(a), T.tensor(singular), T.tensor(singular)))
    else:
        check(lambda T: AF(T).hessian(lambda a: T.det(a), T.tensor(singular)))


# --- argument checks and strict mode: same exception type and message ---------------------------------

ERRORS = {
    "inputs_not_tensor": lambda T: AF(T).vjp(lambda a: a, [1.0]),
    "inputs_tuple_item": lambda T: AF(T).jacobian(lambda a, b: a, (T.ones(2), 3)),
    "outputs_not_tensor": lambda T: AF(T).vjp(lambda a: 3, T.ones(2), T.ones(2)),
    "vjp_v_none_nonscalar": lambda T: AF(T).vjp(lambda a: a * 2, T.ones(2)),
    "vjp_v_wrong_size": lambda T: AF(T).vjp(lambda a: a * 2, T.ones(2), T.ones(3)),
    "vjp_v_wrong_length": lambda T: AF(T).vjp(lambda a: (a, a), T.ones(2), (T.ones(2),)),
    "vjp_v_entry_size": lambda T: AF(T).vjp(lambda a: (a, a), T.ones(2), (T.ones(2), T.ones(3))),
    "vjp_v_single_expected": lambda T: AF(T).vjp(lambda a: a, T.ones(2), (T.ones(2), T.ones(2))),
    "jvp_v_none": lambda T: AF(T).jvp(lambda a: a * 2, T.ones(2)),
    "jvp_v_size": lambda T: AF(T).jvp(lambda a, b: a * b, (T.ones(2), T.ones(2)), (T.ones(2), T.ones(3))),
    "strict_output_no_grad": lambda T: AF(T).vjp(lambda a: T.ones(2), T.ones(2), T.ones(2), strict=True),
    "strict_vjp_independent": lambda T: AF(T).vjp(lambda a, b: a * 2, (T.ones(2), T.ones(2)), T.ones(2),
                                                  strict=True),
    "strict_jvp_independent": lambda T: AF(T).jvp(lambda a, b: a * 2, (T.ones(2), T.ones(2)),
                                                  (T.ones(2), T.ones(2)), strict=True),
    "strict_jvp_reduce_independent": lambda T: AF(T).jvp(lambda a, b: a.sum(dim=0), (T.ones(2, 2), T.ones(2)),
                                                         (T.ones(2, 2), T.ones(2)), strict=True),
    "strict_jacobian_independent": lambda T: AF(T).jacobian(lambda a, b: a * 2, (T.ones(2), T.ones(2)),
                                                            strict=True),
    "strict_jacobian_create_graph_linear": lambda T: AF(T).jacobian(lambda a: a * 2, T.ones(2), strict=True,
                                                                    create_graph=True),
    "strict_hessian_linear": lambda T: AF(T).hessian(lambda a: (a * 2).sum(), T.ones(2), strict=True),
    "strict_vhp_linear": lambda T: AF(T).vhp(lambda a: (a * 2).sum(), T.ones(2), T.ones(2), strict=True),
    "strict_hvp_linear": lambda T: AF(T).hvp(lambda a: (a * 2).sum(), T.ones(2), T.ones(2), strict=True),
    "strict_vhp_independent": lambda T: AF(T).vhp(lambda a, b: (a ** 3).sum(), (T.ones(2), T.ones(2)),
                                                  (T.ones(2), T.ones(2)), strict=True),
    "hessian_nonscalar": lambda T: AF(T).hessian(lambda a: a * 2, T.ones(2)),
    "hessian_tuple_output": lambda T: AF(T).hessian(lambda a: (a.sum(),), T.ones(2)),
    "vhp_nonscalar": lambda T: AF(T).vhp(lambda a: a * 2, T.ones(2), T.ones(2)),
    "hvp_tuple_output": lambda T: AF(T).hvp(lambda a: (a.sum(), a.sum()), T.ones(2), T.ones(2)),
    "hvp_v_none": lambda T: AF(T).hvp(lambda a: a.sum(), T.ones(2)),
    "jacobian_bad_strategy": lambda T: AF(T).jacobian(lambda a: a, T.ones(2), strategy="middle"),
    "jacobian_forward_create_graph": lambda T: AF(T).jacobian(lambda a: a, T.ones(2), strategy="forward-mode",
                                                              create_graph=True),
    "jacobian_forward_strict": lambda T: AF(T).jacobian(lambda a: a, T.ones(2), strategy="forward-mode",
                                                        strict=True),
    "jacobian_forward_not_vectorized": lambda T: AF(T).jacobian(lambda a: a, T.ones(2), strategy="forward-mode"),
    "jacobian_vectorize_strict": lambda T: AF(T).jacobian(lambda a: a * 2, T.ones(2), vectorize=True,
                                                          strict=True),
    "hessian_bad_strategy": lambda T: AF(T).hessian(lambda a: a.sum(), T.ones(2), outer_jacobian_strategy="x"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match(name):
    same_error(ERRORS[name])
