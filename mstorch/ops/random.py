"""Random sampling: rand/randn/randint/randperm/normal/bernoulli/multinomial/poisson and the in-place
samplers (uniform_, normal_, random_, bernoulli_, exponential_, log_normal_, cauchy_, geometric_).

Values come from ``mstorch.random`` (torch's CPU MT19937 stream and per-distribution transformations,
computed on the host); this file parses torch's signatures, validates like torch and builds tensors.
Tensors on an accelerator draw from its generator instead (``_device_draw``: MindSpore's Philox kernels,
or NumPy's Philox on simulated devices), as torch draws CUDA tensors from the CUDA generator.
"""
import math

import numpy as np
import mindspore as ms

from .._runtime import read_host
from .. import _dtype as D
from .. import random as R
from .. import _ms_private as P
from .. import _device
from .._cast import cast
from .._tensor import Tensor, wrap, scalar_type_name
from ._bind import write_out
from ._helpers import iteration_order, size_args
from .creation import _on_meta, _size_kw, place_new
from ._registry import register

F = "random"
_FLOATS = (D.float32, D.float64, D.float16, D.bfloat16)
# C++ type names that torch prints for a dtype (caffe2::TypeMeta) in bounds errors
_CPP_NAMES = {D.uint8: "unsigned char", D.int8: "signed char", D.int16: "short int", D.int32: "int",
              D.int64: "long int", D.bool_: "bool", D.float32: "float", D.float64: "double",
              D.float16: "c10::Half", D.bfloat16: "c10::BFloat16", D.uint16: "unsigned short",
              D.uint32: "unsigned int", D.uint64: "unsigned long"}


def _fmt(v):
    return format(v, "g") if isinstance(v, float) else str(v)


def _not_impl(kernel, dt):
    return NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(dt)}\'')


def _to_ms(arr, dt, shape):
    """A mindspore.Tensor of dtype ``dt`` from host values (bfloat16 arrives as exact float32)."""
    arr = np.ascontiguousarray(arr).reshape(shape)
    if dt is D.bfloat16:
        # the values are bfloat16-exact: their high 16 bits are the bfloat16 (MindSpore's float32 ->
        # bfloat16 cast costs ~3 ms per 1M elements; this view costs a shift)
        f32 = np.ascontiguousarray(arr, np.float32).reshape(shape)   # (ascontiguousarray makes 0-d 1-d)
        if f32.ndim == 0 or f32.size == 0:
            return ms.Tensor(f32).astype(ms.bfloat16)
        return ms.from_numpy((f32.view(np.uint32) >> 16).astype(np.uint16)).view(ms.bfloat16)
    arr = arr.astype(dt._np, copy=False)
    if arr.ndim == 0 or arr.size == 0:
        return ms.Tensor(arr)
    return ms.from_numpy(arr)


def _memory_order(self):
    """The dimensions of ``self``, outermost first, in the order torch's TensorIterator visits its
    elements, or None when that is the logical order. torch's samplers fill a tensor in this order, and
    ``empty_like(self)`` lays its result out in it (``infer_dense_strides`` sorts as TensorIterator
    does), so a transposed or stepped-and-transposed view is drawn along its storage. Stride-0
    (expanded) dims never move: their comparison is ambiguous, as in torch."""
    shape, strides = tuple(self.shape), self.stride()
    n = len(shape)
    if n < 2:
        return None
    perm = iteration_order(shape, strides)   # innermost first
    order = perm[::-1]
    # size-1 dims do not change the visiting order
    if [d for d in order if shape[d] != 1] == [d for d in range(n) if shape[d] != 1]:
        return None
    return order


def in_memory_order(t, values):
    """Host ``values`` drawn flat in ``t``'s memory order (``_memory_order``), in logical order (C-contiguous)."""
    shape = tuple(t.shape)
    order = _memory_order(t)
    values = np.asarray(values)
    if order is None:
        return values.reshape(shape)
    return np.ascontiguousarray(values.reshape([shape[d] for d in order]).transpose(np.argsort(order)))


def _fill(self, values):
    """Write sampled host values into ``self`` in place (torch's ``*_`` samplers); ``values`` come in
    the order the stream produced them, which is memory order."""
    self._write(_to_ms(in_memory_order(self, values), self.dtype, tuple(self._ms.shape)))
    return self


def _new(values, dt, shape, out, requires_grad, device):
    place = _device.default_placement() if device is None else _device.placement(device)
    t = wrap(_to_ms(values, dt, shape))
    if place is not None:
        place_new(t, place)
    if out is not None:
        return write_out(out, t)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _meta_tensor(shape, dt, requires_grad):
    """A factory sampler's result on the meta device: no values drawn (torch's generator does not advance)."""
    t = wrap(ms.ops.zeros(shape, dt._ms))
    t._meta = True
    return t.requires_grad_(True) if requires_grad else t


def _factory_dtype(dtype, out):
    if out is not None:
        return out.dtype
    return dtype or D.get_default_dtype()


