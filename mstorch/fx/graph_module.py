"""torch.fx.graph_module: ``GraphModule``, a Module whose ``forward`` is generated from a Graph.

Each GraphModule gets a class of its own (``forward`` is set on the class, as in torch), named after the
traced module. ``recompile()`` regenerates the source from the graph and compiles it; ``code`` is that
source and ``print_readable()`` prints it as a class.
"""
import copy
import linecache

from ..nn import Module
from ..nn.modules._module_utils import _addindent
from .graph import Graph

__all__ = ["GraphModule"]

_USER_PRESERVED_ATTRIBUTES_KEY = "_user_preserved_attributes"


class _EvalCacheLoader:
    """Keeps generated sources so tracebacks and ``inspect.getsource`` show the generated lines."""

    def __init__(self):
        self.eval_cache = {}
        self.next_id = 0

    def cache(self, src, globals):
        key = f"<eval_with_key>.{self.next_id}"
        self.next_id += 1
        self.eval_cache[key] = src
        globals_copy = dict(globals, __file__=key, __name__=key, __loader__=self)
        linecache.lazycache(key, globals_copy)
        return key

    def get_source(self, module_name):
        return self.eval_cache.get(module_name)


_loader = _EvalCacheLoader()


def _forward_from_src(src, globals):
    globals_copy = dict(globals)
    key = _loader.cache(src, globals_copy)
    exec(compile(src, key, "exec", dont_inherit=True), globals_copy)
    return globals_copy["forward"]


class _CodeOnlyModule(Module):
    """A Module holding a given ``__dict__`` (used to rebuild a GraphModule from its attributes)."""

    def __init__(self, body):
        super().__init__()
        self.__dict__ = body


def _copy_attr(from_module, to_module, target):
    """Copy ``target`` (dotted) from one module to another, making empty intermediate modules as needed;
    a plain tensor becomes a buffer."""
    import mstorch
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            return   # already installed (a whole submodule copied earlier)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    orig = getattr(from_module, field)
    if isinstance(orig, mstorch.Tensor) and not isinstance(orig, mstorch.nn.Parameter):
        to_module.register_buffer(field, orig)
    else:
        setattr(to_module, field, orig)


def _assign_attr(from_obj, to_module, target):
    import mstorch
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        to_module = t
    if isinstance(from_obj, mstorch.Tensor) and not isinstance(from_obj, mstorch.nn.Parameter):
        to_module.register_buffer(field, from_obj)
    else:
        setattr(to_module, field, from_obj)


def _print_readable(module, module_name, print_output=True):
    src = module.graph.python_code(root_module="self", verbose=True).src.lstrip("\n")
    module_code = _addindent(f"class {module_name}(torch.nn.Module):\n" + src, 4)
    submodule_code = [""]
    for name, submodule in module.named_children():
        if isinstance(submodule, GraphModule):
            submodule_code.append(_print_readable(submodule, name, print_output=False))
    output = module_code + _addindent("\n".join(submodule_code), 4)
    if print_output:
        print(output)
    return output


