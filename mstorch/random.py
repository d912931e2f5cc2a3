"""torch.random: generators that reproduce PyTorch's CPU random streams.

torch's CPU generator is an MT19937 engine (seeded with ``init_genrand``, 32-bit outputs; ``random64``
joins two outputs, the first as the high word) plus two caches for Box-Muller's second sample. NumPy's
``MT19937`` bit generator produces the same 32-bit stream, so every distribution here draws the raw
outputs in bulk and applies torch's per-distribution transformation (read from ATen's
``DistributionTemplates.h`` / ``TransformationHelper.h``) vectorised on the host. ``get_rng_state``
uses torch's 5056-byte layout, so states move freely between torch and mstorch.

Kernels return NumPy arrays holding the values of the requested dtype (bfloat16 as float32 values that
are exactly representable in bfloat16); ``ops/random.py`` turns them into tensors.
"""
import array
import contextlib
import math
import operator
import os
import platform
import struct

import numpy as np
import mindspore as ms

from . import _dtype as D
from . import _runtime
from ._device import device as _device_cls

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "fork_rng"]

_DEFAULT_SEED = 67280421310721          # c10::detail::default_rng_seed_val
_STATE_SIZE = 5056                      # sizeof(CPUGeneratorImplState)
_N = 624
_MASK64 = (1 << 64) - 1
f32, f64 = np.float32, np.float64


def _unpack_seed(seed):
    """torch's Generator.manual_seed: an integer in [-2**63, 2**64), negatives taken modulo 2**64."""
    if isinstance(seed, float) or not hasattr(seed, "__index__"):
        raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    s = operator.index(seed)
    if 0 <= s <= _MASK64:
        return s
    if -(1 << 63) <= s < 0:
        return s & _MASK64
    raise RuntimeError("Overflow when unpacking long long")


