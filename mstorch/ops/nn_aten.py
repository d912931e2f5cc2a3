"""torch's top-level ATen forms of torch.nn.functional ops, which some code calls directly: the losses with
an integer reduction code (``torch.kl_div(input, target, 1)``: 1 mean, 2 sum; 0, any other code and the
default leave the loss unreduced, as torch's bindings do), the ``native_*`` norms that also return their statistics, ``convolution``,
``grid_sampler`` / ``grid_sampler_2d`` / ``grid_sampler_3d`` / ``affine_grid_generator`` with torch's integer modes,
``empty_permuted``, ``norm_except_dim``, ``ctc_loss``, ``embedding_bag`` (with torch's four results),
``embedding_renorm_``, ``native_batch_norm`` and ``native_dropout``. Each is the nn.functional op (so values, gradients and errors are that op's)."""
import warnings

import numpy as np

from .. import _dtype as D
from ._registry import PUBLIC, register
from .nn_embedding import _check_indices, _host, _legacy_name, _renorm_, check_bag_weight

F = "nn.aten"
_REDUCTION = {1: "mean", 2: "sum"}


def _reduction(code, name, position):
    if not isinstance(code, int) or isinstance(code, bool):
        raise TypeError(f"{name}(): argument 'reduction' (position {position}) must be int, not {type(code).__name__}")
    return _REDUCTION.get(code, "none")


@register("torch.binary_cross_entropy_with_logits", family=F, namespace="torch", raw=True)
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    return PUBLIC["nn.functional.binary_cross_entropy_with_logits"](
        input, target, weight, pos_weight=pos_weight,
        reduction=_reduction(reduction, "binary_cross_entropy_with_logits", 5))


@register("torch.kl_div", family=F, namespace="torch", raw=True)
def kl_div(input, target, reduction=0, *, log_target=False):
    with warnings.catch_warnings():   # (F.kl_div's warning about 'mean' is its own; torch.kl_div gives none)
        warnings.simplefilter("ignore", UserWarning)
        return PUBLIC["nn.functional.kl_div"](input, target, reduction=_reduction(reduction, "kl_div", 3),
                                              log_target=log_target)


@register("torch.margin_ranking_loss", family=F, namespace="torch", raw=True)
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    return PUBLIC["nn.functional.margin_ranking_loss"](input1, input2, target, margin,
                                         reduction=_reduction(reduction, "margin_ranking_loss", 5))


@register("torch.hinge_embedding_loss", family=F, namespace="torch", raw=True)
def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return PUBLIC["nn.functional.hinge_embedding_loss"](input, target, margin,
                                          reduction=_reduction(reduction, "hinge_embedding_loss", 4))


@register("torch.cosine_embedding_loss", family=F, namespace="torch", raw=True)
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    return PUBLIC["nn.functional.cosine_embedding_loss"](input1, input2, target, margin,
                                           reduction=_reduction(reduction, "cosine_embedding_loss", 5))


@register("torch.poisson_nll_loss", family=F, namespace="torch", raw=True)
def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return PUBLIC["nn.functional.poisson_nll_loss"](input, target, log_input, full, eps=eps,
                                      reduction=_reduction(reduction, "poisson_nll_loss", 6))


@register("torch.triplet_margin_loss", family=F, namespace="torch", raw=True)
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-06, swap=False, reduction=0):
    return PUBLIC["nn.functional.triplet_margin_loss"](anchor, positive, negative, margin=margin, p=p, eps=eps, swap=swap,
                                         reduction=_reduction(reduction, "triplet_margin_loss", 8))


@register("native_layer_norm", family=F, namespace="torch", raw=True)
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """(layer_norm, mean, 1 / std) with the statistics over the normalized dims, kept as size 1."""
    dims = tuple(range(input.dim() - len(normalized_shape), input.dim()))
    out = PUBLIC["nn.functional.layer_norm"](input, list(normalized_shape), weight, bias, eps)
    mean, rstd = _stats(input.detach(), dims, eps, _stats_dtype(input, weight, bias))   # (not differentiated, as torch's)
    return out, mean, rstd


