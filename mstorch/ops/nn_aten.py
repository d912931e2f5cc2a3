"""torch's top-level ATen forms of torch.nn.functional ops, which some code calls directly: the losses with
an integer reduction code (``torch.kl_div(input, target, 1)``: 1 mean, 2 sum; 0, any other code and the
default leave the loss unreduced, as torch's bindings do), the ``native_*`` norms that also return their statistics, ``convolution``,
``grid_sampler`` / ``affine_grid_generator`` with torch's integer modes, ``empty_permuted`` and
``norm_except_dim``. Each is the nn.functional op (so values, gradients and errors are that op's)."""
import warnings

from ._registry import PUBLIC, register

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
    mean, rstd = _stats(input.detach(), dims, eps)   # (torch does not differentiate these two outputs)
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
    if input.numel() != N * C * HxW:
        raise RuntimeError("Expected X.numel() == N * C * HxW to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    from .._layout import channels_last
    if not (input.is_contiguous() or input.dim() == 4 and input.is_contiguous(memory_format=channels_last)):
        raise RuntimeError("Expected X.is_contiguous(memory_format) to be true, but got false.  (Could this error "
                           "message be improved?  If so, please report an enhancement request to PyTorch.)")
    x = input.reshape(N, C, HxW)
    out = PUBLIC["nn.functional.group_norm"](x, group, weight, bias, eps).reshape(shape)
    mean, rstd = _stats(x.reshape(N, group, -1), (2,), eps)
    return out, mean.reshape(N, group), rstd.reshape(N, group)


def _stats(x, dims, eps):
    """(mean, 1 / std) over ``dims``, kept (differentiable, as torch's)."""
    mean = x.mean(dims, keepdim=True)
    var = x.var(dims, unbiased=False, keepdim=True)
    return mean, (var + eps).rsqrt()


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
    return PUBLIC["nn.functional.affine_grid"](theta, list(size), align_corners=align_corners)


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
    """The ``pow``-norm over every dim but ``dim`` (kept as size 1); ``dim=-1``: over everything (weight_norm)."""
    if dim == -1:
        return PUBLIC["linalg.vector_norm"](v, pow)
    dims = tuple(d for d in range(v.dim()) if d != dim)
    return PUBLIC["linalg.vector_norm"](v, pow, dims, True)

