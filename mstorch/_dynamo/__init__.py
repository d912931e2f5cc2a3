"""torch._dynamo: the names libraries call around ``torch.compile``, answering as eager torch does.

mstorch never captures graphs (``torch.compile`` runs the model eagerly, see ``_compile.py``), so every
question these functions answer has its eager answer: nothing is compiling, disabling compilation
leaves the call as it is, marks on tensors are recorded where torch records them (attributes that code
reads back) and change nothing else. The decorators return what torch's return (the function itself,
or a wrapper carrying torch's ``_torchdynamo_*`` attributes)."""
import functools

from . import config, eval_frame, exc  # noqa: F401
from .. import _compile, _runtime
from .._compile import OptimizedModule  # noqa: F401

__all__ = ["allow_in_graph", "assume_constant_result", "disable", "disallow_in_graph", "forbid_in_graph",
           "graph_break", "is_compiling", "list_backends", "mark_dynamic", "mark_static", "mark_static_address",
           "maybe_mark_dynamic", "reset", "config", "OptimizedModule", "set_stance", "substitute_in_graph",
           "is_dynamo_supported", "is_inductor_supported", "optimize", "run", "explain", "export",
           "reset_code_caches", "lookup_backend", "register_backend"]


def is_compiling():
    """True while torch.compile records a forward into a MindSpore graph (as torch's is while Dynamo traces)."""
    return _runtime.CAPTURE[0]


def is_dynamo_supported():
    return False   # torch answers whether it can capture frames here; mstorch never does


def is_inductor_supported():
    return False


def _innermost(fn):
    while hasattr(fn, "_torchdynamo_orig_callable"):
        fn = fn._torchdynamo_orig_callable
    return fn


def _disabled(fn, recursive, reason):
    from ..nn.modules.module import Module
    fn = _innermost(fn)
    if not callable(fn):
        raise AssertionError("fn must be callable")
    if isinstance(fn, Module):
        return OptimizedModule(fn)

    return _forwarding(fn, fn, _torchdynamo_disable=True, _torchdynamo_disable_msg=reason,
                       _torchdynamo_orig_callable=fn, _torchdynamo_disable_recursive=recursive)


def _forwarding(target, like, **attrs):
    """A function that calls ``target``, looks like ``like`` (functools.wraps) and carries ``attrs``."""
    @functools.wraps(like)
    def wrapper(*args, **kwargs):
        return target(*args, **kwargs)
    for name, value in attrs.items():
        setattr(wrapper, name, value)
    return wrapper


def disable(fn=None, recursive=True, *, reason=None, wrapping=True):
    """torch._dynamo.disable: the function (or module) runs as it is: here it always does."""
    if fn is None:
        return lambda f: _disabled(f, recursive, reason)
    return _disabled(fn, recursive, reason)


def allow_in_graph(fn):
    if isinstance(fn, (list, tuple)):
        return [allow_in_graph(x) for x in fn]
    if not callable(fn):
        raise AssertionError("allow_in_graph expects a callable")
    return fn


def disallow_in_graph(fn):
    return fn


def forbid_in_graph(fn):
    if isinstance(fn, (list, tuple)):
        return [forbid_in_graph(x) for x in fn]
    if not callable(fn):
        raise AssertionError("forbid_in_graph applies only to callables")
    fn._dynamo_forbidden = True
    return fn


def assume_constant_result(fn):
    fn._dynamo_marked_constant = True
    return fn


def substitute_in_graph(original_fn, *, can_constant_fold_through=False, skip_signature_check=False):
    """The polyfill replaces ``original_fn`` only inside captured graphs: eagerly the original runs."""
    if not callable(original_fn):
        raise TypeError(f"substitute_in_graph expects a function but got {type(original_fn)!r}")

    def deco(polyfill):
        # the polyfill stands in for ``original_fn`` only inside captured graphs
        return _forwarding(original_fn, polyfill, __torch_dynamo_original__=original_fn,
                           __torch_dynamo_polyfill__=polyfill,
                           __torch_dynamo_can_constant_fold_through__=can_constant_fold_through)
    return deco


def graph_break(msg=""):
    pass   # a break in a graph that is never captured


def _check_tensor(t, fn):
    from .._tensor import Tensor
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn} expects a tensor but recieved {type(t)}")


def mark_static_address(t, guard=False):
    """Marks ``t``'s address as fixed for CUDA graphs (read back as ``_dynamo_static_input_type``)."""
    _check_tensor(t, "mark_static_address")
    t._dynamo_static_input_type = "guarded" if guard else "unguarded"


def mark_dynamic(t, index, *, min=None, max=None, specialize_on=None):
    if isinstance(index, int):
        index = [index]
    indices = t.__dict__.setdefault("_dynamo_dynamic_indices", set())
    indices.update(index)


def maybe_mark_dynamic(t, index):
    if isinstance(index, int):
        index = [index]
    t.__dict__.setdefault("_dynamo_weak_dynamic_indices", set()).update(index)


def mark_static(t, index=None):
    if isinstance(t, type) or not hasattr(t, "shape"):
        t._dynamo_marked_static = True
        return t
    index = range(t.dim()) if index is None else ([index] if isinstance(index, int) else index)
    t.__dict__.setdefault("_dynamo_static_indices", set()).update(index)
    return None


