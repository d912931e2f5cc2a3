"""Checkpoints between torch / mstorch and native MindSpore, for migrating a model piece by piece.

- ``save_mindspore_checkpoint(src, path, name_map=None)``: a state dict, a Module, a native Cell or a
  checkpoint file (``.pth``/``.pt``/``.bin`` as torch.save writes them, ``.safetensors``) -> a
  MindSpore ``.ckpt`` that ``mindspore.load_checkpoint`` reads.
- ``load_mindspore_checkpoint(path, name_map=None)``: a ``.ckpt`` -> OrderedDict of mstorch tensors
  (``Module.load_state_dict`` takes it; ``mstorch.save`` writes it for real torch).
- ``convert_to_mindspore(src, ckpt_path)`` / ``convert_to_torch(ckpt_path, pth_path)``: file to file.
- ``load_into_cell(cell, src, name_map=None, strict=True)``: load torch weights into a native
  ``mindspore.nn.Cell``; returns ``(missing_keys, unexpected_keys)`` and raises as torch's
  ``load_state_dict`` does. ``to_mindspore_parameters(src)`` gives what ``mindspore.load_param_into_net``
  takes; ``cell_state_dict(cell)`` a Cell's parameters as mstorch tensors.
- ``torch_to_mindspore_names(model)`` / ``mindspore_to_torch_names(model)``: name maps for the layers
  whose parameters MindSpore names differently (BatchNorm ``running_mean`` -> ``moving_mean``, ...).

A ``name_map`` is a dict (names it lists are renamed, others kept; a value of None drops the entry) or
a callable ``name -> new name or None``. Values keep their dtype, bfloat16 and float16 included.
"""
import os
import sys
from collections import OrderedDict
from collections.abc import Mapping

import numpy as np
import mindspore as ms

from ._runtime import read_host
from . import _dtype as D
from ._tensor import Tensor, wrap

__all__ = ["save_mindspore_checkpoint", "load_mindspore_checkpoint", "convert_to_mindspore", "convert_to_torch",
           "load_into_cell", "to_mindspore_parameters", "cell_state_dict", "torch_to_mindspore_names",
           "mindspore_to_torch_names"]

_WHO = "mstorch.interop"


# --- name maps ------------------------------------------------------------------------------------

# torch parameter/buffer name -> MindSpore's, per kind of layer (mindspore.nn names; None: MindSpore
# has no such entry)
_RENAMES = {
    "batchnorm": {"weight": "gamma", "bias": "beta", "running_mean": "moving_mean",
                  "running_var": "moving_variance", "num_batches_tracked": None},
    "norm": {"weight": "gamma", "bias": "beta"},
    "embedding": {"weight": "embedding_table"},
}
_KINDS = {"BatchNorm1d": "batchnorm", "BatchNorm2d": "batchnorm", "BatchNorm3d": "batchnorm",
          "SyncBatchNorm": "batchnorm", "LayerNorm": "norm", "GroupNorm": "norm", "Embedding": "embedding"}


def _renamed(model):
    """(prefix, torch name, MindSpore name or None) for every parameter of ``model`` that
    mindspore.nn names differently."""
    native = isinstance(model, ms.nn.Cell) and not hasattr(model, "named_modules")
    if native:
        named = model.cells_and_names()
    elif hasattr(model, "named_modules"):  # torch or mstorch Module
        named = model.named_modules()
    else:
        raise TypeError(f"{_WHO}: expected a torch/mstorch Module or a mindspore.nn.Cell, got {type(model).__name__}")
    out = []
    for prefix, layer in named:
        kind = next((_KINDS[c.__name__] for c in type(layer).__mro__ if c.__name__ in _KINDS), None)
        if kind is None:
            continue
        # mindspore.mint.nn layers already use torch's names: rename only what the Cell really has
        own = {n for n, _ in layer.parameters_and_names()} if native else None
        if own is not None and not any(m in own for m in _RENAMES[kind].values()):
            continue
        prefix = prefix + "." if prefix else ""
        out.extend((prefix, t, m) for t, m in _RENAMES[kind].items())
    return out


def torch_to_mindspore_names(model):
    """The name map from torch's parameter names to mindspore.nn's for ``model`` (a torch/mstorch
    Module, or the mindspore.nn.Cell it is migrated to): BatchNorm ``weight/bias/running_mean/
    running_var`` -> ``gamma/beta/moving_mean/moving_variance`` (``num_batches_tracked`` dropped),
    LayerNorm/GroupNorm ``weight/bias`` -> ``gamma/beta``, Embedding ``weight`` -> ``embedding_table``."""
    return {prefix + t: (None if m is None else prefix + m) for prefix, t, m in _renamed(model)}


