"""The recurrences behind nn.RNN / LSTM / GRU and their cells, over mindspore tensors.

torch's gate order and formulas (RNN.cpp): LSTM gates ``i, f, g, o``; GRU ``r, z, n`` with
``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))`` and ``h' = (h - n) * z + n``.

How a layer runs (measured on CPU, MindSpore 2.10):
- float32 LSTM (with or without ``proj_size``) goes through MindSpore's ``ops.LSTM`` CPU kernel, one
  call per layer, direction and run of equal batch size. It is oneDNN's LSTM, as torch's CPU LSTM is:
  forward and gradients came out bit-identical to torch's (projections: within 6e-8), and a 20-step
  forward+backward ran ~13x faster than the per-timestep composition. Its flat weight layout is
  ``w_ih, w_hh[, w_hr][, b_ih + b_hh]`` in torch's gate order.
- Everything else (RNN tanh/relu, GRU, LSTM in other dtypes, the cells) is composed: the input
  projection of every timestep in one matmul, then a few ops per step. MindSpore's CPU GRU kernel
  (GRUV2) computes a different GRU variant and is not used.
- Packed sequences (``batch_sizes``, decreasing) run as segments of constant batch size: the forward
  direction drops finished sequences at segment ends, the reverse direction adds sequences (with their
  initial state) as it walks back, so each segment is one dense (time, batch, feature) block.
- Inter-layer dropout is ``dropout_fn`` (torch's ``at::dropout`` stream, drawn on the whole layer
  output in time-major / packed layout, as torch's CPU implementation does).
"""
import mindspore as ms
from . import _msops as ops
from .. import _dtype as D

from .products import _mm
from ..autograd._higher_order import recompute_as

_FLIP0 = ops.ReverseV2(axis=[0])
_TWO = ms.Tensor(2.0, ms.float32)
_ONE = ms.Tensor(1.0, ms.float32)


def _tanh(x):
    # MindSpore's float32 CPU tanh is up to 1e-4 off for 2 < |x| < 9; 2 * sigmoid(2x) - 1 stays within
    # 2e-6 (its sigmoid is within 1e-6). Other dtypes' kernels are accurate.
    if x.dtype != ms.float32:
        return ops.tanh(x)
    return ops.sub(ops.mul(ops.sigmoid(ops.mul(x, _TWO)), _TWO), _ONE)


def _act(mode):
    return ops.relu if mode == "RNN_RELU" else _tanh


_MATMUL_T = ops.MatMul(transpose_b=True)


def _dense(x, w, b):
    # the classic MatMul, not Dense: Dense's backward loses the input's edge in a recording pass (wrong
    # second derivatives, measured on 2.10 CPU); MatMul's records completely and runs as fast
    if x.ndim != 2:
        return _dense(x.reshape(-1, x.shape[-1]), w, b).reshape(tuple(x.shape[:-1]) + (w.shape[0],))
    y = _MATMUL_T(x, w)
    return y if b is None else ops.add(y, b)


# --- one timestep (also the cells) ------------------------------------------------------------------

def rnn_step(act, gi, h, w_hh, b_hh):
    return act(ops.add(gi, _dense(h, w_hh, b_hh)))


def gru_step(gi_rz, gi_n, h, w_hh, b_hh):
    H = h.shape[-1]
    gh = _dense(h, w_hh, b_hh)
    gh_rz, gh_n = ops.split(gh, [2 * H, H], -1)
    r, z = ops.split(ops.sigmoid(ops.add(gi_rz, gh_rz)), H, -1)
    n = _tanh(ops.add(gi_n, ops.mul(r, gh_n)))
    return ops.add(ops.mul(ops.sub(h, n), z), n)


