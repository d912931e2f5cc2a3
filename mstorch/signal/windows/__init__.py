"""torch.signal.windows: SciPy-style window functions (``M`` points, ``sym=False`` for the periodic form).

Computed in float64 on the host from each window's definition and rounded once to float32/float64 (torch
evaluates the same formulas in the requested dtype: the values agree to its last bit or so).
"""
import math

import numpy as np

from ... import _dtype as D

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
           "hamming", "hann", "kaiser", "nuttall"]


def _checks(name, M, dtype, layout):
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and repr(layout) != "torch.strided":
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (D.float32, D.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")


def _make(name, M, sym, dtype, layout, device, requires_grad, values):
    """``values(n, N)`` evaluates the window at points ``n`` of an ``N``-point symmetric window."""
    import mstorch
    dtype = D.get_default_dtype() if dtype is None else dtype
    _checks(name, M, dtype, layout)
    if M <= 1:
        return mstorch.ones(M, dtype=dtype, device=device, requires_grad=requires_grad)
    N = M if sym else M + 1
    w = values(np.arange(M, dtype=np.float64), N)
    return mstorch.tensor(np.asarray(w, dtype._np), dtype=dtype, device=device, requires_grad=requires_grad)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")

    def values(n, N):
        c = (N - 1) / 2.0 if center is None else center
        return np.exp(-np.abs(n - c) / tau)
    return _make("exponential", M, sym, dtype, layout, device, requires_grad, values)


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return _make("cosine", M, sym, dtype, layout, device, requires_grad,
                 lambda n, N: np.sin(math.pi * (n + 0.5) / N))


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    return _make("gaussian", M, sym, dtype, layout, device, requires_grad,
                 lambda n, N: np.exp(-((n - (N - 1) / 2.0) / std) ** 2 / 2))


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")

    def values(n, N):
        a = (N - 1) / 2.0
        return np.i0(beta * np.sqrt(np.maximum(1 - ((n - a) / a) ** 2, 0))) / np.i0(beta)
    return _make("kaiser", M, sym, dtype, layout, device, requires_grad, values)


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    if not isinstance(a, (list, tuple)):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    return _make("general_cosine", M, sym, dtype, layout, device, requires_grad,
                 lambda n, N: sum((-1) ** i * w * np.cos(2 * math.pi * i * n / (N - 1)) for i, w in enumerate(a)))


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return _make("bartlett", M, sym, dtype, layout, device, requires_grad,
                 lambda n, N: 1 - np.abs(2 * n / (N - 1) - 1))
