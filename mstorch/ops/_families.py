"""Import every op family file in this package, so adding a family is adding a file."""
import importlib
import pkgutil

from . import __path__ as _path

for _info in sorted(pkgutil.iter_modules(_path), key=lambda m: m.name):
    if not _info.name.startswith("_"):
        importlib.import_module(f"{__package__}.{_info.name}")
