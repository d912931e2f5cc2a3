"""torch's normal sampling on the CPU: Box-Muller over blocks of 16 uniforms (``normal_fill``), with the
AVX2 kernel's float arithmetic (avx_mathfun's ``log256_ps``/``sincos256_ps``, FMA where GCC contracts)
reproduced operation by operation, and the scalar ``normal_distribution<double>`` for short or
non-contiguous tensors.

The AVX2 emulation works on whole chunks of blocks at once. Every float32 operation of the kernel is one
NumPy operation; a fused multiply-add ``round(a*b + c)`` of float32 values is computed in float64 (the
product is exact there) and rounded once to float32 by writing the sum into a float32 array.
"""
import math

import numpy as np

from .. import _dtype as D
from . import native as N
from .exact import _CAPABILITY, _fma32, _fma64, _libm, _mad64, f32, f64, to_host

i32 = np.int32

_LOG_P = [f32(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                           1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
                           3.3333331174E-1)]
_LOG_Q1, _LOG_Q2 = f32(-2.12194440e-4), f32(0.693359375)
_FOPI = f32(1.27323954473516)
_DP1, _DP2, _DP3 = f32(-0.78515625), f32(-2.4187564849853515625e-4), f32(-3.77489497744594108e-8)
_COS_P = (f32(2.443315711809948E-005), f32(-1.388731625493765E-003), f32(4.166664568298827E-002))
_SIN_P = (f32(-1.9515295891E-4), f32(8.3321608736E-3), f32(-1.6666654611E-1))
_TWO_PI_F = f32(2.0 * math.pi)
_THETA_SCALE = _TWO_PI_F * f32(2.0 ** -24)   # 2pi * (k * 2**-24) == k * (2pi * 2**-24): the scaling is exact
_BLOCKS = 2048                                # blocks of 16 per pass: temporaries stay in cache


def _fma_into(a, b64, c, out):
    """out = round32(a * b + c) for float32 ``a``, float32 values ``b64`` held in float64, scalar/array c."""
    t = np.multiply(a, b64)
    np.add(t, c, out=out, casting="unsafe")
    return out


def _radius(k1):
    """sqrt(-2 * log256(u1)) for u1 = 1 - k1 * 2**-24 (k1: 24-bit integers), as the AVX2 kernel computes it.

    u1 is (2**24 - k1) * 2**-24; the integer converts exactly, and its float bits differ from u1's only
    by 24 in the exponent field, which is folded into the exponent constant.
    """
    v = np.subtract(16777216, k1, dtype=f32)
    b = v.view(i32)
    mant = b & i32(0x7FFFFF)
    small = mant - i32(0x3504F3)
    small >>= 31                                       # -1 where the mantissa is below sqrt(1/2)
    np.right_shift(b, 23, out=b)
    b += small
    e = np.add(b, f32(-150), dtype=f32)                # exponent of u1 (+1 adjust for small mantissas)
    mant |= i32(0x3F000000)                            # m in [0.5, 1)
    m = mant.view(f32)
    x = m - f32(1)
    mant &= small
    x += m                                             # where small: 2m - 1 (mant now holds m or 0)
    z = x * x
    x64 = x.astype(f64)
    y = np.empty_like(x)
    np.add(np.multiply(x64, _LOG_P[0]), _LOG_P[1], out=y, casting="unsafe")
    for p in _LOG_P[2:]:
        _fma_into(y, x64, p, y)
    y *= x
    t = np.multiply(y, z.astype(f64))
    np.add(t, e * _LOG_Q1, out=y, casting="unsafe")    # e * q1 rounds in float32 before the fused add
    z *= f32(0.5)
    y -= z
    x += y
    e *= _LOG_Q2                                       # exact: small integer times a 9-bit constant
    x += e
    x *= f32(-2)
    return np.sqrt(x, out=x)


