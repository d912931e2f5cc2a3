"""torch's CPU distributions over MT19937 draws, vectorised: uniform, integers, bernoulli, exponential,
cauchy, log-normal, geometric, multinomial with replacement and poisson. (Normal is in boxmuller.py,
randperm in perm.py.) Each function returns a NumPy array of ``n`` values and consumes the generator
stream exactly as torch's kernel does.
"""
import math
from fractions import Fraction

import numpy as np

from .. import _dtype as D
from .boxmuller import normal_raw_scalar
from . import native as N
from .exact import _CAPABILITY, _MATH, _libm, _mad64, f32, f64, to_host

_CHUNK = 1 << 15   # values per pass: temporaries stay in cache
_MASK64 = (1 << 64) - 1


def chunked(n, dtype, fill):
    """``out = empty(n)``; ``fill(count, out_part)`` over consecutive parts (each draws the next stretch)."""
    out = np.empty(n, dtype)
    for s in range(0, n, _CHUNK):
        fill(min(_CHUNK, n - s), out[s:s + _CHUNK])
    return out


# --- uniform --------------------------------------------------------------------------------------

def uniform(gen, n, dt, low, high):
    """uniform_kernel: (bits * 2**-k) * (to - from) + from, one rounding, clamped below ``to``."""
    if N.on() and n:
        return _uniform_native(gen, n, dt, low, high)
    if dt is D.float64:
        x = chunked(n, f64, _uniform_fill(gen, 53, f64(low), f64(high)))
        return _clamp(x, _uniform_top(53, f64(low), f64(high)), f64(high), f64(low))
    lo, hi = f32(low), f32(high)
    fill = _uniform_fill(gen, 24, lo, hi)
    to, frm = to_host(np.array([high, low], f64), dt)
    top = to_host(_uniform_top(24, lo, hi), dt)[0]
    if dt is D.float32:
        x = chunked(n, f32, fill)
    else:     # half and bfloat16 compute in float, then round each stretch while it is in cache
        buf = np.empty(min(n, _CHUNK), f32)

        def cast(c, o):
            fill(c, buf[:c])
            o[...] = to_host(buf[:c], dt)
        x = chunked(n, np.float16 if dt is D.float16 else f32, cast)
    return _clamp(x, top, to, frm)


def _uniform_native(gen, n, dt, low, high):
    """uniform() in _fastrng.c: the modes of _uniform_fill and the clamp, fused into one pass."""
    if dt is D.float64:
        lo, hi = f64(low), f64(high)
        mode, q, a, b = _uniform_mode(53, lo, hi)
        out = np.empty(n, f64)
        clamp = _uniform_top(53, lo, hi)[0] >= hi
        N.call(gen, "ms_uniform_f64", n, n, mode, q, a, b, out.ctypes.data, clamp, float(hi), float(lo))
        return out
    lo, hi = f32(low), f32(high)
    mode, q, a, b = _uniform_mode(24, lo, hi)
    to, frm = to_host(np.array([high, low], f64), dt)
    top = to_host(_uniform_top(24, lo, hi), dt)[0]
    out = np.empty(n, np.float16 if dt is D.float16 else f32)
    kind = N.BF16 if dt is D.bfloat16 else N.KIND[out.dtype]
    N.call(gen, "ms_uniform_f32", n, n, mode, q, a, b, kind, out.ctypes.data, bool(top >= to), float(to),
           float(frm))
    return out


def _uniform_mode(digits, lo, hi):
    """(mode, q, a, b) of ms_uniform_*: the branch _uniform_fill takes and its constants."""
    ft = f64 if digits == 53 else f32
    rng = hi - lo
    q = _offset(lo, rng, digits) if _CAPABILITY["fused"] else None
    if q is not None:
        return 0, q, float(ft(rng * ft(2.0 ** -digits))), 0.0
    if digits == 24 and _CAPABILITY["fused"]:
        return 1, 0, float(f64(rng) * 2.0 ** -24), float(lo)
    return (1 if digits == 53 and _CAPABILITY["fused"] else 2), 0, float(rng), float(lo)


