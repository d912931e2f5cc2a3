"""Every module of timm, torchvision, accelerate, peft and sentence-transformers imports through
``python -m mstorch run`` with torch hidden exactly where it imports on the real torch: the same modules fail, with
the same exception type (optional dependencies that are not installed: datasets, tensorflow, bitsandbytes, rich,
attrs; torchvision's compiled extensions). transformers (~2,000 modules, minutes) is walked by hand with the same
script; its models are exercised in test_transformers."""

SCRIPT = r'''
import importlib, json, pkgutil, sys, types, warnings
import torch
if torch.__name__ == "torch":   # torchvision's CUDA build: its compiled ops do not load beside the CPU torch
    sys.modules["torchvision._meta_registrations"] = types.ModuleType("torchvision._meta_registrations")
warnings.simplefilter("ignore")
failures, count = {}, 0
for pkg in ("timm", "torchvision", "accelerate", "peft", "sentence_transformers"):
    for info in pkgutil.walk_packages(importlib.import_module(pkg).__path__, pkg + "."):
        if any(part in info.name for part in (".tests", "test_utils.scripts", ".commands")):
            continue   # test scripts and command-line entry points run code (or exit) when imported
        count += 1
        try:
            importlib.import_module(info.name)
        except BaseException as e:  # noqa: BLE001 - the failure is the result
            failures[info.name] = type(e).__name__
print(json.dumps({"modules": count, "failures": failures}))
'''


def test_every_module_imports_where_torch_does(torch_and_mstorch):
    ref, got = torch_and_mstorch(SCRIPT)
    assert ref["modules"] > 900
    assert got == ref