def _sincos(k2):
    """(sin, cos) of theta = 2pi * k2 * 2**-24 as sincos256_ps computes them (theta in [0, 2pi))."""
    theta = np.multiply(k2, _THETA_SCALE, dtype=f32)
    j = np.multiply(theta, _FOPI).astype(i32)
    j += 1
    j &= i32(~1)                                       # octant, rounded up to even: 0, 2, 4, 6 or 8
    y = j.astype(f32)
    x = y * _DP1                                       # the first two products are exact: the FMAs
    x += theta                                         # round once, like these additions
    theta = np.multiply(y, _DP2, out=theta)
    x += theta
    t = np.multiply(y, _DP3, dtype=f64)
    np.add(t, x, out=x, casting="unsafe")
    z = x * x
    z64 = z.astype(f64)
    c = np.empty_like(x)
    np.add(np.multiply(z64, _COS_P[0]), _COS_P[1], out=c, casting="unsafe")
    _fma_into(c, z64, _COS_P[2], c)
    c *= z
    h = z * f32(0.5)
    _fma_into(c, z64, np.negative(h, out=h), c)
    c += f32(1)
    s = np.empty_like(x)
    np.add(np.multiply(z64, _SIN_P[0]), _SIN_P[1], out=s, casting="unsafe")
    _fma_into(s, z64, _SIN_P[2], s)
    s *= z
    np.multiply(s, x, out=z64, dtype=f64)
    np.add(z64, x, out=s, casting="unsafe")
    si, ci = s.view(i32), c.view(i32)
    d = si ^ ci
    sw = j & i32(2)
    sw <<= 30
    sw >>= 31                                          # -1 where sine and cosine trade places
    d &= sw
    si ^= d
    ci ^= d
    sw = j & i32(4)
    sw <<= 29
    si ^= sw
    j -= i32(2)
    np.invert(j, out=j)
    j &= i32(4)
    j <<= 29
    ci ^= j
    return s, c


def _normal_fill16_avx2(k, mean, std, out):
    """Box-Muller over blocks of 16 24-bit integers ``k`` (u = k * 2**-24, in draw order), as torch's AVX2
    normal_fill_16: the first 8 of a block give the radii, the last 8 the angles."""
    blocks = k.reshape(-1, 16)
    res = out.reshape(-1, 16)
    plain = f32(std) == 1 and f32(mean) == 0
    mean, std = f64(f32(mean)), f64(f32(std))
    for s in range(0, blocks.shape[0], _BLOCKS):
        b = blocks[s:s + _BLOCKS]
        o = res[s:s + _BLOCKS]
        r = _radius(b[:, :8]).reshape(-1, 8)
        sin, cos = _sincos(b[:, 8:])
        if plain:
            np.multiply(r, cos.reshape(-1, 8), out=o[:, :8])
            np.multiply(r, sin.reshape(-1, 8), out=o[:, 8:])
        else:
            cos *= r
            sin *= r
            np.add(np.multiply(cos, std, dtype=f64), mean, out=o[:, :8], casting="unsafe")
            np.add(np.multiply(sin, std, dtype=f64), mean, out=o[:, 8:], casting="unsafe")
    if plain:
        out += f32(0)          # fma(n, 1, 0) turns -0 into +0
    return out


def _normal_fill16_scalar(k, mean, std, out):
    """The scalar NormalFill16<float> (x86 DEFAULT and non-x86 builds): logf, cosf and sinf per element.

    The C library's float functions are emulated as correctly rounded double results; they differ
    from glibc's in the last bit for a small fraction of inputs.
    """
    blocks = k.reshape(-1, 16)
    u1 = (16777216 - blocks[:, :8]).astype(f64) * 2.0 ** -24
    theta = ((2.0 * math.pi) * (blocks[:, 8:].astype(f64) * 2.0 ** -24)).astype(f32).astype(f64)
    radius = np.sqrt(f32(-2) * np.log(u1).astype(f32))
    res = out.reshape(-1, 16)
    res[:, :8] = _fma32(radius * np.cos(theta).astype(f32), f32(std), f32(mean))
    res[:, 8:] = _fma32(radius * np.sin(theta).astype(f32), f32(std), f32(mean))
    return out