def _float_only(dt, kernel):
    if dt not in _FLOATS and not dt.is_complex:
        raise _not_impl(kernel, dt)


# --- values for a dtype (complex dtypes sample their real and imaginary parts) -------------------

def _uniform_values(gen, n, dt, low, high):
    if dt.is_complex:
        real = dt.to_real()
        return R.uniform(gen, 2 * n, real, low, high).view(dt._np)
    return R.uniform(gen, n, dt, low, high)


def _normal_values(gen, n, dt, mean, std, contiguous=True):
    if dt.is_complex:
        real = dt.to_real()
        return R.normal(gen, 2 * n, real, mean, std / math.sqrt(2), contiguous).astype(real._np).view(dt._np)
    return R.normal(gen, n, dt, mean, std, contiguous)


def _check_uniform(dt, low, high):
    _float_only(dt, "check_uniform_bounds")
    if dt.is_complex:
        return
    big = float(np.finfo(dt._np).max) if dt._np is not None else 3.3895313892515355e38
    name = _CPP_NAMES[dt]
    if not -big <= low <= big:
        raise RuntimeError(f"from is out of bounds for {name}")
    if not -big <= high <= big:
        raise RuntimeError(f"to is out of bounds for {name}")
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_fmt(low)} > "
                           f"to={_fmt(high)}")
    if high - low > big:
        raise RuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{scalar_type_name(dt)}>::max(), but found "
            f"to={_fmt(high)} and from={_fmt(low)} which result in to-from to exceed the limit")


# --- draws on an accelerator ---------------------------------------------------------------------------

def _device_generator(generator, dev):
    """The generator a draw for device ``dev`` uses: torch's rule that it be of the tensor's device type."""
    if generator is None:
        return R.device_generator(dev)
    if not isinstance(generator, R.DeviceGenerator):
        if not isinstance(generator, R.Generator):
            raise TypeError(f"expected a torch.Generator, but got {type(generator).__name__}")
        raise RuntimeError(f"Expected a '{dev.type}' device type for generator but found 'cpu'")
    return generator


def _device_draw(gen, kind, shape, wide=D.float32, a=0.0, b=1.0):
    """``kind`` ("uniform" on [a, b), "normal" with mean a and std b, "randint" on [a, b)) values of
    ``shape`` from a DeviceGenerator, as a mindspore.Tensor (``wide``: float32/float64, int64 for randint)."""
    n = math.prod(shape)
    if gen._ms_gen is None:   # simulated devices: NumPy's Philox on the host
        bits = gen.host_stream(n)
        if kind == "uniform":
            v = (a + (b - a) * bits.random(n)).astype(wide._np)
        elif kind == "normal":
            v = (a + b * bits.standard_normal(n)).astype(wide._np)
        else:
            v = bits.integers(a, b, n, dtype=np.int64)
        return ms.Tensor(v.reshape(shape))
    from mindspore import mint
    if kind == "randint":
        return mint.randint(a, b, shape, generator=gen._ms_gen, dtype=ms.int64)
    draw = mint.rand if kind == "uniform" else mint.randn
    v = draw(shape, generator=gen._ms_gen, dtype=wide._ms)
    scale, shift = (b - a, a) if kind == "uniform" else (b, a)
    return v if (scale, shift) == (1.0, 0.0) else ms.ops.add(ms.ops.mul(v, scale), shift)


def _draw_dtype(dt):
    """The dtype device draws are made in before the cast to ``dt`` (torch's opmath: float for half)."""
    return D.float64 if dt is D.float64 else D.float32


def _device_fill(self, generator, kind, a=0.0, b=1.0, then=None):
    """An in-place sampler on a device tensor: draw, transform (``then``, on a mindspore.Tensor), write."""
    if self.dtype.is_complex:
        raise NotImplementedError(f"mstorch: complex random draws on '{self.device}' are not supported "
                                  "(draw the real and imaginary parts, then torch.complex)")
    gen = _device_generator(generator, self._dev)
    v = _device_draw(gen, kind, tuple(self._ms.shape), D.int64 if kind == "randint" else _draw_dtype(self.dtype), a, b)
    if then is not None:
        v = then(v)
    self._write(cast(v, self._ms.dtype))
    return self


def device_bernoulli_mask(dev, shape, p):
    """A bool mindspore.Tensor of ``shape``, True with probability ``p``, from device ``dev``'s generator
    (dropout's mask on a device)."""
    return ms.ops.less(_device_draw(R.device_generator(dev), "uniform", tuple(shape)), float(p))


def _placed(device, out):
    """Where a sampling factory's result goes: ``out``'s device, ``device=``, or the default device."""
    if out is not None:
        return out._dev
    return _device.default_placement() if device is None else _device.placement(device)


def _device_new(v, dt, out, requires_grad, place):
    t = wrap(cast(v, dt._ms))
    t._dev = place
    if out is not None:
        return write_out(out, t)
    return t.requires_grad_(True) if requires_grad else t


