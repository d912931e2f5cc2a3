"""torch.autograd.gradcheck / gradgradcheck and torch.autograd.forward_ad against torch: results, the
numbers in their error messages (Jacobians printed by the check), warnings and argument errors."""
import re
import warnings

import pytest

from harness import NAMESPACES, rand


def _outcome(fn, T):
    """(result or (exception type, message), warning messages) of fn(T)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(T)
        except Exception as exc:  # noqa: BLE001 - the exception is the result
            # full-precision floats in a message to 12 digits (a dot product may differ in its last bit)
            result = (type(exc).__name__, re.sub(r"-?\d+\.\d{13,}", lambda m: f"{float(m.group()):.12g}", str(exc)))
    return _plain(result), [str(w.message) for w in caught if "gradcheck" in str(w.message) or "Input #" in str(w.message)]


def _plain(x):
    if isinstance(x, (tuple, list)):
        return tuple(_plain(v) for v in x)
    if hasattr(x, "detach"):
        return ("tensor", repr(x.detach()))
    return x


def same_as_torch(fn):
    ref = _outcome(fn, NAMESPACES["torch"])
    got = _outcome(fn, NAMESPACES["mstorch"])
    assert got == ref, f"\ntorch:   {ref}\nmstorch: {got}"
    return ref


def _inputs(T, *shapes, dtype="float64"):
    return tuple(T.tensor(rand(*s, dtype=dtype, seed=i)).requires_grad_() for i, s in enumerate(shapes))


def _bad_function(T, factor, detach=False):
    class Scaled(T.autograd.Function):
        """x * x with a backward scaled by ``factor`` (1.0 is the right one); ``detach``: a backward that is
        right but not differentiable in x (the second derivative is lost)."""
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * (a.detach() if detach else a) * (2 * factor)
    return Scaled.apply


def _unscaled(T):
    class Unscaled(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.sin()

        @staticmethod
        def backward(ctx, g):
            return T.ones_like(g)
    return Unscaled.apply


CASES = {
    "ok": lambda T: T.autograd.gradcheck(lambda a, b: (a * b).sin(), _inputs(T, (3,), (3,))),
    "ok_fast": lambda T: T.autograd.gradcheck(lambda a, b: a @ b, _inputs(T, (2, 3), (3, 4)), fast_mode=True),
    "ok_forward": lambda T: T.autograd.gradcheck(lambda a: a.exp().sum(0), _inputs(T, (2, 3)), check_forward_ad=True),
    "ok_forward_only": lambda T: T.autograd.gradcheck(lambda a: a.tanh(), _inputs(T, (4,)), check_forward_ad=True,
                                                      check_backward_ad=False),
    "ok_forward_fast": lambda T: T.autograd.gradcheck(lambda a: a.tanh() * 3, _inputs(T, (4,)), fast_mode=True,
                                                      check_forward_ad=True),
    "ok_multi_out": lambda T: T.autograd.gradcheck(lambda a, k: (a * k, a.sum(), a.argmax()),
                                                   (_inputs(T, (3,))[0], 2.0)),
    "ok_non_diff_input": lambda T: T.autograd.gradcheck(lambda a, b: a * b, (_inputs(T, (3,))[0],
                                                                            T.tensor(rand(3, dtype="float64")))),
    "no_diff_outputs": lambda T: T.autograd.gradcheck(lambda a: a.detach() * 2, _inputs(T, (3,))),
    "wrong_grad": lambda T: T.autograd.gradcheck(_bad_function(T, 0.5), _inputs(T, (3,))),
    "wrong_grad_2d": lambda T: T.autograd.gradcheck(lambda a, b: _bad_function(T, 2.0)(a) + b,
                                                    _inputs(T, (2, 2), (2, 2))),
    "wrong_grad_quiet": lambda T: T.autograd.gradcheck(_bad_function(T, 0.5), _inputs(T, (3,)),
                                                       raise_exception=False),
    "wrong_grad_fast": lambda T: T.autograd.gradcheck(_bad_function(T, 0.5), _inputs(T, (3,)), fast_mode=True),
    "right_function": lambda T: T.autograd.gradcheck(_bad_function(T, 1.0), _inputs(T, (3,))),
    "loose_tolerance": lambda T: T.autograd.gradcheck(_bad_function(T, 1.001), _inputs(T, (3,)), rtol=1e-2),
    "not_mul_by_grad_output": lambda T: T.autograd.gradcheck(
        _unscaled(T), (T.zeros(1, dtype=T.float64, requires_grad=True),)),   # sin'(0) = 1: the Jacobian is right
    "none_requires_grad": lambda T: T.autograd.gradcheck(lambda a: a * 2, (T.ones(3, dtype=T.float64),)),
    "float32_warns": lambda T: T.autograd.gradcheck(lambda a: a * 2, _inputs(T, (3,), dtype="float32"),
                                                    atol=1e-2, rtol=1e-2),
    "expanded_input": lambda T: T.autograd.gradcheck(
        lambda a: a * 2, (T.ones(1, dtype=T.float64).expand(3).requires_grad_(),)),
    "no_mode": lambda T: T.autograd.gradcheck(lambda a: a, _inputs(T, (3,)), check_backward_ad=False),
    "gradgrad": lambda T: T.autograd.gradgradcheck(lambda a, b: (a * b).sin() * a, _inputs(T, (3,), (3,)),
                                                   _inputs(T, (3,), (3,))[:1]),
    "gradgrad_random_outputs": lambda T: (T.manual_seed(0), T.autograd.gradgradcheck(
        lambda a: a.pow(3).sum(0), _inputs(T, (2, 3))))[1],
    "gradgrad_right": lambda T: T.autograd.gradgradcheck(lambda a: _bad_function(T, 1.0)(a) * a, _inputs(T, (3,)),
                                                         _inputs(T, (3,))[:1]),
    "gradgrad_wrong": lambda T: T.autograd.gradgradcheck(_bad_function(T, 1.0, detach=True), _inputs(T, (3,)),
                                                         _inputs(T, (3,))[:1]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    same_as_torch(CASES[name])


def test_wrong_grad_message_shows_the_jacobians():
    """A check that cannot pass: the message names both Jacobians (guards the comparison above)."""
    kind, message = same_as_torch(CASES["wrong_grad"])[0]
    assert kind == "GradcheckError"
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:tensor(")


def _dual(T, f, *shapes):
    fw = T.autograd.forward_ad
    xs = _inputs(T, *shapes)
    ts = tuple(T.tensor(rand(*s, dtype="float64", seed=10 + i)) for i, s in enumerate(shapes))
    with fw.dual_level() as level:
        duals = [fw.make_dual(x.detach(), t) for x, t in zip(xs, ts)]
        out = f(*duals)
        primal, tangent = fw.unpack_dual(out)
        inside = (level, primal, tangent, fw.unpack_dual(duals[0]).tangent, fw.unpack_dual(xs[0]).tangent)
    return inside + (fw.unpack_dual(out).tangent,)


DUAL = {
    "unary": lambda T: _dual(T, lambda a: a.sin() * a.exp(), (4,)),
    "binary": lambda T: _dual(T, lambda a, b: (a @ b).tanh(), (2, 3), (3, 2)),
    "reduce": lambda T: _dual(T, lambda a: a.softmax(-1).sum(0), (3, 4)),
    "independent": lambda T: _dual(T, lambda a: T.ones(3, dtype=T.float64) * 2, (3,))[2],
    "no_level": lambda T: T.autograd.forward_ad.make_dual(T.ones(2), T.ones(2)),
    "unpack_no_level": lambda T: T.autograd.forward_ad.unpack_dual(T.ones(2)),
    "int_primal": lambda T: (T.autograd.forward_ad.enter_dual_level(), T.autograd.forward_ad.make_dual(
        T.arange(3), T.ones(3))),
    "int_tangent": lambda T: (T.autograd.forward_ad.enter_dual_level(), T.autograd.forward_ad.make_dual(
        T.ones(3), T.arange(3))),
    "size_mismatch": lambda T: (T.autograd.forward_ad.enter_dual_level(), T.autograd.forward_ad.make_dual(
        T.ones(3), T.ones(2))),
    "nested": lambda T: (T.autograd.forward_ad.enter_dual_level(), T.autograd.forward_ad.enter_dual_level()),
    "exit_wrong": lambda T: T.autograd.forward_ad.exit_dual_level(level=3),
    "grad_through_primal": lambda T: _primal_grad(T),
}


def _primal_grad(T):
    fw = T.autograd.forward_ad
    x = T.tensor(rand(3, dtype="float64")).requires_grad_()
    with fw.dual_level():
        out = (fw.make_dual(x, T.ones(3, dtype=T.float64)) ** 3).sum()
        primal, tangent = fw.unpack_dual(out)
        primal.backward()
    return primal, tangent, x.grad


@pytest.mark.parametrize("name", sorted(DUAL))
def test_forward_ad(name):
    try:
        same_as_torch(DUAL[name])
    finally:
        for T in NAMESPACES.values():   # the cases that raise leave a level open
            while T.autograd.forward_ad._current_level >= 0:
                T.autograd.forward_ad.exit_dual_level()
