"""torch.nn.utils parameters_to_vector / vector_to_parameters."""
from ..._functions import cat
from ..._tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n


def _typename(obj):
    # torch.typename: the qualified name of the object's type (builtins unqualified)
    t = type(obj)
    module = t.__module__
    return t.__qualname__ if module in (None, "builtins") else f"{module}.{t.__qualname__}"
