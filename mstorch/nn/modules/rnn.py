"""RNNBase, RNN, LSTM, GRU, RNNCell, LSTMCell, GRUCell with torch's parameter names, layouts, gate order,
init, checks and messages. The recurrences themselves are in ``ops/_rnn_impl.py``."""
import math
import numbers
import warnings

import mindspore as ms

from ..._tensor import wrap
from ...ops.creation import empty, zeros
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ...ops import _rnn_impl as K
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _packed_sequence_class():
    # nn.utils.rnn is imported lazily: it builds on nn, and may not be present in partial installs
    try:
        from ..utils.rnn import PackedSequence
    except ImportError:
        return None
    return PackedSequence


def _dropout(x, p):
    return F.dropout(wrap(x), p, True)._ms


def _apply_permutation(tensor, permutation, dim=1):
    return tensor.index_select(dim, permutation)


def _compute_dtype(ms_dt):
    # bfloat16 matmuls have no MindSpore CPU kernel: compute in float32, round the results
    return ms.float32 if ms_dt == ms.bfloat16 else ms_dt


class RNNBase(Module):
    """Mirrors torch.nn.RNNBase (parameters ``weight_ih_l{k}[_reverse]`` etc. in torch's order)."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size

        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                sfx = "_reverse" if direction == 1 else ""
                params = [(f"weight_ih_l{layer}{sfx}", (gate_size, layer_input)),
                          (f"weight_hh_l{layer}{sfx}", (gate_size, real_hidden))]
                if bias:
                    params += [(f"bias_ih_l{layer}{sfx}", (gate_size,)), (f"bias_hh_l{layer}{sfx}", (gate_size,))]
                if proj_size > 0:
                    params.append((f"weight_hr_l{layer}{sfx}", (proj_size, hidden_size)))
                for name, shape in params:
                    setattr(self, name, Parameter(empty(shape, dtype=dtype, device=device)))
                names = [n for n, _ in params]
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self._init_flat_weights()
        self.reset_parameters()

    # torch keeps this list (code reads it, and pickles of whole models carry it both ways); forward reads
    # the parameters by name, so a stale list cannot change results
    def _init_flat_weights(self):
        self._flat_weights = [getattr(self, n) if hasattr(self, n) else None for n in self._flat_weights_names]
        self.flatten_parameters()

    def __setattr__(self, attr, value):
        if hasattr(self, "_flat_weights_names") and attr in self._flat_weights_names:
            self._flat_weights[self._flat_weights_names.index(attr)] = value
        super().__setattr__(attr, value)

    def _apply(self, fn, recurse=True):
        ret = super()._apply(fn, recurse)
        self._init_flat_weights()
        return ret

    def __setstate__(self, state):
        state.pop("_flat_weight_refs", None)
        super().__setstate__(state)
        if "proj_size" not in state:
            self.proj_size = 0

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self):
        """A no-op, as in torch on CPU: it only re-packs weights for cuDNN."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input, batch_sizes):
        w0 = getattr(self, self._flat_weights_names[0])
        if input.dtype != w0.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w0.dtype}). Convert "
                             f"input: input.to({w0.dtype}), or convert model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # --- the shared forward ----------------------------------------------------------------------

    def _zeros_hidden(self, input, max_batch_size, size):
        num_directions = 2 if self.bidirectional else 1
        return zeros(self.num_layers * num_directions, max_batch_size, size, dtype=input.dtype)

    def _unpack_input(self, input, hx, name, tensor_word):
        """torch's prologue: (input, hx, batch_sizes, sorted_indices, unsorted_indices, is_batched, batch_dim)."""
        packed_cls = _packed_sequence_class()
        if packed_cls is not None and isinstance(input, packed_cls):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            return input, hx, [int(b) for b in batch_sizes.tolist()], sorted_indices, unsorted_indices, True, None
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D{tensor_word} instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        return input, hx, None, None, None, is_batched, batch_dim

    def _run(self, input, hx, cx, batch_sizes):
        """Run the recurrence on mstorch tensors; returns mstorch (output, h_n, c_n or None)."""
        x = input._ms
        out_dt = x.dtype
        cdt = _compute_dtype(out_dt)
        batch_first = self.batch_first and batch_sizes is None
        if batch_first:
            x = x.swapaxes(0, 1)
        ws = [getattr(self, n)._ms for n in self._flat_weights_names]
        h = hx._ms
        c = None if cx is None else cx._ms
        if cdt != out_dt:
            x, h = x.astype(cdt), h.astype(cdt)
            c = None if c is None else c.astype(cdt)
            ws = [w.astype(cdt) for w in ws]
        per = len(ws) // (self.num_layers * (2 if self.bidirectional else 1))
        weights = []
        for i in range(0, len(ws), per):
            g = ws[i:i + per]
            w_ih, w_hh = g[0], g[1]
            b_ih, b_hh = (g[2], g[3]) if self.bias else (None, None)
            w_hr = g[-1] if self.proj_size > 0 else None
            weights.append((w_ih, w_hh, b_ih, b_hh, w_hr))
        out, h_n, c_n = K.rnn_forward(self.mode, x, h, c, weights, self.num_layers, self.bidirectional,
                                      self.dropout, self.training, _dropout, batch_sizes)
        if batch_first:
            out = out.swapaxes(0, 1)
        if cdt != out_dt:
            out, h_n = out.astype(out_dt), h_n.astype(out_dt)
            c_n = None if c_n is None else c_n.astype(out_dt)
        return wrap(out), wrap(h_n), None if c_n is None else wrap(c_n)

    def _pack_output(self, output, batch_sizes, sorted_indices, unsorted_indices):
        from ..utils.rnn import PackedSequence
        return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)


