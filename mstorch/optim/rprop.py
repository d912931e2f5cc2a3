"""torch.optim.Rprop: torch's single-tensor update, written in place through optim/_fast.py.

torch's ``sign`` is ``(x > 0) - (x < 0)`` (0 for NaN, where NumPy's is NaN), and the step-size factor is
filled in three masked writes in torch's order; both are kept so NaN and zero products act as in torch."""
import numpy as np
import mindspore as ms
from mindspore import ops

from .._tensor import wrap
from . import _fast
from ._shared import check_lr, check_capturable_flags, refuse_complex, steps_to_tensors
from .optimizer import Optimizer

_KEYS = ("step", "prev", "step_size")


def _initializer(lr):
    def init(p, state):
        refuse_complex("Rprop", p)
        state["step"] = _fast.step_tensor()
        state["prev"] = _fast.zeros_state(p)
        g = p.grad
        dt = g._ms.dtype   # MindSpore's fill has no bfloat16 CPU kernel: fill in float32 and round once
        wide = ms.float64 if dt == ms.float64 else ms.float32
        state["step_size"] = wrap(ops.fill(wide, tuple(g.shape), lr).astype(dt))
    return init


def _host_sign(x):
    s = np.greater(x, 0).astype(x.dtype)
    s -= np.less(x, 0)
    return s


def _host_rprop(X, param, grad, prev, step_size, etaminus, etaplus, lo, hi):
    # X rounds each result to a float16/bfloat16 parameter's dtype (the etas too, as torch's sign
    # tensor holds them in that dtype)
    sign = _host_sign(X.mul(grad, prev))
    sign[sign > 0] = etaplus
    sign[sign < 0] = etaminus
    sign[sign == 0] = 1
    sign = X.clone(sign)
    X.mul_(step_size, sign)
    X.clamp_(step_size, lo, hi)
    grad = grad.copy()
    grad[sign == X.clone(np.array([etaminus], sign.dtype))] = 0
    X.addcmul_(param, _host_sign(grad), step_size, -1)
    np.copyto(prev, grad)


def _device_sign(x):
    return ops.sub(ops.gt(x, 0).astype(x.dtype), ops.lt(x, 0).astype(x.dtype))


def _device_rprop(X, param, grad, prev, step_size, etaminus, etaplus, lo, hi):
    dt = grad.dtype

    def const(v):
        return ms.Tensor(v, dt)
    sign = _device_sign(ops.mul(grad, prev))
    sign = ops.where(ops.gt(sign, 0), const(etaplus), sign)
    sign = ops.where(ops.lt(sign, 0), const(etaminus), sign)
    sign = ops.where(ops.equal(sign, 0), const(1), sign)
    X.mul_(step_size, sign)
    X.clamp_(step_size, lo, hi)
    grad = ops.where(ops.equal(sign, const(etaminus)), const(0), grad)
    X.addcmul_(param, _device_sign(grad), step_size, -1)
    X.copy_(prev, grad)


class Rprop(Optimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    _group_flags = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def __setstate__(self, state):
        super().__setstate__(state)
        steps_to_tensors(self)

    def _update(self):
        step = _fast.Step(self)
        for group in self.param_groups:
            init = _initializer(_fast.scalar(group["lr"]))
            check_capturable_flags(self, group, init)
            etaminus, etaplus = group["etas"]
            lo, hi = group["step_sizes"]
            maximize = group["maximize"]
            for p in group["params"]:
                got = step.take(p, _KEYS, init)
                if got is None:
                    continue
                X, param, grad, (step_t, prev, step_size) = got
                step_t += 1
                if maximize:
                    grad = X.neg(grad)
                if issubclass(X, _fast.HostOps):
                    _host_rprop(X, param, grad, prev, step_size, etaminus, etaplus, lo, hi)
                else:
                    _device_rprop(X, param, grad, prev, step_size, etaminus, etaplus, lo, hi)
        step.finish()