def _offset(lo, rng, digits):
    """Q with lo == Q * 2**-digits * rng exactly and -2**digits <= Q <= 0, else None.

    Then u * rng + lo == (k + Q) * (2**-digits * rng) for u = k * 2**-digits, and the right side is one
    product of exact operands: the kernel's fused multiply-add, rounded once, without emulating it.
    (uniform_(0, b) and the symmetric uniform_(-a, a) of the nn.init functions take this path.)
    """
    if not (rng > 0 and math.isfinite(rng)) or abs(float(rng) * 2.0 ** -digits) < 2.0 ** -120:
        return None
    q = Fraction(float(lo)) / Fraction(float(rng)) * (1 << digits)
    if q.denominator != 1 or not -(1 << digits) <= q <= 0:
        return None
    return int(q)


def _uniform_fill(gen, digits, lo, hi):
    ft = f64 if digits == 53 else f32
    rng = hi - lo
    q = _offset(lo, rng, digits) if _CAPABILITY["fused"] else None
    if q is not None:
        scale = ft(rng * ft(2.0 ** -digits))
        itype = np.int64 if digits == 53 else np.int32

        def fill(c, o):
            k = gen._low_bits(c, digits).view(itype)
            if q:
                k += itype(q)
            np.multiply(k, scale, out=o, dtype=ft)
        return fill
    if digits == 53:
        return lambda c, o: np.copyto(o, _mad64(gen._unif_f64(c), rng, lo))
    if _CAPABILITY["fused"]:
        # k * 2**-24 * (to - from) is exact in float64, so one cast rounds like the FMA
        scale = f64(rng) * 2.0 ** -24

        def fill(c, o):
            t = np.multiply(gen._bits24(c), scale, dtype=f64)
            np.add(t, f64(lo), out=o, casting="unsafe")
        return fill

    def fill(c, o):
        gen._unif_f32(c, out=o)
        o *= rng
        o += lo
    return fill


class _Top:
    """A stand-in generator whose draws are all ones: the kernel's largest value (its map is monotone)."""
    _fresh_next = None

    def _low_bits(self, n, k):
        return np.full(n, (1 << k) - 1, np.uint64 if k > 32 else np.uint32)

    def _bits24(self, n):
        return self._low_bits(n, 24)

    def _unif_f32(self, n, out=None):
        return np.multiply(self._low_bits(n, 24), f32(2.0 ** -24), out=out, dtype=f32)

    def _unif_f64(self, n, out=None):
        return np.multiply(self._low_bits(n, 53).view(np.int64), 2.0 ** -53, out=out, dtype=f64)


def _uniform_top(digits, lo, hi):
    out = np.empty(1, f64 if digits == 53 else f32)
    _uniform_fill(_Top(), digits, lo, hi)(1, out)
    return out


def _clamp(x, top, to, frm):
    """Rounding may reach ``to``; torch returns ``from`` there. ``top`` is the largest reachable value."""
    if top >= to:
        if x.dtype == np.float16:    # NumPy compares half floats one by one: compare the bits
            bits = x.view(np.uint16)
            hit = (bits & 0x7FFF) == 0 if to == 0 else bits == np.float16(to).view(np.uint16)
        else:
            hit = x == to
        if hit.any():
            x[hit] = frm
    return x


# --- integers -------------------------------------------------------------------------------------

def _int_out(v, dt):
    """static_cast<T>(static_cast<int64_t>(v)) for int64 values v."""
    if dt is D.bool_:
        return v != 0
    if dt is D.float64:
        return v.astype(f64)
    if dt.is_floating_point:
        return to_host(v.astype(f32), dt)
    return v.astype(dt._np, copy=False)


def _mod(v, r):
    # NumPy divides by a scalar fast (libdivide) but its remainder is slow: v - (v // r) * r in place
    r = v.dtype.type(r)
    q = v // r
    q *= r
    np.subtract(v, q, out=q)
    return q


def _host_dtype(dt):
    # what _int_out returns for dt, so chunks can be written into one array
    if dt is D.bool_:
        return np.bool_
    if dt.is_floating_point:
        return f64 if dt is D.float64 else f32
    return dt._np


def random_from_to(gen, n, dt, rng, base):
    """uniform_int_from_to_distribution: (draw % range) + from; 64-bit draws once range >= 2**28."""
    wide = rng >= 1 << 28
    if N.on() and n and dt in (D.int64, D.int32):
        out = np.empty(n, dt._np)
        N.call(gen, "ms_randint", n, out.ctypes.data, n, rng, base, wide, dt is D.int32)
        return out
    small = rng <= 1 << 62 and -(1 << 62) <= base <= 1 << 62

    def fill(c, o):
        v = _mod(gen._u64(c) if wide else gen._u32(c), rng)
        if small:
            v = v.astype(np.int64)
            v += base
        else:
            v = v.astype(np.uint64)
            v += np.uint64(base & _MASK64)
            v = v.view(np.int64)
        o[...] = _int_out(v, dt)
    return chunked(n, _host_dtype(dt), fill)


