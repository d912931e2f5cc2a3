"""In-place samplers on views: torch fills a non-contiguous tensor in memory order (and normal_ there
draws one sample at a time); values and the generator position after it must be torch's, bit for bit."""
import numpy as np
import pytest
import torch

import mstorch

VIEWS = {
    "t": lambda z: z.t(),
    "step_slice": lambda z: z[:, ::2],
    "permute3d": lambda z: z.view(2, 3, 4).permute(2, 0, 1),
    "transpose_slice": lambda z: z.view(2, 3, 4).transpose(0, 1)[:, 1:],
    "rows": lambda z: z[1:3],
}
SAMPLERS = {
    "uniform_": lambda T, v: v.uniform_(-1, 2),
    "normal_": lambda T, v: v.normal_(0.5, 2.0),
    "random_": lambda T, v: v.random_(0, 100),
    "exponential_": lambda T, v: v.exponential_(),
    "bernoulli_scalar": lambda T, v: v.bernoulli_(0.3),
    "bernoulli_tensor": lambda T, v: v.bernoulli_(T.linspace(0, 1, v.numel()).reshape(v.shape)),
    "cauchy_": lambda T, v: v.cauchy_(),
    "log_normal_": lambda T, v: v.log_normal_(),
    "geometric_": lambda T, v: v.geometric_(0.3),
}


@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_sampler_on_view(view, sampler):
    out = []
    for T in (torch, mstorch):
        T.manual_seed(7)
        z = T.zeros(4, 6)
        SAMPLERS[sampler](T, VIEWS[view](z))
        out.append((z.numpy().copy(), T.rand(3).numpy()))
    (ref, ref_next), (got, got_next) = out
    if sampler in ("normal_", "cauchy_", "log_normal_", "exponential_"):
        np.testing.assert_allclose(got, ref, rtol=3e-7, atol=0)   # transcendental functions: an ulp
    else:
        np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(got_next, ref_next)


# samplers that draw into torch's ``empty_like(input)``: it keeps the input's dimension order, also for
# a view that is not dense (a stepped slice, transposed; infer_dense_strides), so the draws follow it
LIKE_INPUTS = {
    "t": lambda T: T.rand(5, 3, dtype=T.float64).t(),
    "step_t": lambda T: T.rand(5, 6, dtype=T.float64)[:, ::2].t(),
    "expanded": lambda T: T.rand(1, 6, dtype=T.float64).expand(3, 6),
    "expanded_t": lambda T: T.rand(6, 1, dtype=T.float64).expand(6, 3).t(),
    "step_permute3d": lambda T: T.rand(4, 5, 6, dtype=T.float64)[:, ::2].permute(2, 0, 1),
    "expanded_permute3d": lambda T: T.rand(4, 1, 6, dtype=T.float64).expand(4, 3, 6).permute(2, 1, 0),
    "step": lambda T: T.rand(4, 6, dtype=T.float64)[::2, ::3],
}
LIKE_SAMPLERS = {
    "multinomial": lambda T, x: T.multinomial(x, 2) if x.dim() == 2 else T.multinomial(x.flatten(0, 1), 2),
    "multinomial_one": lambda T, x: T.multinomial(x if x.dim() == 2 else x[0], 1, True),
    "rand_like": lambda T, x: T.rand_like(x),
    "randn_like": lambda T, x: T.randn_like(x),
    "dropout": lambda T, x: T.nn.functional.dropout(x, 0.5),
}


@pytest.mark.parametrize("sampler", sorted(LIKE_SAMPLERS))
@pytest.mark.parametrize("view", sorted(LIKE_INPUTS))
def test_sampler_like_view(view, sampler):
    out = []
    for T in (torch, mstorch):
        T.manual_seed(0)
        x = LIKE_INPUTS[view](T)
        T.manual_seed(1)
        r = LIKE_SAMPLERS[sampler](T, x)
        out.append((r.numpy().copy(), r.stride() if sampler.endswith("like") else None, T.rand(3).numpy()))
    (ref, ref_stride, ref_next), (got, got_stride, got_next) = out
    np.testing.assert_array_equal(got, ref)
    assert got_stride == ref_stride
    np.testing.assert_array_equal(got_next, ref_next)
