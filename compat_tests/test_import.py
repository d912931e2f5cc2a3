"""`import mstorch` must not import torch, and must not need it installed."""
import subprocess
import sys


def test_import_does_not_import_torch():
    code = "import sys, mstorch; x = mstorch.ones(2) + 1; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "False"


def test_import_without_torch_installed():
    # a meta-path finder that refuses torch stands in for an environment without it
    code = ("import sys\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'torch' or name.startswith('torch.'):\n"
            "            raise ImportError('torch is blocked')\n"
            "sys.meta_path.insert(0, Block())\n"
            "import mstorch\n"
            "print(mstorch.tensor([1.0, 2.0]).sum().item())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "3.0"


def test_tensorboard_needs_its_package_as_in_torch():
    """torch.utils.tensorboard imports the tensorboard package first: without it (hidden here, as on a machine
    that lacks it) both raise the same error."""
    import importlib
    import sys
    saved = {k: sys.modules.pop(k) for k in list(sys.modules)
             if k.split(".")[0] == "tensorboard" or k.startswith(("torch.utils.tensorboard", "mstorch.utils.tensorboard"))}
    sys.modules["tensorboard"] = None   # (import tensorboard raises ModuleNotFoundError)
    try:
        errors = []
        for name in ("torch.utils.tensorboard", "mstorch.utils.tensorboard"):
            try:
                importlib.import_module(name)
            except ImportError as exc:
                errors.append((type(exc), str(exc)))
    finally:
        del sys.modules["tensorboard"]
        for k in [k for k in sys.modules if k.startswith(("torch.utils.tensorboard", "mstorch.utils.tensorboard"))]:
            del sys.modules[k]
        sys.modules.update(saved)
    assert len(errors) == 2 and errors[0] == errors[1], errors


def test_nested_tensors_refuse_by_name():
    """torch.nested's names exist in torch; mstorch names each and the reason when it is reached."""
    import pytest
    import mstorch
    import torch
    for name in ("nested_tensor", "as_nested_tensor", "nested_tensor_from_jagged", "to_padded_tensor"):
        assert callable(getattr(torch.nested, name))
        with pytest.raises(AttributeError, match=f"torch.nested.{name} is not provided by mstorch: nested"):
            getattr(mstorch.nested, name)
