"""Run one piece of code against ``torch`` and ``mstorch`` and compare everything observable.

A test is a function of a namespace ``T`` (the torch module or mstorch). ``check(fn)`` runs it on both,
then compares results: tensors by shape, dtype and values (then gradients), Python values by
equality, exceptions by their exact type. Written once, so a test can never compare mstorch with itself.

A test that expects an error says so (``check(fn, raises=True)`` or ``check_raises``): otherwise torch
raising fails the test, so a typo or an API torch does not have cannot pass as "both raised".
"""
import contextlib
import functools
import math
import resource

import numpy as np
import pytest
import torch
import mstorch

NAMESPACES = {"torch": torch, "mstorch": mstorch}


def to_np(x):
    """A host copy of a tensor of either library (bfloat16 as float32)."""
    if isinstance(x, torch.Tensor):
        x = x.detach().resolve_conj().resolve_neg()
        if x.dtype == torch.bfloat16:
            x = x.float()
        return x.numpy()
    if isinstance(x, mstorch.Tensor):
        x = x.detach()
        if x.dtype == mstorch.bfloat16:
            x = x.float()
        return x.numpy()
    return x


def is_tensor(x):
    return isinstance(x, (torch.Tensor, mstorch.Tensor))


def dtype_name(d):
    return repr(d)  # both print as torch.float32


class Raised:
    def __init__(self, exc):
        self.exc = exc

    def __repr__(self):
        return f"Raised({type(self.exc).__name__}: {self.exc})"


def run(fn, T):
    try:
        return fn(T)
    except Exception as exc:  # noqa: BLE001 - the exception itself is the result
        return Raised(exc)


def assert_same(ref, got, rtol=1e-5, atol=1e-6, path="out", check_dtype=True, equal_nan=True):
    """``ref`` from torch, ``got`` from mstorch."""
    if isinstance(ref, Raised) or isinstance(got, Raised):
        assert isinstance(ref, Raised) and isinstance(got, Raised), (
            f"{path}: torch gave {ref!r}, mstorch gave {got!r}")
        # torch's exception type is the contract, exactly: code catches RuntimeError, and an
        # IndexError or NotImplementedError in its place escapes that handler
        assert same_exception_type(ref.exc, got.exc), (
            f"{path}: torch raised {type(ref.exc).__name__}({ref.exc}), "
            f"mstorch raised {type(got.exc).__name__}({got.exc})")
        return
    if is_tensor(ref):
        assert is_tensor(got), f"{path}: torch gave a Tensor, mstorch gave {type(got).__name__}"
        assert tuple(ref.shape) == tuple(got.shape), f"{path}: shape {tuple(ref.shape)} vs {tuple(got.shape)}"
        if check_dtype:
            assert dtype_name(ref.dtype) == dtype_name(got.dtype), f"{path}: dtype {ref.dtype} vs {got.dtype}"
        a, b = to_np(ref), to_np(got)
        if a.dtype.kind in "fc":
            np.testing.assert_allclose(b, a, rtol=rtol, atol=atol, equal_nan=equal_nan, err_msg=path)
        else:
            np.testing.assert_array_equal(b, a, err_msg=path)
        return
    if isinstance(ref, np.ndarray):
        assert isinstance(got, np.ndarray), f"{path}: torch gave an ndarray, mstorch gave {type(got).__name__}"
        assert ref.dtype == got.dtype and ref.shape == got.shape, f"{path}: {ref.dtype}{ref.shape} vs {got.dtype}{got.shape}"
        if ref.dtype.kind in "fc":
            np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol, equal_nan=equal_nan, err_msg=path)
        else:
            np.testing.assert_array_equal(got, ref, err_msg=path)
        return
    if isinstance(ref, (tuple, list)):
        assert isinstance(got, (tuple, list)), f"{path}: torch gave {type(ref).__name__}, mstorch {type(got).__name__}"
        assert len(ref) == len(got), f"{path}: length {len(ref)} vs {len(got)}"
        if hasattr(ref, "_fields"):
            assert getattr(got, "_fields", None) == ref._fields, f"{path}: fields {ref._fields} vs {getattr(got, '_fields', None)}"
        for i, (r, g) in enumerate(zip(ref, got)):
            assert_same(r, g, rtol, atol, f"{path}[{i}]", check_dtype)
        return
    if isinstance(ref, dict):
        assert isinstance(got, dict) and list(ref) == list(got), f"{path}: keys {list(ref)} vs {list(got) if isinstance(got, dict) else got}"
        for k in ref:
            assert_same(ref[k], got[k], rtol, atol, f"{path}[{k!r}]", check_dtype)
        return
    if isinstance(ref, float) and isinstance(got, float):
        assert math.isclose(ref, got, rel_tol=rtol, abs_tol=atol) or (math.isnan(ref) and math.isnan(got)), f"{path}: {ref} vs {got}"
        return
    if type(ref).__module__.startswith("torch") and type(got).__module__.startswith("mstorch"):
        assert repr(ref) == repr(got), f"{path}: {ref!r} vs {got!r}"
        return
    assert type(ref) is type(got), f"{path}: type {type(ref).__name__} vs {type(got).__name__}"
    assert ref == got, f"{path}: {ref!r} vs {got!r}"


