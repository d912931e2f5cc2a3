"""Python sequences as indices (range, tuple, list, nested lists, NumPy arrays, mixed with tensors) and
the checked conversion of assigned / filled numbers, against torch.

torch reads any sequence index as ``torch.tensor(seq)`` (int64, or a mask when it infers bool/uint8),
and a short non-tuple sequence holding slices, tensors or other sequences as a tuple of indices.
"""
import warnings

import numpy as np
import pytest

from harness import check_as_torch as check, check_grad_as_torch as check_grad, rand, Raised  # matrices mixing accepted and rejected calls: as torch does

warnings.filterwarnings("ignore", message="Using a non-tuple sequence")
warnings.filterwarnings("ignore", message="indexing with dtype torch.uint8")

X = rand(3, 4, 5)
_ = slice(None)

# index kinds, each a function of the namespace (some build tensors)
KINDS = {
    "range": lambda T: range(3),
    "range step": lambda T: range(2, -1, -2),
    "range empty": lambda T: range(0),
    "tuple ints": lambda T: (2, 0),
    "list": lambda T: [1, 0, 1],
    "list of lists": lambda T: [[0, 1], [2, 0]],
    "list floats (truncated)": lambda T: [0.5, 1.7],
    "list bools": lambda T: [True, False, True],
    "list of 0-d tensors": lambda T: [T.tensor(2), T.tensor(0)],
    "list int and 0-d tensor": lambda T: [1, T.tensor(2)],
    "np int64": lambda T: np.array([2, 0, 1]),
    "np int32 2d": lambda T: np.array([[0], [2]], dtype=np.int32),
    "np bool": lambda T: np.array([True, False, True]),
    "np uint8 (mask)": lambda T: np.array([1, 0, 1], dtype=np.uint8),
    "np float (truncated)": lambda T: np.array([0.2, 2.9]),
    "np 0-d": lambda T: np.array(1),
    "np scalar int": lambda T: np.int64(2),
    "np scalar bool": lambda T: np.bool_(True),
}

# where the kind goes; dim 0 has size 3, so every kind above fits dims 0 and 1 and 2
PLACES = {
    "alone": lambda k: k,
    "dim 1": lambda k: (_, k),
    "dim 2 via ellipsis": lambda k: (Ellipsis, k),
    "with range": lambda k: (range(3), k) if not isinstance(k, (range, tuple)) else (k, 1),
    "with tensor": lambda k: ("T", k),
    "separated": lambda k: (k, _, [0, 2, 1]),
}


def _index(T, kind, place):
    k = KINDS[kind](T)
    idx = PLACES[place](k)
    if isinstance(idx, tuple) and idx and isinstance(idx[0], str):
        idx = (T.tensor([0, 2, 1]), k)
    return idx


def _valid(kind, place):
    # a mask over dim 0 cannot be combined with another index of a different length; torch raises,
    # and the error cases are tested on their own below
    return not (kind in ("list bools", "np bool", "np uint8 (mask)") and place in ("with range", "with tensor",
                                                                                    "separated"))


CASES = [(k, p) for k in KINDS for p in PLACES if _valid(k, p)]


@pytest.mark.parametrize("kind,place", CASES)
def test_getitem(kind, place):
    check(lambda T: T.tensor(X)[_index(T, kind, place)])


@pytest.mark.parametrize("kind,place", CASES)
def test_setitem_scalar(kind, place):
    def fn(T):
        x = T.tensor(X)
        x[_index(T, kind, place)] = -7.0
        return x
    check(fn)


@pytest.mark.parametrize("kind,place", CASES)
def test_setitem_tensor_value(kind, place):
    def fn(T):
        x = T.tensor(X)
        idx = _index(T, kind, place)
        shape = tuple(T.tensor(X)[idx].shape)
        x[idx] = T.arange(float(np.prod(shape))).reshape(shape)
        return x
    check(fn)


@pytest.mark.parametrize("kind,place", [(k, p) for k, p in CASES if p in ("alone", "dim 1", "separated")])
def test_grad(kind, place):
    check_grad(lambda T, x: x[_index(T, kind, place)], [X])

    def setitem(T, x, v):
        y = x * 2
        y[_index(T, kind, place)] = v.sum()
        return y
    check_grad(setitem, [X, rand(2, seed=3)])


