"""Window functions and the short-time Fourier transform: hann/hamming/blackman/bartlett/kaiser_window,
stft, istft.

The cosine and Bartlett windows are computed on the host by torch's own sequence of operations, each
rounded to the requested dtype as torch's kernels round it (arange, times the scalar step, cos, times and
plus the coefficients; float16 and bfloat16 through float32): a float32 window carries torch's float32
rounding of the angle, not the exact window rounded once. Only torch's cos itself (within one unit in the
last place of the dtype) can still differ. ``kaiser_window`` is computed in float64 and rounded once, so
its values can differ from torch's in the last bits. ``stft``/``istft`` are composed of
mstorch ops (pad, unfold, the fft family, fold), so they are differentiable wherever those are:
frames of the (padded) signal times the window, a real or complex FFT over each frame; the inverse
overlap-adds the inverse FFTs and divides by the summed squared window (NOLA), as torch does.
"""
import math

import numpy as np

from .. import _dtype as D
from .._warnings import warn_once
from ._argerr import type_name
from .creation import _finish, _host_to_ms
from .ranges import _arange_values, _round_to
from .random import _CPP_NAMES
from ._registry import PUBLIC, register

F = "spectral"


# --- windows ---------------------------------------------------------------------------------------

def _window_dtype(name, window_length, dtype):
    if not isinstance(window_length, int) or isinstance(window_length, bool):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type_name(window_length)}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    dt = D.get_default_dtype() if dtype is None else dtype
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype={_CPP_NAMES[dt]}, device=cpu, "
            "layout=Strided (default), requires_grad=false (default), pinned_memory=false, "
            "memory_format=(nullopt))")
    if dt.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{D.scalar_type_name(dt)}'")
    return dt


class _Arith:
    """torch's CPU arithmetic in dtype ``dt`` on the host: each op computes in the op-math type (float64
    for float64, float32 otherwise; a Python scalar operand is converted to it) and rounds its result to
    ``dt``. ``r`` is that rounding; values stay in the op-math type."""

    def __init__(self, dt):
        self.dt = dt
        self.ct = np.float64 if dt is D.float64 else np.float32

    def r(self, v):
        return _round_to(np.asarray(v, self.ct), self.dt).astype(self.ct)

    def c(self, x):
        return self.r(x)[()]

    def cos(self, v):
        return self.r(np.cos(np.asarray(v, np.float64)))


def _window(name, window_length, periodic, dtype, requires_grad, device, body):
    dt = _window_dtype(name, window_length, dtype)
    if window_length <= 1:
        values = np.ones(window_length)
    else:
        n = window_length + 1 if periodic else window_length
        a = _Arith(dt)
        values = a.r(body(a.r(_arange_values(0, 1, n, dt)), n, a))[:window_length]   # torch's arange(n, dtype)
    return _finish(_host_to_ms(np.asarray(values), dt), requires_grad, device)


def _overload(name, args, params, defaults):
    """torch's window overloads take their optional parameters in order only: ``beta`` without
    ``periodic`` matches no signature."""
    given = [a is not None for a in args[1:]]
    if any(later and not earlier for earlier, later in zip(given, given[1:])):
        opts = ("torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
                "bool pin_memory = False, bool requires_grad = False")
        sigs = [", ".join(["int window_length"] + list(params[:k])) + ", *, " + opts for k in range(len(params) + 1)]
        shown = [args[0]] + [a for a in args[1:] if a is not None]
        names = [None] + [p.split()[-1] for p, g in zip(params, given) if g]
        got = [type_name(shown[0])] + [f"{n}={type_name(v)}" for n, v in zip(names[1:], shown[1:])]
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({', '.join(got)}), but "
                        "expected one of:\n" + "".join(f" * ({s})\n" for s in sigs))
    return tuple(d if a is None else a for a, d in zip(args[1:], defaults))


def _cosine_sum(k, n, a, alpha, beta):
    # torch: arange(n).mul_(2 pi / (n - 1)).cos_().mul_(-beta).add_(alpha), in the window's dtype
    w = a.cos(a.r(k * a.c(math.pi * 2. / (n - 1))))
    return a.r(a.r(w * a.c(-beta)) + a.c(alpha))


@register("hamming_window", family=F, namespace="torch", raw=True)
def hamming_window(window_length, periodic=None, alpha=None, beta=None, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    periodic, alpha, beta = _overload("hamming_window", (window_length, periodic, alpha, beta),
                                      ("bool periodic", "float alpha", "float beta"), (True, 0.54, 0.46))
    return _window("hamming_window", window_length, periodic, dtype, requires_grad, device,
                   lambda k, n, a: _cosine_sum(k, n, a, alpha, beta))


@register("hann_window", family=F, namespace="torch", raw=True)
def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False,
                pin_memory=False):
    return _window("hann_window", window_length, periodic, dtype, requires_grad, device,
                   lambda k, n, a: _cosine_sum(k, n, a, 0.5, 0.5))