# --- in-place samplers -------------------------------------------------------------------------------

@register("uniform_", family=F, namespace="Tensor", raw=True)
def uniform_(self, from_=0, to=1, *, generator=None):
    if self._meta:   # torch's meta kernels write nothing and draw nothing from the generator
        return self
    gen = R._check_generator(generator) if self._dev is None else None
    dt = self.dtype
    low, high = float(from_), float(to)
    _check_uniform(dt, low, high)
    if self._dev is not None:
        return _device_fill(self, generator, "uniform", low, high)
    return _fill(self, _uniform_values(gen, self.numel(), dt, low, high))


@register("normal_", family=F, namespace="Tensor", raw=True)
def normal_(self, mean=0, std=1, *, generator=None):
    if self._meta:   # torch's meta kernels write nothing and draw nothing from the generator
        return self
    gen = R._check_generator(generator) if self._dev is None else None
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
    if self.numel():   # (torch's kernel is not reached for an empty tensor)
        _float_only(self.dtype, "normal_kernel_cpu")
    if self._dev is not None:
        return _device_fill(self, generator, "normal", float(mean), float(std))
    # torch's vectorised normal_fill needs a contiguous tensor; otherwise one draw per element
    return _fill(self, _normal_values(gen, self.numel(), self.dtype, float(mean), float(std),
                                      self.is_contiguous()))


def _update_from(dt, frm):
    # the smallest `from` the dtype represents exactly (ATen's update_from)
    if int(to_dt_value(frm + 1, dt)) < frm:
        n = abs(frm + 1).bit_length() - 1
        frm = int(to_dt_value(frm + 1, dt)) + (1 << (n - _DIGITS[dt] + 1))
    return frm


def _update_to(dt, to):
    if int(to_dt_value(to - 1, dt)) >= to:
        n = abs(to - 1).bit_length() - 1
        to = int(to_dt_value(to - 1, dt)) - (1 << (n - _DIGITS[dt] + 1))
    return to


_DIGITS = {D.float32: 24, D.float64: 53, D.float16: 11, D.bfloat16: 8}


def to_dt_value(v, dt):
    return float(R.to_host(np.array([v], np.int64), dt)[0]) if dt is not D.float64 else float(np.float64(v))


def _check_range(frm, to_inc, dt):
    if dt.is_floating_point:
        info = np.finfo(np.float32) if dt is D.bfloat16 else np.finfo(dt._np)
        lo, hi = float(info.min), float(info.max)
    elif dt is D.uint64:
        lo, hi = 0, (1 << 63) - 1
    elif dt is D.bool_:
        lo, hi = 0, 1
    else:
        info = np.iinfo(dt._np)
        lo, hi = int(info.min), int(info.max)
    name = _CPP_NAMES.get(dt, str(dt))
    if not lo <= frm <= hi:
        raise RuntimeError(f"from is out of bounds for {name}")
    if not lo <= to_inc <= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {name}")
    if dt.is_floating_point:
        lim = 1 << _DIGITS[dt]
        for v, what in ((frm, "from"), (to_inc, "to - 1")):
            if not -lim <= v <= lim:
                import warnings
                warnings.warn(f"{what} is out of bounds [-(2^{_DIGITS[dt]}), 2^{_DIGITS[dt]}]. Due to precision "
                              f"limitations {name} can support discrete uniform distribution only within this "
                              "range. This warning will become an error in version 1.7 release, please fix the "
                              "code in advance")


