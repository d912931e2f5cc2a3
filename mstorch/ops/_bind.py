"""Turn the op table into callables: ``mstorch.<name>``, ``Tensor.<name>``, ``Tensor.<name>_`` and ``out=``.

The generated wrapper is the per-op hot path: unwrap mstorch Tensors to mindspore.Tensors, call the
op's implementation, wrap the result. MindSpore's own
exceptions are re-raised as torch's exception types with the first, readable line of the message.
"""
import inspect
import warnings
import re
import threading
from threading import get_ident as _get_ident

import mindspore as ms

from .. import _device
from .. import _dtype as _D
from .. import _ms_private as _P
from .._cast import cast as _cast
from .._tensor import Tensor, wrap
from .._sparse_tensor import SparseOperand, sparse_call, sparse_inplace
from . import _autocast, _trace
from .. import overrides as _overrides
from ._registry import METHOD, OPS, PUBLIC, SUB_NAMESPACES, TOP
from ._views import check_no_overlap as _check_no_overlap, fresh, repeated_writes as _repeated_writes
from ._views import SAVES_RESULT, guard_result
from . import _msops
from ._helpers import EMPTY_RECORDING as _EMPTY_RECORDING, result_type as _result_type

_MsTensor = ms.Tensor
_AUTOCAST_ON = _autocast.ACTIVE   # thread idents with autocast on (a set shared with _autocast)
_MS_BROADCAST = re.compile(r"need to broadcast.*but got \w+\.shape = \[([^\]]*)\] and \w+\.shape = \[([^\]]*)\]")
_NP_BROADCAST = re.compile(r"operands could not be broadcast together with shapes \(([\d,]*)\) \(([\d,]*)\)"
                           r"|Mismatch is between arg \d+ with shape \(([\d, ]*)\) "
                           r"and arg \d+ with shape \(([\d, ]*)\)")
_MS_NO_KERNEL = re.compile(r"Unsupported data type!.*but get input\[(?:\[const vector\]\{)?(\w+)")
# MindSpore's dtype names in kernel errors ("Float16") -> torch's ScalarType names (as in
# `"add" not implemented for 'Half'`)
_SCALAR_NAMES = {str(d._ms): name for d, name in _D.SCALAR_TYPE_NAMES.items()}

# Four things intercept a call before it runs; with none the wrapper pays one test of INTERCEPT.
# - torch.fx tracing (mstorch/fx/proxy.py): while a Proxy exists, calls that have a Proxy argument go to
#   `record_proxy_op`, which records them in the graph (torch's __torch_function__ on Proxy).
# - device placement (mstorch/_device.py): while the process has devices (real or simulated), the tensor
#   arguments must share a device (torch's error otherwise) and the results are placed on it.
# - __torch_function__ (mstorch/overrides.py): once a Tensor subclass that overrides it exists,
#   `overrides.dispatch` is asked whether an argument overrides.
# - torch function modes (mstorch/overrides.py): while a TorchFunctionMode is pushed on any thread, every call
#   goes to `overrides.dispatch` (the innermost mode of the calling thread, if any).
INTERCEPT = False
PROXIES_ALIVE = False
DEVICES = False
TORCH_FUNCTION_SUBCLASSES = False
TORCH_FUNCTION_MODES = False
record_proxy_op = None
NOT_TRACED = None
_NOT_INTERCEPTED = object()
_inside = threading.local()   # depth of device-checked calls: an op's inner calls are its own business


def set_proxies_alive(alive):
    global PROXIES_ALIVE, INTERCEPT
    PROXIES_ALIVE = alive
    INTERCEPT = PROXIES_ALIVE or DEVICES or TORCH_FUNCTION_SUBCLASSES or TORCH_FUNCTION_MODES


def _set_devices(present):
    global DEVICES, INTERCEPT
    DEVICES = present
    INTERCEPT = PROXIES_ALIVE or DEVICES or TORCH_FUNCTION_SUBCLASSES or TORCH_FUNCTION_MODES


def set_torch_function_subclasses():
    global TORCH_FUNCTION_SUBCLASSES, INTERCEPT
    TORCH_FUNCTION_SUBCLASSES = INTERCEPT = True


def set_torch_function_modes(active):
    global TORCH_FUNCTION_MODES, INTERCEPT
    TORCH_FUNCTION_MODES = active
    INTERCEPT = PROXIES_ALIVE or DEVICES or TORCH_FUNCTION_SUBCLASSES or TORCH_FUNCTION_MODES


_device.on_placed.append(_set_devices)
_set_devices(_device.accel["kind"] is not None)


def _intercept(fn, proxy_method, args, kwargs):
    if TORCH_FUNCTION_MODES:   # the mode comes first, as torch's: it sees a Proxy's call too
        r = _overrides.dispatch(fn, args, kwargs)
        if r is not _overrides.NOT_OVERRIDDEN:
            return r
    if PROXIES_ALIVE:
        r = record_proxy_op(fn, proxy_method, args, kwargs)
        if r is not NOT_TRACED:
            return r
    if TORCH_FUNCTION_SUBCLASSES and not TORCH_FUNCTION_MODES:
        r = _overrides.dispatch(fn, args, kwargs)
        if r is not _overrides.NOT_OVERRIDDEN:
            return r
    if not DEVICES or getattr(_inside, "depth", 0) or kwargs.get("device") is not None:
        return _NOT_INTERCEPTED   # (a factory with device= places its result itself)
    dev = common_device(args, kwargs)
    if dev is None:
        return _NOT_INTERCEPTED
    _inside.depth = 1
    try:
        r = fn(*args, **kwargs)
    finally:
        _inside.depth = 0
    _place_results(r, dev)
    return r


