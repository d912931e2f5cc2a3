"""torch.optim.NAdam: torch's single-tensor update (momentum schedule, decoupled decay), written in place
through optim/_fast.py. ``mu_product`` stays a 0-d host tensor as in torch; its float32 value enters the
Python-float step sizes exactly as torch's ``.item()`` does."""
from . import _fast
from ._shared import (capturable_error, check_adam_args, check_group_flags, complex_error, scalar_state,
                     upgrade_scalar_states, with_fma)
from .optimizer import Optimizer

_KEYS = ("step", "mu_product", "exp_avg", "exp_avg_sq")


def _init(p, state):
    if p.is_complex():
        raise complex_error("NAdam")
    state["step"] = scalar_state(0.0)
    state["mu_product"] = scalar_state(1.0)
    state["exp_avg"] = _fast.zeros_state(p)
    state["exp_avg_sq"] = _fast.zeros_state(p)


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        check_adam_args(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    _group_flags = dict(maximize=False, foreach=None, capturable=False, differentiable=False, decoupled_weight_decay=False)

    def __setstate__(self, state):
        super().__setstate__(state)
        upgrade_scalar_states(self, ("step", "mu_product"))

    def _update(self):
        step = _fast.Step(self)
        for group in self.param_groups:
            check_group_flags(self, group, foreach_refuses_empty=False)
            beta1, beta2 = (_fast.scalar(b) for b in group["betas"])
            lr, eps, wd = _fast.scalar(group["lr"]), group["eps"], _fast.scalar(group["weight_decay"])
            momentum_decay, decoupled = group["momentum_decay"], group["decoupled_weight_decay"]
            maximize, capturable = group["maximize"], group["capturable"]
            for p in group["params"]:
                got = step.take(p, _KEYS, _init)
                if got is None:
                    continue
                if capturable:
                    raise capturable_error(group, "params, mu_products and state_steps",
                                           "params, mu_products, and state_steps")
                X, param, grad, (step_t, mu_product, exp_avg, exp_avg_sq) = got
                X = with_fma(X)
                if maximize:
                    grad = X.neg(grad)
                t = _fast.inc(step_t)
                bias_correction2 = 1 - beta2 ** t
                if wd != 0:
                    if decoupled:
                        X.mul_(param, 1 - lr * wd)
                    else:
                        grad = X.add(grad, param, wd)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (t * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((t + 1) * momentum_decay)))
                mu_product *= mu           # a 1-element host array in the state tensor's dtype
                mu_prod = float(mu_product[0])
                mu_product_next = mu_prod * mu_next
                X.lerp_(exp_avg, grad, 1 - beta1)
                X.mul_(exp_avg_sq, beta2)
                X.addcmul_(exp_avg_sq, grad, grad, 1 - beta2)
                denom = X.div(exp_avg_sq, bias_correction2)
                X.sqrt_(denom)
                X.add_(denom, eps)
                X.addcdiv_(param, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_prod))
                X.addcdiv_(param, exp_avg, denom, (-lr * mu_next) / (1.0 - mu_product_next))
        step.finish()
