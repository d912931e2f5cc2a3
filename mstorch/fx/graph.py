"""torch.fx.graph: ``Graph`` (a linked list of Nodes), node naming and Python code generation.

The generated source follows torch's layout line for line (``add = torch.add(x, 1)``, values freed after
their last use with ``;  x = None``, ``return``), so ``GraphModule.code`` prints as torch's. In that code
``torch`` is a global bound to mstorch.
"""
import builtins
import contextlib
import copy
import inspect
import keyword
import math
import re
import warnings
from dataclasses import dataclass

from .node import Node, _get_qualified_name, _is_from_torch, _type_repr, map_arg, _legal_ops  # noqa: F401

__all__ = ["Graph", "PythonCode", "CodeGen"]


class _CustomBuiltin:
    def __init__(self, import_str, obj):
        self.import_str = import_str
        self.obj = obj


_illegal_names = {k: object() for k in keyword.kwlist}
_illegal_names.update(builtins.__dict__)   # a generated name never shadows a builtin
_custom_builtins = {}


def _register_custom_builtin(name, import_str, obj):
    _custom_builtins[name] = _CustomBuiltin(import_str, obj)
    _illegal_names[name] = obj


def _register_torch_builtins():
    import mstorch
    from ..utils import _pytree as pytree
    from . import _pytree as fx_pytree
    _register_custom_builtin("inf", "from math import inf", math.inf)
    _register_custom_builtin("nan", "from math import nan", math.nan)
    _register_custom_builtin("NoneType", "NoneType = type(None)", type(None))
    _register_custom_builtin("torch", "import torch", mstorch)
    _register_custom_builtin("device", "from torch import device", mstorch.device)
    _register_custom_builtin("fx_pytree", "import torch.fx._pytree as fx_pytree", fx_pytree)
    _register_custom_builtin("pytree", "import torch.utils._pytree as pytree", pytree)


def _is_magic(x):
    return x.startswith("__") and x.endswith("__")


_snake_case_sub = re.compile(r"(?<=[a-z])([A-Z])")


def _snake_case(s):
    """``pascalCase`` -> ``pascal_case``, ``ALL_CAPS`` -> ``all_caps`` (torch's node-name spelling)."""
    return _snake_case_sub.sub(r"_\1", s).lower()


_illegal_char_regex = re.compile("[^0-9a-zA-Z_]+")
_name_regex = re.compile(r"^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\d+))?$")


class _Namespace:
    """Unique names for objects: one name per object, no name twice, no builtin shadowed (torch's rules,
    so node names and generated globals number as torch's do: add, add_1, add_2...)."""

    def __init__(self):
        self._obj_to_name = {}
        self._used_names = set()
        self._base_count = {}

    def create_name(self, candidate, obj):
        if obj is not None and obj in self._obj_to_name:
            return self._obj_to_name[obj]
        match = _name_regex.match(candidate)
        if match is None:
            candidate = _illegal_char_regex.sub("_", candidate)
            if not candidate:
                candidate = "_unnamed"
            if candidate[0].isdigit():
                candidate = f"_{candidate}"
            match = _name_regex.match(candidate)
        base, num = match.group(1, 2)
        if num is None or candidate in self._used_names:
            num = self._base_count.get(base, 0)
            if _illegal_names.get(candidate, obj) is not obj:
                num += 1
                candidate = f"{base}_{num}"
        else:
            num = int(num)
        while candidate in self._used_names:
            num += 1
            candidate = f"{base}_{num}"
        self._used_names.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[obj] = candidate
        return candidate

    def associate_name_with_obj(self, name, obj):
        existing = self._obj_to_name.setdefault(obj, name)
        if existing is not name:
            raise AssertionError("obj is already associated")

    def _rename_object(self, obj, name):
        if obj not in self._obj_to_name:
            raise AssertionError(f"Object {obj} is not in _obj_to_name")
        self._obj_to_name[obj] = name
        self._used_names.add(name)