def mindspore_to_torch_names(model):
    """The reverse of ``torch_to_mindspore_names`` (torch's BatchNorm fills in ``num_batches_tracked``
    when a state dict without version metadata lacks it)."""
    return {prefix + m: prefix + t for prefix, t, m in _renamed(model) if m is not None}


def _renamer(name_map):
    if name_map is None:
        return None
    if isinstance(name_map, Mapping):
        return lambda k: name_map.get(k, k)
    if callable(name_map):
        return name_map
    raise TypeError(f"{_WHO}: name_map must be a dict or a callable, got {type(name_map).__name__}")


def _rename(state, name_map):
    rename = _renamer(name_map)
    if rename is None:
        return OrderedDict(state)
    out = OrderedDict()
    sources = {}
    for k, v in state.items():
        new = rename(k)
        if new is None:
            continue
        if not isinstance(new, str):
            raise TypeError(f"{_WHO}: name_map gave {new!r} for {k!r}; expected a str or None")
        if new in out:
            raise ValueError(f"{_WHO}: name_map gives both {sources[new]!r} and {k!r} the name {new!r}")
        out[new] = v
        sources[new] = k
    return out


# --- values ---------------------------------------------------------------------------------------

def _host(ms_t):
    """A NumPy copy of a MindSpore tensor's values (bfloat16 as its int16 bits)."""
    if not ms_t.is_contiguous():
        ms_t = ms_t.contiguous()
    if ms_t.dtype == ms.bfloat16:
        return read_host(ms_t.view(ms.int16)).copy()
    return read_host(ms_t).copy()


def _from_host(arr, bfloat16=False):
    t = ms.Tensor(arr)
    return t.view(ms.bfloat16) if bfloat16 else t


def _to_ms(value, key):
    """A fresh mindspore.Tensor holding ``value`` (mstorch, MindSpore, NumPy or real torch tensor)."""
    if isinstance(value, Tensor):
        value = value._ms
    if isinstance(value, ms.Tensor):
        return _from_host(_host(value), value.dtype == ms.bfloat16)
    if isinstance(value, np.ndarray):
        return ms.Tensor(np.ascontiguousarray(value).copy())
    top = type(value).__module__.split(".")[0]
    if top == "torch" and hasattr(value, "detach"):  # a tensor of real torch, when it is installed
        torch = sys.modules[top]
        value = value.detach().cpu().contiguous()
        if value.dtype == torch.bfloat16:
            return _from_host(value.view(torch.int16).numpy().copy(), True)
        return ms.Tensor(value.numpy().copy())
    raise TypeError(f"{_WHO}: {key!r} is a {type(value).__name__}, not a tensor")


def _to_mstorch(ms_t):
    return wrap(_from_host(_host(ms_t), ms_t.dtype == ms.bfloat16))


def cell_state_dict(cell, name_map=None):
    """A native mindspore.nn.Cell's parameters as an OrderedDict of mstorch tensors (copies), under
    their names in ``cell.parameters_and_names()`` (renamed by ``name_map``)."""
    if hasattr(cell, "state_dict") and hasattr(cell, "named_modules"):
        return _rename(OrderedDict((k, v.detach().clone()) for k, v in cell.state_dict().items()), name_map)
    return _rename(OrderedDict((k, _to_mstorch(p)) for k, p in cell.parameters_and_names()), name_map)


def _load_file(path):
    path = os.fspath(path)
    if path.endswith(".safetensors"):
        from ._safetensors import load_file
        return load_file(path)
    if path.endswith(".ckpt"):
        return load_mindspore_checkpoint(path)
    from .serialization import load
    obj = load(path, weights_only=True)
    return obj.state_dict() if hasattr(obj, "state_dict") else obj


def _state(src):
    """The (name -> tensor) mapping that ``src`` stands for."""
    if isinstance(src, (str, os.PathLike)):
        src = _load_file(src)
    elif isinstance(src, ms.nn.Cell) and not hasattr(src, "named_modules"):  # a native Cell
        src = OrderedDict(src.parameters_and_names())
    elif hasattr(src, "state_dict") and callable(src.state_dict):  # a torch or mstorch Module
        src = src.state_dict()
    if not isinstance(src, Mapping):
        raise TypeError(f"{_WHO}: expected a state dict, a Module, a mindspore.nn.Cell or a checkpoint path, got "
                        f"{type(src).__name__}")
    for k, v in src.items():
        if not isinstance(k, str):
            raise TypeError(f"{_WHO}: state dict keys must be str, got {k!r}")
        if isinstance(v, Mapping):
            raise TypeError(f"{_WHO}: {k!r} holds a dict, not a tensor; pass the state dict itself "
                            f"(e.g. checkpoint[{k!r}])")
    return src


# --- MindSpore checkpoint files -----------------------------------------------------------------------

