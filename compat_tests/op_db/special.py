"""Samples for torch.special (table entries keyed ``special.<name>``)."""
import numpy as np

from .common import OpInfo, S, E


def _r(*shape, lo=-3.0, hi=3.0, seed=0, dtype=np.float32):
    return np.random.RandomState(seed + sum(shape)).uniform(lo, hi, size=shape).astype(dtype)


_OFF_AXIS = np.array([-2.0, -0.0, 0.0, 1.5, np.inf, -np.inf, np.nan], dtype=np.float32)


def _pos(*shape, seed=0, dtype=np.float32):
    return _r(*shape, lo=0.2, hi=4.0, seed=seed, dtype=dtype)


def _unit(*shape, dtype=np.float32):
    return _r(*shape, lo=0.02, hi=0.98, dtype=dtype)


def _f64(a):
    return a.astype(np.float64)


_I = lambda T: T.tensor([0, 1, 2, 3])  # noqa: E731
_TAIL = np.array([-40.0, -30.0, -10.0, -3.0, -0.5, 0.0, 0.5, 3.0, 8.0, 30.0])


def _op(name, samples, **kw):
    return OpInfo(f"special.{name}", samples, call=lambda T, *a, **k: getattr(T.special, name)(*a, **k), **kw)



OPS = [
    _op("expit", [S(_r(2, 3)), S(_f64(_r(4))), S(_I)]),
    _op("logit", [S(_unit(2, 3)), S(_unit(3), 0.1), S(_f64(_unit(4)))]),
    _op("erf", [S(_r(2, 3)), S(_f64(_r(4))), S(_I)]),
    _op("erfc", [S(_r(2, 3)), S(_f64(_r(4)))]),
    _op("erfinv", [S(_r(2, 3, lo=-0.99, hi=0.99)), S(_f64(_r(4, lo=-0.9, hi=0.9))),
                   S(np.array([-0.0, 0.0, 0.04, -0.97], dtype=np.float32))], rtol=1e-4),   # gradient at 0 (tools/fuzz.py)
    _op("gammaln", [S(_pos(2, 3)), S(_f64(_pos(4)))], rtol=1e-4, atol=1e-5),
    _op("digamma", [S(_pos(2, 3)), S(_f64(_pos(4)))], rtol=1e-4, atol=1e-5),
    _op("psi", [S(_pos(2, 3)), S(_f64(_pos(4)))], rtol=1e-4, atol=1e-5),
    _op("polygamma", [S(1, _pos(2, 3)), S(2, _f64(_pos(4))), S(0, _pos(3)), E(-1, _pos(3))], rtol=1e-4, atol=1e-4),
    _op("multigammaln", [S(_pos(2, 3) + 2, 2), S(_f64(_pos(4)) + 3, 3), E(_pos(3), 0)], rtol=1e-4, atol=1e-5),
    _op("xlogy", [S(_r(2, 3), _pos(2, 3)), S(lambda T: T.tensor([0.0, 1.0]), lambda T: T.tensor([0.0, 2.0])),
                  S(_f64(_r(3)), 2.0)]),
    _op("xlog1py", [S(_r(2, 3), _pos(2, 3)), S(lambda T: T.tensor([0.0, 1.0, 2.0]), lambda T: T.tensor([-1.0, 1e-8, 3.0])),
                    S(_f64(_r(3)), 2.0), S(_I, _I), E(1.0, 2.0)]),
    _op("i0", [S(_r(2, 3)), S(_f64(_r(4)))], rtol=1e-5, atol=1e-5),
    _op("i0e", [S(_r(2, 3)), S(_f64(_r(4))), S(_I)], rtol=1e-5, atol=1e-5),
    _op("i1", [S(_r(2, 3)), S(_f64(_r(4))), S(np.array([-0.0, 0.0, 0.5], np.float32))], rtol=1e-5, atol=1e-5),   # slope 1/2 at 0
    _op("i1e", [S(_r(2, 3)), S(_f64(_r(4)))], rtol=1e-5, atol=1e-5),
    _op("log1p", [S(_pos(2, 3)), S(lambda T: T.tensor([1e-10, -1e-7, 0.3]))]),
    _op("expm1", [S(_r(2, 3)), S(lambda T: T.tensor([1e-10, -1e-7, 0.3], dtype=T.float64))]),
    _op("exp2", [S(_r(2, 3)), S(_I)]),
    _op("round", [S(_r(2, 3)), S(_r(4), decimals=2)]),
    _op("sinc", [S(_r(2, 3)), S(lambda T: T.tensor([0.0, 0.5]))]),
    _op("logsumexp", [S(_r(2, 3), 1), S(_r(2, 3), (0, 1), True)]),
    _op("softmax", [S(_r(2, 3), 1), S(_r(2, 3), 0, dtype=lambda T: T.float64)]),
    _op("log_softmax", [S(_r(2, 3), 1), S(_r(2, 3), -1, dtype=lambda T: T.float64)]),
    _op("entr", [S(_pos(2, 3)), S(lambda T: T.tensor([-1.0, 0.0, float("nan"), 0.5])), S(_f64(_pos(4)))]),
    _op("ndtr", [S(_r(2, 3)), S(_f64(_TAIL)), S(_TAIL.astype(np.float32))], rtol=1e-5, atol=1e-6),
    _op("ndtri", [S(_unit(2, 3)), S(_f64(_unit(4))), S(lambda T: T.tensor([0.0, 1.0, 1e-20, 1e-6, 0.999999], dtype=T.float64))],
        rtol=1e-5, atol=1e-6),
    # float32 far tail: torch's float32 backward exp(-(result + x^2/2)) cancels (~1e-4 relative off)
    _op("log_ndtr", [S(_TAIL.astype(np.float32))], rtol=2e-4),
    _op("log_ndtr", [S(_r(2, 3)), S(_f64(_TAIL)),
                     S(lambda T: T.tensor([-1e3, -60.0, 40.0], dtype=T.float64))], rtol=1e-5, atol=1e-6),
    _op("erfcx", [S(_r(2, 3)), S(_f64(_TAIL[2:])), S(lambda T: T.tensor([24.0, 26.0, 100.0, 1e5, -2.0], dtype=T.float64))],
        rtol=1e-5, atol=1e-6),
    # torch has no derivative of zeta, nor of gammainc/gammaincc with respect to their first argument
    _op("zeta", [S(_pos(2, 3) + 1.5, _pos(2, 3)).rejects("grad"),
                 S(lambda T: T.tensor([2.0, 3.0], dtype=T.float64), _f64(_pos(2))),
                 S(_pos(3) + 1.5, 2.0).rejects("grad")], rtol=1e-5, atol=1e-6),
    *[_op(name, [S(lambda T: T.tensor([0.5, 2.0, 3.0]), _pos(3)), S(_f64(_pos(4)), _f64(_pos(4, seed=3))).rejects("grad")],
          rtol=1e-5, atol=1e-5) for name in ("gammainc", "gammaincc")],
    # torch gives the Bessel family no gradient: outputs do not require grad (compared as values)
    _op("bessel_j0", [S(_r(2, 3)), S(_f64(_r(4)))], rtol=1e-5, atol=1e-6),
    _op("bessel_j1", [S(_r(2, 3)), S(_f64(_r(4)))], rtol=1e-5, atol=1e-6),
    # below 0 and at 0 (found by tools/fuzz.py): NaN and the limit, as torch
    _op("bessel_y0", [S(_pos(2, 3)), S(_f64(_pos(4))), S(_OFF_AXIS)], rtol=1e-5, atol=1e-5),
    _op("bessel_y1", [S(_pos(2, 3)), S(_f64(_pos(4))), S(_OFF_AXIS)], rtol=1e-5, atol=1e-5),
    _op("modified_bessel_i0", [S(_r(2, 3)), S(_f64(_r(4)))], rtol=1e-5, atol=1e-6),
    _op("modified_bessel_i1", [S(_r(2, 3)), S(_f64(_r(4)))], rtol=1e-5, atol=1e-6),
    _op("modified_bessel_k0", [S(_pos(2, 3)), S(_f64(_pos(4))), S(_OFF_AXIS)], rtol=1e-5, atol=1e-6),
    _op("modified_bessel_k1", [S(_pos(2, 3)), S(_f64(_pos(4))), S(_OFF_AXIS)], rtol=1e-5, atol=1e-6),
    _op("scaled_modified_bessel_k0", [S(_pos(2, 3)), S(_f64(_pos(4))), S(_OFF_AXIS)], rtol=1e-5, atol=1e-6),
    _op("scaled_modified_bessel_k1", [S(_pos(2, 3)), S(_f64(_pos(4))), S(_OFF_AXIS)], rtol=1e-5, atol=1e-6),
    _op("spherical_bessel_j0", [S(_r(2, 3)), S(lambda T: T.tensor([0.0, 1e-3, 2.0], dtype=T.float64))]),
    # the bessel outputs carry no gradient in either library
    OpInfo("special.bessel_j0", [S(lambda T: T.tensor([0.5, 1.0], requires_grad=True))], grad=False,
           call=lambda T, a: T.special.bessel_j0(a).requires_grad),
]
