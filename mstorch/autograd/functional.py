"""torch.autograd.functional: vjp, jvp, jacobian, hessian, vhp, hvp on mstorch.autograd.grad.

The algorithms are torch's (reverse mode throughout; ``jvp`` and ``hvp`` by the double-backward trick),
with torch's argument checks, strict-mode errors and output structure (a Tensor where the user gave a
Tensor, a tuple where they gave a tuple).

MindSpore-specific: the double-backward trick differentiates a backward graph whose incoming gradient
requires grad, which MindSpore 2.10 records completely only for some formulas (see
``_higher_order.py``). Where mstorch refuses such a graph, or a gradient comes back without its graph,
``jvp`` builds J·v from one reverse pass per output element and ``hvp`` uses vᵀH (the same vector for
twice continuously differentiable functions, whose Hessian is symmetric). ``jacobian``/``hessian`` with
``vectorize=True`` or ``strategy="forward-mode"`` (torch: vmap, forward-mode AD) compute the same Jacobian
one reverse pass per output element.
"""
import sys

from .._tensor import Tensor
from .grad_mode import enable_grad, set_grad_enabled, is_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _mt():
    return sys.modules["mstorch"]


def _grad(*args, **kwargs):
    return _mt().autograd.grad(*args, **kwargs)


# --- helpers (torch's private helpers, same checks and messages) --------------------------------

def _tupled(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _as_tuple(inp, arg_name, fn_name):
    """(was it a tuple, the tuple); every element must be a Tensor."""
    was_tuple = isinstance(inp, tuple)
    items = inp if was_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if was_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                            f"but the {where} has type {type(el)}.")
    return was_tuple, items


def _untuple(res, keep):
    """Undo _as_tuple: ``keep`` is a bool, or (outer, inner) for nested results."""
    if isinstance(keep, tuple):
        outer, inner = keep
        if not inner:
            res = tuple(el[0] for el in res)
        if not outer:
            res = res[0]
        return res
    return res if keep else res[0]


def _preprocess(inputs, create_graph, need_graph):
    # Always new tensor objects, so tensors the function captures from outside are told apart from
    # the inputs (torch issue 32576). Differentiable when the caller asked for a graph: torch takes a
    # view_as; MindSpore loses a view's edge in second-order graphs, so mstorch multiplies by one.
    out = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            out.append(inp * 1)
        else:
            out.append(inp.detach().requires_grad_(need_graph))
    return tuple(out)


def _postprocess(items, create_graph):
    if isinstance(items[0], Tensor):
        return items if create_graph else tuple(t.detach() for t in items)
    return tuple(_postprocess(t, create_graph) for t in items)


def _validate_v(v, other, other_is_tuple):
    if len(v) != len(other):
        if other_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a.size() != b.size():
            prefix = f"Entry {i} in " if other_is_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {b.size()} but got {a.size()}.")


_STRICT_MESSAGES = {
    "hessian": ("The hessian of the user-provided function with respect to input {i} is independent of the "
                "input. This is not allowed in strict mode. You should ensure that your function is thrice "
                "differentiable and that the hessian depends on the inputs."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided function with "
                 "respect to input {i} is independent of the input. This is not allowed in strict mode. You "
                 "should ensure that your function is twice differentiable and that the jacobian depends on "
                 "the inputs (this would be violated by a linear function for example)."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of the user-provided "
                    "function. This is not allowed in strict mode."),
    "outputs": ("Output {i} of the user-provided function does not require gradients. The outputs must be "
                "computed in a differentiable manner from the input when running in strict mode."),
}


def _check_requires_grad(items, kind, strict):
    if not strict:
        return
    for i, t in enumerate(items):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is "
                               "not allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_STRICT_MESSAGES[kind].format(i=i))


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad that skips outputs which are None or need no grad (their gradient is None)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    keep = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not keep:
        return (None,) * len(inputs)
    outs, gos = zip(*keep)
    return _grad(outs, inputs, gos, allow_unused=True, create_graph=create_graph, retain_graph=retain_graph)


_ZERO_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in "
            "strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
                  "using the double backward trick to compute forward mode gradients. This is not allowed in "
                  "strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not "
                   "allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                         "backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_MESSAGES[stage].format(i=i))
            g = _mt().zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is "
                               "not allowed in strict mode when create_graph=True.")
        res.append(g)
    return tuple(res)


def _prepare_v(v, against, against_is_tuple, fn_name, create_graph, none_message):
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, against, against_is_tuple)
        return v
    if len(against) != 1 or against[0].nelement() != 1:
        raise RuntimeError(none_message)
    return None


def _refused_create_graph(exc):
    return "with create_graph=True through" in str(exc)   # _higher_order's refusals


# --- public API ---------------------------------------------------------------------------------