def _builtin_base(cls):
    return next(c for c in cls.__mro__ if c.__module__ == "builtins")


def same_exception_type(ref, got):
    """torch's built-in exception types must be raised as exactly that type; a torch-defined one
    (``torch.linalg.LinAlgError`` is ``torch._C._LinAlgError``) as mstorch's class of the same name
    deriving from the same built-in type."""
    tr, tg = type(ref), type(got)
    if tr.__module__ == "builtins":
        return tg is tr
    return tg.__name__.lstrip("_") == tr.__name__.lstrip("_") and _builtin_base(tg) is _builtin_base(tr)


AS_TORCH = "as torch"


def check(fn, rtol=1e-5, atol=1e-6, check_dtype=True, raises=False):
    """Run ``fn(T)`` on torch and mstorch and compare; returns both results. ``raises=True`` declares
    that torch rejects the call (mstorch must raise the same exception type); without it a call torch
    rejects fails the test. ``raises=AS_TORCH``: for matrices of cases that mix calls torch accepts and
    rejects (index kinds x positions, dtypes x values): mstorch must do what torch does, either way."""
    ref = run(fn, torch)
    if raises == AS_TORCH:
        raises = isinstance(ref, Raised)
    if raises:
        assert isinstance(ref, Raised), f"torch did not raise: {ref!r}"
    elif isinstance(ref, Raised):
        raise AssertionError(f"torch raised {type(ref.exc).__name__}: {ref.exc} "
                             "(a test expecting an error says raises=True)") from ref.exc
    got = run(fn, mstorch)
    assert_same(ref, got, rtol, atol, check_dtype=check_dtype)
    return ref, got


def check_as_torch(fn, **kw):
    return check(fn, raises=AS_TORCH, **kw)


def check_grad_as_torch(fn, inputs, **kw):
    return check_grad(fn, inputs, raises=AS_TORCH, **kw)


def check_raises(fn):
    """Both libraries must raise, with the same exception type."""
    return check(fn, raises=True)


def check_grad(fn, inputs, rtol=1e-5, atol=1e-6, **kw):
    """Forward ``fn(T, *tensors)`` with grad-requiring inputs made from NumPy arrays, then compare
    outputs and the gradients of a fixed random weighting of all float outputs."""
    def run_grad(T):
        xs = [T.tensor(a, requires_grad=isinstance(a, np.ndarray) and a.dtype.kind == "f") if isinstance(a, np.ndarray) else a
              for a in inputs]
        out = fn(T, *xs)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        loss = None
        rng = np.random.RandomState(0)
        for o in outs:
            if is_tensor(o) and o.dtype.is_floating_point and o.requires_grad:
                w = T.tensor(rng.standard_normal(tuple(o.shape)).astype(to_np(o).dtype if o.dtype != T.bfloat16 else np.float32)).to(o.dtype)
                term = (o * w).sum()
                loss = term if loss is None else loss + term
        grads = None
        if loss is not None:
            loss.backward()
            grads = [x.grad for x in xs if is_tensor(x) and x.requires_grad]
        return out, grads
    return check(run_grad, rtol=rtol, atol=atol, **kw)


