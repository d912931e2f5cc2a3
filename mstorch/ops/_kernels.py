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

The device path (docs/design.md, "Device path"): an op whose MindSpore CPU kernel is wrong fixes its result
with a look at the values on the host (a NaN scan, a row-sum check, an index-range check). On a device
each such look is a copy and a sync, so there the op runs kernels only. ``HOST_WORKAROUNDS`` is that
choice for this process (``_runtime.host_workarounds()``: True on CPU, False on GPU/Ascend and under
``MSTORCH_DEVICE_PATH=1``), read once when a family file binds its implementation, e.g.::

    has_nan = _has_nan_host if kernels.HOST_WORKAROUNDS else _may_have_nan

``CHECK_INDICES`` says whether index ranges are validated (torch's CPU kernels do; its CUDA kernels do
not, and neither does the device path unless ``MSTORCH_CHECK_INDICES=1``).
"""
import contextlib

from .. import _runtime
from . import _kernel_choice

HOST_WORKAROUNDS = _runtime.host_workarounds()
CHECK_INDICES = _runtime.check_indices()

CANDIDATES: dict = {}   # key -> {candidate name: function}, the native kernel first
ACTIVE: dict = {}       # key -> the function in use


def chosen_name(key, device=None):
    """The candidate the table picks for ``key`` on ``device`` (default: the current device target; the
    device path on CPU runs what a device runs, the native kernel)."""
    names = CANDIDATES[key]
    if device is None and not HOST_WORKAROUNDS:
        return next(iter(names))
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