def _fill16_f32(k, mean, std, out=None):
    out = np.empty(k.size, f32) if out is None else out
    if _CAPABILITY["avx2_normal"]:
        return _normal_fill16_avx2(k, mean, std, out)
    return _normal_fill16_scalar(k, mean, std, out)


def normal_raw_scalar(gen, n):
    """n draws of normal_distribution<double>: Box-Muller pairs, the second sample cached."""
    out = np.empty(n, f64)
    k = 0
    if n and gen._next_double is not None:
        out[0] = gen._next_double
        gen._next_double = None
        k = 1
    pairs = (n - k + 1) // 2
    if pairs:
        u = gen._unif_f64(2 * pairs)
        r = np.sqrt(-2.0 * _libm("log1p", -u[1::2]))
        theta = 2.0 * math.pi * u[0::2]
        both = np.empty(2 * pairs, f64)
        both[0::2] = r * _libm("cos", theta)
        both[1::2] = r * _libm("sin", theta)
        out[k:] = both[:n - k]
        if (n - k) % 2:
            gen._next_double = float(both[-1])
    return out


def normal(gen, n, dt, mean, std, contiguous=True):
    """normal_kernel: blocks of 16 (vectorised Box-Muller) for n >= 16, else the scalar path."""
    if n < 16 or not contiguous:
        return to_host(_mad64(normal_raw_scalar(gen, n), f64(std), f64(mean)), dt)
    if N.on():
        return _normal_native(gen, n, dt, mean, std)
    tail = n % 16
    if dt is D.float64:
        out = np.empty(n, f64)
        _normal_fill16_f64(gen._unif_f64(n)[:n - tail], mean, std, out[:n - tail])
        if tail:
            _normal_fill16_f64(gen._unif_f64(16), mean, std, out[n - 16:])
        return out
    out = np.empty(n, f32)
    body = n - tail
    step = _BLOCKS * 16
    for s in range(0, body, step):      # draws and transforms stretch by stretch (in cache)
        e = min(body, s + step)
        _fill16_f32(gen._bits24(e - s), mean, std, out[s:e])
    if dt is D.float32 and tail:
        gen._u32(tail)                  # float32 draws all n uniforms before redrawing the last 16
    if tail:                            # (half/bfloat16 fill a 16-float buffer per block instead)
        _fill16_f32(gen._bits24(16), mean, std, out[n - 16:])
    return out if dt is D.float32 else to_host(out, dt)


def _normal_native(gen, n, dt, mean, std):
    """normal() for n >= 16 in _fastrng.c: the same draws, blocks and casts."""
    tail = n % 16
    if dt is D.float64:
        out = np.empty(n, f64)
        N.call(gen, "ms_normal_f64", n, out.ctypes.data, n // 16, mean, std)
        if tail:
            gen._u64(tail)
            N.call(gen, "ms_normal_f64", 16, out[n - 16:].ctypes.data, 1, mean, std)
        return out
    out = np.empty(n, np.float16 if dt is D.float16 else f32)
    kind = N.BF16 if dt is D.bfloat16 else N.KIND[out.dtype]
    variant = 0 if _CAPABILITY["avx2_normal"] else 1
    N.call(gen, "ms_normal_f32", n, out.ctypes.data, 0, n // 16, variant, mean, std, kind)
    if dt is D.float32 and tail:
        gen._u32(tail)
    if tail:
        N.call(gen, "ms_normal_f32", 16, out.ctypes.data, n - 16, 1, variant, mean, std, kind)
    return out


def _normal_fill16_f64(u, mean, std, out):
    blocks = u.reshape(-1, 16)
    res = out.reshape(-1, 16)
    radius = np.sqrt(-2.0 * _libm("log", 1.0 - blocks[:, :8]))
    theta = np.multiply(blocks[:, 8:], 2.0 * math.pi)
    plain = std == 1 and mean == 0
    for half, fn in ((res[:, :8], "cos"), (res[:, 8:], "sin")):
        v = radius * _libm(fn, theta)
        half[...] = (v + 0.0) if plain else _fma64(v, f64(std), f64(mean))
    return out