def common_device(args, kwargs):
    """The device of an op's tensor arguments (None: all on the CPU), or torch's error when they differ. As
    torch's TensorIterator: the first non-CPU device is the common one, and 0-dim CPU tensors (scalars) may
    join it."""
    tensors = []
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            tensors.append(a)
        elif type(a) is list or type(a) is tuple:
            tensors.extend(x for x in a if isinstance(x, Tensor))
    common = next((t._dev for t in tensors if t._dev is not None), None)
    if common is None:
        return None
    for t in tensors:
        d = t._dev
        if d != common and not (d is None and t.dim() == 0):
            raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices, "
                               f"{common} and {'cpu' if d is None else d}!")
    return common


def _place_results(r, dev):
    if isinstance(r, Tensor):
        if r._dev is None and not r._meta:
            r._dev = dev
    elif isinstance(r, (tuple, list)):
        for x in r:
            _place_results(x, dev)



def _unwrap(a):
    tp = type(a)
    if tp is Tensor or isinstance(a, Tensor):
        return a._ms
    if tp is list or tp is tuple:
        for x in a:
            if isinstance(x, Tensor):
                return tp(_unwrap(y) for y in a)
        return a
    return a


def _wrap_out(r):
    tp = type(r)
    if tp is _MsTensor or isinstance(r, _MsTensor):
        return wrap(r)
    if tp is tuple or tp is list:
        return tp(_wrap_out(x) for x in r)
    if isinstance(r, tuple) and hasattr(r, "_fields"):  # torch.return_types namedtuples
        return tp(*(_wrap_out(x) for x in r))
    return r


_MS_DTYPE_CHECK = re.compile(r"^For primitive\[\w+\], the input argument\[\w+\] must be a type of \{")


def _broadcast_error(a, b):
    """torch's error for two shapes written "2, 3" that do not broadcast (None: they do)."""
    from ._views import infer_size
    try:
        infer_size(*(tuple(int(v) for v in g.split(",") if v.strip()) for g in (a, b)))
    except RuntimeError as err:
        return err
    return None


def translate_error(exc, name):
    """torch's exception type for a MindSpore failure; our own torch-style errors pass unchanged."""
    # A MindSpore exception switches op recording off for every later op (measured: after a failed
    # ops.pad, `(x * 2).sum()` has no grad_fn); switch it back on.
    _P.enable_recording()
    text = str(exc)
    shapes = _NP_BROADCAST.search(text) if isinstance(exc, ValueError) else None
    if shapes:   # a host (NumPy) computation's operands do not broadcast: torch's message for the shapes
        err = _broadcast_error(*(g for g in shapes.groups() if g is not None))
        if err is not None:
            return err
    if "C++ Call Stack" not in text and "mindspore" not in text.lower() and "For '" not in text:
        return None
    no_kernel = _MS_NO_KERNEL.search(text.replace("\n", " "))
    if no_kernel:   # torch: NotImplementedError: "<kernel>" not implemented for '<ScalarType>'
        dtype = _SCALAR_NAMES.get(no_kernel.group(1), no_kernel.group(1))
        return NotImplementedError(f"mstorch.{name}: \"{name}\" not implemented for '{dtype}' (no MindSpore CPU kernel)")
    lines = [ln.strip() for ln in text.strip().split("\n")]
    # skip MindSpore's banner lines ("-----", "- Kernel select failed:") to the first readable one
    first = next((ln for ln in lines if ln.strip("- ") and not ln.startswith("- ")), lines[0])
    shapes = _MS_BROADCAST.search(first)
    if shapes:   # a kernel's operands do not broadcast: torch's message for the two shapes
        err = _broadcast_error(*shapes.groups())
        if err is not None:
            return err
    msg = f"mstorch.{name}: {first}"
    if isinstance(exc, NotImplementedError) or isinstance(exc, TypeError) and _MS_DTYPE_CHECK.search(first):
        # a dtype the kernel lacks (MindSpore's own type check is a TypeError): torch's NotImplementedError
        return NotImplementedError(msg)
    if isinstance(exc, TypeError):
        return TypeError(msg)
    if isinstance(exc, IndexError):
        return IndexError(msg)
    return RuntimeError(msg)


# families whose results torch does not differentiate (or that write into their receiver)
_NOT_DIFFERENTIABLE = frozenset(("creation", "random", "counting", "inplace"))
_GRAD_DTYPES = frozenset((ms.float16, ms.float32, ms.float64, ms.bfloat16, ms.complex64, ms.complex128))