def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """Mirrors torch.autograd.functional.vjp: (func(inputs), vᵀ·J)."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        v = _prepare_v(v, outputs, outputs_tuple, "vjp", create_graph,
                       "The vector v can only be None if the user-provided function returns a single Tensor "
                       "with a single element.")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(res, inputs, strict, create_graph, "back")
    return (_untuple(_postprocess(outputs, create_graph), outputs_tuple),
            _untuple(_postprocess(res, create_graph), inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """Mirrors torch.autograd.functional.jvp: (func(inputs), J·v), by the double-backward trick."""
    mt = _mt()
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, "jvp", create_graph,
                       "The vector v can only be None if the input to the user-provided function is a single "
                       "Tensor with a single element.")
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        # the backward is linear in grad_outputs: their value never reaches the result (zeros: no inf/nan)
        grad_outputs = tuple(mt.zeros_like(o, requires_grad=True) for o in outputs)
        try:
            grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
            # a gradient that lost its graph: MindSpore did not record the backward formula (in torch,
            # non-strict mode, this only happens where the gradient is constant: rows give it too)
            by_rows = not strict and any(g is not None and not g.requires_grad for g in grad_inputs)
        except NotImplementedError as exc:
            if not _refused_create_graph(exc):
                raise
            by_rows = True
        if by_rows:
            res = _jvp_by_rows(outputs, inputs, v, strict, create_graph)
        else:
            _check_requires_grad(grad_inputs, "grad_inputs", strict)
    if not by_rows:
        with set_grad_enabled(True if create_graph else is_grad_enabled()):
            res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
            res = _fill_in_zeros(res, outputs, strict, create_graph, "back_trick")
    return (_untuple(_postprocess(outputs, create_graph), outputs_tuple),
            _untuple(_postprocess(res, create_graph), outputs_tuple))


def _jvp_by_rows(outputs, inputs, v, strict, create_graph):
    """J·v from one reverse pass per output element (where the double-backward trick cannot be used)."""
    mt = _mt()
    if v is None:
        v = (mt.ones_like(inputs[0]),)
    reaches = [False] * len(inputs)
    per_output = []
    for out in outputs:
        values, reached = [], False
        if out.requires_grad:
            flat = out.reshape(-1)
            for j in range(out.nelement()):
                row = _autograd_grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                total = mt.zeros((), dtype=out.dtype)
                for i, (g, vi) in enumerate(zip(row, v)):
                    if g is not None:
                        reaches[i] = reached = True
                        total = total + (g * vi).sum()
                values.append(total)
        per_output.append(mt.stack(values).reshape(out.shape) if reached else None)
    _check_requires_grad([inputs[i] if r else None for i, r in enumerate(reaches)], "grad_inputs", strict)
    return _fill_in_zeros(per_output, outputs, strict, create_graph, "back_trick")


def _standard_jacobian_checks(strategy, create_graph, vectorize):
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode" and create_graph:
        raise NotImplementedError(
            "torch.autograd.functional.jacobian: `create_graph=True` and `strategy=\"forward-mode\"` are not "
            "supported together (yet). Please either set `create_graph=False` or `strategy=\"reverse-mode\"`.")


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """Mirrors torch.autograd.functional.jacobian (reverse mode, one backward pass per output element)."""
    _standard_jacobian_checks(strategy, create_graph, vectorize)
    if strategy == "forward-mode":
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `strategy=\"forward-mode\"` are not "
                "supported together (yet). Please either set `strict=False` or `strategy=\"reverse-mode\"`.")
        _as_tuple(inputs, "inputs", "jacobian")
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                      "only implemented for `vectorize=True`.")
    # vectorize=True (torch: vmap over the rows) and forward mode give the same Jacobian as the rows computed
    # one backward pass at a time below; MindSpore has neither vmap over autograd nor forward-mode AD
    mt = _mt()
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                               "not supported together. Please either set `strict=False` or `vectorize=False`.")
        result = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for j in range(out.nelement()):
                vj = _autograd_grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for k, (g, inp) in enumerate(zip(vj, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of "
                                               f"input {k}. This is not allowed in strict mode.")
                        g = mt.zeros_like(inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(f"The jacobian of the user-provided function is independent of input "
                                           f"{i}. This is not allowed in strict mode when create_graph=True.")
                    rows[k].append(g)
            result.append(tuple(_stack_rows(r, out, inp) for r, inp in zip(rows, inputs)))
        return _untuple(_postprocess(tuple(result), create_graph), (outputs_tuple, inputs_tuple))


def _stack_rows(rows, out, inp):
    return _mt().stack(rows, 0).view(tuple(out.shape) + tuple(inp.shape))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """Mirrors torch.autograd.functional.hessian: the jacobian of the jacobian of a scalar function."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*inp):
        out = func(*inp)
        out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        if out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single "
                               "element")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(single_output, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _untuple(res, (inputs_tuple, inputs_tuple))


def _scalar_function_outputs(func, inputs, fn_name, strict):
    outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    if outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single "
                           "element")
    return outputs_tuple, outputs


_V_NONE_SCALAR_INPUT = ("The vector v can only be None if the input to the user-provided function is a single "
                        "Tensor with a single element.")


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """Mirrors torch.autograd.functional.vhp: (func(inputs), vᵀ·H)."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, "vhp", create_graph, _V_NONE_SCALAR_INPUT)
        outputs_tuple, outputs = _scalar_function_outputs(func, inputs, "vhp", strict)
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(res, inputs, strict, create_graph, "double_back")
    return (_untuple(_postprocess(outputs, create_graph), outputs_tuple),
            _untuple(_postprocess(res, create_graph), inputs_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """Mirrors torch.autograd.functional.hvp: (func(inputs), H·v), by the double-backward trick."""
    mt = _mt()
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, "hvp", create_graph, _V_NONE_SCALAR_INPUT)
        outputs_tuple, outputs = _scalar_function_outputs(func, inputs, "hvp", strict)
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        grad_jac = tuple(mt.zeros_like(inp, requires_grad=True) for inp in inputs)
        try:
            double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
            if not strict and any(g is not None and not g.requires_grad for g in double_back):
                double_back = None   # lost its graph (MindSpore did not record a backward formula)
        except NotImplementedError as exc:
            if not _refused_create_graph(exc):
                raise
            double_back = None
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        if double_back is None:  # H is symmetric for twice differentiable functions: H·v = vᵀ·H
            res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
            res = _fill_in_zeros(res, inputs, strict, create_graph, "double_back_trick")
        else:
            res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
            res = _fill_in_zeros(res, inputs, strict, create_graph, "double_back_trick")
    return (_untuple(_postprocess(outputs, create_graph), outputs_tuple),
            _untuple(_postprocess(res, create_graph), inputs_tuple))