@dataclass
class PythonCode:
    """Source of the generated ``forward`` and the globals it runs with (torch.fx.graph.PythonCode)."""
    src: str
    globals: dict
    _lineno_map: dict = None
    _prologue_start: int = 0


def _format_target(base, target):
    r = base
    for e in target.split("."):
        r = f'getattr({r}, "{e}")' if not e.isidentifier() else f"{r}.{e}"
    return r


class _InsertPoint:
    def __init__(self, graph, new_insert):
        self.graph = graph
        self.orig_insert, graph._insert = graph._insert, new_insert

    def __enter__(self):
        pass

    def __exit__(self, exc_type, exc, tb):
        self.graph._insert = self.orig_insert


class _node_list:
    """``graph.nodes``: iterates the linked list (safe while nodes are erased or inserted)."""

    def __init__(self, graph, direction="_next"):
        self.graph = graph
        self.direction = direction

    def __len__(self):
        return self.graph._len

    def __iter__(self):
        root = self.graph._root
        cur = getattr(root, self.direction)
        while cur is not root:
            if not cur._erased:
                yield cur
            cur = getattr(cur, self.direction)

    def __reversed__(self):
        return iter(_node_list(self.graph, "_prev" if self.direction == "_next" else "_next"))


reflectable_magic_methods = {
    "add": "{} + {}", "sub": "{} - {}", "mul": "{} * {}", "floordiv": "{} // {}", "truediv": "{} / {}",
    "div": "{} / {}", "mod": "{} % {}", "pow": "{} ** {}", "lshift": "{} << {}", "rshift": "{} >> {}",
    "and_": "{} & {}", "or_": "{} | {}", "xor": "{} ^ {}", "getitem": "{}[{}]", "matmul": "{} @ {}",
}
magic_methods = dict({"eq": "{} == {}", "ne": "{} != {}", "lt": "{} < {}", "gt": "{} > {}", "le": "{} <= {}",
                      "ge": "{} >= {}", "pos": "+{}", "neg": "-{}", "invert": "~{}"}, **reflectable_magic_methods)
inplace_methods = {
    "iadd": "{} += {}", "iand": "{} &= {}", "ifloordiv": "{} //= {}", "ilshift": "{} <<= {}", "imod": "{} %= {}",
    "imul": "{} *= {}", "imatmul": "{} @= {}", "ior": "{} |= {}", "ipow": "{} **= {}", "irshift": "{} >>= {}",
    "isub": "{} -= {}", "itruediv": "{} /= {}", "ixor": "{} ^= {}", "setitem": "{}[{}] = {}",
}


