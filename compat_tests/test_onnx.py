"""torch.onnx: the namespace imports, its enums, errors and queries match torch; ``export`` raises a clear
error in mstorch (docs/known-differences.md), while torch exports."""
import subprocess
import sys
import textwrap

import pytest
import torch
import torch.onnx

import mstorch

from harness import check

# exporter-only classes and the custom-op namespace: there is no exporter behind them in mstorch (ONNXProgram
# exists as a type that refuses to be made, for libraries that import it: tested below)
NOT_PROVIDED = {"ExportableModule", "InputObserver", "ops"}


@pytest.mark.parametrize("name", sorted(torch.onnx.__all__))
def test_public_names(name):
    if name in NOT_PROVIDED:
        assert not hasattr(mstorch.onnx, name)
    else:
        assert hasattr(mstorch.onnx, name)


@pytest.mark.parametrize("enum_name", ["TrainingMode", "OperatorExportTypes"])
def test_enums(enum_name):
    def fn(T):
        cls = getattr(T.onnx, enum_name)
        members = list(cls.__members__.items())
        return ([(k, repr(v), str(v), v.name, v.value, int(v), v == v.value) for k, v in members],
                cls.__name__)
    check(fn)


def test_queries_and_errors():
    def fn(T):
        e = T.onnx.errors
        return (T.onnx.is_in_onnx_export(), T.onnx.OnnxExporterError is e.OnnxExporterError,
                [c.__name__ for c in e.SymbolicValueError.__mro__[1:]],
                [c.__name__ for c in e.UnsupportedOperatorError.__mro__[1:]],
                [c.__name__ for c in e.OnnxExporterWarning.__mro__[1:]], T.onnx.producer_name)
    check(fn)


def test_export_names_the_api(tmp_path):
    with pytest.raises(NotImplementedError, match=r"torch\.onnx\.export .*graph mode"):
        mstorch.onnx.export(mstorch.nn.Linear(2, 2), (mstorch.ones(1, 2),), str(tmp_path / "m.onnx"))
    assert not (tmp_path / "m.onnx").exists()


def test_import_torch_onnx_under_the_launcher(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent("""
        import torch
        import torch.onnx
        from torch.onnx import TrainingMode, OperatorExportTypes
        print(torch.onnx.is_in_onnx_export(), TrainingMode.EVAL, OperatorExportTypes.ONNX)
    """))
    ref = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    got = subprocess.run([sys.executable, "-m", "mstorch", "run", str(script)], capture_output=True, text=True,
                         timeout=300)
    assert ref.returncode == 0 and got.returncode == 0, got.stderr[-2000:]
    assert got.stdout == ref.stdout


def test_onnx_program_is_a_type_that_refuses():
    assert isinstance(mstorch.onnx.ONNXProgram, type)
    with pytest.raises(NotImplementedError, match="ONNXProgram"):
        mstorch.onnx.ONNXProgram(None, None)

