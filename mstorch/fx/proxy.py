"""torch.fx.proxy: ``Proxy`` (a value being traced), the base tracer and torch's tracing errors.

torch routes ``torch.add(proxy, 1)`` to the proxy through ``__torch_function__``. mstorch's ops are the
table's generated wrappers: while any Proxy is alive, each wrapper looks for one among its arguments and
hands the call to ``record_op`` instead of running it (``ops/_bind.py``; the check costs one test of a
module global when no Proxy exists). Python operators on a Proxy (``proxy + 1``, ``proxy[0]``) record
``operator.*`` calls, attribute reads record ``getattr``, and method calls record ``call_method``.
"""
import collections
import copy
import dis
import enum
import inspect
import operator
from bisect import bisect_left

from ..ops import _bind
from .graph import magic_methods, reflectable_magic_methods
from .node import _base_types, map_aggregate, map_arg

__all__ = ["TracerBase", "GraphAppendingTracer", "TraceError", "Proxy", "Attribute", "ParameterProxy", "Scope",
           "ScopeContextManager"]


class Scope:
    """The module path and type a node was recorded in."""

    def __init__(self, module_path, module_type):
        self.module_path = module_path
        self.module_type = module_type


class ScopeContextManager:
    def __init__(self, scope, current_scope):
        self._prev_scope = copy.copy(scope)
        scope.module_path = current_scope.module_path
        scope.module_type = current_scope.module_type
        self._scope = scope

    def __enter__(self):
        return self._scope

    def __exit__(self, *args):
        self._scope.module_path = self._prev_scope.module_path
        self._scope.module_type = self._prev_scope.module_type


class TraceError(ValueError):
    """torch.fx.proxy.TraceError: a traced value used where a concrete one is needed."""


class TracerBase:
    graph = None
    record_stack_traces = False
    check_mutable_operations = False
    trace_asserts = False
    proxy_buffer_attributes = False
    traced_func_name = "forward"

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        node = self.graph.create_node(kind, target, args, kwargs, name, type_expr)
        self.node_name_to_scope[node.name] = (self.scope.module_path, self.scope.module_type)
        if self.module_stack:
            node.meta["nn_module_stack"] = copy.copy(self.module_stack)
        return node

    def proxy(self, node):
        return Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        """Record one operation: its arguments become graph values (``create_arg``), then a Node and its Proxy."""
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return self.proxy(node) if not proxy_factory_fn else proxy_factory_fn(node)

    def create_arg(self, a):
        """A value as a graph argument: Proxies become their Nodes, containers are converted element-wise."""
        if isinstance(a, Proxy):
            return a.node
        if hasattr(a, "__fx_create_arg__"):
            return a.__fx_create_arg__(self)
        if isinstance(a, tuple):
            if hasattr(a, "_fields"):
                return type(a)(*[self.create_arg(elem) for elem in a])
            return type(a)([self.create_arg(elem) for elem in a])
        if isinstance(a, list):
            return [self.create_arg(elem) for elem in a]
        if isinstance(a, dict):
            r = {}
            for k, v in a.items():
                if not isinstance(k, str):
                    k = self.create_arg(k)
                    map_arg(k, _no_nodes_error)
                r[k] = self.create_arg(v)
            return r
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, (*_base_types(), enum.Enum)) or a is None or a is ...:
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj):
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj):
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop or"
                         " as a *args or **kwargs function argument. See the torch.fx docs on pytorch.org for a "
                         "more detailed explanation of what types of control flow can be traced, and check out the"
                         " Proxy docstring for help troubleshooting Proxy iteration errors")

    def keys(self, obj):
        return Attribute(obj, "keys")()


def _no_nodes_error(arg):
    raise RuntimeError(f"Keys for dictionaries used as an argument cannot contain a Node. Got key: {arg}")


class GraphAppendingTracer(TracerBase):
    """The tracer of a Proxy made directly on a graph's node: operations append to that graph."""

    def __init__(self, graph):
        super().__init__()
        self.graph = graph
        self.scope = Scope("", None)
        self.module_stack = collections.OrderedDict()
        self.node_name_to_scope = {}


def assert_fn(x):
    assert x


def _calling_instruction(frame):
    insts = list(dis.get_instructions(frame.f_code))
    return insts, bisect_left(insts, frame.f_lasti, key=lambda x: x.offset)


