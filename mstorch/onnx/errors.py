"""Mirrors torch.onnx.errors: the exporter's exception and warning classes."""
from __future__ import annotations

__all__ = ["OnnxExporterError", "OnnxExporterWarning", "SymbolicValueError", "UnsupportedOperatorError"]


class OnnxExporterWarning(UserWarning):
    """Mirrors torch.onnx.errors.OnnxExporterWarning."""


class OnnxExporterError(RuntimeError):
    """Mirrors torch.onnx.OnnxExporterError."""


OnnxExporterError.__module__ = "mstorch.onnx"


class UnsupportedOperatorError(OnnxExporterError):
    """Mirrors torch.onnx.errors.UnsupportedOperatorError."""


class SymbolicValueError(OnnxExporterError):
    """Mirrors torch.onnx.errors.SymbolicValueError."""
