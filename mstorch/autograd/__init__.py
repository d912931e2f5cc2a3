"""torch.autograd on MindSpore's imperative engine (reached through _ms_private).

MindSpore records every op on tensors that require grad; ``backward`` and ``grad`` run its engine
(``run_backward``) and translate its errors into torch's. Differences that remain are listed in
docs/known-differences.md.
"""
import re

from mindspore import ops as _ops

from .. import _ms_private as P
from .._tensor import Tensor, beside, wrap
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
                        is_inference_mode_enabled)
from .function import Function, FunctionCtx, once_differentiable
from . import graph, grad_mode, function, hooks
from . import _higher_order
from . import functional  # noqa: E402  (torch.autograd.functional; needs the names above)
from . import forward_ad  # noqa: E402
from .gradcheck import gradcheck, gradgradcheck  # noqa: E402
from . import anomaly_mode  # noqa: E402
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: E402
from .grad_mode import set_multithreading_enabled  # noqa: E402
from .variable import Variable  # noqa: E402

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "Function", "is_grad_enabled", "is_inference_mode_enabled", "once_differentiable", "gradcheck",
           "gradgradcheck", "forward_ad", "detect_anomaly", "set_detect_anomaly", "Variable"]


def variable(*args, **kwargs):
    """Mirrors torch.autograd.variable: a pre-0.4 name that only refuses."""
    raise RuntimeError("torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")


def _as_tuple(x):
    if isinstance(x, (Tensor, graph.GradientEdge)):
        return (graph.edge_tensor(x),)
    return tuple(graph.edge_tensor(t) for t in x)


def _make_grads(outputs, grads):
    """torch's checks on grad_outputs; returns the mindspore grads, or () when all are implicit."""
    grads = (None,) * len(outputs) if grads is None else _as_tuple(grads)
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(grads)} tensors and {len(outputs)} gradients")
    out, implicit = [], True
    for i, (o, g) in enumerate(zip(outputs, grads)):
        t = o._ms
        if isinstance(g, Tensor):
            if g._ms.shape != t.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] has a "
                    f"shape of {o.shape}.")
            out.append(g._ms)
            implicit = False
        elif g is None:
            if o.requires_grad:
                if t.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not o.dtype.is_floating_point:
                    raise RuntimeError(
                        f"grad can be implicitly created only for real scalar outputs but got {o.dtype}")
            out.append(None)
        else:
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
    for i, o in enumerate(outputs):
        if not o.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    if implicit:
        return ()
    return tuple(_ops.ones_like(o._ms) if g is None else g for o, g in zip(outputs, out))


