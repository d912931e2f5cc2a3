"""Regression tests against torch for silent-wrong classes the differential fuzzer found (issue 18,
ninth batch, spectral): a float64 stft with torch's float32 window. stft itself ran in float64; the
float32 window held the exact window rounded once, where torch's holds its float32 arithmetic (the
angle rounded to float32 before the cosine: several units in the last place apart), and istft added
the overlapping frames in another order than torch (a float32 window's envelope rounded differently)."""
import warnings

import numpy as np
import pytest

from harness import check

SIG = [-1.7, -0.1, -1.1, -0.2, -0.8, 1.3, -0.8, -1.0, 1.5, -1.4, -0.3, 1.3, -1.6, -0.2, -0.2, 0.6, -1.5, -1.6,
       0.8, 0.3]
X2 = np.random.RandomState(1).standard_normal((2, 40))
TIGHT = dict(rtol=1e-12, atol=1e-12)
# torch's own float32 cos is not always correctly rounded: one unit in the last place (of 1.0) apart
F32 = dict(rtol=1.2e-7, atol=6e-8)
COSINE = ("hann_window", "hamming_window", "blackman_window")


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_stft_float64_signal_float32_window():
    check(lambda T: T.tensor(SIG, dtype=T.float64).stft(8, window=T.hann_window(8), return_complex=True,
                                                       normalized=True), **TIGHT)


@pytest.mark.parametrize("name", COSINE + ("bartlett_window",))
def test_stft_float64_signal_float32_windows(name):
    check(lambda T: T.stft(T.tensor(X2), 8, hop_length=3, window=getattr(T, name)(8), return_complex=True),
          **TIGHT)


def test_stft_float64_without_window():
    check(lambda T: T.stft(T.tensor(SIG, dtype=T.float64), 8, return_complex=True), **TIGHT)
    check(lambda T: T.stft(T.tensor(X2), 8, win_length=6, return_complex=True, onesided=False), **TIGHT)


@pytest.mark.parametrize("name", COSINE + ("bartlett_window", "kaiser_window"))
def test_stft_float64_window(name):
    check(lambda T: T.stft(T.tensor(X2), 8, hop_length=2, window=getattr(T, name)(8, dtype=T.float64),
                           return_complex=True, normalized=True), **TIGHT)


def test_stft_complex128():
    check(lambda T: T.stft(T.tensor(X2).to(T.complex128) * (1 + 0.5j), 8,
                           window=T.hann_window(8, dtype=T.float64), return_complex=True), **TIGHT)


def test_stft_float64_backward():
    def f(T):
        x = T.tensor(X2, requires_grad=True)
        s = T.stft(x, 8, hop_length=2, window=T.hann_window(8, dtype=T.float64), return_complex=True,
                   normalized=True)
        (s.real * T.arange(s.numel(), dtype=T.float64).reshape(s.shape)).sum().backward()
        return s.detach(), x.grad
    check(f, **TIGHT)


def _spec(T, window):
    return T.stft(T.tensor(X2), 8, hop_length=2, window=window, return_complex=True, normalized=True)


@pytest.mark.parametrize("f32_window", [False, True])
def test_istft_float64(f32_window):
    def f(T):
        w = T.hann_window(8) if f32_window else T.hann_window(8, dtype=T.float64)
        return T.istft(_spec(T, T.hann_window(8, dtype=T.float64)), 8, hop_length=2, window=w, normalized=True)
    check(f, **TIGHT)


def test_istft_complex128_return_complex():
    def f(T):
        w = T.hann_window(8, dtype=T.float64)
        s = T.stft(T.tensor(X2).to(T.complex128) * (1 + 0.5j), 8, window=w, return_complex=True)
        return T.istft(s, 8, window=w, return_complex=True, onesided=False)
    check(f, **TIGHT)


def test_istft_float64_backward():
    def f(T):
        s = _spec(T, T.hann_window(8, dtype=T.float64)).detach().requires_grad_(True)
        y = T.istft(s, 8, hop_length=2, window=T.hann_window(8, dtype=T.float64), normalized=True)
        (y * T.arange(y.numel(), dtype=T.float64).reshape(y.shape)).sum().backward()
        return y.detach(), s.grad
    check(f, **TIGHT)


@pytest.mark.parametrize("name", COSINE + ("bartlett_window", "kaiser_window"))
@pytest.mark.parametrize("n", [5, 8, 17, 64, 101])
@pytest.mark.parametrize("periodic", [True, False])
def test_window_float64(name, n, periodic):
    check(lambda T: getattr(T, name)(n, periodic, dtype=T.float64), rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("name", COSINE)
@pytest.mark.parametrize("n", [5, 8, 17, 64, 101])
@pytest.mark.parametrize("periodic", [True, False])
def test_window_float32_as_torch_computes_it(name, n, periodic):
    check(lambda T: getattr(T, name)(n, periodic), **F32)


@pytest.mark.parametrize("n", [5, 8, 17, 64, 101, 5000])
@pytest.mark.parametrize("periodic", [True, False])
def test_bartlett_window_float32(n, periodic):
    check(lambda T: T.bartlett_window(n, periodic), rtol=0, atol=0)


@pytest.mark.parametrize("name", COSINE + ("bartlett_window",))
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("n", [7, 8, 12, 100, 5000])
def test_window_half_every_step_rounded(name, dtype, n):
    check(lambda T: getattr(T, name)(n, False, dtype=getattr(T, dtype)), rtol=0, atol=0)
    check(lambda T: getattr(T, name)(n, dtype=getattr(T, dtype)), rtol=0, atol=0)
