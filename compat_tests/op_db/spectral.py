"""Samples for window functions and stft/istft (mstorch/ops/spectral.py)."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E

X = rand(20)
X2 = rand(2, 33)
C = (rand(20) + 1j * rand(20, seed=3)).astype(np.complex64)


def _win(name, n, **kw):
    return lambda T: getattr(T, name)(n, **kw)


def _spec(x, n_fft, **kw):
    """A complex stft of ``x`` as istft's input (computed in each library)."""
    return lambda T: T.stft(T.tensor(x), n_fft, return_complex=True,
                            **{k: v(T) if callable(v) else v for k, v in kw.items()})


def _windows(name, extra=()):
    return OpInfo(name, grad=False, method=False, samples=[
        S(5), S(5, periodic=False), S(1), S(0), S(9, dtype=_dt("float64")), S(8, False), S(3, requires_grad=True),
        *extra,
        E(-1), E(4, dtype=_dt("int64")), E(4, dtype=_dt("complex64")), E(4.0)])


def _dt(name):
    return lambda T: getattr(T, name)


def _half_windows(name):
    # torch computes in the 16-bit type, rounding every step (its bfloat16 windows are not even symmetric);
    # mstorch rounds the float64 value once: up to two units of the type apart
    return OpInfo(name, grad=False, method=False, rtol=0, atol=1e-2, samples=[
        S(7, dtype=_dt("float16")), S(12, False, dtype=_dt("bfloat16"))])


OPS = [
    _windows("hann_window"), _half_windows("hann_window"),
    _windows("hamming_window", [S(9, False, 0.5, 0.4), S(9, True, 0.6), E(9, alpha=0.5)]), _half_windows("hamming_window"),
    _windows("blackman_window"), _half_windows("blackman_window"),
    _windows("bartlett_window"), _half_windows("bartlett_window"),
    _windows("kaiser_window", [S(8, False, 3.), S(6, True, 0.5), E(6, beta=0.5)]), _half_windows("kaiser_window"),
    OpInfo("stft", rtol=1e-4, atol=1e-5, samples=[
        S(X, 8, return_complex=True), S(X, 8, return_complex=False),
        S(X, 8, window=_win("hann_window", 8), return_complex=True, normalized=True),
        S(X2, 8, hop_length=3, window=_win("hann_window", 6), win_length=6, return_complex=True, center=False),
        S(X2, 8, hop_length=3, window=_win("hann_window", 6), win_length=6, return_complex=True, center=False,
          align_to_window=True),
        S(X2, 8, hop_length=3, win_length=5, return_complex=False, center=False, align_to_window=True),
        S(X2, 8, win_length=4, return_complex=True, pad_mode="constant", onesided=False),
        S(X, 4, return_complex=True, pad_mode="replicate"),
        S(lambda T: T.tensor(C), 4), S(lambda T: T.tensor(C), 4, center=False, return_complex=False),
        # half input: a float32/float64 window promotes the frames before the FFT (else torch refuses)
        S(lambda T: T.tensor(X).half(), 8, window=_win("hann_window", 8), return_complex=True, normalized=True),
        S(lambda T: T.tensor(X2).bfloat16(), 8, window=lambda T: T.hann_window(6, dtype=T.float64), win_length=6,
          return_complex=True),
        E(lambda T: T.tensor(X).bfloat16(), 8, return_complex=True),
        E(lambda T: T.tensor(X).half(), 8, window=lambda T: T.hann_window(8, dtype=T.float16), return_complex=True),
        E(X, 8), E(X, 30, return_complex=True, center=False), E(X, 0, return_complex=True),
        E(X, 8, hop_length=0, return_complex=True), E(X, 8, win_length=9, return_complex=True),
        E(X, 8, window=_win("ones", 7), return_complex=True), E(rand(2, 2, 5), 4, return_complex=True),
        E(lambda T: T.arange(20), 4, return_complex=True), E(lambda T: T.tensor(C), 4, onesided=True),
        E(X, 4, return_complex=True, pad_mode="bogus"), E(X2, 8, win_length=4, return_complex=True, align_to_window=True)]),
    OpInfo("istft", rtol=1e-4, atol=1e-5, samples=[
        S(_spec(X2, 8, window=_win("hann_window", 8)), 8, window=_win("hann_window", 8)),
        S(_spec(X, 8, window=_win("hann_window", 8), normalized=True), 8, window=_win("hann_window", 8),
          normalized=True, length=25),
        S(_spec(X, 8), 8), S(_spec(X, 8, onesided=False), 8, length=17),
        S(_spec(X, 8, onesided=False), 8, return_complex=True),
        S(_spec(X2, 8, hop_length=2, window=_win("hamming_window", 8), center=False), 8, hop_length=2,
          window=_win("hamming_window", 8), center=False, length=30),
        E(_spec(X, 8), 8, return_complex=True), E(_spec(X, 8), 6), E(X, 8),
        E(_spec(X, 8), 8, window=_win("hann_window", 8), center=False)]),
]
