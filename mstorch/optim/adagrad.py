"""torch.optim.Adagrad: torch's single-tensor update (lr_decay, initial_accumulator_value), written in
place through optim/_fast.py. torch's CPU ``fused=True`` kernel does the same float operations in the same
order, so it runs this update too."""
import numpy as np
import mindspore as ms

from .._tensor import Tensor, wrap
from . import _fast
from ._shared import check_group_flags, check_lr, complex_error, scalar_state, with_fma
from .optimizer import Optimizer

_KEYS = ("step", "sum")


def _step_state(fused, value=0.0):
    # torch's _get_scalar_dtype(is_fused=fused): the fused kernel always counts in float32
    return wrap(ms.Tensor(np.array(value, dtype=np.float32))) if fused else scalar_state(value)


def _sum_state(p, value):
    from .._functions import full_like
    return full_like(p, complex(value, value) if p.is_complex() else value).detach()


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        check_lr(lr)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        # torch makes every parameter's state up front (lazily only for groups added later)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _step_state(group["fused"])
                state["sum"] = _sum_state(p, initial_accumulator_value)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            fused = group.setdefault("fused", None)
            for p in group["params"]:
                st = self.state.get(p)
                if st and not isinstance(st["step"], Tensor):
                    st["step"] = _step_state(fused, float(st["step"]))

    def share_memory(self):
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"].share_memory_()

    def _init(self, group):
        def init(p, state):
            state["step"] = _step_state(group["fused"])
            state["sum"] = _sum_state(p, self.defaults["initial_accumulator_value"])
        return init

    def _update(self):
        step = _fast.Step(self)
        for group in self.param_groups:
            check_group_flags(self, group, foreach_refuses_empty=True)
            lr, eps, wd = _fast.scalar(group["lr"]), group["eps"], _fast.scalar(group["weight_decay"])
            lr_decay, maximize = group["lr_decay"], group["maximize"]
            init = self._init(group)
            for p in group["params"]:
                got = step.take(p, _KEYS, init)
                if got is None:
                    continue
                X, param, grad, (step_t, state_sum) = got
                if X is not _fast.HostOps and p.is_complex():
                    raise complex_error("Adagrad")
                X = with_fma(X)
                t = _fast.inc(step_t)
                if maximize:
                    grad = X.neg(grad)
                if wd != 0:
                    grad = X.add(grad, param, wd)
                clr = lr / (1 + (t - 1) * lr_decay)
                X.addcmul_(state_sum, grad, grad)
                std = X.sqrt(state_sum)
                X.add_(std, eps)
                X.addcdiv_(param, grad, std, -clr)
        step.finish()
