"""torch.compile: a module's forward recorded into a MindSpore graph by MindSpore's trace capture.

``torch.compile(module)`` returns torch's ``OptimizedModule`` (``state_dict`` keys with torch's
``_orig_mod.`` prefix, attributes read and written through to the original module). Its forward runs
through ``_GraphCache``: the first call with a new guard key (input shapes, dtypes and Python constants,
the shapes and dtypes of the parameters and buffers) runs the forward once in PyNative while MindSpore
records the operators executed (``mindspore.jit``'s ``capture_mode="trace"``: ``_ms_private.trace_*``);
later calls with that key replay the graph. Parameters and buffers are inputs of the graph, so optimizer
updates, ``load_state_dict`` and in-place buffer writes are seen.

A trace keeps every Python decision taken for the example input, so a capture is refused, and that key
runs eagerly with the reason recorded (``torch._dynamo.explain``), where the forward read tensor values on
the host (a data-dependent branch or a numpy kernel), wrote in place to an input, parameter or buffer,
raised, returned something other than tensors in tuples/lists/dicts, or gave graph outputs different
from its own PyNative run. Forwards that autograd would record (grad enabled and a tensor requiring grad),
modules in training mode and autocast regions run eagerly too (not captured: the trace would not
replay dropout's fresh masks, batch-norm statistic updates or the backward as torch's compiled module
does). ``fullgraph=True`` raises ``torch._dynamo.exc.Unsupported`` instead of running eagerly.
A captured graph is not always faster: on CPU it runs MindSpore's native kernels, where the eager op
table picks faster compositions (host BLAS, unfold+matmul convolutions). So, as torch's autotuning modes
measure candidates, each key's first ``_TRIALS`` calls after the capture alternate between replaying the
graph and the eager forward (equal values: the capture checked them), and the faster by median is kept for
that key (``_GraphCache.choices``); ``MSTORCH_COMPILE=graph`` always replays the graph.
``backend="eager"``/``"aot_eager"`` and callable backends run eagerly (they execute torch's captured FX graph
in eager mode, which has no MindSpore graph counterpart); ``torch.compile(fn)`` on a plain function runs it
eagerly (tensors it reads from closures or globals would be frozen into a trace as constants).
"""
import functools
import itertools
import statistics
import time
import warnings
import weakref

import os

import mindspore

from . import _ms_private as _P
from . import _runtime
from .nn.modules import module as _module_mod
from .nn.modules.module import Module

__all__ = ["compile", "OptimizedModule", "InvalidBackend"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
# torch._dynamo.list_backends(exclude_tags=()) in torch 2.13
_BACKENDS = {"aot_eager", "aot_eager_decomp_partition", "aot_eager_decomp_partition_crossref",
             "aot_eager_decomp_partition_with_mode", "aot_eager_default_partitioner", "aot_ts", "cudagraphs",
             "dynamo_accuracy_minifier_backend", "dynamo_minifier_backend", "eager", "eager_debug",
             "eager_noexcept", "inductor", "invoke_subgraph", "openxla", "openxla_eval", "pre_dispatch_eager", "ts",
             "tvm"}


class InvalidBackend(RuntimeError):
    """Mirrors torch._dynamo.exc.InvalidBackend."""

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for available backends.")


def _has_any_global_hook():
    m = _module_mod
    return bool(m._global_backward_pre_hooks or m._global_backward_hooks or m._global_forward_pre_hooks
                or m._global_forward_hooks or m._global_forward_hooks_with_kwargs)


# backends whose torch counterpart runs the captured graph eagerly: mstorch runs the module eagerly
_EAGER_BACKENDS = ("eager", "aot_eager", "eager_debug", "eager_noexcept", "pre_dispatch_eager")
_CACHES = weakref.WeakSet()   # every _GraphCache, for torch._dynamo.reset()
_TRACE_CONFIG = []
_GRAPH_IDS = itertools.count()   # a fresh graph name per capture: MindSpore reuses a graph by name and input key


class _Refused(Exception):
    """A capture that cannot be trusted; the message is the reason shown by torch._dynamo.explain."""


_CONSTANTS = (type(None), bool, int, float, complex, str)


def _flatten(value, tensors, Tensor):
    """A hashable description of ``value`` (an argument or a result) with each Tensor replaced by its slot
    in ``tensors``. Only immutable Python values are constants of a graph: any other object (a namedtuple,
    a ModelOutput, a dataclass) could hold tensors or change, and a trace would freeze it."""
    from ._device import device
    from ._dtype import dtype
    kind = type(value)
    if kind is Tensor or isinstance(value, Tensor) and type(value).__module__.startswith("mstorch."):
        tensors.append(value)
        return ("T", tuple(value.shape), value.dtype, value.requires_grad)
    if kind in (tuple, list):
        return (kind, tuple(_flatten(v, tensors, Tensor) for v in value))
    if kind is dict:
        return (dict, tuple((k, _flatten(v, tensors, Tensor)) for k, v in value.items()))
    if kind in _CONSTANTS or isinstance(value, (dtype, device)):
        return ("C", kind, value)
    raise _Refused(f"the forward takes or returns a {kind.__name__} (a captured forward takes and returns "
                   "tensors and Python scalars, strings and None, in tuples, lists and dicts)")


def _rebuild(spec, tensors, Tensor, wrap):
    kind = spec[0]
    if kind == "T":
        return wrap(tensors.pop(0))
    if kind == "C":
        return spec[2]
    if kind is dict:
        return {k: _rebuild(v, tensors, Tensor, wrap) for k, v in spec[1]}
    return kind(_rebuild(v, tensors, Tensor, wrap) for v in spec[1])


# calls per contender before a key settles on the graph or the eager forward; "graph" replays the graph always
_TRIALS = 3
_ALWAYS_GRAPH = [os.environ.get("MSTORCH_COMPILE", "") == "graph"]
_clock = time.perf_counter


class _GraphCache:
    """The graphs captured for one compiled module, keyed by guards, and why any key runs eagerly."""

    def __init__(self, mod, fullgraph):
        self.mod = mod
        self.fullgraph = fullgraph
        self.entries = {}         # guard key -> (phase, output spec) or a refusal reason (str)
        self.reasons = []         # refusal reasons, in order (torch._dynamo.explain's break_reasons)
        self.compile_times = []   # seconds per capture
        self.trials = {}          # guard key -> (graph seconds, eager seconds) while measuring
        self.choices = {}         # guard key -> "graph" or "eager (graph X ms, eager Y ms)" once measured
        self.limit_hit = False
        _CACHES.add(self)

    def reset(self):
        # MindSpore keeps the graphs it built (it has no public way to drop one); they are no longer used
        self.entries.clear()
        self.reasons.clear()
        self.compile_times.clear()
        self.trials.clear()
        self.choices.clear()
        self.limit_hit = False

    def _refuse(self, reason, key=None):
        if self.fullgraph:
            from ._dynamo.exc import Unsupported
            raise Unsupported(f"torch.compile(fullgraph=True): mstorch could not capture the forward of "
                              f"{type(self.mod).__name__} as one MindSpore graph: {reason}")
        if key is not None:
            self.entries[key] = reason
        if reason not in self.reasons:
            self.reasons.append(reason)

    def __call__(self, args, kwargs):
        from ._tensor import Tensor
        from .ops import _autocast
        mod = self.mod
        eager = mod
        if _STANCE_EAGER():
            return eager(*args, **kwargs)
        inputs = []
        try:
            spec = _flatten((args, kwargs), inputs, Tensor)
        except _Refused as e:
            self._refuse(str(e))
            return eager(*args, **kwargs)
        params = [t for _, t in mod.named_parameters()]
        # buffers are graph inputs (a trace would freeze a plain tensor as a constant); MindSpore Parameters
        # are the graph's own parameters, read by reference: the key holds their identity
        states = [t for _, t in mod.named_buffers() if not isinstance(t._ms, mindspore.Parameter)]
        if _P.grad_enabled() and any(t.requires_grad for t in inputs + params):
            self._refuse("autograd records this forward (grad mode is on and a parameter or input requires "
                         "grad): compiled training forwards run eagerly in mstorch")
            return eager(*args, **kwargs)
        if any(m.training for m in mod.modules()):
            self._refuse("the module is in training mode: dropout masks and batch-norm statistics updates are "
                         "not replayed by a traced graph, so training-mode forwards run eagerly")
            return eager(*args, **kwargs)
        if _autocast.ACTIVE:
            self._refuse("autocast is enabled: forwards under autocast run eagerly")
            return eager(*args, **kwargs)
        key = (spec, tuple((tuple(t.shape), t.dtype) for t in states), tuple(id(p._ms) for p in params))
        entry = self.entries.get(key)
        if entry is None:
            from ._dynamo import config
            limit = config.recompile_limit if config.recompile_limit != 8 else config.cache_size_limit
            graphs = sum(isinstance(e, tuple) for e in self.entries.values())
            if graphs >= limit:
                if not self.limit_hit:
                    self.limit_hit = True
                    warnings.warn(f"torch._dynamo hit config.recompile_limit ({limit}) for the forward of "
                                  f"{type(mod).__name__}: new guard keys run eagerly", stacklevel=3)
                return eager(*args, **kwargs)
            return self._capture(key, spec, inputs, states, params, args, kwargs, eager)
        if isinstance(entry, str):
            return eager(*args, **kwargs)
        choice = "graph" if _ALWAYS_GRAPH[0] else self.choices.get(key)
        if choice == "graph":
            return self._replay(entry, inputs, states)
        if choice is not None:
            return eager(*args, **kwargs)
        graph_times, eager_times = self.trials.setdefault(key, ([], []))
        on_graph = len(graph_times) <= len(eager_times)
        start = _clock()
        result = self._replay(entry, inputs, states) if on_graph else eager(*args, **kwargs)
        (graph_times if on_graph else eager_times).append(_clock() - start)
        if len(eager_times) >= _TRIALS:
            g, e = statistics.median(graph_times), statistics.median(eager_times)
            self.choices[key] = "graph" if g <= e else f"eager (graph {g * 1e3:.2f} ms, eager {e * 1e3:.2f} ms)"
            del self.trials[key]
        return result

    @staticmethod
    def _replay(entry, inputs, states):
        from ._tensor import Tensor, wrap
        phase, out_spec = entry
        with _no_grad():
            outs = _P.trace_replay(phase, tuple(t._ms for t in inputs + states), _trace_config())
        return _rebuild(out_spec, list(outs), Tensor, wrap)

    def _capture(self, key, spec, inputs, states, params, args, kwargs, eager):
        import numpy as np
        from ._tensor import Tensor, wrap
        n_in = len(inputs)
        seen = {}

        def traced(*ms_args):
            new_args, new_kwargs = _rebuild(spec, list(ms_args[:n_in]), Tensor, wrap)
            out = eager(*new_args, **new_kwargs)
            flat = []
            seen["spec"] = _flatten(out, flat, Tensor)
            seen["eager"] = [t._ms for t in flat]
            return tuple(seen["eager"])

        watched = inputs + states + params
        versions = [_P.version(t._ms) for t in watched]
        reads = _runtime.READS["count"]
        start = time.perf_counter()
        _runtime.CAPTURE[0] = True
        try:
            with _runtime.recording_host_reads() as where, _no_grad():
                phase, outs = _P.trace_capture(f"mstorch_compile.{type(self.mod).__name__}.{next(_GRAPH_IDS)}",
                                               traced, tuple(t._ms for t in inputs + states), _trace_config())
        except _Refused as e:
            reason = str(e)
        except Exception as e:   # noqa: BLE001 - any failure of the capture is a refusal; eager shows the error
            reason = f"capture raised {type(e).__name__}: {e}"
        else:
            reason = None
            if _runtime.READS["count"] != reads:
                trail = where[0].strip().splitlines()[-2:] if where else []
                reason = ("the forward reads tensor values on the host (a data-dependent branch or a host kernel "
                          "would be frozen into the graph): " + " ".join(s.strip() for s in trail))
            elif any(_P.version(t._ms) != v for t, v in zip(watched, versions)):
                reason = "the forward writes in place to an input, parameter or buffer"
            elif len(outs) != len(seen["eager"]) or not all(
                    np.allclose(_runtime.read_host(g), _runtime.read_host(e), rtol=1e-5, atol=1e-6, equal_nan=True)
                    and g.shape == e.shape and g.dtype == e.dtype for g, e in zip(outs, seen["eager"])):
                reason = "the graph's outputs differ from the forward's PyNative outputs"
        finally:
            _runtime.CAPTURE[0] = False
        self.compile_times.append(time.perf_counter() - start)
        if reason is not None:
            self._refuse(reason, key)
            return eager(*args, **kwargs)
        self.entries[key] = (phase, seen["spec"])
        return _rebuild(seen["spec"], list(outs), Tensor, wrap)


def _STANCE_EAGER():   # noqa: N802 - torch.compiler.set_stance("force_eager") runs compiled modules eagerly
    import sys
    dynamo = sys.modules.get(__package__ + "._dynamo")
    return dynamo is not None and dynamo._stance[0] == "force_eager"


def _trace_config():
    if not _TRACE_CONFIG:
        _TRACE_CONFIG.append(_P.trace_config("O0"))
    return _TRACE_CONFIG[0]


class _no_grad:
    def __enter__(self):
        self.prev = _P.grad_enabled()
        _P.set_grad_enabled(False)

    def __exit__(self, *exc):
        _P.set_grad_enabled(self.prev)


def reset_all():
    """torch._dynamo.reset(): forget every captured graph and refusal."""
    for cache in list(_CACHES):
        cache.reset()


class OptimizedModule(Module):
    """Mirrors torch._dynamo.eval_frame.OptimizedModule; ``forward`` replays MindSpore graphs of the
    original module's forward where they were captured (``_graphs``; None: eager)."""

    _opt_mod_attributes = {"_orig_mod", "dynamo_ctx", "_torchdynamo_orig_callable", "forward", "_forward",
                           "__dict__", "_super_module_initialized", "get_compiler_config", "_graphs"}

    def __init__(self, mod, dynamo_ctx=None, graphs=None):
        object.__setattr__(self, "_orig_mod", mod)   # attribute access reads it before Module.__init__ ends
        object.__setattr__(self, "_super_module_initialized", False)
        super().__init__()
        object.__setattr__(self, "_super_module_initialized", True)
        # registered as the child ``_orig_mod`` (torch's state_dict prefix) without renaming the original
        # module's MindSpore parameters, which keep the names the original module gives them
        del self.__dict__["_orig_mod"]
        self._modules["_orig_mod"] = self._cells["_orig_mod"] = mod
        object.__setattr__(self, "dynamo_ctx", dynamo_ctx)
        object.__setattr__(self, "_graphs", graphs)

    def forward(self, *args, **kwargs):
        graphs = self.__dict__.get("_graphs")
        if graphs is None:
            return self._orig_mod(*args, **kwargs)
        return graphs(args, kwargs)

    def __call__(self, *args, **kwargs):
        if _has_any_global_hook():
            import warnings
            warnings.warn(
                "Using `torch.compile(module)` when there are global hooks on modules (e.g., from "
                "`register_module_forward_hook`); this will cause the hooks to fire an extra time for the "
                "`OptimizedModule` created by `torch.compile(module)`. If this causes undesired behavior, please "
                "try using `module.compile()`, or use the per-module hooks instead", stacklevel=2)
        return Module._call_impl(self, *args, **kwargs)

    def __len__(self):
        mod = self._orig_mod
        if hasattr(type(mod), "__len__"):
            return len(mod)
        raise TypeError(f"{type(mod).__name__} does not support len()")

    def __reduce_ex__(self, protocol):
        graphs = self.__dict__.get("_graphs")
        return (_rebuild_optimized, (self._orig_mod, self.dynamo_ctx, graphs is not None and graphs.fullgraph,
                                     graphs is not None))

    @property
    def training(self):
        return self._orig_mod.training

    @training.setter
    def training(self, value):
        # the Module default set during __init__ is ignored; afterwards the original module's flag changes
        if self.__dict__.get("_super_module_initialized"):
            self._orig_mod.training = value

    def __getattr__(self, name):
        d = self.__dict__
        if name == "_orig_mod":
            if "_modules" in d and "_orig_mod" in d["_modules"]:
                return d["_modules"]["_orig_mod"]
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        if not d.get("_super_module_initialized"):
            return Module.__getattr__(self, name)
        return getattr(self._orig_mod, name)

    def __setattr__(self, name, value):
        if (not self.__dict__.get("_super_module_initialized") or hasattr(type(self), name)
                or name in OptimizedModule._opt_mod_attributes):
            return Module.__setattr__(self, name, value)
        return setattr(self._orig_mod, name, value)

    def __delattr__(self, name):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return Module.__delattr__(self, name)
        return delattr(self._orig_mod, name)


def _rebuild_optimized(mod, dynamo_ctx, fullgraph, compiled):
    return OptimizedModule(mod, dynamo_ctx, _GraphCache(mod, fullgraph) if compiled else None)


def _check_backend(backend, mode, options, dynamic):
    if backend == "inductor":
        if mode not in _MODES and mode is not None:
            raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
        if options is not None:
            options.items()   # torch iterates the options dict (a non-mapping fails there)
    elif isinstance(backend, str) and backend not in _BACKENDS:
        raise InvalidBackend(name=backend)
    if dynamic is not None and not isinstance(dynamic, bool):
        raise AssertionError(f"Expected enable to be a bool, got {type(dynamic)}")


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None, name=None,
            disable=False, recompile_limit=None, isolate_recompiles=False, shapes_spec=None):
    """Mirrors torch.compile: a module's forward runs as MindSpore graphs where the capture is trusted
    (see the module docstring), eagerly otherwise; a function runs eagerly."""
    if backend is None:
        backend = "inductor"
    if model is None:
        def fn(model):
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                           options=options, name=name, disable=disable, recompile_limit=recompile_limit,
                           isolate_recompiles=isolate_recompiles, shapes_spec=shapes_spec)
        return fn
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is None and options is None:
        mode = "default"
    _check_backend(backend, mode, options, dynamic)
    if disable:
        return model
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if isinstance(model, Module):
        compiles = not callable(backend) and backend not in _EAGER_BACKENDS
        return OptimizedModule(model, graphs=_GraphCache(model, fullgraph) if compiles else None)

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)
    compiled._torchdynamo_orig_callable = model
    return compiled


compile.mstorch_difference = ("a module's inference forward (no grad, eval mode) runs as MindSpore graphs captured by "
                              "trace; training forwards and plain functions run eagerly")
