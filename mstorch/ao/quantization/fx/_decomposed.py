"""torch.ao.quantization.fx._decomposed: importing it defines the ``quantized_decomposed`` operators (affine
quantization written with ordinary tensor ops, the integer values held in an integer tensor and the scale and
zero point passed alongside), through mstorch's torch.library as torch defines them through its own."""
from .... import _functions as fn
from ...._dtype import float32, float16, bfloat16, int8, int16, int32, uint8, uint16
from ...._finfo import iinfo
from ....library import Library, impl

quantized_decomposed_lib = Library("quantized_decomposed", "DEF")

_DTYPE_TO_QVALUE_BOUNDS = {d: (iinfo(d).min, iinfo(d).max) for d in (uint8, int8, uint16, int16, int32)}


def _quant_min_max_bounds_check(quant_min, quant_max, dtype):
    if dtype not in _DTYPE_TO_QVALUE_BOUNDS:
        raise ValueError(f"Unsupported dtype: {dtype}")
    lo, hi = _DTYPE_TO_QVALUE_BOUNDS[dtype]
    if quant_min < lo:
        raise AssertionError(f"quant_min out of bounds for dtype, quant_min_lower_bound: {lo} quant_min: {quant_min}")
    if quant_max > hi:
        raise AssertionError(f"quant_max out of bounds for dtype, quant_max_upper_bound: {hi} quant_max: {quant_max}")


def _as_float32(input):
    if input.dtype in (float16, bfloat16):
        input = input.to(float32)
    if input.dtype != float32:
        raise AssertionError(f"Expecting input to have dtype torch.float32, but got dtype: {input.dtype}")
    return input


def _channel_view(input, axis, *params):
    """``input`` with ``axis`` swapped to the front, the permutation (its own inverse), and the per-channel
    parameters shaped to broadcast along it."""
    if axis >= input.dim():
        raise AssertionError(f"Expecting axis to be < {input.dim()}")
    order = list(range(input.dim()))
    order[0], order[axis] = axis, 0
    shape = [params[0].shape[0]] + [1] * (input.dim() - 1)
    return input.permute(order), order, [None if p is None else p.view(shape) for p in params]


quantized_decomposed_lib.define("quantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, "
                                "int quant_max, ScalarType dtype) -> Tensor")


@impl(quantized_decomposed_lib, "quantize_per_tensor", "CompositeExplicitAutograd")
def quantize_per_tensor(input, scale, zero_point, quant_min, quant_max, dtype):
    input = _as_float32(input)
    _quant_min_max_bounds_check(quant_min, quant_max, dtype)
    return fn.clamp(fn.round(input * (1.0 / scale)) + zero_point, quant_min, quant_max).to(dtype)


quantized_decomposed_lib.define("dequantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, "
                                "int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor")


@impl(quantized_decomposed_lib, "dequantize_per_tensor", "CompositeExplicitAutograd")
def dequantize_per_tensor(input, scale, zero_point, quant_min, quant_max, dtype, *, out_dtype=None):
    if input.dtype != dtype:
        raise AssertionError(f"Expecting input to have dtype: {dtype}, but got {input.dtype}")
    if dtype not in _DTYPE_TO_QVALUE_BOUNDS:
        raise ValueError(f"Unsupported dtype in dequantize_per_tensor: {dtype}")
    return (input.to(out_dtype or float32) - zero_point) * scale


quantized_decomposed_lib.define("quantize_per_channel(Tensor input, Tensor scales, Tensor zero_points, int axis, "
                                "int quant_min, int quant_max, ScalarType dtype) -> Tensor")


@impl(quantized_decomposed_lib, "quantize_per_channel", "CompositeExplicitAutograd")
def quantize_per_channel(input, scales, zero_points, axis, quant_min, quant_max, dtype):
    input = _as_float32(input)
    moved, order, (scales, zero_points) = _channel_view(input, axis, scales, zero_points)
    _quant_min_max_bounds_check(quant_min, quant_max, dtype)
    res = fn.clamp(fn.round(moved * (1.0 / scales)) + zero_points, quant_min, quant_max)
    return res.permute(order).to(dtype)


quantized_decomposed_lib.define("dequantize_per_channel(Tensor input, Tensor scales, Tensor? zero_points, int axis, "
                                "int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None) "
                                "-> Tensor")


@impl(quantized_decomposed_lib, "dequantize_per_channel", "CompositeExplicitAutograd")
def dequantize_per_channel(input, scales, zero_points, axis, quant_min, quant_max, dtype, *, out_dtype=None):
    if input.dtype != dtype:
        raise AssertionError(f"Expecting input to have dtype: {dtype}, but got dtype: {input.dtype}")
    if axis >= input.dim():
        raise AssertionError(f"Expecting axis to be < {input.dim()}")
    _quant_min_max_bounds_check(quant_min, quant_max, dtype)
    moved, order, (scales, zero_points) = _channel_view(input, axis, scales, zero_points)
    res = (moved - zero_points) * scales if zero_points is not None else moved * scales
    return res.to(out_dtype or float32).permute(order)
