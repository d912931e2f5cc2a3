"""torch.optim.ASGD: torch's update, written in place through optim/_fast.py.

torch computes ASGD differently in its single-tensor path (CPU default) and its multi-tensor path
(``foreach=True``): the decay is a separate multiply in one and folded into the gradient in the other,
the average is copied or blended, and the next eta is computed in double or in float32. Both are
reproduced, chosen by ``foreach`` as in torch."""
import numpy as np

from . import _fast
from ._shared import check_lr, check_capturable_flags, fma_add, refuse_complex, steps_to_tensors
from .optimizer import Optimizer

_KEYS = ("step", "eta", "mu", "ax")
_WHAT = "params, mus, etas, and state_steps"


def _initializer(lr):
    def init(p, state):
        refuse_complex("ASGD", p)
        state["step"] = _fast.step_tensor()
        state["eta"] = _fast.step_tensor(lr)
        state["mu"] = _fast.step_tensor(1.0)
        state["ax"] = _fast.zeros_state(p)
    return init


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    _group_flags = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def __setstate__(self, state):
        super().__setstate__(state)
        steps_to_tensors(self, ("step", "eta", "mu"))

    def _update(self):
        step = _fast.Step(self)
        for group in self.param_groups:
            lr = _fast.scalar(group["lr"])
            init = _initializer(lr)
            foreach = bool(group["foreach"])
            check_capturable_flags(self, group, init, xla=not foreach, what=_WHAT)
            lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
            wd, maximize = _fast.scalar(group["weight_decay"]), group["maximize"]
            for p in group["params"]:
                got = step.take(p, _KEYS, init)
                if got is None:
                    continue
                X, param, grad, (step_t, eta, mu, ax) = got
                if maximize:
                    grad = X.neg(grad)
                step_t += 1
                n = float(step_t[0])
                eta_value, mu_value = float(eta[0]), float(mu[0])
                if foreach:
                    if wd != 0:
                        grad = fma_add(X, grad, param, wd)
                        fma_add(X, grad, param, lambd, out=grad)
                    else:
                        grad = fma_add(X, grad, param, lambd)
                    fma_add(X, param, X.neg(grad), eta_value, out=param)   # param.addcmul_(grad, eta, value=-1)
                    fma_add(X, ax, X.add(param, ax, -1), mu_value, out=ax)   # ax.addcmul_(param - ax, mu)
                    # torch's foreach path computes the next eta from the float32 step tensor, in float32;
                    # ``lr / tensor`` is ``reciprocal(tensor) * lr`` there
                    base = np.float32(1) + np.float32(lambd * lr) * step_t[0]
                    eta[0] = (np.float32(1) / _pow_f32(base, alpha)) * np.float32(lr)
                else:
                    if wd != 0:
                        grad = fma_add(X, grad, param, wd)
                    X.mul_(param, 1 - lambd * eta_value)
                    fma_add(X, param, grad, -eta_value, out=param)
                    if mu_value != 1:
                        X.add_(ax, X.mul(X.add(param, ax, -1), mu_value))
                    else:
                        X.copy_(ax, param)
                    eta[0] = lr / ((1 + lambd * lr * n) ** alpha)
                mu[0] = 1 / max(1, n - t0)
        step.finish()


def _pow_f32(x, exponent):
    """torch's ``tensor ** scalar`` on a float32 0-d CPU tensor: its special-cased exponents, otherwise
    the power taken in double and rounded to float32."""
    if exponent == 0:
        return np.float32(1)
    if exponent == 1:
        return x
    if exponent == 0.5:
        return np.sqrt(x)
    if exponent == 2:
        return x * x
    if exponent == 3:
        return x * x * x
    if exponent == -0.5:
        return np.float32(1) / np.sqrt(x)
    if exponent == -1:
        return np.float32(1) / x
    if exponent == -2:
        return np.float32(1) / (x * x)
    return np.float32(np.power(np.float64(x), float(exponent)))