def reset():
    """Forgets every MindSpore graph captured by torch.compile (the next call captures again)."""
    _compile.reset_all()


def reset_code_caches():
    pass


# what torch 2.13's list_backends() shows with its default exclude_tags (the others are tagged debug or
# experimental)
_UNTAGGED_BACKENDS = ("cudagraphs", "inductor", "openxla", "tvm")


def list_backends(exclude_tags=("debug", "experimental")):
    if not exclude_tags:
        return sorted(_compile._BACKENDS)
    return [b for b in sorted(_compile._BACKENDS) if b in _UNTAGGED_BACKENDS or b in _registered]


_registered = set()


def lookup_backend(compiler_fn):
    if isinstance(compiler_fn, str):
        if compiler_fn not in _compile._BACKENDS:
            raise _compile.InvalidBackend(compiler_fn)
    return compiler_fn


def register_backend(compiler_fn=None, name=None, tags=()):
    if compiler_fn is None:
        return functools.partial(register_backend, name=name, tags=tags)
    _compile._BACKENDS.add(name or compiler_fn.__name__)
    _registered.add(name or compiler_fn.__name__)
    return compiler_fn


def optimize(backend="inductor", *, nopython=False, guard_export_fn=None, guard_fail_fn=None,
             guard_filter_fn=None, disable=False, dynamic=None, package=None):
    """torch._dynamo.optimize: a decorator like ``torch.compile``'s, run eagerly."""
    return lambda fn: _compile.compile(fn, backend=backend, fullgraph=nopython, dynamic=dynamic, disable=disable)


def run(fn=None):
    return fn if fn is not None else (lambda f: f)


def _no_capture(name):
    def refuse(*args, **kwargs):
        raise RuntimeError(f"mstorch: torch._dynamo.{name} needs graph capture, which mstorch (on MindSpore's "
                           "eager mode) does not do")
    refuse.__name__ = name
    return refuse


class _BreakReason:
    """torch._dynamo's GraphCompileReason: why (part of) a forward was not captured."""

    def __init__(self, reason):
        self.reason = reason
        self.user_stack = []
        self.graph_break = True

    def __repr__(self):
        return f"GraphCompileReason(reason={self.reason!r}, user_stack=[], graph_break=True)"


class ExplainOutput:
    """torch._dynamo.explain's result. mstorch captures a module's whole forward as one MindSpore graph or
    runs it eagerly: ``graph_count`` is 1 or 0, and a refused capture is one break with its reason."""

    def __init__(self, graph_count, break_reasons, compile_times):
        self.graphs = []   # torch's FX GraphModules; mstorch's graphs are MindSpore's
        self.graph_count = graph_count
        self.graph_break_count = len(break_reasons)
        self.break_reasons = [_BreakReason(r) for r in break_reasons]
        self.op_count = 0
        self.ops_per_graph = []
        self.out_guards = []
        self.compile_times = compile_times

    def __str__(self):
        lines = [f"Graph Count: {self.graph_count}", f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {self.op_count}", "Break Reasons:"]
        for i, r in enumerate(self.break_reasons):
            lines.append(f"  Break Reason {i + 1}:\n    Reason: {r.reason}")
        lines.append(f"Compile Times: {self.compile_times}")
        return "\n".join(lines) + "\n"


def explain(f, *extra_args, **extra_kwargs):
    """torch._dynamo.explain(f)(*args): runs ``f`` once through torch.compile's capture and says whether its
    forward became a MindSpore graph, and if not why. ``f`` must be a module (mstorch compiles modules'
    forwards only; a plain function is reported as run eagerly)."""
    if extra_args or extra_kwargs:
        raise TypeError("explain(f, *args, **kwargs) was removed in torch; call explain(f)(*args, **kwargs)")

    def inner(*args, **kwargs):
        from ..nn.modules.module import Module
        if not isinstance(f, Module):
            f(*args, **kwargs)
            return ExplainOutput(0, ["mstorch compiles the forward of modules only; a function runs eagerly"],
                                 "")
        graphs = _compile._GraphCache(f, fullgraph=False)
        graphs(args, kwargs)
        count = sum(isinstance(e, tuple) for e in graphs.entries.values())
        times = ", ".join(f"{t:.4f}" for t in graphs.compile_times)
        return ExplainOutput(count, list(graphs.reasons), f"capture (MindSpore trace + graph build): {times}")
    return inner

export = _no_capture("export")

_stance = ["default"]


class set_stance:
    """torch.compiler.set_stance: a function, context manager and decorator that sets how compiled
    functions behave. Everything runs eagerly here, which each stance allows (``force_eager`` asks for
    it; no call ever recompiles), so the stance is validated and recorded only."""

    def __init__(self, stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
        if force_backend is not None and stance != "default":
            raise RuntimeError("non-default stance cannot have force_backend set")
        self.stance = stance
        self.prev = _stance[0]
        _stance[0] = stance

    def __enter__(self):
        _stance[0] = self.stance

    def __exit__(self, *exc_info):
        _stance[0] = self.prev

    def __call__(self, fn):
        _stance[0] = self.prev

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_stance(self.stance):
                return fn(*args, **kwargs)
        return wrapper
