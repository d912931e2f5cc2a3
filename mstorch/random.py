"""torch.random: generators that reproduce PyTorch's CPU random streams.

torch's CPU generator is an MT19937 engine (seeded with ``init_genrand``, 32-bit outputs; ``random64``
joins two outputs, the first as the high word) plus two caches for Box-Muller's second sample. NumPy's
``MT19937`` bit generator produces the same 32-bit stream (and its ``next_uint64`` joins pairs the same
way), so every distribution draws the raw outputs in bulk and applies torch's per-distribution
transformation (read from ATen's ``DistributionTemplates.h`` / ``TransformationHelper.h``) vectorised on
the host: see ``mstorch/_random/`` (NumPy code, and the same computations in C when the optional native
library is built: ``mstorch/_random/native.py``). ``get_rng_state`` uses torch's 5056-byte layout, so states move
freely between torch and mstorch.

Kernels return NumPy arrays holding the values of the requested dtype (bfloat16 as float32 values that
are exactly representable in bfloat16); ``ops/random.py`` turns them into tensors.
"""
import contextlib
import operator
import os
import struct

import numpy as np
import mindspore as ms

from ._runtime import read_host
from . import _dtype as D
from ._device import device as _device_cls
# the kernels ops/random.py, nn and data code call through this module
from ._random.exact import (_CAPABILITY, _set_cpu_capability, bf16_round, to_host)  # noqa: F401
from ._random.boxmuller import normal, normal_raw_scalar  # noqa: F401
from ._random.kernels import (uniform, random_from_to, random_full64, random_default, bernoulli_scalar,  # noqa: F401
                              bernoulli_tensor, exponential, cauchy, log_normal, geometric,
                              multinomial_with_replacement, poisson, standard_gamma, binomial)
from ._random.perm import randperm  # noqa: F401
from ._random import native as _native

from . import _device

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


_NO_CUDA_GENERATOR = (
    "Cannot get CUDA generator without ATen_cuda library. PyTorch splits its backend into two shared libraries: a "
    "CPU library and a CUDA library; this error has occurred because you are trying to use some CUDA "
    "functionality, but the CUDA library has not been loaded by the dynamic linker for some reason.  The CUDA "
    "library MUST be loaded, EVEN IF you don't directly use any symbols from the CUDA library! One common "
    "culprit is a lack of -Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic "
    "library dependencies if you don't depend on any of their symbols.  You can check if this has occurred by "
    "using ldd on your binary to see if there is a dependency on *_cuda.so library.")


class Generator:
    """Mirrors ``torch.Generator``: on the CPU an MT19937 stream with torch's seeding and state layout; for
    an accelerator (``device='cuda'``) a ``DeviceGenerator``."""

    def __new__(cls, device="cpu"):
        if cls is Generator:
            dev = device if isinstance(device, _device_cls) else _device_cls(device)
            if dev.type == "meta":
                raise RuntimeError("META device type not an accelerator.")
            if dev.type != "cpu":
                if dev.type == "cuda" and _device.accel["kind"] is None:
                    raise RuntimeError(_NO_CUDA_GENERATOR)
                return object.__new__(DeviceGenerator)
        return object.__new__(cls)

    def __init__(self, device="cpu"):
        self._bg = np.random.MT19937(0)
        self._rs = np.random.RandomState(self._bg)
        self._mtp, self._bgp = _native.source(self._bg) if _native.LIB is not None else (None, None)
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
        self._load_state_bytes(read_host(new_state._ms).tobytes())
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
    # NumPy's bounded integers with a power-of-two range mask one draw per value (never rejecting), so
    # ``randint(0, 2**k)`` returns the low k bits of random() (k <= 32) or of random64() (k > 32).

    def _u32(self, n):
        """``n`` outputs of CPUGeneratorImpl::random() (uint32)."""
        return self._low_bits(n, 32)

    def _u64(self, n):
        """``n`` outputs of random64() (uint64)."""
        return self._low_bits(n, 64)

    def _low_bits(self, n, k):
        """The low ``k`` bits of ``n`` draws: random() for k <= 32 (uint32), random64() above (uint64)."""
        if n == 0:   # nothing drawn (an empty tensor): torch's generator state stays as it was
            return np.empty(0, np.uint32 if k <= 32 else np.uint64)
        self._fresh_next = None
        if _native.on():
            out = np.empty(n, np.uint32 if k <= 32 else np.uint64)
            _native.call(self, "ms_bits32" if k <= 32 else "ms_bits64", n, out.ctypes.data, n, (1 << k) - 1)
            return out
        return self._rs.randint(0, 1 << k, size=n, dtype=np.uint32 if k <= 32 else np.uint64)

    def _bits24(self, n):
        """The low 24 bits of n random() draws (uniform_real_distribution<float>'s integer k)."""
        return self._low_bits(n, 24)

    def _unif_f32(self, n, out=None):
        """uniform_real_distribution<float>(0, 1): the low 24 bits of random() times 2**-24."""
        return np.multiply(self._low_bits(n, 24), f32(2.0 ** -24), out=out, dtype=f32)

    def _unif_f64(self, n, out=None):
        """uniform_real_distribution<double>(0, 1): the low 53 bits of random64() times 2**-53."""
        return np.multiply(self._low_bits(n, 53).view(np.int64), 2.0 ** -53, out=out, dtype=f64)


