"""torch.compiler on mstorch: ``torch.compile`` runs models eagerly (``_compile``); these are the queries and
decorators around it, from ``torch._dynamo``. CUDA graphs do not exist here: ``cudagraph_mark_step_begin``
raises naming the API."""
from .._compile import compile  # noqa: F401,A004
from .._dynamo import allow_in_graph, assume_constant_result, disable, list_backends, reset  # noqa: F401
from ..ops._registry import unsupported

__all__ = ["compile", "assume_constant_result", "reset", "allow_in_graph", "list_backends", "disable",
           "cudagraph_mark_step_begin", "is_compiling", "is_dynamo_compiling", "is_exporting"]

_CUDAGRAPH_REASON = "mstorch has no CUDA graphs (models run eagerly on MindSpore)"


def is_compiling():
    """Mirrors torch.compiler.is_compiling: False, mstorch never traces."""
    return False


def is_dynamo_compiling():
    return False


def is_exporting():
    """Mirrors torch.compiler.is_exporting: False, ``torch.export`` does not run in mstorch."""
    return False


def cudagraph_mark_step_begin():
    raise NotImplementedError(f"torch.compiler.cudagraph_mark_step_begin is not supported by mstorch: "
                              f"{_CUDAGRAPH_REASON}")


unsupported("compiler.cudagraph_mark_step_begin", _CUDAGRAPH_REASON)