@register("native_group_norm", family=F, namespace="torch", raw=True)
def native_group_norm(input, weight, bias, N, C, HxW, group, eps):  # noqa: N803 (torch's names)
    """(group_norm, mean, 1 / std) with the statistics per (sample, group), all three differentiable as torch's.
    torch reads the input as N x C x HxW whatever its shape (only the element count must agree)."""
    shape = list(input.shape)
    if C % group:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {shape} and num_groups={group}")
    for t, name in ((weight, "weight"), (bias, "bias")):
        if t is not None and (t.dim() != 1 or t.numel() != C):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t.shape)} and input of shape {shape}")
    # torch's order: the layout, the mixed-dtype checks, the kernel's dtype dispatch, the element count, then
    # the parameters' dtypes as the kernel reads them
    from .._layout import channels_last
    if not (input.is_contiguous() or input.dim() == 4 and input.is_contiguous(memory_format=channels_last)):
        raise RuntimeError("Expected X.is_contiguous(memory_format) to be true, but got false.  (Could this error "
                           "message be improved?  If so, please report an enhancement request to PyTorch.)")
    params = [t for t in (weight, bias) if t is not None]
    mixed = bool(params) and params[0].dtype != input.dtype
    if mixed:
        if any(t.dtype != D.float32 for t in params):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if input.dtype not in _HALF:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    _check_float_kernel(input, "GroupNormKernelImpl")
    if input.numel() != N * C * HxW:
        raise RuntimeError("Expected X.numel() == N * C * HxW to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    for t in params:
        if not mixed and t.dtype != input.dtype:
            raise RuntimeError(f"expected scalar type {D.scalar_type_name(input.dtype)} but found "
                               f"{D.scalar_type_name(t.dtype)}")
    x = input.reshape(N, C, HxW)
    out = PUBLIC["nn.functional.group_norm"](x, group, weight, bias, eps).reshape(shape)
    mean, rstd = _stats(x.reshape(N, group, -1), (2,), eps, _stats_dtype(input, weight, bias))
    return out, mean.reshape(N, group), rstd.reshape(N, group)


_HALF = (D.float16, D.bfloat16)


def _stats_dtype(input, *params):
    """The dtype of torch's statistics: float32 for a float16/bfloat16 input whose parameters are float32 (the
    CPU kernels' "mixed type": the first parameter given decides), else the input's."""
    if input.dtype in _HALF:
        first = next((t for t in params if t is not None), None)
        if first is not None and first.dtype == D.float32:
            return D.float32
    return input.dtype


def _opmath(x):
    """``x`` in the dtype torch accumulates its statistics in (float32 for float16/bfloat16)."""
    return x.float() if x.dtype in _HALF else x


def _stats(x, dims, eps, dtype):
    """(mean, 1 / std) over ``dims``, kept (differentiable, as torch's): computed in float32 for a half input,
    given in ``dtype``."""
    x = _opmath(x)
    mean = x.mean(dims, keepdim=True)
    var = x.var(dims, unbiased=False, keepdim=True)
    return mean.to(dtype), (var + eps).rsqrt().to(dtype)


@register("convolution", family=F, namespace="torch", raw=True)
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """conv{1,2,3}d or conv_transpose{1,2,3}d, chosen by the input's rank and ``transposed``."""
    n = input.dim() - 2
    if n not in (1, 2, 3):
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
                           f"{list(input.shape)}")
    if transposed:
        return PUBLIC[f"conv_transpose{n}d"](input, weight, bias, tuple(stride), tuple(padding), tuple(output_padding),
                                             groups, tuple(dilation))
    return PUBLIC[f"conv{n}d"](input, weight, bias, tuple(stride), tuple(padding), tuple(dilation), groups)


_INTERPOLATION = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_PADDING = {0: "zeros", 1: "border", 2: "reflection"}


@register("grid_sampler", family=F, namespace="torch", raw=True)
def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    return PUBLIC["nn.functional.grid_sample"](input, grid, mode=_INTERPOLATION.get(interpolation_mode, interpolation_mode),
                                 padding_mode=_PADDING.get(padding_mode, padding_mode), align_corners=align_corners)


@register("affine_grid_generator", family=F, namespace="torch", raw=True)
def affine_grid_generator(theta, size, align_corners):
    """ATen's composite, op by op (no up-front checks: a bad theta fails in ``transpose`` / ``bmm``, any dtype
    ``bmm`` takes works): a base grid of ``linspace(-1, 1)`` columns and ones, times theta transposed."""
    size = [int(s) for s in size]
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    n, spatial = len(size) - 2, size[2:]
    PUBLIC["empty"](size[:1] + spatial + [n + 1], dtype=theta.dtype)   # torch's negative-size error
    full = size[:1] + spatial
    cols = []
    for i, s in enumerate(reversed(spatial)):       # W, H(, D)
        if s > 1 and theta.dtype == D.bool_:
            raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
        if s <= 1:
            if theta.dtype in (D.float16, D.bfloat16, D.bool_):
                raise NotImplementedError(f"\"tensor_cpu\" not implemented for '{D.scalar_type_name(theta.dtype)}'")
            v = PUBLIC["tensor"](0, dtype=theta.dtype)
        else:
            v = PUBLIC["linspace"](-1, 1, s, dtype=theta.dtype)
            if not align_corners:
                v = (v * (s - 1) / s).to(theta.dtype)
            v = v.reshape([s] + [1] * i)
        cols.append(v.expand(full))
    cols.append(PUBLIC["ones"](full, dtype=theta.dtype))
    base = PUBLIC["stack"](cols, -1)
    prod = 1
    for s in spatial:
        prod *= s
    theta_t = theta.transpose(1, 2)
    if prod == 0 or size[0] == 0:    # (an empty bmm: its shape checks, then an empty result)
        probe = PUBLIC["empty"]([size[0], 1, n + 1], dtype=theta.dtype)
        probe.bmm(theta_t)
        return PUBLIC["empty"](size[:1] + spatial + [n], dtype=theta.dtype)
    grid = base.view(size[0], prod, n + 1).bmm(theta_t)
    return grid.view(size[:1] + spatial + [n])


@register("empty_permuted", family=F, namespace="torch", raw=True)
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """An empty tensor of ``size`` whose memory runs in the dims' order ``physical_layout`` (outermost first)."""
    size, order = tuple(size), tuple(physical_layout)
    if len(size) != len(order):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}")
    for i, d in enumerate(order):
        if not 0 <= d < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {len(size) - 1}, but got {d} at "
                               "index {i}).  NB: negative dims not currently supported; file an issue if you want it."
                               .replace("{i}", str(i)))
    if len(set(order)) != len(order):
        raise RuntimeError("Duplicate dim not allowed")
    base = PUBLIC["empty"]([size[d] for d in order], dtype=dtype, device=device, requires_grad=requires_grad)
    inverse = [order.index(d) for d in range(len(size))]
    return base.permute(inverse)


@register("norm_except_dim", family=F, namespace="torch", raw=True)
def norm_except_dim(v, pow=2, dim=0):  # noqa: A002 (torch's name)
    """The ``pow``-norm over every dim but ``dim`` (kept as size 1); ``dim=-1``: over everything (weight_norm).
    torch's composite, view by view (so a 1-d input keeps its size, and an empty one fails its view)."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view([v.size(0)] + [1] * (v.dim() - 1))
    if dim == v.dim() - 1:
        return v.contiguous().view(-1, v.size(dim)).norm(pow, 0).view([1] * (v.dim() - 1) + [v.size(dim)])
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)



def _grid_sampler_nd(n, input, grid, interpolation_mode, padding_mode, align_corners):
    # torch's common checks come before the rank's: sizes read by index (a 0-d tensor's IndexError)
    if input.size(0) != grid.size(0):
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.size(-1) != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in last dimension, but got "
                           f"grid with sizes {list(grid.shape)}")
    for i in range(2, input.dim()):
        if input.size(i) <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {i} being empty")
    if input.dim() != n + 2 or grid.dim() != n + 2:
        raise RuntimeError(f"grid_sampler(): expected {n + 2}D input and grid with same number of dimensions, but got "
                           f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


@register("grid_sampler_2d", family=F, namespace="torch", raw=True)
def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    return _grid_sampler_nd(2, input, grid, interpolation_mode, padding_mode, align_corners)


@register("grid_sampler_3d", family=F, namespace="torch", raw=True)
def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    return _grid_sampler_nd(3, input, grid, interpolation_mode, padding_mode, align_corners)


@register("torch.ctc_loss", family=F, namespace="torch", raw=True)
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0, zero_infinity=False):
    # (torch's stubs say the default reduction is 1, its binding leaves the loss unreduced: the binding wins)
    return PUBLIC["nn.functional.ctc_loss"](log_probs, targets, input_lengths, target_lengths, blank,
                                            _reduction(reduction, "ctc_loss", 6), zero_infinity)


_BAG_MODES = {0: "sum", 1: "mean", 2: "max"}


def _bag_offsets_2d_error(weight, offsets, mode, per_sample_weights, padding_idx, indices_rows):
    """torch's errors for 2-D indices, where its CPU kernel reports them (its results for the other 2-D shapes
    are unspecified): check_arguments' (the weight's dtype, 0-d offsets failing offsets.size(0), the first and
    the size(0) - 1-th offset read from memory, against the indices' rows); offsets of 2 or more dims then
    fail make_offset2bag's index_add_ (mean, and sum off the float fast path, without
    per_sample_weights; after the padding_idx range check)."""
    check_bag_weight(weight._ms)   # (check_arguments: the weight's dtype, then offsets[0] and offsets[-1])
    if offsets.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    off = _host(offsets._ms).astype(np.int64)
    flat = off.reshape(-1)
    if off.shape[0] and flat[0] != 0:   # (torch reads the first element and prints the first row)
        first = off[0]
        if first.ndim:
            width = len(str(int(np.abs(first).max()))) + 1
            shown = "".join(f"{int(v):>{width}}\n" for v in first) + f"[ {_legacy_name(offsets._ms)}{{{first.size}}} ]"
        else:
            shown = f"{int(first)}\n[ {_legacy_name(offsets._ms)}{{}} ]"
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {shown}")
    if off.shape[0] and flat[off.shape[0] - 1] > indices_rows:   # (the element at size(0) - 1 of the memory)
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {indices_rows} but got offsets[-1] "
                           f"of {int(flat[off.shape[0] - 1])}")
    if offsets.dim() == 1 or per_sample_weights is not None or mode == 2:
        return
    n = weight.shape[0]
    if padding_idx is not None and not -n <= padding_idx < n:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, -{n} through {n - 1}, but "
                           f"got {padding_idx}")
    fast_sum = mode == 0 and padding_idx is None and weight.dtype in (D.float32, D.float16, D.bfloat16) and \
        weight.stride(1) == 1
    if not fast_sum:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {offsets.dim()} with type: "
                         f"{_TYPE_NAMES[offsets.dtype]} and size: {list(offsets.shape)}")


_TYPE_NAMES = {D.int64: "Long", D.int32: "Int"}


@register("torch.embedding_bag", family=F, namespace="torch", raw=True)
def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """(output, offset2bag, bag_size, max_indices) as torch's CPU kernel gives them: ``offset2bag`` is each
    index's bag (empty on the float sum path without padding_idx, which never builds it), ``bag_size`` each
    bag's offset span less its padding indices (zeros in sum mode, one per bag when the weight requires grad,
    else one per offset), ``max_indices`` per bag and column the row
    that gave the max (first on ties, 0 for an empty bag) in max mode, else a copy of ``bag_size``."""
    if weight.dim() == 0 and (padding_idx is not None or weight.requires_grad):
        # torch reads weight.size(0) before any check there: to check and wrap padding_idx, and in its
        # autograd wrapper
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    n = weight.shape[0] if weight.dim() else 0
    if padding_idx is not None and not -n <= padding_idx < n:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, -{n} through {n - 1}, but "
                           f"got {padding_idx}")
    if mode not in _BAG_MODES:
        raise RuntimeError("`mode` must be sum, mean, or max.")
    # _embedding_bag_cpu_impl's checks, in its order (indices and offsets promoted to a common type first)
    if indices.dim() not in (1, 2):
        raise RuntimeError(f"input has to be a 1D or 2D Tensor, but got Tensor of dimension {indices.dim()}")
    if indices.dim() == 1 and offsets.dim() != 1:
        raise RuntimeError(f"offsets has to be a 1D Tensor, but got Tensor of dimension {offsets.dim()}")
    if weight.dim() != 2:
        raise RuntimeError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    common = D.promote_types(indices.dtype, offsets.dtype)
    for name, t in (("indices", indices), ("offsets", offsets)):
        if common not in (D.int64, D.int32):
            raise RuntimeError(f"Expected tensor for argument #1 '{name}' to have one of the following scalar types: "
                               f"Long, Int; but got {t.to(common).type()} instead (while checking arguments for "
                               "embedding_bag)")
    if indices.dtype != common:
        indices = indices.to(common)
    if offsets.dtype != common:
        offsets = offsets.to(common)
    if indices.dim() != 1:
        _bag_offsets_2d_error(weight, offsets, mode, per_sample_weights, padding_idx, indices.shape[0])
        raise RuntimeError("mstorch: torch.embedding_bag takes 1-D indices with offsets (as "
                           "nn.functional.embedding_bag passes them); torch's results for other shapes are unspecified")
    n = weight.shape[0]
    pad = None if padding_idx is None else (padding_idx + n if padding_idx < 0 else padding_idx)
    out = PUBLIC["nn.functional.embedding_bag"](indices, weight, offsets, None, 2, scale_grad_by_freq,
                                                _BAG_MODES[mode], sparse, per_sample_weights, include_last_offset,
                                                pad)
    idx = _host(indices._ms).astype(np.int64).reshape(-1)
    off = _host(offsets._ms).astype(np.int64).reshape(-1)
    nbags = out.shape[0]
    # torch's make_offset2bag: a one at each bag offset (the last one dropped with include_last_offset),
    # cumulated, less one: the number of bag offsets at or before each position, less one (unsorted
    # offsets included, which torch's CPU kernel takes as they come; all -1 without bags)
    bag = np.searchsorted(np.sort(off[:nbags]), np.arange(idx.size), side="right") - 1
    keep = np.ones(idx.size, bool) if pad is None else idx != pad
    fast_sum = mode == 0 and pad is None and weight.dtype in (D.float32, D.float16, D.bfloat16) and \
        weight.stride(1) == 1 and (per_sample_weights is None or per_sample_weights.stride(0) == 1)
    offset2bag = np.zeros(0, np.int64) if fast_sum else bag
    if mode == 0:
        # zeroed; one per bag when the weight requires grad (torch's _embedding_bag), else one per offset
        # (its _embedding_bag_forward_only)
        bag_size = np.zeros(nbags if weight.requires_grad else off.size, np.int64)
    else:
        # torch's make_bag_size_out: each bag's offset span (the last reaching the end of the indices), less
        # the padding positions offset2bag puts in it (negative for unsorted offsets, as torch's)
        bag_size = np.append(off[1:nbags], idx.size) - off[:nbags] if nbags else np.zeros(0, np.int64)
        bag_size = bag_size - np.bincount(bag[~keep & (bag >= 0)], minlength=nbags)[:nbags]
    if mode == 2:
        rows = out.detach()   # the max per bag and column: find which used row holds it (first one on ties)
        vals = weight.detach()[indices].float().numpy() if idx.size else np.zeros((0, weight.shape[1]), np.float32)
        target = rows.float().numpy()
        max_indices = np.zeros((nbags, weight.shape[1]), np.int64)
        for i in range(idx.size - 1, -1, -1):   # walking back leaves the first match
            if keep[i] and 0 <= bag[i] < nbags:
                hit = vals[i] == target[bag[i]]
                max_indices[bag[i], hit] = idx[i]
    else:
        max_indices = bag_size.copy()
    dt = indices.dtype
    return (out,) + tuple(PUBLIC["tensor"](a, dtype=dt) for a in (offset2bag, bag_size, max_indices))


@register("embedding_renorm_", family=F, namespace="torch", raw=True)
def embedding_renorm_(input, indices, max_norm, norm_type):
    """Rows of ``input`` named in ``indices`` whose ``norm_type``-norm exceeds ``max_norm`` are scaled to it, in place."""
    _check_indices(indices._ms, "embedding_renorm_")
    _renorm_(input, _host(indices._ms).reshape(-1), max_norm, norm_type)
    return input


@register("native_batch_norm", family=F, namespace="torch", raw=True)
def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """(batch_norm, save_mean, save_invstd): the batch's mean and 1 / sqrt(biased var + eps) per channel when
    training (not differentiated, as torch's), empty tensors otherwise; float32 for a float16/bfloat16 input with
    float32 parameters, as torch's."""
    if input.dim() == 0:   # (torch's kernel sizes a SmallVector by dim() - 1)
        raise RuntimeError("SmallVector unable to grow. Requested capacity (18446744073709551615) is larger than "
                           "maximum value for size type (4294967295)")
    from .nn_norm import check_param_dtypes, refuse_strided_mean
    params = [None if t is None else t._ms for t in (weight, bias, running_mean, running_var)]
    refuse_strided_mean(input._ms, params, training)   # (before it reads size(1))
    if training and input.dim() == 1:   # (training reads size(1) before the dtype dispatch)
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    _check_float_kernel(input, "batch_norm")
    check_param_dtypes(input._ms, params, input.numel() > 0)
    if input.dim() == 1 and input.numel():   # (evaluation of an empty one returns before reading size(1))
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if training:
        _check_not_empty(input)
    # (the kernel itself: none of F.batch_norm's checks of the batch size, eps and the parameters' sizes)
    from .nn_norm import _batch_norm
    from .._tensor import wrap
    dtype = _stats_dtype(input, weight, bias, running_mean, running_var)
    if input.numel() == 0:      # (evaluation of an empty input: torch's kernel reads no parameter)
        empty = PUBLIC["empty"](0, dtype=dtype)
        out = _size1_refusing(input, weight, bias) if input.dim() == 1 else input * 1
        return out, empty, empty.clone()
    c = input.shape[1]
    for t, name in ((weight, "weight"), (bias, "bias")) + ((() if training else
                                                            ((running_mean, "running_mean"), (running_var, "running_var")))):
        if t is not None and t.numel() != c:
            # (torch's kernel takes a parameter of another size by the input's memory layout: its first
            # elements, or broadcast against the channels; none of its results is checked)
            raise RuntimeError(f"mstorch: torch.native_batch_norm with {name} of {t.numel()} elements for {c} "
                               "channels is not supported (torch's result depends on the input's memory layout)")
    # training updates the running statistics given: their first elements, as torch's kernel does
    with _first_running(running_mean, c, "running_mean") as rm, _first_running(running_var, c, "running_var") as rv:
        out = wrap(_batch_norm(input, weight, bias, rm, rv, training, momentum, eps))
    if not training:
        empty = PUBLIC["empty"](0, dtype=dtype)
        return out, empty, empty.clone()
    mean, var_sum, n = _bn_moments(input.detach(), dtype)
    return out, mean.to(dtype), (_per(var_sum, n, dtype) + eps).rsqrt().to(dtype)


def _size1_backward(saved, g):
    raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")


def _size1_refusing(input, weight, bias):
    """An empty 1-d input's result (a copy) on the graph of the operands that need gradients, whose backward
    raises torch's IndexError: NativeBatchNormBackward0 reads the input's size(1). Recorded also where
    ops/_bind.py runs the op unrecorded because every such operand is empty."""
    from .. import _ms_private as P
    from .._tensor import wrap
    from ._helpers import _node, records
    needs = [t._ms for t in (input, weight, bias) if t is not None and P.requires_grad(t._ms)]
    if not needs or not records():
        return input * 1
    node = _node("NativeBatchNormBackward0", lambda x, *ts: (x + 0, ()), _size1_backward)
    if P.grad_enabled():
        return wrap(node(input._ms, *needs))
    P.set_grad_enabled(True)
    try:
        out = node(input._ms, *needs)
    finally:
        P.set_grad_enabled(False)
    out._mstorch_unlinked = True
    return wrap(out)


# torch's CPU kernel keeps the batch statistics of a bfloat16 input with bfloat16 (or no) parameters in bfloat16 and
# does the arithmetic after in bfloat16, rounding each step (a float16 input's measure as rounded once from float32)

def _bn_moments(input, dtype):
    """(mean, sum of squared deviations, count) per channel (dim 1), computed in float32 for a float16/bfloat16
    input (bfloat16 statistics rounded to it, as torch's). torch's kernel for a contiguous float32 input sums
    in float64 (its mean of values near the float32 limit stays finite), squaring the deviations from the
    float32 mean in float32."""
    x = _opmath(input)
    dims = tuple(d for d in range(x.dim()) if d != 1)
    if input.dtype == D.float32 and x.is_contiguous():
        mean = x.double().mean(dims).float()
        cen = x - mean.reshape([1, -1] + [1] * (x.dim() - 2))
        return mean, (cen * cen).double().sum(dims).float(), x.numel() // max(x.shape[1], 1)
    kept = x.mean(dims, keepdim=True)
    cen = x - kept
    mean, var_sum = x.mean(dims), (cen * cen).sum(dims)
    if dtype == D.bfloat16:
        mean, var_sum = _round(mean, dtype), _round(var_sum, dtype)
    return mean, var_sum, x.numel() // max(x.shape[1], 1) if x.dim() > 1 else x.numel()


def _check_mixed(input, *params, mixed=_HALF):
    """torch's CPU norms take parameters of the input's dtype, or float32 ones for an input of a ``mixed``
    dtype (the first parameter given decides)."""
    first = next((t for t in params if t is not None), None)
    if first is None or first.dtype == input.dtype:
        return
    if input.dtype not in mixed:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    if any(t is not None and t.dtype != D.float32 for t in params):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")


def _first(t, c, name):
    """The first ``c`` elements of a per-channel parameter, as torch's kernel reads it (it checks no size: a
    shorter one it reads past its end, which has no result to match)."""
    if t is None or t.numel() == c:
        return t
    if t.numel() < c:
        raise RuntimeError(f"mstorch: {name} has {t.numel()} elements for {c} channels; torch's kernel reads past "
                           "its end (an undefined result)")
    return t.reshape(-1)[:c]


class _first_running:
    """The first ``c`` elements of a running statistic, as a tensor the kernel updates in place: written back
    into those elements after (the rest untouched, as torch's kernel leaves them)."""

    def __init__(self, t, c, name):
        self.t, self.part = t, _first(t, c, name)
        if self.part is not None and self.part is not t:
            self.part = self.part.clone()

    def __enter__(self):
        return self.part

    def __exit__(self, *exc):
        if exc[0] is None and self.part is not None and self.part is not self.t:
            from ..autograd.grad_mode import no_grad
            with no_grad():
                self.t.view(-1)[:self.part.numel()] = self.part
        return False


def _check_float_kernel(input, name):
    """torch's CPU kernels dispatched on float, double, half and bfloat16 only."""
    if input.dtype not in (D.float32, D.float64, D.float16, D.bfloat16):
        raise NotImplementedError(f"\"{name}\" not implemented for '{D.scalar_type_name(input.dtype)}'")


def _check_not_empty(input):
    if input.numel() == 0:
        raise RuntimeError(f"input tensor must have at least one element, but got input_sizes = {list(input.shape)}")


def _round(t, dtype):
    """``t`` rounded to ``dtype``, kept in its own dtype (a Python float: rounded, a Python float)."""
    if isinstance(t, float):
        return PUBLIC["tensor"](t).to(dtype).item()
    return t.to(dtype).to(t.dtype)


def _per(total, count, dtype):
    """``total / count`` as torch's kernel divides a bfloat16 statistic (by the count in bfloat16, rounded)."""
    if dtype != D.bfloat16:
        return total / count
    return _round(total / _round(float(count), dtype), dtype)


@register("native_dropout", family=F, namespace="torch", raw=True)
def native_dropout(input, p, train):
    """(dropout, mask): the draw is torch's dropout stream on ``input``'s shape; ``train=None`` trains."""
    if input.dtype.is_complex and input.requires_grad:
        from ..autograd.grad_mode import is_grad_enabled
        if is_grad_enabled():
            raise RuntimeError("native_dropout does not support automatic differentiation for outputs with "
                               "complex dtype.")
    if input.numel() == 0:   # torch's mask of an empty input is an empty tensor of the input's dtype
        on_graph = input.dtype.is_floating_point or input.dtype.is_complex
        return input * 1 if on_graph else input.clone(), PUBLIC["empty_like"](input).detach()
    if train is False:
        return input.clone(), PUBLIC["ones_like"](input, dtype=D.bool_)
    if not 0 <= p <= 1:     # (torch draws the mask with bernoulli_(1 - p))
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={1 - p:g}")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        # torch scales the masked input in place by a float (even for p = 0): an integer or bool one refuses it
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{D.scalar_type_name(input.dtype)}")
    if input.dtype.is_complex:
        return _complex_dropout(input, p)
    if p in (0, 1):     # torch draws its mask even where it keeps or drops everything
        PUBLIC["empty"](tuple(input.shape)).bernoulli_(1 - p)
    noise = PUBLIC["dropout"](PUBLIC["ones_like"](input), p, True)
    mask = noise != 0
    if train is None:
        # torch scales the output but its derivative takes train=None as not training: the gradient is
        # only masked, not scaled (the detached terms keep the value exact)
        kept = input * mask
        if p == 0:
            return kept, mask
        if p == 1:      # (torch's scale is 0 there: nothing is kept, NaN stays NaN)
            return kept * 0.0, mask
        # (kept - kept.detach() is NaN where kept is infinite: there the value is kept + kept * (scale - 1))
        exact = (input * noise).detach() + (kept - kept.detach())
        edge = kept + (kept * (1 / (1 - p) - 1)).detach()
        return PUBLIC["where"](kept.isfinite(), exact, edge), mask
    return input * noise, mask


def _complex_dropout(input, p):
    """torch's kernel on a complex input: the mask drawn as a real one of its shape (the same stream), the
    input multiplied by it as a complex 1 or 0, then by the scale as a complex number (each a full complex
    product: an infinite part gives NaN, (-inf+0.42j) -> (-inf+nanj) -> (nan+nanj))."""
    real = D.float64 if input.dtype == D.complex128 else D.float32
    mask = PUBLIC["empty"](tuple(input.shape), dtype=real).bernoulli_(1 - p) != 0
    return input * mask.to(input.dtype) * (0.0 if p == 1 else 1 / (1 - p)), mask


@register("batch_norm_update_stats", family=F, namespace="torch", raw=True)
def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """(mean, biased var) per channel (dim 1) of ``input``; the running statistics given are moved towards
    the mean and the unbiased var by ``momentum`` in place, as torch's kernel does. Computed in float32 for a
    float16/bfloat16 input, and given in float32 where the running statistics are (as torch's)."""
    _check_float_kernel(input, "batch_norm_update_stats_cpu")
    _check_mixed(input, running_mean, running_var, mixed=_HALF + (D.float32,))
    if input.dim() < 2:
        raise IndexError("Dimension specified as 1 but tensor has no dimensions" if input.dim() == 0 else
                         "Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    _check_not_empty(input)
    c = input.shape[1]
    with _first_running(running_mean, c, "running_mean") as rm, _first_running(running_var, c, "running_var") as rv:
        return _update_stats(input, rm, rv, momentum)


def _update_stats(input, running_mean, running_var, momentum):
    dtype = _stats_dtype(input, running_mean, running_var)
    mean, var_sum, n = _bn_moments(input, dtype)
    var = _per(var_sum, n, dtype)
    from ..autograd.grad_mode import no_grad
    with no_grad():
        mean_d = mean.detach()
        unbiased = _per(var_sum.detach(), n - 1, dtype) if n > 1 else var.detach() * float("nan")
        if dtype == D.bfloat16:     # (bfloat16 arithmetic, as torch's; the unbiased var is a float32 term)
            m = _round(float(momentum), dtype)
            keep = _round(1 - m, dtype)
            if running_mean is not None:
                r = _opmath(running_mean)
                running_mean.copy_(_round(_round(mean_d * m, dtype) + _round(r * keep, dtype), dtype))
            if running_var is not None:
                running_var.copy_(unbiased * m + _round(_opmath(running_var) * keep, dtype))
        else:                       # (in float32 for float16 statistics, rounded once, as torch's)
            if running_mean is not None:
                r = _opmath(running_mean)
                running_mean.copy_(r * (1 - momentum) + mean_d.to(r.dtype) * momentum)
            if running_var is not None:
                r = _opmath(running_var)
                running_var.copy_(r * (1 - momentum) + unbiased.to(r.dtype) * momentum)
    return mean.to(dtype), var.to(dtype)


# --- SyncBatchNorm's building blocks: torch has them for CUDA only (its CPU build refuses them); here they run on
# every device, with the CUDA kernels' formulas. Statistics are per channel (dim 1); ``count`` is elements per channel.

def _channel_view(t, ndim):
    return t.reshape((1, -1) + (1,) * (ndim - 2))


def _reduce_dims(input):
    return tuple(d for d in range(input.dim()) if d != 1)


@register("batch_norm_stats", family=F, namespace="torch", raw=True)
def batch_norm_stats(input, eps):
    """(mean, 1 / sqrt(biased var + eps)) per channel."""
    dims = _reduce_dims(input)
    return input.mean(dims), (input.var(dims, unbiased=False) + eps).rsqrt()


@register("batch_norm_elemt", family=F, namespace="torch", raw=True, out=True)
def batch_norm_elemt(input, weight, bias, mean, invstd, eps):
    n = input.dim()
    out = (input - _channel_view(mean, n)) * _channel_view(invstd, n)
    if weight is not None:
        out = out * _channel_view(weight, n)
    if bias is not None:
        out = out + _channel_view(bias, n)
    return out


@register("batch_norm_gather_stats_with_counts", family=F, namespace="torch", raw=True)
def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum, eps, counts):
    """The global (mean, invstd) of per-replica statistics (rows of ``mean`` / ``invstd``, ``counts`` elements
    each, combined as the CUDA kernel's parallel variance); the running statistics move towards the global
    mean and unbiased var."""
    counts = counts.to(mean.dtype).reshape(-1, 1)
    total = counts.sum(0)
    global_mean = (mean * counts).sum(0) / total
    var = 1 / (invstd * invstd) - eps
    global_var = ((var + (mean - global_mean) ** 2) * counts).sum(0) / total
    from ..autograd.grad_mode import no_grad
    with no_grad():
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(global_mean.to(running_mean.dtype), alpha=momentum)
        if running_var is not None:
            unbiased = global_var * total / (total - 1)
            running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype), alpha=momentum)
    return global_mean, (global_var + eps).rsqrt()


