"""torch.optim.Adamax: torch's single-tensor update, written in place through optim/_fast.py."""
from . import _fast
from ._shared import (capturable_error, check_adam_args, check_group_flags, complex_error, scalar_state,
                      upgrade_scalar_states, with_fma)
from .optimizer import Optimizer

_KEYS = ("step", "exp_avg", "exp_inf")


def _init(p, state):
    if p.is_complex():
        raise complex_error("Adamax")
    state["step"] = scalar_state(0.0)
    state["exp_avg"] = _fast.zeros_state(p)
    state["exp_inf"] = _fast.zeros_state(p)


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    _group_flags = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def __setstate__(self, state):
        super().__setstate__(state)
        upgrade_scalar_states(self, ("step",))

    def _update(self):
        step = _fast.Step(self)
        for group in self.param_groups:
            check_group_flags(self, group, foreach_refuses_empty=True)
            beta1, beta2 = (_fast.scalar(b) for b in group["betas"])
            lr, eps, wd = _fast.scalar(group["lr"]), group["eps"], _fast.scalar(group["weight_decay"])
            maximize, capturable = group["maximize"], group["capturable"]
            for p in group["params"]:
                got = step.take(p, _KEYS, _init)
                if got is None:
                    continue
                if capturable:
                    raise capturable_error(group)
                X, param, grad, (step_t, exp_avg, exp_inf) = got
                X = with_fma(X)
                if maximize:
                    grad = X.neg(grad)
                t = _fast.inc(step_t)
                if wd != 0:
                    grad = X.add(grad, param, wd)
                X.lerp_(exp_avg, grad, 1 - beta1)
                X.mul_(exp_inf, beta2)
                norm = X.abs(grad)
                X.add_(norm, eps)
                X.maximum_(exp_inf, norm)
                X.addcdiv_(param, exp_avg, exp_inf, -(lr / (1 - beta1 ** t)))
        step.finish()
