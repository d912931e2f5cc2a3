"""Every path that writes into an existing tensor, with receivers and sources of every layout, against torch.

A write into a tensor whose memory is not laid out row-major (a transposed view, a stepped slice, a view
at a storage offset, an expanded tensor, a detached view, a NumPy array's strided memory) must change the
logical elements torch changes: in the receiver, in the base it views, and in nothing else. Each case
builds a ``(base, receiver)`` pair holding the same logical values in every layout, applies one write
path with a source of some layout, and compares the receiver, the base, the result and the receiver's
strides with torch. Then: writes into expanded receivers (torch's overlap errors), NumPy views both
ways (``numpy()``, ``from_numpy``), ``.data`` assignment, and optimizer steps on parameters that alias
a base, with gradients of several layouts.
"""
import numpy as np
import pytest

from harness import check_as_torch as check, rand  # matrices mixing accepted and rejected calls: as torch does

A = rand(2, 3)                       # the receiver's logical values
S = rand(2, 3, seed=1)               # the source's logical values
ROW = rand(3, seed=2)                # an expanded source's row
X_ = rand(4, 3, seed=8)              # a loss whose gradient comes transposed: (X_ @ p.T) * K_
K_ = rand(4, 2, seed=9)


# --- layouts: (base, view) pairs whose view holds the logical values A -----------------------------------

def _contiguous(T, a):
    base = T.tensor(a)
    return base, base


def _transposed(T, a):
    base = T.tensor(np.ascontiguousarray(a.T))
    return base, base.t()


def _stepped(T, a):
    pad = np.full((2 * a.shape[0], 2 * a.shape[1] + 1), -7.0, np.float32)
    pad[::2, 1::2] = a
    base = T.tensor(pad)
    return base, base[::2, 1::2]


def _offset(T, a):
    flat = np.full(a.size + 5, -7.0, np.float32)
    flat[2:2 + a.size] = a.ravel()
    base = T.tensor(flat)
    return base, base[2:2 + a.size].view(a.shape)


def _permuted_offset(T, a):
    # transposed and offset at once: the inner dim walks the outer storage dim
    pad = np.full((a.shape[1] + 1, a.shape[0]), -7.0, np.float32)
    pad[1:] = a.T
    base = T.tensor(pad)
    return base, base[1:].t()


def _detached_view(T, a):
    # detach() of a view shares the view's memory: writing it writes the base
    base = T.tensor(np.ascontiguousarray(a.T))
    return base, base.t().detach()


def _data_of_view(T, a):
    base = T.tensor(np.ascontiguousarray(a.T))
    return base, base.t().data


RECEIVERS = {
    "contiguous": _contiguous, "transposed": _transposed, "stepped": _stepped, "offset": _offset,
    "permuted_offset": _permuted_offset, "detached_view": _detached_view, "data_of_view": _data_of_view,
}


def _source(T, layout, a=S):
    if layout == "expanded":
        return T.tensor(ROW).expand(2, 3)
    return RECEIVERS[layout](T, a)[1]


SOURCES = ["contiguous", "transposed", "stepped", "offset", "permuted_offset", "expanded"]


# --- write paths: fn(T, receiver, source) -> result -------------------------------------------------------

def _index(T):
    return T.tensor([1, 0])


