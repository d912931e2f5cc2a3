"""torch.func / torch.vmap against torch: vmap's in_dims/out_dims/randomness/chunk_size and its errors,
grad/grad_and_value/vjp/jvp/jacrev/jacfwd/hessian (nested too), functional_call and stack_module_state
(an ensemble through vmap)."""
import pytest

from harness import check, check_grad, rand, AS_TORCH

X = rand(3, 4)
CASES = {
 "sum": lambda T: T.func.vmap(T.sum)(T.tensor(X)),
 "in_none": lambda T: T.vmap(lambda a, b: a * b, in_dims=(0, None))(T.tensor(X), T.ones(4)),
 "in1": lambda T: T.vmap(lambda a: a * 2, in_dims=1)(T.tensor(X)),
 "out1": lambda T: T.vmap(lambda a: a, out_dims=1)(T.tensor(X)),
 "mismatch": lambda T: T.vmap(lambda a, b: a + b)(T.tensor(X), T.ones(2, 4)),
 "in_dims_none": lambda T: T.vmap(lambda a: a, in_dims=None)(T.tensor(X)),
 "ret_int": lambda T: T.vmap(lambda a: 1)(T.tensor(X)),
 "rand_err": lambda T: T.vmap(lambda a: T.rand(2))(T.tensor(X)),
 "rand_same": lambda T: (T.manual_seed(0), T.vmap(lambda a: a + T.rand(4), randomness="same")(T.tensor(X)), T.rand(2))[1:],
 "in2": lambda T: T.vmap(lambda a: a, in_dims=2)(T.tensor(X)),
 "chunk0": lambda T: T.vmap(lambda a: a, chunk_size=0)(T.tensor(X)),
 "chunk2": lambda T: T.vmap(lambda a: a.exp(), chunk_size=2)(T.tensor(X)),
 "bogus": lambda T: T.vmap(lambda a: a, randomness="bogus")(T.tensor(X)),
 "struct": lambda T: T.vmap(lambda a: a, in_dims=(0, 0))(T.tensor(X)),
 "dict": lambda T: T.vmap(lambda d: d["a"] * 2)({"a": T.tensor(X)}),
 "scalar": lambda T: T.vmap(lambda a: a)(T.tensor(1.)),
 "nested": lambda T: T.vmap(T.vmap(lambda a: a.sum()))(T.tensor(rand(2, 3, 4))),
 "tuple_out": lambda T: T.vmap(lambda a: (a.sum(), a.max()))(T.tensor(X)),
 "out_none": lambda T: T.vmap(lambda a: (a.sum(), 1), out_dims=(0, None))(T.tensor(X)),
 "mm": lambda T: T.vmap(T.mv, in_dims=(None, 0))(T.tensor(rand(5, 4)), T.tensor(X)),
 "grad": lambda T: T.func.grad(lambda a: (a ** 2).sum())(T.tensor(X)),
 "grad_nonscalar": lambda T: T.func.grad(lambda a: a ** 2)(T.tensor(X)),
 "grad_aux": lambda T: T.func.grad(lambda a: ((a ** 2).sum(), a.mean()), has_aux=True)(T.tensor(X)),
 "grad_aux_bad": lambda T: T.func.grad(lambda a: (a ** 2).sum(), has_aux=True)(T.tensor(X)),
 "grad_argnums": lambda T: T.func.grad(lambda a, b: (a * b.sin()).sum(), argnums=(0, 1))(T.tensor(X), T.tensor(X)),
 "grad_argnum_bad": lambda T: T.func.grad(lambda a: (a ** 2).sum(), argnums=1)(T.tensor(X)),
 "grad_float": lambda T: T.func.grad(lambda a: a.sum())(3.0),
 "gav": lambda T: T.func.grad_and_value(lambda a: (a ** 3).sum())(T.tensor(X)),
 "grad_grad": lambda T: T.func.grad(T.func.grad(lambda a: (a ** 3).sum()))(T.tensor(2.)),
 "vmap_grad": lambda T: T.vmap(T.func.grad(lambda a: (a.sin() * a).sum()))(T.tensor(X)),
 "vjp": lambda T: (lambda r: (r[0], r[1](T.ones(3, 4))))(T.func.vjp(lambda a: a.exp() * 2, T.tensor(X))),
 "jvp": lambda T: T.func.jvp(lambda a: a.exp() * a, (T.tensor(X),), (T.ones(3, 4),)),
 "jacrev": lambda T: T.func.jacrev(lambda a: a.sin() @ T.ones(4, 2))(T.tensor(X)),
 "jacfwd2": lambda T: T.func.jacfwd(lambda a, b: (a * b).sum(0), argnums=(0, 1))(T.tensor(X), T.tensor(X)),
 "hessian": lambda T: T.func.hessian(lambda a: (a.sin() * a).sum())(T.tensor(rand(3))),
 "fcall": lambda T: T.func.functional_call(T.nn.Linear(2, 2), {"weight": T.ones(2, 2), "bias": T.zeros(2)}, T.ones(1, 2)),
 "fcall_strict": lambda T: T.func.functional_call(T.nn.Linear(2, 2), {"weight": T.ones(2, 2)}, (T.ones(1, 2),), strict=True),
 "fcall_dup": lambda T: T.func.functional_call(T.nn.Linear(2, 2), ({"weight": T.ones(2, 2)}, {"weight": T.ones(2, 2)}), (T.ones(1, 2),)),
 "fcall_restore": lambda T: (lambda m: (T.func.functional_call(m, {"weight": T.ones(2, 2)}, (T.ones(1, 2),)).shape, m.weight.shape, type(m.weight).__name__))(T.nn.Linear(2, 2)),
 "stack_state": lambda T: (T.manual_seed(0), T.func.stack_module_state([T.nn.Linear(2, 3), T.nn.Linear(2, 3)]))[1],
 "ensemble": lambda T: (T.manual_seed(0), (lambda ms: (lambda p, b: T.vmap(lambda pp, bb, x: T.func.functional_call(ms[0], (pp, bb), (x,)), in_dims=(0, 0, None))(p, b, T.ones(4, 2)))(*T.func.stack_module_state(ms)))([T.nn.Linear(2, 3), T.nn.Linear(2, 3)]))[1],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_func(case):
    check(CASES[case], raises=AS_TORCH)


def test_gradients_flow_through_vmap_and_grad():
    check_grad(lambda T, a: T.vmap(lambda r: (r.sin() * r).sum())(a), [X])
    check_grad(lambda T, a: T.func.grad(lambda r: (r.sin() * r).sum())(a), [X])