def _grad_inputs(ms_args, kwargs):
    """The tensor arguments (also in a list or tuple, or passed by keyword) that need gradients."""
    found = []
    for a in (*ms_args, *kwargs.values()) if kwargs else ms_args:
        tp = type(a)
        if tp is _MsTensor:
            if a._requires_grad:
                found.append(a)
        elif tp in _PLAIN:   # (before isinstance, which goes through MindSpore's ABC metaclass)
            continue
        elif tp is list or tp is tuple:
            found.extend(x for x in a if isinstance(x, _MsTensor) and x._requires_grad)
        elif isinstance(a, _MsTensor) and a._requires_grad:   # (an nn.Parameter's is a mindspore.Parameter)
            found.append(a)
    return found


_PLAIN = frozenset((int, float, bool, str, type(None)))


def _call_recorded(impl, ms_args, kwargs):
    """A differentiable op's call while autograd records. Where every input that needs a gradient is
    empty, each gradient is empty: the op runs unrecorded and its results are linked to those inputs
    (MindSpore's backward kernels refuse empty tensors: "Input device address is null", "Resize failed
    for kernel MaxPoolGradWithArgmaxV2", UnsortedSegmentSum's "loop_size_"). A result that is empty
    has zero gradients to every input likewise: it is replaced by zeros on their graph."""
    needs = _grad_inputs(ms_args, kwargs)
    if not needs:   # (nothing to link: the no-grad path's one scan of the arguments)
        return impl(*ms_args, **kwargs)
    empty = [t for t in needs if not t.size]
    if len(empty) == len(needs):
        _P.set_grad_enabled(False)
        _EMPTY_RECORDING.on = True
        try:
            r = impl(*ms_args, **kwargs)
        finally:
            _P.set_grad_enabled(True)
            _EMPTY_RECORDING.on = False
        return _linked_results(r, needs, ms_args, unrecorded=True)
    r = impl(*ms_args, **kwargs)
    if empty:   # (results an implementation made by hand for its empty inputs are not recorded)
        r = _linked_results(r, empty, ms_args)
    return _zero_empty_results(r, needs, ms_args)


def _zero_empty_results(r, needs, ms_args):
    tp = type(r)
    if tp is _MsTensor:
        if r.size or not r._requires_grad or any(r is a for a in ms_args):
            return r
        return _msops.zeros_on(tuple(r.shape), r.dtype, needs)
    if tp is tuple or tp is list:
        return tp(_zero_empty_results(x, needs, ms_args) for x in r)
    if isinstance(r, tuple) and hasattr(r, "_fields"):
        return tp(*(_zero_empty_results(x, needs, ms_args) for x in r))
    return r


def _linked_results(r, empty, ms_args, unrecorded=False):
    """``unrecorded``: ``r`` comes from a call autograd did not record (a result made from an input
    by MindSpore's view of it may still carry the input's requires_grad flag, with no graph)."""
    tp = type(r)
    if tp is _MsTensor:
        # (_mstorch_unlinked: a result torch returns off the graph, e.g. linalg.cond / matrix_norm of empty input)
        if (r._requires_grad and not unrecorded) or r.dtype not in _GRAD_DTYPES or any(r is a for a in ms_args) \
                or getattr(r, "_mstorch_unlinked", False):
            return r
        return _msops._linked(r, *empty)
    if tp is tuple or tp is list:
        return tp(_linked_results(x, empty, ms_args, unrecorded) for x in r)
    if isinstance(r, tuple) and hasattr(r, "_fields"):   # (a permutation matrix P is never differentiable)
        return tp(*(x if f == "P" else _linked_results(x, empty, ms_args, unrecorded)
                    for f, x in zip(r._fields, r)))
    return r


def _has_bf16(a):
    tp = type(a)
    if tp is Tensor or isinstance(a, Tensor):
        return a._ms.dtype == ms.bfloat16
    return (tp is list or tp is tuple) and any(_has_bf16(x) for x in a)


def _as_float32(a, tensors=False):
    """``a`` with its bfloat16 tensors cast to float32: MindSpore tensors, or mstorch Tensors when
    ``tensors`` (for implementations that take them)."""
    tp = type(a)
    if tp is Tensor or isinstance(a, Tensor):
        m = _cast(a._ms, ms.float32) if a._ms.dtype == ms.bfloat16 else a._ms
        return (a if m is a._ms else wrap(m)) if tensors else m
    if tp is list or tp is tuple:
        return tp(_as_float32(x, tensors) for x in a)
    return a


def _as_bf16(r, tensors=False):
    tp = type(r)
    if tensors and isinstance(r, Tensor):
        return wrap(_cast(r._ms, ms.bfloat16)) if r._ms.dtype == ms.float32 else r
    if tp is _MsTensor or isinstance(r, _MsTensor):
        return _cast(r, ms.bfloat16) if r.dtype == ms.float32 else r
    if tp is tuple or tp is list:
        return tp(_as_bf16(x, tensors) for x in r)
    if isinstance(r, tuple) and hasattr(r, "_fields"):
        return tp(*(_as_bf16(x, tensors) for x in r))
    return r


