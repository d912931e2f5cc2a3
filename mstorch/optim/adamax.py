"""torch.optim.Adamax: torch's single-tensor update, written in place through optim/_fast.py.

Also holds what Adamax, NAdam, RAdam, RMSprop and Adagrad share: torch's argument checks, the
``capturable`` / ``differentiable`` refusals, torch's scalar state tensors, and ``FusedHostOps`` (the
host update ops with torch's single rounding of multiply-adds)."""
import numpy as np
import mindspore as ms
from mindspore import ops

from .. import _ms_private as P
from .._dtype import get_default_dtype, float64
from .._tensor import Tensor, wrap
from . import _fast
from .optimizer import Optimizer

# torch's _get_capturable_supported_devices(): its foreach paths leave out "xla"
_CAPTURABLE_DEVICES = "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']"
_CAPTURABLE_DEVICES_FOREACH = "['cuda', 'xpu', 'hpu', 'privateuseone']"


def check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_adam_args(lr, betas, eps, weight_decay):
    """The checks torch's Adamax, NAdam and RAdam constructors make, in their order."""
    check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def scalar_state(value):
    """torch's 0-d host state (``step``, NAdam's ``mu_product``): float64 under a float64 default
    dtype, float32 otherwise (torch's ``_get_scalar_dtype()``)."""
    dt = np.float64 if get_default_dtype() is float64 else np.float32
    return wrap(ms.Tensor(np.array(value, dtype=dt)))


def upgrade_scalar_states(opt, keys):
    """torch's ``__setstate__``: states pickled with a Python number as ``step`` get a tensor."""
    for group in opt.param_groups:
        for p in group["params"]:
            st = opt.state.get(p)
            if not st:
                continue
            for k in keys:
                if k in st and not isinstance(st[k], Tensor):
                    st[k] = scalar_state(float(st[k]))


def check_group_flags(opt, group, foreach_refuses_empty):
    """What torch's step does with ``differentiable=True``: its foreach path refuses it
    (``foreach_refuses_empty``: even for a group without gradients); otherwise see
    ``Optimizer._check_differentiable``."""
    if not group.get("differentiable"):
        return
    if group.get("foreach") and (foreach_refuses_empty
                                 or any(P.grad(p._ms) is not None for p in group["params"])):
        raise AssertionError("_foreach ops don't support autograd")
    opt._check_differentiable(group)


def capturable_error(group, tensors="params and state_steps", foreach_tensors=None, foreach_xla=False):
    """torch's error for ``capturable=True`` with CPU tensors (raised at the first parameter with a
    gradient, after its state exists)."""
    if group.get("foreach") and not foreach_xla:
        return AssertionError(f"If capturable=True, {foreach_tensors or tensors} must be on supported devices: "
                              f"{_CAPTURABLE_DEVICES_FOREACH}.")
    return AssertionError(f"If capturable=True, {tensors} must be on supported devices: {_CAPTURABLE_DEVICES}.")


def complex_error(name):
    return NotImplementedError(f"torch.optim.{name} on complex parameters (torch updates them as real pairs "
                               "through view_as_real) is not supported by mstorch")


_F32 = np.dtype(np.float32)


def _fma(x, y, z, out=None):
    """float32 ``x * y + z`` rounded once, as an FMA: the product of two float32 numbers is exact in
    float64, so only the sum is rounded twice (which differs from one rounding with probability ~2**-28)."""
    t = x.astype(np.float64)   # explicit conversions: NumPy's mixed-dtype ufunc loops are ~3x slower
    t *= y.astype(np.float64) if isinstance(y, np.ndarray) else float(y)
    t += z.astype(np.float64)
    if out is None:
        return t.astype(np.float32)
    out[...] = t
    return out


class FusedHostOps(_fast.HostOps):
    """``HostOps`` with torch's CPU rounding for its multiply-adds: ``add(alpha=)``, ``lerp`` and
    ``addcmul`` are FMAs in torch's float32 kernels (vector and scalar loops alike). Emulated for float32
    (float64 falls back to two roundings, ~1e-16 away). With it the updates here agree with torch bit
    for bit, except through ``sqrt``, which torch's MKL build computes to within 1 ulp only."""

    @staticmethod
    def add(a, b, alpha=1):
        if alpha == 1 or a.dtype != _F32:
            return _fast.HostOps.add(a, b, alpha)
        return _fma(b, np.float32(alpha), a)

    @staticmethod
    def add_(a, b, alpha=1):
        if alpha == 1 or a.dtype != _F32:
            return _fast.HostOps.add_(a, b, alpha)
        if alpha == -1:
            np.subtract(a, b, out=a)
            return a
        return _fma(b, np.float32(alpha), a, out=a)

    @staticmethod
    def lerp_(a, b, weight):
        if a.dtype != _F32:
            return _fast.HostOps.lerp_(a, b, weight)
        w = np.float32(weight)
        d = b - a
        if abs(w) < 0.5:
            return _fma(d, w, a, out=a)
        return _fma(d, w - np.float32(1), b, out=a)

    @staticmethod
    def addcmul_(a, b, c, value=1):
        if a.dtype != _F32:
            return _fast.HostOps.addcmul_(a, b, c, value)
        return _fma(b if value == 1 else b * np.float32(value), c, a, out=a)


_FUSED = {_fast.HostOps: FusedHostOps}


def with_fma(X):
    """The ops to run an update with: ``FusedHostOps`` on the host path."""
    return _FUSED.get(X, X)


def reciprocal_times(X, a, s):
    """torch's ``s / tensor`` (``Tensor.__rtruediv__``): ``tensor.reciprocal() * s``."""
    if issubclass(X, _fast.HostOps):
        r = np.reciprocal(a)
        r *= s
        return r
    return X.mul(ops.reciprocal(a), s)


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
