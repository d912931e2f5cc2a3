"""Turn the op table into callables: ``mstorch.<name>``, ``Tensor.<name>``, ``Tensor.<name>_`` and ``out=``.

The generated wrapper is the per-op hot path: unwrap mstorch Tensors to mindspore.Tensors, call the
implementation chosen for the device target once at bind time, wrap the result. MindSpore's own
exceptions are re-raised as torch's exception types with the first, readable line of the message.
"""
import re

import mindspore as ms

from .. import _ms_private as _P
from .. import _runtime
from .._cast import cast as _cast
from .._tensor import Tensor, wrap
from . import _autocast
from ._registry import OPS

_MsTensor = ms.Tensor
_TRACE = [False]   # MSTORCH_TRACE: print every dispatched op
_MS_BROADCAST = re.compile(r"need to broadcast.*but got \w+\.shape = \[([^\]]*)\] and \w+\.shape = \[([^\]]*)\]")
_MS_NO_KERNEL = re.compile(r"Unsupported data type!.*but get input\[(?:\[const vector\]\{)?(\w+)")
# MindSpore's dtype names in kernel errors -> torch's ScalarType names (as in `"add" not implemented for 'Half'`)
_SCALAR_NAMES = {"Float16": "Half", "Float32": "Float", "Float64": "Double", "BFloat16": "BFloat16",
                 "Complex64": "ComplexFloat", "Complex128": "ComplexDouble", "Bool": "Bool", "Int8": "Char",
                 "Int16": "Short", "Int32": "Int", "Int64": "Long", "UInt8": "Byte", "UInt16": "UInt16",
                 "UInt32": "UInt32", "UInt64": "UInt64"}


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


def translate_error(exc, name):
    """torch's exception type for a MindSpore failure; our own torch-style errors pass unchanged."""
    # A MindSpore exception switches op recording off for every later op (measured: after a failed
    # ops.pad, `(x * 2).sum()` has no grad_fn); switch it back on.
    _P.enable_recording()
    text = str(exc)
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
        from ._views import infer_size
        try:
            infer_size(*(tuple(int(v) for v in g.split(",") if v.strip()) for g in shapes.groups()))
        except RuntimeError as err:
            return err
    msg = f"mstorch.{name}: {first}"
    if isinstance(exc, TypeError):
        return TypeError(msg)
    if isinstance(exc, IndexError):
        return IndexError(msg)
    return RuntimeError(msg)


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


def _translated(exc, name, method):
    """The exception to raise in place of ``exc`` (torch's type and wording), or None to re-raise it."""
    err = translate_error(exc, name)
    if method:
        err = _as_method_error(exc if err is None else err)
        return None if err is exc else err
    return err


def _make_function(opdef, impl, method=False):
    name = opdef.name
    if opdef.raw:
        def fn(*args, **kwargs):
            try:
                return impl(*args, **kwargs)
            except (ValueError, TypeError, RuntimeError) as exc:
                err = _translated(exc, name, method)
                if err is None:
                    raise
                raise err from None
    else:
        def fn(*args, **kwargs):
            args = [_unwrap(a) for a in args]
            if kwargs:
                kwargs = {k: _unwrap(v) for k, v in kwargs.items()}
            try:
                r = impl(*args, **kwargs)
            except (ValueError, TypeError, RuntimeError) as exc:
                err = _translated(exc, name, method)
                if err is None:
                    raise
                raise err from None
            return _wrap_out(r)
    if opdef.out:
        inner = fn

        def fn(*args, out=None, **kwargs):
            r = inner(*args, **kwargs)
            if out is None:
                return r
            return write_out(out, r)
    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"Mirrors torch.{name}." + (f"\n\nDifference: {opdef.note}" if opdef.note else "")
    if opdef.autocast:   # only the tagged ops pay for the autocast check
        fn = _autocast.hook(fn, opdef.autocast)
    return fn


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
        out._ms = _cast(r._ms, out._ms.dtype)
    return out


_COMPLEX = (ms.complex64, ms.complex128)
_REAL_OF_COMPLEX = (ms.float32, ms.float64)


