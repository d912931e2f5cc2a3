"""torch.optim.Adadelta: torch's single-tensor update, written in place through optim/_fast.py."""
from . import _fast
from ._shared import check_lr, check_capturable_flags, refuse_complex, steps_to_tensors
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
        check_lr(lr)
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
            check_capturable_flags(self, group, _init, xla=False, foreach_even_without_grads=True)
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
