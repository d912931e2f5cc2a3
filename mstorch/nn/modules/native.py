"""A native mindspore.nn.Cell used as a submodule of an mstorch Module."""
import mindspore as ms

from ..._tensor import Tensor, wrap
from ..parameter import Parameter
from .module import Module


def _unwrap(x):
    if isinstance(x, Tensor):
        return x._ms
    if isinstance(x, (list, tuple)):
        return type(x)(_unwrap(v) for v in x)
    if isinstance(x, dict):
        return {k: _unwrap(v) for k, v in x.items()}
    return x


def _wrap(x):
    if isinstance(x, ms.Tensor):
        return wrap(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_wrap(v) for v in x)
    if isinstance(x, dict):
        return {k: _wrap(v) for k, v in x.items()}
    return x


class NativeCell(Module):
    """Holds a mindspore.nn.Cell: mstorch inputs are unwrapped, MindSpore outputs wrapped; the cell's own
    Parameters appear (shared, not copied) as mstorch Parameters under their attribute paths."""

    def __init__(self, cell):
        super().__init__()
        object.__setattr__(self, "cell", cell)
        self._cells["cell"] = cell
        for name, p in cell.parameters_and_names():
            param = Parameter.__new__(Parameter)
            param._ms = p
            self._parameters[name.replace(".", "_")] = param

    def forward(self, *args, **kwargs):
        return _wrap(self.cell(*_unwrap(args), **_unwrap(kwargs)))

    def extra_repr(self):
        return repr(self.cell)

    def _get_name(self):
        return "NativeCell"