class GraphModule(Module):
    """torch.fx.GraphModule(root, graph, class_name): copies the attributes the graph uses from ``root``
    (a Module or a dict of qualified names) and runs the code generated from ``graph``."""

    def __new__(cls, *args, **kwargs):
        # a class per instance: forward lives on the class, and each graph has its own
        for t in cls.__mro__:
            if t.__qualname__.split(".")[-1] != "GraphModuleImpl":
                cls = t
                break

        class GraphModuleImpl(cls):
            pass
        return super().__new__(GraphModuleImpl)

    def __init__(self, root, graph, class_name="GraphModule"):
        super().__init__()
        self.__class__.__name__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            if isinstance(root, _CodeOnlyModule):
                for k, _ in root.named_children():
                    _copy_attr(root, self, k)
                for k, _ in root.named_buffers():
                    _copy_attr(root, self, k)
                for k, _ in root.named_parameters():
                    _copy_attr(root, self, k)
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            targets = []
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError("Node " + str(node) + " referenced target " + node.target
                                           + " but that target was not provided in ``root``!")
                    targets.append(node.target)
            targets.sort(key=lambda t: t.count("."))
            for target in targets:
                _assign_attr(root[target], self, target)
        else:
            raise RuntimeError("Unsupported type " + str(root) + " passed for root!")
        self.graph = graph
        self._tracer_cls = None
        if self.graph._tracer_cls and "<locals>" not in self.graph._tracer_cls.__qualname__:
            self._tracer_cls = self.graph._tracer_cls
        self._tracer_extras = self.graph._tracer_extras or {}
        self.meta = {}
        self._replace_hooks = []
        self._create_node_hooks = []
        self._erase_node_hooks = []
        self._deepcopy_hooks = []
        self.shape_env = None

    @property
    def graph(self):
        return self._graph

    @graph.setter
    def graph(self, g):
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph instance, but got {type(g)}")
        self._graph = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self):
        if not hasattr(self, "_code"):
            raise RuntimeError("Code has not been generated! Please report a bug to PyTorch")
        return self._code

    def recompile(self):
        """Regenerate ``forward`` from the graph (call after editing ``self.graph``)."""
        python_code = self._graph.python_code(root_module="self")
        self._code = python_code.src
        self._lineno_map = python_code._lineno_map
        self._prologue_start = python_code._prologue_start
        type(self).forward = _forward_from_src(self._code, python_code.globals)
        for _, mod in self.named_children():
            if isinstance(mod, GraphModule):
                mod.recompile()
        return python_code

    def add_submodule(self, target, m):
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            submod = getattr(mod, item, None)
            if submod is None:
                submod = Module()
                setattr(mod, item, submod)
            if not isinstance(submod, Module):
                return False
            mod = submod
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target):
        atoms = target.split(".")
        mod = self
        for item in atoms[:-1]:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                return False
        if not hasattr(mod, atoms[-1]) or not isinstance(getattr(mod, atoms[-1]), Module):
            return False
        delattr(mod, atoms[-1])
        return True

    def delete_all_unused_submodules(self):
        used = []
        for node in self.graph.nodes:
            if node.op in ("call_module", "get_attr") and isinstance(node.target, str):
                atoms = node.target.split(".")
                used.extend(".".join(atoms[:i + 1]) for i in range(len(atoms)))
                if node.op == "call_module":
                    try:
                        submod = self.get_submodule(node.target)
                        used.extend(f"{node.target}.{n}" for n, _ in submod.named_modules() if n)
                    except AttributeError:
                        pass
        for name in [n for n, _ in self.named_modules() if n not in used]:
            self.delete_submodule(name)

    def print_readable(self, print_output=True, include_stride=False, include_device=False, colored=False,
                       **_ignored):
        """The generated code as a class, printed (and returned) as torch prints it."""
        return _print_readable(self, self._get_name(), print_output)

    def __str__(self):
        return "\n".join([super().__str__(), self._code,
                          "# To see more debug info, please use `graph_module.print_readable()`"])

    def _deepcopy_init(self):
        return GraphModule.__init__

    def __deepcopy__(self, memo):
        res = type(self).__new__(type(self))
        memo[id(self)] = res
        fake_mod = _CodeOnlyModule(copy.deepcopy(self.__dict__, memo))
        self._deepcopy_init()(res, fake_mod, fake_mod.__dict__["_graph"])
        for attr in ("_state_dict_hooks", "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks",
                     "_replace_hooks", "_create_node_hooks", "_erase_node_hooks", "_deepcopy_hooks"):
            if attr in self.__dict__:
                setattr(res, attr, copy.deepcopy(self.__dict__[attr], memo))
        res.meta = copy.deepcopy(getattr(self, "meta", {}), memo)
        if _USER_PRESERVED_ATTRIBUTES_KEY in res.meta:
            for attr_name, attr in res.meta[_USER_PRESERVED_ATTRIBUTES_KEY].items():
                setattr(res, attr_name, attr)
        return res

    def __copy__(self):
        res = GraphModule(self, self.graph)
        res.meta = getattr(self, "meta", {})
        return res