@register("batch_norm_gather_stats", family=F, namespace="torch", raw=True)
def batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps, count):
    """batch_norm_gather_stats_with_counts with ``count`` elements behind every row."""
    counts = PUBLIC["full"]((mean.shape[0],), float(count), dtype=mean.dtype)
    return batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum, eps, counts)


@register("batch_norm_backward_reduce", family=F, namespace="torch", raw=True)
def batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g, bias_g):
    """(sum_dy, sum_dy_xmu, grad_weight, grad_bias) per channel; the first two only when ``input_g``, the
    weight's gradient only when ``weight_g`` (and a weight is given), the bias's only when ``bias_g`` (None
    otherwise, as torch's undefined tensors)."""
    n, dims = input.dim(), _reduce_dims(input)
    sum_dy = grad_out.sum(dims)
    sum_dy_xmu = (grad_out * (input - _channel_view(mean, n))).sum(dims)
    grad_weight = sum_dy_xmu * invstd if weight_g and weight is not None else None
    return (sum_dy if input_g else None, sum_dy_xmu if input_g else None, grad_weight,
            sum_dy if bias_g else None)


@register("batch_norm_backward_elemt", family=F, namespace="torch", raw=True)
def batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu, count):
    """The input's gradient from the all-reduced sums: (dy - sum_dy / N - (x - mean) * invstd^2 * sum_dy_xmu / N)
    * invstd * weight, N the total of ``count``."""
    n = input.dim()
    total = count.sum().to(mean.dtype)
    mean_dy = _channel_view(sum_dy / total, n)
    mean_dy_xmu = _channel_view(sum_dy_xmu / total, n)
    inv = _channel_view(invstd, n)
    xmu = input - _channel_view(mean, n)
    scale = inv if weight is None else inv * _channel_view(weight, n)
    return (grad_out - mean_dy - xmu * inv * inv * mean_dy_xmu) * scale
