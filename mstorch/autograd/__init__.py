"""torch.autograd on MindSpore's imperative engine (reached through _ms_private)."""
from .. import _ms_private as P
from .._tensor import Tensor, wrap
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
                        is_inference_mode_enabled)
from .function import Function, FunctionCtx
from . import graph

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "Function", "is_grad_enabled"]


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _grad_tensors(outputs, grads, name):
    grads = _as_tuple(grads) if grads is not None else (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"{name}: got {len(grads)} tensors and {len(outputs)} gradients")
    out = []
    for o, g in zip(outputs, grads):
        if g is None:
            if not P.requires_grad(o._ms):
                raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
            if o._ms.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not o.dtype.is_floating_point:
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {o.dtype}")
            from mindspore import ops
            out.append(ops.ones_like(o._ms))
        else:
            if not isinstance(g, Tensor):
                from ..ops.creation import tensor
                g = tensor(g, dtype=o.dtype)
            if tuple(g._ms.shape) != tuple(o._ms.shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[0] has a shape of {g.shape} and output[0] has a shape "
                    f"of {o.shape}.")
            out.append(g._ms)
    return tuple(out)


def _check_requires(outputs):
    for i, o in enumerate(outputs):
        if not P.requires_grad(o._ms):
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Mirrors torch.autograd.backward."""
    outputs = _as_tuple(tensors)
    _check_requires(outputs)
    grads = _grad_tensors(outputs, grad_tensors, "backward")
    if retain_graph is None:
        retain_graph = create_graph
    ins = tuple(i._ms for i in _as_tuple(inputs))
    if inputs is not None and not ins:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    _run(tuple(o._ms for o in outputs), grads, retain_graph, create_graph, ins, True, True)


def _run(outs, grads, retain, create, inputs, allow_unused, accumulate):
    P.enable_recording()
    try:
        return P.run_backward(outs, grads, bool(retain), bool(create), inputs, allow_unused,
                              accumulate_grad=accumulate)
    except RuntimeError as exc:
        text = str(exc)
        if "backward the graph twice" in text or "Try to backward" in text:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors "
                "after they have already been freed). Saved intermediate values of the graph are freed "
                "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
                "backward through the graph a second time or if you need to access saved tensors after "
                "calling backward.") from None
        if "modified by an inplace operation" in text:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace "
                "operation: " + text.split("\n")[0]) from None
        raise


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Mirrors torch.autograd.grad."""
    outs = _as_tuple(outputs)
    ins = _as_tuple(inputs)
    _check_requires(outs)
    for t in ins:
        if not P.requires_grad(t._ms):
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _grad_tensors(outs, grad_outputs, "grad")
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    result = _run(tuple(o._ms for o in outs), grads, retain_graph, create_graph,
                  tuple(i._ms for i in ins), True, False)
    res = []
    for t, g in zip(ins, result):
        if g is None or _is_unused(g):
            if not allow_unused:
                raise RuntimeError(
                    "One of the differentiated Tensors appears to not have been used in the graph. Set "
                    "allow_unused=True if this is the desired behavior.")
            res.append(None if not materialize_grads else wrap(t._ms.new_zeros(t._ms.shape) if hasattr(t._ms, 'new_zeros') else t._ms * 0))
        else:
            res.append(wrap(g))
    return tuple(res)


def _is_unused(g):
    return g is None
