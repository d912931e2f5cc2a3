"""torch's functional recurrent layers, ``torch.rnn_tanh`` / ``rnn_relu`` / ``lstm`` / ``gru``: what nn.RNN, LSTM
and GRU call with their flat weight list. Two overloads each, as torch's: ``(input, hx, params, has_biases,
num_layers, dropout, train, bidirectional, batch_first)`` and the packed ``(data, batch_sizes, hx, params,
has_biases, num_layers, dropout, train, bidirectional)``. The recurrences are ``_rnn_impl`` (the layers' own)."""
import mindspore as ms

from .. import _dtype as D
from .._tensor import wrap
from . import _rnn_impl as K
from ._registry import PUBLIC, register

F = "nn.rnn"


def _dropout(x, p):
    return PUBLIC["dropout"](wrap(x), p, True)._ms


_FLOATS = (D.float16, D.bfloat16, D.float32, D.float64)
_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _fast_path_takes(mode, packed, args):
    """Whether the inputs are what nn.RNN / LSTM / GRU pass: ranks, shapes, dtypes and batch sizes all
    consistent. Anything else runs as torch's generic code (``_rnn_impl.reference``), its errors included."""
    from .._tensor import Tensor
    data, bs, hx, params, has_biases, num_layers, _, _, bidirectional, batch_first = K.unpack(packed, args)
    hs = list(hx) if mode == "LSTM" else [hx]
    if not isinstance(data, Tensor) or data.dtype not in _FLOATS:
        return False
    if len(hs) != (2 if mode == "LSTM" else 1) or not all(isinstance(h, Tensor) for h in hs):
        return False
    if not isinstance(num_layers, int) or num_layers < 1 or not isinstance(params, (list, tuple)):
        return False
    if not all(isinstance(p, Tensor) and p.dtype == data.dtype for p in params):
        return False
    if any(h.dtype != data.dtype or h.ndim != 3 for h in hs):
        return False
    if data.ndim != (2 if packed else 3):
        return False
    if packed:
        if not isinstance(bs, Tensor) or bs.ndim != 1 or bs.dtype != D.int64 or bs.shape[0] == 0:
            return False
        sizes = [int(b) for b in bs.tolist()]
        if sizes[-1] < 1 or any(a < b for a, b in zip(sizes, sizes[1:])) or sum(sizes) != data.shape[0]:
            return False
        B = sizes[0]
    else:
        B = data.shape[0 if batch_first else 1]
    nd = 2 if bidirectional else 1
    H, C = hs[0].shape[2], hs[-1].shape[2]
    proj = H != C
    if tuple(hs[0].shape) != (num_layers * nd, B, H) or tuple(hs[-1].shape) != (num_layers * nd, B, C):
        return False
    if proj and (mode != "LSTM" or H > C or H < 1):
        return False
    per = 2 + 2 * bool(has_biases) + int(proj)
    if len(params) != per * num_layers * nd:
        return False
    G = _GATES[mode] * C
    for i in range(num_layers * nd):
        g = params[i * per:(i + 1) * per]
        f_in = data.shape[-1] if i < nd else nd * H
        want = [(G, f_in), (G, H)] + ([(G,), (G,)] if has_biases else []) + ([(H, C)] if proj else [])
        if [tuple(p.shape) for p in g] != want:
            return False
    return True


def _run(mode, args, name):
    """Both overloads: the packed one has a Tensor of batch sizes where the other has hx (LSTM: a list)
    or, for the others, a Tensor hx where the other has the parameter list."""
    if len(args) != 9:
        raise TypeError(f"{name}() takes 9 positional arguments but {len(args)} were given")
    packed = not isinstance(args[1] if mode == "LSTM" else args[2], (list, tuple))
    if not _fast_path_takes(mode, packed, args):
        return K.reference(mode, packed, args)
    if packed:
        data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional = args
        batch_first, sizes = False, K.host_batch_sizes(batch_sizes)
    else:
        data, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = args
        sizes = None
    h, c = (hx[0], hx[1]) if mode == "LSTM" else (hx, None)
    directions = 2 if bidirectional else 1
    proj = mode == "LSTM" and h.shape[-1] != c.shape[-1]
    per = 2 + 2 * bool(has_biases) + int(proj)
    if len(params) != per * num_layers * directions:
        raise RuntimeError(f"{name}: expected {per * num_layers * directions} parameters for {num_layers} layers"
                           f"{' (bidirectional)' if bidirectional else ''}, got {len(params)}")
    x = data._ms
    out_dt = x.dtype
    cdt = ms.float32 if out_dt == ms.bfloat16 else out_dt   # no bfloat16 matmul on MindSpore's CPU
    ws = [p._ms.astype(cdt) if cdt != out_dt else p._ms for p in params]
    h_ms = h._ms.astype(cdt)
    c_ms = None if c is None else c._ms.astype(cdt)
    x = x.astype(cdt)
    if batch_first and sizes is None:
        x = x.swapaxes(0, 1)
    weights = []
    for i in range(0, len(ws), per):
        g = ws[i:i + per]
        biases = (g[2], g[3]) if has_biases else (None, None)
        weights.append((g[0], g[1]) + biases + ((g[-1],) if proj else (None,)))
    out, h_n, c_n = K.rnn_forward(mode, x, h_ms, c_ms, weights, num_layers, bidirectional, dropout, train,
                                  _dropout, sizes)
    if batch_first and sizes is None:
        out = out.swapaxes(0, 1)
    res = [out, h_n] + ([c_n] if mode == "LSTM" else [])
    return tuple(wrap(r.astype(out_dt) if cdt != out_dt else r) for r in res)


@register("rnn_tanh", family=F, namespace="torch", raw=True)
def rnn_tanh(*args):
    return _run("RNN_TANH", args, "rnn_tanh")


@register("rnn_relu", family=F, namespace="torch", raw=True)
def rnn_relu(*args):
    return _run("RNN_RELU", args, "rnn_relu")


@register("lstm", family=F, namespace="torch", raw=True)
def lstm(*args):
    return _run("LSTM", args, "lstm")


@register("gru", family=F, namespace="torch", raw=True)
def gru(*args):
    return _run("GRU", args, "gru")
