"""torch.testing against torch: assert_close (pass/fail, exception type and the full message text,
including the mismatch statistics) and make_tensor (seeded values, generator position, checks)."""
import math
import warnings

import numpy as np
import pytest
import torch

import mstorch
from harness import run, Raised

NAN, INF = float("nan"), float("inf")


def outcome(fn, T):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = run(fn, T)
    if isinstance(res, Raised):
        return f"{type(res.exc).__name__}: {res.exc}"
    return "passed"


def same_outcome(fn):
    ref, got = outcome(fn, torch), outcome(fn, mstorch)
    assert got == ref, f"\ntorch:   {ref!r}\nmstorch: {got!r}"
    return ref


def close(*args, **kw):
    return lambda T: T.testing.assert_close(*[a(T) if callable(a) else a for a in args], **kw)


def t(values, dtype=None):
    return lambda T: T.tensor(values, dtype=None if dtype is None else getattr(T, dtype))


# actual, expected, options: every case runs on both libraries; the outcome (including the
# message text) must be identical
CASES = {
    "float32_mismatch": close(t([1.0, 2.0, 3.0]), t([1.0, 2.1, 3.0])),
    "float32_2d_inf_rel": close(t([[1.0, 2.0], [3.0, 4.0]]), t([[1.0, 2.5], [3.3, 0.0]])),
    "float32_within_default": close(t([1.0, 100.0]), t([1.0 + 5e-6, 100.0001])),
    "float32_just_outside": close(t([100.0]), t([100.0002])),
    "float64_within": close(t([1.0, 2.0], "float64"), t([1.0, 2.0000001], "float64")),
    "float64_outside": close(t([1.0, 2.0], "float64"), t([1.0, 2.000001], "float64")),
    "float16": close(t([1.0, 2.0], "float16"), t([1.01, 2.0], "float16")),
    "float16_within": close(t([1000.0], "float16"), t([1000.5], "float16")),
    "bfloat16": close(t([1.0, 2.0, 7.0], "bfloat16"), t([1.1, 2.0, 7.5], "bfloat16")),
    "bfloat16_within": close(t([256.0], "bfloat16"), t([258.0], "bfloat16")),
    "int64_equal_message": close(t([1, 2, 3]), t([1, 5, 3])),
    "int64_with_tolerance": close(t([1, 2, 3]), t([1, 5, 7]), rtol=0.1, atol=1),
    "uint8_wraps": close(t([1, 2], "uint8"), t([3, 2], "uint8")),
    "bool": close(t([True, False]), t([True, True])),
    "complex64": close(t([1 + 1j, 2j]), t([1 + 1.1j, 2j])),
    "complex128_within": close(t([1 + 1j], "complex128"), t([1 + 1.00000001j], "complex128")),
    "zero_dim": close(t(1.5), t(1.6)),
    "zero_dim_int": close(t(3), t(4)),
    "nan_default": close(t([NAN, 1.0]), t([NAN, 1.0])),
    "nan_equal_nan": close(t([NAN, 1.0]), t([NAN, 1.0]), equal_nan=True),
    "nan_vs_number": close(t([1.0, NAN]), t([1.0, 2.0])),
    "inf_same": close(t([INF, 1.0]), t([INF, 1.0])),
    "inf_opposite": close(t([INF, 1.0]), t([-INF, 1.0])),
    "expected_zero": close(t([0.5, 0.0]), t([0.0, 0.0])),
    "ties_first_index": close(t([1.0, 2.0, 3.0, 4.0]), t([2.0, 3.0, 3.0, 5.0])),
    "dtype_mismatch": close(t([1.0]), t([1.0], "float64")),
    "dtype_unchecked": close(t([1.0]), t([1.0], "float64"), check_dtype=False),
    "dtype_unchecked_int": close(t([1.0]), t([1], "int64"), check_dtype=False),
    "dtype_unchecked_promoted_mismatch": close(t([1.5]), t([1], "int64"), check_dtype=False),
    "shape_mismatch": close(t([1.0]), t([1.0, 2.0])),
    "stride_checked": lambda T: T.testing.assert_close(T.ones(2, 3).t(), T.ones(3, 2), check_stride=True),
    "stride_unchecked": lambda T: T.testing.assert_close(T.ones(2, 3).t(), T.ones(3, 2)),
    "sequence_item": lambda T: T.testing.assert_close([T.tensor([1.0]), (T.tensor(2.0), 3)],
                                                      [T.tensor([1.0]), (T.tensor(2.5), 3)]),
    "sequence_length": close([1, 2], [1, 2, 3]),
    "mapping_item": lambda T: T.testing.assert_close({"a": T.tensor([1.0]), "b": 2.0},
                                                     {"a": T.tensor([1.0]), "b": 2.1}),
    "mapping_keys": close({"a": 1, "b": 2}, {"a": 1, "c": 2}),
    "number_within": close(1.0, 1.0 + 1e-9),
    "number_outside": close(1.0, 1.1),
    "int_numbers": close(3, 4),
    "complex_numbers": close(1 + 1j, 1 + 1.5j),
    "number_dtype_checked": lambda T: T.testing.assert_close(1, 1.0, check_dtype=True),
    "numpy_numbers": close(np.float32(1.0), np.float32(1.5)),
    "booleans": close(True, False),
    "numpy_bool": close(np.bool_(True), True),
    "none_vs_number": close(None, 1),
    "none_none": close(None, None),
    "tensor_vs_float": close(t([1.0]), 1.0),
    "tensor_vs_ndarray": close(t([1.0]), np.array([1.0], dtype=np.float32)),
    "ndarrays": close(np.array([1.0, 2.0]), np.array([1.0, 2.5])),
    "strings": close("a", "a"),
    "only_rtol": close(t([1.0]), t([1.0]), rtol=1e-3),
    "only_atol": close(t([1.0]), t([1.0]), atol=1e-3),
    "custom_tolerance_pass": close(t([1.0, 2.0]), t([1.05, 2.0]), rtol=0, atol=0.1),
    "custom_tolerance_fail": close(t([1.0, 2.0]), t([1.05, 2.0]), rtol=0.01, atol=0.01),
    "msg_string": close(t([1.0]), t([2.0]), msg="custom"),
    "msg_callable": close(t([1.0]), t([2.0]), msg=lambda m: "X" + m[:30]),
    "parameter_vs_tensor": lambda T: T.testing.assert_close(T.nn.Parameter(T.tensor([1.0])), T.tensor([1.0])),
    "no_subclasses": lambda T: T.testing.assert_close(T.nn.Parameter(T.tensor([1.0])), T.tensor([1.0]),
                                                      allow_subclasses=False),
    "empty_tensors": lambda T: T.testing.assert_close(T.zeros(0), T.zeros(0)),
    "bool_vs_int_number": close(True, 1),
    "many_elements": lambda T: T.testing.assert_close(T.arange(100.).reshape(10, 10),
                                                      T.arange(100.).reshape(10, 10) * 1.001),
    "requires_grad_ignored": lambda T: T.testing.assert_close(T.ones(2, requires_grad=True), T.ones(2)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_assert_close_matches_torch(name):
    same_outcome(CASES[name])


def test_assert_close_cases_cover_pass_and_fail():
    outcomes = [outcome(fn, torch) for fn in CASES.values()]
    assert outcomes.count("passed") >= 10 and sum(o.startswith("AssertionError") for o in outcomes) >= 25


def test_assert_close_message_layout():
    got = outcome(CASES["float32_2d_inf_rel"], mstorch)
    assert got == ("AssertionError: Tensor-likes are not close!\n\nMismatched elements: 3 / 4 (75.0%)\n"
                   "Greatest absolute difference: 4.0 at index (1, 1) (up to 1e-05 allowed)\n"
                   "Greatest relative difference: inf at index (1, 1) (up to 1.3e-06 allowed)")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_random_mismatch_statistics(dtype):
    rng = np.random.RandomState(7)
    a = rng.standard_normal((4, 5))
    b = a + rng.standard_normal((4, 5)) * 1e-2

    def fn(T):
        dt = getattr(T, dtype)
        T.testing.assert_close(T.tensor(a).to(dt), T.tensor(b).to(dt))
    assert same_outcome(fn).startswith("AssertionError: Tensor-likes are not close!")


def test_assert_allclose_is_deprecated_and_compares():
    same_outcome(lambda T: T.testing.assert_allclose(T.tensor([1.0, 2.0]), [1.0, 2.001]))
    same_outcome(lambda T: T.testing.assert_allclose(T.tensor([1.0, 2.0]), [1.0, 2.00001]))
    same_outcome(lambda T: T.testing.assert_allclose(T.tensor([1.0, NAN]), [1.0, NAN]))
    with pytest.warns(FutureWarning, match="assert_allclose"):
        mstorch.testing.assert_allclose(mstorch.tensor([1.0]), [1.0])


# --- make_tensor ----------------------------------------------------------------------------------

MAKE = [
    ((3, 4), "float32", {}),
    ((5,), "float64", {"low": -1, "high": 1}),
    ((2, 3), "int64", {}),
    ((2, 3), "int32", {"low": 0, "high": 3}),
    ((6,), "uint8", {}),
    ((6,), "bool", {}),
    ((4,), "float16", {}),
    ((4,), "bfloat16", {}),
    ((3,), "complex64", {}),
    ((2, 3), "float32", {"noncontiguous": True}),
    ((1,), "float32", {"noncontiguous": True}),
    ((3,), "float32", {"requires_grad": True}),
    ((8,), "int8", {"low": -1, "high": 1, "exclude_zero": True}),
    ((3,), "float32", {"low": -INF, "high": INF}),
    ([(2, 2)], "float64", {}),
    ((), "float32", {}),
    ((0, 3), "float32", {}),
    ((3,), "int64", {"low": -2 ** 63, "high": 2 ** 63 - 1}),
    # the checks
    ((3,), "int64", {"requires_grad": True}),
    ((3,), "float32", {"low": 2, "high": 1}),
    ((3,), "float32", {"low": NAN}),
    ((3,), "uint8", {"low": -10, "high": -5}),
    ((2, 2), "float32", {"noncontiguous": True, "memory_format": "contiguous_format"}),
]


@pytest.mark.parametrize("shape,dtype,kw", MAKE, ids=[f"{d}-{i}" for i, (_, d, _) in enumerate(MAKE)])
def test_make_tensor_matches_torch(shape, dtype, kw):
    def fn(T):
        T.manual_seed(3)
        opts = {k: (getattr(T, v) if k == "memory_format" else v) for k, v in kw.items()}
        x = T.testing.make_tensor(*shape, dtype=getattr(T, dtype), device="cpu", **opts)
        values = x.detach()
        values = values.float() if values.dtype == T.bfloat16 else values
        return (tuple(x.shape), repr(x.dtype), x.is_contiguous(), x.requires_grad, values.numpy().tolist(),
                T.rand(1).item())          # the generator's position afterwards
    ref, got = run(fn, torch), run(fn, mstorch)
    if isinstance(ref, Raised):
        assert isinstance(got, Raised), got
        assert (type(got.exc).__name__, str(got.exc)) == (type(ref.exc).__name__, str(ref.exc))
    else:
        assert got == ref


def test_make_tensor_distribution():
    mstorch.manual_seed(0)
    x = mstorch.testing.make_tensor(4000, dtype=mstorch.float32, device="cpu", low=-2, high=6).numpy()
    assert x.min() >= -2 and x.max() < 6 and abs(x.mean() - 2.0) < 0.15 and abs(x.std() - 8 / math.sqrt(12)) < 0.1
    i = mstorch.testing.make_tensor(4000, dtype=mstorch.int64, device="cpu").numpy()
    assert i.min() == -9 and i.max() == 9
    z = mstorch.testing.make_tensor(500, dtype=mstorch.int8, device="cpu", low=-1, high=1, exclude_zero=True).numpy()
    assert set(np.unique(z)) == {-1, 1}


def test_make_tensor_requires_device():
    same_outcome(lambda T: T.testing.make_tensor(2, dtype=T.float32))
