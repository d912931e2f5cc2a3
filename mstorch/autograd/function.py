"""torch.autograd.Function on MindSpore's custom-function support (FunctionBase in _ms_private)."""
from .. import _ms_private as P
from .._tensor import Tensor, wrap


class FunctionCtx:
    pass


def _unwrap_all(xs):
    return tuple(x._ms if isinstance(x, Tensor) else x for x in xs)


def _wrap_all(xs):
    if isinstance(xs, tuple):
        return tuple(wrap(x) if _is_ms(x) else x for x in xs)
    return wrap(xs) if _is_ms(xs) else xs


def _is_ms(x):
    import mindspore as ms
    return isinstance(x, ms.Tensor)


class _Bridge(P.FunctionBase):
    """Adapts a torch-style Function subclass (working on mstorch Tensors) to MindSpore's engine."""
    user = None

    @staticmethod
    def forward(ctx, *args):
        user = ctx._user
        tctx = _Ctx(ctx)
        out = user.forward(tctx, *_wrap_all(args))
        ctx._tctx = tctx
        if isinstance(out, tuple):
            return tuple(o._ms if isinstance(o, Tensor) else o for o in out)
        return out._ms if isinstance(out, Tensor) else out

    @staticmethod
    def backward(ctx, *grads):
        user = ctx._user
        res = user.backward(ctx._tctx, *_wrap_all(grads))
        if isinstance(res, tuple):
            return tuple(r._ms if isinstance(r, Tensor) else r for r in res)
        return res._ms if isinstance(res, Tensor) else res


class _Ctx:
    """The ``ctx`` a torch Function sees: save_for_backward / saved_tensors / needs_input_grad..."""

    def __init__(self, ms_ctx):
        self._ms_ctx = ms_ctx
        self._saved = ()

    def save_for_backward(self, *tensors):
        self._saved = tensors
        self._ms_ctx.save_for_backward(*_unwrap_all(tensors))

    @property
    def saved_tensors(self):
        saved = getattr(self._ms_ctx, "saved_tensors", ())
        return tuple(wrap(s) if _is_ms(s) else s for s in saved)

    def mark_dirty(self, *tensors):
        self._ms_ctx.mark_dirty(*_unwrap_all(tensors))

    def mark_non_differentiable(self, *tensors):
        self._ms_ctx.mark_non_differentiable(*_unwrap_all(tensors))

    def set_materialize_grads(self, value):
        self._ms_ctx.set_materialize_grads(value)

    @property
    def needs_input_grad(self):
        return getattr(self, "_needs", ())


class FunctionMeta(type):
    pass


class Function(metaclass=FunctionMeta):
    """Mirrors torch.autograd.Function (static forward(ctx, ...) / backward(ctx, ...), ``apply``)."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function to "
            "use it with backward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        bridge = type(f"{cls.__name__}Backward", (_Bridge,), {})
        user = cls

        def fwd(ctx, *a):
            ctx._user = user
            return _Bridge.forward(ctx, *a)

        bridge.forward = staticmethod(fwd)
        out = bridge.apply(*_unwrap_all(args))
        return _wrap_all(out)
