"""torch.fx.node: ``Node`` (one operation of a Graph), ``map_arg``/``map_aggregate`` and qualified names.

A Node sits in its graph's doubly linked list (``_prev``/``_next`` around a sentinel root node) and keeps
the use-def edges both ways: ``_input_nodes`` (the nodes in its args/kwargs) and ``users`` (the nodes that
take it as an argument). Assigning ``args``/``kwargs`` is the one place those edges change.

Names in printed graphs and generated code are torch's (``torch.add``, ``torch.nn.functional.relu``): an
mstorch function is named by where torch users find it (``_public_names``), so ``gm.code`` reads as
torch's and runs with ``torch`` bound to mstorch.
"""
import builtins
import operator
import types

from .immutable_collections import immutable_dict, immutable_list

__all__ = ["Node", "map_arg", "map_aggregate", "has_side_effect", "Argument", "Target"]

Target = object     # a callable (call_function) or a str (every other op)
Argument = object   # a nested tuple/list/dict/slice of Nodes and base values

_legal_ops = dict.fromkeys(["placeholder", "call_method", "call_module", "call_function", "get_attr",
                            "output", "root"])
_side_effectful_functions = {operator.setitem}


def has_side_effect(fn):
    """Keep calls of ``fn`` through ``Graph.eliminate_dead_code`` (torch.fx.node.has_side_effect)."""
    _side_effectful_functions.add(fn)
    return fn


def _base_types():
    import mstorch
    return (str, int, float, bool, complex, mstorch.dtype, mstorch.Tensor, mstorch.device,
            type(mstorch.contiguous_format), type(mstorch.strided))


# --- torch's qualified names for mstorch objects ------------------------------------------------------

_PUBLIC = None   # id(object) -> "torch.<path>", built on first use
# torch.nn.functional first: a few functions are the same object at the top level and in F (dropout),
# and models call them through F
_PUBLIC_SPACES = ("nn.functional", "", "linalg", "special", "fft", "Tensor", "nn", "autograd")


def _public_names():
    global _PUBLIC
    if _PUBLIC is None:
        import mstorch
        table = {}
        for space in _PUBLIC_SPACES:
            owner = mstorch
            for part in filter(None, space.split(".")):
                owner = getattr(owner, part)
            prefix = "torch." + space if space else "torch"
            members = vars(owner)
            # the object's own name first, so an alias (torch.absolute is torch.abs) keeps its real name
            for name, value in sorted(members.items(), key=lambda kv: getattr(kv[1], "__name__", None) != kv[0]):
                if name.startswith("__") or not callable(value) or isinstance(value, types.ModuleType):
                    continue
                table.setdefault(id(value), f"{prefix}.{name}")
        # torch's functionals written in C print under their own module (F.conv2d is torch.conv2d): the same
        # name where mstorch has that path (torch._C._nn.* it has not: those keep torch.nn.functional.*)
        from ._functional_calls import NAMES
        for name, qualified in NAMES.items():
            fn = getattr(mstorch.nn.functional, name, None)
            owner = mstorch
            for part in qualified.split(".")[1:]:
                owner = getattr(owner, part, None)
            if fn is not None and callable(owner):
                table[id(fn)] = qualified
        _PUBLIC = table
    return _PUBLIC


def _mstorch_name(obj):
    """torch's dotted name of an mstorch object, or None when it is not mstorch's."""
    found = _public_names().get(id(obj))
    if found is not None:
        return found
    module = getattr(obj, "__module__", None) or ""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if name and (module == "mstorch" or module.startswith("mstorch.")):
        import sys
        owner = sys.modules.get(module)
        if owner is not None and getattr(owner, name, None) is obj:
            return "torch" + module[len("mstorch"):] + "." + name
    return None


def _is_from_torch(obj):
    return _mstorch_name(obj) is not None


def _type_repr(obj):
    """How a type annotation prints (torch.fx.node._type_repr)."""
    if isinstance(obj, type) and not isinstance(obj, types.GenericAlias):
        if obj.__module__ == "builtins":
            return obj.__qualname__
        return _mstorch_name(obj) or f"{obj.__module__}.{obj.__qualname__}"
    if obj is ...:
        return "..."
    if isinstance(obj, types.FunctionType):
        return obj.__name__
    return repr(obj)


