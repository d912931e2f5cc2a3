"""torch.fft on MindSpore's FFT kernels (``mindspore.ops.fft*``, which run on CPU in float32/float64 with
~1e-7 relative error and have gradients). Table entries keyed ``fft.<name>``; ``mstorch/fft.py`` turns them
into the module's functions.

What is ours: torch's argument checks and messages, its dtype rules (integers and bool promote to the
default float, float16/bfloat16 are refused on CPU as torch refuses them, real-to-complex transforms
refuse complex input), ``s``/``dim`` defaults and ``-1`` sizes, and ``fftfreq``/``rfftfreq`` built on the
host as torch does (in float64, then rounded to the requested dtype).

Double backward: MindSpore's FFT gradients pad or crop through FFTShapeCopy, a kernel with no backward, so
every transform carries torch's backward formula in recorded ops (``own_backward``, used only while a
backward pass records itself): the adjoint transform with the opposite scaling, cropped or zero-padded
back to the input's lengths; r2c pads the one-sided gradient to full length and keeps the real part, c2r
is an r2c of the gradient with the mirrored bins counted twice.
"""
import numpy as np
import mindspore as ms
from . import _msops as ops

from .. import _dtype as D
from ._helpers import wrap_dim, cast, _scalar_name
from ._registry import register
from .creation import _finish, _host_to_ms, _check_dtype
from .shape import roll as _roll
from ..autograd._higher_order import own_backward

F = "torch.fft"
_NORMS = (None, "backward", "forward", "ortho")
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}
_REAL = (ms.float32, ms.float64)
_COMPLEX = (ms.complex64, ms.complex128)


def _fft(name, out=True):
    return register(f"fft.{name}", family=F, namespace="fft", out=out)


def _real_only(x, message):
    if message is not None and x.dtype in _COMPLEX:
        raise RuntimeError(message.format(_scalar_name(x)))


def _input(x, *, complex_in=False):
    """torch's dtype rules of the FFT kernels: ints/bool -> default float, half types refused on CPU."""
    dt = x.dtype
    if dt in (ms.float16, ms.bfloat16):
        raise RuntimeError(f"Unsupported dtype {_scalar_name(x)}")
    if dt not in _REAL and dt not in _COMPLEX:
        x = cast(x, D.get_default_dtype()._ms)
    if complex_in and x.dtype in _REAL:
        x = cast(x, ms.complex64 if x.dtype == ms.float32 else ms.complex128)
    return x


def _norm(norm):
    if norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm or "backward"


def _points(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def _one_dim(x, n, dim, c2r=False):
    if x.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, x.ndim)
    if n is None:
        n = 2 * (x.shape[d] - 1) if c2r else x.shape[d]
    return _points(n), d


def _n_dims(x, s, dim, c2r=False, default_all=True):
    """torch's fftn argument resolution: (sizes, dims), sizes the last transformed length of each dim."""
    if s is not None and dim is not None and len(s) != len(dim):
        raise RuntimeError("When given, dim and shape arguments must have the same length")
    if dim is not None:
        dims = [wrap_dim(d, x.ndim) for d in ([dim] if isinstance(dim, int) else dim)]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    elif s is not None:
        if len(s) > x.ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {x.ndim} dimensions.")
        dims = list(range(x.ndim - len(s), x.ndim))
    else:
        dims = list(range(x.ndim)) if default_all else []
    if s is None:
        sizes = [x.shape[d] for d in dims]
        if c2r and dims:
            sizes[-1] = 2 * (x.shape[dims[-1]] - 1)
    else:
        sizes = [x.shape[d] if v == -1 and not (c2r and i == len(s) - 1) else
                 (2 * (x.shape[d] - 1) if v == -1 else v) for i, (v, d) in enumerate(zip(s, dims))]
    for v in sizes:
        _points(v)
    return tuple(sizes), tuple(dims)


# --- transforms with a differentiable backward -------------------------------------------------

def _transform(kind, x, sizes, dims, norm):
    """``kind`` ("c2c", "c2c_inverse", "r2c", "c2r") of ``x`` over ``dims`` to lengths ``sizes``."""
    y = _KERNELS[kind](x, sizes, dims, norm)
    return own_backward(y, _transform_backward, kind, tuple(x.shape), x.dtype in _REAL, sizes, dims, norm)


