"""torch.optim.Adadelta: torch's single-tensor update, written in place through optim/_fast.py.

Also the flag checks shared with asgd.py and rprop.py (capturable, differentiable, foreach, complex)."""
import numpy as np

from .. import _ms_private as P
from .._tensor import Tensor
from . import _fast
from .optimizer import Optimizer

_KEYS = ("step", "square_avg", "acc_delta")


def _init(p, state):
    refuse_complex("Adadelta", p)
    state["step"] = _fast.step_tensor()
    state["square_avg"] = _fast.zeros_state(p)
    state["acc_delta"] = _fast.zeros_state(p)


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, capturable=capturable,
                        foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    _group_flags = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def __setstate__(self, state):
        super().__setstate__(state)
        steps_to_tensors(self)

    def _update(self):
        step = _fast.Step(self)
        for group in self.param_groups:
            # torch's multi-tensor path refuses differentiable before looking at the parameters
            check_group_flags(self, group, _init, xla=False, foreach_even_without_grads=True)
            lr, rho, eps = _fast.scalar(group["lr"]), group["rho"], group["eps"]
            wd, maximize = _fast.scalar(group["weight_decay"]), group["maximize"]
            for p in group["params"]:
                got = step.take(p, _KEYS, _init)
                if got is None:
                    continue
                X, param, grad, (step_t, square_avg, acc_delta) = got
                step_t += 1
                if maximize:
                    grad = X.neg(grad)
                # each operation rounded on its own: torch's sqrt (MKL) is not correctly rounded, so
                # Adadelta cannot be bit-exact, and emulating torch's fused multiply-adds here would cost
                # ~40% of the step for a few ulps
                if wd != 0:
                    grad = X.add(grad, param, wd)
                X.mul_(square_avg, rho)
                X.addcmul_(square_avg, grad, grad, 1 - rho)
                std = X.sqrt_(X.add(square_avg, eps))
                delta = X.sqrt_(X.add(acc_delta, eps))
                X.div_(delta, std)
                X.mul_(delta, grad)
                X.mul_(acc_delta, rho)
                X.addcmul_(acc_delta, delta, delta, 1 - rho)
                X.add_(param, delta, -lr)
        step.finish()


# --- shared by Adadelta, ASGD and Rprop ----------------------------------------------------------

_CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone"]


def fma_add(X, a, b, alpha, out=None):
    """torch's ``a.add(b, alpha=alpha)`` (into ``out`` when given): its vectorised CPU kernel is a fused
    multiply-add, which float64 reproduces for float32 host arrays (the float32 product is exact there)."""
    if X is _fast.HostOps and a.dtype == np.float32:
        prod = np.multiply(b, float(np.float32(alpha)), dtype=np.float64)
        if out is None:
            return np.add(a, prod, dtype=np.float64).astype(np.float32)
        np.add(a, prod, out=out, dtype=np.float64, casting="unsafe")
        return out
    if out is None:
        return X.add(a, b, alpha)
    return X.add_(out, b, alpha) if out is a else X.copy_(out, X.add(a, b, alpha))


def refuse_complex(name, p):
    if p.is_complex():
        raise NotImplementedError(f"torch.optim.{name} on complex parameters (torch updates them as real pairs) "
                                  "is not supported by mstorch")


def steps_to_tensors(opt, keys=("step",)):
    """torch's ``__setstate__``: per-parameter counters saved as Python numbers become float32 0-d tensors."""
    for group in opt.param_groups:
        for p in group["params"]:
            st = opt.state.get(p)
            if st:
                for k in keys:
                    if not isinstance(st[k], Tensor):
                        st[k] = _fast.step_tensor(float(st[k]))


def check_group_flags(opt, group, init, xla=True, foreach_even_without_grads=False,
                      what="params and state_steps"):
    """What torch raises on CPU for ``capturable=True`` and ``differentiable=True``, in its order.

    ``xla``: whether torch's capturable message lists 'xla'; ``foreach_even_without_grads``: torch's
    multi-tensor path refuses ``differentiable`` before checking that any parameter has a gradient."""
    capturable, differentiable = group["capturable"], group["differentiable"]
    if not (capturable or differentiable):
        return
    with_grad = [p for p in group["params"] if P.grad(p._ms) is not None]
    if differentiable and group["foreach"] and (with_grad or foreach_even_without_grads):
        raise AssertionError("_foreach ops don't support autograd")
    if capturable and with_grad:
        for p in with_grad:   # torch creates the group's state before its device check
            state = opt.state[p]
            if not state:
                init(p, state)
        devices = _CAPTURABLE_DEVICES + (["xla"] if xla else [])
        raise AssertionError(f"If capturable=True, {what} must be on supported devices: {devices}.")
    opt._check_differentiable(group)
