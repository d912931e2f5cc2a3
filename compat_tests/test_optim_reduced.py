"""Optimizers on float16 and bfloat16 parameters, against torch: every op computes in float32 and rounds
once to the parameter's dtype, as torch's kernels do; torch's vector and scalar loops round differently
(fused multiply-adds, its scalar loop's alpha), so parameters agree to 1 ulp of their dtype
(docs/known-differences.md). State dtypes and keys must be torch's exactly."""
import numpy as np
import pytest
import torch

import mstorch

OPTIMIZERS = {
    "SGD": dict(lr=0.1), "SGD_momentum": dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    "Adam": dict(lr=0.01), "AdamW": dict(lr=0.01, amsgrad=True), "Adamax": {}, "NAdam": {}, "RAdam": {},
    "RMSprop": dict(momentum=0.5, centered=True, eps=1e-3), "Adagrad": {}, "Adadelta": {}, "ASGD": {},
    "Rprop": {},
}
ULP = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


def _run(T, name, dtype, n=40):
    cls = getattr(T.optim, name.split("_")[0])
    dt = getattr(T, dtype)
    p = T.nn.Parameter(T.tensor(np.linspace(-1, 1, n), dtype=dt))
    opt = cls([p], **OPTIMIZERS[name])
    for i in range(4):
        p.grad = T.tensor(np.sin(np.arange(n) * (i + 1.0)) * 0.5, dtype=dt)
        opt.step()
    state = {k: (str(v.dtype), tuple(v.shape)) if isinstance(v, T.Tensor) else v
             for k, v in opt.state_dict()["state"].get(0, {}).items()}
    return p.detach().float().numpy(), str(p.dtype), state


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_reduced_precision_step(name, dtype):
    ref, got = _run(torch, name, dtype), _run(mstorch, name, dtype)
    assert got[1] == ref[1]
    assert got[2].keys() == ref[2].keys()
    for k in ref[2]:
        if isinstance(ref[2][k], tuple):
            assert got[2][k] == ref[2][k], k
    # each element within an ulp or two of the dtype at its magnitude (one rounding step apart per update)
    # (a zero gradient with an eps that rounds to 0 in float16 gives 0/0 = nan in both)
    np.testing.assert_array_equal(np.isnan(got[0]), np.isnan(ref[0]))
    r, g = np.nan_to_num(ref[0]), np.nan_to_num(got[0])
    tol = 2 * ULP[dtype] * np.maximum(np.abs(r), 2.0 ** -6)
    assert np.all(np.abs(g - r) <= tol), np.max(np.abs(g - r) / tol)


@pytest.mark.skipif(torch.backends.cpu.get_cpu_capability() not in ("AVX2", "AVX512"),
                    reason="torch's vectorised loops (whose rounding mstorch follows) need AVX2 here")
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_reduced_precision_step_vector_exact(name, dtype):
    """On whole vectors (64 elements) torch rounds once per op in float32, with add's scalars rounded to
    the dtype first: mstorch agrees bit for bit (nan where torch has nan)."""
    ref, got = _run(torch, name, dtype, 64), _run(mstorch, name, dtype, 64)
    np.testing.assert_array_equal(got[0], ref[0])