class DeviceGenerator(Generator):
    """torch's CUDA generator on a device: a Philox stream keyed by (seed, offset), the 16-byte state torch's
    CUDA generator has (seed, then offset, little-endian). On a real device MindSpore's generator
    (``mindspore.Generator``, Philox, drawn by its device kernels) holds it; on simulated devices NumPy's
    Philox draws on the host. Neither reproduces torch's CUDA values bit for bit (docs/known-differences.md):
    seeding, state save and restore and reproducibility within mstorch behave as torch's."""

    def __init__(self, device="cuda"):
        self._dev = _device.placement(device)
        self._ms_gen = None if _device.accel["simulated"] else ms.Generator()
        self._set_seed(_DEFAULT_SEED)

    def _set_seed(self, s):
        self._seed, self._offset = s, 0
        if self._ms_gen is not None:   # (MindSpore keeps the seed as a signed 64-bit integer)
            self._ms_gen.manual_seed(s - (1 << 64) if s >= 1 << 63 else s)

    @property
    def device(self):
        return self._dev

    def get_state(self):
        from ._tensor import wrap
        if self._ms_gen is not None:
            return wrap(self._ms_gen.get_state().copy())
        return wrap(ms.Tensor(np.frombuffer(struct.pack("<Qq", self._seed, self._offset), np.uint8).copy()))

    def set_state(self, new_state):
        from ._tensor import Tensor
        if not isinstance(new_state, Tensor) or new_state.dtype is not D.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = read_host(new_state._ms).tobytes()
        if len(raw) != 16:
            raise RuntimeError("RNG state is wrong size")
        self._seed, self._offset = struct.unpack("<Qq", raw)
        if self._ms_gen is not None:
            self._ms_gen.set_state(ms.Tensor(np.frombuffer(raw, np.uint8).copy()))
        return self

    def clone_state(self):
        g = DeviceGenerator(self._dev)
        g.set_state(self.get_state())
        return g

    def __getstate__(self):
        return {"device": str(self._dev), "state": read_host(self.get_state()._ms).tobytes()}

    def __setstate__(self, d):
        from ._tensor import wrap
        self.__init__(d["device"])
        self.set_state(wrap(ms.Tensor(np.frombuffer(d["state"], np.uint8).copy())))

    def host_stream(self, n):
        """Simulated devices: a NumPy Philox stream at this generator's (seed, offset), advanced past ``n``
        values (in blocks of 4, as torch's Philox offsets)."""
        bits = np.random.Generator(np.random.Philox(key=self._seed, counter=[self._offset & _MASK64, 0, 0, 0]))
        self._offset += -(-max(int(n), 1) // 4) * 4
        return bits


def device_generator(dev):
    """The default generator of accelerator device ``dev`` (torch.cuda.default_generators[i])."""
    gens = device_generators()
    return gens[dev.index or 0]


_DEVICE_GENERATORS = {}


def device_generators():
    """torch.cuda.default_generators: one per device of the accelerator, seeded as torch's (its default seed,
    or the last torch.manual_seed)."""
    kind, count, simulated = _device.accel["kind"], _device.accel["count"], _device.accel["simulated"]
    if kind is None:
        return ()
    key = (kind, count, simulated)
    gens = _DEVICE_GENERATORS.get(key)
    if gens is None:
        gens = _DEVICE_GENERATORS[key] = tuple(DeviceGenerator(_device_cls(kind, i)) for i in range(count))
        if _LAST_SEED[0] is not None:
            for g in gens:
                g.manual_seed(_LAST_SEED[0])
    return gens


_LAST_SEED = [None]   # the last torch.manual_seed, for device generators made after it


def _check_generator(generator):
    """The CPU generator a host draw uses (torch's error for a device's generator)."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a torch.Generator, but got {type(generator).__name__}")
    if isinstance(generator, DeviceGenerator):
        raise RuntimeError(f"Expected a 'cpu' device type for generator but found '{generator.device.type}'")
    return generator


default_generator = Generator()
default_generator._set_seed(int.from_bytes(os.urandom(8), "little"))


def manual_seed(seed):
    """Mirrors ``torch.manual_seed``: seeds the CPU generator and every device's; returns the CPU one."""
    g = default_generator.manual_seed(int(seed))
    _LAST_SEED[0] = g.initial_seed()
    for dg in device_generators():
        dg.manual_seed(int(seed))
    return g


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
    """Mirrors ``torch.random.fork_rng``: restores the CPU generator's state, and the states of the
    accelerator's generators in ``devices`` (all of them when None), on exit."""
    if not enabled:
        yield
        return
    gens = device_generators() if _device.accel["kind"] == _device_cls(device_type).type else ()
    if devices is None:
        forked = list(gens)
    else:
        forked = []
        for d in devices:
            idx = d if isinstance(d, int) else _device_cls(d).index or 0
            if idx >= len(gens):
                raise RuntimeError(f"mstorch.random.fork_rng: {_devices_kw}={list(devices)!r} names {device_type} "
                                   f"device {idx}, which this process does not have")
            forked.append(gens[idx])
    state = default_generator._state_bytes()
    saved = [g.get_state() for g in forked]
    try:
        yield
    finally:
        default_generator._load_state_bytes(state)
        for g, st in zip(forked, saved):
            g.set_state(st)


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
