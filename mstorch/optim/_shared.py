"""What torch's optimizers share: the constructors' argument checks, the ``capturable`` /
``differentiable`` / complex refusals, torch's 0-d state tensors, and the host update ops with torch's
single rounding of multiply-adds (``FusedHostOps``, ``fma_add``)."""
import numpy as np
import mindspore as ms
from mindspore import ops

from .. import _ms_private as P
from .._dtype import get_default_dtype, float64
from .._tensor import Tensor, wrap
from . import _fast

# torch's _get_capturable_supported_devices(): its foreach paths leave out "xla"
_CAPTURABLE_DEVICES = "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']"
_CAPTURABLE_DEVICES_FOREACH = "['cuda', 'xpu', 'hpu', 'privateuseone']"
_CAPTURABLE_LIST = ["cuda", "xpu", "hpu", "privateuseone"]


def check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_adam_args(lr, betas, eps, weight_decay):
    """The checks torch's Adam(W), Adamax, NAdam and RAdam constructors make, in their order."""
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


def fma_add(X, a, b, alpha, out=None):
    """torch's ``a.add(b, alpha=alpha)`` (into ``out`` when given): its vectorised CPU kernel is a fused
    multiply-add, which float64 reproduces for float32 host arrays (the float32 product is exact there)."""
    if X is _fast.HostOps and a.dtype == np.float32:
        prod = np.multiply(b, float(np.float32(alpha)), dtype=np.float64)
        if out is None:
            return np.add(a, prod, dtype=np.float64).astype(np.float32)
        np.add(a, prod, out=out, dtype=np.float64, casting="unsafe")
        return out
    if out is None:
        return X.add(a, b, alpha)
    return X.add_(out, b, alpha) if out is a else X.copy_(out, X.add(a, b, alpha))


def refuse_complex(name, p):
    if p.is_complex():
        raise complex_error(name)


def steps_to_tensors(opt, keys=("step",)):
    """torch's ``__setstate__``: per-parameter counters saved as Python numbers become float32 0-d tensors."""
    for group in opt.param_groups:
        for p in group["params"]:
            st = opt.state.get(p)
            if st:
                for k in keys:
                    if not isinstance(st[k], Tensor):
                        st[k] = _fast.step_tensor(float(st[k]))


def check_capturable_flags(opt, group, init, xla=True, foreach_even_without_grads=False,
                      what="params and state_steps"):
    """What torch raises on CPU for ``capturable=True`` and ``differentiable=True``, in its order.

    ``xla``: whether torch's capturable message lists 'xla'; ``foreach_even_without_grads``: torch's
    multi-tensor path refuses ``differentiable`` before checking that any parameter has a gradient."""
    capturable, differentiable = group["capturable"], group["differentiable"]
    if not (capturable or differentiable):
        return
    with_grad = [p for p in group["params"] if P.grad(p._ms) is not None]
    if differentiable and group["foreach"] and (with_grad or foreach_even_without_grads):
        raise AssertionError("_foreach ops don't support autograd")
    if capturable and with_grad:
        for p in with_grad:   # torch creates the group's state before its device check
            state = opt.state[p]
            if not state:
                init(p, state)
        devices = _CAPTURABLE_LIST + (["xla"] if xla else [])
        raise AssertionError(f"If capturable=True, {what} must be on supported devices: {devices}.")
    opt._check_differentiable(group)
