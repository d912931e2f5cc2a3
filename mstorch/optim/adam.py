"""torch.optim.Adam and AdamW: torch's single-tensor update (bias corrections, amsgrad, decoupled decay),
written in place through optim/_fast.py."""
from .._tensor import Tensor
from . import _fast
from ._shared import check_adam_args, refuse_complex
from .optimizer import Optimizer

_KEYS = ("step", "exp_avg", "exp_avg_sq")
_AMSGRAD_KEYS = _KEYS + ("max_exp_avg_sq",)


def _init_state(amsgrad):
    def init(p, state):
        refuse_complex("Adam/AdamW", p)
        state["step"] = _fast.step_tensor()
        state["exp_avg"] = _fast.zeros_state(p)
        state["exp_avg_sq"] = _fast.zeros_state(p)
        if amsgrad:
            state["max_exp_avg_sq"] = _fast.zeros_state(p)
    return init


_INIT = {False: _init_state(False), True: _init_state(True)}


class Adam(Optimizer):
    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        check_adam_args(lr, betas, eps, weight_decay)
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        for i in (0, 1):
            if isinstance(betas[i], Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True")
                if betas[i].numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        # torch keeps tensor betas, as 0-d tensors
        betas = tuple(b.squeeze() if isinstance(b, Tensor) and b.dim() != 0 else b for b in betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay or self._decoupled)
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", self._decoupled)
            group.setdefault("fused", None)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = _fast.step_tensor(float(p_state["step"]))

    def _update(self):
        step = _fast.Step(self)
        for group in self.param_groups:
            self._check_differentiable(group)
            beta1, beta2 = (_fast.scalar(b) for b in group["betas"])
            lr, eps, wd = _fast.scalar(group["lr"]), group["eps"], _fast.scalar(group["weight_decay"])
            amsgrad, maximize, decoupled = group["amsgrad"], group["maximize"], group["decoupled_weight_decay"]
            keys, init = (_AMSGRAD_KEYS if amsgrad else _KEYS), _INIT[bool(amsgrad)]
            for p in group["params"]:
                got = step.take(p, keys, init)
                if got is None:
                    continue
                if group["capturable"]:   # torch: no capturable update on CPU tensors
                    raise AssertionError("If capturable=True, params and state_steps must be on supported "
                                         "devices: ['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")
                X, param, grad, bufs = got
                if maximize:
                    grad = X.neg(grad)
                t = _fast.inc(bufs[0])
                exp_avg, exp_avg_sq = bufs[1], bufs[2]
                if wd != 0:
                    if decoupled:
                        X.mul_(param, 1 - lr * wd)
                    else:
                        grad = X.add(grad, param, wd)
                X.lerp_(exp_avg, grad, 1 - beta1)
                X.mul_(exp_avg_sq, beta2)
                X.addcmul_(exp_avg_sq, grad, grad, 1 - beta2)
                bias_correction1 = 1 - beta1 ** t
                bias_correction2_sqrt = (1 - beta2 ** t) ** 0.5
                if amsgrad:
                    X.maximum_(bufs[3], exp_avg_sq)
                    denom = X.sqrt(bufs[3])
                else:
                    denom = X.sqrt(exp_avg_sq)
                X.div_(denom, bias_correction2_sqrt)
                X.add_(denom, eps)
                X.addcdiv_(param, exp_avg, denom, -(lr / bias_correction1))
        step.finish()


class AdamW(Adam):
    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                         foreach=foreach, maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)