def _bf16_in_float32(exc, name, impl, args, kwargs, raw=False):
    """MindSpore's CPU build lacks the bfloat16 variant of many kernels (torch's CPU kernels compute bfloat16
    in float32 and round once): when a kernel refuses a bfloat16 operand, the op runs again with its
    bfloat16 tensors as float32, and float32 results are rounded to bfloat16 where every floating tensor
    argument was bfloat16 (mixed with a wider dtype, the result is that dtype's). None: not such a failure."""
    if not isinstance(exc, (TypeError, RuntimeError, ValueError)) or "BFloat16" not in str(exc):
        return None
    if not (any(_has_bf16(a) for a in args) or any(_has_bf16(v) for v in kwargs.values())):
        return None
    if kwargs.get("dtype") is not None or not (isinstance(translate_error(exc, name), NotImplementedError)
                                               or "does not support this kernel data type" in str(exc)):
        return None
    tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, Tensor)]
    round_back = all(t._ms.dtype == ms.bfloat16 for t in tensors if t.dtype.is_floating_point and t.ndim)
    if raw:   # the implementation takes mstorch Tensors: give it float32 ones (recorded casts)
        if _writes_argument(impl, args, kwargs):
            return None   # (a float32 copy would take the write, not the caller's tensor)
        r = impl(*[_as_float32(a, True) for a in args], **{k: _as_float32(v, True) for k, v in kwargs.items()})
        return _as_bf16(r, True) if round_back else r
    r = impl(*[_as_float32(a) for a in args], **{k: _as_float32(v) for k, v in kwargs.items()})
    return _wrap_out(_as_bf16(r) if round_back else r)


def _writes_argument(impl, args, kwargs):
    """Whether a raw implementation is asked to write into an argument (``inplace=True``)."""
    try:
        bound = inspect.signature(impl).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return True
    return bool(bound.arguments.get("inplace", False))


def _reraise(exc, name, method=False):
    """Raise ``exc`` from an op as torch's exception type (a method's argument errors worded as torch's
    method: ``self`` not counted); every failure switches op recording back on (a failed MindSpore kernel
    leaves it off for the rest of the process)."""
    if isinstance(exc, (ValueError, TypeError, RuntimeError)):
        err = translate_error(exc, name)
        if method:
            err = _as_method_error(exc if err is None else err)
            if err is exc:
                err = None
        if err is not None:
            raise err from None
    else:
        _P.enable_recording()
    raise exc


_ARG_POSITION = re.compile(r"^(\w+\(\): argument '\w+' \(position )(\d+)\)")
_GOT_SELF = re.compile(r"^(\w+\(\) received an invalid combination of arguments - got \()Tensor(, |\))")


def _as_method_error(exc):
    """torch's argument errors for ``Tensor.<name>`` count positions without ``self`` and leave it out of
    "got (...)": the same check raised through the method reads as torch's method does."""
    if type(exc) is not TypeError or len(exc.args) != 1 or not isinstance(exc.args[0], str):
        return exc
    text = exc.args[0]
    m = _ARG_POSITION.match(text)
    if m and int(m.group(2)) > 1:   # a message already worded for the method (position 1) stays
        text = f"{m.group(1)}{int(m.group(2)) - 1}){text[m.end():]}"
    elif m:
        return exc
    else:
        m = _GOT_SELF.match(text)
        if not m:
            return exc
        text = m.group(1) + ("" if m.group(2) == ", " else ")") + text[m.end():]
    return TypeError(text)




# torch's argument parser also takes NumPy's names for these parameters (python_arg_parser.cpp)
_NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim"}


def _numpy_names(impl):
    """{numpy name: torch name} for the parameters of ``impl`` that torch lets callers spell NumPy's way."""
    try:
        params = inspect.signature(impl).parameters
    except (TypeError, ValueError):
        return {}
    return {np_name: name for np_name, name in _NUMPY_NAMES.items() if name in params and np_name not in params}


