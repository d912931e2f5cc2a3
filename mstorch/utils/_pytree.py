"""torch.utils._pytree: nested containers (tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque and
registered classes) flattened to a list of leaves and a TreeSpec, and rebuilt from them.

Pure Python, like torch's implementation: the leaves come out in the same order, TreeSpec prints and compares
as torch's, and classes registered with ``register_pytree_node`` take torch's keyword arguments.
"""
import collections
import dataclasses
import functools
import importlib
import json
import types
from collections import OrderedDict, defaultdict, deque, namedtuple
from typing import Any, Callable, NamedTuple

__all__ = ["PyTree", "Context", "FlattenFn", "UnflattenFn", "TreeSpec", "LeafSpec", "keystr", "key_get",
           "register_pytree_node", "tree_is_leaf", "tree_flatten", "tree_flatten_with_path", "tree_unflatten",
           "tree_iter", "tree_leaves", "tree_leaves_with_path", "tree_structure", "tree_map",
           "tree_map_with_path", "tree_map_", "tree_map_only", "tree_map_only_", "tree_all", "tree_any",
           "tree_all_only", "tree_any_only", "treespec_dumps", "treespec_loads", "treespec_pprint", "is_namedtuple",
           "is_namedtuple_class", "is_namedtuple_instance", "is_structseq", "is_structseq_class",
           "is_structseq_instance", "PyTreeSpec", "DumpableContext", "ToDumpableContextFn", "FromDumpableContextFn"]

PyTree = Any
Context = Any
FlattenFn = Callable[[PyTree], tuple]
UnflattenFn = Callable[[Any, Context], PyTree]
DumpableContext = Any
ToDumpableContextFn = Callable[[Context], DumpableContext]
FromDumpableContextFn = Callable[[DumpableContext], Context]
DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL = 1
NO_SERIALIZED_TYPE_NAME_FOUND = "NO_SERIALIZED_TYPE_NAME_FOUND"


class NodeDef(NamedTuple):
    type: Any
    flatten_fn: Callable
    unflatten_fn: Callable
    flatten_with_keys_fn: Any


class _SerializeNodeDef(NamedTuple):
    typ: Any
    serialized_type_name: str
    to_dumpable_context: Any
    from_dumpable_context: Any


# node type -> NodeDef; every namedtuple class is handled under the key ``namedtuple`` (as in torch)
SUPPORTED_NODES: dict = {}
SUPPORTED_SERIALIZED_TYPES: dict = {}  # node type -> _SerializeNodeDef (treespec_dumps/loads)
SERIALIZED_TYPE_TO_PYTHON_TYPE: dict = {}


# ---- keys (paths to a leaf) ----
@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    key: Any

    def __str__(self):
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self):
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


KeyEntry = Any


def keystr(kp):
    """The path ``kp`` as source text: ``['a'][1].b``."""
    return "".join(str(k) for k in kp)