def _random_values(gen, n, dt, frm=None, to=None, has_from=False):
    """random_(), random_(to), random_(from, to), random_(from, None): ATen's random_from_to_impl."""
    if not has_from and to is None:
        if dt.is_complex or dt in (D.uint16, D.uint32, D.uint64):
            raise _not_impl("random_kernel_cpu", dt)
        return R.random_default(gen, n, dt)
    frm = 0 if frm is None else int(frm)
    if to is not None:
        to = int(to)
        if frm >= to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={frm} >= to={to}")
        if dt.is_complex:   # (torch's range checks have no complex case)
            raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
        if dt.is_floating_point:
            frm, to = _update_from(dt, frm), _update_to(dt, to)
            if frm >= to:
                raise RuntimeError("random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                                   f"but got from={frm} >= to={to}")
        _check_range(frm, to - 1, dt)
        return R.random_from_to(gen, n, dt, to - frm, frm) if n else np.empty(0, np.int64)
    if frm != -(1 << 63):
        if dt.is_complex:
            raise RuntimeError("random_from_to_impl handles only integral, floating-point and boolean types")
        if dt.is_floating_point:
            to_inc = 1 << _DIGITS[dt]
            frm = _update_from(dt, frm)
            if frm >= to_inc:
                raise RuntimeError("random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                                   f"casted to dtype, but got from={frm} > to_inc={to_inc}")
        elif dt is D.bool_:
            to_inc = 1
        else:
            to_inc = int(np.iinfo(dt._np).max)
        _check_range(frm, to_inc, dt)
        return R.random_from_to(gen, n, dt, to_inc - frm + 1, frm) if n else np.empty(0, np.int64)
    if dt.is_complex:
        raise _not_impl("random_full_64_bits_range_kernel_cpu", dt)
    if dt not in (D.int64, D.float64, D.float32, D.bfloat16):
        raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16")
    return R.random_full64(gen, n, dt)


@register("random_", family=F, namespace="Tensor", raw=True)
def random_(self, *args, generator=None, **kwargs):
    if self._meta:   # torch's meta kernels write nothing and draw nothing from the generator
        return self
    if self._dev is not None:
        return _device_random_(self, args, kwargs, generator)
    gen = R._check_generator(generator)
    if "from" in kwargs or len(args) == 2:
        frm = kwargs.pop("from", args[0] if args else 0)
        to = kwargs.pop("to", args[1] if len(args) == 2 else None)
        vals = _random_values(gen, self.numel(), self.dtype, frm, to, has_from=True)
    else:
        to = kwargs.pop("to", args[0] if args else None)
        vals = _random_values(gen, self.numel(), self.dtype, None, to)
    if kwargs:
        raise TypeError(f"random_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return _fill(self, vals)


def _device_random_(self, args, kwargs, generator):
    """random_ on a device tensor: torch's ranges and checks, values drawn as integers on the device."""
    dt = self.dtype
    if dt.is_complex:
        raise _not_impl("random_", dt)
    if "from" in kwargs or len(args) == 2:
        frm = int(kwargs.pop("from", args[0] if args else 0))
        to = kwargs.pop("to", args[1] if len(args) == 2 else None)
    else:
        frm, to = 0, kwargs.pop("to", args[0] if args else None)
    if kwargs:
        raise TypeError(f"random_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if to is None:   # up to 2**digits for floats (torch's default range), the dtype's maximum for integers
        to = (1 << _DIGITS[dt]) + 1 if dt.is_floating_point else 2 if dt is D.bool_ else \
            min(int(np.iinfo(dt._np).max), (1 << 63) - 2) + 1
    to = int(to)
    if frm >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={frm} >= to={to}")
    _check_range(frm, to - 1, dt)
    return _device_fill(self, generator, "randint", frm, to)


def _check_p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(float(p))}")


def _p_host(p):
    """Probabilities of a tensor on the host (float64 stays float64, the rest compare as float)."""
    if not p.dtype.is_floating_point:
        raise _not_impl("bernoulli_tensor_cpu_p_", p.dtype)
    arr = read_host(p._ms.astype(ms.float32)) if p.dtype is D.bfloat16 else read_host(p._ms)
    if arr.size and not ((arr >= 0) & (arr <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                           "message be improved?  If so, please report an enhancement request to PyTorch.)")
    return arr


@register("bernoulli_", family=F, namespace="Tensor", raw=True)
def bernoulli_(self, p=0.5, *, generator=None):
    if self._meta:   # torch's meta kernels write nothing and draw nothing from the generator
        return self
    if self._dev is not None and not self.dtype.is_complex:
        if not isinstance(p, Tensor):
            _check_p(p)
        pm = p._ms if isinstance(p, Tensor) else float(p)
        return _device_fill(self, generator, "uniform", then=lambda u: ms.ops.less(u, pm))
    gen = R._check_generator(generator)
    if self.dtype.is_complex:
        raise _not_impl("bernoulli_scalar_cpu_", self.dtype)
    if isinstance(p, Tensor):
        if self.numel() == 0:   # (torch's kernel returns before it looks at p)
            return self
        shape = tuple(self._ms.shape)
        arr = _p_host(p)
        try:
            arr = np.broadcast_to(arr, shape)
        except ValueError:
            raise RuntimeError(f"The expanded size of the tensor must match the existing size. Target sizes: "
                               f"{list(shape)}.  Tensor sizes: {list(arr.shape)}") from None
        order = _memory_order(self)
        if order is not None:   # draws follow self's memory order, each against its own p
            arr = arr.transpose(order)
        return _fill(self, R.to_host(R.bernoulli_tensor(gen, arr), self.dtype))
    _check_p(p)
    return _fill(self, R.to_host(R.bernoulli_scalar(gen, self.numel(), float(p)), self.dtype))


@register("exponential_", family=F, namespace="Tensor", raw=True)
def exponential_(self, lambd=1.0, *, generator=None):
    if self._meta:   # torch's meta kernels write nothing and draw nothing from the generator
        return self
    gen = R._check_generator(generator) if self._dev is None else None
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(float(lambd))}")
    if not self.dtype.is_floating_point:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {scalar_type_name(self.dtype)}")
    if self._dev is not None:   # -log(1 - u) / lambda
        return _device_fill(self, generator, "uniform",
                            then=lambda u: ms.ops.div(ms.ops.neg(ms.ops.log1p(ms.ops.neg(u))), float(lambd)))
    return _fill(self, R.to_host(R.exponential(gen, self.numel(), float(lambd)), self.dtype))


@register("cauchy_", family=F, namespace="Tensor", raw=True)
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    if self._meta:   # torch's meta kernels write nothing and draw nothing from the generator
        return self
    gen = R._check_generator(generator) if self._dev is None else None
    if not self.dtype.is_floating_point:
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {_CPP_NAMES.get(self.dtype, self.dtype)}")
    if self._dev is not None:   # median + sigma * tan(pi * (u - 1/2))
        return _device_fill(self, generator, "uniform", -0.5, 0.5,
                            then=lambda u: ms.ops.add(ms.ops.mul(ms.ops.tan(ms.ops.mul(u, math.pi)), float(sigma)),
                                                      float(median)))
    return _fill(self, R.to_host(R.cauchy(gen, self.numel(), float(median), float(sigma)), self.dtype))


@register("log_normal_", family=F, namespace="Tensor", raw=True)
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    if self._meta:   # torch's meta kernels write nothing and draw nothing from the generator
        return self
    gen = R._check_generator(generator) if self._dev is None else None
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(float(std))}")
    _float_only(self.dtype, "log_normal_cpu")
    if self.dtype.is_complex:
        raise _not_impl("log_normal_cpu", self.dtype)
    if self._dev is not None:
        return _device_fill(self, generator, "normal", float(mean), float(std), then=ms.ops.exp)
    return _fill(self, R.to_host(R.log_normal(gen, self.numel(), float(mean), float(std)), self.dtype))


@register("geometric_", family=F, namespace="Tensor", raw=True)
def geometric_(self, p, *, generator=None):
    if self._meta:   # torch's meta kernels write nothing and draw nothing from the generator
        return self
    gen = R._check_generator(generator) if self._dev is None else None
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(float(p))}")
    if self.dtype is D.bool_ or self.dtype.is_complex:
        raise _not_impl("geometric_cpu", self.dtype)
    if self._dev is not None:   # ceil(log(1 - u) / log(1 - p))
        return _device_fill(self, generator, "uniform",
                            then=lambda u: ms.ops.ceil(ms.ops.div(ms.ops.log1p(ms.ops.neg(u)), math.log1p(-p))))
    vals = R.geometric(gen, self.numel(), float(p))
    return _fill(self, R.to_host(vals, self.dtype) if self.dtype.is_floating_point else vals.astype(self.dtype._np))


# --- factories -----------------------------------------------------------------------------------

@register("rand", family=F, namespace="torch", raw=True)
def rand(*sizes, size=None, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False):
    size = _size_kw(sizes, size, "rand")
    place = _placed(device, out)
    gen = R._check_generator(generator) if place is None else None
    shape = size_args(size)
    dt = _factory_dtype(dtype, out)
    _float_only(dt, "check_uniform_bounds")
    if out is None and _on_meta(device):
        return _meta_tensor(shape, dt, requires_grad)
    if place is not None:
        return _device_new(_device_draw(_device_generator(generator, place), "uniform", shape, _draw_dtype(dt)), dt, out,
                           requires_grad, place)
    n = math.prod(shape)
    return _new(_uniform_values(gen, n, dt, 0.0, 1.0), dt, shape, out, requires_grad, device)


@register("randn", family=F, namespace="torch", raw=True)
def randn(*sizes, size=None, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False):
    size = _size_kw(sizes, size, "randn")
    place = _placed(device, out)
    gen = R._check_generator(generator) if place is None else None
    shape = size_args(size)
    dt = _factory_dtype(dtype, out)
    if math.prod(shape):   # (torch's kernel is not reached for an empty result)
        _float_only(dt, "normal_kernel_cpu")
    if out is None and _on_meta(device):
        return _meta_tensor(shape, dt, requires_grad)
    if place is not None:
        return _device_new(_device_draw(_device_generator(generator, place), "normal", shape, _draw_dtype(dt)), dt, out,
                           requires_grad, place)
    return _new(_normal_values(gen, math.prod(shape), dt, 0.0, 1.0), dt, shape, out, requires_grad, device)


def _like(input, dtype):
    if not isinstance(input, Tensor):
        raise TypeError(f"argument 'input' must be Tensor, not {type(input).__name__}")
    return tuple(input._ms.shape), dtype or input.dtype


def _sampled_like(input, dtype, device, requires_grad, fill):
    """torch's ``*_like`` samplers: ``empty_like(input)`` (which keeps the input's memory layout) filled
    in place. The stream runs in memory order, so a transposed input gets its values along its storage,
    and the result has the input's strides, as in torch."""
    shape, dt = _like(input, dtype)
    place = input._dev if device is None else _device.placement(device)
    order = _memory_order(input)
    if order is None:
        t = wrap(ms.ops.zeros(shape, dt._ms))
    else:
        t = wrap(ms.ops.zeros(tuple(shape[d] for d in order), dt._ms)).permute(*np.argsort(order).tolist())
    if _on_meta(device) if device is not None else input._meta:
        t._meta = True   # the sampler below then draws nothing
    elif place is not None:
        place_new(t, place)
    fill(t)
    if requires_grad:
        t.requires_grad_(True)
    return t


@register("rand_like", family=F, namespace="torch", raw=True)
def rand_like(input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    return _sampled_like(input, dtype, device, requires_grad, lambda t: uniform_(t, 0, 1, generator=generator))


@register("randn_like", family=F, namespace="torch", raw=True)
def randn_like(input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    return _sampled_like(input, dtype, device, requires_grad, lambda t: normal_(t, 0, 1, generator=generator))


def _int_arg(v, name):
    if isinstance(v, Tensor):
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"randint(): argument '{name}' must be int, not {type(v).__name__}")
    return int(v)


@register("randint", family=F, namespace="torch", raw=True)
def randint(*args, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
            pin_memory=False, **kw):
    place = _placed(device, out)
    gen = R._check_generator(generator) if place is None else None
    if len(args) == 3:
        low, high, size = args
    elif len(args) == 2:
        if "size" in kw:
            (low, high), size = args, kw.pop("size")
        else:
            low, (high, size) = kw.pop("low", 0), args
    elif len(args) == 1:
        low, high, size = kw.pop("low", 0), args[0], kw.pop("size", None)
        if "high" in kw:
            low, high = args[0], kw.pop("high")
    else:
        low, high, size = kw.pop("low", 0), kw.pop("high", None), kw.pop("size", None)
    if kw or high is None or size is None:
        raise TypeError("randint() received an invalid combination of arguments")
    low, high = _int_arg(low, "low"), _int_arg(high, "high")
    shape = size_args((size,))
    dt = out.dtype if out is not None else (dtype or D.int64)
    if place is not None:
        t = _device_random_(place_new(wrap(ms.ops.zeros(shape, dt._ms)), place), (low, high), {}, generator)
        return write_out(out, t) if out is not None else t.requires_grad_(True) if requires_grad else t
    vals = _random_values(gen, math.prod(shape), dt, low, high, has_from=True)
    return _new(vals, dt, shape, out, requires_grad, device)


@register("randint_like", family=F, namespace="torch", raw=True)
def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None):
    if high is None:
        low, high = 0, low
    low, high = _int_arg(low, "low"), _int_arg(high, "high")
    return _sampled_like(input, dtype, device, requires_grad,
                         lambda t: random_(t, low, high, generator=generator))


_PERM_LIMIT = {D.float16: 2049, D.bfloat16: 257, D.float32: (1 << 24) + 1, D.float64: (1 << 53) + 1}


@register("randperm", family=F, namespace="torch", raw=True)
def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    place = _placed(device, out)
    gen = R._check_generator(generator) if place is None else None
    n = _int_arg(n, "n")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = out.dtype if out is not None else (dtype or D.int64)
    if dt in _PERM_LIMIT and n > _PERM_LIMIT[dt]:
        raise RuntimeError(f"n cannot be greater than {_PERM_LIMIT[dt]} for {scalar_type_name(dt)} type.")
    if not dt.is_floating_point and dt is not D.bool_ and n > 0 and n - 1 > np.iinfo(dt._np).max:
        raise RuntimeError(f"n is too large for result tensor type: '{dt}'")
    if dt is D.bool_ or dt.is_complex or dt in (D.uint16, D.uint32, D.uint64):
        raise _not_impl("randperm", dt)
    if place is not None:   # the order that sorts n uniform keys
        keys = _device_draw(_device_generator(generator, place), "uniform", (n,), D.float64)
        return _device_new(ms.ops.argsort(keys), dt, out, requires_grad, place)
    vals = R.randperm(gen, n)
    return _new(R.to_host(vals, dt) if dt.is_floating_point else vals, dt, (n,), out, requires_grad, device)


# --- tensor-parameter distributions ---------------------------------------------------------------

def _host(t):
    return read_host(t._ms.astype(ms.float32)) if t.dtype is D.bfloat16 else read_host(t._ms)


def _apply(vals, dt, fn):
    """One elementwise torch op on host values of dtype ``dt`` (computed in float for half/bfloat16)."""
    if dt is D.bfloat16:
        return R.bf16_round(fn(vals.astype(np.float32)))
    return fn(vals).astype(dt._np)


@register("normal", family=F, namespace="torch", raw=True)
def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    place = _placed(device, out) if not (mt or st) else (mean if mt else std)._dev
    gen = R._check_generator(generator) if place is None else None
    if not mt and not st:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got (float, float), but "
                            "expected (float mean, float std, tuple of ints size, *, ...)")
        shape = size_args((size,))
        dt = _factory_dtype(dtype, out)
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(float(std))}")
        if math.prod(shape):   # (torch's kernel is not reached for an empty result)
            _float_only(dt, "normal_kernel_cpu")
        if place is not None:
            v = _device_draw(_device_generator(generator, place), "normal", shape, _draw_dtype(dt), float(mean),
                             float(std))
            return _device_new(v, dt, out, requires_grad, place)
        vals = _normal_values(gen, math.prod(shape), dt, float(mean), float(std))
        return _new(vals, dt, shape, out, requires_grad, device)
    if st:
        if std.dtype.is_complex:
            raise RuntimeError("normal expects standard deviation to be non-complex")
        s = _host(std)
        if s.size and not (s >= 0).all():
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(float(std))}")
    dt = out.dtype if out is not None else (mean.dtype if mt else std.dtype)
    mshape = tuple(mean._ms.shape) if mt else ()
    shape = _broadcast(mshape, tuple(std._ms.shape)) if st else mshape
    if math.prod(shape):   # (torch's kernel is not reached for an empty result)
        _float_only(dt, "normal_kernel_cpu")
    if place is not None:   # std * N(0, 1) + mean, in the draw dtype
        wide = _draw_dtype(dt)
        v = _device_draw(_device_generator(generator, place), "normal", shape, wide)
        v = ms.ops.mul(v, cast(std._ms, wide._ms) if st else float(std))
        v = ms.ops.add(v, cast(mean._ms, wide._ms) if mt else float(mean))
        return _device_new(v, dt, out, False, place)
    vals = _normal_values(gen, math.prod(shape), dt, 0.0, 1.0 if st else float(std)).reshape(shape)
    if st:
        # normal_(0, 1), mul_(std), add_(mean): two rounded in-place ops; a float mean becomes a
        # 0-dim tensor of the output dtype
        vals = _apply(vals, dt, lambda v: v.astype(_wide(dt, std.dtype)) * s.astype(_wide(dt, std.dtype)))
    m = _host(mean) if mt else R.to_host(np.array([float(mean)], np.float64), dt).reshape(())
    mw = _wide(dt, mean.dtype if mt else dt)
    vals = _apply(vals, dt, lambda v: v.astype(mw) + m.astype(mw))
    return _new(vals, dt, shape, out, False, (mean if mt else std).device)