# in-place ops whose cast error torch words differently: clamp names the receiver's C++ type, ldexp
# names itself where the result type goes
_CPP_TYPE = {"Long": "long int", "Int": "int", "Short": "short int", "Char": "signed char",
             "Byte": "unsigned char", "Bool": "bool", "Float": "float", "Double": "double"}
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
_CAST_ERROR = re.compile(r"^result type (\w+) can't be cast to the desired output type (\w+)$")


def _check_result_fits(self, other):
    """torch checks that an in-place binary op's result type fits the receiver before it looks for a
    kernel: a float ``other`` for an integer ``bitwise_and_`` is a cast error, not a missing kernel."""
    from .._tensor import _SCALAR_TYPE_NAMES
    from .._dtype import can_cast
    from .. import result_type
    if isinstance(other, (Tensor, bool, int, float, complex)):
        rt = result_type(self, other)
        if not can_cast(rt, self.dtype):
            raise RuntimeError(f"result type {_SCALAR_TYPE_NAMES[rt]} can't be cast to the desired output type "
                               f"{_SCALAR_TYPE_NAMES[self.dtype]}")


def _make_inplace(fn, name):
    op = getattr(fn, "__name__", name[:-1])   # aliases report the op's own name (absolute_ -> abs)
    wording = _CAST_WORDING.get(op)

    def inplace(self, *args, **kwargs):
        try:
            r = fn(self, *args, **kwargs)
        except NotImplementedError:
            if args:
                _check_result_fits(self, args[0])
            raise
        except TypeError as exc:
            # an argument error reads as torch's Tensor.<name>_ does: self not counted, the in-place name
            err = _as_method_error(exc)
            if err is exc or not str(err).startswith(f"{op}("):
                raise
            raise TypeError(name + str(err)[len(op):]) from None
        rm = r._ms
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
        if wording is None:
            return self._write(rm)
        try:
            return self._write(rm)
        except RuntimeError as exc:
            m = _CAST_ERROR.match(str(exc))
            if m is None:
                raise
            raise RuntimeError(wording(m.group(1), m.group(2), args)) from None
    inplace.__name__ = name
    inplace.__qualname__ = f"Tensor.{name}"
    return inplace


def _traced(fn, name):
    def traced(*args, **kwargs):
        print(f"[mstorch] {name}")
        return fn(*args, **kwargs)
    return traced


FUNCTIONAL = {}   # torch.nn.functional names -> generated functions


def bind_all(namespace):
    """Create every function and method for the current device target; return the functions."""
    device = _runtime.device_target()
    functions = {}
    FUNCTIONAL.clear()
    _autocast.tag(OPS)
    for name, opdef in OPS.items():
        fn = _make_function(opdef, opdef.impl_for(device))
        if _TRACE[0]:
            fn = _traced(fn, name)
        if opdef.functional:
            FUNCTIONAL[opdef.functional if isinstance(opdef.functional, str) else name] = fn
        if opdef.function:
            functions[name] = fn
            for alias in opdef.aliases:
                functions[alias] = fn
        if opdef.method:
            method_name = opdef.method if isinstance(opdef.method, str) else name
            mfn = _make_function(opdef, opdef.impl_for(device), method=True) if opdef.function else fn
            if _TRACE[0]:
                mfn = _traced(mfn, name)
            if not _defined_on_class(method_name):
                setattr(Tensor, method_name, mfn)
            for alias in opdef.aliases:
                if not _defined_on_class(alias):
                    setattr(Tensor, alias, mfn)
        if opdef.inplace and not _defined_on_class(opdef.inplace):
            fn = getattr(fn, "without_autocast", fn)   # torch's autocast lists only out-of-place ops
            setattr(Tensor, opdef.inplace, _make_inplace(fn, opdef.inplace))
            for alias in opdef.aliases:
                if not _defined_on_class(alias + "_"):
                    setattr(Tensor, alias + "_", _make_inplace(fn, alias + "_"))
    namespace.update(functions)
    return functions


_HANDWRITTEN = set(vars(Tensor))


def _defined_on_class(name):
    # methods written by hand in _tensor.py win over generated ones
    return name in _HANDWRITTEN
