"""Every implementation candidate of an op (mstorch/ops/_kernels.py) gives torch's values and gradients on
the cases tools/choose_kernels.py times, whichever one the generated table picks; the table names only
existing candidates; im2col keeps its column buffer bounded and still gives torch's values."""
import importlib.util
import pathlib

import numpy as np
import pytest

from harness import check, check_grad, rand
from mstorch.ops import _kernels, _kernel_choice, nn_conv

_SPEC = importlib.util.spec_from_file_location(
    "choose_kernels", pathlib.Path(__file__).resolve().parents[1] / "tools" / "choose_kernels.py")
choose = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(choose)

CANDIDATE_CASES = [pytest.param(key, name, case, id=f"{key}-{name}-{case['label']}")
                   for key, cases in choose.CASES.items() for name in _kernels.CANDIDATES[key] for case in cases]


@pytest.mark.parametrize("key,name,case", CANDIDATE_CASES)
def test_candidate_gives_torch_values_and_grads(key, name, case):
    with _kernels.forced(key, name):
        check(lambda T: choose.run_case(T, case, batch=2), rtol=1e-4, atol=1e-4)


def test_every_op_with_candidates_has_cases():
    assert set(_kernels.CANDIDATES) == set(choose.CASES)


def test_table_names_existing_candidates():
    for device, table in _kernel_choice.CHOICES.items():
        for key, name in table.items():
            assert name in _kernels.CANDIDATES[key], (device, key, name)


@pytest.mark.parametrize("cap", [3000, 600])   # bytes: tiles by batch, then by output rows of one image
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_im2col_tiles_give_torch_values(monkeypatch, cap, dtype):
    monkeypatch.setattr(nn_conv, "COLUMN_BYTES", cap)
    with _kernels.forced("conv", "im2col"):
        check_grad(lambda T, x, w, b: T.nn.functional.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2)),
                   [rand(3, 2, 9, 7, dtype=dtype), rand(4, 2, 3, 3, dtype=dtype), rand(4, dtype=dtype)],
                   rtol=1e-4, atol=1e-4)


def test_im2col_tiles_are_bounded(monkeypatch):
    # a 256 KB cap where one image's columns take 576 KB: row tiles, none of them over the cap
    seen = []
    real = nn_conv._im2col

    def spy(x, w, stride, dilation, groups, out):
        seen.append(x.shape[1] * int(np.prod(w.shape[2:])) * int(np.prod(out)) * x.shape[0] * x.itemsize)
        return real(x, w, stride, dilation, groups, out)
    monkeypatch.setattr(nn_conv, "_im2col", spy)
    monkeypatch.setattr(nn_conv, "COLUMN_BYTES", 1 << 18)
    with _kernels.forced("conv", "im2col"):
        check(lambda T: T.nn.functional.conv2d(T.ones(2, 1, 256, 64), T.ones(1, 1, 3, 3), padding=1), atol=1e-4)
    assert len(seen) > 4 and max(seen) <= 1 << 18


@pytest.mark.parametrize("name", list(_kernels.CANDIDATES["max_pool"]))
@pytest.mark.parametrize("special", ["none", "-inf", "float16"])
def test_max_pool_candidates_on_special_values(name, special):
    # padding and ceil_mode windows; -inf in part of a window (a window of nothing but -inf and padding,
    # and NaN windows, are known differences of the native kernel: docs/known-differences.md)
    x = rand(2, 3, 9, 9, dtype="float16" if special == "float16" else "float32")
    if special == "-inf":
        x[0, 0, 1:3, 1:3] = -np.inf
    with _kernels.forced("max_pool", name):
        check_grad(lambda T, x: T.nn.functional.max_pool2d(x, 3, 2, 1, ceil_mode=True), [x], rtol=1e-3, atol=1e-3)