def random_full64(gen, n, dt):
    return chunked(n, _host_dtype(dt), lambda c, o: np.copyto(o, _int_out(gen._u64(c).view(np.int64), dt)))


_DEFAULT_MOD = {D.float32: (1 << 24) + 1, D.float16: (1 << 11) + 1, D.bfloat16: (1 << 8) + 1, D.uint8: 256,
                D.int8: 128, D.int16: 1 << 15, D.int32: 1 << 31}


def random_default(gen, n, dt):
    """uniform_int_distribution: [0, max(T)] for integers, [0, 2**digits] for floating types."""
    if dt is D.bool_:
        return chunked(n, np.bool_, lambda c, o: np.copyto(o, gen._low_bits(c, 1), casting="unsafe"))
    if dt is D.int64:
        return chunked(n, np.int64, lambda c, o: np.copyto(o, gen._low_bits(c, 63).view(np.int64)))
    if dt is D.float64:
        return chunked(n, f64, lambda c, o: np.copyto(o, _mod(gen._u64(c), (1 << 53) + 1), casting="unsafe"))
    mod = _DEFAULT_MOD[dt]
    return chunked(n, _host_dtype(dt),
                   lambda c, o: np.copyto(o, _int_out(_mod(gen._u32(c), mod).astype(np.int64), dt)))


# --- bernoulli and the transcendental families ----------------------------------------------------

def bernoulli_scalar(gen, n, p):
    """bernoulli_distribution<double>(p): a 53-bit uniform below p (torch's portable CPU path).

    u = v * 2**-53 < p compares the integer v with p * 2**-53 scaled back, exactly: v < ceil(p * 2**53).
    """
    thr = np.uint64(math.ceil(p * 2.0 ** 53))
    return chunked(n, np.bool_, lambda c, o: np.less(gen._low_bits(c, 53), thr, out=o))


def bernoulli_tensor(gen, p):
    """bernoulli with per-element probabilities ``p`` (already broadcast, in output order)."""
    if p.dtype == f64:
        flat = np.ascontiguousarray(p).ravel()
        unif = gen._unif_f64
    else:
        flat = np.ascontiguousarray(p, dtype=f32).ravel()
        unif = gen._unif_f32
    out = np.empty(flat.size, np.bool_)
    for s in range(0, flat.size, _CHUNK):
        part = flat[s:s + _CHUNK]
        np.less(unif(part.size), part, out=out[s:s + _CHUNK])
    return out


def exponential(gen, n, lambd):
    if n <= 2048:
        return (-1.0 / lambd) * _libm("log1p", -gen._unif_f64(n))

    def fill(c, o):          # large arrays take NumPy's log1p (see _libm)
        u = gen._unif_f64(c)
        np.negative(u, out=u)
        np.log1p(u, out=o)
        o *= -1.0 / lambd
    return chunked(n, f64, fill)


def cauchy(gen, n, median, sigma):
    u = gen._unif_f64(n)
    return _mad64(_libm("tan", math.pi * (u - 0.5)), f64(sigma), f64(median))


def log_normal(gen, n, mean, std):
    return _libm("exp", _mad64(normal_raw_scalar(gen, n), f64(std), f64(mean)))


def geometric(gen, n, p):
    return np.ceil(_libm("log", gen._unif_f64(n)) / math.log1p(-p))


def multinomial_with_replacement(gen, probs, n_sample):
    """probs: (n_dist, n_categories) in the accumulation dtype; returns int64 (n_dist, n_sample)."""
    n_dist, n_cat = probs.shape
    cum = np.cumsum(probs, axis=1, dtype=probs.dtype)      # sequential, like the kernel's loop
    cum /= cum[:, -1:]
    cum[:, -1] = 1
    cum = cum.astype(f64)
    u = gen._unif_f64(n_dist * n_sample).reshape(n_dist, n_sample)
    out = np.empty((n_dist, n_sample), np.int64)
    if N.on() and n_cat:
        N.LIB.ms_searchsorted(np.ascontiguousarray(cum).ctypes.data, n_dist, n_cat, u.ctypes.data, n_sample,
                              out.ctypes.data)
        return out
    for i in range(n_dist):
        out[i] = np.searchsorted(cum[i], u[i], side="left")
    return out


