"""Regression tests against torch for the differential fuzzer's third batch (issue 18): MindSpore kernels
that kill the process, and wrong-exception classes (raising where torch returns, returning where torch
raises, another exception type)."""
import math
import subprocess
import sys

import pytest

from harness import check

nan, inf = math.nan, math.inf


# --- kernels that crash the process: each case runs in a fresh process first ----------------------

def _survives(src):
    """``src`` (an expression on ``T``) run with mstorch in a fresh process: the exit status is 0 when the
    process survives (a crash would otherwise take the test run down with it)."""
    code = f"import mstorch as T\ntry:\n    {src}\nexcept Exception:\n    pass\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=600).returncode


@pytest.mark.parametrize("src", [
    "T.linalg.eigvals(T.zeros((0, 0), dtype=T.float64))",   # SIGFPE in the Eig kernel
    "T.linalg.eigvals(T.zeros((2, 0, 0)))",
    "T.linalg.eig(T.zeros((0, 0)))",
])
def test_eig_empty_does_not_crash(src):
    assert _survives(src) == 0
    check(lambda T: eval(src, {"T": T}))   # noqa: S307 - a fixed source, run on both libraries


@pytest.mark.parametrize("fn", [lambda T, z: T.conj_physical(z[::2]), lambda T, z: T.isreal(z),
                                lambda T, z: z.real, lambda T, z: z.imag, lambda T, z: T.conj(z).resolve_conj()])
def test_empty_complex_parts(fn):
    # MindSpore's Conj/Real/Imag kernels refuse empty input ("got empty inputs or outputs")
    check(lambda T: fn(T, T.zeros((0, 2), dtype=T.complex64)))
