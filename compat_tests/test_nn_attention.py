"""torch.nn.attention (SDPBackend, sdpa_kernel) and the torch.backends.cuda SDP switches against real torch."""
import warnings

import numpy as np
import pytest
import torch

import mstorch

BOTH = pytest.mark.parametrize("T", [torch, mstorch], ids=["torch", "mstorch"])


def _qkv(T, shape=(1, 2, 3, 4), dtype="float32"):
    rng = np.random.default_rng(0)
    return [T.tensor(rng.standard_normal(shape).astype(dtype)) for _ in range(3)]


def _flags(T):
    c = T.backends.cuda
    return (c.flash_sdp_enabled(), c.mem_efficient_sdp_enabled(), c.math_sdp_enabled(), c.cudnn_sdp_enabled())


def _run(T, backends, shape=(1, 2, 3, 4), **kw):
    """The outcome of one SDPA call under sdpa_kernel(backends): values, or (exception type, text, warnings)."""
    sb = T.nn.attention.SDPBackend
    chosen = [getattr(sb, b) for b in backends] if isinstance(backends, list) else getattr(sb, backends)
    q, k, v = _qkv(T, shape)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            with T.nn.attention.sdpa_kernel(chosen) as ctx:
                assert ctx == {}
                inside = _flags(T)
                out = T.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
                return inside, np.asarray(out.tolist())
        except RuntimeError as e:
            return inside, (str(e), [str(x.message).split(" (Triggered internally")[0] for x in w])


CASES = [
    ("FLASH_ATTENTION", {}, (1, 2, 3, 4)),
    ("MATH", {}, (1, 2, 3, 4)),
    (["MATH", "FLASH_ATTENTION"], {"dropout_p": 0.0}, (1, 2, 3, 4)),
    ("EFFICIENT_ATTENTION", {}, (1, 2, 3, 4)),
    ("CUDNN_ATTENTION", {}, (1, 2, 3, 4)),
    ("OVERRIDEABLE", {}, (1, 2, 3, 4)),
    ("ERROR", {}, (1, 2, 3, 4)),
    ([], {}, (1, 2, 3, 4)),
    ("FLASH_ATTENTION", {"dropout_p": 0.3}, (1, 2, 3, 4)),
    ("FLASH_ATTENTION", {}, (2, 3, 4)),
    ("FLASH_ATTENTION", {"is_causal": True}, (1, 2, 3, 4)),
    (["FLASH_ATTENTION", "EFFICIENT_ATTENTION"], {}, (2, 3, 4)),
]


@pytest.mark.parametrize("backends,kw,shape", CASES, ids=[f"{b}-{len(s)}d-{kw}" for b, kw, s in CASES])
def test_sdpa_kernel_selection(backends, kw, shape):
    ref_flags, ref = _run(torch, backends, shape, **kw)
    got_flags, got = _run(mstorch, backends, shape, **kw)
    assert got_flags == ref_flags
    if isinstance(ref, tuple):
        assert got == ref
    else:
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    assert _flags(mstorch) == _flags(torch) == (True, True, True, True)  # restored on exit


def test_head_dim_mismatch_under_flash_only():
    outs = []
    for T in (torch, mstorch):
        q, k, v = _qkv(T, (1, 2, 3, 4))
        with warnings.catch_warnings(record=True) as w, T.nn.attention.sdpa_kernel(
                T.nn.attention.SDPBackend.FLASH_ATTENTION):
            warnings.simplefilter("always")
            with pytest.raises(RuntimeError) as info:
                T.nn.functional.scaled_dot_product_attention(q, k[..., :2], v)
        outs.append((str(info.value), [str(x.message).split(" (Triggered")[0] for x in w]))
    assert outs[0] == outs[1]


@BOTH
def test_enum_and_argument_errors(T):
    sb = T.nn.attention.SDPBackend
    assert [(m, int(getattr(sb, m))) for m in ("ERROR", "MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION",
                                               "CUDNN_ATTENTION", "OVERRIDEABLE")] == \
        [("ERROR", -1), ("MATH", 0), ("FLASH_ATTENTION", 1), ("EFFICIENT_ATTENTION", 2), ("CUDNN_ATTENTION", 3),
         ("OVERRIDEABLE", 4)]
    assert (repr(sb.MATH), str(sb.MATH), sb.MATH.name, sb.MATH == 0, sb(1)) == \
        ("<SDPBackend.MATH: 0>", "SDPBackend.MATH", "MATH", False, sb.FLASH_ATTENTION)
    for bad in (3, "math", (sb.MATH,)):
        with pytest.raises(AssertionError) as info:
            with T.nn.attention.sdpa_kernel(bad):
                pass
        assert str(info.value) == ("Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
                                   f"got {type(bad).__name__}")


@BOTH
def test_set_priority_and_flags(T):
    sb, c = T.nn.attention.SDPBackend, T.backends.cuda
    with T.nn.attention.sdpa_kernel([sb.MATH, sb.MATH, sb.CUDNN_ATTENTION], set_priority=True):
        assert _flags(T) == (False, False, True, True)
    assert _flags(T) == (True, True, True, True)
    c.enable_flash_sdp(False)
    c.enable_math_sdp(False)
    try:
        q, k, v = _qkv(T)
        with pytest.raises(RuntimeError, match="No viable backend"):
            T.nn.functional.scaled_dot_product_attention(q, k, v)
    finally:
        c.enable_flash_sdp(True)
        c.enable_math_sdp(True)
    with pytest.warns(FutureWarning, match="sdp_kernel\\(\\)` is deprecated"):
        with c.sdp_kernel(enable_flash=False, enable_cudnn=False) as ctx:
            assert ctx == {} and _flags(T) == (False, True, True, False)
    assert _flags(T) == (True, True, True, True)
    assert (c.is_flash_attention_available(), c.fp16_bf16_reduction_math_sdp_allowed()) == (False, False)


def test_set_priority_order_matches_torch():
    # torch exposes the order only through torch._C; mstorch keeps it in backends.cuda._SDP_PRIORITY
    sb_t, sb_m = torch.nn.attention.SDPBackend, mstorch.nn.attention.SDPBackend
    with torch.nn.attention.sdpa_kernel([sb_t.MATH, sb_t.CUDNN_ATTENTION], set_priority=True):
        ref = torch._C._get_sdp_priority_order()
    with mstorch.nn.attention.sdpa_kernel([sb_m.MATH, sb_m.CUDNN_ATTENTION], set_priority=True):
        got = list(mstorch.backends.cuda._SDP_PRIORITY)
    assert got == ref
    assert list(mstorch.backends.cuda._SDP_PRIORITY) == torch._C._get_sdp_priority_order()