def _make_function(opdef, impl, *, autocast=True, method=None):
    """The one generated wrapper of an op: ``out=``, autocast, NumPy's argument names, unwrap -> impl ->
    wrap, sparse operands, torch's errors and (under MSTORCH_TRACE) tracing, as a single closure. Each
    feature is a constant of the closure, so an op pays only a test of a local for the features it does
    not have. ``method``: the Tensor method's name; torch's methods take no ``out=``."""
    name = opdef.name
    raw = opdef.raw
    has_out = opdef.out and method is None
    tuple_out = opdef.out == "tuple"
    refuse_out = opdef.out and method is not None
    policy = opdef.autocast if autocast else None
    names = _numpy_names(impl)
    trace = _trace.tracer(name) if _trace.ENABLED else None
    # what torch.fx records for a Proxy argument: the method's name (call_method) or this function
    proxy_method = method
    if method is None and opdef.namespace == (METHOD,):   # a method-only op
        proxy_method = opdef.short
    factory = opdef.family == "creation"
    link_empty = not raw and opdef.differentiable and opdef.family not in _NOT_DIFFERENTIABLE
    no_kernel = _no_kernel_dtypes(name)
    complex_refused = _complex_refusal(name)
    out_sets_dtype = opdef.out == "dtype"
    out_check = _out_overload_check(opdef, impl) if has_out and opdef.out_requires else None
    out_precheck = opdef.out_check if has_out else None
    # (a check that names a ``kwargs`` parameter also sees the call's keyword arguments, out= taken out)
    precheck_kwargs = out_precheck is not None and "kwargs" in inspect.signature(out_precheck).parameters

    def fn(*args, **kwargs):
        if INTERCEPT:
            r = _intercept(fn, proxy_method, args, kwargs)
            if r is not _NOT_INTERCEPTED:
                return r
        if complex_refused is not None:
            _check_complex(complex_refused, args, kwargs)
        out = None
        if kwargs:
            if has_out:
                out = kwargs.pop("out", None)
                if out is not None and out_check is not None:
                    out_check(args, kwargs)   # (torch's argument parser: before the op runs)
                if tuple_out and out is not None and not isinstance(out, (tuple, list)):
                    # (torch's argument parser: before any check of the other arguments but its overload's)
                    raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
                if out_precheck is not None and isinstance(out, Tensor):
                    if precheck_kwargs:
                        out_precheck(args, out, kwargs=kwargs)
                    else:   # (torch's check of out= before its kernel's dtype check)
                        out_precheck(args, out)
                if out_sets_dtype and isinstance(out, Tensor) and kwargs.get("dtype") is None:
                    kwargs["dtype"] = out.dtype   # these compute in out's dtype, as with dtype=out.dtype
            elif refuse_out and "out" in kwargs:   # (and np.sum(t) -> t.sum(out=None) fails as in torch)
                raise TypeError(f"{method}() got an unexpected keyword argument 'out'")
            if names:
                kwargs = {names.get(k, k): v for k, v in kwargs.items()}
        if policy is not None and _AUTOCAST_ON and _get_ident() in _AUTOCAST_ON:
            # casts the inputs, then calls fn again with this thread's autocast off (torch: the op's own
            # inner calls are not cast again)
            r = _autocast.run(fn, policy, args, kwargs)
        else:
            try:
                if raw:
                    r = impl(*args, **kwargs)
                else:
                    ms_args = [a._ms if type(a) is Tensor else _unwrap(a) for a in args]
                    ms_kwargs = {k: _unwrap(v) for k, v in kwargs.items()} if kwargs else kwargs
                    if link_empty and _P.grad_enabled():
                        r = _call_recorded(impl, ms_args, ms_kwargs)
                    else:
                        r = impl(*ms_args, **ms_kwargs)
                    r = wrap(r) if type(r) is _MsTensor else _wrap_out(r)
            except SparseOperand:   # a sparse argument has no dense storage: the sparse table's implementation
                r = sparse_call(name, args, kwargs)
            except BaseException as exc:
                if no_kernel is not None and args and isinstance(args[0], Tensor) and args[0].dtype in no_kernel \
                        and isinstance(exc, (TypeError, ValueError, RuntimeError)) \
                        and translate_error(exc, name) is not None:
                    # a MindSpore kernel failed where torch has no kernel either: torch's NotImplementedError
                    _check_torch_kernel(name, no_kernel, args, kwargs)
                r = _bf16_in_float32(exc, name, impl, args, kwargs, raw)
                if r is None:
                    _reraise(exc, name, method is not None)
            if trace is not None:
                trace(args, kwargs, r)
        # (after the call: an error of its own comes first, as in torch); the common dtypes stop at the `in`
        if no_kernel is not None and args and isinstance(args[0], Tensor) and args[0].dtype in no_kernel:
            _check_torch_kernel(name, no_kernel, args, kwargs)
        if out is not None:
            _check_out(opdef, out, r, args, kwargs, factory)
            return write_out(out, r)
        return r
    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"Mirrors torch.{name}." + (f"\n\nDifference: {opdef.note}" if opdef.note else "")
    return fn




def _no_kernel_dtypes(name):
    """{dtype: torch's kernel name} of the dtypes torch has no kernel for in ``name`` (None: all have)."""
    from ._torch_kernels import NO_KERNEL
    entry = NO_KERNEL.get(name)
    if entry is None:
        return None
    kernel, names = entry
    return {getattr(_D, "bool_" if n == "bool" else n): kernel for n in names}


def _complex_refusal(name):
    """torch's message refusing complex inputs to ``name`` before anything else (None: it takes them)."""
    from ._torch_kernels import COMPLEX_REFUSED
    return COMPLEX_REFUSED.get(name)


def _check_complex(refusal, args, kwargs):
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor) and a.dtype.is_complex:
            exc, message = refusal if isinstance(refusal, tuple) else (RuntimeError, refusal)
            raise exc(message.format(_D.SCALAR_TYPE_NAMES[a.dtype]))


from ._torch_kernels import NOT_REACHED_WHEN_EMPTY as _NOT_REACHED_WHEN_EMPTY  # noqa: E402
from ._torch_kernels import NOT_REACHED_WHEN_0D as _NOT_REACHED_WHEN_0D  # noqa: E402