def _blackman(k, n, a):
    # torch: w = arange(n).mul_(pi / (n - 1)); w.mul(4).cos_().mul_(0.08) - w.mul(2).cos_().mul_(0.5) + 0.42
    w = a.r(k * a.c(math.pi / (n - 1)))
    hi = a.r(a.cos(a.r(w * a.c(4))) * a.c(0.08))
    lo = a.r(a.cos(a.r(w * a.c(2))) * a.c(0.5))
    return a.r(a.r(hi - lo) + a.c(0.42))


@register("blackman_window", family=F, namespace="torch", raw=True)
def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False,
                    pin_memory=False):
    return _window("blackman_window", window_length, periodic, dtype, requires_grad, device, _blackman)


def _bartlett(k, n, a):
    # torch: arange(n).mul_(2 / (n - 1)), its second half .mul_(-1).add_(2)
    w = a.r(k * a.c(2. / (n - 1)))
    half = ((n - 1) >> 1) + 1
    w[half:] = a.r(a.r(w[half:] * a.c(-1)) + a.c(2))
    return w


@register("bartlett_window", family=F, namespace="torch", raw=True)
def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False,
                    pin_memory=False):
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, device, _bartlett)


@register("kaiser_window", family=F, namespace="torch", raw=True)
def kaiser_window(window_length, periodic=None, beta=None, *, dtype=None, layout=None, device=None,
                  requires_grad=False, pin_memory=False):
    periodic, beta = _overload("kaiser_window", (window_length, periodic, beta), ("bool periodic", "float beta"),
                               (True, 12.0))
    def body(k, n, a):   # in float64, rounded once to the dtype
        k = np.asarray(k, np.float64)
        alpha = (n - 1) / 2.0
        return np.i0(beta * np.sqrt(np.maximum(1 - ((k - alpha) / alpha) ** 2, 0))) / np.i0(beta)
    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, device, body)


# --- stft / istft ----------------------------------------------------------------------------------

def _type_str(t):
    return f"torch.{D.scalar_type_name(t.dtype)}Tensor"


def _window_str(window):
    return "None" if window is None else f"{_type_str(window)}{{{list(window.shape)}}}"


def _padded_window(window, n_fft, win_length, like):
    if win_length == n_fft:
        return window
    left = (n_fft - win_length) // 2
    w = window if window is not None else PUBLIC["ones"](win_length, dtype=like)
    return PUBLIC["nn.functional.pad"](w, (left, n_fft - win_length - left))


