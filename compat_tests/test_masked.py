"""torch.masked reductions and normalizations with mask= against torch: values, dtypes, fully masked-out
rows (identities, NaN means), broadcast masks, gradients, and the refused MaskedTensor type."""
import numpy as np
import pytest

import mstorch
from harness import check, check_grad, rand, AS_TORCH

X = rand(3, 4)
M = np.array([[True, False, True, True], [False, False, False, False], [True, True, False, True]])
ROW = np.array([True, False, True, False])
I = rand(3, 4, dtype="int32")


def _m(T, m=M):
    return T.tensor(m)


CASES = {
    "sum": lambda T: T.masked.sum(T.tensor(X), 1, mask=_m(T)),
    "sum_all": lambda T: T.masked.sum(T.tensor(X), mask=_m(T)),
    "sum_keep": lambda T: T.masked.sum(T.tensor(X), (0, 1), keepdim=True, mask=_m(T)),
    "sum_int": lambda T: T.masked.sum(T.tensor(I), 0, mask=_m(T)),
    "sum_dtype": lambda T: T.masked.sum(T.tensor(X), 1, dtype=T.float64, mask=_m(T)),
    "sum_nomask": lambda T: T.masked.sum(T.tensor(X), 1),
    "sum_bcast": lambda T: T.masked.sum(T.tensor(X), 1, mask=_m(T, ROW)),
    "sum_bad_mask": lambda T: T.masked.sum(T.tensor(X), 1, mask=T.ones(2, 3, 4, dtype=T.bool)),
    "sum_dup_dim": lambda T: T.masked.sum(T.tensor(X), (1, 1), mask=_m(T)),
    "sum_bad_dim": lambda T: T.masked.sum(T.tensor(X), 2, mask=_m(T)),
    "prod": lambda T: T.masked.prod(T.tensor(X), 1, mask=_m(T)),
    "prod_int": lambda T: T.masked.prod(T.tensor(I), 1, mask=_m(T)),
    "cumsum": lambda T: T.masked.cumsum(T.tensor(X), 1, mask=_m(T)),
    "cumprod": lambda T: T.masked.cumprod(T.tensor(X), 0, mask=_m(T)),
    "amax": lambda T: T.masked.amax(T.tensor(X), 1, mask=_m(T)),
    "amin": lambda T: T.masked.amin(T.tensor(X), 1, mask=_m(T)),
    "amax_int": lambda T: T.masked.amax(T.tensor(I), 1, mask=_m(T)),
    "amin_int": lambda T: T.masked.amin(T.tensor(I), (0, 1), mask=_m(T)),
    "argmax": lambda T: T.masked.argmax(T.tensor(X), 1, mask=_m(T)),
    "argmin": lambda T: T.masked.argmin(T.tensor(X), 0, mask=_m(T)),
    "mean": lambda T: T.masked.mean(T.tensor(X), 1, mask=_m(T)),
    "mean_all": lambda T: T.masked.mean(T.tensor(X), mask=_m(T)),
    "mean_int": lambda T: T.masked.mean(T.tensor(I), 1, mask=_m(T)),
    "mean_nomask": lambda T: T.masked.mean(T.tensor(X), 0),
    "median": lambda T: T.masked.median(T.tensor(X), 1, mask=_m(T)),
    "median_int": lambda T: T.masked.median(T.tensor(I), 1, mask=_m(T)),
    "logsumexp": lambda T: T.masked.logsumexp(T.tensor(X), 1, mask=_m(T)),
    "logaddexp": lambda T: T.masked.logaddexp(T.tensor(X), T.tensor(X) * 2, input_mask=_m(T), other_mask=_m(T, ROW)),
    "norm": lambda T: T.masked.norm(T.tensor(X), 2.0, 1, mask=_m(T)),
    "norm1": lambda T: T.masked.norm(T.tensor(X), 1, (0, 1), keepdim=True, mask=_m(T)),
    "norm_ninf": lambda T: T.masked.norm(T.tensor(X), float("-inf"), 1, mask=_m(T)),
    "var": lambda T: T.masked.var(T.tensor(X), 1, mask=_m(T)),
    "var_biased": lambda T: T.masked.var(T.tensor(X), 1, False, mask=_m(T)),
    "var_corr": lambda T: T.masked.var(T.tensor(X), 0, correction=2, keepdim=True, mask=_m(T)),
    "var_int": lambda T: T.masked.var(T.tensor(I), 1, mask=_m(T)),
    "std": lambda T: T.masked.std(T.tensor(X), 1, mask=_m(T)),
    "std_nomask": lambda T: T.masked.std(T.tensor(X), 0),
    "softmax": lambda T: T.masked.softmax(T.tensor(X), 1, mask=_m(T)),
    "log_softmax": lambda T: T.masked.log_softmax(T.tensor(X), 1, mask=_m(T)),
    "softmin": lambda T: T.masked.softmin(T.tensor(X), 0, mask=_m(T)),
    "softmax_dtype": lambda T: T.masked.softmax(T.tensor(X), -1, dtype=T.float64, mask=_m(T, ROW)),
    "normalize": lambda T: T.masked.normalize(T.tensor(X), 2.0, 1, mask=_m(T)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_masked(case):
    check(CASES[case], raises=AS_TORCH)


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "prod", "softmax", "log_softmax", "var", "std", "norm"])
def test_masked_gradients(op):
    mask = np.array([[True, False, True, True], [False, True, False, True], [True, True, False, True]])

    def f(T, x):
        fn = getattr(T.masked, op)
        if op in ("softmax", "log_softmax"):
            out = fn(x, 1, mask=T.tensor(mask))
            return T.where(T.tensor(mask), out, T.zeros(()))   # -inf at masked-out places has no gradient
        if op == "norm":
            return fn(x, 2.0, 1, mask=T.tensor(mask))
        return fn(x, 1, mask=T.tensor(mask))
    check_grad(f, [X])


def test_masked_tensor_refuses_by_name():
    with pytest.raises(AttributeError, match="MaskedTensor"):
        mstorch.masked.MaskedTensor