def poisson(gen, lam):
    """sample_poisson for each rate in ``lam`` (float64, flat): a data-dependent number of draws."""
    uni, finish = _uniform_reader(gen)
    out = np.empty(lam.size, f64)
    for idx, lmb in enumerate(lam.tolist()):
        out[idx] = _poisson_one(lmb, uni)
    finish()
    return out


def _c_int64(v):
    """C's (int64_t) conversion as x86 does it: NaN, infinities and values out of range give INT64_MIN
    (sample_poisson of an infinite rate returns it, -9.2e18 as a float)."""
    return int(v) if v == v and -2.0 ** 63 <= v < 2.0 ** 63 else -2 ** 63


def _poisson_one(lmb, uni):
    if lmb >= 10:
        # transformed rejection (Hoermann 1993), as ATen's sample_poisson
        slam, loglam = math.sqrt(lmb), math.log(lmb)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = uni() - 0.5
            v = uni()
            us = 0.5 - abs(u)
            k = _c_int64(math.floor(x) if math.isfinite(x := (2 * a / us + b) * u + lmb + 0.43) else x)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (_MATH["log"](v) + math.log(invalpha) - math.log(a / (us * us) + b)
                    <= -lmb + k * loglam - math.lgamma(k + 1.0)):
                return k
    if lmb == 0:
        return 0
    enlam = math.exp(-lmb)
    x, prod = 0, 1.0
    while True:
        prod *= uni()
        if prod > enlam:
            x += 1
        else:
            return x


# Stirling's series remainder log(k!) - (k + 1/2) log(k + 1) + (k + 1) - log(sqrt(2 pi)), tabulated for k < 10
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k):
    if k < len(_STIRLING_TAIL):
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


_LOG1PF = None


def _log1p_scalar(x, single):
    """std::log1p of a float32 (glibc's log1pf, loaded once) or of a double."""
    global _LOG1PF
    if not single:
        return math.log1p(x)
    if _LOG1PF is None:
        import ctypes
        import ctypes.util
        f = ctypes.CDLL(ctypes.util.find_library("m")).log1pf
        f.restype, f.argtypes = ctypes.c_float, (ctypes.c_float,)
        _LOG1PF = f
    return _LOG1PF(float(x))


def _binomial_inversion(count, prob, uni, single):
    """Count the geometric waiting times that fit in ``count`` trials (small count * prob)."""
    logprob = _log1p_scalar(-prob, single)
    geom_sum, num_geom = 0.0, 0
    while True:
        geom = _MATH["log"](uni()) / logprob
        geom_sum += math.ceil(geom) if math.isfinite(geom) else geom   # (a subnormal prob: inf, as C's ceil)
        if geom_sum > count:
            return num_geom
        num_geom += 1


