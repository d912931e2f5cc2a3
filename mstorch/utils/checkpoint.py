"""torch.utils.checkpoint: activation checkpointing (``checkpoint``, ``checkpoint_sequential``).

Both variants run the function once without recording (nothing of its graph is kept) and, when a
gradient reaches the checkpoint, run it again with recording on, from the CPU generator state the first
run started from (so dropout draws the same masks), and backpropagate through that second run.

- ``use_reentrant=True`` is torch's ``CheckpointFunction`` design: a custom Function over the tensor
  arguments; its backward calls ``backward()`` on the recomputed outputs, which accumulates into the
  ``.grad`` of every parameter the function used. Only the tensor arguments are inputs of the node, so
  outputs require grad only when an argument does (torch's "None of the inputs have requires_grad=True"
  case), and ``autograd.grad`` / ``backward(inputs=...)`` are refused as in torch.
- ``use_reentrant=False`` (torch records the graph and drops the saved tensors through saved-tensor
  hooks, which MindSpore does not have) is a custom Function whose inputs are the tensors found in the
  arguments (nested in tuples, lists and dicts, keyword arguments included) plus the parameters the
  function reaches: those of every Module called during the run, and the tensors and Modules held by
  the function itself (bound Module, closure cells, default arguments, globals it names, partial
  arguments). Its backward returns the gradients of all of them, so ``autograd.grad`` and
  ``backward(inputs=...)`` work. Differences from torch are listed in docs/known-differences.md.
"""
import contextlib
import functools
import sys
import warnings

from .. import _tensor
from .. import random as _random
from ..autograd import Function, grad_mode
from .. import autograd as _autograd

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "check_backward_validity", "detach_variable", "noop_context_fn", "set_checkpoint_early_stop",
           "set_checkpoint_debug_enabled", "DefaultDeviceType", "get_device_states", "set_device_states"]

Tensor = _tensor.Tensor
_DEFAULT_DETERMINISM_MODE = "default"
_checkpoint_debug_enabled = None
_enable_checkpoint_early_stop = None


class CheckpointError(RuntimeError):
    pass


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Mirrors torch.utils.checkpoint.set_checkpoint_debug_enabled."""
    global _checkpoint_debug_enabled
    prev = _checkpoint_debug_enabled
    _checkpoint_debug_enabled = enabled
    try:
        yield
    finally:
        _checkpoint_debug_enabled = prev


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Accepted for torch scripts; mstorch's recomputation always runs the whole function."""
    global _enable_checkpoint_early_stop
    prev = _enable_checkpoint_early_stop
    _enable_checkpoint_early_stop = enable
    try:
        yield
    finally:
        _enable_checkpoint_early_stop = prev


class DefaultDeviceType:
    """Mirrors torch.utils.checkpoint.DefaultDeviceType (mstorch keeps one CPU generator)."""

    _default_device_type = None

    @staticmethod
    def set_device_type(device="cuda"):
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type():
        return DefaultDeviceType._default_device_type or "cpu"


def get_device_states(*args):
    """Mirrors torch.utils.checkpoint.get_device_states: the ids of the accelerator devices the tensors in
    ``args`` live on, and each device's generator state (CPU tensors add nothing, as in torch)."""
    from ._pytree import tree_leaves
    ids = []
    for arg in tree_leaves(args):
        if isinstance(arg, Tensor) and arg.device.type not in ("cpu", "meta") and arg.get_device() not in ids:
            ids.append(arg.get_device())
    gens = _random.device_generators()
    return ids, [gens[i].get_state() for i in ids]


def set_device_states(devices, states, *, device_type=None):
    """Mirrors torch.utils.checkpoint.set_device_states (see ``get_device_states``)."""
    if device_type == "meta":
        return
    gens = _random.device_generators()
    for i, state in zip(devices, states):
        gens[i].set_state(state)


def _rng_snapshot():
    """The generators' states a recomputation starts from: the CPU generator's and every device's (torch
    saves the CPU state and those of the devices the inputs are on; saving all is the same for the draws)."""
    return _random.get_rng_state(), [g.get_state() for g in _random.device_generators()]


def detach_variable(inputs):
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for inp in inputs:
        if isinstance(inp, Tensor):
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            inp = x
        out.append(inp)
    return tuple(out)


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


def _meta(t):
    return {"shape": t.shape, "dtype": t.dtype, "device": t.device}


