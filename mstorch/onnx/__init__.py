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

__all__ = ["errors", "export", "is_in_onnx_export", "OnnxExporterError"]

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


def is_in_onnx_export():
    """Mirrors torch.onnx.is_in_onnx_export: True only while an export traces the model, never in mstorch."""
    return False
