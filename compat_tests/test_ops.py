"""Every op in mstorch's table, compared with torch on its samples: values, dtype, shape, gradients,
the method and in-place forms, and for the forms torch rejects (E samples, ``S(...).rejects(form)``) the
exception type and the first line of its message. ``test_op_layout`` reruns every value sample on
non-contiguous inputs and in-place forms on non-contiguous receivers; view ops also compare strides."""
import zlib

import numpy as np
import pytest
import torch

from mstorch.ops._registry import OPS
from harness import check, is_tensor, run, Raised
from op_db import ALL, BY_NAME, E, EType

# ops returning views of their input (or, for reshape/flatten, a view when the layout allows): their
# results' stride(), is_contiguous() and storage_offset() are compared too
VIEW_OPS = {"view", "view_as", "reshape", "reshape_as", "transpose", "permute", "narrow", "select",
            "expand", "expand_as", "broadcast_to", "unsqueeze", "squeeze", "diagonal", "linalg.diagonal",
            "as_strided", "t", "movedim", "split", "unsafe_split", "chunk", "tensor_split", "unbind", "flatten", "unflatten",
            "real", "imag", "hsplit", "vsplit", "dsplit", "atleast_1d", "atleast_2d", "atleast_3d"}
# non-contiguous layouts a sample's array arguments are rebuilt in (same values, or for "expanded" the
# first slice along one dimension repeated: stride 0)
LAYOUTS = ("transposed", "strided", "expanded", "offset")
# ops whose layout reruns cannot run against torch
NO_LAYOUTS = {"ctc_loss": "torch's CPU ctc_loss crashes the process (segfault) on these non-contiguous inputs",
              "torch.ctc_loss": "torch's CPU ctc_loss crashes the process (segfault) on these non-contiguous inputs",
              "as_strided_scatter": "layout-defined", "slice_inverse": "layout-defined",
              # torch reads a packed sequence's batch_sizes as contiguous memory (garbage lengths from a view)
              "rnn_tanh": "batch_sizes", "rnn_relu": "batch_sizes", "gru": "batch_sizes", "lstm": "batch_sizes",
              # whether offset2bag is built follows torch's kernel choice, which depends on the weight's strides
              "torch.embedding_bag": "kernel-defined",
              # their result is defined by the storage layout (strides, storage size), not the values
              "view": "layout-defined", "view_as": "layout-defined", "as_strided": "layout-defined"}


def _cases():
    for info in ALL:
        for i, s in enumerate(info.samples):
            yield pytest.param(info, s, id=f"{info.name}-{i}")


def _layout_cases():
    for info in ALL:
        if info.skip or info.name in NO_LAYOUTS:
            continue
        for i, s in enumerate(info.samples):
            if not isinstance(s, E) and _arrays(s):
                yield pytest.param(info, s, zlib.crc32(f"{info.name}-{i}".encode()), id=f"{info.name}-{i}")


def _arrays(sample):
    return [a for a in sample.args if isinstance(a, np.ndarray) and a.size > 1]


def _padding(a):
    """A value that shows up when a kernel reads memory outside the view."""
    return {"f": np.nan, "c": np.nan, "b": True, "u": 7}.get(a.dtype.kind, -77)


def _laid_out(a, kind, T, grad):
    """``a`` as a tensor of the given non-contiguous layout: (leaf, view). Kinds the shape does not allow
    fall back to another one (a 0-d or one-element array only to a storage offset)."""
    if kind == "transposed" and sum(n > 1 for n in a.shape) < 2:
        kind = "strided"
    if kind == "strided" and (a.ndim == 0 or a.size <= 1):
        kind = "offset"
    if kind == "expanded" and not any(n > 1 for n in a.shape):
        kind = "offset"
    if kind == "transposed":
        order = tuple(reversed(range(a.ndim)))
        leaf = T.tensor(np.ascontiguousarray(a.transpose(order)), requires_grad=grad)
        return leaf, leaf.permute(order)
    if kind == "strided":
        buf = np.full(a.shape[:-1] + (2 * a.shape[-1] + 1,), _padding(a), dtype=a.dtype)
        buf[..., 1::2] = a
        leaf = T.tensor(buf, requires_grad=grad)
        return leaf, leaf[..., 1::2]
    if kind == "expanded":
        d = next(i for i, n in enumerate(a.shape) if n > 1)
        leaf = T.tensor(np.ascontiguousarray(np.take(a, [0], axis=d)), requires_grad=grad)
        return leaf, leaf.expand(a.shape)
    flat = np.concatenate([np.full(3, _padding(a), dtype=a.dtype), a.reshape(-1)])
    leaf = T.tensor(flat, requires_grad=grad)
    return leaf, leaf[3:].view(a.shape)