class _SingleStateRNN(RNNBase):
    """RNN and GRU share everything but the name in their error messages."""

    _name = "RNN"
    _tensor_word = ""

    def forward(self, input, hx=None):
        orig_input = input
        input, hx, batch_sizes, sorted_indices, unsorted_indices, is_batched, batch_dim = self._unpack_input(
            input, hx, self._name, self._tensor_word)
        if batch_sizes is not None:
            if hx is None:
                hx = self._zeros_hidden(input, batch_sizes[0], self.hidden_size)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            if not is_batched:
                if hx is not None:
                    if hx.dim() != 2:
                        raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D "
                                           "tensor")
                    hx = hx.unsqueeze(1)
            elif hx is not None and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
            if hx is None:
                max_batch_size = input.size(0) if self.batch_first else input.size(1)
                hx = self._zeros_hidden(input, max_batch_size, self.hidden_size)
        self.check_forward_args(input, hx, batch_sizes)
        output, hidden, _ = self._run(input, hx, None, batch_sizes)
        if batch_sizes is not None:
            return (self._pack_output(output, orig_input.batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, hidden


class RNN(_SingleStateRNN):
    """Mirrors torch.nn.RNN (tanh or relu Elman RNN)."""

    _tensor_word = " tensor"

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)
        self.nonlinearity = nonlinearity


class GRU(_SingleStateRNN):
    """Mirrors torch.nn.GRU (gates r, z, n; n = tanh(W_in x + b_in + r * (W_hn h + b_hn)))."""

    _name = "GRU"

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class LSTM(RNNBase):
    """Mirrors torch.nn.LSTM (gates i, f, g, o; optional projections ``proj_size``)."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def forward(self, input, hx=None):
        orig_input = input
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        input, hx, batch_sizes, sorted_indices, unsorted_indices, is_batched, batch_dim = self._unpack_input(
            input, hx, "LSTM", "")
        if batch_sizes is not None:
            if hx is None:
                hx = (self._zeros_hidden(input, batch_sizes[0], real_hidden),
                      self._zeros_hidden(input, batch_sizes[0], self.hidden_size))
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            if hx is None:
                hx = (self._zeros_hidden(input, max_batch_size, real_hidden),
                      self._zeros_hidden(input, max_batch_size, self.hidden_size))
            else:
                if is_batched:
                    if hx[0].dim() != 3 or hx[1].dim() != 3:
                        raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                           f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                else:
                    if hx[0].dim() != 2 or hx[1].dim() != 2:
                        raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                           f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, batch_sizes)
        output, h_n, c_n = self._run(input, hx[0], hx[1], batch_sizes)
        hidden = (h_n, c_n)
        if batch_sizes is not None:
            return (self._pack_output(output, orig_input.batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return output, hidden


# --- cells ---------------------------------------------------------------------------------------------

def _check_cell(input, hx, input_size, hidden_size, label):
    if input.shape[1] != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {input_size}")
    if input.shape[0] != hx.shape[0]:
        raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{label} batch size "
                           f"{hx.shape[0]}")
    if hx.shape[1] != hidden_size:
        raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {hx.shape[1]}, expected {hidden_size}")


class RNNCellBase(Module):
    """Mirrors torch.nn.RNNCellBase."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), dtype=dtype, device=device))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, dtype=dtype, device=device))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _step(self, mode, input, h, c):
        """Validate like torch's *_cell ops, run one step on mstorch tensors."""
        return cell_step(mode, input, h, c, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh,
                         self.input_size, self.hidden_size)


def cell_step(mode, input, h, c, w_ih, w_hh, b_ih, b_hh, input_size=None, hidden_size=None):
    """One step of an RNN/LSTM/GRU cell on batched mstorch tensors, checked as torch's *_cell ops check
    (also torch.lstm_cell / gru_cell / rnn_tanh_cell / rnn_relu_cell, whose sizes come from the weights)."""
    input_size = w_ih.shape[1] if input_size is None else input_size
    hidden_size = w_hh.shape[1] if hidden_size is None else hidden_size
    _check_cell(input, h, input_size, hidden_size, 0)
    if c is not None:
        _check_cell(input, c, input_size, hidden_size, 1)
    if input.dtype != w_ih.dtype:
        from ..._tensor import scalar_type_name
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {scalar_type_name(input.dtype)} "
                           f"and {scalar_type_name(w_ih.dtype)}")
    ws = [None if w is None else w._ms for w in (w_ih, w_hh, b_ih, b_hh)]
    x, hm, cm = input._ms, h._ms, None if c is None else c._ms
    out_dt = x.dtype
    cdt = _compute_dtype(out_dt)
    if cdt != out_dt:
        x, hm = x.astype(cdt), hm.astype(cdt)
        cm = None if cm is None else cm.astype(cdt)
        ws = [None if w is None else w.astype(cdt) for w in ws]
    r = K.cell_forward(mode, x, hm, cm, *ws)
    if mode == "LSTM":
        return tuple(wrap(t if t.dtype == out_dt else t.astype(out_dt)) for t in r)
    return wrap(r if r.dtype == out_dt else r.astype(out_dt))


