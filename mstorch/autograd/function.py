"""torch.autograd.Function on MindSpore's custom-function node (``FunctionBase`` in _ms_private).

Each Function subclass gets one MindSpore node class (a "bridge") that unwraps and wraps tensors
around the user's static ``forward``/``backward``. MindSpore hands the node itself to both as its
ctx; the user sees a ``FunctionCtx`` instead, kept on the node between forward and backward. Saved
tensors go to MindSpore's node, so its engine frees them after backward and checks their versions.
"""
import copy
import functools
import inspect
import threading

from mindspore import Tensor as _MsTensor

from .. import _ms_private as P
from .._tensor import Tensor, wrap
from .grad_mode import no_grad
from . import anomaly_mode


class FunctionCtx:
    """The ``ctx`` of a custom Function: save_for_backward, saved_tensors, needs_input_grad,
    mark_non_differentiable, mark_dirty, set_materialize_grads, plus any attributes the user sets."""

    _node = None           # MindSpore's node, set only while forward or backward runs
    needs_input_grad = ()

    def save_for_backward(self, *tensors):
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                f"{type(t).__name__}")
        # a sparse tensor has no single MindSpore tensor for the node to keep: the ctx keeps a shallow
        # copy of it (its index and value tensors), as it keeps any other Python object
        self._sparse = {i: copy.copy(t) for i, t in enumerate(tensors)
                        if t is not None and t.layout is not Tensor.layout}
        self._node.save_for_backward(*(None if t is None or i in self._sparse else t._ms
                                       for i, t in enumerate(tensors)))
        self._saved_devs = tuple(None if t is None else t._dev for t in tensors)

    @property
    def saved_tensors(self):
        sparse = getattr(self, "_sparse", {})
        devs = getattr(self, "_saved_devs", ())
        return tuple(sparse[i] if i in sparse else None if s is None else
                     _placed(wrap(s), devs[i] if i < len(devs) else None)
                     for i, s in enumerate(self._node.saved_tensors))

    def mark_dirty(self, *tensors):
        self._dirty = tensors
        self._node.mark_dirty(*(t._ms for t in tensors))

    def mark_non_differentiable(self, *tensors):
        self._node.mark_non_differentiable(*(t._ms for t in tensors))

    def set_materialize_grads(self, value):
        self._node.set_materialize_grads(bool(value))


class _Bridge(P.FunctionBase):
    """Base of the per-Function MindSpore node classes; ``_user`` is the torch-style Function."""

    _user = None

    @staticmethod
    def forward(node, *args):
        user = type(node)._user
        ctx = FunctionCtx()
        ctx.needs_input_grad = node.needs_input_grad
        ctx._inputs = tuple((a.shape, a.dtype) if isinstance(a, _MsTensor) else None for a in args)
        args = tuple(wrap(a) if isinstance(a, _MsTensor) else a for a in args)
        call = _applying()[-1] if _applying() else None
        if call is not None and call["devices"]:   # the inputs' devices (mstorch/_device.py)
            for a, d in zip(args, call["devices"]):
                if d is not None and isinstance(a, Tensor):
                    a._dev = d
        ctx._node = node
        try:
            if user._setup_context:
                out = user.forward(*args)
                user.setup_context(ctx, args, out)
            else:
                out = user.forward(ctx, *args)
        finally:
            ctx._node = None
        node._torch_ctx = ctx
        outs = out if isinstance(out, tuple) else (out,)
        node._out_devs = tuple(o._dev if isinstance(o, Tensor) else None for o in outs)
        if call is not None:
            call["out_devices"] = node._out_devs
        dirty = getattr(ctx, "_dirty", None)
        if dirty and call is not None:
            # an input modified in place and returned: apply hands back the caller's own tensor
            call["returned"] = [(i, j) for i, o in enumerate(outs) for j, a in enumerate(args)
                                if o is a and any(o is d for d in dirty)]
        if isinstance(out, tuple):
            return tuple(o._ms if isinstance(o, Tensor) else o for o in out)
        return out._ms if isinstance(out, Tensor) else out

    @staticmethod
    def backward(node, *grads):
        user = type(node)._user
        ctx = node._torch_ctx
        ctx._node = node
        try:
            devs = getattr(node, "_out_devs", ())
            res = user._backward_impl(ctx, *(None if g is None else _placed(wrap(g), devs[i] if i < len(devs) else None)
                                            for i, g in enumerate(grads)))
        finally:
            ctx._node = None
        return _check_grads(user, ctx, res)


def _both_defined(ctx, *grads):
    raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You "
                       "should only implement one of them.")


