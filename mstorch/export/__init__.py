"""torch.export on mstorch: the names exist, a program cannot be exported.

``torch.export`` traces a model into an ATen graph through dynamo and torch's dispatcher (fake tensors,
symbolic shapes, decompositions); mstorch runs ops eagerly on MindSpore and has none of that machinery, and
MindSpore's own graph capture (``mindspore.jit``) rejects the Python control flow mstorch Modules run. What
libraries touch without exporting works: the types (``ExportedProgram`` in annotations and ``isinstance``,
``CustomDecompTable``), and the ``Dim`` specifications a script builds for ``dynamic_shapes``. ``export``,
``save``, ``load``, ``draft_export`` raise ``NotImplementedError`` naming the API; see docs/known-differences.md."""
import dataclasses
import enum

from ..ops._registry import unsupported

__all__ = ["Dim", "ExportedProgram", "CustomDecompTable", "export", "save", "load", "draft_export",
           "default_decompositions"]

REASON = ("mstorch cannot export a program: torch.export traces through dynamo and torch's dispatcher (fake "
          "tensors, symbolic shapes, ATen decompositions), which mstorch's eager MindSpore ops do not have")


def refuse(api):
    return NotImplementedError(f"torch.{api} is not supported by mstorch: {REASON}")


class ExportedProgram:
    """Mirrors torch.export.ExportedProgram as a type (annotations, ``isinstance``); making one raises."""

    mstorch_difference = "the type exists for annotations and isinstance checks; no program is ever exported"

    def __init__(self, *args, **kwargs):
        raise refuse("export.ExportedProgram")


class CustomDecompTable(dict):
    """Mirrors torch.export.decomp_utils.CustomDecompTable as a type; building one (torch fills it with ATen's
    decompositions) raises."""

    mstorch_difference = "the type exists for annotations and isinstance checks; building the table raises"

    def __init__(self):
        raise refuse("export.decomp_utils.CustomDecompTable")


class _DimHintType(enum.Enum):
    AUTO = enum.auto()
    STATIC = enum.auto()
    DYNAMIC = enum.auto()


@dataclasses.dataclass
class _DimHint:
    """torch's dynamic-shape hint (``Dim.AUTO``, ``Dim.DYNAMIC(max=64)``): calling a factory hint bounds it."""
    type: _DimHintType
    min: int = None
    max: int = None
    _factory: bool = True

    def __call__(self, min=None, max=None):
        if not self._factory:
            raise TypeError(f"'{type(self)}' object is not callable")
        if min is not None and min < 0:
            raise AssertionError(f"min must be non-negative, got {min}")
        if max is not None and max < 0:
            raise AssertionError(f"max must be non-negative, got {max}")
        if min is not None and max is not None and min > max:
            raise AssertionError(f"min must be <= max, got min={min}, max={max}")
        return _DimHint(self.type, min=min, max=max, _factory=False)

    def __repr__(self):
        parts = [self.type.name] + [f"{k}={v}" for k, v in (("min", self.min), ("max", self.max)) if v is not None]
        return f"DimHint({', '.join(parts)})"


class Dim:
    """Mirrors torch.export.Dim: a named dimension with a range, or a hint (``Dim.AUTO``, ``Dim.STATIC``,
    ``Dim.DYNAMIC``). Linear relations between dims (``2 * d + 1``) are not modelled: they only mean something to
    an exporter, which mstorch lacks."""

    AUTO = _DimHint(_DimHintType.AUTO)
    DYNAMIC = _DimHint(_DimHintType.DYNAMIC)
    STATIC = _DimHint(_DimHintType.STATIC)

    def __init__(self, name, *, min=None, max=None):
        lo = 0 if min is None else min
        hi = float("inf") if max is None else max   # torch's int_oo: above every int
        if not hi > lo:
            raise AssertionError(f"Cannot create Dim with inconsistent min={min}, max={max}")
        if not name.isidentifier():
            raise AssertionError(f"Dim name must be a valid identifier, got {name}")
        self.__name__, self.min, self.max = name, lo, hi

    def __repr__(self):
        # torch leaves out min=2 (export's default lower bound for a dynamic size) and an unbounded max
        bounds = [f"{k}={v}" for k, v in (("min", self.min), ("max", self.max))
                  if not (k == "min" and v == 2) and v != float("inf")]
        return f"Dim('{self.__name__}'" + "".join(", " + b for b in bounds) + ")"


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict=False, preserve_module_call_signature=(),
           prefer_deferred_runtime_asserts_over_guards=False):
    raise refuse("export.export")


def draft_export(mod, args, kwargs=None, *, dynamic_shapes=None, preserve_module_call_signature=(), strict=False):
    raise refuse("export.draft_export")


def save(ep, f, *, extra_files=None, opset_version=None, pickle_protocol=2):
    raise refuse("export.save")


def load(f, *, extra_files=None, expected_opset_version=None):
    raise refuse("export.load")


def default_decompositions():
    raise refuse("export.default_decompositions")


for _name in ("export", "draft_export", "save", "load", "default_decompositions"):
    unsupported(f"export.{_name}", REASON)
ExportedProgram.__module__ = "torch.export.exported_program"
CustomDecompTable.__module__ = "torch.export.decomp_utils"
Dim.__module__ = "torch.export.dynamic_shapes"