def _c2c(x, s, dim, norm):
    return _transform("c2c", x, tuple(s), tuple(dim), norm)


def _ifft_c2c(x, s, dim, norm):
    return _transform("c2c_inverse", x, tuple(s), tuple(dim), norm)


def _r2c(x, s, dim, norm):
    return _transform("r2c", x, tuple(s), tuple(dim), norm)


def _c2r(x, s, dim, norm):
    return _transform("c2r", x, tuple(s), tuple(dim), norm)


_KERNELS = {"c2c": ops.fftn, "c2c_inverse": ops.ifftn, "r2c": ops.rfftn, "c2r": ops.irfftn}


def _transform_backward(node, grad_outputs, kind, in_shape, real_in, sizes, dims, norm):
    (g,) = grad_outputs
    if g is None:
        return (None,)
    adjoint = _SWAP[norm]
    if kind == "c2r":
        # the one-sided spectrum of the gradient; bins whose mirror image the c2r transform also used count twice
        g = _r2c(g, sizes, dims, adjoint)
        n, d = sizes[-1], dims[-1]
        twice = n - (n // 2 + 1)
        if twice:
            scale = np.ones(n // 2 + 1, _REAL_NP[g.dtype])
            scale[1:1 + twice] = 2
            shape = [1] * g.ndim
            shape[d] = n // 2 + 1
            g = _by_parts(ops.mul, g, ms.Tensor(scale.reshape(shape)))
    else:
        if kind == "r2c":   # the one-sided gradient, zero over the bins r2c leaves out
            g = _fit(g, dims[-1], sizes[-1])
        g = _transform("c2c" if kind == "c2c_inverse" else "c2c_inverse", g, sizes, dims, adjoint)
        if real_in:
            g = ops.real(g)
    for d in dims:                 # the input was cropped or zero-padded to the transform's lengths
        g = _fit(g, d, in_shape[d])
    return (g,)


def _fit(g, d, length):
    """``g`` cropped, or padded with zeros, to ``length`` along ``d``."""
    have = g.shape[d]
    if have > length:
        return _by_parts(ops.narrow, g, d, 0, length)
    if have < length:
        shape = list(g.shape)
        shape[d] = length - have
        return ops.cat((g, ops.zeros(tuple(shape), g.dtype)), d)
    return g


_REAL_NP = {ms.complex64: np.float32, ms.complex128: np.float64, ms.float32: np.float32, ms.float64: np.float64}


def _by_parts(fn, g, *args):
    """``fn`` of a complex ``g`` applied to its real and imaginary parts: MindSpore's Mul has no gradient
    for complex tensors and its SliceGrad no complex kernel, so a recorded formula stays on real ones."""
    if g.dtype not in _COMPLEX:
        return fn(g, *args)
    return ops.complex_of_parts(fn(ops.real(g), *args), fn(ops.imag(g), *args))


# --- one-dimensional ----------------------------------------------------------------------------

def _c2c_1d(fn):
    def run(input, n=None, dim=-1, norm=None):
        n, d = _one_dim(input, n, dim)
        return fn(_input(input), (n,), (d,), _norm(norm))
    return run


fft = _fft("fft")(_c2c_1d(_c2c))
ifft = _fft("ifft")(_c2c_1d(_ifft_c2c))


@_fft("rfft")
def rfft(input, n=None, dim=-1, norm=None):
    _real_only(input, "rfft expects a real input tensor, but got {}")
    n, d = _one_dim(input, n, dim)
    return _r2c(_input(input), (n,), (d,), _norm(norm))


@_fft("ihfft")
def ihfft(input, n=None, dim=-1, norm=None):
    # the conjugate of rfft with the opposite scaling (MindSpore's own ihfft kernel has a wrong gradient)
    _real_only(input, "ihfft expects a real input tensor, but got {}")
    n, d = _one_dim(input, n, dim)
    return ops.conj(_r2c(_input(input), (n,), (d,), _SWAP[_norm(norm)]))


@_fft("irfft")
def irfft(input, n=None, dim=-1, norm=None):
    n, d = _one_dim(input, n, dim, c2r=True)
    x = _input(input, complex_in=True)
    return _c2r(x, (n,), (d,), _norm(norm))


@_fft("hfft")
def hfft(input, n=None, dim=-1, norm=None):
    # irfft of the conjugate with the opposite scaling (as ihfft, kept off MindSpore's hfft kernel)
    n, d = _one_dim(input, n, dim, c2r=True)
    x = _input(input, complex_in=True)
    return _c2r(ops.conj(x), (n,), (d,), _SWAP[_norm(norm)])


# --- n-dimensional ------------------------------------------------------------------------------

def _nd(kernel, *, c2r=False, real_only=None, complex_in=False):
    def run(input, s=None, dim=None, norm=None):
        _real_only(input, real_only)
        sizes, dims = _n_dims(input, s, dim, c2r=c2r)
        x = _input(input, complex_in=complex_in)
        if not dims:
            return x if x.dtype in _COMPLEX or c2r else cast(x, ms.complex64 if x.dtype == ms.float32
                                                                else ms.complex128)
        return kernel(x, sizes, dims, _norm(norm))
    return run


def _2d(kernel, **kw):
    nd = _nd(kernel, **kw)

    def run(input, s=None, dim=(-2, -1), norm=None):
        return nd(input, s, dim, norm)
    return run


def _hfftn(x, s, dim, norm):
    return _c2r(ops.conj(x), s, dim, _SWAP[norm])


def _ihfftn(x, s, dim, norm):
    return ops.conj(_r2c(x, s, dim, _SWAP[norm]))


_RFFTN = "rfftn expects a real-valued input tensor, but got {}"
_IHFFTN = "Only supports floating-point dtypes, but found: {}"
for _name, _kernel, _kw in (("fftn", _c2c, {}), ("ifftn", _ifft_c2c, {}),
                            ("rfftn", _r2c, {"real_only": _RFFTN}),
                            ("irfftn", _c2r, {"c2r": True, "complex_in": True}),
                            ("hfftn", _hfftn, {"c2r": True, "complex_in": True}),
                            ("ihfftn", _ihfftn, {"real_only": _IHFFTN})):
    globals()[_name] = _fft(_name)(_nd(_kernel, **_kw))
    _two = _name[:-1] + "2"
    globals()[_two] = _fft(_two)(_2d(_kernel, **_kw))


# --- helpers: frequencies and shifts ------------------------------------------------------------

def _freq(name, n, d, dtype, device, requires_grad, half):
    _check_dtype(dtype, f"{name}")
    dt = D.get_default_dtype() if dtype is None else dtype
    if dt._cat < D._FLOAT:
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if half:
        values = np.arange(n // 2 + 1, dtype=np.float64)
    else:
        values = np.concatenate([np.arange((n - 1) // 2 + 1), np.arange(-(n // 2), 0)]).astype(np.float64)
    # torch: arange in the target dtype, then multiplied by 1/(n*d) in that dtype
    values = values.astype(dt._np if dt is not D.bfloat16 else np.float32)
    scale = np.asarray(1.0 / (n * d) if n else 0.0, dtype=values.dtype)
    return _finish(_host_to_ms(values * scale, dt), requires_grad, device)


@register("fft.fftfreq", family=F, namespace="fft", raw=True, out=True)
def fftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _freq("fftfreq", n, d, dtype, device, requires_grad, half=False)


@register("fft.rfftfreq", family=F, namespace="fft", raw=True, out=True)
def rfftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _freq("rfftfreq", n, d, dtype, device, requires_grad, half=True)


def _shift(x, dim, sign):
    if dim is None:
        dims = tuple(range(x.ndim))
    else:
        dims = tuple(wrap_dim(d, x.ndim) for d in ([dim] if isinstance(dim, int) else dim))
    if not dims:   # (a 0-d input or dim=(): torch's roll is given no shifts)
        raise RuntimeError("`shifts` required")
    return _roll(x, tuple(sign * (x.shape[d] // 2) for d in dims), dims)


@_fft("fftshift", out=False)
def fftshift(input, dim=None):
    return _shift(input, dim, 1)


@_fft("ifftshift", out=False)
def ifftshift(input, dim=None):
    return _shift(input, dim, -1)


del _name, _kernel, _kw, _two