def _checked_for_ckpt(name, t):
    if t.dtype in (ms.complex64, ms.complex128):
        raise TypeError(f"{_WHO}.save_mindspore_checkpoint: {name!r} is {D._FROM_MS[t.dtype]}; "
                        "mindspore.load_checkpoint cannot read complex tensors from a checkpoint")
    if t.size == 0:
        raise ValueError(f"{_WHO}.save_mindspore_checkpoint: {name!r} has no elements (shape "
                         f"{tuple(t.shape)}); mindspore.load_checkpoint drops such entries")
    return t


def save_mindspore_checkpoint(src, path, name_map=None):
    """Write ``src`` (state dict, Module, Cell or checkpoint path) as a MindSpore .ckpt file; returns
    the path written (MindSpore appends ``.ckpt`` when ``path`` lacks it)."""
    state = _rename(_state(src), name_map)
    items = [{"name": k, "data": _checked_for_ckpt(k, _to_ms(v, k))} for k, v in state.items()]
    path = os.fspath(path)
    ms.save_checkpoint(items, path)
    return path if path.endswith(".ckpt") else path + ".ckpt"


def load_mindspore_checkpoint(path, name_map=None):
    """A MindSpore .ckpt file as an OrderedDict of mstorch tensors, in file order (string entries,
    which MindSpore's ``append_dict`` can add, stay str)."""
    params = ms.load_checkpoint(os.fspath(path))
    out = OrderedDict((k, _to_mstorch(v) if isinstance(v, ms.Tensor) else v) for k, v in params.items())
    return _rename(out, name_map)


def convert_to_mindspore(src, ckpt_path, name_map=None):
    """A torch checkpoint file (or state dict / Module) -> MindSpore .ckpt; returns the path written."""
    return save_mindspore_checkpoint(src, ckpt_path, name_map)


def convert_to_torch(ckpt_path, pth_path, name_map=None):
    """A MindSpore .ckpt -> a torch.save file that real torch loads (``weights_only=True``); returns the
    state dict."""
    from .serialization import save
    state = OrderedDict((k, v) for k, v in load_mindspore_checkpoint(ckpt_path, name_map).items()
                        if isinstance(v, Tensor))
    save(state, pth_path)
    return state


# --- native Cells -------------------------------------------------------------------------------------

def to_mindspore_parameters(src, name_map=None):
    """``src`` as an OrderedDict of mindspore.Parameter named by key: what
    ``mindspore.load_param_into_net(cell, params)`` takes."""
    state = _rename(_state(src), name_map)
    return OrderedDict((k, ms.Parameter(_to_ms(v, k), name=k)) for k, v in state.items())


def _size(shape):
    return f"torch.Size({list(shape)})"


def load_into_cell(cell, src, name_map=None, strict=True):
    """Copy ``src``'s tensors (state dict, Module, checkpoint path...) into a native mindspore.nn.Cell's
    parameters, matched by the names ``cell.parameters_and_names()`` gives, as torch's
    ``load_state_dict`` does: values are cast to each parameter's dtype, a shape mismatch raises, and
    with ``strict`` missing or unexpected names raise. Returns ``(missing_keys, unexpected_keys)``.
    Nothing is copied when it raises."""
    from .nn.modules._module_utils import _IncompatibleKeys
    state = _rename(_state(src), name_map)
    if hasattr(cell, "load_state_dict") and hasattr(cell, "named_modules"):  # an mstorch Module
        return cell.load_state_dict(OrderedDict((k, _as_mstorch(v, k)) for k, v in state.items()), strict)
    if not isinstance(cell, ms.nn.Cell):
        raise TypeError(f"{_WHO}.load_into_cell: expected a mindspore.nn.Cell, got {type(cell).__name__}")
    params = OrderedDict(cell.parameters_and_names())
    missing = [k for k in params if k not in state]
    unexpected = [k for k in state if k not in params]
    errors = []
    if strict:
        if unexpected:
            errors.append("Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
        if missing:
            errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
    values = {}
    for k, p in params.items():
        if k not in state:
            continue
        v = _to_ms(state[k], k)
        if tuple(v.shape) != tuple(p.shape):
            errors.append(f"size mismatch for {k}: copying a param with shape {_size(v.shape)} from checkpoint, "
                          f"the shape in current model is {_size(p.shape)}.")
            continue
        values[k] = v if v.dtype == p.dtype else ms.ops.cast(v, p.dtype)
    if errors:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(type(cell).__name__,
                                                                                 "\n\t".join(errors)))
    for k, v in values.items():
        params[k].set_data(v)
    return _IncompatibleKeys(missing, unexpected)


def _as_mstorch(value, key):
    return value if isinstance(value, Tensor) else wrap(_to_ms(value, key))