@register("stft", family=F, raw=True)
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        dim = input.dim()
        pad = n_fft // 2
        input = PUBLIC["nn.functional.pad"](input.view([1] * (3 - dim) + list(input.shape)), [pad, pad], pad_mode)
        input = input.view(input.shape[-dim:])
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length

    def fail(msg):
        args = (f"stft({_type_str(input)}{list(input.shape)}, n_fft={n_fft}, hop_length={hop}, win_length={win}, "
                f"window={_window_str(window)}, normalized={int(bool(normalized))}, onesided={_opt(onesided)}, "
                f"return_complex={_opt(return_complex)}, align_to_window={_opt(align_to_window)}) : ")
        return RuntimeError(args + msg)
    is_complex = input.dtype.is_complex or (window is not None and window.dtype.is_complex)
    if return_complex is None:
        if not is_complex:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will "
                               "further require that return_complex=True in a future PyTorch release.")
        return_complex = True
    if not return_complex:
        warn_once("stft with return_complex=False is deprecated. In a future pytorch release, stft will return "
                  "complex tensors for all inputs, and return_complex=False will raise an error.\nNote: you can "
                  "still call torch.view_as_real on the complex output to recover the old return format.")
    if window is None:
        warn_once("A window was not provided. A rectangular window will be applied,which is known to cause "
                  "spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
                  "recommended to reduce spectral leakage.To suppress this warning and use a rectangular window, "
                  "explicitly set `window=torch.ones(n_fft, device=<device>)`.")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise fail("expected a tensor of floating point or complex values")
    if input.dim() not in (1, 2):
        raise fail("expected a 1D or 2D tensor")
    x = input.unsqueeze(0) if input.dim() == 1 else input
    length = x.shape[1]
    if n_fft <= 0 or n_fft > length:
        raise fail(f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise fail(f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise fail(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise fail(f"expected a 1D window tensor of size equal to win_length={win}, but got window with size "
                   f"{list(window.shape)}")
    onesided = not is_complex if onesided is None else onesided
    if onesided and is_complex:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    w = _padded_window(window, n_fft, win, input.dtype if not input.dtype.is_complex else None)
    if not center and align_to_window and win < n_fft:
        # frame t's window starts at sample t * hop_length: the frames start ``left`` samples earlier,
        # outside the signal where the zero-padded window covers them
        left = (n_fft - win) // 2
        count = (length - win) // hop + 1
        x = PUBLIC["nn.functional.pad"](x, (left, max(0, (count - 1) * hop + n_fft - left - length)))
        x = x[:, :(count - 1) * hop + n_fft]
    frames = x.unfold(-1, n_fft, hop)
    if w is not None:
        frames = frames * w
    # torch's FFT runs on the windowed frames: a half input times a float32 window is float32
    if frames.dtype in (D.float16, D.bfloat16):
        raise RuntimeError(f"MKL FFT doesn't support tensors of type: {D.scalar_type_name(frames.dtype)}")
    norm = "ortho" if normalized else "backward"
    out = (PUBLIC["fft.rfft"] if onesided else PUBLIC["fft.fft"])(frames, dim=-1, norm=norm)
    out = out.transpose(1, 2)
    if input.dim() == 1:
        out = out.squeeze(0)
    return out if return_complex else PUBLIC["view_as_real"](out)


def _opt(v):
    return "None" if v is None else str(int(bool(v)))


@register("istft", family=F, raw=True)
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    if window is None:
        warn_once("A window was not provided. A rectangular window will be applied.Please provide the same window "
                  "used by stft to make the inversion lossless.To suppress this warning and use a rectangular "
                  "window, explicitly set `window=torch.ones(n_fft, device=<device>)`.")
    if not input.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length

    def fail(msg):
        args = (f"istft(CPU{D.scalar_type_name(input.dtype)}Type{list(input.shape)}, n_fft={n_fft}, "
                f"hop_length={hop}, win_length={win}, window={_window_str(window)}, center={int(bool(center))}, "
                f"normalized={int(bool(normalized))}, onesided={_opt(given_onesided)}, length={length}, "
                f"return_complex={int(bool(return_complex))}) ")
        return RuntimeError(args + msg)
    if input.dim() not in (2, 3):
        raise fail(": expected a tensor with 2 or 3 dimensions of complex values")
    x = input.unsqueeze(0) if input.dim() == 2 else input
    fft_size, n_frames = x.shape[-2], x.shape[-1]
    given_onesided = onesided
    onesided = (fft_size != n_fft) if onesided is None else onesided
    if onesided:
        if n_fft // 2 + 1 != fft_size:
            raise fail(": expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / "
                       f"2 + 1 when onesided=True, but got {fft_size}")
    elif n_fft != fft_size:
        raise fail(": expected the frequency dimension (3rd to the last) of the input tensor to match n_fft when "
                   f"onesided=False, but got {fft_size}")
    if not (0 < hop <= win):
        raise fail(": expected 0 < hop_length <= win_length")
    if not (0 < win <= n_fft):
        raise fail(": expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise fail(": Invalid window shape. window has to be 1D and length of `win_length`")
    if return_complex and onesided:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    real_dt = D.float32 if input.dtype is D.complex64 else D.float64
    w = _padded_window(window, n_fft, win, real_dt)
    if w is None:
        w = PUBLIC["ones"](n_fft, dtype=real_dt)
    frames = x.transpose(1, 2)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        frames = PUBLIC["fft.ifft"](frames, dim=-1, norm=norm)
    else:
        if not onesided:
            frames = frames.narrow(-1, 0, n_fft // 2 + 1)
        frames = PUBLIC["fft.irfft"](frames, n=n_fft, dim=-1, norm=norm)
    frames = frames * w
    expected = n_fft + hop * (n_frames - 1)
    fold = PUBLIC["nn.functional.fold"]

    def overlap_add(f):
        # torch (unfold_backward) adds the frames into each sample first frame first; fold adds them in
        # kernel order, last frame first. Reversed frames, each reversed, into the reversed signal: the
        # same sums in torch's order (which decides the rounding of a float32 sum)
        if f.dtype.is_complex:   # fold has no complex kernel: the real and imaginary parts separately
            return PUBLIC["view_as_complex"](PUBLIC["stack"]((overlap_add(f.real), overlap_add(f.imag)), -1))
        out = fold(f.flip((1, 2)).transpose(1, 2), (1, expected), (1, n_fft), stride=(1, hop))
        return out.reshape(f.shape[0], expected).flip(-1)
    y = overlap_add(frames)
    env = overlap_add((w * w).expand(1, n_frames, n_fft)).reshape(expected)
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = expected - n_fft // 2 if center else expected
    y = y[:, start:end]
    env = env[start:end]
    if env.abs().min().item() < 1e-11:
        raise fail("window overlap add min: 1")   # torch prints the failed comparison (a bool tensor)
    y = y / env
    if end > expected:
        warn_once("The length of signal is shorter than the length parameter. Result is being padded with zeros "
                  "in the tail. Please check your center and hop_length settings.")
        y = PUBLIC["nn.functional.pad"](y, (0, end - expected))
    return y.squeeze(0) if input.dim() == 2 else y