def _materialize(args, T, grad, layouts=None):
    """The sample's arguments in namespace ``T``; with ``layouts`` (kind per argument) the arrays come as
    non-contiguous views. Returns (arguments, leaves whose gradients are compared, the tensor each
    argument was made from: for a view, its base)."""
    out, leaves, bases = [], [], []
    for j, a in enumerate(args):
        if callable(a) and not isinstance(a, np.ndarray):
            a = a(T)
        elif isinstance(a, np.ndarray):
            g = grad and a.dtype.kind == "f"
            if layouts is not None and a.size > 1:
                leaf, a = _laid_out(a, layouts[j], T, g)
            else:
                a = leaf = T.tensor(a, requires_grad=g)
            leaves += [leaf] if g else []
            bases.append(leaf)
            out.append(a)
            continue
        elif isinstance(a, list) and a and all(isinstance(x, np.ndarray) for x in a):
            a = [T.tensor(x, requires_grad=grad and x.dtype.kind == "f") for x in a]
            leaves += [x for x in a if x.requires_grad]
        out.append(a)
        bases.append(a)
    return out, leaves, bases


def _first_line(exc):
    text = str(exc.args[0]) if len(exc.args) == 1 and isinstance(exc.args[0], str) else str(exc)
    return text.strip().split("\n")[0]


def _kw(kwargs, T):
    return {k: (v(T) if callable(v) and not isinstance(v, np.ndarray) and not isinstance(v, type) else
                T.tensor(v) if isinstance(v, np.ndarray) else v)
            for k, v in kwargs.items()}


def _call(info, T, args, kwargs, form):
    if info.call is not None:
        return info.call(T, *args, **kwargs)
    if form == "function":
        return getattr(T, info.name)(*args, **kwargs)
    if form == "functional":
        return getattr(T.nn.functional, info.name)(*args, **kwargs)
    if form == "method":
        return getattr(args[0], info.name)(*args[1:], **kwargs)
    raise AssertionError(form)


def _first_is_tensor(sample):
    """The method and in-place forms exist only on a tensor first argument."""
    if not sample.args:
        return False
    a = sample.args[0]
    if callable(a) and not isinstance(a, np.ndarray):
        a = a(torch)
    return isinstance(a, np.ndarray) or isinstance(a, torch.Tensor)


def _forms(info, sample=None):
    """The value forms (function, method, functional) the sample runs in."""
    forms = []
    entry = OPS.get(info.name)
    if info.function and (entry is None or entry.function or info.call is not None):
        forms.append("function")
    if (info.method and info.call is None and (entry is None or entry.method)
            and (sample is None or _first_is_tensor(sample))):
        forms.append("method")
    if entry is not None and entry.functional and info.call is None and info.function:
        forms.append("functional")
    return forms or ["function"]


def _inplace_name(info, sample):
    entry = OPS.get(info.name)
    if (info.inplace and info.call is None and entry is not None and entry.inplace and entry.method
            and _first_is_tensor(sample)):
        return entry.inplace
    return None


def _with_strides(info, out):
    """View ops: the result with each tensor's (stride, is_contiguous, storage_offset)."""
    if info.name not in VIEW_OPS:
        return out
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return out, [(o.stride(), o.is_contiguous(), o.storage_offset()) for o in outs if is_tensor(o)]


def _grad_fn(info, sample, form, layouts=None):
    def fn_grad(T):
        args, leaves, _ = _materialize(sample.args, T, True, layouts)
        out = _call(info, T, args, _kw(sample.kwargs, T), form)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        loss = None
        rng = np.random.RandomState(1)
        for o in outs:
            if hasattr(o, "requires_grad") and o.requires_grad and o.dtype.is_floating_point:
                w = T.tensor(rng.standard_normal(tuple(o.shape)).astype(np.float32)).to(o.dtype)
                term = (o * w).sum()
                loss = term if loss is None else loss + term
        if loss is None:
            return None
        loss.backward()
        return [x.grad for x in leaves]
    return fn_grad


def _compare(fn, sample, form, rtol, atol):
    """Run ``fn`` on both libraries; where ``sample`` declares that torch rejects ``form``, both must raise
    the same type with the same first line of the message (the type only for EType samples)."""
    expected = form in sample.errors
    try:
        ref, got = check(fn, rtol=rtol, atol=atol, raises=expected)
    except AssertionError as exc:
        raise AssertionError(f"[{form} form] {exc}") from None
    if expected and not isinstance(sample, EType):
        assert _first_line(got.exc) == _first_line(ref.exc), (
            f"[{form} form] messages differ:\n torch:   {_first_line(ref.exc)}\n mstorch: {_first_line(got.exc)}")


