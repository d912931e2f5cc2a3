"""Every op in mstorch's table, compared with torch on its samples: values, dtype, shape, gradients,
the method and in-place forms, and for bad input (E samples) the exception type and the first line of
its message."""
import numpy as np
import pytest

from mstorch.ops._registry import OPS
from harness import check, Raised
from op_db import ALL, BY_NAME, E, EType


def _cases():
    for info in ALL:
        for i, s in enumerate(info.samples):
            yield pytest.param(info, s, id=f"{info.name}-{i}")


def _materialize(args, T, grad):
    out = []
    for a in args:
        if callable(a) and not isinstance(a, np.ndarray):
            a = a(T)
        elif isinstance(a, np.ndarray):
            a = T.tensor(a, requires_grad=grad and a.dtype.kind == "f")
        elif isinstance(a, list) and a and all(isinstance(x, np.ndarray) for x in a):
            a = [T.tensor(x, requires_grad=grad and x.dtype.kind == "f") for x in a]
        out.append(a)
    return out


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


def _forms(info):
    forms = []
    entry = OPS.get(info.name)
    if info.function and (entry is None or entry.function or info.call is not None):
        forms.append("function")
    if info.method and info.call is None and (entry is None or entry.method):
        forms.append("method")
    if entry is not None and entry.functional and info.call is None and info.function:
        forms.append("functional")
    return forms or ["function"]


@pytest.mark.parametrize("info,sample", list(_cases()))
def test_op(info, sample):
    if info.skip:
        pytest.skip(info.skip)
    expect_error = isinstance(sample, E)
    for form in _forms(info):
        def fn(T):
            args = _materialize(sample.args, T, False)
            return _call(info, T, args, _kw(sample.kwargs, T), form)
        ref, got = check(fn, rtol=info.rtol, atol=info.atol)
        if expect_error:
            assert isinstance(ref, Raised), f"torch accepted an error sample: {ref!r}"
            if not isinstance(sample, EType):
                assert _first_line(got.exc) == _first_line(ref.exc), (
                    f"messages differ:\n torch:   {_first_line(ref.exc)}\n mstorch: {_first_line(got.exc)}")
            return
        # a sample torch rejects belongs in E(...), where its message is compared too (the method form of a
        # sample whose first argument is a Python number fails in both libraries alike)
        assert form != _forms(info)[0] or not isinstance(ref, Raised), (
            f"torch rejects this S sample, make it an E sample: {ref!r}")
    if info.grad and not expect_error:
        def fn_grad(T):
            args = _materialize(sample.args, T, True)
            out = _call(info, T, args, _kw(sample.kwargs, T), _forms(info)[0])
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
            leaves = [a for a in args if hasattr(a, "requires_grad") and a.requires_grad]
            for a in args:
                if isinstance(a, list):
                    leaves += [x for x in a if hasattr(x, "requires_grad") and x.requires_grad]
            return [x.grad for x in leaves]
        check(fn_grad, rtol=max(info.rtol, 1e-5), atol=max(info.atol, 1e-5))
    entry = OPS.get(info.name)
    if info.inplace and entry is not None and entry.inplace and not expect_error and entry.method:
        def fn_inplace(T):
            args = _materialize(sample.args, T, False)
            receiver = args[0].clone()
            ret = getattr(receiver, entry.inplace)(*args[1:], **_kw(sample.kwargs, T))
            return receiver, ret is receiver
        check(fn_inplace, rtol=info.rtol, atol=info.atol)


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
