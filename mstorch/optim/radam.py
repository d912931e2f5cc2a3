"""torch.optim.RAdam: torch's single-tensor update (variance rectification, decoupled decay), written in
place through optim/_fast.py; the rectification term is Python-float math as in torch."""
from . import _fast
from ._shared import (capturable_error, check_adam_args, check_group_flags, complex_error, reciprocal_times,
                     scalar_state, upgrade_scalar_states, with_fma)
from .optimizer import Optimizer

_KEYS = ("step", "exp_avg", "exp_avg_sq")


def _init(p, state):
    if p.is_complex():
        raise complex_error("RAdam")
    state["step"] = scalar_state(0.0)
    state["exp_avg"] = _fast.zeros_state(p)
    state["exp_avg_sq"] = _fast.zeros_state(p)


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    _group_flags = dict(foreach=None, maximize=False, differentiable=False, decoupled_weight_decay=False, capturable=False)

    def __setstate__(self, state):
        super().__setstate__(state)
        upgrade_scalar_states(self, ("step",))

    def _update(self):
        step = _fast.Step(self)
        for group in self.param_groups:
            check_group_flags(self, group, foreach_refuses_empty=False)
            beta1, beta2 = (_fast.scalar(b) for b in group["betas"])
            lr, eps, wd = _fast.scalar(group["lr"]), group["eps"], _fast.scalar(group["weight_decay"])
            decoupled, maximize, capturable = group["decoupled_weight_decay"], group["maximize"], group["capturable"]
            rho_inf = 2 / (1 - beta2) - 1
            for p in group["params"]:
                got = step.take(p, _KEYS, _init)
                if got is None:
                    continue
                if capturable:
                    raise capturable_error(group)
                X, param, grad, (step_t, exp_avg, exp_avg_sq) = got
                X = with_fma(X)
                if maximize:
                    grad = X.neg(grad)
                t = _fast.inc(step_t)
                if wd != 0:
                    if decoupled:
                        X.mul_(param, 1 - lr * wd)
                    else:
                        grad = X.add(grad, param, wd)
                X.lerp_(exp_avg, grad, 1 - beta1)
                X.mul_(exp_avg_sq, beta2)
                X.addcmul_(exp_avg_sq, grad, grad, 1 - beta2)
                bias_correction1 = 1 - beta1 ** t
                bias_correction2 = 1 - beta2 ** t
                update = X.div(exp_avg, bias_correction1)
                update = X.mul(update, lr)
                rho_t = rho_inf - 2 * t * (beta2 ** t) / bias_correction2
                if rho_t > 5.0:
                    denom = X.sqrt(exp_avg_sq)
                    X.add_(denom, eps)
                    update = X.mul(update, reciprocal_times(X, denom, bias_correction2 ** 0.5))
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    update = X.mul(update, rect)
                X.add_(param, update, -1.0)
        step.finish()
