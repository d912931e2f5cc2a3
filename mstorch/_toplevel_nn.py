"""torch's top-level forms of some nn.functional ops, whose argument order is ATen's, not F's:
``torch.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
cudnn_enabled)``, ``torch.instance_norm(...)`` likewise, ``torch.embedding(weight, indices, ...)``; and the RNN cell steps (``torch.lstm_cell``...).
Each checks its arguments as torch's parser does (all positional arguments are required) and calls the
``nn.functional`` implementation."""
from .nn import functional as F
from .nn.modules.rnn import cell_step


def _required(name, given, names):
    if len(given) < len(names):
        missing = names[len(given)]
        raise TypeError(f'{name}() missing 1 required positional arguments: "{missing}"')


_NORM_ARGS = ("input", "weight", "bias", "running_mean", "running_var", "training", "momentum", "eps",
              "cudnn_enabled")


def batch_norm(*args, **kwargs):
    names = _NORM_ARGS
    given = list(args) + [kwargs.pop(n) for n in names[len(args):] if n in kwargs]
    _required("batch_norm", given, names)
    input, weight, bias, running_mean, running_var, training, momentum, eps, _ = given
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(*args, **kwargs):
    names = _NORM_ARGS[:5] + ("use_input_stats",) + _NORM_ARGS[6:]
    given = list(args) + [kwargs.pop(n) for n in names[len(args):] if n in kwargs]
    _required("instance_norm", given, names)
    input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, _ = given
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    # ATen's padding_idx: -1 means none (F.embedding has already turned a negative index into n + idx)
    return F.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


# torch.lstm_cell / gru_cell / rnn_tanh_cell / rnn_relu_cell: one cell step from explicit weights (what
# nn.LSTMCell and friends run), on batched (B, F) input
def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return cell_step("LSTM", input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return cell_step("GRU", input, hx, None, w_ih, w_hh, b_ih, b_hh)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return cell_step("RNN_TANH", input, hx, None, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return cell_step("RNN_RELU", input, hx, None, w_ih, w_hh, b_ih, b_hh)