def lstm_step(gi, h, c, w_hh, b_hh, w_hr):
    gates = ops.add(gi, _dense(h, w_hh, b_hh))
    i, f, g, o = ops.split(gates, w_hh.shape[0] // 4, -1)
    c = ops.add(ops.mul(ops.sigmoid(f), c), ops.mul(ops.sigmoid(i), _tanh(g)))
    h = ops.mul(ops.sigmoid(o), _tanh(c))
    if w_hr is not None:
        h = _mm(h, w_hr.T)
    return h, c


def cell_forward(mode, x, h, c, w_ih, w_hh, b_ih, b_hh):
    """One step of RNNCell / LSTMCell / GRUCell on batched (B, F) input."""
    gi = _dense(x, w_ih, b_ih)
    if mode == "LSTM":
        return lstm_step(gi, h, c, w_hh, b_hh, None)
    if mode == "GRU":
        H = h.shape[-1]
        gi_rz, gi_n = ops.split(gi, [2 * H, H], -1)
        return gru_step(gi_rz, gi_n, h, w_hh, b_hh)
    return rnn_step(_act(mode), gi, h, w_hh, b_hh)


# --- whole sequences --------------------------------------------------------------------------------

def _segments(batch_sizes, T, B):
    """(t0, t1, batch) runs of constant batch size; one run for an unpacked (T, B) input."""
    if batch_sizes is None:
        return [(0, T, B)]
    segs, start = [], 0
    for t in range(1, len(batch_sizes) + 1):
        if t == len(batch_sizes) or batch_sizes[t] != batch_sizes[start]:
            segs.append((start, t, batch_sizes[start]))
            start = t
    return segs


class _Layout:
    """Where each segment's rows live in the layer input (unpacked (T, B, F) or packed (N, F))."""

    def __init__(self, x, batch_sizes):
        self.packed = batch_sizes is not None
        if self.packed:
            self.T = len(batch_sizes)
            self.B = batch_sizes[0] if batch_sizes else 0
        else:
            self.T, self.B = x.shape[0], x.shape[1]
        self.segs = _segments(batch_sizes, self.T, self.B)
        offs, o = [], 0
        for t0, t1, b in self.segs:
            offs.append(o)
            o += (t1 - t0) * b
        self.offs = offs

    def block(self, data, k):
        """Segment k of ``data`` as (time, batch, feature)."""
        t0, t1, b = self.segs[k]
        if not self.packed:
            return data
        o = self.offs[k]
        return data[o:o + (t1 - t0) * b].reshape(t1 - t0, b, data.shape[-1])

    def join(self, blocks):
        if not self.packed:
            return blocks[0]
        flat = [blk.reshape(-1, blk.shape[-1]) for blk in blocks]
        return flat[0] if len(flat) == 1 else ops.concat(flat, 0)


_LSTM_PRIMS = {}


def _lstm_prep(w, input_size):
    """The kernel primitive (cached per configuration) and its flat weight vector for one direction."""
    w_ih, w_hh, b_ih, b_hh, w_hr = w
    parts = [w_ih.reshape(-1, 1, 1), w_hh.reshape(-1, 1, 1)]
    if w_hr is not None:
        parts.append(w_hr.reshape(-1, 1, 1))
    if b_ih is not None:
        parts.append(ops.add(b_ih, b_hh).reshape(-1, 1, 1))
    key = (input_size, w_hh.shape[0] // 4, b_ih is not None, 0 if w_hr is None else w_hr.shape[0])
    prim = _LSTM_PRIMS.get(key)
    if prim is None:
        prim = _LSTM_PRIMS[key] = ops.LSTM(key[0], key[1], 1, key[2], False, 0.0, key[3])
    return prim, ops.concat(parts, 0), w


def _lstm_kernel(prep, xb, h, c, reverse):
    """ops.LSTM over one (time, batch, feature) block; h, c are (batch, H)."""
    prim, flat, w = prep
    if reverse:
        xb = _FLIP0(xb)
    h, c = ops.expand_dims(h, 0), ops.expand_dims(c, 0)
    out, hn, cn, _, _ = prim(xb, h, c, flat)
    recompute_as(out, _lstm_recomputed, xb, h, c, w)
    if reverse:
        out = _FLIP0(out)
    return out, hn[0], cn[0]


def _lstm_recomputed(xb, h, c, w):
    """The kernel's out, h_n, c_n composed (while a backward pass records itself: the kernel's gradient
    has no backward)."""
    out, h, c = _composed_block("LSTM", _dense(xb, w[0], w[2]), h[0], c[0], w, False)
    return out, ops.expand_dims(h, 0), ops.expand_dims(c, 0)


def _composed_block(mode, gib, h, c, w, reverse):
    """Run one block step by step; ``gib`` holds the precomputed input projections (time, batch, G)."""
    _, w_hh, _, b_hh, w_hr = w
    T = gib.shape[0]
    order = range(T - 1, -1, -1) if reverse else range(T)
    outs = [None] * T
    if mode == "GRU":
        H = h.shape[-1]
        rz, n = ops.split(gib, [2 * H, H], -1)
        rz, n = ops.unbind(rz, 0), ops.unbind(n, 0)
        for t in order:
            h = gru_step(rz[t], n[t], h, w_hh, b_hh)
            outs[t] = h
    elif mode == "LSTM":
        gis = ops.unbind(gib, 0)
        for t in order:
            h, c = lstm_step(gis[t], h, c, w_hh, b_hh, w_hr)
            outs[t] = h
    else:
        act = _act(mode)
        gis = ops.unbind(gib, 0)
        for t in order:
            h = rnn_step(act, gis[t], h, w_hh, b_hh)
            outs[t] = h
    return ops.stack(outs, 0), h, c


def _direction(mode, lay, x, h0, c0, w, reverse, kernel):
    """One direction of one layer over all segments; returns output (layer layout), h_n, c_n."""
    if kernel:
        src, prep = x, _lstm_prep(w, x.shape[-1])
    else:
        src = _dense(x, w[0], w[2])        # every timestep's input projection in one matmul
    nseg = len(lay.segs)
    blocks = [None] * nseg
    is_lstm = mode == "LSTM"
    if not reverse:
        h, c = h0, c0
        done_h, done_c = [], []
        for k in range(nseg):
            b = lay.segs[k][2]
            if h.shape[0] != b:             # sequences that ended with the previous segment
                done_h.append(h[b:])
                h = h[:b]
                if is_lstm:
                    done_c.append(c[b:])
                    c = c[:b]
            xb = lay.block(src, k)
            if kernel:
                blocks[k], h, c = _lstm_kernel(prep, xb, h, c, False)
            else:
                blocks[k], h, c = _composed_block(mode, xb, h, c, w, False)
        if done_h:
            h = ops.concat([h] + done_h[::-1], 0)
            if is_lstm:
                c = ops.concat([c] + done_c[::-1], 0)
    else:
        b_last = lay.segs[-1][2]
        h = h0[:b_last] if h0.shape[0] != b_last else h0
        c = (c0[:b_last] if c0.shape[0] != b_last else c0) if is_lstm else None
        for k in range(nseg - 1, -1, -1):
            b = lay.segs[k][2]
            if h.shape[0] != b:             # longer sequences start here, from their initial state
                h = ops.concat((h, h0[h.shape[0]:b]), 0)
                if is_lstm:
                    c = ops.concat((c, c0[c.shape[0]:b]), 0)
            xb = lay.block(src, k)
            if kernel:
                blocks[k], h, c = _lstm_kernel(prep, xb, h, c, True)
            else:
                blocks[k], h, c = _composed_block(mode, xb, h, c, w, True)
    return lay.join(blocks), h, c


def rnn_forward(mode, x, hx, cx, weights, num_layers, bidirectional, dropout, train, dropout_fn,
                batch_sizes=None):
    """torch's _VF.rnn_tanh / rnn_relu / lstm / gru (time-major ``x`` (T, B, F), or packed data (N, F)
    with a host list ``batch_sizes``). ``weights``: per layer and direction a tuple
    (w_ih, w_hh, b_ih, b_hh, w_hr) with None for absent ones. Returns (output, h_n, c_n or None)."""
    lay = _Layout(x, batch_sizes)
    if lay.T == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    D = 2 if bidirectional else 1
    if lay.B == 0:
        return _empty_batch(mode, x, hx, cx, weights, D)
    kernel = mode == "LSTM" and x.dtype == ms.float32
    hs, cs = [], []
    layer_in = x
    for layer in range(num_layers):
        outs = []
        for d in range(D):
            idx = layer * D + d
            out, h, c = _direction(mode, lay, layer_in, hx[idx], None if cx is None else cx[idx],
                                   weights[idx], d == 1, kernel)
            outs.append(out)
            hs.append(h)
            cs.append(c)
        layer_in = outs[0] if D == 1 else ops.concat(outs, -1)
        if dropout != 0 and train and layer < num_layers - 1:
            layer_in = dropout_fn(layer_in, dropout)
    h_n = ops.stack(hs, 0)
    c_n = ops.stack(cs, 0) if mode == "LSTM" else None
    return layer_in, h_n, c_n


def _empty_batch(mode, x, hx, cx, weights, D):
    """A batch of 0 sequences. MindSpore's Stack/Unstack kernels fail on empty tensors, so build the empty
    results directly; the zero terms keep input and weights in the graph (torch gives them zero gradients)."""
    w_hr = weights[-1][4]
    size = (w_hr.shape[0] if w_hr is not None else weights[-1][1].shape[1]) * D
    zero = ops.mul(ops.sum(x), 0)
    for w in weights:
        for t in w:
            if t is not None:
                zero = ops.add(zero, ops.mul(ops.sum(t), 0))
    out = ops.add(ops.zeros(tuple(x.shape[:-1]) + (size,), x.dtype), zero)
    h_n = ops.add(hx, zero)
    c_n = ops.add(cx, zero) if mode == "LSTM" else None
    return out, h_n, c_n


# --- torch's generic recurrence, op by op (RNN.cpp), for inputs outside the fast path's checks -------
# An input the fast path cannot take as is (other ranks, inconsistent shapes or dtypes, odd batch sizes)
# runs as torch's CPU code does, with our public ops: torch's checks in torch's order, its broadcasting
# (a packed step with more rows than the hidden state) and every op's own error.


def _public():
    """The public ops the port of torch's generic path calls, as a torch-like namespace (the ops layer
    may not import the package root)."""
    from types import SimpleNamespace
    from ._registry import PUBLIC
    from .._size import broadcast_shapes
    fn = SimpleNamespace(linear=PUBLIC["nn.functional.linear"], dropout=PUBLIC["nn.functional.dropout"])
    return SimpleNamespace(cat=PUBLIC["cat"], matmul=PUBLIC["matmul"], relu=PUBLIC["relu"],
                           sigmoid=PUBLIC["sigmoid"], stack=PUBLIC["stack"], tanh=PUBLIC["tanh"],
                           broadcast_shapes=broadcast_shapes, nn=SimpleNamespace(functional=fn))

def _shape(t):
    return tuple(t.shape)


def _add_(a, b):
    """``a.add_(b)``: b must broadcast to a's shape."""
    if _shape(a) != _shape(b):
        T = _public()
        full = tuple(T.broadcast_shapes(_shape(a), _shape(b)))
        if full != _shape(a):
            raise RuntimeError(f"output with shape {list(_shape(a))} doesn't match the broadcast shape "
                               f"{list(full)}")
    return a + b


class _Cell:
    def __init__(self, mode, T):
        self.mode, self.T = mode, T

    def linear_ih(self, x, p):
        return self.T.nn.functional.linear(x, p[0], p[2])

    def __call__(self, gi, hidden, p):
        T, lin = self.T, self.T.nn.functional.linear
        if self.mode == "LSTM":
            hx, cx = hidden
            gates = _add_(lin(hx, p[1], p[3]), gi)
            i, f, g, o = gates.unsafe_chunk(4, 1)
            cy = _add_(T.sigmoid(f) * cx, T.sigmoid(i) * T.tanh(g))
            hy = T.sigmoid(o) * cy.tanh()
            if p[4] is not None:
                hy = T.matmul(hy, p[4].t())
            return hy, cy
        if self.mode == "GRU":
            ig = gi.unsafe_chunk(3, 1)
            hg = lin(hidden, p[1], p[3]).unsafe_chunk(3, 1)
            r = T.sigmoid(_add_(hg[0], ig[0]))
            z = T.sigmoid(_add_(hg[1], ig[1]))
            n = T.tanh(ig[2] + hg[2] * r)
            return _add_((hidden - n) * z, n)
        s = _add_(lin(hidden, p[1], p[3]), gi)
        return T.relu(s) if self.mode == "RNN_RELU" else T.tanh(s)


def _out(h, mode):
    return h[0] if mode == "LSTM" else h


def _hslice(h, a, b, mode):
    return tuple(t.narrow(0, a, b - a) for t in h) if mode == "LSTM" else h.narrow(0, a, b - a)


def _hcat(hs, mode, T):
    if mode == "LSTM":
        return T.cat([h[0] for h in hs], 0), T.cat([h[1] for h in hs], 0)
    return T.cat(hs, 0)


def _full_layer(cell, x, h, p, reverse=False):
    steps = list(cell.linear_ih(x, p).unbind(0))
    outs = []
    for gi in (steps[::-1] if reverse else steps):
        h = cell(gi, h, p)
        outs.append(_out(h, cell.mode))
    if not outs:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    return cell.T.stack(outs[::-1] if reverse else outs, 0), h


def _batch_sizes(bs):
    n = bs.size(0)
    if bs.dtype != D.int64:
        raise RuntimeError(f"expected scalar type Long but found {D.scalar_type_name(bs.dtype)}")
    return n, host_batch_sizes(bs)


def host_batch_sizes(bs):
    """The packed batch sizes as ints. torch's CPU kernel reads the first size(0) values of the storage
    whatever the tensor's shape: a batch_sizes of more than one dimension gives it memory-dependent results
    (often out-of-bounds reads), so mstorch refuses it."""
    if bs.dim() != 1:
        raise RuntimeError(f"mstorch: batch_sizes must be a 1-D tensor, got {bs.dim()}-D (torch reads its storage "
                           "as if 1-D there, with unspecified results)")
    if bs.size(0) > 1 and bs.stride(0) != 1:
        # torch reads size(0) consecutive values of the storage from the view's offset, whatever its stride
        # (a stepped view: the storage's values in between); an expanded one reads past its storage
        if bs.stride(0) == 0:
            raise RuntimeError("mstorch: batch_sizes must not be an expanded tensor (torch reads its storage as if "
                               "contiguous, past its end there, with unspecified results)")
        bs = bs.as_strided((bs.size(0),), (1,))
    return [int(v) for v in bs.tolist()]


def _packed_layer(cell, data, bs, h0, p):
    n, sizes = _batch_sizes(bs)
    mode, T = cell.mode, cell.T
    gi = cell.linear_ih(data, p)
    outs, hiddens, off, last, h = [], [], 0, (sizes[0] if n else 0), h0
    for b in sizes:
        step = gi.narrow(0, off, b)
        off += b
        dec = last - b
        if dec > 0:
            hiddens.append(_hslice(h, last - dec, last, mode))
            h = _hslice(h, 0, last - dec, mode)
        last = b
        h = cell(step, h, p)
        outs.append(_out(h, mode))
    hiddens.append(h)
    return T.cat(outs, 0), _hcat(hiddens[::-1], mode, T)


def _reversed_packed_layer(cell, data, bs, h0, p):
    n, sizes = _batch_sizes(bs)
    mode, T = cell.mode, cell.T
    off = data.size(0)
    last = sizes[n - 1]
    gi = cell.linear_ih(data, p)
    h = _hslice(h0, 0, last, mode)
    outs = []
    for b in sizes[::-1]:
        if b - last > 0:
            h = _hcat([h, _hslice(h0, last, b, mode)], mode, T)
        step = gi.narrow(0, off - b, b)
        off -= b
        last = b
        h = cell(step, h, p)
        outs.append(_out(h, mode))
    return T.cat(outs[::-1], 0), h


def _gather(params, has_biases, proj):
    per = (4 if has_biases else 2) + int(proj)
    if len(params) % per:
        raise RuntimeError("got an incorrect number of RNN parameters")
    out = []
    for i in range(0, len(params), per):
        g = list(params[i:i + per])
        w_hr = g.pop() if proj else None
        b = (g[2], g[3]) if has_biases else (None, None)
        out.append((g[0], g[1]) + b + (w_hr,))
    return out


def _pairs(v):
    if len(v) % 2:
        raise RuntimeError("Odd number of params or hiddens given to a bidirectional RNN")
    return [(v[i], v[i + 1]) for i in range(0, len(v), 2)]


def _onednn_checks(x, hx, params, has_biases, num_layers, bidirectional):
    """torch's CPU float32 LSTM without projections runs oneDNN's (mkldnn_rnn), whose only checks are
    its indexing: the weight list cut in groups, the hidden states taken by index, the input's sizes.
    (Past them torch computes on whatever it was given, reading past short tensors: not reproduced.)"""
    per, n = (4 if has_biases else 2), len(params)
    if n % per:
        raise RuntimeError(f"MatrixRef: ArrayRef size {n} not divisible by stride {per}")
    for index in range(num_layers * (2 if bidirectional else 1)):
        if (index + 1) * per > n:
            raise RuntimeError(f"ArrayRef: invalid slice, N = {index * per}; M = {per}; size = {n}")
        hx[0][index], hx[1][index]
        if index == 0:
            x.size(0), x.size(1), x.size(2)


def unpack(packed, args):
    """The arguments of either overload of torch's functional RNN ops, as (data, batch_sizes or None, hx,
    params, has_biases, num_layers, dropout, train, bidirectional, batch_first)."""
    if packed:
        data, bs, hx, params, has_biases, num_layers, dropout, train, bidirectional = args
        return data, bs, hx, params, has_biases, num_layers, dropout, train, bidirectional, False
    data, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = args
    return data, None, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first


def reference(mode, packed, args):
    """torch's CPU ``_rnn_impl`` for both overloads; returns the result tuple of wrapped tensors."""
    T = _public()
    data, bs, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = unpack(packed, args)
    proj = False
    if mode == "LSTM":
        if len(hx) != 2:
            raise RuntimeError("lstm expects two hidden states")
        proj = hx[0].size(2) != hx[1].size(2)
    x = data.transpose(0, 1) if batch_first else data
    # (bfloat16 too: this CPU build takes it there)
    if mode == "LSTM" and not packed and not proj and data.dtype in (D.float32, D.bfloat16) and data.numel():
        _onednn_checks(x, hx, params, has_biases, num_layers, bidirectional)
    ps = _gather(params, has_biases, proj)
    if mode == "LSTM":
        hs, cs = hx[0].unbind(0), hx[1].unbind(0)
        hiddens = [(hs[i], cs[i]) for i in range(len(hs))]
    else:
        hiddens = list(hx.unbind(0))
    cell = _Cell(mode, T)
    if bidirectional:
        hiddens, ps = _pairs(hiddens), _pairs(ps)
    if num_layers != len(hiddens):
        raise RuntimeError("Expected more hidden states in stacked_rnn")
    if num_layers != len(ps):
        raise RuntimeError("Expected more weights in stacked_rnn")
    finals = []
    for layer in range(num_layers):
        h, p = hiddens[layer], ps[layer]
        if bidirectional:
            if packed:
                fo, fh = _packed_layer(cell, x, bs, h[0], p[0])
                ro, rh = _reversed_packed_layer(cell, x, bs, h[1], p[1])
                x = T.cat([fo, ro], -1)
            else:
                fo, fh = _full_layer(cell, x, h[0], p[0])
                ro, rh = _full_layer(cell, x, h[1], p[1], reverse=True)
                x = T.cat([fo, ro], fo.dim() - 1)
            finals += [fh, rh]
        else:
            x, fh = _packed_layer(cell, x, bs, h, p) if packed else _full_layer(cell, x, h, p)
            finals.append(fh)
        if dropout != 0 and train and layer < num_layers - 1:
            x = T.nn.functional.dropout(x, dropout, True)
    if batch_first:
        x = x.transpose(0, 1)
    if mode == "LSTM":
        return x, T.stack([f[0] for f in finals], 0), T.stack([f[1] for f in finals], 0)
    return x, T.stack(finals, 0)