class Proxy:
    """torch.fx.Proxy: stands for a value while tracing and records what is done with it."""

    def __init__(self, node, tracer=None):
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node
        _alive(1)

    def __del__(self):
        _alive(-1)

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, k):
        return Attribute(self, k)

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, d):
        self.__dict__ = d
        _alive(1)

    def __deepcopy__(self, memo):
        new = Proxy.__new__(type(self))
        for k, v in self.__dict__.items():
            try:
                new.__dict__[k] = copy.deepcopy(v, memo)
            except Exception:
                new.__dict__[k] = copy.copy(v)
        _alive(1)
        return new

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        # `a, b = proxy` unpacks by index (the count is in the caller's UNPACK_SEQUENCE); any other
        # iteration needs concrete values
        frame = inspect.currentframe().f_back
        insts, idx = _calling_instruction(frame)
        inst = insts[idx]
        if inst.opname == "UNPACK_SEQUENCE":
            return (self[i] for i in range(inst.argval))
        return self.tracer.iter(self)

    def __abs__(self):
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def __bool__(self):
        if self.tracer.trace_asserts:
            # `assert proxy` records an assertion instead of failing
            frame = inspect.currentframe().f_back
            insts, cur = _calling_instruction(frame)
            inst = insts[cur]
            if inst.opname in ("POP_JUMP_IF_TRUE", "POP_JUMP_FORWARD_IF_TRUE"):
                first = insts[cur + 1]
                if first.opname == "LOAD_ASSERTION_ERROR" or (first.opname == "LOAD_GLOBAL"
                                                              and first.argval == "AssertionError"):
                    self.tracer.create_proxy("call_function", assert_fn, (self,), {})
                    return True
        return self.tracer.to_bool(self)

    def keys(self):
        return self.tracer.keys(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want this call to be "
                           "recorded, please call torch.fx.wrap('len') at module scope")


class Attribute(Proxy):
    """``proxy.name``: a ``getattr`` node when used as a value, a ``call_method`` node when called."""

    def __init__(self, root, attr):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None
        _alive(1)

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr, (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


class ParameterProxy(Proxy):
    """A parameter's proxy whose shape queries answer from the parameter (``param_shapes_constant``)."""

    def __init__(self, tracer, node, name, param):
        super().__init__(node, tracer)
        self.param = param
        self.name = name

    def __repr__(self):
        return f"ParameterProxy({self.name})"

    @property
    def shape(self):
        return self.param.shape

    def size(self):
        return self.param.size()

    def dim(self):
        return self.param.dim()

    @property
    def ndim(self):
        return self.param.ndim

    def numel(self):
        return self.param.numel()

    def nelement(self):
        return self.param.nelement()


def _define_magic(method):
    def impl(*args, **kwargs):
        return args[0].tracer.create_proxy("call_function", getattr(operator, method), args, kwargs)
    impl.__name__ = method
    setattr(Proxy, f"__{method.strip('_')}__", impl)


def _define_reflectable(method):
    name = f"__r{method.strip('_')}__"

    def impl(self, rhs):
        return self.tracer.create_proxy("call_function", getattr(operator, method), (rhs, self), {})
    impl.__name__ = impl.__qualname__ = name
    setattr(Proxy, name, impl)


for _m in magic_methods:
    _define_magic(_m)
for _m in reflectable_magic_methods:
    _define_reflectable(_m)


# --- the hook in the op wrappers ---------------------------------------------------------------------

_live = [0]


def _alive(delta):
    # the op wrappers look for proxies only while some exist (see ops/_bind.proxies_alive)
    _live[0] += delta
    _bind.set_proxies_alive(_live[0] > 0)


def find_proxy(args, kwargs):
    found = []

    def look(x):
        if not found and isinstance(x, Proxy):
            found.append(x)
        return x
    map_aggregate(args, look)
    if kwargs:
        map_aggregate(kwargs, look)
    return found[0] if found else None


_NOT_TRACED = object()


def record_op(fn, method, args, kwargs):
    """An mstorch op called with a Proxy argument: record it (``call_method`` for a Tensor method, else
    ``call_function`` of the public function), as torch's Proxy.__torch_function__ does. Returns
    ``_NOT_TRACED`` when no argument is a Proxy."""
    proxy = find_proxy(args, kwargs)
    if proxy is None:
        return _NOT_TRACED
    tracer = proxy.tracer
    if method is not None:
        return tracer.create_proxy("call_method", method, args, kwargs)
    convention = _functional_convention(fn)
    if convention is not None:
        if convention[0] == "method":
            return tracer.create_proxy("call_method", convention[1], args, kwargs)
        args, kwargs = _as_torch_records(fn.__name__, convention, args, kwargs)
    return tracer.create_proxy("call_function", fn, args, kwargs, name=tracer.graph._target_to_str(fn.__name__))


_FUNCTIONAL = None


def _functional_convention(fn):
    """How torch records a call of this torch.nn.functional function (``_functional_calls``), or None."""
    global _FUNCTIONAL
    if _FUNCTIONAL is None:
        from ..nn import functional as F
        from ._functional_calls import CALLS
        _FUNCTIONAL = {id(getattr(F, name)): conv for name, conv in CALLS.items() if hasattr(F, name)}
    return _FUNCTIONAL.get(id(fn))


def _as_torch_records(name, convention, args, kwargs):
    """The arguments as torch's Python functional passes them on: bound to its parameters, defaults filled,
    then split into its positional and keyword arguments."""
    _, params, defaults, positional, keywords = convention
    if len(args) > len(params):
        raise TypeError(f"{name}() takes {len(params)} positional arguments but {len(args)} were given")
    bound = dict(defaults)
    bound.update(zip(params, args))
    for k, v in kwargs.items():
        if k not in params:
            raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
        bound[k] = v
    missing = [p for p in params if p not in bound]
    if missing:
        raise TypeError(f"{name}() missing {len(missing)} required positional argument: '{missing[0]}'")
    return tuple(bound[p] for p in positional), {k: bound[k] for k in keywords}


_bind.record_proxy_op = record_op
_bind.NOT_TRACED = _NOT_TRACED