def cases_as_torch(srcs, rtol=1e-5, atol=1e-6, raises=False):
    """A test that runs each fuzzer-case source in ``srcs`` (:func:`run_case`) on torch and mstorch and compares
    (``raises=True``: both must raise the same type); a test module binds it to a ``test_*`` name."""
    @pytest.mark.parametrize("src", srcs)
    def test(src):
        check(lambda T: run_case(T, src), rtol=rtol, atol=atol, raises=raises)
    return test


def messages_as_torch(calls):
    """A test that runs each ``call(T)`` (fuzzer-case sources too) on torch and mstorch: both must raise, with
    the same exception type and message; a test module binds it to a ``test_*`` name."""
    @pytest.mark.parametrize("call", calls)
    def test(call):
        ref, got = check(call if callable(call) else (lambda T: run_case(T, call)), raises=True)
        assert str(got.exc) == str(ref.exc)
    return test

@functools.cache
def lapack_leaves_residues():
    """Whether this host's torch LAPACK (MKL's getrf, whose code path depends on the CPU) leaves a rounding
    residue where exact elimination meets a zero pivot: on the Intel hosts the suite was written on it does
    (float32 det([[1, 2, 3], [2, 4, 6], [1, 0, 1]]) = 3.6e-7, as mstorch's), on AMD EPYC hosts it gives the
    exact 0. Cases on that edge run only where torch takes the first path (docs/known-differences.md)."""
    return torch.det(torch.tensor([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])).item() != 0


def on_lapack_residues(src):
    """A parametrized case that runs only where :func:`lapack_leaves_residues`."""
    return pytest.param(src, marks=pytest.mark.skipif(
        not lapack_leaves_residues(), reason="this host's MKL gives exact zero pivots (CPU-dependent code path)"))


@contextlib.contextmanager
def address_space_cap(headroom=16 << 30):
    """Caps this process's address space at its current size plus ``headroom`` for the block: an allocation
    of terabytes then fails at once, as torch's allocator reports it, whatever the machine's overcommit policy
    (where the kernel overcommits, the allocation succeeds and filling it ends in the OOM killer)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/status") as f:
        size = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    cap = size + headroom if hard == resource.RLIM_INFINITY else min(size + headroom, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def rand(*shape, dtype="float32", seed=0, low=-2.0, high=2.0):
    """Deterministic NumPy sample data shared by both libraries."""
    rng = np.random.RandomState(seed + sum(shape))
    if np.dtype(dtype).kind == "f":
        return rng.uniform(low, high, size=shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return rng.rand(*shape) > 0.5
    return rng.randint(int(low) - 3, int(high) + 4, size=shape).astype(dtype)


def positive(*shape, dtype="float32", seed=0):
    return rand(*shape, dtype=dtype, seed=seed, low=0.1, high=3.0)


# the differential fuzzer's backward step (tools/fuzz.py): a weighted sum of the first result
FUZZ_BACKWARD = "g = r if isinstance(r, T.Tensor) else r[0]; " \
                "(g * T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype)).sum().backward()"


def run_case(T, src):
    """A fuzzer case on namespace ``T``: statements separated by ';' whose last one is ``out = ...`` (a lone
    expression is the result); ``BACKWARD`` stands for :data:`FUZZ_BACKWARD`."""
    ns = {"T": T, "F": T.nn.functional, "nan": math.nan, "inf": math.inf}
    lines = [s.strip() for s in src.replace("BACKWARD", FUZZ_BACKWARD).split(";")]
    if not lines[-1].startswith("out ="):
        lines[-1] = "out = " + lines[-1]
    exec("\n".join(lines), ns)  # noqa: S102 - a fixed test source, run on both libraries
    return ns["out"]