def _get_qualified_name(func):
    """torch.fx.node._get_qualified_name: ``torch.add``, ``operator.add``, ``getattr``, ``mymodule.fn``."""
    if getattr(builtins, func.__name__, None) is func:
        return func.__name__
    public = _mstorch_name(func)
    if public is not None:
        return public
    name = func.__name__
    if name == "<lambda>":
        import inspect
        try:
            name = inspect.getsource(func).split("=")[0].strip()
        except Exception as e:
            raise RuntimeError("Unable to represent lambda") from e
    module = func.__module__
    if module is None:
        raise RuntimeError(f"cannot find module for {func}")
    return f"{module}.{name}"


def _format_arg(arg, max_list_len=float("inf")):
    if hasattr(arg, "_custom_fx_repr_fn"):
        return arg._custom_fx_repr_fn()
    if isinstance(arg, list):
        items = ", ".join(_format_arg(a) for i, a in enumerate(arg) if i < max_list_len)
        more = "" if len(arg) < max_list_len + 1 else f", ...[total_len={len(arg)}]"
        return f"[{items}{more}]"
    if isinstance(arg, tuple):
        items = ", ".join(_format_arg(a) for i, a in enumerate(arg) if i < max_list_len)
        more = "" if len(arg) < max_list_len + 1 else f", ...[total_len={len(arg)}]"
        return f"({items}{',' if len(arg) == 1 else ''}{more})"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, Node):
        return "%" + str(arg)
    return str(arg)


def _typename(obj):
    import mstorch
    return mstorch.typename(obj)


