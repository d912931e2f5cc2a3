"""Samples for torch.fft (table entries keyed ``fft.<name>``).

Complex outputs are compared as (real, imag) pairs so that the harness's gradient check (which weights
float outputs) reaches the real inputs. Gradients with respect to complex inputs are computed inside the
call (``_cgrad``) and compared as values."""
import numpy as np

from .common import OpInfo, S, E


def _r(*shape, seed=0, dtype=np.float32):
    return np.random.RandomState(seed + 7 * len(shape) + sum(shape)).standard_normal(shape).astype(dtype)


def _c(*shape, seed=0, dtype=np.complex64):
    return (_r(*shape, seed=seed, dtype=np.float64) + 1j * _r(*shape, seed=seed + 1, dtype=np.float64)).astype(dtype)


def _split(T, out):
    if out.is_complex():
        out = out.resolve_conj()
        return out.real, out.imag
    return out


def _F(name):
    return lambda T, *a, **k: _split(T, getattr(T.fft, name)(*a, **k))


def _cgrad(name):
    """Value and gradient of a fixed weighting of the output with respect to a complex input."""
    def call(T, x, *a, **k):
        z = x.detach().clone().requires_grad_(True)
        out = getattr(T.fft, name)(z, *a, **k)
        parts = _split(T, out)
        parts = parts if isinstance(parts, tuple) else (parts,)
        rng = np.random.RandomState(3)
        loss = sum((p * T.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)).to(p.dtype)).sum()
                   for p in parts)
        (g,) = T.autograd.grad(loss, z)
        return tuple(p.detach() for p in parts) + (g.resolve_conj().real, g.resolve_conj().imag)
    return call


def _op(name, samples, **kw):
    kw.setdefault("rtol", 1e-5)
    kw.setdefault("atol", 1e-5)
    return OpInfo(f"fft.{name}", samples, call=_F(name), **kw)


def _cop(name, samples, **kw):
    return OpInfo(f"fft.{name}", samples, call=_cgrad(name), grad=False, rtol=1e-5, atol=1e-5, **kw)


_f64 = _r(4, 6, dtype=np.float64)
_int = lambda T: T.arange(6)  # noqa: E731
_bool = lambda T: T.tensor([True, False, True])  # noqa: E731
_half = lambda T: T.ones(4, dtype=T.float16)  # noqa: E731
_bf16 = lambda T: T.ones(4, dtype=T.bfloat16)  # noqa: E731
_cplx = lambda T: T.ones(4, dtype=T.complex64)  # noqa: E731
_scalar = lambda T: T.tensor(1.0)  # noqa: E731
_empty = lambda T: T.zeros(0)  # noqa: E731

_ONE_D_ERRORS = [E(_half), E(_bf16), E(_r(4), norm="foo"), E(_r(4), n=0), E(_r(3, 4), dim=2), E(_scalar),
                 E(_empty)]
_NORMS = [S(_r(3, 5), norm="ortho"), S(_r(3, 5), norm="forward"), S(_r(3, 5), norm="backward")]

