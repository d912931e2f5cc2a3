"""torch.distributed.tensor: the types libraries test parameters against (``isinstance(p, DTensor)`` in
accelerate and peft) and the placement descriptions. A DTensor is a tensor sharded over a device mesh by
torch's sharding propagation, which mstorch does not have: making one raises (docs/known-differences.md)."""
from ..._tensor import Tensor

__all__ = ["DTensor", "distribute_tensor", "distribute_module", "Shard", "Replicate", "Partial", "Placement"]

_REASON = ("mstorch has no DTensor: torch's sharding propagation over a DeviceMesh is not implemented; "
           "shard with mstorch.distributed collectives or MindSpore's own parallel modes instead")


def _unsupported(api):
    return NotImplementedError(f"{api} is not supported: {_REASON}")


class DTensor(Tensor):
    """torch.distributed.tensor.DTensor: the type exists (no mstorch tensor is one); making one raises."""

    def __new__(cls, *args, **kwargs):
        raise _unsupported("torch.distributed.tensor.DTensor")

    @staticmethod
    def from_local(*args, **kwargs):
        raise _unsupported("torch.distributed.tensor.DTensor.from_local")


def distribute_tensor(*args, **kwargs):
    raise _unsupported("torch.distributed.tensor.distribute_tensor")


def distribute_module(*args, **kwargs):
    raise _unsupported("torch.distributed.tensor.distribute_module")


class Placement:
    """Mirrors torch.distributed.tensor.Placement: how a DTensor's data lies across one mesh dimension."""

    def is_shard(self, dim=None):
        return False

    def is_replicate(self):
        return False

    def is_partial(self, reduce_op=None):
        return False


class Shard(Placement):
    """Mirrors torch.distributed.tensor.Shard(dim)."""

    def __init__(self, dim):
        self.dim = dim

    def is_shard(self, dim=None):
        return dim is None or dim == self.dim

    def __eq__(self, other):
        return type(other) is Shard and other.dim == self.dim

    def __hash__(self):
        return hash((Shard, self.dim))

    def __repr__(self):
        return f"Shard(dim={self.dim})"

    def __str__(self):
        return f"S({self.dim})"


class Replicate(Placement):
    """Mirrors torch.distributed.tensor.Replicate()."""

    def is_replicate(self):
        return True

    def __eq__(self, other):
        return type(other) is Replicate

    def __hash__(self):
        return hash(Replicate)

    def __repr__(self):
        return "Replicate()"

    def __str__(self):
        return "R"


class Partial(Placement):
    """Mirrors torch.distributed.tensor.Partial(reduce_op="sum")."""

    def __init__(self, reduce_op="sum"):
        self.reduce_op = reduce_op

    def is_partial(self, reduce_op=None):
        return reduce_op is None or reduce_op == self.reduce_op

    def __eq__(self, other):
        return type(other) is Partial and other.reduce_op == self.reduce_op

    def __hash__(self):
        return hash((Partial, self.reduce_op))

    def __repr__(self):
        return f"Partial({self.reduce_op})"

    def __str__(self):
        return f"P({self.reduce_op})"