def key_get(obj, kp):
    for k in kp:
        obj = k.get(obj)
    return obj


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn=None):
    """Make ``cls`` a container: ``flatten_fn(obj) -> (children, context)``,
    ``unflatten_fn(children, context) -> obj``."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    _register(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn, serialized_type_name, to_dumpable_context,
              from_dumpable_context)


def _register(cls, flatten_fn, unflatten_fn, keys_fn, serialized_type_name, to_dumpable=None, from_dumpable=None):
    if (to_dumpable is None) != (from_dumpable is None):
        raise ValueError(f"Both to_dumpable_context and from_dumpable_context for {cls} must be None or "
                         "registered.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, keys_fn)
    name = NO_SERIALIZED_TYPE_NAME_FOUND if serialized_type_name is None else serialized_type_name
    SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(cls, name, to_dumpable, from_dumpable)
    SERIALIZED_TYPE_TO_PYTHON_TYPE[name] = cls


def _register_namedtuple(cls, *, serialized_type_name):
    """Make the namedtuple class ``cls`` serializable by treespec_dumps under ``serialized_type_name``."""
    _register(cls, _namedtuple_flatten, lambda v, c: c(*v), _with_keys(_namedtuple_flatten, _namedtuple_keys),
              serialized_type_name, _namedtuple_serialize, _namedtuple_deserialize)


def _seq_keys(children):
    return [SequenceKey(i) for i in range(len(children))]


def _with_keys(flatten, make_keys):
    def flatten_with_keys(obj):
        children, context = flatten(obj)
        return list(zip(make_keys(obj, children, context), children)), context
    return flatten_with_keys


def _tuple_flatten(t):
    return list(t), None


def _list_flatten(lst):
    return list(lst), None


def _dict_flatten(d):
    return list(d.values()), list(d.keys())


def _dict_keys(obj, children, context):
    return [MappingKey(k) for k in context]


def _namedtuple_flatten(t):
    return list(t), type(t)


def _namedtuple_keys(obj, children, context):
    return [GetAttrKey(f) for f in context._fields]


def _ordereddict_flatten(d):
    return list(d.values()), list(d.keys())


def _defaultdict_flatten(d):
    return list(d.values()), [d.default_factory, list(d.keys())]


def _defaultdict_keys(obj, children, context):
    return [MappingKey(k) for k in context[1]]


def _deque_flatten(d):
    return list(d), d.maxlen


def _namedtuple_serialize(context):
    name = getattr(SUPPORTED_SERIALIZED_TYPES.get(context), "serialized_type_name", NO_SERIALIZED_TYPE_NAME_FOUND)
    if name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we didn't register a "
            "serializated_type_name. Please register using `_register_namedtuple`.")
    return name


def _namedtuple_deserialize(dumpable):
    if dumpable not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Can't deserialize TreeSpec of namedtuple class {dumpable} because we couldn't "
                                  "find a serializated name.")
    return SERIALIZED_TYPE_TO_PYTHON_TYPE[dumpable]


def _defaultdict_serialize(context):
    factory, keys = context
    return {"default_factory_module": factory.__module__, "default_factory_name": factory.__qualname__,
            "dict_context": keys}


def _defaultdict_deserialize(dumpable):
    factory = getattr(importlib.import_module(dumpable["default_factory_module"]), dumpable["default_factory_name"])
    return [factory, dumpable["dict_context"]]


def _seq_with_keys(flatten):
    return _with_keys(flatten, lambda o, ch, c: _seq_keys(ch))


# torch's private names for the built-in nodes' functions (libraries register their own dict-like nodes with
# ``flatten_with_keys_fn=_dict_flatten_with_keys``: transformers' ModelOutput)
_tuple_flatten_with_keys = _seq_with_keys(_tuple_flatten)
_list_flatten_with_keys = _seq_with_keys(_list_flatten)
_dict_flatten_with_keys = _with_keys(_dict_flatten, _dict_keys)


def _tuple_unflatten(values, context):
    return tuple(values)


def _list_unflatten(values, context):
    return list(values)


def _dict_unflatten(values, context):
    return dict(zip(context, values))


_register(tuple, _tuple_flatten, _tuple_unflatten, _tuple_flatten_with_keys, "builtins.tuple")
_register(list, _list_flatten, _list_unflatten, _list_flatten_with_keys, "builtins.list")
_register(dict, _dict_flatten, _dict_unflatten, _dict_flatten_with_keys, "builtins.dict")
_register(namedtuple, _namedtuple_flatten, lambda v, c: c(*v), _with_keys(_namedtuple_flatten, _namedtuple_keys),
          "collections.namedtuple", _namedtuple_serialize, _namedtuple_deserialize)
_register(OrderedDict, _ordereddict_flatten, lambda v, c: OrderedDict(zip(c, v)),
          _with_keys(_ordereddict_flatten, _dict_keys), "collections.OrderedDict")
_register(defaultdict, _defaultdict_flatten, lambda v, c: defaultdict(c[0], zip(c[1], v)),
          _with_keys(_defaultdict_flatten, _defaultdict_keys), "collections.defaultdict", _defaultdict_serialize,
          _defaultdict_deserialize)
_register(deque, _deque_flatten, lambda v, c: deque(v, maxlen=c), _seq_with_keys(_deque_flatten),
          "collections.deque")


def _return_types():
    from ..ops.reduction import _RETURN_TYPES
    return _RETURN_TYPES


# torch.return_types.* (max, sort, topk...) are structseqs in torch, nodes of their own class with no context;
# ours are namedtuple classes, so they are registered as their own nodes and kept out of is_namedtuple (torch
# gives them no serialized name: treespec_dumps refuses them)
for _cls in _return_types().values():
    _register(_cls, _tuple_flatten, lambda v, c, cls=_cls: cls(*v), _seq_with_keys(_tuple_flatten), None)


# ---- namedtuple / structseq detection ----
def is_structseq_class(cls):
    return isinstance(cls, type) and cls in _return_types().values()


def is_structseq_instance(obj):
    return is_structseq_class(type(obj))


def is_structseq(obj):
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_class(cls):
    return (isinstance(cls, type) and issubclass(cls, tuple) and not is_structseq_class(cls) and isinstance(getattr(cls, "_fields", None), tuple)
            and all(type(f) is str for f in cls._fields)
            and callable(getattr(cls, "_make", None)) and callable(getattr(cls, "_asdict", None)))


def is_namedtuple_instance(obj):
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj):
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def _get_node_type(tree):
    node_type = type(tree)
    if is_namedtuple_class(node_type):
        return namedtuple
    return node_type


def tree_is_leaf(tree, is_leaf=None):
    if is_leaf is not None and is_leaf(tree):
        return True
    return _get_node_type(tree) not in SUPPORTED_NODES


# ---- TreeSpec ----
class TreeSpec:
    """The structure of a pytree: the root's node type, its context (dict keys, namedtuple class...) and one
    TreeSpec per child."""

    __slots__ = ("type", "_context", "_children", "num_nodes", "num_leaves", "num_children")

    def __init__(self, type, context, children):  # noqa: A002 - torch's argument name
        self.type = type
        self._context = context
        self._children = list(children)
        self.num_children = len(self._children)
        if self.type is None:  # a leaf
            self.num_nodes, self.num_leaves = 1, 1
        else:
            self.num_nodes = 1 + sum(c.num_nodes for c in self._children)
            self.num_leaves = sum(c.num_leaves for c in self._children)

    @property
    def context(self):
        return self._context

    @property
    def children_specs(self):
        return self._children

    def is_leaf(self):
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self):
        return list(self._children)

    def child(self, index):
        return self._children[index]

    def __repr__(self, indent=0):
        if self.is_leaf():
            return "*"
        text = f"TreeSpec({self.type.__name__}, {self._context}, ["
        if self._children:
            indent += 2
            text += self._children[0].__repr__(indent)
            if len(self._children) > 1:
                text += "," + ",".join("\n" + " " * indent + c.__repr__(indent) for c in self._children[1:])
        return text + "])"

    __str__ = __repr__

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (str(self.type) == str(other.type) and self._context == other._context
                and self._children == other._children)

    def __hash__(self):
        return hash((str(self.type), self.num_nodes, self.num_leaves))

    def unflatten(self, leaves):
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers "
                             f"to a pytree that holds {self.num_leaves} items ({self}).")
        return self._build(iter(leaves))

    def _build(self, it):
        if self.is_leaf():
            return next(it)
        values = [c._build(it) for c in self._children]
        return SUPPORTED_NODES[self.type].unflatten_fn(values, self._context)

    def flatten_up_to(self, tree):
        """The subtrees of ``tree`` at this spec's leaves; ``tree`` must have this spec's structure above them."""
        out = []
        self._up_to(tree, out)
        return out

    def _up_to(self, tree, out):
        if self.is_leaf():
            out.append(tree)
            return
        node_type = _get_node_type(tree)
        if node_type != self.type and not (issubclass(node_type, dict) and issubclass(self.type, dict)):
            raise ValueError(f"Type mismatch; expected {self.type!r}, but got {node_type!r}.")
        children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
        if len(children) != self.num_children:
            raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got {len(children)}.")
        if issubclass(self.type, dict) or self.type is defaultdict:
            keys = context[1] if node_type is defaultdict else context
            own = self._context[1] if self.type is defaultdict else self._context
            if set(keys) != set(own):
                raise ValueError("Node keys mismatch.")
            children = [tree[k] for k in own]
        elif context != self._context:
            raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        for spec, child in zip(self._children, children):
            spec._up_to(child, out)


PyTreeSpec = TreeSpec


class LeafSpec(TreeSpec):
    __slots__ = ()

    def __init__(self):
        super().__init__(None, None, [])


_LEAF_SPEC = LeafSpec()


def treespec_pprint(treespec):
    return repr(treespec)


def _spec_to_json(spec):
    if spec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    if spec.type not in SUPPORTED_SERIALIZED_TYPES:
        raise NotImplementedError(f"Serializing {spec.type} in pytree is not registered.")
    node = SUPPORTED_SERIALIZED_TYPES[spec.type]
    if node.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(f"No registered serialization name for {spec.type} found. Please update your "
                                  "_register_pytree_node call with a `serialized_type_name` kwarg.")
    if node.to_dumpable_context is None:
        try:
            context = json.dumps(spec._context)
        except TypeError as exc:
            raise TypeError("Unable to serialize context. Please make the context json dump-able, or register a "
                            "custom serializer using _register_pytree_node.") from exc
    else:
        context = node.to_dumpable_context(spec._context)
    return {"type": node.serialized_type_name, "context": context,
            "children_spec": [_spec_to_json(c) for c in spec._children]}


def _json_to_spec(schema):
    if schema["type"] is None and schema["context"] is None and not schema["children_spec"]:
        return _LEAF_SPEC
    if schema["type"] not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Deserializing {schema['type']} in pytree is not registered.")
    typ = SERIALIZED_TYPE_TO_PYTHON_TYPE[schema["type"]]
    node = SUPPORTED_SERIALIZED_TYPES[typ]
    context = (json.loads(schema["context"]) if node.from_dumpable_context is None
               else node.from_dumpable_context(schema["context"]))
    return TreeSpec(typ, context, [_json_to_spec(c) for c in schema["children_spec"]])


def treespec_dumps(treespec, protocol=None):
    """The TreeSpec as JSON text, in torch's format (protocol 1): readable by torch's treespec_loads."""
    protocol = DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL if protocol is None else protocol
    if protocol != 1:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: [1]")
    return json.dumps((protocol, _spec_to_json(treespec)))


def treespec_loads(serialized):
    protocol, schema = json.loads(serialized)
    if protocol != 1:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: [1]")
    return _json_to_spec(schema)


# ---- flatten / unflatten ----
def tree_flatten(tree, is_leaf=None):
    leaves = []

    def walk(node):
        if tree_is_leaf(node, is_leaf):
            leaves.append(node)
            return _LEAF_SPEC
        node_type = _get_node_type(node)
        children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
        return TreeSpec(node_type, context, [walk(c) for c in children])

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    if not isinstance(treespec, TreeSpec):
        if not isinstance(leaves, TreeSpec):
            raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item of type "
                            f"{type(treespec)}.")
        leaves, treespec = treespec, leaves
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    children, _ = SUPPORTED_NODES[_get_node_type(tree)].flatten_fn(tree)
    for child in children:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree, is_leaf=None):
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def _key_children(node):
    node_def = SUPPORTED_NODES[_get_node_type(node)]
    if node_def.flatten_with_keys_fn is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {_get_node_type(node)}. Please pass a "
                         "flatten_with_keys_fn argument to register_pytree_node.")
    return node_def.flatten_with_keys_fn(node)[0]


def tree_flatten_with_path(tree, is_leaf=None):
    """``([(path, leaf), ...], treespec)``; a path is a tuple of SequenceKey/MappingKey/GetAttrKey."""
    pairs = []

    def walk(node, path):
        if tree_is_leaf(node, is_leaf):
            pairs.append((path, node))
            return
        for key, child in _key_children(node):
            walk(child, path + (key,))

    walk(tree, ())
    return pairs, tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree, is_leaf=None):
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(path, leaf, *xs) for (path, leaf), *xs in zip(pairs, *others))


# ---- maps and predicates ----
def tree_map(func, tree, *rests, is_leaf=None):
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(map(func, *flat))


def tree_map_(func, tree, *rests, is_leaf=None):
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    collections.deque(map(func, *flat), maxlen=0)
    return tree


def map_only(type_or_types_or_pred, /):
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):
        def pred(x):
            return isinstance(x, type_or_types_or_pred)
    elif callable(type_or_types_or_pred):
        pred = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapper(func):
        @functools.wraps(func)
        def wrapped(x):
            return func(x) if pred(x) else x
        return wrapped
    return wrapper


def tree_map_only(type_or_types_or_pred, /, func, tree, is_leaf=None):
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, /, func, tree, is_leaf=None):
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, /, pred, tree, is_leaf=None):
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, /, pred, tree, is_leaf=None):
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))