WRITES = {
    # in-place pointwise ops
    "add_": lambda T, r, s: r.add_(s),
    "sub_alpha": lambda T, r, s: r.sub_(s, alpha=2),
    "mul_": lambda T, r, s: r.mul_(s),
    "div_": lambda T, r, s: r.div_(s.abs() + 1),
    "mul_scalar": lambda T, r, s: r.mul_(3),
    "clamp_": lambda T, r, s: r.clamp_(-0.5, 0.5),
    "clamp_tensor": lambda T, r, s: r.clamp_(min=s),
    "neg_": lambda T, r, s: r.neg_(),
    "exp_": lambda T, r, s: r.exp_(),
    "abs_": lambda T, r, s: r.abs_(),
    "addcmul_": lambda T, r, s: r.addcmul_(s, s, value=0.5),
    "lerp_": lambda T, r, s: r.lerp_(s, 0.25),
    "zero_": lambda T, r, s: r.zero_(),
    "fill_": lambda T, r, s: r.fill_(3.0),
    "operator +=": lambda T, r, s: r.__iadd__(s),
    "operator *=": lambda T, r, s: r.__imul__(s),
    # copies
    "copy_": lambda T, r, s: r.copy_(s),
    "copy_ broadcast row": lambda T, r, s: r.copy_(s[0]),
    "copy_ double": lambda T, r, s: r.copy_(s.double()),
    # index assignment
    "setitem int": lambda T, r, s: r.__setitem__(0, s[1]),
    "setitem column": lambda T, r, s: r.__setitem__((slice(None), 1), s[:, 2]),
    "setitem slice": lambda T, r, s: r.__setitem__((slice(None), slice(1, None)), s[:, :2]),
    "setitem step": lambda T, r, s: r.__setitem__((slice(None), slice(None, None, 2)), s[:, ::2]),
    "setitem ellipsis": lambda T, r, s: r.__setitem__(Ellipsis, s),
    "setitem element": lambda T, r, s: r.__setitem__((1, 2), 5.0),
    "setitem mask": lambda T, r, s: r.__setitem__(s > 0, 1.5),
    "setitem mask values": lambda T, r, s: r.__setitem__(s > 0, s[s > 0] * 10),
    "setitem tensor": lambda T, r, s: r.__setitem__(_index(T), s),
    "setitem adv pair": lambda T, r, s: r.__setitem__((_index(T), T.tensor([2, 0])), s[0, :2]),
    "index_put_": lambda T, r, s: r.index_put_((_index(T), T.tensor([2, 0])), s[1, 1:]),
    "index_put_ accumulate": lambda T, r, s: r.index_put_((T.tensor([1, 1]), T.tensor([0, 0])), s[0, :2],
                                                          accumulate=True),
    "masked_fill_": lambda T, r, s: r.masked_fill_(s > 0, -1.0),
    "masked_scatter_": lambda T, r, s: r.masked_scatter_(s > 0, s * 10),
    "index_copy_": lambda T, r, s: r.index_copy_(1, T.tensor([2, 0, 1]), s),
    "index_fill_": lambda T, r, s: r.index_fill_(1, T.tensor([2, 0]), 4.0),
    "index_add_": lambda T, r, s: r.index_add_(0, _index(T), s, alpha=2),
    "scatter_": lambda T, r, s: r.scatter_(1, T.tensor([[2, 0, 1], [1, 2, 0]]), s),
    "scatter_add_": lambda T, r, s: r.scatter_add_(0, T.tensor([[1, 0, 1], [1, 1, 0]]), s),
    # out=
    "out add": lambda T, r, s: T.add(s, 1, out=r),
    "out mul": lambda T, r, s: T.mul(s, s, out=r),
    "out exp": lambda T, r, s: T.exp(s, out=r),
    "out clamp": lambda T, r, s: T.clamp(s, -0.5, 0.5, out=r),
    "out where": lambda T, r, s: T.where(s > 0, s, T.zeros(()), out=r),
    "out matmul": lambda T, r, s: T.matmul(s, T.eye(3), out=r),
}



@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("receiver", list(RECEIVERS))
@pytest.mark.parametrize("write", list(WRITES))
def test_write(write, receiver, source):
    def fn(T):
        base, recv = RECEIVERS[receiver](T, A)
        src = _source(T, source)
        out = WRITES[write](T, recv, src)
        return out, recv, base, recv.stride(), recv.is_contiguous(), src
    check(fn)


# torch checks these writes for repeated memory and raises on an expanded receiver; it lets fills and
# index writes (zero_, fill_, x[i] = v, index_put_, masked_fill_, index_fill_) through, which mstorch
# refuses (docs/known-differences.md, "Views").
_OVERLAP_CHECKED = [w for w in WRITES if not w.startswith(("zero_", "fill_", "setitem", "index_put_", "masked_fill_",
                                                          "index_fill_"))
                    or w in ("setitem column", "setitem slice", "setitem step", "setitem ellipsis")]


@pytest.mark.parametrize("write", _OVERLAP_CHECKED)
def test_write_into_expanded_receiver_raises(write):
    def fn(T):
        base = T.tensor(ROW)
        return WRITES[write](T, base.expand(2, 3), _source(T, "transposed")), base
    ref, _ = check(fn)
    assert type(ref).__name__ == "Raised"


# --- NumPy views -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("receiver", list(RECEIVERS))
def test_numpy_view_shares_memory(receiver):
    def fn(T):
        base, recv = RECEIVERS[receiver](T, A)
        arr = recv.numpy()
        arr[1, 2] = 9.0                     # reaches the tensor and its base
        recv.mul_(2)                        # reaches the array
        return recv, base, arr.tolist(), arr.strides
    check(fn)