@pytest.mark.parametrize("info,sample", list(_cases()))
def test_op(info, sample):
    if info.skip:
        pytest.skip(info.skip)
    kw = sample.kwargs
    forms = _forms(info, sample)
    for form in forms:
        def fn(T):
            args, _, _ = _materialize(sample.args, T, False)
            return _with_strides(info, _call(info, T, args, _kw(kw, T), form))
        _compare(fn, sample, form, info.rtol, info.atol)
    if info.grad:
        _compare(_grad_fn(info, sample, forms[0]), sample, "grad", max(info.rtol, 1e-5), max(info.atol, 1e-5))
    inplace = _inplace_name(info, sample)
    if inplace:
        def fn_inplace(T):
            args, _, _ = _materialize(sample.args, T, False)
            receiver = args[0].clone()
            ret = getattr(receiver, inplace)(*args[1:], **_kw(kw, T))
            return receiver, ret is receiver
        _compare(fn_inplace, sample, "inplace", info.rtol, info.atol)


@pytest.mark.parametrize("info,sample,seed", list(_layout_cases()))
def test_op_layout(info, sample, seed):
    """The sample with its array arguments as non-contiguous views of the same values (one layout kind
    per argument, rotating with the sample so every kind meets every op family), its gradients to the
    views' bases, and the in-place form on a transposed or sliced receiver, whose base is compared."""
    kinds = [LAYOUTS[(seed + j) % len(LAYOUTS)] for j in range(len(sample.args))]
    if kinds and kinds[0] == "expanded" and (info.name.endswith("_") or info.call is not None):
        kinds[0] = "offset"   # the first argument may be written in place, which an expanded tensor refuses
    kw = sample.kwargs
    form = _forms(info, sample)[0]
    if form not in sample.errors:
        def fn(T):
            args, _, _ = _materialize(sample.args, T, False, kinds)
            return _with_strides(info, _call(info, T, args, _kw(kw, T), form))
        ref = run(fn, torch)
        if isinstance(ref, Raised):
            # torch's own kernel refuses the layout (an internal view(), "grad_input must be contiguous"):
            # nothing to compare against
            pytest.skip(f"torch rejects the {kinds} layout: {ref.exc}")
        _compare(fn, sample, form, info.rtol, info.atol)
    if info.grad and "grad" not in sample.errors:
        fn_grad = _grad_fn(info, sample, form, kinds)
        ref = run(fn_grad, torch)
        if isinstance(ref, Raised):
            pytest.skip(f"torch's gradient rejects the {kinds} layout: {ref.exc}")
        _compare(fn_grad, sample, "grad", max(info.rtol, 1e-5), max(info.atol, 1e-5))
    inplace = _inplace_name(info, sample)
    if inplace and "inplace" not in sample.errors and isinstance(sample.args[0], np.ndarray):
        # a receiver may not be expanded (torch refuses to write overlapping memory)
        kinds = [("strided" if seed % 2 else "transposed")] + kinds[1:]

        def fn_inplace(T):
            args, _, bases = _materialize(sample.args, T, False, kinds)
            receiver, base = args[0], bases[0]
            ret = getattr(receiver, inplace)(*args[1:], **_kw(kw, T))
            return base, receiver, ret is receiver
        _compare(fn_inplace, sample, "inplace", info.rtol, info.atol)


def test_every_table_op_has_samples():
    missing = sorted(set(OPS) - set(BY_NAME))
    assert not missing, f"ops in the table without samples in compat_tests/op_db: {missing}"


def test_samples_name_table_ops():
    unknown = sorted(set(BY_NAME) - set(OPS))
    assert not unknown, f"op_db names ops that are not in the table: {unknown}"


@pytest.mark.parametrize("call", [
    lambda T, x: x.sum(axis=1), lambda T, x: T.sum(x, axis=0, keepdims=True), lambda T, x: x.mean(axis=1, keepdims=True),
    lambda T, x: x.max(axis=1), lambda T, x: T.cat([x, x], axis=0), lambda T, x: x.std(axis=1),
    lambda T, x: x.argmax(axis=1), lambda T, x: x.cumsum(axis=1), lambda T, x: x.softmax(axis=1)])
def test_numpy_argument_names(call):
    """torch's argument parser takes NumPy's axis=/keepdims= for dim=/keepdim= (CrossEntropyLoss's doc example)."""
    check(lambda T: call(T, T.tensor([[1., 2.], [3., 4.]])))


def test_every_layout_kind_is_exercised():
    """Each layout kind reaches arguments of at least 500 samples across the op set."""
    counts = dict.fromkeys(LAYOUTS, 0)
    for p in _layout_cases():
        info, sample, seed = p.values
        for j, a in enumerate(sample.args):
            if isinstance(a, np.ndarray) and a.size > 1:
                counts[LAYOUTS[(seed + j) % len(LAYOUTS)]] += 1
    assert min(counts.values()) >= 500, counts
