"""torch.autograd.forward_ad: dual tensors (``dual_level``, ``make_dual``, ``unpack_dual``).

MindSpore 2.10's imperative engine has no forward mode, so tangents are not carried op by op. Instead
``make_dual`` returns a tensor that the reverse-mode engine records from (a fresh leaf, or a view of the
primal when the primal itself requires grad), and ``unpack_dual(out)`` computes ``out``'s tangent when it is
asked for, by the double-backward trick: with ``u`` a dummy cotangent that requires grad,
``g_i = (∂out/∂x_i)ᵀ u`` is linear in ``u``, and ``∂/∂u Σ_i <g_i, t_i> = Σ_i J_i t_i`` — the JVP.
Values equal torch's forward mode; what differs (results of dual tensors report ``requires_grad=True``,
ops run under ``no_grad`` lose their tangents) is in docs/known-differences.md.
"""
import sys
from typing import NamedTuple, Optional

from .._tensor import Tensor
from .grad_mode import enable_grad

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]

_current_level = -1
# the dual tensors of the open level: [(dual, tangent, primal required grad)]
_duals = []


def _mt():
    return sys.modules["mstorch"]


def enter_dual_level():
    """Mirrors torch.autograd.forward_ad.enter_dual_level (one level only, as in torch)."""
    global _current_level
    if _current_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _current_level = 0
    return _current_level


def exit_dual_level(*, level=None):
    """Mirrors torch.autograd.forward_ad.exit_dual_level: forgets every tangent of the level."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. "
                           "This is not supported.")
    _duals.clear()
    _current_level = level - 1


def _check_level(level):
    level = _current_level if level is None else level
    if level >= 0 and level != _current_level:
        raise RuntimeError(f"Forward AD level {level} does not exist (the current level is {_current_level})")
    return level


def make_dual(tensor, tangent, *, level=None):
    """Mirrors torch.autograd.forward_ad.make_dual."""
    if _check_level(level) < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, "
            f"this is not supported. Tensor is of size {list(tensor.shape)} while the given forward gradient "
            f"is of size {list(tangent.shape)}.")
    with enable_grad():
        # a view keeps the primal's own backward graph (make_dual is backward differentiable in torch)
        dual = tensor.view_as(tensor) if tensor.requires_grad else tensor.detach().requires_grad_()
    # torch stores the tangent as given (same layout): writes into it before the tangent is read count
    _duals.append((dual, tangent, tensor.requires_grad))
    return dual


class UnpackedDualTensor(NamedTuple):
    """Mirrors torch.autograd.forward_ad.UnpackedDualTensor."""
    primal: Tensor
    tangent: Optional[Tensor]


def _tangent_of(tensor):
    for dual, tangent, _ in _duals:
        if dual is tensor:
            return tangent
    if not tensor.requires_grad or not _duals:
        return None
    mt = _mt()
    duals = [d for d, _, _ in _duals]
    with enable_grad():
        u = mt.zeros_like(tensor).requires_grad_()
        grads = mt.autograd.grad(tensor, duals, u, create_graph=True, retain_graph=True, allow_unused=True)
        terms = [(g * t.to(g.dtype)).sum() for g, (_, t, _) in zip(grads, _duals) if g is not None]
        if not terms:
            return None
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        if not total.requires_grad:   # a gradient independent of u: the Jacobian is zero
            return mt.zeros_like(tensor)
        (jvp,) = mt.autograd.grad(total, u, allow_unused=True, materialize_grads=True)
    return jvp.detach()


def unpack_dual(tensor, *, level=None):
    """Mirrors torch.autograd.forward_ad.unpack_dual: (primal, tangent); the tangent is None where ``tensor``
    does not depend on a dual tensor of the level."""
    if _check_level(level) < 0:
        return UnpackedDualTensor(tensor, None)
    tangent = _tangent_of(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    # the primal keeps a backward graph only towards primals that required grad themselves
    keeps_graph = any(needs for _, _, needs in _duals)
    return UnpackedDualTensor(tensor if keeps_graph else tensor.detach(), tangent)


class dual_level:
    """Mirrors torch.autograd.forward_ad.dual_level (a context manager and decorator)."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper
