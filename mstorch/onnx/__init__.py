"""torch.onnx: the namespace scripts import, the enums they pass, and ``export``, which raises.

mstorch cannot write ONNX files. MindSpore's exporter (``mindspore.onnx.export``) compiles a Cell's
``construct`` in graph mode from its Python source; an mstorch Module runs torch's semantics in Python op
by op (argument checks, ``try`` blocks, host-side validation), which MindSpore's graph compiler rejects
("Unsupported statement 'Try'"), so no mstorch model compiles for it. A native ``mindspore.nn.Cell``
exports with ``mindspore.onnx.export`` directly. See docs/known-differences.md.
"""
from __future__ import annotations

import enum

from ..ops._registry import unsupported
from . import errors
from .errors import OnnxExporterError

__all__ = ["errors", "export", "is_in_onnx_export", "OnnxExporterError", "ONNXProgram"]

producer_name = "pytorch"


class _PybindStyleEnum(enum.Enum):
    # torch's are pybind11 enums: repr <TrainingMode.EVAL: 0>, int() works, no equality with ints
    def __int__(self):
        return self.value

    def __index__(self):
        return self.value


class TrainingMode(_PybindStyleEnum):
    """Mirrors torch.onnx.TrainingMode."""
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(_PybindStyleEnum):
    """Mirrors torch.onnx.OperatorExportTypes."""
    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


_REASON = ("MindSpore's ONNX exporter compiles a Cell's construct in graph mode, and mstorch Modules run "
           "torch's semantics op by op in Python, which its graph compiler rejects; export a native "
           "mindspore.nn.Cell with mindspore.onnx.export instead")


class ONNXProgram:
    """Mirrors torch.onnx.ONNXProgram as a type (annotations, ``isinstance``): export never makes one here."""

    mstorch_difference = "the type exists for annotations and isinstance checks; no program is ever exported"

    def __init__(self, model, exported_program):
        raise NotImplementedError(f"mstorch: torch.onnx.ONNXProgram is not supported: {_REASON}")


ONNXProgram.__module__ = "torch.onnx"


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None, output_names=None,
           opset_version=None, dynamo=True, external_data=True, dynamic_shapes=None,
           custom_translation_table=None, report=False, optimize=True, verify=False, profile=False,
           dump_exported_program=False, artifacts_dir=".", export_params=True,
           keep_initializers_as_inputs=False, dynamic_axes=None, training=TrainingMode.EVAL,
           operator_export_type=OperatorExportTypes.ONNX, do_constant_folding=True, custom_opsets=None,
           export_modules_as_functions=False, autograd_inlining=True):
    """torch.onnx.export: not supported (see the module docstring)."""
    raise NotImplementedError(f"mstorch: torch.onnx.export is not supported: {_REASON}")


unsupported("onnx.export", "no ONNX export: " + _REASON)


class TensorProtoDataType(_PybindStyleEnum):
    """ONNX element types (onnx.TensorProto.DataType), as torch.onnx names them."""
    UNDEFINED = 0
    FLOAT = 1
    UINT8 = 2
    INT8 = 3
    UINT16 = 4
    INT16 = 5
    INT32 = 6
    INT64 = 7
    STRING = 8
    BOOL = 9
    FLOAT16 = 10
    DOUBLE = 11
    UINT32 = 12
    UINT64 = 13
    COMPLEX64 = 14
    COMPLEX128 = 15
    BFLOAT16 = 16


_custom_symbolics = {}   # (name, opset) -> symbolic function, for an exporter mstorch does not have


def register_custom_op_symbolic(symbolic_name, symbolic_fn, opset_version):
    """torch.onnx.register_custom_op_symbolic: kept for the exporter (which raises); libraries register
    symbolics for their custom operators at import (torchvision)."""
    if symbolic_name.startswith("::"):
        raise ValueError(f"Failed to register operator {symbolic_name}. The symbolic name must match the format "
                         "domain::name, and should start with a letter and contain only alphanumerical characters")
    _custom_symbolics[(symbolic_name, opset_version)] = symbolic_fn


def unregister_custom_op_symbolic(symbolic_name, opset_version):
    _custom_symbolics.pop((symbolic_name, opset_version), None)


def is_in_onnx_export():
    """Mirrors torch.onnx.is_in_onnx_export: True only while an export traces the model, never in mstorch."""
    return False