def _check_torch_kernel(name, no_kernel, args, kwargs):
    """torch's NotImplementedError for an input dtype torch has no kernel for (every tensor argument of
    that dtype; a dtype= argument converts first, as in torch)."""
    first = args[0]
    if not isinstance(first, Tensor) or kwargs.get("dtype") is not None:
        return
    if first.numel() == 0 and name in _NOT_REACHED_WHEN_EMPTY:
        return
    if first.dim() == 0 and name in _NOT_REACHED_WHEN_0D:
        return
    kernel = no_kernel.get(first.dtype)
    if kernel is None or any(isinstance(a, Tensor) and a.dtype is not first.dtype for a in args[1:]):
        return
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{_D.SCALAR_TYPE_NAMES[first.dtype]}'")


def _out_overload_check(opdef, impl):
    """The registration's ``out_requires`` as one check of a call's arguments (see ``OpDef``), raising
    torch's argument-parser TypeError: it runs before the op, as torch's parser does."""
    name, requires = opdef.name, opdef.out_requires
    params = list(inspect.signature(impl).parameters) if "tensors" in requires else ()
    # (with one out= signature torch names the missing argument; with several it lists them)
    one_signature = name in ("median", "nanmedian")
    none_ok = "dim_or_none" in requires   # (sum's out= overload takes dim=None: all dims)
    needs_dim = none_ok or "dim" in requires

    def check(args, kwargs):
        if needs_dim and len(args) < 2 and kwargs.get("dim") is None and not (none_ok and "dim" in kwargs):
            if "dim" in kwargs:
                raise TypeError(f"{name}(): argument 'dim' must be int, not NoneType")
            if one_signature:
                raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
            raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, out=Tensor), "
                            "but expected one of:\n * (Tensor input, int dim, ..., *, Tensor out)")
        if "dim" in requires and len(args) >= 2 and args[1] is None:
            raise TypeError(f"{name}(): argument 'dim' (position 2) must be int, not NoneType")
        if "tensor_self" in requires and args and isinstance(args[0], (bool, int, float)):
            got = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in args)
            raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}, out=Tensor), "
                            "but expected one of:")
        if "no_bool_unbiased" in requires and len(args) == 2 and isinstance(args[1], bool):
            # (the (Tensor input, bool unbiased) overload has no out=)
            raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, bool, out=Tensor), "
                            "but expected one of:")
        if "tensors" in requires:
            for pos, (arg, pname) in enumerate(zip(args, params), 1):
                if not isinstance(arg, Tensor):
                    raise TypeError(f"{name}(): argument '{pname}' (position {pos}) must be Tensor, not "
                                    f"{type(arg).__name__}")
    return check


def _check_out(opdef, out, r, args, kwargs, factory=False):
    """Refuse an ``out=`` torch refuses, before anything is written."""
    name = opdef.name
    if isinstance(r, (tuple, list)):
        if name == "nonzero":   # (as_tuple=True)
            raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
        if not isinstance(out, (tuple, list)):
            raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
        for o, x in zip(out, r):
            if isinstance(o, Tensor) and isinstance(x, Tensor) and o.dtype is not x.dtype:
                raise RuntimeError(f"Expected out tensor to have dtype {x.dtype}, but got {o.dtype} instead")
        return
    if not isinstance(out, Tensor) or not isinstance(r, Tensor) or out.dtype is r.dtype:
        return
    if opdef.family == "view_copy" and name.endswith("_copy"):   # (torch's generated *_copy out= check)
        from .random import _CPP_NAMES
        raise RuntimeError(f"Expected out tensor to have dtype {_CPP_NAMES.get(r.dtype, r.dtype)}, but got "
                           f"{_CPP_NAMES.get(out.dtype, out.dtype)} instead")
    want = kwargs.get("dtype")
    if want is not None and want is not out.dtype:
        raise RuntimeError(f"dtype {_D.SCALAR_TYPE_NAMES.get(want, want)} does not match dtype of out parameter "
                           f"({_D.SCALAR_TYPE_NAMES.get(out.dtype, out.dtype)})")
    if factory:     # (without dtype= a factory makes out's dtype)
        return
    if opdef.out == "exact" and name == "abs" and args and isinstance(args[0], Tensor) and args[0].dtype.is_complex:
        # torch's abs of a complex input writes into the input's own dtype, or casts into a real out
        if out.dtype.is_complex:
            if out.dtype is not args[0].dtype:
                raise RuntimeError(f"Found dtype {_D.SCALAR_TYPE_NAMES.get(out.dtype, out.dtype)} but expected "
                                   f"{_D.SCALAR_TYPE_NAMES.get(args[0].dtype, args[0].dtype)}")
            return
    elif opdef.out == "exact" and name == "ldexp" and not _ldexp_kernel(args):
        pass    # torch's ldexp of an integer input or by a float exponent is a product: its out= casts as mul's
    elif opdef.out == "exact" and name in ("clamp", "clamp_min", "clamp_max") and \
            any(isinstance(a, Tensor) for a in (*args[1:], *kwargs.values())):
        pass    # torch's clamp by Tensor bounds (clamp.Tensor_out) casts into out= as a binary op does
    elif opdef.out == "exact":
        raise RuntimeError(f"Found dtype {_D.SCALAR_TYPE_NAMES.get(out.dtype, out.dtype)} but expected "
                           f"{_D.SCALAR_TYPE_NAMES.get(r.dtype, r.dtype)}")
    if r.dtype._cat > out.dtype._cat:
        raise RuntimeError(f"result type {_D.SCALAR_TYPE_NAMES.get(r.dtype, r.dtype)} can't be cast to the "
                           f"desired output type {_D.SCALAR_TYPE_NAMES.get(out.dtype, out.dtype)}")


