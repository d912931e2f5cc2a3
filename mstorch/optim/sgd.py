"""torch.optim.SGD: the same update as torch's single-tensor path, written in place (optim/_fast.py)."""
from .._tensor import Tensor
from . import _fast
from .optimizer import Optimizer, required

_MOMENTUM_KEYS = ("momentum_buffer",)


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    _group_flags = dict(nesterov=False, maximize=False, foreach=None, differentiable=False, fused=False)

    def _update(self):
        step = _fast.Step(self)
        for group in self.param_groups:
            self._check_differentiable(group)
            lr, momentum, dampening = _fast.scalar(group["lr"]), group["momentum"], group["dampening"]
            weight_decay, nesterov, maximize = _fast.scalar(group["weight_decay"]), group["nesterov"], group["maximize"]
            keys = _MOMENTUM_KEYS if momentum != 0 else ()
            for p in group["params"]:
                got = step.take(p, keys)
                if got is None:
                    continue
                X, param, grad, bufs = got
                if maximize:
                    grad = X.neg(grad)
                if weight_decay != 0:
                    grad = X.add(grad, param, weight_decay)
                if momentum != 0:
                    buf = bufs[0]
                    if buf is None:
                        buf = step.new_state(p, "momentum_buffer", grad)
                    else:
                        X.mul_(buf, momentum)
                        X.add_(buf, grad, 1 - dampening)
                    grad = X.add(grad, buf, momentum) if nesterov else buf
                X.add_(param, grad, -lr)
        step.finish()
