"""Mirrors torch.onnx.operators: shape helpers that ONNX export traces as ``Shape``/``Reshape`` nodes; eagerly they
are the shape as a tensor and a reshape by one (torchvision's detection transforms call them)."""
from .._functions import _reshape_from_tensor as reshape_from_tensor_shape, _shape_as_tensor as shape_as_tensor

__all__ = ["shape_as_tensor", "reshape_from_tensor_shape"]