OPS = [
    _op("fft", [S(_r(8)), S(_r(3, 5)), S(_r(3, 5), 7), S(_r(3, 5), 2, 0), S(_r(2, 3, 4), dim=1), *_NORMS,
                S(_f64), S(_c(3, 4)), S(_c(5), n=8, norm="ortho"), S(_int), S(_bool), *_ONE_D_ERRORS]),
    _op("ifft", [S(_r(8)), S(_r(3, 5), 3), S(_c(3, 4), dim=0), *_NORMS, S(_f64), S(_int), *_ONE_D_ERRORS]),
    _op("rfft", [S(_r(8)), S(_r(3, 5)), S(_r(3, 5), 9), S(_r(3, 6), 4, 0), *_NORMS, S(_f64), S(_int),
                 E(_cplx), *_ONE_D_ERRORS]),
    _op("ihfft", [S(_r(8)), S(_r(3, 5)), S(_r(3, 5), 3, 0), *_NORMS, S(_f64), E(_cplx), *_ONE_D_ERRORS]),
    _op("irfft", [S(_r(3, 5)), S(_r(3, 5), 7), S(_c(3, 5)), S(_c(3, 5), 4, 0, "ortho"), S(_c(4), norm="forward"),
                  S(_c(4, dtype=np.complex128)), S(_int), E(lambda T: T.ones(1, dtype=T.complex64)),
                  *_ONE_D_ERRORS]),
    _op("hfft", [S(_r(3, 5)), S(_c(3, 5)), S(_c(3, 5), 9, 0), S(_c(4), norm="ortho"), S(_c(4), norm="forward"),
                 S(_int), *_ONE_D_ERRORS]),
    _op("fft2", [S(_r(3, 4)), S(_r(2, 3, 4), (4, 2)), S(_r(2, 3, 4), dim=(0, 2), norm="ortho"), S(_c(3, 4)),
                 S(_f64), E(_r(3)), E(_half), E(_r(3, 4), dim=(0, 0))]),
    _op("ifft2", [S(_r(3, 4)), S(_c(2, 3, 4), (2, 5), norm="forward"), S(_f64), E(_r(3))]),
    _op("fftn", [S(_r(3, 4)), S(_r(2, 3, 4)), S(_r(2, 3, 4), (2, 5)), S(_r(2, 3, 4), (-1, 5)),
                 S(_r(2, 3, 4), dim=(0,)), S(_r(2, 3, 4), (3, 3), (2, 0), "ortho"), S(_c(3, 4)), S(_f64),
                 E(_r(3, 4), (2,), (0, 1)), E(_r(3, 4), dim=(1, 1)), E(_r(3, 4), (0, 3)), E(_r(3), (2, 2)),
                 E(_half), E(_r(3, 4), norm="bad")]),
    _op("ifftn", [S(_r(3, 4)), S(_c(2, 3, 4), (4,), norm="forward"), S(_f64), E(_r(3, 4), dim=(1, 1))]),
    _op("rfft2", [S(_r(3, 4)), S(_r(2, 3, 5), (4, 4)), S(_r(3, 4), norm="ortho"), S(_f64), E(_cplx), E(_r(4))]),
    _op("rfftn", [S(_r(3, 4)), S(_r(2, 3, 5), dim=(0, 1)), S(_r(2, 3, 4), (3, 6)), S(_r(3, 4), norm="forward"),
                  S(_int), E(lambda T: T.ones(2, 2, dtype=T.complex64))]),
    _op("irfft2", [S(_r(3, 4)), S(_c(3, 4)), S(_c(2, 3, 4), (4, 6), norm="ortho"), E(_c(4))]),
    _op("irfftn", [S(_c(3, 4)), S(_c(2, 3, 4), (3, 5)), S(_c(3, 4), (-1, 5)), S(_c(2, 3, 4), dim=(0, 2)),
                   S(_c(3, 4), norm="forward"), E(_c(3, 4), (3, 0))]),
    _op("hfft2", [S(_c(3, 4)), S(_c(3, 4), (3, 7), norm="ortho")]),
    _op("hfftn", [S(_c(3, 4)), S(_c(2, 3, 4), (2, 5)), S(_c(3, 4), norm="forward")]),
    _op("ihfft2", [S(_r(3, 4)), S(_r(3, 5), norm="ortho"), E(lambda T: T.ones(2, 2, dtype=T.complex64))]),
    _op("ihfftn", [S(_r(3, 4)), S(_r(2, 3, 4), (3, 3)), S(_r(3, 4), norm="forward"), S(_f64)]),
    # gradients with respect to complex inputs
    _cop("fft", [S(_c(3, 5)), S(_c(5), 8, norm="ortho")]),
    _cop("ifft", [S(_c(3, 5), dim=0)]),
    _cop("irfft", [S(_c(3, 5)), S(_c(3, 5), 6, norm="forward")]),
    _cop("hfft", [S(_c(3, 5)), S(_c(4), 5, norm="ortho")]),
    _cop("fftn", [S(_c(2, 3, 4), (3, 3))]),
    _cop("irfftn", [S(_c(3, 4)), S(_c(2, 3, 4), (4, 5), norm="ortho")]),
    _cop("hfftn", [S(_c(3, 4), norm="forward")]),
    OpInfo("fft.fftfreq", [S(5), S(4), S(6, 0.5), S(7, d=0.1), S(0), S(5, dtype=lambda T: T.float64),
                           S(5, requires_grad=True), E(5, dtype=lambda T: T.int64), E(-1)],
           call=lambda T, *a, **k: T.fft.fftfreq(*a, **k)),
    OpInfo("fft.rfftfreq", [S(5), S(4), S(6, 0.5), S(1), S(5, 3.0, dtype=lambda T: T.float64),
                            E(5, dtype=lambda T: T.int32)],
           call=lambda T, *a, **k: T.fft.rfftfreq(*a, **k)),
    OpInfo("fft.fftshift", [S(_r(5)), S(_r(4, 6)), S(_r(4, 5), 1), S(_r(2, 3, 4), (0, 2)), S(_int),
                            S(_c(4, 5)), E(_r(3), 1)],
           call=lambda T, *a, **k: _split(T, T.fft.fftshift(*a, **k))),
    OpInfo("fft.ifftshift", [S(_r(5)), S(_r(4, 5)), S(_r(3, 5), dim=-1), S(_r(2, 3, 5), (1, 2)), S(_int)],
           call=lambda T, *a, **k: T.fft.ifftshift(*a, **k)),
]