class Generator:
    """Mirrors ``torch.Generator`` (CPU): an MT19937 stream, torch's seeding and state layout."""

    def __init__(self, device="cpu"):
        dev = device if isinstance(device, _device_cls) else _device_cls(device)
        if dev.type != "cpu":
            raise RuntimeError(
                f"mstorch.Generator: only the CPU generator (torch's MT19937 stream) exists; device "
                f"'{dev}' would need torch's Philox stream, which mstorch does not reproduce")
        self._bg = np.random.MT19937(0)
        self._rs = np.random.RandomState(self._bg)
        self._set_seed(_DEFAULT_SEED)

    # --- seeding and state --------------------------------------------------------------------

    def _set_seed(self, s):
        self._seed = s
        self._rs.seed(s & 0xFFFFFFFF)     # MT19937 init_genrand: what at::mt19937(seed) does
        self._fresh_next = 0              # torch's `next_` after seeding; NumPy has no such field
        self._next_double = None          # Box-Muller caches of CPUGeneratorImpl
        self._next_float = None

    @property
    def device(self):
        return _device_cls("cpu")

    def manual_seed(self, seed):
        self._set_seed(_unpack_seed(seed))
        return self

    def seed(self):
        s = int.from_bytes(os.urandom(8), "little")
        self._set_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        from ._tensor import wrap
        return wrap(ms.Tensor(np.frombuffer(self._state_bytes(), np.uint8).copy()))

    def set_state(self, new_state):
        from ._tensor import Tensor
        if not isinstance(new_state, Tensor) or new_state.dtype is not D.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        self._load_state_bytes(new_state._ms.asnumpy().tobytes())
        return self

    def clone_state(self):
        g = Generator()
        g._load_state_bytes(self._state_bytes())
        return g

    def _state_bytes(self):
        st = self._bg.state["state"]
        pos = int(st["pos"])
        left = 1 if pos >= _N else _N + 1 - pos
        nxt = self._fresh_next if (pos >= _N and self._fresh_next is not None) else pos
        buf = bytearray(_STATE_SIZE)
        struct.pack_into("<QiiQ", buf, 0, self._seed, left, 1, nxt)
        buf[24:24 + 8 * _N] = np.asarray(st["key"], dtype="<u8").tobytes()
        if self._next_double is not None:
            struct.pack_into("<d", buf, 5024, self._next_double)
            struct.pack_into("<i", buf, 5040, 1)
        if self._next_float is not None:
            struct.pack_into("<f?", buf, 5048, self._next_float, True)
        return bytes(buf)

    def _load_state_bytes(self, raw):
        if len(raw) != _STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found the input "
                               f"RNG state size to be {len(raw)}")
        seed, left, seeded, nxt = struct.unpack_from("<QiiQ", raw, 0)
        nxt &= 0xFFFFFFFF
        if not (seeded & 0xFF and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        key = np.frombuffer(raw, "<u8", _N, 24).astype(np.uint32)
        self._bg.state = {"bit_generator": "MT19937",
                          "state": {"key": key, "pos": _N if left == 1 else _N + 1 - left}}
        self._seed = seed
        self._fresh_next = nxt if left == 1 else None
        (valid_d,) = struct.unpack_from("<i", raw, 5040)
        self._next_double = struct.unpack_from("<d", raw, 5024)[0] if valid_d else None
        fval, valid_f = struct.unpack_from("<f?", raw, 5048)
        self._next_float = fval if valid_f else None

    def __getstate__(self):
        return {"state": self._state_bytes()}

    def __setstate__(self, d):
        self.__init__()
        self._load_state_bytes(d["state"])

    # --- raw draws ----------------------------------------------------------------------------

    def _u32(self, n):
        """``n`` outputs of CPUGeneratorImpl::random() (uint32)."""
        self._fresh_next = None
        return self._rs.randint(0, 4294967296, size=n, dtype=np.uint32)

    def _u64(self, n):
        """``n`` outputs of random64(): the first 32-bit draw is the high word."""
        v = self._u32(2 * n).view(np.uint64)       # little-endian pairs: first draw in the low word
        w = v << np.uint64(32)
        w |= v >> np.uint64(32)
        return w

    def _bits24(self, n):
        """The low 24 bits of n random() draws, as int32 (uniform_real_distribution<float>'s k)."""
        r = self._u32(n)
        np.bitwise_and(r, 0xFFFFFF, out=r)
        return r.view(np.int32)

    def _unif_f32(self, n):
        """uniform_real_distribution<float>(0, 1): the low 24 bits of random() times 2**-24."""
        x = self._bits24(n).astype(f32)
        x *= f32(2.0 ** -24)
        return x

    def _unif_f64(self, n):
        """uniform_real_distribution<double>(0, 1): the low 53 bits of random64() times 2**-53."""
        v = self._u64(n)
        np.bitwise_and(v, np.uint64((1 << 53) - 1), out=v)
        x = v.view(np.int64).astype(f64)
        x *= 2.0 ** -53
        return x


def _check_generator(generator):
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a torch.Generator, but got {type(generator).__name__}")
    return generator


default_generator = Generator()
default_generator._set_seed(int.from_bytes(os.urandom(8), "little"))


def manual_seed(seed):
    """Mirrors ``torch.manual_seed``; returns the default Generator."""
    return default_generator.manual_seed(int(seed))


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"):
    """Mirrors ``torch.random.fork_rng``: restores the CPU generator's state on exit."""
    if not enabled:
        yield
        return
    if devices:
        raise RuntimeError(f"mstorch.random.fork_rng: {_devices_kw}={list(devices)!r} names {device_type} "
                           "generators; mstorch has only the CPU generator")
    state = default_generator._state_bytes()
    try:
        yield
    finally:
        default_generator._load_state_bytes(state)


# --- internal entry points for nn.init, dropout and samplers (they call these, not the Tensor methods,
# to skip argument parsing); each writes torch's stream into ``tensor`` in place and returns it

def _uniform_(tensor, a=0.0, b=1.0, generator=None):
    from .ops import random as ops_random
    return ops_random.uniform_(tensor, a, b, generator=generator)


def _normal_(tensor, mean=0.0, std=1.0, generator=None):
    from .ops import random as ops_random
    return ops_random.normal_(tensor, mean, std, generator=generator)


def _bernoulli_(tensor, p, generator=None):
    """torch's ``bernoulli_(p)`` (what dropout draws its mask with: ``bernoulli_(1 - p)``)."""
    from .ops import random as ops_random
    return ops_random.bernoulli_(tensor, p, generator=generator)


# --- which of torch's CPU kernels this machine runs -----------------------------------------------
# torch picks a kernel build per CPU (ATEN_CPU_CAPABILITY overrides): x86 builds for AVX2/AVX512 are
# compiled with FMA, so ``a * b + c`` in a kernel rounds once, and normal_ uses the AVX2 Box-Muller with
# avx_mathfun's log/sin/cos; the DEFAULT x86 build rounds twice and uses the scalar Box-Muller; other
# CPUs (aarch64) fuse like the AVX builds and take the scalar Box-Muller.

def _x86_has_avx2():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = line.split()
                    return "avx2" in flags and "fma" in flags
    except OSError:
        pass
    return True     # no /proc (macOS): x86 Macs since 2013 have AVX2


def _detect_capability():
    env = os.environ.get("ATEN_CPU_CAPABILITY", "").strip().lower()
    if platform.machine().lower() not in ("x86_64", "amd64", "i386", "i686"):
        return "other"
    if env == "default" or not _x86_has_avx2():
        return "default"
    return "avx2"


_CAPABILITY = {"name": None, "fused": True, "avx2_normal": True}


def _set_cpu_capability(name):
    """'avx2' (also AVX512 builds), 'default' (x86 without AVX2) or 'other' (e.g. aarch64)."""
    if name not in ("avx2", "default", "other"):
        raise ValueError(f"unknown CPU capability {name!r}")
    _CAPABILITY.update(name=name, fused=name != "default", avx2_normal=name == "avx2")


_set_cpu_capability(_detect_capability())


# --- exact arithmetic helpers -------------------------------------------------------------------

def _mad64(a, b, c):
    if _CAPABILITY["fused"]:
        return _fma64(a, b, c)
    return np.asarray(a, f64) * b + c


def _fma32(a, b, c):
    # float32 product is exact in float64; one rounding of the sum except in vanishingly rare cases
    return (np.asarray(a, f64) * f64(b) + c).astype(f32)


def _fma64(a, b, c):
    """a*b + c rounded once in float64: Dekker's exact product, then an error-free sum (exact but for
    double-rounding ties, which need ~2**-50 luck)."""
    a = np.asarray(a, f64)
    if b == 1.0 and c == 0.0:
        return a + 0.0
    p = a * b
    sa = a * 134217729.0
    ah = sa - (sa - a)
    al = a - ah
    bh = b * 134217729.0
    bh = bh - (bh - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    return s + (t + e)


def _safe(fn):
    def g(v):
        try:
            return fn(v)
        except (ValueError, OverflowError):
            return float("-inf") if fn is math.log else float("inf")
    return g


_MATH = {"log": _safe(math.log), "log1p": math.log1p, "exp": _safe(math.exp), "tan": math.tan,
         "cos": math.cos, "sin": math.sin}
# NumPy's float64 cos/sin call the C library; log1p has no exact vectorised form (NumPy's differs by 1 ulp)
_NUMPY_FUNCS = ("cos", "sin", "log1p")


def _libm(name, x):
    """The C library's double ``name`` (what torch's scalar kernels call) over a float64 array.

    Small arrays go through Python's math module (the same libm); large ones through MindSpore's CPU
    kernels, which call it too. NumPy's SIMD log/exp/tan differ from libm in the last bit; log1p
    has no exact vectorised form, so large log1p arrays may differ from torch by 1 ulp (float64).
    """
    if x.size <= 2048:
        f = _MATH[name]
        return np.array([f(v) for v in x.ravel().tolist()], f64).reshape(x.shape)
    if name in _NUMPY_FUNCS or _runtime.device_target() != "CPU":
        return getattr(np, name)(x)
    return getattr(ms.ops, name)(ms.Tensor(x)).asnumpy()


def bf16_round(x):
    """float32 -> the nearest bfloat16 value (round half to even), kept as float32."""
    x = np.asarray(x, f32)
    b = x.view(np.uint32)
    r = (b + (np.uint32(0x7FFF) + ((b >> 16) & 1))) & np.uint32(0xFFFF0000)
    out = r.view(f32)
    if np.isnan(x).any():
        out = np.where(np.isnan(x), f32(np.nan), out)
    return out


def to_host(x, dt):
    """Cast computed values to ``dt`` as C++'s static_cast does (half/bfloat16 via float)."""
    if dt is D.bfloat16:
        return bf16_round(x.astype(f32))
    if dt is D.bool_:
        return x != 0
    if dt is D.float16:
        with np.errstate(over="ignore"):      # beyond float16's range gives inf, as in C++
            return x.astype(f32).astype(np.float16)
    if x.dtype.kind == "f" and not dt.is_floating_point:
        with np.errstate(invalid="ignore"):
            return x.astype(dt._np)
    return x.astype(dt._np, copy=False)


# --- torch's vectorised Box-Muller (NormalFill16<float> with avx_mathfun's log256_ps/sincos256_ps) --

_LOG_P = [f32(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                           1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
                           3.3333331174E-1)]
_SQRTHF, _LOG_Q1, _LOG_Q2 = f32(0.707106781186547524), f32(-2.12194440e-4), f32(0.693359375)
_FOPI = f32(1.27323954473516)
_DP1, _DP2, _DP3 = f32(-0.78515625), f32(-2.4187564849853515625e-4), f32(-3.77489497744594108e-8)
_COS_P = (f32(2.443315711809948E-005), f32(-1.388731625493765E-003), f32(4.166664568298827E-002))
_SIN_P = (f32(-1.9515295891E-4), f32(8.3321608736E-3), f32(-1.6666654611E-1))
_TWO_PI_F = f32(2.0 * math.pi)


def _log256(x):
    """avx_mathfun's log256_ps for x in (0, 1], operation by operation (FMA where GCC contracts).

    Selections use integer masks on the float bits, as the AVX code does (np.where is far slower).
    """
    bits = x.view(np.int32)
    mant = bits & np.int32(0x7FFFFF)
    small = (mant - np.int32(0x3504F3)) >> 31          # -1 where the mantissa is below sqrt(1/2)
    m = (mant | np.int32(0x3F000000)).view(f32)        # in [0.5, 1)
    e = ((bits >> 23) + (small - 126)).astype(f32)
    x = (m - f32(1)) + (m.view(np.int32) & small).view(f32)
    z = x * x
    x64 = x.astype(f64)
    y = (x64 * _LOG_P[0] + _LOG_P[1]).astype(f32)
    for p in _LOG_P[2:]:
        y64 = x64 * y
        y64 += p
        y = y64.astype(f32)
    y *= x
    y64 = z.astype(f64)
    y64 *= y
    y64 += e * _LOG_Q1
    y = y64.astype(f32)
    y -= z * f32(0.5)
    x += y
    x += e * _LOG_Q2
    return x


def _fma_z(z64, a, c):
    # round(z * a + c) for float32 z (given as float64), a and c
    t = z64 * a
    t += c
    return t.astype(f32)


def _sincos256(x):
    """avx_mathfun's sincos256_ps for x >= 0: (sin, cos)."""
    j = (x * _FOPI).astype(np.int32)
    j += 1
    j &= np.int32(~1)
    y = j.astype(f32)
    x = x + y * _DP1
    x += y * _DP2                      # both products are exact in float32: the FMA rounds once anyway
    t = y.astype(f64)
    t *= _DP3
    t += x
    x = t.astype(f32)
    z = x * x
    z64 = z.astype(f64)
    c = _fma_z(z64, _COS_P[0], _COS_P[1])
    c = _fma_z(z64, c, _COS_P[2])
    c *= z
    c = _fma_z(z64, c, -(z * f32(0.5)))
    c += f32(1)
    s = _fma_z(z64, _SIN_P[0], _SIN_P[1])
    s = _fma_z(z64, s, _SIN_P[2])
    s *= z
    t = s.astype(f64)
    t *= x
    t += x
    s = t.astype(f32)
    si, ci = s.view(np.int32), c.view(np.int32)
    d = si ^ ci
    d &= ((j & 2) << 30) >> 31        # -1 where the sine and cosine polynomials trade places
    si ^= d
    ci ^= d
    si ^= (j & 4) << 29
    ci ^= (~(j - 2) & 4) << 29
    return si.view(f32), ci.view(f32)


def _normal_fill16_f32(k, mean, std):
    """Box-Muller over blocks of 16 uniforms, as torch's AVX2 normal_fill_16.

    ``k`` holds the 24-bit integers behind the float uniforms (u = k * 2**-24), in draw order.
    """
    blocks = k.reshape(-1, 16)
    out = np.empty(blocks.shape, f32)
    plain = f32(std) == 1 and f32(mean) == 0
    mean, std = f64(f32(mean)), f64(f32(std))
    step = 2048   # blocks per pass: keeps the temporaries in cache
    for s in range(0, blocks.shape[0], step):
        b = blocks[s:s + step]
        u1 = (16777216 - b[:, :8]).astype(f32).ravel()      # 1 - u, exactly
        u1 *= f32(2.0 ** -24)
        theta = b[:, 8:].astype(f32).ravel()
        theta *= _TWO_PI_F * f32(2.0 ** -24)                # == 2pi * u: scaling by 2**-24 is exact
        radius = _log256(u1)
        radius *= f32(-2)
        radius = np.sqrt(radius, out=radius)
        sin, cos = _sincos256(theta)
        cos *= radius
        sin *= radius
        if plain:
            cos += f32(0)      # fma(n, 1, 0) turns -0 into +0
            sin += f32(0)
        else:
            cos = (cos.astype(f64) * std + mean).astype(f32)
            sin = (sin.astype(f64) * std + mean).astype(f32)
        out[s:s + step, :8] = cos.reshape(-1, 8)
        out[s:s + step, 8:] = sin.reshape(-1, 8)
    return out.reshape(-1)


def _normal_fill16_f32_scalar(k, mean, std):
    """The scalar NormalFill16<float> (x86 DEFAULT and non-x86 builds): logf, cosf and sinf per element.

    The C library's float functions are emulated as correctly rounded double results; they differ
    from glibc's in the last bit for a small fraction of inputs.
    """
    blocks = k.reshape(-1, 16)
    u1 = (16777216 - blocks[:, :8]).astype(f64) * 2.0 ** -24
    theta = ((2.0 * math.pi) * (blocks[:, 8:].astype(f64) * 2.0 ** -24)).astype(f32).astype(f64)
    radius = np.sqrt(f32(-2) * np.log(u1).astype(f32))
    out = np.empty(blocks.shape, f32)
    out[:, :8] = _fma32(radius * np.cos(theta).astype(f32), f32(std), f32(mean))
    out[:, 8:] = _fma32(radius * np.sin(theta).astype(f32), f32(std), f32(mean))
    return out.reshape(-1)


def _fill16_f32(k, mean, std):
    if _CAPABILITY["avx2_normal"]:
        return _normal_fill16_f32(k, mean, std)
    return _normal_fill16_f32_scalar(k, mean, std)


_CHUNK = 1 << 15   # values per pass: temporaries stay small (no page faults, warm caches)


def _by_chunks(kernel, gen, n, *args):
    """Run ``kernel(gen, count, *args)`` over consecutive chunks (each draws the next part of the stream)."""
    if n <= _CHUNK:
        return kernel(gen, n, *args)
    first = kernel(gen, _CHUNK, *args)
    out = np.empty(n, first.dtype)
    out[:_CHUNK] = first
    for s in range(_CHUNK, n, _CHUNK):
        e = min(n, s + _CHUNK)
        out[s:e] = kernel(gen, e - s, *args)
    return out


# --- distributions: NumPy arrays of n values, consuming the stream exactly as torch's CPU kernels ---

def uniform(gen, n, dt, low, high):
    """uniform_kernel: (bits * 2**-k) * (to - from) + from, one rounding, clamped below ``to``."""
    return _by_chunks(_uniform, gen, n, dt, low, high)


def _uniform(gen, n, dt, low, high):
    unit = low == 0 and high == 1
    if dt is D.float64:
        x = gen._unif_f64(n)
        if unit:
            return x
        x = _mad64(x, f64(high) - f64(low), f64(low))
        to, frm = f64(high), f64(low)
    else:
        lo, hi = f32(low), f32(high)
        if unit:
            x = gen._unif_f32(n)
            if dt is D.float32:
                return x
        elif _CAPABILITY["fused"]:
            # k * 2**-24 * (to - from) is exact in float64, so one cast rounds like the FMA
            x = gen._bits24(n).astype(f64)
            x *= f64(hi - lo) * 2.0 ** -24
            x += f64(lo)
            x = x.astype(f32)
        else:
            x = gen._unif_f32(n) * (hi - lo) + lo
        x = to_host(x, dt)
        to, frm = to_host(np.array([high, low], f64), dt)
    hit = x == to          # the cast to the dtype may round up to `to`: torch returns `from` then
    if hit.any():
        x[hit] = frm
    return x


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
    tail = n % 16
    if dt is D.float64:
        u = gen._unif_f64(n)
        out = _normal_fill16_f64(u[:n - tail], mean, std)
        if tail:
            out = np.concatenate([out[:n - 16], _normal_fill16_f64(gen._unif_f64(16), mean, std)])
        return out
    out = _by_chunks(lambda g, c: _fill16_f32(g._bits24(c), mean, std), gen, n - tail)
    if dt is D.float32 and tail:
        gen._u32(tail)                  # float32 draws all n uniforms before redrawing the last 16
    if tail:                            # (half/bfloat16 fill a 16-float buffer per block instead)
        out = np.concatenate([out[:n - 16], _fill16_f32(gen._bits24(16), mean, std)])
    return out if dt is D.float32 else to_host(out, dt)


def _normal_fill16_f64(u, mean, std):
    blocks = u.reshape(-1, 16)
    radius = np.sqrt(-2.0 * _libm("log", 1.0 - blocks[:, :8]))
    theta = (2.0 * math.pi) * blocks[:, 8:]
    out = np.empty_like(blocks)
    out[:, :8] = _fma64(radius * _libm("cos", theta), f64(std), f64(mean))
    out[:, 8:] = _fma64(radius * _libm("sin", theta), f64(std), f64(mean))
    return out.reshape(-1)


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


def random_from_to(gen, n, dt, rng, base):
    """uniform_int_from_to_distribution: (draw % range) + from; 64-bit draws once range >= 2**28."""
    return _by_chunks(_random_from_to, gen, n, dt, rng, base)


def _random_from_to(gen, n, dt, rng, base):
    if rng >= 1 << 28:
        v = _mod(gen._u64(n), rng)
    else:
        v = _mod(gen._u32(n), rng)
    if rng <= 1 << 62 and -(1 << 62) <= base <= 1 << 62:
        v = v.astype(np.int64)
        v += base
    else:
        v = v.astype(np.uint64)
        v += np.uint64(base & _MASK64)
        v = v.view(np.int64)
    return _int_out(v, dt)


def random_full64(gen, n, dt):
    return _int_out(gen._u64(n).view(np.int64), dt)


def random_default(gen, n, dt):
    """uniform_int_distribution: [0, max(T)] for integers, [0, 2**digits] for floating types."""
    return _by_chunks(_random_default, gen, n, dt)


def _random_default(gen, n, dt):
    if dt is D.bool_:
        return (gen._u32(n) & 1).astype(np.bool_)
    if dt is D.int64:
        return (gen._u64(n) & np.uint64((1 << 63) - 1)).view(np.int64)
    if dt is D.float64:
        return _mod(gen._u64(n), (1 << 53) + 1).astype(f64)
    mod = {D.float32: (1 << 24) + 1, D.float16: (1 << 11) + 1, D.bfloat16: (1 << 8) + 1, D.uint8: 256,
           D.int8: 128, D.int16: 1 << 15, D.int32: 1 << 31}[dt]
    v = _mod(gen._u32(n), mod).astype(np.int64)
    return _int_out(v, dt)


def bernoulli_scalar(gen, n, p):
    """bernoulli_distribution<double>(p): a 53-bit uniform below p (torch's portable CPU path)."""
    return _by_chunks(lambda g, c: g._unif_f64(c) < p, gen, n)


def bernoulli_tensor(gen, p):
    """bernoulli with per-element probabilities ``p`` (already broadcast, in output order)."""
    if p.dtype == f64:
        return gen._unif_f64(p.size) < p.ravel()
    return gen._unif_f32(p.size) < p.ravel().astype(f32)


def exponential(gen, n, lambd):
    return (-1.0 / lambd) * _libm("log1p", -gen._unif_f64(n))


def cauchy(gen, n, median, sigma):
    u = gen._unif_f64(n)
    return _mad64(_libm("tan", math.pi * (u - 0.5)), f64(sigma), f64(median))


def log_normal(gen, n, mean, std):
    return _libm("exp", _mad64(normal_raw_scalar(gen, n), f64(std), f64(mean)))


def geometric(gen, n, p):
    return np.ceil(_libm("log", gen._unif_f64(n)) / math.log1p(-p))


def randperm(gen, n):
    """randperm_cpu: Fisher-Yates over 0..n-1, swapping i with i + random() % (n - i)."""
    if n < 2:
        return np.arange(n, dtype=np.int64)
    if n >= 0xFFFFFFFF // 20:
        raise RuntimeError(f"mstorch.randperm: n={n} takes torch's random64 algorithm, not reproduced")
    i = np.arange(n - 1, dtype=np.int64)
    j = gen._u32(n - 1).astype(np.int64) % (n - i)
    j += i
    a = np.arange(n, dtype=np.int64)
    s, last = 0, n - 1
    while s < last:
        rem = n - s
        if rem <= 2048:                 # the short tail: one swap at a time
            tail = array.array("q", a[s:].tobytes())
            for k, t in enumerate((j[s:] - s).tolist()):
                tail[k], tail[t] = tail[t], tail[k]
            a[s:] = np.frombuffer(tail, np.int64)
            break
        # consecutive swaps (i, j_i) commute until a step's index is an earlier step's target or two
        # steps share a target: apply that conflict-free run at once
        e = min(last, s + max(64, math.isqrt(rem)))
        tgt = j[s:e]
        cut = e
        inside = tgt[(tgt < e) & (tgt != i[s:e])]
        if inside.size:
            cut = int(inside.min())
        order = np.argsort(tgt, kind="stable")
        dup = tgt[order[1:]] == tgt[order[:-1]]
        if dup.any():
            cut = min(cut, s + int(order[1:][dup].min()))
        t = tgt[:cut - s]
        held = a[s:cut].copy()
        a[s:cut] = a[t]
        a[t] = held
        s = cut
    return a


def multinomial_with_replacement(gen, probs, n_sample):
    """probs: (n_dist, n_categories) in the accumulation dtype; returns int64 (n_dist, n_sample)."""
    n_dist, n_cat = probs.shape
    cum = np.cumsum(probs, axis=1, dtype=probs.dtype)      # sequential, like the kernel's loop
    cum /= cum[:, -1:]
    cum[:, -1] = 1
    u = gen._unif_f64(n_dist * n_sample).reshape(n_dist, n_sample)
    out = np.empty((n_dist, n_sample), np.int64)
    for i in range(n_dist):
        out[i] = np.searchsorted(cum[i].astype(f64), u[i], side="left")
    return out


def poisson(gen, lam):
    """sample_poisson for each rate in ``lam`` (float64, flat): a data-dependent number of draws."""
    saved = gen._bg.state
    buf, pos, used = [], 0, 0
    out = np.empty(lam.size, f64)

    def uni():
        nonlocal buf, pos, used
        if pos == len(buf):
            buf, pos = gen._unif_f64(256).tolist(), 0
        pos += 1
        used += 1
        return buf[pos - 1]

    for idx, lmb in enumerate(lam.tolist()):
        out[idx] = _poisson_one(lmb, uni)
    gen._bg.state = saved         # give back the draws read ahead but not consumed
    if used:
        gen._u64(used)
    return out


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
            k = math.floor((2 * a / us + b) * u + lmb + 0.43)
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
