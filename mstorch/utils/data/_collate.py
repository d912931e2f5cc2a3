"""``default_collate`` / ``default_convert``: mirror ``torch.utils.data._utils.collate``.

The type dispatch (``default_collate_fn_map``, ``collate(batch, collate_fn_map=...)``) is torch's, so
user extensions of the map work unchanged. Numbers become tensors with torch's dtypes (float -> float64,
int -> int64, bool -> bool). Stacking many small tensors costs one MindSpore kernel launch per input, so
same-shaped, same-dtype batches are stacked on the host (NumPy) and wrapped once: same values, dtype and
shape as ``torch.stack``.
"""
import collections
import copy
import re

import numpy as np
import mindspore as ms

from ..._runtime import read_host
from ..._tensor import Tensor, wrap
from ..._functions import as_tensor, from_numpy, stack, tensor as _tensor
from ..._dtype import float64

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")


def default_convert(data):
    """Mirrors ``torch.utils.data.default_convert``: NumPy arrays and scalars inside ``data`` -> tensors."""
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]     # torch returns a list here, for backward compatibility
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map=None):
    """Mirrors ``torch.utils.data._utils.collate.collate``: dispatch on the first element's type."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        fn = collate_fn_map.get(elem_type)
        if fn is not None:
            return fn(batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                              for key in elem})
                return clone
            return elem_type({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                              for key in elem})
        except TypeError:
            return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def _host_stack(batch):
    """``torch.stack(batch)`` through NumPy, or None where that could differ (dtypes, shapes, autograd)."""
    first = batch[0]._ms
    dt, shape = first.dtype, first.shape
    for t in batch:
        if type(t) is not Tensor or t._ms.dtype != dt or t._ms.shape != shape or t.requires_grad:
            return None
    # MindSpore's host arrays carry bfloat16 too (ml_dtypes), so every dtype takes this path
    return wrap(ms.from_numpy(np.stack([read_host(t._ms) for t in batch])))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    out = _host_stack(batch)
    return out if out is not None else stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    if (collate_fn_map is not None and collate_fn_map.get(Tensor) is collate_tensor_fn
            and elem.dtype.isnative):
        dt, shape = elem.dtype, elem.shape
        if all(type(b) is np.ndarray and b.dtype == dt and b.shape == shape for b in batch):
            return from_numpy(np.stack(batch))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    return _tensor(batch, dtype=float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return _tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {Tensor: collate_tensor_fn}
default_collate_fn_map[np.ndarray] = collate_numpy_array_fn
default_collate_fn_map[(np.bool_, np.number, np.object_)] = collate_numpy_scalar_fn
default_collate_fn_map[float] = collate_float_fn
default_collate_fn_map[int] = collate_int_fn
default_collate_fn_map[str] = collate_str_fn
default_collate_fn_map[bytes] = collate_str_fn


def default_collate(batch):
    """Mirrors ``torch.utils.data.default_collate``: a list of samples -> one batch with a leading dim."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