def _inputs_tuple(inputs, name):
    if isinstance(inputs, (Tensor, graph.GradientEdge)):
        return (graph.edge_tensor(inputs),)
    if type(inputs) is dict:
        return tuple(graph.edge_tensor(t) for t in inputs.values())
    ins = tuple(graph.edge_tensor(t) for t in inputs)
    if not ins:
        raise RuntimeError(f"`inputs` argument to `{name}()` cannot be empty.")
    return ins


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Mirrors torch.autograd.backward."""
    if grad_variables is not None:
        if grad_tensors is not None:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments both passed to "
                               "`backward()`. Please only use `grad_tensors`.")
        grad_tensors = grad_variables
    ins = () if inputs is None else tuple(i._ms for i in _inputs_tuple(inputs, "backward"))
    outputs = _as_tuple(tensors)
    grads = _make_grads(outputs, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    outs = tuple(o._ms for o in outputs)
    if all(P.is_leaf(t) for t in ins):
        _run(outs, grads, retain_graph, create_graph, ins, True)
        return
    # MindSpore accumulates into a non-leaf input with a kernel CPU lacks: take the gradients and
    # accumulate them here.
    for t, g in zip(ins, _grads_for(outs, grads, retain_graph, create_graph, ins)):
        if g is not None:
            _accumulate(t, g, create_graph)


def _accumulate(t, g, create_graph):
    current = P.grad(t)
    if current is None:
        P.set_grad(t, g if create_graph else P.detach(g))
    elif create_graph:
        P.set_grad(t, current + g)
    else:
        with no_grad():
            P.set_grad(t, current + g)


def _grads_for(outs, grads, retain_graph, create_graph, ins):
    """Gradients of ``outs`` for each of ``ins`` (None where unused), without accumulating."""
    if len(ins) > 1 and not all(P.is_leaf(t) for t in ins):
        # MindSpore's engine stops at an input that is an ancestor of another input, and returns None
        # for the inputs behind it; torch computes every input's gradient. One pass per input.
        result = []
        for k, t in enumerate(ins):
            keep = retain_graph or k < len(ins) - 1
            result.extend(_run(outs, grads, keep, create_graph, (t,), False))
        return result
    return _run(outs, grads, retain_graph, create_graph, ins, False)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Mirrors torch.autograd.grad."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if is_grads_batched:
        raise NotImplementedError(
            "torch.autograd.grad(is_grads_batched=True) is not supported by mstorch: it needs torch's vmap, "
            "which MindSpore's imperative engine does not provide. Call grad once per grad_output.")
    outs = _as_tuple(outputs)
    ins = _inputs_tuple(inputs, "grad")
    grads = _make_grads(outs, grad_outputs)
    for t in ins:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    result = _grads_for(tuple(o._ms for o in outs), grads, retain_graph, create_graph,
                        tuple(i._ms for i in ins))
    res = []
    for i, (t, g) in enumerate(zip(ins, result)):
        if g is not None:
            res.append(beside(t, g))   # a gradient lives where its input does
        elif not allow_unused:
            raise RuntimeError(
                f"The differentiated Tensor at index {i} appears to not have been used in the graph. Set "
                "allow_unused=True if this is the desired behavior.")
        elif materialize_grads:
            z = beside(t, _ops.zeros_like(t._ms))
            res.append(z.requires_grad_() if create_graph else z)
        else:
            res.append(None)
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), res))
    return tuple(res)


_NO_BPROP = re.compile(r"Illegal primitive (\w+)'s bprop not defined")
_VERSION_ERROR = re.compile(r"which is the (\d+) 's output of (\w+); and its version is (\d+) , "
                            r"expected version (\d+)")


# > 0 while torch.func.vmap runs its function once per sample: a backward pass there stands for one
# batched pass in torch, so the graph must outlive each per-sample pass (it is freed with its tensors)
vmap_depth = [0]


def _run(outs, grads, retain, create, inputs, accumulate):
    retain = retain or vmap_depth[0] > 0
    own_hooks = ()
    if create:
        own_hooks, outs = _higher_order.prepare(outs)
    P.enable_recording()  # MindSpore's own grad functions switch recording off when they finish
    saved = hooks.begin_backward(create, accumulate)
    try:
        result = P.run_backward(outs, grads, bool(retain), bool(create), inputs, True,
                                accumulate_grad=accumulate)
    except BaseException as exc:
        hooks.end_backward(saved)
        P.enable_recording()   # a failed backward leaves recording off for every later op
        if not isinstance(exc, RuntimeError):
            raise
        text = str(exc)
        if "backward the graph twice" in text or "Try to backward" in text:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors "
                "after they have already been freed). Saved intermediate values of the graph are freed "
                "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
                "backward through the graph a second time or if you need to access saved tensors after "
                "calling backward.") from None
        if "kernel Clone unregistered" in text:
            raise RuntimeError(
                "mstorch: a gradient reached a leaf whose requires_grad was not set through mstorch (for "
                "instance a mindspore.Parameter constructed with requires_grad=True); MindSpore then needs "
                "its Clone kernel, which CPU lacks. Set requires_grad with requires_grad_() (mstorch's own "
                "code: _ms_private.set_requires_grad).") from None
        missing = _NO_BPROP.search(text)
        if missing:
            raise NotImplementedError(
                f"mstorch: second-order gradients through MindSpore's {missing.group(1)} are not supported: "
                "MindSpore 2.10 defines no backward for that kernel of a first-order gradient (see "
                "docs/known-differences.md)") from None
        m = _VERSION_ERROR.search(text)
        if m:
            out_nr, kernel, ver, expected = m.groups()
            name = graph._TORCH_NAMES.get(kernel, kernel)
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: output {out_nr} of {name}Backward0 is at version {ver}; expected version "
                f"{expected} instead. Hint: enable anomaly detection to find the operation that failed to "
                "compute its gradient, with torch.autograd.set_detect_anomaly(True).") from None
        raise
    finally:
        _higher_order.remove(own_hooks)
    hooks.end_backward(saved, grads)
    if not accumulate and anomaly_mode.is_anomaly_enabled():
        for g in result:   # (an input that is not a leaf has no leaf hook to check it)
            anomaly_mode.check_gradient(g)
    return result


def resume_recording():
    """Turn MindSpore's op recording back on.

    ``mindspore.grad`` / ``value_and_grad`` / ``vjp`` switch recording off process-wide when they return.
    mstorch turns it back on at every Module call and optimizer step; code that mixes native MindSpore
    differentiation with bare mstorch tensor math calls this after the native call.
    """
    P.enable_recording()


# --- Tensor members owned here (installed on Tensor by mstorch/_install.py) ---------------------------------


def _retain_grad(self):
    if not self.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if not P.is_leaf(self._ms):
        hooks.retain_grad(self._ms)


def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _register_hook(self, hook):
    return hooks.register_tensor_hook(self, hook)


def _register_post_accumulate_grad_hook(self, hook):
    return hooks.register_post_accumulate_grad_hook(self, hook)


TENSOR_MEMBERS = {"grad_fn": property(lambda self: graph.node_for(self._ms)), "retain_grad": _retain_grad,
                  "output_nr": property(lambda self: graph.output_nr(self._ms)),
                  # (torch's autograd Variable name: set by none of torch's Python APIs, so always None)
                  "name": property(lambda self: None),
                  "backward": _backward, "register_hook": _register_hook,
                  "register_post_accumulate_grad_hook": _register_post_accumulate_grad_hook}