def test_issue_reproducers():
    """Issue 17 item 4 and issue 18 item 15: ``x_[range(n), y] = v`` and ``x[:, range(1, 3)]``."""
    def assign(T):
        x = T.zeros(4, 3)
        y = T.tensor([2, 0, 1, 1])
        x[range(4), y] = 1.0
        return x
    check(assign)
    check(lambda T: T.tensor(X)[:, range(1, 3)])

    def one_hot_grad(T, logits):
        mask = T.zeros(4, 5)
        mask[range(4), [0, 4, 2, 2]] = 1
        return (logits.log_softmax(1) * mask).sum(1)
    check_grad(one_hot_grad, [rand(4, 5, seed=2)])


def _same_error(fn):
    ref, got = check(fn)
    assert isinstance(ref, Raised), ref
    assert type(got.exc) is type(ref.exc) and str(got.exc) == str(ref.exc), (ref, got)


@pytest.mark.parametrize("index", [
    lambda T: [0, 5], lambda T: range(2, 5), lambda T: np.array([3]),
    lambda T: ["a"], lambda T: [b"a"], lambda T: np.float64(1.0), lambda T: {0: 1}, lambda T: {0, 1},
    lambda T: [0] * 39 + [slice(None)], lambda T: [[True, False, True, True]],
    lambda T: (range(2), range(3)),
], ids=["list oob", "range oob", "np oob", "str", "bytes", "np float scalar", "dict", "set", "long list with slice",
        "mask shape", "shape mismatch"])
def test_sequence_index_errors(index):
    _same_error(lambda T: T.tensor(X)[index(T)])


def test_long_lists_are_one_index():
    # 32 or more items are never read as a tuple of indices
    check(lambda T: T.tensor(X)[[0, 1] * 20])
    check(lambda T: T.tensor(X)[[[0, 1]] * 32].shape)


# --- the number written by index assignment and masked_fill: checked conversion ------------------

DTYPE_VALUES = [("uint8", 300), ("uint8", -1), ("uint8", -300), ("uint8", 256), ("uint8", -1.0), ("uint8", 2.5),
                ("uint8", float("inf")), ("int8", 200), ("int8", float("nan")), ("int16", 70000),
                ("int32", 2 ** 31), ("int32", 1e10), ("int64", 2 ** 63), ("int64", -2 ** 63 - 1),
                ("float16", 1e6), ("bfloat16", 1e39), ("float32", 1e39), ("float64", 1e309),
                ("bool", 0.5), ("bool", 2), ("bool", float("nan")), ("bool", 1 + 0j), ("float32", 1 + 0j),
                ("float32", 1 + 2j), ("int32", 1 + 0j), ("uint8", True), ("uint8", np.int64(300)),
                ("float16", np.float64(1e6))]


def _exact(fn):
    ref, got = check(fn)
    if isinstance(ref, Raised):
        assert type(got.exc) is type(ref.exc) and str(got.exc) == str(ref.exc), (ref, got)


@pytest.mark.parametrize("dtype,value", DTYPE_VALUES, ids=str)
@pytest.mark.parametrize("how", ["int", "mask", "list", "slice", "masked_fill_", "masked_fill"])
def test_assigned_number_conversion(dtype, value, how):
    def fn(T):
        b = T.zeros(3, dtype=getattr(T, dtype))
        mask = T.tensor([False, True, False])
        if how == "masked_fill_":
            return b.masked_fill_(mask, value)
        if how == "masked_fill":
            return b.masked_fill(mask, value)
        b[{"int": 1, "mask": mask, "list": [1], "slice": slice(1, None)}[how]] = value
        return b
    _exact(fn)


@pytest.mark.parametrize("how", ["int", "mask", "masked_fill_"])
def test_assigned_0d_tensor_conversion(how):
    def fn(T):
        b = T.zeros(3, dtype=T.uint8)
        v = T.tensor(300)
        if how == "masked_fill_":
            return b.masked_fill_(T.tensor([False, True, False]), v)
        b[1 if how == "int" else T.tensor([False, True, False])] = v
        return b
    _exact(fn)