def _check_grads(user, ctx, res):
    """torch's checks on what backward returned: count, no grad for non-tensors, shapes, dtypes."""
    if not isinstance(res, tuple):
        res = (res,)
    inputs = ctx._inputs
    n = len(inputs)
    if len(res) > n and all(r is None for r in res[n:]):
        res = res[:n]
    if len(res) != n:
        raise RuntimeError(f"function {user.__name__}Backward returned an incorrect number of gradients "
                           f"(expected {n}, got {len(res)})")
    out = []
    for i, (g, meta) in enumerate(zip(res, inputs)):
        if g is None:
            out.append(None)
            continue
        if meta is None:
            raise RuntimeError(
                f"function {user.__name__}Backward returned a gradient different than None at position "
                f"{i + 1}, but the corresponding forward input was not a Variable")
        if not isinstance(g, Tensor):
            raise TypeError(f"function {user.__name__}Backward returned a gradient of type "
                            f"{type(g).__name__} at position {i + 1}; expected a Tensor or None")
        g = g._ms
        shape, dtype = meta
        if g.shape != shape:
            g = _sum_to(g, shape, user, i)
        if g.dtype != dtype:
            g = g.astype(dtype)
        out.append(g)
    anomaly_mode.check_function_outputs(f"{user.__name__}Backward", out)
    return tuple(out)


def _sum_to(g, shape, user, i):
    """torch reduces a gradient that has the input's broadcast shape; any other shape is an error."""
    lead = len(g.shape) - len(shape)
    ok = lead >= 0 and all(s == 1 or s == d for s, d in zip(shape, g.shape[lead:]))
    if not ok:
        raise RuntimeError(
            f"Function {user.__name__}Backward returned an invalid gradient at index {i} - got "
            f"{list(g.shape)} but expected shape compatible with {list(shape)}")
    if lead:
        g = g.sum(tuple(range(lead)))
    dims = tuple(k for k, s in enumerate(shape) if s == 1 and g.shape[k] != 1)
    if dims:
        g = g.sum(dims, keepdims=True)
    return g


class Function:
    """Mirrors torch.autograd.Function: static ``forward(ctx, ...)`` (or ``forward(...)`` with
    ``setup_context(ctx, inputs, output)``) and ``backward(ctx, *grads)``, called through ``apply``."""

    _bridge = None
    _setup_context = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # node class named after the Function: MindSpore reports errors and grad_fn under this name
        cls._bridge = type(cls.__name__, (_Bridge,), {"_user": cls})
        cls._setup_context = cls.setup_context is not Function.setup_context
        cls._backward_impl = cls.vjp if cls.vjp is not Function.vjp else cls.backward
        if cls.vjp is not Function.vjp and cls.backward is not Function.backward:
            cls._backward_impl = _both_defined

    def __init__(self, *args, **kwargs):
        import warnings
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are all static, so "
            "you should invoke them on the class itself. Instantiating an autograd function will raise an "
            "error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style "
            "autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function to "
            "use it with backward mode AD.")

    @staticmethod
    def vjp(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function to "
            "use it with backward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        if cls._setup_context:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        if kwargs:
            raise TypeError(f"forward() got an unexpected keyword argument '{next(iter(kwargs))}'")
        # filled by forward: "returned", (output index, input index) of inputs returned as outputs, and the
        # devices of its outputs; "devices": the inputs' devices, which forward's wrapped inputs take
        call = {"returned": [], "out_devices": (),
                "devices": [a._dev if isinstance(a, Tensor) else None for a in args]}
        if not any(d is not None for d in call["devices"]):
            call["devices"] = None
        applying = _applying()
        applying.append(call)
        try:
            out = cls._bridge.apply(*(a._ms if isinstance(a, Tensor) else a for a in args))
        finally:
            applying.pop()
        devs = call["out_devices"]
        if isinstance(out, tuple):
            res = [_placed(_output(o, cls), devs[i] if i < len(devs) else None) for i, o in enumerate(out)]
        else:
            res = [_placed(_output(out, cls), devs[0] if devs else None)]
        for i, j in call["returned"]:
            args[j]._ms = res[i]._ms   # MindSpore moved the input's history onto this output
            res[i] = args[j]
        return tuple(res) if isinstance(out, tuple) else res[0]


_local = threading.local()


def _applying():
    """This thread's stack of Function.apply calls in progress (a forward may apply another Function)."""
    stack = getattr(_local, "applying", None)
    if stack is None:
        stack = _local.applying = []
    return stack


def _placed(t, dev):
    """``t`` labelled with device ``dev`` (a Function's outputs and gradients keep their devices)."""
    if dev is not None and isinstance(t, Tensor):
        t._dev = dev
    return t


def _output(o, cls):
    if not isinstance(o, _MsTensor):
        return o
    if P.requires_grad(o):
        P.set_function_of_output(o, cls)  # names grad_fn once MindSpore has freed the node
    return wrap(o)


def once_differentiable(fn):
    """Mirrors torch.autograd.function.once_differentiable: backward runs without recording.

    Differs from torch in one way: a second differentiation fails with "does not require grad"
    rather than torch's "trying to differentiate twice" message."""
    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        with no_grad():
            return fn(ctx, *args, **kwargs)
    return wrapper


class InplaceFunction(Function):
    """Kept for scripts that subclass it, as torch does."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace
