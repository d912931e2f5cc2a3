"""torch.fx._symbolic_trace: ``Tracer``, ``symbolic_trace``, ``wrap`` and ``is_fx_tracing``.

Tracing runs ``forward`` once with Proxies for its inputs. While it runs, ``nn.Module.__call__`` and
``nn.Module.__getattr__`` are patched (as torch patches them): a leaf module call becomes one
``call_module`` node, a parameter read one ``get_attr`` node; functions registered with ``wrap`` (and the
``math`` functions a module's globals name) are swapped for versions that record a ``call_function``.
"""
import builtins
import collections
import functools
import inspect
import math
import warnings
from itertools import chain
from types import FunctionType

from .graph import Graph
from .graph_module import GraphModule
from .node import _base_types, map_aggregate
from .proxy import ParameterProxy, Proxy, Scope, ScopeContextManager, TracerBase

__all__ = ["Tracer", "symbolic_trace", "wrap", "PH", "PHBase", "PHWithMeta", "ProxyableClassMeta",
           "is_fx_tracing", "is_fx_symbolic_tracing"]

HAS_VARSTUFF = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
_is_fx_tracing_flag = False
_proxyable_classes = {}


def _module_class():
    from ..nn import Module
    return Module


def is_fx_tracing():
    """True while ``Tracer.trace`` runs (torch.fx._symbolic_trace.is_fx_tracing)."""
    return _is_fx_tracing_flag


def is_fx_symbolic_tracing():
    return _is_fx_tracing_flag


class ProxyableClassMeta(type):
    """A metaclass whose instances built from Proxies are recorded as one ``call_function`` of the class."""

    def __init__(cls, name, bases, attrs):
        _proxyable_classes.setdefault(cls)
        super().__init__(name, bases, attrs)

    def __call__(cls, *args, **kwargs):
        instance = cls.__new__(cls)
        if not is_fx_tracing():
            cls.__init__(instance, *args, **kwargs)
            return instance
        found = []
        map_aggregate((args, kwargs), lambda a: found.append(a) if isinstance(a, Proxy) else None)
        if found:
            return found[0].tracer.create_proxy("call_function", cls, args, kwargs)
        cls.__init__(instance, *args, **kwargs)
        return instance


def _patch_function(fn, nargs):
    """``fn`` with ``*args``/``**kwargs`` turned into ``nargs`` plain positional parameters."""
    co = fn.__code__
    new_code = co.replace(co_argcount=nargs, co_posonlyargcount=0, co_kwonlyargcount=0,
                          co_flags=co.co_flags & ~HAS_VARSTUFF)
    return FunctionType(new_code, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


class PHBase:
    """A placeholder in ``concrete_args``: keep the argument as a graph input."""

    def __repr__(self):
        return "PH"


PH = PHBase()


class PHWithMeta(PHBase):
    def __init__(self, ph_key=None):
        super().__init__()
        self.ph_key = ph_key


def _transfer_attrs(fr, to):
    for attr_name in dir(fr):
        attr_val = getattr(fr, attr_name)
        if not callable(attr_val) and not attr_name.startswith("__") and not hasattr(to, attr_name):
            setattr(to, attr_name, attr_val)


class Tracer(TracerBase):
    """torch.fx.Tracer: records a module's ``forward`` as a Graph. Override ``is_leaf_module``,
    ``call_module``, ``create_proxy`` or ``create_arg`` to change what is recorded."""

    _qualname_counter = collections.defaultdict(int)

    def __init__(self, autowrap_modules=(math,), autowrap_functions=(), param_shapes_constant=False):
        super().__init__()
        self._autowrap_function_ids = {
            id(value) for name, value in chain.from_iterable(m.__dict__.items() for m in autowrap_modules)
            if not name.startswith("_") and callable(value)}
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self._autowrap_search = list(autowrap_modules)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths = None
        self.root_module_name = ""
        self.scope = Scope("", None)
        self.module_stack = collections.OrderedDict()
        self.num_calls = {}
        self.node_name_to_scope = {}

    def get_fresh_qualname(self, prefix):
        qualname = f"{prefix}0"
        if not hasattr(self.root, qualname):
            self._qualname_counter[prefix] = 0
            return qualname
        i = self._qualname_counter[prefix]
        while True:
            qualname = f"{prefix}{i}"
            i += 1
            if not hasattr(self.root, qualname):
                break
        self._qualname_counter[prefix] = i
        return qualname

    def create_arg(self, a):
        """Parameters, buffers and submodules of the root become ``get_attr`` nodes; other tensors become
        constants stored on the root (``_tensor_constant0``)."""
        import mstorch
        if isinstance(a, mstorch.nn.Parameter):
            for n, p in self.root.named_parameters():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, mstorch.Tensor):
            for n_, p_ in self.root.named_buffers():
                if a is p_:
                    return self.create_node("get_attr", n_, (), {})
        elif isinstance(a, mstorch.nn.Module):
            for n_, p_ in self.root.named_modules():
                if a is p_:
                    return self.create_node("get_attr", n_, (), {})
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            args = tuple(self.create_arg(elem) for elem in a)
            return self.create_node("call_function", a.__class__, args, {})
        if isinstance(a, mstorch.Tensor):
            qualname = self.tensor_attrs.get(a)
            if not qualname:
                qualname = self.get_fresh_qualname("_tensor_constant")
                self.tensor_attrs[a] = qualname
                setattr(self.root, qualname, a)
            return self.create_node("get_attr", qualname, (), {})
        if type(a) in _proxyable_classes:
            qualname = self.get_fresh_qualname(f"_{a.__class__.__name__}_constant_")
            setattr(self.root, qualname, a)
            return self.create_node("get_attr", qualname, (), {})
        return super().create_arg(a)

    def is_leaf_module(self, m, module_qualified_name):
        """torch's built-in layers are leaves (one call_module node); Sequential and user modules are traced through."""
        import mstorch
        module = m.__module__
        return (module.startswith(("torch.nn", "torch.ao.nn", "mstorch.nn"))
                and not isinstance(m, mstorch.nn.Sequential))

    def path_of_module(self, mod):
        if self.submodule_paths:
            path = self.submodule_paths.get(mod)
            if path is None:
                raise NameError("module is not installed as a submodule")
            return path
        for n, p in self.root.named_modules():
            if mod is p:
                return n
        raise NameError("module is not installed as a submodule")

    def call_module(self, m, forward, args, kwargs):
        module_qualified_name = self.path_of_module(m)
        with ScopeContextManager(self.scope, Scope(module_qualified_name, type(m))) as _scope:
            num_calls = self.num_calls.get(module_qualified_name, 0)
            module_key = f"{_scope.module_path}@{num_calls}" if num_calls > 0 else _scope.module_path
            self.module_stack[module_key] = (module_qualified_name, _scope.module_type)
            self.num_calls[module_qualified_name] = num_calls + 1
            if not self.is_leaf_module(m, module_qualified_name):
                ret_val = forward(*args, **kwargs)
            else:
                ret_val = self.create_proxy("call_module", module_qualified_name, args, kwargs)
            self.module_stack.popitem(last=True)
        return ret_val

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """A parameter read while tracing: one ``get_attr`` proxy per parameter (cached)."""
        import mstorch

        def proxy_for(collection):
            for n, p in collection:
                if attr_val is p:
                    if n not in parameter_proxy_cache:
                        kwargs = {}
                        if "proxy_factory_fn" in inspect.signature(self.create_proxy).parameters:
                            kwargs["proxy_factory_fn"] = (None if not self.param_shapes_constant else
                                                          lambda node: ParameterProxy(self, node, n, attr_val))
                        parameter_proxy_cache[n] = self.create_proxy("get_attr", n, (), {}, **kwargs)
                    return parameter_proxy_cache[n]
            return None

        if isinstance(attr_val, mstorch.nn.Parameter):
            found = proxy_for(self.root.named_parameters())
            if found is not None:
                return found
        if self.proxy_buffer_attributes and isinstance(attr_val, mstorch.Tensor):
            found = proxy_for(self.root.named_buffers())
            if found is not None:
                return found
        return attr_val

    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        fn_for_analysis = inspect.unwrap(root_fn)
        co = fn_for_analysis.__code__
        total_args = co.co_argcount + co.co_kwonlyargcount
        names_iter = iter(co.co_varnames)
        args = []
        skip_arg_idx = 0
        if is_module:
            if total_args == 0:
                raise RuntimeError("``self`` argument cannot be part of *args expansion!")
            skip_arg_idx = 1
            next(names_iter)
            args.append(self.root)
        sig = inspect.signature(fn_for_analysis)
        if (isinstance(concrete_args, tuple) and len(concrete_args) > 0 and (co.co_flags & HAS_VARSTUFF)
                and total_args == 1):
            for i, concrete_arg in enumerate(concrete_args):
                out = self.create_proxy("placeholder", f"input_{i}", (), {})
                if isinstance(concrete_arg, PHBase) and concrete_arg != PH:
                    _transfer_attrs(fr=concrete_arg, to=out.node)
                args.append(out)
            return root_fn, args
        arg_names = [next(names_iter) for _ in range(skip_arg_idx, total_args)]
        if isinstance(concrete_args, tuple):
            if len(arg_names) != len(concrete_args):
                raise RuntimeError(f"Tracing expected {len(arg_names)} arguments but got "
                                   f"{len(concrete_args)} concrete arguments")
            concrete_args = dict(zip(arg_names, concrete_args))
        args.extend(self._proxy_placeholder(name, concrete_args, sig, fn_for_analysis) for name in arg_names)
        if co.co_kwonlyargcount > 0 or co.co_flags & HAS_VARSTUFF:
            if co.co_flags & inspect.CO_VARARGS:
                args.append(self._proxy_placeholder("*" + next(names_iter), concrete_args, sig, fn_for_analysis))
            if co.co_flags & inspect.CO_VARKEYWORDS:
                args.append(self._proxy_placeholder("**" + next(names_iter), concrete_args, sig, fn_for_analysis))
            root_fn = _patch_function(root_fn, len(args))
        return root_fn, args

    def _proxy_placeholder(self, name, concrete_args, sig, fn_for_analysis):
        if concrete_args is not None and name in concrete_args:
            value = concrete_args[name]
            if isinstance(value, (tuple, list, dict)) and not isinstance(value, str):
                raise NotImplementedError(
                    f"torch.fx.symbolic_trace: mstorch does not trace a concrete argument '{name}' that is a "
                    "container (torch flattens it with pytree and generates pytree-based code)")
            param = sig.parameters[name]
            default = () if param.default is inspect.Parameter.empty else (param.default,)
            out = self.create_proxy("placeholder", f"{name}_1", default, {})
            if isinstance(value, PHBase):
                if value != PH:
                    _transfer_attrs(fr=value, to=out.node)
                return out
            import mstorch
            if type(value) is bool or type(value) in _base_types() and type(value) is not mstorch.Tensor:
                mstorch._assert(out == value, f"{name} has been specialized to have value {value} but got another value")
            elif value is None:
                msg = f"{name} has been specialized to have value None but got another value"
                self.create_proxy("call_function", _assert_is_none, (out, msg), {})
            else:
                warnings.warn(f"Was not able to add assertion to guarantee correct input {name} to specialized "
                              "function. It is up to the user to make sure that your inputs match the inputs you "
                              "specialized the function with.")
            return value
        if name[0] == "*":
            default = ()
        else:
            param = sig.parameters[name]
            default = () if param.default is inspect.Parameter.empty else (param.default,)
        return self.create_proxy("placeholder", name, default, {},
                                 type_expr=fn_for_analysis.__annotations__.get(name, None))

    def trace(self, root, concrete_args=None):
        """Record ``root`` (a Module's ``forward`` or a function) and return the Graph."""
        global _is_fx_tracing_flag
        import mstorch
        Module = mstorch.nn.Module
        old_flag = _is_fx_tracing_flag
        _is_fx_tracing_flag = True
        try:
            if isinstance(root, Module):
                self.root = root
                if not hasattr(type(root), self.traced_func_name):
                    raise AssertionError(f"traced_func_name={self.traced_func_name} doesn't exist in "
                                         f"{type(root).__name__}")
                fn = getattr(type(root), self.traced_func_name)
                self.root_module_name = root._get_name()
                self.submodule_paths = {mod: name for name, mod in root.named_modules()}
            else:
                self.root = Module()
                fn = root
            self.graph = Graph(tracer_cls=getattr(self, "__class__", None))
            if hasattr(fn, "__code__"):
                code = fn.__code__
                self.graph._co_fields = {"co_name": code.co_name, "co_filename": code.co_filename,
                                         "co_firstlineno": code.co_firstlineno}
            self.tensor_attrs = {}

            def collect_tensor_attrs(m, prefix_atoms):
                for k, v in m.__dict__.items():
                    if isinstance(v, mstorch.Tensor):
                        self.tensor_attrs[v] = ".".join(prefix_atoms + [k])
                for k, v in m.named_children():
                    collect_tensor_attrs(v, prefix_atoms + [k])
            collect_tensor_attrs(self.root, [])

            if not isinstance(fn, FunctionType):
                raise AssertionError(f"Expected FunctionType, got {type(fn)}")
            fn_globals = fn.__globals__
            fn, args = self.create_args_for_root(fn, isinstance(root, Module), concrete_args)
            parameter_proxy_cache = {}
            orig_getattr, orig_call = _ORIG_MODULE_GETATTR[0], _ORIG_MODULE_CALL[0]

            @functools.wraps(orig_getattr)
            def module_getattr_wrapper(mod, attr):
                return self.getattr(attr, orig_getattr(mod, attr), parameter_proxy_cache)

            @functools.wraps(orig_call)
            def module_call_wrapper(mod, *args, **kwargs):
                def forward(*args, **kwargs):
                    return orig_call(mod, *args, **kwargs)
                _autowrap_check(patcher, getattr(getattr(mod, "forward", mod), "__globals__", {}),
                                self._autowrap_function_ids)
                return self.call_module(mod, forward, args, kwargs)

            with _Patcher() as patcher:
                patcher.patch_method(Module, "__getattr__", module_getattr_wrapper, deduplicate=False)
                patcher.patch_method(Module, "__call__", module_call_wrapper, deduplicate=False)
                _patch_wrapped_functions(patcher)
                _autowrap_check(patcher, fn_globals, self._autowrap_function_ids)
                for module in self._autowrap_search:
                    _autowrap_check(patcher, module.__dict__, self._autowrap_function_ids)
                self.create_node("output", "output", (self.create_arg(fn(*args)),), {},
                                 type_expr=fn.__annotations__.get("return", None))
            self.submodule_paths = None
        finally:
            _is_fx_tracing_flag = old_flag
        return self.graph


_ORIG_MODULE_GETATTR = [None]
_ORIG_MODULE_CALL = [None]


def _remember_module_methods():
    from ..nn import Module
    _ORIG_MODULE_GETATTR[0] = Module.__getattr__
    _ORIG_MODULE_CALL[0] = Module.__call__


# --- wrap(): functions recorded as leaves ---------------------------------------------------------

_wrapped_fns_to_patch = {}   # (id(module globals), name) -> module globals


def _find_proxy(*objects):
    found = []
    map_aggregate(objects, lambda x: found.append(x) if isinstance(x, Proxy) else None)
    return found[-1] if found else None


def _create_wrapped_func(orig_fn):
    @functools.wraps(orig_fn)
    def wrapped(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is not None:
            return_proxy = proxy.tracer.create_proxy("call_function", orig_fn, args, kwargs)
            return_proxy.node.meta["is_wrapped"] = True
            return return_proxy
        return orig_fn(*args, **kwargs)
    return wrapped


class _Patcher:
    """Patches made for one trace, reverted when it ends."""

    def __init__(self):
        self.patches_made = []   # (owner, name, original or _MISSING, is_dict)
        self.visited = set()

    def patch(self, frame_dict, name, new_fn, deduplicate=True):
        new_fn.__fx_already_patched = deduplicate
        if name not in frame_dict and hasattr(builtins, name):
            self.patches_made.append((frame_dict, name, _MISSING, True))
        elif getattr(frame_dict[name], "__fx_already_patched", False):
            return
        else:
            self.patches_made.append((frame_dict, name, frame_dict[name], True))
        frame_dict[name] = new_fn

    def patch_method(self, cls, name, new_fn, deduplicate=True):
        new_fn.__fx_already_patched = deduplicate
        orig_fn = getattr(cls, name)
        if getattr(orig_fn, "__fx_already_patched", False):
            return
        self.patches_made.append((cls, name, cls.__dict__.get(name, _MISSING), False))
        setattr(cls, name, new_fn)

    def visit_once(self, thing):
        if id(thing) in self.visited:
            return False
        self.visited.add(id(thing))
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        while self.patches_made:
            owner, name, orig, is_dict = self.patches_made.pop()
            if is_dict:
                if orig is _MISSING:
                    del owner[name]
                else:
                    owner[name] = orig
            elif orig is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, orig)
        self.visited.clear()


_MISSING = object()


def _patch_wrapped_functions(patcher):
    for (_, name), frame_dict in _wrapped_fns_to_patch.copy().items():
        if name not in frame_dict and hasattr(builtins, name):
            orig_fn = getattr(builtins, name)
        else:
            orig_fn = frame_dict[name]
        patcher.patch(frame_dict, name, _create_wrapped_func(orig_fn))


def _autowrap_check(patcher, frame_dict, function_ids):
    if patcher.visit_once(frame_dict):
        for name, value in list(frame_dict.items()):
            if not name.startswith("_") and callable(value) and id(value) in function_ids:
                patcher.patch(frame_dict, name, _create_wrapped_func(value))


def wrap(fn_or_name):
    """torch.fx.wrap: called at module level, makes calls of this module-global function (or a builtin
    by name, ``wrap("len")``) leaf ``call_function`` nodes while tracing."""
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable or string name")
    fn_name = fn_or_name if isinstance(fn_or_name, str) else fn_or_name.__name__
    f = inspect.currentframe().f_back
    if f.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _wrapped_fns_to_patch[(id(f.f_globals), fn_name)] = f.f_globals
    return fn_or_name


def symbolic_trace(root, concrete_args=None):
    """torch.fx.symbolic_trace: trace a Module or function into a GraphModule."""
    import mstorch
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = root.__class__.__name__ if isinstance(root, mstorch.nn.Module) else root.__name__
    return GraphModule(tracer.root, graph, name)


@wrap
def _assert_is_none(value, msg):
    assert value is None, msg


def _assert(condition, message):
    """torch._assert: ``assert condition, message``; under torch.fx tracing a Proxy condition is recorded
    as a call (torch reaches it through __torch_function__)."""
    from ..ops import _bind
    if _bind.PROXIES_ALIVE:
        r = _bind.record_proxy_op(_assert, None, (condition, message), {})
        if r is not _bind.NOT_TRACED:
            return r
    assert condition, message
