"""Implementation candidates of an op on one device, and the measured choice among them.

Some MindSpore CPU paths are far slower than another composition giving the same values (DESIGN.md,
"Measured in round 2"). A family file names the candidates of such an op once::

    _CONV = kernels.candidates("conv", native=_conv_native, im2col=_conv_im2col)
    ...
    return kernels.ACTIVE["conv"](x, w, b, ...)

``tools/choose_kernels.py`` times every candidate on the host (interleaved, shuffled, medians) after
checking it against torch, and writes the winners per device target to ``_kernel_choice.py``; that
generated table is read here when the family file is imported. A device the table does not name (GPU,
Ascend: MindSpore's native kernels) gets the first candidate listed, which is always the native one.
``compat_tests/test_kernel_choice.py`` runs every candidate against torch through ``forced``.
"""
import contextlib

from .. import _runtime
from . import _kernel_choice

CANDIDATES: dict = {}   # key -> {candidate name: function}, the native kernel first
ACTIVE: dict = {}       # key -> the function in use


def chosen_name(key, device=None):
    """The candidate the table picks for ``key`` on ``device`` (default: the current device target)."""
    names = CANDIDATES[key]
    name = _kernel_choice.CHOICES.get(device or _runtime.device_target() or "", {}).get(key)
    return name if name in names else next(iter(names))


def candidates(key, **fns):
    if key in CANDIDATES:
        raise RuntimeError(f"kernel candidates for {key!r} registered twice")
    CANDIDATES[key] = fns
    ACTIVE[key] = fns[chosen_name(key)]
    return fns


@contextlib.contextmanager
def forced(key, name):
    """Run ``key`` on candidate ``name`` inside the block (the candidate tests and the chooser)."""
    previous = ACTIVE[key]
    ACTIVE[key] = CANDIDATES[key][name]
    try:
        yield
    finally:
        ACTIVE[key] = previous