def _ldexp_kernel(args):
    """torch's ldexp runs its own kernel (whose out= takes only the result's dtype) for a real float input
    and an integer exponent."""
    x, e = (tuple(args) + (None, None))[:2]
    return isinstance(x, Tensor) and isinstance(e, Tensor) and x.dtype.is_floating_point and \
        not x.dtype.is_complex and not e.dtype.is_floating_point and not e.dtype.is_complex


def write_out(out, r):
    """torch's out= contract: resize ``out`` to the result and write into it."""
    if isinstance(out, (tuple, list)):
        for o, x in zip(out, r):
            write_out(o, x)
        return out
    if tuple(out._ms.shape) == tuple(r._ms.shape):
        out._write(r._ms)
    else:
        out._check_inplace()
        if out._ms.size:
            warnings.warn(f"An output with one or more elements was resized since it had shape {list(out._ms.shape)}, "
                          f"which does not match the required output shape {list(r._ms.shape)}. This behavior is "
                          "deprecated, and in a future PyTorch release outputs will not be resized unless they have "
                          "zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
                          "elements with t.resize_(0).", UserWarning, stacklevel=3)
        out._ms = _cast(r._ms, out._ms.dtype)
    return out


_COMPLEX = (ms.complex64, ms.complex128)
_REAL_OF_COMPLEX = (ms.float32, ms.float64)


# in-place ops whose cast error torch words differently: clamp names the receiver's C++ type, ldexp
# names itself where the result type goes
_CPP_TYPE = _D.CPP_TYPE_NAMES
_CAST_WORDING = {
    "clamp": lambda src, dst, args: f"result type {src} can't be cast to the desired output type "
                                    f"{dst if any(isinstance(a, Tensor) for a in args) else _CPP_TYPE.get(dst, dst)}",
    "ldexp": lambda src, dst, args: f"ldexp can't be cast to the desired output type {dst}",
}
_CAST_WORDING["clamp_min"] = _CAST_WORDING["clamp_max"] = _CAST_WORDING["clamp"]
# in-place matrix products whose result is larger than the receiver: torch's own wording
_SHAPE_WORDING = {
    "addmm": lambda own, out: f"Bad in-place call: input tensor size {own} and output tensor size {out} should match",
    "addr": lambda own, out: f"{len(out)}D tensor expected, got {len(own)}D tensor for input",
}
_SHAPE_WORDING["addmv"] = _SHAPE_WORDING["baddbmm"] = _SHAPE_WORDING["addmm"]
# their result shapes, which torch's structured kernels check against the receiver before the dtype dispatch
_RESULT_SHAPE = {
    "addmm": lambda m1, m2, *_: (m1.shape[0], m2.shape[1]),
    "addmv": lambda m, v, *_: (m.shape[0],),
    "baddbmm": lambda b1, b2, *_: (b1.shape[0], b1.shape[1], b2.shape[2]),
}
_CAST_ERROR = re.compile(r"^result type (\w+) can't be cast to the desired output type (\w+)$")


# in-place index ops whose kernel checks the receiver's overlap before the indices' range
_RANGE_AFTER_OVERLAP = frozenset(("index_reduce_", "index_copy_", "index_add_"))


def _check_result_fits(self, other):
    """torch checks that an in-place binary op's result type fits the receiver before it looks for a
    kernel: a float ``other`` for an integer ``bitwise_and_`` is a cast error, not a missing kernel."""
    if isinstance(other, (Tensor, bool, int, float, complex)):
        rt = _result_type(self._ms, other._ms if isinstance(other, Tensor) else other)
        if not _D.can_cast(rt, self.dtype):
            raise RuntimeError(f"result type {_D.SCALAR_TYPE_NAMES[rt]} can't be cast to the desired output type "
                               f"{_D.SCALAR_TYPE_NAMES[self.dtype]}")