class CodeGen:
    """Turns a node list into the source of ``forward`` (torch.fx.graph.CodeGen)."""

    def __init__(self):
        self._body_transformer = None
        self._func_name = "forward"

    def gen_fn_def(self, free_vars, maybe_return_annotation):
        if len(free_vars) == 0 or free_vars[0] != "self":
            free_vars.insert(0, "self")
        return f"def {self._func_name}({', '.join(free_vars)}){maybe_return_annotation}:"

    def generate_output(self, output_args, *, repr_fn=repr):
        return f"return {repr_fn(output_args)}"

    def process_inputs(self, *args):
        return args

    def process_outputs(self, outputs):
        return outputs

    def additional_globals(self):
        return []

    def _gen_python_code(self, nodes, root_module, namespace, *, verbose=False):
        import mstorch
        from ._symbolic_trace import wrap as _fx_wrap
        free_vars, body, globals_, wrapped_fns = [], [], {}, {}
        maybe_return_annotation = [""]

        def add_global(name_hint, obj):
            # mstorch's own functions and types print under torch's name (torch.add) and reach mstorch
            # through the `torch` global; device is a global of its own, as in torch
            if _is_from_torch(obj) and obj is not mstorch.device:
                return _get_qualified_name(obj)
            global_name = namespace.create_name(name_hint, obj)
            if global_name in globals_:
                if globals_[global_name] is not obj:
                    raise AssertionError(f"Global name {global_name} already assigned to different object")
                return global_name
            globals_[global_name] = obj
            return global_name

        for name, builtin in _custom_builtins.items():
            add_global(name, builtin.obj)

        def type_repr(o):
            if o == ():
                return "()"
            typename = _type_repr(o)
            origin = getattr(o, "__origin__", None)
            if origin is not None:
                origin_name = add_global(_type_repr(origin), origin)
                args = getattr(o, "__args__", ())
                if args:
                    return f"{origin_name}[{','.join(type_repr(a) for a in args)}]"
                return origin_name
            return add_global(typename, o)

        def _get_repr(arg):
            if isinstance(arg, Node):
                return repr(arg)
            if isinstance(arg, tuple) and hasattr(arg, "_fields"):
                global_name = add_global(_get_qualified_name(type(arg)), type(arg))
                return f"{global_name}{repr(tuple(arg))}"
            import enum
            if isinstance(arg, enum.Enum):
                cls = arg.__class__
                return f"{add_global(cls.__name__, cls)}.{arg.name}"
            if isinstance(arg, mstorch.Tensor):
                dtype = str(arg.dtype).split(".")[-1]
                return f"torch.Tensor(size={list(arg.size())}, dtype={dtype})"
            if isinstance(arg, tuple):
                if len(arg) == 1:
                    return f"({_get_repr(arg[0])},)"
                return "(" + ", ".join(_get_repr(a) for a in arg) + ")"
            if isinstance(arg, list):
                return "[" + ", ".join(_get_repr(a) for a in arg) + "]"
            if isinstance(arg, slice):
                return f"slice({_get_repr(arg.start)}, {_get_repr(arg.stop)}, {_get_repr(arg.step)})"
            return repr(arg)

        def _format_args(args, kwargs):
            res = [_get_repr(a) for a in args]
            res.extend(f"{k} = {_get_repr(v)}" for k, v in kwargs.items())
            return ", ".join(res)

        # the last use of each value, found walking backwards: the value is freed right after it
        node_to_last_use, user_to_last_uses = {}, {}
        for node in reversed(nodes):
            for input_node in node._input_nodes:
                if input_node not in node_to_last_use:
                    node_to_last_use[input_node] = node
                    user_to_last_uses.setdefault(node, []).append(input_node)

        def delete_unused_values(user):
            if user.op == "placeholder":
                return
            if user.op == "output":
                body.append("\n")
                return
            to_delete = list(user_to_last_uses.get(user, []))
            if len(user.users) == 0:
                to_delete.append(user)   # unused but kept (side effect): free it at once
            if to_delete:
                body.append(";  " + " = ".join([repr(n) for n in to_delete] + ["None"]) + "\n")
            else:
                body.append("\n")

        summary_done = [False]

        def emit_node(node):
            annotation = "" if node.type is None else f" : {type_repr(node.type)}"
            if verbose and node.op not in ("placeholder", "output") and not summary_done[0]:
                # torch prints each node's stack trace summary; mstorch records none, so the one line
                # torch prints for nodes without one
                summary_done[0] = True
                body.append("\n# No stacktrace found for following nodes\n")
            if node.op == "placeholder":
                default = "" if not node.args else f" = {_get_repr(node.args[0])}"
                free_vars.append(f"{node.target}{annotation}{default}")
                raw_name = node.target.replace("*", "")
                if raw_name != repr(node):
                    body.append(f"{repr(node)} = {raw_name}\n")
                return
            if node.op == "call_method":
                body.append(f"{repr(node)}{annotation} = {_format_target(_get_repr(node.args[0]), node.target)}"
                            f"({_format_args(node.args[1:], node.kwargs)})")
                return
            if node.op == "call_function":
                target = node.target
                if getattr(target, "__module__", "") == "_operator" and target.__name__ in magic_methods:
                    body.append(f"{repr(node)}{annotation} = "
                                f"{magic_methods[target.__name__].format(*(_get_repr(a) for a in node.args))}")
                    return
                if getattr(target, "__module__", "") == "_operator" and target.__name__ in inplace_methods:
                    body.append(f"{inplace_methods[target.__name__].format(*(_get_repr(a) for a in node.args))};  "
                                f"{repr(node)}{annotation} = {_get_repr(node.args[0])}")
                    return
                global_name = add_global(_get_qualified_name(target), target)
                if (global_name == "getattr" and isinstance(node.args, tuple) and len(node.args) == 2
                        and isinstance(node.args[1], str) and node.args[1].isidentifier()):
                    body.append(f"{repr(node)}{annotation} = {_format_target(_get_repr(node.args[0]), node.args[1])}")
                    return
                body.append(f"{repr(node)}{annotation} = {global_name}({_format_args(node.args, node.kwargs)})")
                if node.meta.get("is_wrapped", False):
                    wrapped_fns.setdefault(global_name)
                return
            if node.op == "call_module":
                body.append(f"{repr(node)}{annotation} = "
                            f"{_format_target(root_module, node.target)}({_format_args(node.args, node.kwargs)})")
                return
            if node.op == "get_attr":
                body.append(f"{repr(node)}{annotation} = {_format_target(root_module, node.target)}")
                return
            if node.op == "output":
                if node.type is not None:
                    maybe_return_annotation[0] = f" -> {type_repr(node.type)}"
                body.append(self.generate_output(node.args[0], repr_fn=_get_repr))
                return
            raise NotImplementedError(f"node: {node.op} {node.target}")

        for node in nodes:
            emit_node(node)
            delete_unused_values(node)
        if not body:
            body.append("pass\n")   # a graph of placeholders only still needs a body
        if wrapped_fns:
            wrap_name = add_global("wrap", _fx_wrap)
            wrap_stmts = "\n".join(f'{wrap_name}("{name}")' for name in wrapped_fns)
        else:
            wrap_stmts = ""
        if self._body_transformer:
            body = self._body_transformer(body)
        for name, value in self.additional_globals():
            add_global(name, value)
        prologue = self.gen_fn_def(free_vars, maybe_return_annotation[0])
        code = "".join(body).lstrip("\n")
        code = "\n".join("    " + line for line in code.split("\n"))
        fn_code = f"\n{wrap_stmts}\n\n{prologue}\n{code}"
        return PythonCode(fn_code, globals_, _lineno_map=None, _prologue_start=wrap_stmts.count("\n") + 4)