def _btrs(count, prob, uni, single):
    """Hormann's transformed rejection with squeeze (BTRS), with ATen's deviation (the log taken of the
    rescaled v, not of v). ``count``, ``prob``: the kernel's scalar_t values (NumPy float32 when ``single``),
    so the products it forms in scalar_t round as torch's; the coefficients are doubles."""
    stddev = float(np.sqrt(count * prob * (1 - prob)))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * float(prob)
    c = float(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(prob / (1 - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = float(np.floor((count + 1) * prob))
    n = float(count)
    while True:
        u = uni() - 0.5
        v = uni()
        us = 0.5 - abs(u)
        k = (2 * a / us + b) * u + c
        k = float(math.floor(k)) if math.isfinite(k) else k   # (an infinite count: inf or NaN, as C's floor)
        if single:
            k = float(np.float32(k))
        if k < 0 or k > n:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = _MATH["log"](v * alpha / (a / (us * us) + b))
        upperbound = ((m + 0.5) * _MATH["log"]((m + 1) / (r * (n - m + 1)))
                      + (n + 1) * _MATH["log"]((n - m + 1) / (n - k + 1))
                      + (k + 0.5) * _MATH["log"](r * (n - k + 1) / (k + 1))
                      + _stirling_tail(m) + _stirling_tail(n - m) - _stirling_tail(k) - _stirling_tail(n - k))
        if v <= upperbound:
            return k


def _binomial_one(count, prob, uni, single):
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return float(count)
    if prob <= 0.5:
        if count * prob >= 10.0:
            return _btrs(count, prob, uni, single)
        return _binomial_inversion(count, prob, uni, single)
    if prob > 0.5:
        qprob = 1 - prob    # (scalar_t arithmetic)
        if count * qprob >= 10.0:
            return float(count - _btrs(count, qprob, uni, single))
        return float(count - _binomial_inversion(count, qprob, uni, single))
    return math.nan


def binomial(gen, count, prob, single):
    """ATen's sample_binomial for each (count, prob) pair (flat arrays of the tensor's dtype), on the
    generator's uniform_real_distribution<double> draws: a data-dependent number of draws per element."""
    uni, finish = _uniform_reader(gen)
    out = np.empty(count.size, f64)
    to = np.float32 if single else float
    for idx, (n, p) in enumerate(zip(count.tolist(), prob.tolist())):
        out[idx] = _binomial_one(to(n), to(p), uni, single)
    finish()
    return out


def _uniform_reader(gen):
    """A function drawing the generator's doubles one at a time (read ahead in blocks), and one to call at
    the end that leaves the generator advanced by exactly the draws taken."""
    saved = gen._bg.state
    state = {"buf": [], "pos": 0, "used": 0}

    def uni():
        if state["pos"] == len(state["buf"]):
            state["buf"], state["pos"] = gen._unif_f64(256).tolist(), 0
        state["pos"] += 1
        state["used"] += 1
        return state["buf"][state["pos"] - 1]

    def finish():
        gen._bg.state = saved        # give back the draws read ahead but not consumed
        if state["used"]:
            gen._u64(state["used"])
    return uni, finish


_ONE_THIRD_F = float(np.float32(1.0) / np.float32(3.0))
_SQUEEZE_F = float(np.float32(0.0331))


def _c_pow(base, exp):
    """C's pow (the same libm as Python's math.pow, bit for bit), with its overflow to inf where
    math.pow raises (a tiny negative alpha)."""
    try:
        return math.pow(base, exp)
    except OverflowError:
        return math.inf


def _gamma_one(gen, alpha, single):
    """ATen's sample_gamma for one shape ``alpha`` (Marsaglia and Tsang's acceptance-rejection, alpha < 1
    boosted by a uniform power), on the generator's uniform_real_distribution<double> and
    normal_distribution<double> draws. ``single``: alpha is a float32 (torch's scalar_t arithmetic on it is
    float's) ."""
    scale = 1.0
    if single:
        a = f32(alpha)   # (NumPy scalars: float32 arithmetic, a NaN or infinity without an error)
        if a < 1.0:
            if a == 0:
                return 0.0
            with np.errstate(all="ignore"):
                scale *= math.pow(1 - float(gen._unif_f64(1)[0]), float(f32(1.0) / a))
            a = f32(a + f32(1.0))
        d = float(f32(a - f32(_ONE_THIRD_F)))
    else:
        a = alpha
        if a < 1.0:
            if a == 0:
                return 0.0
            scale *= _c_pow(1 - float(gen._unif_f64(1)[0]), 1.0 / a)
            a += 1.0
        d = a - _ONE_THIRD_F
    with np.errstate(all="ignore"):   # (C's sqrt/log of a non-positive value: NaN or -inf, no error)
        c = float(f64(1.0) / np.sqrt(f64(9.0 * d)))
    while True:
        while True:
            x = float(normal_raw_scalar(gen, 1)[0])
            y = 1.0 + c * x
            if not y <= 0:
                break
        v = y * y * y
        u = 1 - float(gen._unif_f64(1)[0])
        xx = x * x
        if u < 1.0 - _SQUEEZE_F * xx * xx:
            return scale * d * v
        with np.errstate(all="ignore"):
            if math.log(u) < 0.5 * xx + d * (1.0 - v + float(np.log(f64(v)))):
                return scale * d * v


def standard_gamma(gen, alpha, single):
    """sample_gamma for each shape in ``alpha`` (flat float64), clamped below at the dtype's smallest normal
    as torch's kernel does (std::max, so a NaN sample becomes that value too)."""
    tiny = float(np.finfo(np.float32 if single else np.float64).tiny)
    out = np.empty(alpha.size, f64)
    for i, a in enumerate(alpha.tolist()):
        s = _gamma_one(gen, a, single)
        s = float(f32(s)) if single else s
        out[i] = s if tiny < s else tiny
    return out
