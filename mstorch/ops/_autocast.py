"""Autocast: the per-thread state behind ``torch.autocast`` and the cast policy of the op table.

torch's CPU autocast (aten/src/ATen/autocast_mode.cpp, measured against torch 2.13) runs a list of
ops in the autocast dtype ("lower": matmuls, convolutions, linear, prelu, attention) and another list
in float32 ("fp32": losses, some pools, quantiles, cdist...); every other op runs in its inputs' dtype.
Only floating tensors on the autocast device that are not float64 are cast.

The hot path: ``_bind.build`` wraps only the ops tagged here, and the wrapper's check while autocast is
off is one truthiness test of a set. On CPU, MindSpore lacks bfloat16 kernels for most of these ops,
so a "lower" op runs as torch's CPU kernels effectively do: inputs rounded to the autocast dtype,
computed in float32, the result rounded to the autocast dtype (gradients get the same roundings
through the casts' backward).
"""
import threading

from .. import _dtype as D

LOWER = ("conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
         "bmm", "mm", "matmul", "baddbmm", "addmm", "addbmm", "linear", "prelu", "scaled_dot_product_attention",
         "multi_head_attention_forward",
         # composites that torch runs through bmm/mm, so their results come out in the autocast dtype
         "einsum", "tensordot", "inner", "chain_matmul", "affine_grid")
FP32 = ("avg_pool3d", "binary_cross_entropy", "grid_sample", "prod", "quantile", "nanquantile", "cdist", "trace",
        "inverse", "max_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d", "adaptive_avg_pool3d",
        "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "mse_loss", "cosine_embedding_loss", "nll_loss",
        "hinge_embedding_loss", "poisson_nll_loss", "smooth_l1_loss", "cross_entropy", "l1_loss", "huber_loss",
        "margin_ranking_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss", "ctc_loss", "kl_div",
        "multilabel_margin_loss", "binary_cross_entropy_with_logits",
        # composites that torch runs through avg_pool3d
        "lp_pool3d", "local_response_norm")
POLICY = dict([(n, "lower") for n in LOWER] + [(n, "fp32") for n in FP32])

# torch's default autocast dtype per device type (torch.get_autocast_dtype)
DEFAULT_DTYPES = {"cpu": D.bfloat16, "cuda": D.float16, "mps": D.float16, "xpu": D.bfloat16, "hpu": D.bfloat16,
                  "privateuseone": D.float16, "mtia": D.bfloat16, "maia": D.bfloat16, "xla": D.bfloat16,
                  "ipu": D.float16, "npu": D.float16}

ACTIVE = set()   # thread idents where autocast is on for the device type tensors live on
_local = threading.local()
_get_ident = threading.get_ident
_TENSOR_DEVICE = []


def tensor_device_type():
    """The device type every mstorch tensor reports (one MindSpore device target per process)."""
    if not _TENSOR_DEVICE:
        from .._device import current_device
        _TENSOR_DEVICE.append(current_device().type)
    return _TENSOR_DEVICE[0]


def state():
    """This thread's autocast state: {device type: [enabled, dtype]}, nesting depth and cache flag."""
    s = getattr(_local, "s", None)
    if s is None:
        s = _local.s = {"devices": {}, "nesting": 0, "cache": True}
    return s


def device_state(device_type):
    devices = state()["devices"]
    entry = devices.get(device_type)
    if entry is None:
        if device_type not in DEFAULT_DTYPES:
            raise RuntimeError("unsupported scalarType")
        entry = devices[device_type] = [False, DEFAULT_DTYPES[device_type]]
    return entry


def set_enabled(device_type, enabled):
    device_state(device_type)[0] = bool(enabled)
    if device_type == tensor_device_type():
        if enabled:
            ACTIVE.add(_get_ident())
        else:
            ACTIVE.discard(_get_ident())


def tag(ops):
    """Mark the op table's entries with their autocast policy (read by _bind.build)."""
    for name, policy in POLICY.items():
        if name in ops:
            ops[name].autocast = policy


def run(fn, policy, args, kwargs):
    """Call the op ``fn`` under torch's autocast policy for this thread (its generated wrapper calls this
    while autocast is on)."""
    ident = _get_ident()
    from .._tensor import Tensor
    target = device_state(tensor_device_type())[1]
    if policy == "fp32":
        def convert(t):
            return t.float() if t.dtype in (D.float16, D.bfloat16) else t
        emulate = False
    else:
        # CPU: round to the autocast dtype, compute in float32; elsewhere the device's own kernels
        emulate = tensor_device_type() == "cpu"
        lowered = []

        def convert(t):
            if not t.dtype.is_floating_point or t.dtype == D.float64:
                return t
            lowered.append(True)
            t = t.to(target)
            return t.float() if emulate else t

    def walk(v):
        if isinstance(v, Tensor):
            return convert(v)
        if type(v) in (list, tuple):
            return type(v)(walk(x) for x in v)
        return v

    args = [walk(a) for a in args]
    kwargs = {k: walk(v) for k, v in kwargs.items()}
    ACTIVE.discard(ident)   # as torch's autocast kernels: the op's own inner calls are not cast again
    try:
        out = fn(*args, **kwargs)
    finally:
        ACTIVE.add(ident)
    if emulate and lowered:
        out = _round_out(out, target, Tensor)
    return out


def _round_out(out, target, Tensor):
    if isinstance(out, Tensor):
        return out.to(target) if out.dtype is D.float32 else out
    if isinstance(out, tuple):
        items = [_round_out(x, target, Tensor) for x in out]
        return type(out)(*items) if hasattr(out, "_fields") else type(out)(items)
    return out