def _cell_dims(name, input, hx, what):
    if input.dim() not in (1, 2):
        raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
    if hx is not None and hx.dim() not in (1, 2):
        raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {hx.dim()}D instead")


def _cell_inputs(name, input, hx, hidden_size):
    """RNNCell/GRUCell inputs as a batch of one when unbatched, and the zero state torch starts from."""
    _cell_dims(name, input, hx, "hidden")
    is_batched = input.dim() == 2
    if not is_batched:
        input = input.unsqueeze(0)
    if hx is None:
        hx = zeros(input.size(0), hidden_size, dtype=input.dtype)
    elif not is_batched:
        hx = hx.unsqueeze(0)
    return input, hx, is_batched


class RNNCell(RNNCellBase):
    """Mirrors torch.nn.RNNCell."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, hx, is_batched = _cell_inputs("RNNCell", input, hx, self.hidden_size)
        if self.nonlinearity == "tanh":
            ret = self._step("RNN_TANH", input, hx, None)
        elif self.nonlinearity == "relu":
            ret = self._step("RNN_RELU", input, hx, None)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """Mirrors torch.nn.LSTMCell."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            z = zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            hx = (z, z)
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = self._step("LSTM", input, hx[0], hx[1])
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """Mirrors torch.nn.GRUCell."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, hx, is_batched = _cell_inputs("GRUCell", input, hx, self.hidden_size)
        ret = self._step("GRU", input, hx, None)
        return ret if is_batched else ret.squeeze(0)
