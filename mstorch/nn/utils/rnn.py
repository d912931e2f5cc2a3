"""torch.nn.utils.rnn: PackedSequence and the pack/pad helpers.

Packing and padding are index maps known on the host (the lengths live on the CPU in torch too), so each
is one ``gather`` over the flattened input: differentiable, and one kernel however many sequences.
"""
from collections import namedtuple
from collections.abc import Iterable

import numpy as np
import mindspore as ms
from ..._runtime import read_host
from ...ops import _msops as ops

from ... import _dtype as D
from ..._tensor import Tensor, wrap, scalar_type_name

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence"]

PackedSequence_ = namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


def _bind(optional, fn):
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    """Mirrors torch.nn.utils.rnn.PackedSequence (a namedtuple of data, batch_sizes, sorted_indices,
    unsorted_indices; build it with pack_padded_sequence / pack_sequence)."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_init_args(data, batch_sizes, sorted_indices, unsorted_indices))

    def pin_memory(self):
        return self

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cuda(self, *args, **kwargs):
        kwargs.setdefault("device", "cuda")
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        return self.to(*args, **kwargs)

    def double(self):
        return self.to(dtype=D.float64)

    def float(self):
        return self.to(dtype=D.float32)

    def half(self):
        return self.to(dtype=D.float16)

    def long(self):
        return self.to(dtype=D.int64)

    def int(self):
        return self.to(dtype=D.int32)

    def short(self):
        return self.to(dtype=D.int16)

    def char(self):
        return self.to(dtype=D.int8)

    def byte(self):
        return self.to(dtype=D.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def _init_args(data, batch_sizes, sorted_indices, unsorted_indices):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def invert_permutation(permutation):
    if permutation is None:
        return None
    perm = read_host(permutation._ms)
    out = np.empty_like(perm)
    out[perm] = np.arange(perm.size, dtype=perm.dtype)
    return wrap(ms.Tensor(out))


def _long_tensor(values):
    return wrap(ms.Tensor(np.asarray(values, np.int64).reshape(-1)))


def _flat_rows(t):
    """(n, *rest) view of a (d0, d1, *rest) tensor as rows."""
    shape = tuple(t._ms.shape)
    return t._ms.reshape((shape[0] * shape[1],) + shape[2:]), shape[2:]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    if isinstance(lengths, Tensor):
        lengths = lengths.to(dtype=D.int64)
    else:
        lengths = _long_tensor(lengths)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = lengths.sort(descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if lengths.ndim != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.ndim}D cpu "
                           f"{scalar_type_name(lengths.dtype)} tensor")
    lens = read_host(lengths._ms)
    shape = tuple(input._ms.shape)
    batch, steps = (shape[0], shape[1]) if batch_first else (shape[1], shape[0])
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if lens.size != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lens.size} "
                           f"(batch_size={batch})")
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if np.any(lens[1:] > lens[:-1]):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                           "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    if lens[0] > steps:
        # torch reads past the end of the input here; refuse instead of returning garbage
        raise RuntimeError(f"pack_padded_sequence: a length ({int(lens[0])}) exceeds the padded sequence length "
                           f"({steps})")
    t_idx, b_idx = np.nonzero(np.arange(lens[0])[:, None] < lens[None, :])   # time-major, batch inside
    rows = b_idx * steps + t_idx if batch_first else t_idx * batch + b_idx
    flat, _ = _flat_rows(input)
    data = wrap(ops.gather(flat, ms.Tensor(rows.astype(np.int64)), 0))
    batch_sizes = _long_tensor((lens[None, :] > np.arange(lens[0])[:, None]).sum(1))
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    sizes = read_host(sequence.batch_sizes._ms).astype(np.int64)
    max_seq_length = sizes.size
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    batch = int(sizes[0])
    data = sequence.data._ms
    n = data.shape[0]
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    idx = np.full((max_seq_length, batch), n, np.int64)      # row n is the padding row
    for t, (s, b) in enumerate(zip(starts, sizes)):
        idx[t, :b] = np.arange(s, s + b)
    if batch_first:
        idx = idx.T
    pad = ops.fill(data.dtype, (1,) + tuple(data.shape[1:]), padding_value)
    src = ops.concat((data, pad), 0)
    out = ops.gather(src, ms.Tensor(np.ascontiguousarray(idx).reshape(-1)), 0)
    out = wrap(out.reshape(idx.shape + tuple(data.shape[1:])))
    lengths = (sizes[None, :] > np.arange(batch)[:, None]).sum(1)
    unsorted = sequence.unsorted_indices
    if unsorted is not None:
        out = out.index_select(0 if batch_first else 1, unsorted)
        lengths = lengths[read_host(unsorted._ms)]
    return out, _long_tensor(lengths)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    raw = [s._ms for s in sequences]
    if raw[0].ndim == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    trailing = tuple(raw[0].shape[1:])
    dt = raw[0].dtype
    for r in raw:
        if tuple(r.shape[1:]) != trailing:
            _mismatch(trailing, tuple(r.shape[1:]))
    lens = np.array([r.shape[0] for r in raw], np.int64)
    steps = int(lens.max())
    parts = [r if r.dtype == dt else r.astype(dt) for r in raw]
    total = int(lens.sum())
    parts.append(ops.fill(dt, (1,) + trailing, padding_value))
    src = ops.concat(parts, 0)
    starts = np.concatenate(([0], np.cumsum(lens)[:-1]))
    pos = np.arange(steps)[None, :]
    if padding_side == "right":
        idx = np.where(pos < lens[:, None], starts[:, None] + pos, total)
    else:
        shift = pos - (steps - lens[:, None])
        idx = np.where(shift >= 0, starts[:, None] + shift, total)
    if not batch_first:
        idx = idx.T
    out = ops.gather(src, ms.Tensor(np.ascontiguousarray(idx).reshape(-1)), 0)
    return wrap(out.reshape(idx.shape + trailing))


def _mismatch(a, b):
    # torch's broadcast-copy message for the first trailing dim that differs
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                               f"dimension {len(a) - i + 1}")
    raise RuntimeError(f"pad_sequence: trailing dimensions {list(b)} differ from {list(a)}")


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    out = []
    for seq, length in zip(padded_sequences, read_host(lengths._ms).tolist()):
        out.append(seq[:int(length)])
    return out


def pack_sequence(sequences, enforce_sorted=True):
    lengths = _long_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