class Node:
    """torch.fx.Node: ``op`` is one of placeholder, get_attr, call_function, call_method, call_module, output."""

    def __init__(self, graph, name, op, target, args, kwargs, return_type=None):
        if op == "call_function":
            if not callable(target):
                raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                                 f"{_typename(target)} but a Callable is expected")
        else:
            if op not in _legal_ops:
                raise AssertionError(f"op '{op}' is not in _legal_ops")
            if not isinstance(target, str):
                raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                                 f"{_typename(target)} but a str is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self.type = return_type
        self._input_nodes = {}
        self.users = {}
        self._prev = self
        self._next = self
        self._erased = False
        self._repr_fn = None
        self.meta = {}
        self._args = ()
        self._kwargs = immutable_dict()
        self._update_args_kwargs(args, kwargs)

    # --- list links -----------------------------------------------------------------------------
    @property
    def next(self):
        return self._next

    @property
    def prev(self):
        return self._prev

    def _remove_from_list(self):
        # the node keeps its own links, so an iterator standing on an erased node walks on to its old neighbours
        p, n = self._prev, self._next
        p._next, n._prev = n, p

    def prepend(self, x):
        """Put ``x`` right before this node (moving it if it is already in the list)."""
        if self.graph is not x.graph:
            raise AssertionError("Attempting to move a Node into a different Graph")
        if self is x:
            raise AssertionError("Cannot prepend a node to itself")
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x):
        """Put ``x`` right after this node."""
        self._next.prepend(x)

    # --- arguments and use-def edges --------------------------------------------------------------
    @property
    def args(self):
        return self._args

    @args.setter
    def args(self, a):
        self._update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self):
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k):
        self._update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self):
        return list(self._input_nodes)

    def _update_args_kwargs(self, new_args, new_kwargs):
        self._args = map_aggregate(new_args, _same)
        self._kwargs = map_aggregate(new_kwargs, _same)
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}
        map_arg(self._args, self._input_nodes.setdefault)
        map_arg(self._kwargs, self._input_nodes.setdefault)
        for new in self._input_nodes:
            new.users.setdefault(self)

    def update_arg(self, idx, arg):
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def insert_arg(self, idx, arg):
        if not 0 <= idx <= len(self.args):
            raise AssertionError("insert_args index must be between 0 and len(self.args), got " + str(idx))
        self.args = self.args[:idx] + (arg,) + self.args[idx:]

    def update_kwarg(self, key, arg):
        self.kwargs = {**self.kwargs, key: arg}

    def _replace_input_with(self, old_input, new_input):
        def swap(n):
            return new_input if n is old_input else n
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def replace_input_with(self, old_input, new_input):
        self._replace_input_with(old_input, new_input)

    def replace_all_uses_with(self, replace_with, delete_user_cb=None, *, propagate_meta=False):
        """Make every user of this node take ``replace_with`` instead; returns the changed users."""
        if propagate_meta:
            if replace_with.meta:
                raise AssertionError("Called node.replace_all_uses_with(replace_with, propagate_meta=True), "
                                     "but replace_with already has .meta keys")
            replace_with.meta.update(self.meta)
        changed = []
        for user in list(self.users):
            if delete_user_cb is not None and not delete_user_cb(user):
                continue
            changed.append(user)
            user._replace_input_with(self, replace_with)
        return changed

    @property
    def stack_trace(self):
        return self.meta.get("stack_trace", None)

    @stack_trace.setter
    def stack_trace(self, trace):
        self.meta["stack_trace"] = trace

    def is_impure(self, impure_random=True):
        """Whether dead-code elimination must keep this node (placeholders, outputs, side effects)."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_module":
            return getattr(self.graph.owning_module.get_submodule(self.target), "_is_impure", False)
        if self.op == "call_function":
            return self.target in _side_effectful_functions or (impure_random and _is_random(self.target))
        return False

    def _rename(self, candidate):
        if candidate == self.name:
            return
        name = self.graph._graph_namespace.create_name(candidate, None)
        self.name = name
        self.graph._graph_namespace._rename_object(self, name)

    # --- printing -----------------------------------------------------------------------------------
    def __repr__(self):
        if self._repr_fn:
            return self._repr_fn(self)
        return self.name

    @staticmethod
    def _pretty_print_target(target):
        if isinstance(target, str):
            return target
        if hasattr(target, "__module__"):
            name = getattr(target, "__name__", None)
            if name is None:
                return _get_qualified_name(target)
            if target.__module__ == "builtins":
                return f"builtins.{name}"
            if target.__module__ == "_operator":
                return f"operator.{name}"
        return _get_qualified_name(target)

    def format_node(self, placeholder_names=None, maybe_return_typename=None, *, include_tensor_metadata=False):
        """One line of ``str(graph)`` (torch.fx.Node.format_node)."""
        if self.op == "placeholder":
            arg_str = self.target
            arg_str += arg_str + f": {_type_repr(self.type)}" if self.type else ""
            if placeholder_names:
                placeholder_names.append(arg_str)
                return None
            typename = f"{_type_repr(self.type)} " if self.type else ""
            default = "(default=" + str(self.args[0]) + ")" if self.args else ""
            return f"%{self.name} : {typename}[num_users={len(self.users)}] = {self.op}[target={self.target}]{default}"
        if self.op == "get_attr":
            typename = f"{_type_repr(self.type)} " if self.type is not None else ""
            return (f"%{self.name} : {typename}[num_users={len(self.users)}] = "
                    f"{self.op}[target={self._pretty_print_target(self.target)}]")
        if self.op == "output":
            if self.type and maybe_return_typename:
                maybe_return_typename[0] = f" -> {_type_repr(self.type)}"
            return f"return {self.args[0]}"
        typename = f"{_type_repr(self.type)} " if self.type is not None else ""
        return (f"%{self.name} : {typename}[num_users={len(self.users)}] = "
                f"{self.op}[target={self._pretty_print_target(self.target)}]("
                f"args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})")


def _same(x):
    return x


_RANDOM = None


def _is_random(fn):
    """torch treats its random ops as impure (they advance the generator)."""
    global _RANDOM
    if _RANDOM is None:
        import mstorch
        _RANDOM = {id(getattr(mstorch, n)) for n in ("rand", "randn", "randint", "randperm", "rand_like",
                                                     "randn_like", "randint_like", "bernoulli", "multinomial",
                                                     "normal", "poisson") if hasattr(mstorch, n)}
    return id(fn) in _RANDOM


def map_arg(a, fn):
    """Apply ``fn`` to every Node in the nested structure ``a`` (torch.fx.map_arg)."""
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def map_aggregate(a, fn):
    """Apply ``fn`` to every leaf of ``a``; lists and dicts come back immutable (torch.fx.map_aggregate)."""
    if isinstance(a, tuple):
        t = tuple(map_aggregate(elem, fn) for elem in a)
        return t if not hasattr(a, "_fields") else type(a)(*t)
    if isinstance(a, list):
        return immutable_list(map_aggregate(elem, fn) for elem in a)
    if isinstance(a, dict):
        return immutable_dict((k, map_aggregate(v, fn)) for k, v in a.items())
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn))
    return fn(a)
