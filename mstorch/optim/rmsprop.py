"""torch.optim.RMSprop: torch's single-tensor update (centered, momentum), written in place through
optim/_fast.py."""
from . import _fast
from ._shared import (capturable_error, check_group_flags, check_lr, complex_error, scalar_state, upgrade_scalar_states,
                     with_fma)
from .optimizer import Optimizer

_KEYS = ("step", "square_avg", "momentum_buffer", "grad_avg")


def _init(p, state, group):
    if p.is_complex():
        raise complex_error("RMSprop")
    state["step"] = scalar_state(0.0)
    state["square_avg"] = _fast.zeros_state(p)
    if group["momentum"] > 0:
        state["momentum_buffer"] = _fast.zeros_state(p)
    if group["centered"]:
        state["grad_avg"] = _fast.zeros_state(p)


def _missing(key):
    # torch reads state[key] for a state made before momentum / centered were switched on
    raise KeyError(key)


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    _group_flags = dict(momentum=0, centered=False, foreach=None, maximize=False, differentiable=False, capturable=False)

    def __setstate__(self, state):
        super().__setstate__(state)
        upgrade_scalar_states(self, ("step",))

    def _update(self):
        step = _fast.Step(self)
        for group in self.param_groups:
            check_group_flags(self, group, foreach_refuses_empty=False)
            lr, alpha, eps = _fast.scalar(group["lr"]), group["alpha"], group["eps"]
            wd, momentum, centered = _fast.scalar(group["weight_decay"]), group["momentum"], group["centered"]
            maximize, capturable = group["maximize"], group["capturable"]
            keys = _KEYS[:2] + (_KEYS[2],) * (momentum > 0) + (_KEYS[3],) * bool(centered)

            def init(p, state, group=group):
                _init(p, state, group)
            for p in group["params"]:
                got = step.take(p, keys, init)
                if got is None:
                    continue
                X, param, grad, bufs = got
                X = with_fma(X)
                buf = bufs[2] if momentum > 0 else None
                grad_avg = bufs[-1] if centered else None
                if (momentum > 0 and buf is None) or (centered and grad_avg is None):
                    _missing("momentum_buffer" if momentum > 0 and buf is None else "grad_avg")
                if capturable:
                    raise capturable_error(group, foreach_xla=True)
                if maximize:
                    grad = X.neg(grad)
                _fast.inc(bufs[0])
                if wd != 0:
                    grad = X.add(grad, param, wd)
                square_avg = bufs[1]
                X.mul_(square_avg, alpha)
                X.addcmul_(square_avg, grad, grad, 1 - alpha)
                if centered:
                    X.lerp_(grad_avg, grad, 1 - alpha)
                    avg = X.clone(square_avg)
                    X.addcmul_(avg, grad_avg, grad_avg, -1)
                    X.sqrt_(avg)
                else:
                    avg = X.sqrt(square_avg)
                X.add_(avg, eps)
                if momentum > 0:
                    X.mul_(buf, momentum)
                    X.addcdiv_(buf, grad, avg)
                    X.add_(param, buf, -lr)
                else:
                    X.addcdiv_(param, grad, avg, -lr)
        step.finish()
