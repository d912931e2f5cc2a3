"""torch.fx: symbolic tracing of Modules and functions into Graphs, GraphModules that run them, and the
graph-editing and interpretation API (``Graph``, ``Node``, ``Proxy``, ``Tracer``, ``Interpreter``,
``Transformer``, ``wrap``), pattern rewriting (``replace_pattern``, ``subgraph_rewriter``), with the size
guards of ``experimental.symbolic_shapes`` on concrete sizes and the pass types of ``passes.infra.pass_base``.
What mstorch does not have (symbolic shapes, the rest of ``torch.fx.experimental`` and ``torch.fx.passes``,
pytree-based concrete arguments) is listed in docs/known-differences.md."""
from . import immutable_collections, node, graph, proxy, graph_module  # noqa: F401
from .graph import Graph, CodeGen, PythonCode  # noqa: F401
from .graph_module import GraphModule  # noqa: F401
from .node import Node, map_arg, map_aggregate, has_side_effect  # noqa: F401
from .proxy import Proxy, TraceError  # noqa: F401
from . import _symbolic_trace  # noqa: F401
from ._symbolic_trace import (Tracer, symbolic_trace, wrap, PH, ProxyableClassMeta,  # noqa: F401
                              is_fx_tracing, is_fx_symbolic_tracing)
from .interpreter import Interpreter, Transformer  # noqa: F401
from . import interpreter, _pytree  # noqa: F401
from . import subgraph_rewriter  # noqa: F401
from .subgraph_rewriter import replace_pattern  # noqa: F401

_symbolic_trace._remember_module_methods()

__all__ = ["symbolic_trace", "Tracer", "wrap", "Graph", "GraphModule", "Interpreter", "Transformer", "Node",
           "Proxy", "map_arg", "map_aggregate", "has_side_effect", "PH", "ProxyableClassMeta", "CodeGen",
           "PythonCode", "TraceError", "is_fx_tracing", "replace_pattern"]
