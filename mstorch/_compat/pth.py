"""The opt-in environment-wide alias: a ``.pth`` file in site-packages installs the import hook in every
interpreter of this environment (notebooks, third-party libraries). ``MSTORCH_DISABLE_ALIAS=1`` turns it
off for one process; ``python -m mstorch alias off`` removes the file."""
import os
import pathlib
import sysconfig

PTH_NAME = "mstorch-torch-alias.pth"
_LINE = ("import os; os.environ.get('MSTORCH_DISABLE_ALIAS', '0') in ('', '0') and "
         "__import__('mstorch._compat.alias', fromlist=['install']).install()\n")


def pth_path():
    return pathlib.Path(sysconfig.get_paths()["purelib"]) / PTH_NAME


def enable():
    path = pth_path()
    path.write_text(_LINE)
    return path


def disable():
    path = pth_path()
    if path.exists():
        path.unlink()
        return path
    return None


def is_enabled():
    return pth_path().exists() and os.environ.get("MSTORCH_DISABLE_ALIAS", "0") in ("", "0")