class Graph:
    """torch.fx.Graph: the nodes of one function, in order, with their names and code generation."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        if not _custom_builtins:
            _register_torch_builtins()
        self._root = Node(self, "", "root", "", (), {})
        self._used_names = {}
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = _Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        self._codegen = CodeGen()
        self._co_fields = {}

    @property
    def owning_module(self):
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod):
        self._owning_module = mod

    @property
    def nodes(self):
        return _node_list(self)

    def output_node(self):
        node = next(iter(reversed(self.nodes)))
        if node.op != "output":
            raise AssertionError(f"Expected output node, got op={node.op}")
        return node

    def find_nodes(self, *, op, target=None, sort=True):
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copy the nodes of ``g`` into this graph; ``val_map`` maps g's nodes to the copies."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return rv if not return_output_node else (rv, node)
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None):
        memo = memo if memo else {}
        g = Graph(tracer_cls=self._tracer_cls)
        output_vals = g.graph_copy(self, val_map=memo, return_output_node=True)
        g._codegen = copy.deepcopy(self._codegen)
        if output_vals is not None:
            output_val, old_output_node = output_vals
            new_output_node = g.output(output_val, type_expr=getattr(old_output_node, "type", None))
            new_output_node.meta = copy.copy(old_output_node.meta)
        return g

    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        """Make a Node at the insert point (see inserting_before/inserting_after) and name it uniquely."""
        if not args:
            args = ()
        elif not isinstance(args, tuple):
            raise AssertionError(f"args must be a tuple, got {type(args)}")
        if not kwargs:
            kwargs = {}
        elif not isinstance(kwargs, dict):
            raise AssertionError(f"kwargs must be a dict, got {type(kwargs)}")
        candidate = name if name is not None else self._target_to_str(target)
        name = self._graph_namespace.create_name(candidate, None)
        n = Node(self, name, op, target, args, kwargs, type_expr)
        owner = self.owning_module
        if owner is not None and getattr(owner, "_create_node_hooks", None):
            for f in owner._create_node_hooks:
                f(n)
        self._graph_namespace.associate_name_with_obj(name, n)
        self._insert(n)
        self._len += 1
        return n

    def process_inputs(self, *args):
        return self._codegen.process_inputs(*args)

    def process_outputs(self, out):
        return self._codegen.process_outputs(out)

    def erase_node(self, to_erase):
        """Remove a node that no other node uses."""
        if len(to_erase.users) > 0:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} "
                               f"users in the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            warnings.warn(f"erase_node({to_erase}) on an already erased node")
            return
        owner = self.owning_module
        if owner is not None and getattr(owner, "_erase_node_hooks", None):
            for f in owner._erase_node_hooks:
                f(to_erase)
        to_erase._remove_from_list()
        to_erase._erased = True   # iterators may still hold it
        self._len -= 1
        to_erase._update_args_kwargs(map_arg(to_erase._args, lambda n: None),
                                     map_arg(to_erase._kwargs, lambda n: None))

    def inserting_before(self, n=None):
        if n is None:
            return self.inserting_after(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert before is not in graph.")
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n=None):
        if n is None:
            return self.inserting_before(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert after is not in graph.")
        return _InsertPoint(self, n.append)

    def placeholder(self, name, type_expr=None, default_value=inspect.Signature.empty):
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        if self.owning_module is not None and not self._attr_exists(qualified_name):
            warnings.warn("Attempted to insert a get_attr Node with no underlying reference in the owning "
                          "GraphModule! Call GraphModule.add_submodule to add the necessary submodule, "
                          "GraphModule.add_parameter to add the necessary Parameter, or "
                          "nn.Module.register_buffer to add the necessary buffer", stacklevel=2)
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def _attr_exists(self, qualified_name):
        import mstorch
        module_path, _, name = qualified_name.rpartition(".")
        try:
            submod = self.owning_module.get_submodule(module_path)
        except AttributeError:
            warnings.warn(f"Failed to fetch module {module_path}!")
            return False
        if not hasattr(submod, name):
            return False
        res = getattr(submod, name)
        return (isinstance(res, (mstorch.nn.Module, mstorch.nn.Parameter)) or name in submod._buffers)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        if self.owning_module is not None and self.owning_module.get_submodule(module_name) is None:
            warnings.warn("Attempted to insert a call_module Node with no underlying reference in the owning "
                          "GraphModule! Call GraphModule.add_submodule to add the necessary submodule")
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None, name=None):
        return self.create_node("call_function", the_function, args, kwargs, name=name, type_expr=type_expr)

    def node_copy(self, node, arg_transform=lambda x: x):
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        result = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        result.meta = copy.copy(node.meta)
        return result

    def output(self, result, type_expr=None):
        return self.create_node(op="output", target="output", args=(result,), type_expr=type_expr)

    def _target_to_str(self, target):
        if callable(target):
            op = target.__name__
        else:
            op = target
            if _is_magic(op):
                op = op[2:-2]
        return _snake_case(op)

    def python_code(self, root_module, *, verbose=False, **_ignored):
        """The source of ``forward`` for this graph and its globals (torch.fx.Graph.python_code)."""
        namespace = _Namespace()

        def node_repr(n):
            return namespace.create_name(n.name, n)

        saved = {}
        for node in self.nodes:
            saved[node] = node._repr_fn
            node._repr_fn = node_repr
        try:
            return self._codegen._gen_python_code(self.nodes, root_module, namespace, verbose=verbose)
        finally:
            for node, fn in saved.items():
                node._repr_fn = fn

    def __str__(self):
        placeholder_names = []
        maybe_return_typename = [""]
        node_strs = [node.format_node(placeholder_names) for node in self.nodes]
        s = f"graph({', '.join(placeholder_names)}){maybe_return_typename[0]}:"
        for node_str in node_strs:
            if node_str:
                s += "\n    " + node_str
        return s

    def print_tabular(self):
        """The nodes as a table; needs the ``tabulate`` package, as torch's does."""
        try:
            from tabulate import tabulate
        except ImportError:
            print("`print_tabular` relies on the library `tabulate`, which could not be found on this machine. "
                  "Run `pip install tabulate` to install the library.")
            raise
        node_specs = [[n.op, n.name, n.target, n.args, n.kwargs] for n in self.nodes]
        print(tabulate(node_specs, headers=["opcode", "name", "target", "args", "kwargs"]))

    def lint(self):
        """Check ownership, topological order, unique names and (with an owning module) targets."""
        seen_names, seen_values = set(), set()

        def check_arg(arg, n=None):
            context = f" of Node '{n}' " if n else " "
            if arg.graph is not self:
                raise RuntimeError(f"Argument '{arg}'{context}does not belong to this Graph, but was used as an "
                                   "argument! If you are copying nodes from another graph, make sure to use "
                                   f"``arg_transform`` on node_copy() to remap values\n{self}")
            if arg not in seen_values:
                raise RuntimeError(f"Argument '{arg}'{context}was used before it has been defined! Please check "
                                   f"that Nodes in the graph are topologically ordered\n{self}")

        for node in self.nodes:
            if node.op not in _legal_ops:
                raise RuntimeError(f"Node {node} had unknown opcode {node.op}!")
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            for arg in node._input_nodes:
                check_arg(arg, node)
            seen_values.add(node)
            if node.name in seen_names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen_names.add(node.name)
        if self.owning_module:
            import mstorch
            for node in self.nodes:
                if node.op == "call_function":
                    if not callable(node.target):
                        raise ValueError(f"Node {node} target {node.target} has type "
                                         f"{mstorch.typename(node.target)} but a Callable is expected")
                elif not isinstance(node.target, str):
                    raise ValueError(f"Node {node} target {node.target} has type "
                                     f"{mstorch.typename(node.target)} but a str is expected")
                if node.op in ("get_attr", "call_module"):
                    atoms = node.target.split(".")
                    m_itr = self.owning_module
                    for i, atom in enumerate(atoms):
                        new_m_itr = getattr(m_itr, atom, None)
                        seen_qualname = ".".join(atoms[:i])
                        if new_m_itr is None:
                            raise RuntimeError(f"Node {node} target {node.target} references nonexistent "
                                               f"attribute {atom} of {seen_qualname}")
                        if node.op == "call_module" and not isinstance(new_m_itr, mstorch.nn.Module):
                            raise RuntimeError(f"Node {node} target {node.target} {atom} of {seen_qualname} "
                                               "does not reference an nn.Module")
                        m_itr = new_m_itr

    def eliminate_dead_code(self, is_impure_node=None):
        """Erase nodes without users and without side effects; True when the graph changed."""
        self.lint()
        changed = False
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    def set_codegen(self, codegen):
        self._codegen = codegen

    @contextlib.contextmanager
    def on_generate_code(self, make_transformer):
        on_gen_code_old = self._codegen._body_transformer
        self._codegen._body_transformer = make_transformer(on_gen_code_old)
        try:
            yield
        finally:
            self._codegen._body_transformer = on_gen_code_old