def _wide(a, b):
    """The dtype an in-place binary op computes in (torch's opmath for half/bfloat16 is float)."""
    if a.is_complex or b.is_complex:
        return np.complex128 if D.float64 in (a, b) or D.complex128 in (a, b) else np.complex64
    return np.float64 if D.float64 in (a, b) else np.float32


def _broadcast(a, b):
    try:
        return np.broadcast_shapes(a, b)
    except ValueError:
        n = max(len(a), len(b))
        a2, b2 = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
        for i in range(n - 1, -1, -1):
            if a2[i] != b2[i] and 1 not in (a2[i], b2[i]):
                raise RuntimeError(f"The size of tensor a ({a2[i]}) must match the size of tensor b ({b2[i]}) at "
                                   f"non-singleton dimension {i}") from None
        raise


@register("bernoulli", family=F, raw=True)
def bernoulli(input, p=None, *, generator=None, out=None):
    if input._dev is not None and input.dtype.is_floating_point:   # u < p on the device
        if p is not None:
            _check_p(p)
        u = _device_draw(_device_generator(generator, input._dev), "uniform", tuple(input._ms.shape),
                         _draw_dtype(input.dtype))
        return _device_new(ms.ops.less(u, input._ms if p is None else float(p)), input.dtype, out, False,
                           input._dev)
    gen = R._check_generator(generator)
    shape = tuple(input._ms.shape)
    if p is None and input.numel() == 0:
        # torch's kernel writes a result like the input: with nothing to write, no dtype is refused
        return input.clone() if out is None else out.resize_(tuple(input.shape))
    if p is None and input.dtype.is_complex:
        raise _not_impl("bernoulli_tensor_cpu_self_", input.dtype)
    if p is None:
        vals = R.to_host(R.bernoulli_tensor(gen, _p_host(input)), input.dtype)
    else:
        _check_p(p)
        vals = R.to_host(R.bernoulli_scalar(gen, input.numel(), float(p)), input.dtype)
    return _new(vals, input.dtype, shape, out, False, input.device)