@contextlib.contextmanager
def _at_forward_rng(state):
    """Run with the generators at ``state`` (``_rng_snapshot``; None: leave them alone), restoring them
    afterwards."""
    with _random.fork_rng(enabled=state is not None):
        if state is not None:
            _random.set_rng_state(state[0])
            for g, st in zip(_random.device_generators(), state[1]):
                g.set_state(st)
        yield


def _checkpoint_valid():
    """torch's ``_is_checkpoint_valid``: False inside autograd.grad or backward(inputs=...).

    The engine call that runs this backward is the innermost ``mstorch.autograd._run`` frame on the
    stack (MindSpore calls the Function's backward synchronously from it)."""
    frame = sys._getframe(1)
    run_code = _autograd._run.__code__
    while frame is not None:
        if frame.f_code is run_code:
            loc = frame.f_locals
            return bool(loc.get("accumulate", True)) and not loc.get("inputs")
        frame = frame.f_back
    return True


class CheckpointFunction(Function):
    """The reentrant variant (``use_reentrant=True``), as torch's CheckpointFunction."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.fwd_cpu_state = _rng_snapshot() if preserve_rng_state else None
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*(a for a in args if isinstance(a, Tensor)))
        with grad_mode.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not _checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an "
                "`inputs` parameter to .backward(). To resolve this error, you can either set "
                "use_reentrant=False, or call .backward() without passing the `inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        with _at_forward_rng(ctx.fwd_cpu_state):
            detached = detach_variable(tuple(inputs))
            with grad_mode.enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in detached)


# --- the non-reentrant variant

def _flatten(obj, out):
    """Tensors inside nested tuples/lists/dicts, in order; returns a rebuild spec."""
    if isinstance(obj, Tensor):
        out.append(obj)
        return 0
    if isinstance(obj, (tuple, list)):
        return (type(obj), [_flatten(o, out) for o in obj])
    if isinstance(obj, dict):
        return (dict, {k: _flatten(v, out) for k, v in obj.items()})
    return ("leaf", obj)


def _rebuild(spec, it):
    if spec == 0:
        return next(it)
    kind, body = spec
    if kind == "leaf":
        return body
    if kind is dict:
        return {k: _rebuild(v, it) for k, v in body.items()}
    items = [_rebuild(s, it) for s in body]
    return kind(*items) if hasattr(kind, "_fields") else kind(items)


def _held_by(fn, found, seen):
    """Tensors and Modules that ``fn`` holds: bound Module, closure, defaults, named globals, partials."""
    from ..nn import Module
    if id(fn) in seen:
        return
    seen.add(id(fn))
    if isinstance(fn, (Tensor, Module)):
        found.append(fn)
        return
    if isinstance(fn, functools.partial):
        for a in (fn.func, *fn.args, *fn.keywords.values()):
            _held_by(a, found, seen)
        return
    if isinstance(fn, (list, tuple)):
        for a in fn:
            _held_by(a, found, seen)
        return
    target = getattr(fn, "__self__", None)
    if target is not None:
        _held_by(target, found, seen)
    func = getattr(fn, "__func__", fn)
    code = getattr(func, "__code__", None)
    if code is None:
        return
    cells = [c.cell_contents for c in (func.__closure__ or ()) if _cell_filled(c)]
    defaults = list(func.__defaults__ or ()) + list((func.__kwdefaults__ or {}).values())
    glob = func.__globals__
    named = [glob[n] for n in code.co_names if n in glob]
    for a in cells + defaults + named:
        if isinstance(a, (Tensor, Module, functools.partial, list, tuple)) or _is_user_function(a):
            _held_by(a, found, seen)


def _cell_filled(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _is_user_function(obj):
    return callable(obj) and hasattr(getattr(obj, "__func__", obj), "__code__")


def _reached_tensors(fn, modules):
    from ..nn import Module
    held = []
    _held_by(fn, held, set())
    tensors = [h for h in held if isinstance(h, Tensor)]
    for m in [h for h in held if isinstance(h, Module)] + modules:
        tensors.extend(m.parameters())
    return tensors


class NonReentrantCheckpoint(Function):
    """The ``use_reentrant=False`` node: inputs are the argument tensors then the reached parameters;
    ``job`` holds the function, its outputs from the unrecorded run and the generator state."""

    @staticmethod
    def forward(ctx, job, *tensors):
        ctx.job = job
        ctx.save_for_backward(*tensors)
        return tuple(t.detach() for t in job.out_tensors)

    @staticmethod
    def backward(ctx, *grads):
        job = ctx.job
        saved = ctx.saved_tensors
        detached = [detach_variable((t,))[0] for t in saved]
        n_args = job.n_arg_tensors
        with _at_forward_rng(job.fwd_cpu_state), job.recompute_context:
            args, kwargs = _rebuild(job.spec, iter(detached[:n_args]))
            with grad_mode.enable_grad():
                outputs = job.fn(*args, **kwargs)
        flat = []
        _flatten(outputs, flat)
        if job.check:
            _determinism_check(job.out_tensors, flat)
        pairs = [(o, g) for o, g in zip(flat, grads) if o.requires_grad and g is not None]
        wanted = [(k, t) for k, t in enumerate(detached[:n_args]) if t.requires_grad]
        wanted += [(n_args + k, t) for k, t in enumerate(saved[n_args:])]
        result = [None] * len(saved)
        if pairs and wanted:
            got = _autograd.grad([o for o, _ in pairs], [t for _, t in wanted], [g for _, g in pairs],
                                 allow_unused=True)
            for (k, _), g in zip(wanted, got):
                result[k] = g
        return (None,) + tuple(result)


def _determinism_check(before, after):
    if len(before) != len(after):
        raise CheckpointError(
            "torch.utils.checkpoint: A different number of tensors was saved during the original forward "
            f"and recomputation.\nNumber of tensors saved during forward: {len(before)}\nNumber of tensors "
            f"saved during recomputation: {len(after)}.\n")
    diff = ""
    for k, (a, b) in enumerate(zip(before, after)):
        if _meta(a) != _meta(b):
            diff += f"tensor at position {k}:\nsaved metadata: {_meta(a)}\nrecomputed metadata: {_meta(b)}\n"
    if diff:
        raise CheckpointError(
            "torch.utils.checkpoint: Recomputed values for the following tensors have different metadata "
            f"than during the forward pass.\n{diff}.\n")


class _Job:
    pass


def _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, debug, args, kwargs):
    from ..nn.modules.module import register_module_forward_pre_hook
    if _checkpoint_debug_enabled if _checkpoint_debug_enabled is not None else debug:
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in (_DEFAULT_DETERMINISM_MODE, "none"):
        raise ValueError("determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    forward_context, recompute_context = context_fn()
    if not grad_mode.is_grad_enabled():
        with forward_context:
            return function(*args, **kwargs)
    job = _Job()
    job.fn, job.recompute_context = function, recompute_context
    job.check = determinism_check == _DEFAULT_DETERMINISM_MODE
    job.fwd_cpu_state = _rng_snapshot() if preserve else None
    called = []
    handle = register_module_forward_pre_hook(lambda m, _: called.append(m))
    try:
        with forward_context, grad_mode.no_grad():
            out = function(*args, **kwargs)
    finally:
        handle.remove()
    arg_tensors = []
    job.spec = _flatten((args, kwargs), arg_tensors)
    job.n_arg_tensors = len(arg_tensors)
    ids = {id(t) for t in arg_tensors}
    extra = []
    for t in _reached_tensors(function, called):
        if t.requires_grad and id(t) not in ids:
            ids.add(id(t))
            extra.append(t)
    job.out_tensors = []
    out_spec = _flatten(out, job.out_tensors)
    if not job.out_tensors:
        return out
    res = NonReentrantCheckpoint.apply(job, *arg_tensors, *extra)
    if not isinstance(res, tuple):
        res = (res,)
    return _rebuild(out_spec, iter(res))


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check=_DEFAULT_DETERMINISM_MODE, debug=False, early_stop=True, **kwargs):
    """Mirrors torch.utils.checkpoint.checkpoint (torch 2.13: a missing ``use_reentrant`` warns and
    means True)."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
            "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
            "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
            "you can pass use_reentrant=True. Refer to docs for more details on the differences between the "
            "two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, debug, args,
                                         kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Mirrors torch.utils.checkpoint.checkpoint_sequential."""
    from ..nn import Sequential
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
            "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
            "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
            "you can pass use_reentrant=True. Refer to docs for more details on the differences between the "
            "two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