_NP_LAYOUTS = {
    "contiguous": lambda a: a, "transposed": lambda a: a.T, "stepped": lambda a: a[:, ::2],
    "offset": lambda a: a[1:, 1:], "column": lambda a: a[:, 1],
}


@pytest.mark.parametrize("layout", list(_NP_LAYOUTS))
def test_from_numpy_shares_memory(layout):
    def fn(T):
        buf = np.arange(12, dtype=np.float32).reshape(3, 4)
        arr = _NP_LAYOUTS[layout](buf)
        t = T.from_numpy(arr)
        t.add_(100)                         # reaches the array
        arr.flat[0] = -1                    # reaches the tensor
        return t, t.stride(), buf.tolist(), (t * 2).sum(), t.numpy().strides
    check(fn)


# --- .data assignment --------------------------------------------------------------------------------------

@pytest.mark.parametrize("source", SOURCES[:-1])
@pytest.mark.parametrize("receiver", list(RECEIVERS))
def test_data_assignment(receiver, source):
    """``t.data = s`` makes t an alias of s's memory: later writes to t reach s, not t's old base."""
    def fn(T):
        base, recv = RECEIVERS[receiver](T, A)
        src_base, src = RECEIVERS[source](T, S)
        recv.data = src
        recv.add_(1)
        return recv, base, src, src_base, recv.stride()
    check(fn)


# --- optimizer updates -------------------------------------------------------------------------------------

OPTIMIZERS = {
    "sgd": lambda T, ps: T.optim.SGD(ps, lr=0.1),
    "sgd_momentum_wd": lambda T, ps: T.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01, nesterov=True),
    "adam": lambda T, ps: T.optim.Adam(ps, lr=0.01),
    "adamw_amsgrad": lambda T, ps: T.optim.AdamW(ps, lr=0.01, amsgrad=True),
    "rmsprop": lambda T, ps: T.optim.RMSprop(ps, lr=0.01, momentum=0.5),
    "adagrad": lambda T, ps: T.optim.Adagrad(ps, lr=0.1),
}
GRAD_LAYOUTS = ["backward", "transposed", "stepped"]


@pytest.mark.parametrize("grad", GRAD_LAYOUTS)
@pytest.mark.parametrize("opt", list(OPTIMIZERS))
@pytest.mark.parametrize("receiver", list(RECEIVERS))
def test_optimizer_updates_parameter_memory(receiver, opt, grad):
    """An optimizer step writes the parameter where it lies (a leaf aliasing a base writes the base)."""
    def fn(T):
        base, recv = RECEIVERS[receiver](T, A)
        p = (recv if recv is base else recv.detach()).requires_grad_()
        o = OPTIMIZERS[opt](T, [p])
        seen = []
        for step in range(2):
            if grad == "backward":
                ((T.tensor(X_) @ p.T) * T.tensor(K_)).sum().backward()
            else:
                p.grad = RECEIVERS[grad](T, S * (step + 1))[1]
            o.step()
            seen.append((p.detach().clone(), base.clone(), p.grad.clone()))
        state = [v for k, v in sorted(o.state[p].items()) if k != "step"]
        return seen, state, p.stride()
    check(fn, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("receiver", list(RECEIVERS))
def test_parameter_data_assignment_then_step(receiver):
    """``p.data = view`` makes the Parameter an alias of the view's memory: its updates reach the base."""
    def fn(T):
        base, recv = RECEIVERS[receiver](T, A)
        p = T.nn.Parameter(T.tensor(S))
        p.data = recv
        o = T.optim.SGD([p], lr=0.5, momentum=0.9)
        for _ in range(2):
            ((T.tensor(X_) @ p.T) * T.tensor(K_)).sum().backward()
            o.step()
        with T.no_grad():
            p.mul_(2)
        return p, base, p.grad, p.stride()
    check(fn)


@pytest.mark.parametrize("receiver", list(RECEIVERS))
def test_parameter_over_view_shares_memory(receiver):
    """``nn.Parameter(view)`` shares the view's memory, as torch: updates reach the base and back."""
    def fn(T):
        base, recv = RECEIVERS[receiver](T, A)
        p = T.nn.Parameter(recv)
        o = T.optim.Adam([p], lr=0.1)
        ((T.tensor(X_) @ p.T) * T.tensor(K_)).sum().backward()
        o.step()
        with T.no_grad():
            base.add_(1)                    # reaches the parameter
        return p, base, p.grad, p.stride(), p.is_contiguous()
    check(fn)