def _make_inplace(fn, name):
    op = getattr(fn, "__name__", name[:-1])   # aliases report the op's own name (absolute_ -> abs)
    wording = _CAST_WORDING.get(op)
    label = SAVES_RESULT.get(name)

    def inplace(self, *args, **kwargs):
        if kwargs and "out" in kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
        src = self
        if not self.is_sparse and _P.requires_grad(self._ms) and _P.grad_enabled():
            # the op may save its input for backward; the write-back below then changes that input in
            # place and backward fails with "modified by an inplace operation" (torch's CopySlices keeps
            # the old value). A differentiable copy is what the op reads and saves.
            src = wrap(fresh(self._ms))
        if (name == "conj_physical_" and not self.dtype.is_complex) or (
                name == "nan_to_num_" and not (self.dtype.is_floating_point or self.dtype.is_complex)):
            # (torch writes a real one unchanged, an integer or bool one for nan_to_num_: an expanded
            # receiver included)
            with _repeated_writes():
                return self._write(fn(src, *args, **kwargs)._ms)
        try:
            r = fn(src, *args, **kwargs)
        except NotImplementedError as exc:
            # torch checks the receiver (autograd's rules, overlap) and the result type before it looks
            # for a kernel; an op's own refusal ("floor is not supported for complex inputs") comes first,
            # and a comparison's result is bool whatever its operands
            if "not implemented for '" in str(exc):
                self._check_inplace()
                _check_no_overlap(self)
                shape = _RESULT_SHAPE[op](*args) if op in _RESULT_SHAPE and len(args) >= 2 else self._ms.shape
                if tuple(shape) != tuple(self._ms.shape):
                    raise RuntimeError(_SHAPE_WORDING[op](list(self._ms.shape), list(shape))) from None
                if args and op not in ("eq", "ne", "lt", "le", "gt", "ge"):
                    _check_result_fits(self, args[0])
            raise
        except IndexError as exc:
            if name == "put_" and str(exc).startswith("out of range") or name in _RANGE_AFTER_OVERLAP and (
                    str(exc).endswith("index out of range in self") or " is out of bounds for dimension " in str(exc)):
                # (torch's put_ and index kernels check the receiver's overlap before the index range)
                _check_no_overlap(self)
            raise
        except RuntimeError as exc:
            if name in _RANGE_AFTER_OVERLAP and " is out of bounds for dimension " in str(exc):
                _check_no_overlap(self)   # (index_add_'s scatter names the index in a RuntimeError)
            raise
        except TypeError as exc:
            # an argument error reads as torch's Tensor.<name>_ does: self not counted, the in-place name
            err = _as_method_error(exc)
            if err is exc or not str(err).startswith(f"{op}("):
                raise
            raise TypeError(name + str(err)[len(op):]) from None
        try:
            rm = r._ms
        except SparseOperand:
            return sparse_inplace(self, r, name)
        if rm.dtype != self._ms.dtype and rm.dtype in _REAL_OF_COMPLEX and self._ms.dtype in _COMPLEX:
            # a complex tensor's op with a real result (abs): torch refuses to write it back
            raise RuntimeError(f"In-place {op} is not supported for complex tensors.")
        if tuple(rm.shape) != tuple(self._ms.shape):
            # the receiver takes part in the broadcast, so a result of another shape is larger: torch
            # reports that before any dtype mismatch
            own, out = list(self._ms.shape), list(rm.shape)
            if op in _SHAPE_WORDING:
                raise RuntimeError(_SHAPE_WORDING[op](own, out))
            raise RuntimeError(f"output with shape {own} doesn't match the broadcast shape {out}")
        try:
            out = self._write(rm)
        except BaseException as exc:
            m = _CAST_ERROR.match(str(exc)) if wording is not None and isinstance(exc, RuntimeError) else None
            if m is not None:
                raise RuntimeError(wording(m.group(1), m.group(2), args)) from None
            _reraise(exc, name)
        if label is not None:
            guard_result(self, rm, label)
        return out
    inplace.__name__ = name
    inplace.__qualname__ = f"Tensor.{name}"
    return inplace


def build():
    """Generate every op's callables from the op table (the kernels an implementation runs on each device
    are chosen in ``ops/_kernels.py``).

    Returns ``(functions, methods, functional, namespaced)``: ``mstorch.<name>`` functions (aliases
    included), Tensor members by name (methods, aliases and in-place forms), ``torch.nn.functional``
    entries, and the sub-namespaces' functions keyed ``"<namespace>.<name>"`` (``"linalg.det"``). Nothing
    is assigned here: ``mstorch/_install.py`` is the one step that puts them on Tensor and in namespaces."""
    functions, methods, functional, namespaced = {}, {}, {}, {}
    _autocast.tag(OPS)
    for name, opdef in OPS.items():
        impl = opdef.impl
        fn = _make_function(opdef, impl)
        short = opdef.short
        for ns in opdef.namespace:
            if ns in SUB_NAMESPACES:   # torch.linalg.<x>, torch.fft.<x>...: served by mstorch/linalg.py...
                namespaced[f"{ns}.{short}"] = fn
                fn.__name__ = fn.__qualname__ = short
                fn.__module__ = f"mstorch.{ns}"
        if opdef.functional:
            functional[short] = fn
        if opdef.function:
            # (an entry named "torch.<x>" is torch's top-level x beside an nn.functional x of another signature)
            functions[short if name.startswith(TOP + ".") else name] = fn
            for alias in opdef.aliases:
                functions[alias] = fn
        if opdef.method:
            method_name = short
            method = _make_function(opdef, impl, method=method_name) if opdef.function else fn
            methods[method_name] = method
            for alias in opdef.aliases:
                methods[alias] = method
        if opdef.inplace:
            if opdef.autocast:   # torch's autocast lists only out-of-place ops
                fn = _make_function(opdef, impl, autocast=False)
            methods[opdef.inplace] = _make_inplace(fn, opdef.inplace)
            for alias in opdef.aliases:
                methods[alias + "_"] = _make_inplace(fn, alias + "_")
    PUBLIC.clear()
    PUBLIC.update(functions)
    PUBLIC.update({"nn.functional." + k: v for k, v in functional.items()})
    PUBLIC.update(namespaced)
    return functions, methods, functional, namespaced