@register("multinomial", family=F, raw=True)
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    gen = R._check_generator(generator)
    dt = input.dtype
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not dt.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {scalar_type_name(dt)}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_cat = input.shape[-1]
    if not replacement and num_samples > n_cat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if n_cat > 1 << 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    probs = _host(input).reshape(input.shape[0] if input.dim() == 2 else 1, n_cat)
    shape = (num_samples,) if input.dim() == 1 else (probs.shape[0], num_samples)
    if not probs.shape[0]:   # (torch returns an empty result before it looks at the probabilities)
        return _new(np.zeros(0, np.int64), D.int64, shape, out, False, input.device)
    if not replacement or num_samples == 1:
        if not probs.size:   # (torch's max/min of the probabilities)
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        if not (np.isfinite(probs).all() and (probs >= 0).all()):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (probs.sum(axis=1) == 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        # torch's Gumbel trick: argmax / topk of p / q with q ~ Exp(1), drawn like exponential_ into
        # empty_like(input), so in the input's memory order (a transposed matrix along its storage)
        q = in_memory_order(input, R.to_host(R.exponential(gen, probs.size, 1.0), dt)).reshape(probs.shape)
        key = _apply(probs.astype(q.dtype), dt, lambda v: v / q)
        if num_samples == 1:        # torch takes argmax here: the first of equal maxima, as the sort below
            idx = np.argmax(key, axis=1)[:, None]
        else:
            idx = np.argsort(-key.astype(np.float64), axis=1, kind="stable")[:, :num_samples]
    else:
        if not (probs >= 0).all():
            raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
        if not np.isfinite(probs).all():
            raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity "
                               "or NaN)")
        acc = np.float64 if dt is D.float64 else np.float32
        probs = probs.astype(acc)
        if not n_cat or (np.cumsum(probs, axis=1, dtype=acc)[:, -1] <= 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        idx = R.multinomial_with_replacement(gen, probs, num_samples)
    return _new(idx.astype(np.int64), D.int64, shape, out, False, input.device)


@register("poisson", family=F, namespace="torch", raw=True)
def poisson(input, generator=None):
    gen = R._check_generator(generator)
    dt = input.dtype
    if dt not in _FLOATS:
        raise _not_impl("poisson_cpu", dt)
    lam = _host(input).astype(np.float64).ravel()
    if lam.size and not (lam >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return _new(R.to_host(R.poisson(gen, lam), dt), dt, tuple(input._ms.shape), None, False, input.device)


@register("binomial", family=F, namespace="torch", raw=True)
def binomial(count, prob, generator=None):
    """torch.binomial: ATen's CPU sampler (BTRS for count * min(p, 1 - p) >= 10, else inversion) on torch's
    generator stream, value for value."""
    gen = R._check_generator(generator)
    dt = count.dtype
    # torch's order: both dtypes floating, the broadcast, prob's dtype as count's, then the kernel's dtypes
    for t, what in ((count, "count"), (prob, "prob")):
        if not t.dtype.is_floating_point:
            raise ValueError(f"binomial only supports floating-point dtypes for {what}, got: "
                             f"{scalar_type_name(t.dtype)}")
    shape = _broadcast(tuple(count._ms.shape), tuple(prob._ms.shape))
    if prob.dtype is not dt:
        raise RuntimeError(f"Found dtype {scalar_type_name(prob.dtype)} but expected {scalar_type_name(dt)}")
    if dt not in (D.float32, D.float64):
        raise _not_impl("binomial_cpu", dt)
    n = np.broadcast_to(_host(count), shape).ravel()
    p = np.broadcast_to(_host(prob), shape).ravel()
    s = R.binomial(gen, n, p, dt is D.float32)
    return _new(s.astype(dt._np), dt, shape, None, False, count.device)


# --- gamma and Dirichlet samples (Beta and Dirichlet sample through these) ------------------------------------

def _gamma_input(input, name):
    dt = input.dtype
    if dt not in (D.float32, D.float64):
        raise _not_impl(name, dt)
    if input.requires_grad and P.grad_enabled():
        # torch differentiates the sample implicitly (StandardGammaBackward0 / DirichletBackward0); a sample
        # without that gradient would leave the concentration's gradient silently incomplete
        raise NotImplementedError(f"torch.{'_standard_gamma' if name == 'gamma_cpu' else '_sample_dirichlet'}: "
                                  "mstorch does not implement the reparameterized gradient of gamma samples; "
                                  "sample under torch.no_grad() or from a detached concentration")
    return dt


@register("_standard_gamma", family=F, namespace="torch", raw=True)
def _standard_gamma(input, generator=None):
    """torch._standard_gamma: Gamma(alpha, 1) samples on torch's CPU generator stream, value for value."""
    gen = R._check_generator(generator)
    dt = _gamma_input(input, "gamma_cpu")
    alpha = _host(input).astype(np.float64).ravel()
    s = R.standard_gamma(gen, alpha, dt is D.float32)
    return _new(s.astype(dt._np), dt, tuple(input._ms.shape), None, False, input.device)


@register("_sample_dirichlet", family=F, namespace="torch", raw=True)
def _sample_dirichlet(input, generator=None):
    """torch._sample_dirichlet: gamma samples (in float64 whatever the dtype) normalised over the last
    dimension, clamped into [smallest normal, the float below 1] of the dtype, as torch's CPU kernel."""
    gen = R._check_generator(generator)
    dt = _gamma_input(input, "dirichlet")
    shape = tuple(input._ms.shape)
    alpha = _host(input).astype(np.float64).ravel()
    g = R.standard_gamma(gen, alpha, False).reshape(shape)
    with np.errstate(all="ignore"):
        r = (g / g.sum(-1, keepdims=True)).astype(dt._np)
    info = np.finfo(dt._np)
    r = np.minimum(np.nextafter(dt._np(1), dt._np(0)), np.where(info.tiny < r, r, info.tiny).astype(dt._np))
    return _new(r, dt, shape, None, False, input.device)
