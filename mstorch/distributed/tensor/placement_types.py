"""torch.distributed.tensor.placement_types: how a DTensor lays a tensor over one dimension of a device mesh.

The placements are plain value objects (equality, hash, repr and str as torch's), and ``Shard``'s chunk
arithmetic (``local_shard_size_and_offset``, which follows ``torch.chunk``) is real: libraries use it to
compute which rows a rank reads. Sharding an actual tensor needs a DTensor, which mstorch does not provide
(see ``torch.distributed.tensor``)."""

__all__ = ["Placement", "Shard", "Replicate", "Partial"]


class Placement:
    """Mirrors torch.distributed.tensor.Placement (the base of every placement)."""

    __slots__ = ()

    def is_shard(self, dim=None):
        return False

    def is_replicate(self):
        return False

    def is_partial(self, reduce_op=None):
        return False


class Shard(Placement):
    """Mirrors torch.distributed.tensor.Shard: each rank holds one ``torch.chunk`` of tensor dim ``dim``."""

    __slots__ = ("_dim",)

    def __init__(self, dim):
        self._dim = dim

    @property
    def dim(self):
        return self._dim

    def is_shard(self, dim=None):
        return dim is None or dim == self._dim

    def __eq__(self, other):
        return type(other) is type(self) and other._dim == self._dim

    def __hash__(self):
        return hash(self._dim)

    def __repr__(self):
        return f"Shard(dim={self._dim})"

    def __str__(self):
        return f"S({self._dim})"

    @staticmethod
    def local_shard_size_and_offset(curr_local_size, num_chunks, rank):
        """(size, offset) of chunk ``rank`` when ``curr_local_size`` rows split into ``num_chunks`` as
        ``torch.chunk`` does: chunks of ceil(size / num_chunks), the last ones short or empty."""
        if curr_local_size % num_chunks == 0:
            full = curr_local_size // num_chunks
            return full, full * rank
        full = -(-curr_local_size // num_chunks)
        start = full * rank
        end = min(curr_local_size, start + full)
        return max(0, end - start), min(curr_local_size, start)

    def _local_shard_size_and_offset(self, curr_local_size, num_chunks, rank):
        return Shard.local_shard_size_and_offset(curr_local_size, num_chunks, rank)


class _StridedShard(Placement):
    """Mirrors torch.distributed.tensor.placement_types._StridedShard: a shard taken right-to-left after
    ``split_factor`` earlier splits of the same dim. Not a ``Shard`` (``is_shard()`` is False), as in torch."""

    __slots__ = ("_dim", "_split_factor")

    def __init__(self, dim, *, split_factor=1, sf=None):
        if sf is not None:
            if split_factor != 1:
                raise TypeError("_StridedShard received both split_factor and sf")
            split_factor = sf
        self._dim = dim
        self._split_factor = int(split_factor)

    @property
    def dim(self):
        return self._dim

    @property
    def split_factor(self):
        return self._split_factor

    def __eq__(self, other):
        return (isinstance(other, _StridedShard) and other._dim == self._dim
                and other._split_factor == self._split_factor)

    def __hash__(self):
        return hash((self._dim, self._split_factor))

    def __repr__(self):
        return f"_StridedShard(dim={self._dim}, sf={self._split_factor})"

    def __str__(self):
        return f"_S({self._dim}, {self._split_factor})"


class Replicate(Placement):
    """Mirrors torch.distributed.tensor.Replicate: every rank holds the whole tensor."""

    __slots__ = ()

    def is_replicate(self):
        return True

    def __eq__(self, other):
        return type(other) is type(self)

    def __hash__(self):
        return -1

    def __repr__(self):
        return "Replicate()"

    def __str__(self):
        return "R"


class Partial(Placement):
    """Mirrors torch.distributed.tensor.Partial: each rank holds a partial value pending ``reduce_op``."""

    __slots__ = ("_reduce_op",)
    LINEAR_REDUCE_OPS = ("sum", "avg")
    ALL_REDUCE_OPS = ("sum", "avg", "min", "max", "product")

    def __init__(self, reduce_op=None):
        self._reduce_op = "sum" if reduce_op is None else reduce_op

    @property
    def reduce_op(self):
        return self._reduce_op

    def is_partial(self, reduce_op=None):
        return reduce_op is None or reduce_op == self._reduce_op

    def __eq__(self, other):
        return isinstance(other, Partial) and other._reduce_op == self._reduce_op

    def __hash__(self):
        return 1 + hash(self._reduce_op)

    def __repr__(self):
        return f"Partial({self._reduce_op})"

    def __str__(self):
        return f"P({self._reduce_op})"


_Partial = Partial  # torch keeps the old name


def _is_shard_like(p):
    return isinstance(p, (Shard, _StridedShard))
