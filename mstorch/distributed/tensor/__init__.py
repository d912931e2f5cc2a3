"""torch.distributed.tensor on mstorch: the names exist, a DTensor cannot be made.

A DTensor is a tensor sharded over a device mesh whose every op is redispatched through sharding
propagation rules and collectives (torch's ``__torch_dispatch__`` machinery); mstorch has no tensor-subclass
dispatch to build it on, and MindSpore's own sharding is a graph-mode feature. What libraries touch without
sharding anything works: the classes (``isinstance(p, DTensor)`` is False for every mstorch tensor, annotations
and ``issubclass`` work), and the placements with their chunk arithmetic (``placement_types``). Everything that
would make or redistribute a DTensor raises ``NotImplementedError`` naming the API."""
from ...ops._registry import unsupported
from ..device_mesh import DeviceMesh, init_device_mesh  # noqa: F401  (torch re-exports them here too)
from . import placement_types  # noqa: F401
from .placement_types import Partial, Placement, Replicate, Shard

__all__ = ["DTensor", "distribute_tensor", "distribute_module", "Shard", "Replicate", "Partial", "Placement",
           "ones", "empty", "full", "rand", "randn", "zeros"]

REASON = ("mstorch has no DTensor: sharded tensors need torch's tensor-subclass dispatch "
          "(__torch_dispatch__), which mstorch does not have")


def refuse(api):
    """The error for a DTensor API mstorch cannot run."""
    return NotImplementedError(f"torch.{api} is not supported by mstorch: {REASON}")


from ..._tensor import Tensor as _Tensor  # noqa: E402
from ...overrides import _disabled_torch_function_impl  # noqa: E402


class DTensor(_Tensor):
    """Mirrors torch.distributed.tensor.DTensor as a type (for ``isinstance``/``issubclass``); making one
    raises (see the module docstring)."""

    mstorch_difference = "the type exists (isinstance is False for every mstorch tensor); making a DTensor raises"
    __torch_function__ = _disabled_torch_function_impl   # never instantiated: nothing to dispatch to

    def __new__(cls, *args, **kwargs):
        raise refuse("distributed.tensor.DTensor")

    def __init__(self, *args, **kwargs):  # never reached: __new__ raises
        raise refuse("distributed.tensor.DTensor")

    @staticmethod
    def from_local(local_tensor, device_mesh=None, placements=None, *, run_check=False, shape=None, stride=None,
                   grad_placements=None):
        raise refuse("distributed.tensor.DTensor.from_local")


def distribute_tensor(tensor, device_mesh=None, placements=None, *, src_data_rank=0):
    raise refuse("distributed.tensor.distribute_tensor")


def distribute_module(module, device_mesh=None, partition_fn=None, input_fn=None, output_fn=None):
    raise refuse("distributed.tensor.distribute_module")


def _factory(name):
    def factory(*size, **kwargs):
        raise refuse(f"distributed.tensor.{name}")
    factory.__name__ = factory.__qualname__ = name
    factory.__module__ = __name__
    return factory


ones, empty, full, rand, randn, zeros = (_factory(n) for n in ("ones", "empty", "full", "rand", "randn", "zeros"))

for _name in ("distribute_tensor", "distribute_module", "ones", "empty", "full", "rand", "randn", "zeros"):
    unsupported(f"distributed.tensor.{_name}", REASON)
