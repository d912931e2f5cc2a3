"""The operator registry behind torch.library and ``torch.ops``.

torch keeps operators in its C++ dispatcher; mstorch keeps them here, in Python: a schema per
``ns::name.overload`` (``define``), kernels per dispatch key (``impl``: "CPU", "CUDA",
"CompositeExplicitAutograd", "CompositeImplicitAutograd", "Autograd", "AutocastCPU", "Meta"...), a fake
(meta) implementation and an autograd formula (``register_autograd``). Calling an op binds the arguments
to the schema and picks what torch's dispatcher would run for the inputs' device: an autocast kernel
while autocast is on, an Autograd kernel, a registered autograd formula (run as an
``autograd.Function``) when an input requires grad, else the backend kernel.

``torch.ops`` (``ops`` below) is a module object of its own, as torch's is: ``torch.ops.<ns>.<op>`` finds
registered operators, ``torch.ops.aten.<op>`` the op table's functions, and ``torch.ops.load_library``
refuses torch C++ extensions, which cannot run on MindSpore. The package ``mstorch/ops/`` (the op table)
is internal and reached only by import statements; the attribute ``mstorch.ops`` is this object."""
import contextlib
import threading
import types

from . import _op_schema

DEF_KINDS = ("DEF", "IMPL", "FRAGMENT")
_DEVICE_KEYS = {"cpu": "CPU", "cuda": "CUDA", "npu": "PrivateUse1", "meta": "Meta", "xpu": "XPU", "mps": "MPS"}
_AUTOCAST_KEYS = {"cpu": "AutocastCPU", "cuda": "AutocastCUDA", "xpu": "AutocastXPU"}


class _OpDef:
    """Everything registered for one ``ns::name.overload``."""

    def __init__(self, qualname, overload):
        self.qualname = qualname          # "ns::name"
        self.overload = overload          # "" for the default overload
        self.schema = None
        self.kernels = {}                 # dispatch key -> callable
        self.fake = None
        self.backward = None              # register_autograd: (backward, setup_context)
        self.custom_op = False            # defined by custom_op: backward without a formula raises
        self._function = None             # the autograd.Function built from the formula

    @property
    def display(self):
        return self.qualname.replace("::", ".") + "." + (self.overload or "default")


_DEFS = {}        # ("ns::name", overload) -> _OpDef
_lock = threading.RLock()
_excluded = threading.local()   # dispatch keys excluded in this thread (torch._C._ExcludeDispatchKeyGuard)


def split_name(name, ns=None):
    """ "ns::name.overload" or "name.overload" (with ns) -> ("ns::name", "overload")."""
    if "::" not in name:
        if ns is None:
            raise ValueError(f"Expected there to be a namespace in {name}, i.e. The operator name should look "
                             "something like ns::foo")
        name = f"{ns}::{name}"
    base, _, overload = name.partition(".")
    return base, overload


def entry(qualname, overload="", create=True):
    key = (qualname, "" if overload == "default" else overload)
    with _lock:
        d = _DEFS.get(key)
        if d is None and create:
            d = _DEFS[key] = _OpDef(*key)
        return d


def define(qualname, schema_text, where=None):
    schema = _op_schema.parse(schema_text)
    ns = qualname
    full = f"{ns}::{schema.name}" if "::" not in schema.name else schema.name
    schema.name = full
    d = entry(full, schema.overload_name)
    if d.schema is not None:
        raise RuntimeError(f"Tried to register an operator ({schema}) with the same name and overload name "
                           "multiple times. Each overload's schema should only be registered with a single call "
                           "to def(). Duplicate registration: registered at "
                           f"{where or '<python>'}. Original registration: registered at {d._where}")
    d.schema, d._where = schema, where or "<python>"
    return d


def undefine(d):
    with _lock:
        _DEFS.pop((d.qualname, d.overload), None)


def defined(qualname, overload=""):
    d = entry(qualname, overload, create=False)
    return d is not None and d.schema is not None


# --- calling an operator ------------------------------------------------------------------------------------------

def _tensors(values):
    from ._tensor import Tensor
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from _tensors(v)


def _device_type(values):
    for t in _tensors(values):
        return t.device.type
    return "cpu"


@contextlib.contextmanager
def exclude_keys(keys):
    """torch._C._ExcludeDispatchKeyGuard: the dispatcher skips these keys in this thread."""
    before = getattr(_excluded, "keys", frozenset())
    _excluded.keys = before | frozenset(keys)
    try:
        yield
    finally:
        _excluded.keys = before


def _excluded_keys():
    return getattr(_excluded, "keys", frozenset())


def backend_kernel(d, device_type):
    key = _DEVICE_KEYS.get(device_type, device_type)
    for k in (key, "CompositeExplicitAutograd", "CompositeImplicitAutograd"):
        fn = d.kernels.get(k)
        if fn is not None:
            return fn
    raise NotImplementedError(
        f"Could not run '{d.qualname}' with arguments from the '{key}' backend. This could be because the "
        "operator doesn't exist for this backend, or was omitted during the selective/custom build process "
        f"(if using custom build). '{d.qualname}' is only available for these backends: "
        f"[{', '.join(sorted(d.kernels))}].")


def call(d, args, kwargs):
    from . import autograd
    from .amp.autocast_mode import is_autocast_enabled
    if d.schema is None:
        raise RuntimeError(f"operator {d.qualname} does not exist")
    pos, kw = d.schema.bind(args, kwargs)
    values = pos + tuple(kw.values())
    device = _device_type(values)
    excluded = _excluded_keys()
    auto = _AUTOCAST_KEYS.get(device)
    if auto in d.kernels and auto not in excluded and is_autocast_enabled(device):
        return d.kernels[auto](*pos, **kw)
    for key in ("Autograd" + _DEVICE_KEYS.get(device, ""), "Autograd"):
        if key in d.kernels and key not in excluded:
            return d.kernels[key](*pos, **kw)
    needs_grad = autograd.is_grad_enabled() and any(t.requires_grad for t in _tensors(values))
    if needs_grad and (d.backward is not None or d.custom_op):
        return _autograd_function(d).apply(len(pos), tuple(kw), *values)
    return backend_kernel(d, device)(*pos, **kw)


def _autograd_function(d):
    """The autograd.Function of an op: forward runs the backend kernel, setup_context and backward are the
    registered formula (or, for a custom_op without one, a backward that says so, as torch's does)."""
    if d._function is not None:
        return d._function
    from .autograd.function import Function

    def forward(npos, kwnames, *values):
        pos, kw = values[:npos], dict(zip(kwnames, values[npos:]))
        return backend_kernel(d, _device_type(values))(*pos, **kw)

    def setup_context(ctx, inputs, output):
        npos = inputs[0]
        ctx._mstorch_ninputs = len(inputs) - 2
        if d.backward is not None and d.backward[1] is not None:
            d.backward[1](ctx, tuple(inputs[2:2 + npos]), output)

    def backward(ctx, *grads):
        if d.backward is None:
            raise RuntimeError(f"Trying to backward through {d.display} but no autograd formula was registered. "
                               "Please use register_autograd to add one.")
        res = d.backward[0](ctx, *grads)
        res = res if isinstance(res, tuple) else (res,)
        return (None, None) + tuple(res) + (None,) * (ctx._mstorch_ninputs - len(res))

    name = "GeneratedBackwardFor_" + d.display.replace(".", "_")
    d._function = type(name, (Function,), {"forward": staticmethod(forward),
                                            "setup_context": staticmethod(setup_context),
                                            "backward": staticmethod(backward)})
    return d._function


# --- torch.ops --------------------------------------------------------------------------------------------------

class OpOverload:
    """torch._ops.OpOverload: one overload of an operator (``torch.ops.ns.op.default``), callable."""

    def __init__(self, packet, d):
        self._packet = packet
        self._def = d
        self._overloadname = d.overload or "default"
        self._opname = packet._opname
        self.namespace = packet._ns
        self._name = d.qualname + (f".{d.overload}" if d.overload else "")
        self.__name__ = f"{self._opname}.{self._overloadname}"
        self.__qualname__ = self._name
        self.__module__ = "torch.ops." + self.namespace

    @property
    def _schema(self):
        return self._def.schema

    @property
    def overloadpacket(self):
        return self._packet

    def name(self):
        return self._name

    def __call__(self, *args, **kwargs):
        return call(self._def, args, kwargs)

    def __repr__(self):
        return f"<OpOverload(op='{self.namespace}.{self._opname}', overload='{self._overloadname}')>"

    def __str__(self):
        return f"{self.namespace}.{self._opname}.{self._overloadname}"

    def __hash__(self):
        return hash((self._def.qualname, self._def.overload))

    def __eq__(self, other):
        return isinstance(other, OpOverload) and other._def is self._def


class OpOverloadPacket:
    """torch._ops.OpOverloadPacket: ``torch.ops.ns.op``: its overloads as attributes, callable (the
    default overload)."""

    def __init__(self, ns, opname):
        self._ns = ns
        self._opname = opname
        self._qualified_op_name = f"{ns}::{opname}"
        self.__name__ = opname
        self._dir = []

    def overloads(self):
        with _lock:
            return [o or "default" for (q, o), d in _DEFS.items() if q == self._qualified_op_name and d.schema]

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        d = entry(self._qualified_op_name, name, create=False)
        if d is None or d.schema is None:
            raise AttributeError(f"The underlying op of '{self}' has no overload name '{name}'")
        overload = OpOverload(self, d)
        setattr(self, name, overload)
        return overload

    def __call__(self, *args, **kwargs):
        return self.default(*args, **kwargs)

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._ns}.{self._opname}')>"

    def __str__(self):
        return f"{self._ns}.{self._opname}"


class _AtenPacket:
    """``torch.ops.aten.<op>``: the op table's function under ATen's name. Its overloads (``.default``,
    ``.Tensor``, ``.Scalar``...) are that one function, which takes every form of the arguments; ``overloads()``
    lists only ``default``, as mstorch does not know ATen's overload names."""

    def __init__(self, name, fn):
        self._opname = self.__name__ = name
        self._qualified_op_name = f"aten::{name}"
        self.default = fn

    def overloads(self):
        return ["default"]

    def __getattr__(self, overload):
        if overload.startswith("_"):
            raise AttributeError(overload)
        return self.default

    def __call__(self, *args, **kwargs):
        return self.default(*args, **kwargs)

    def __repr__(self):
        return f"<OpOverloadPacket(op='aten.{self._opname}')>"


class _OpNamespace(types.ModuleType):
    """``torch.ops.<ns>``: registered operators of that namespace as attributes."""

    def __init__(self, ns):
        super().__init__("torch.ops." + ns)
        self.name = ns
        self.__file__ = "torch.ops"

    def __getattr__(self, op):
        if op.startswith("__"):
            raise AttributeError(op)
        if self.name == "aten":
            fn = _aten_function(op)
            if fn is not None:
                return _AtenPacket(op, fn)
        elif any(q == f"{self.name}::{op}" and d.schema for (q, _), d in list(_DEFS.items())):
            packet = OpOverloadPacket(self.name, op)
            setattr(self, op, packet)
            return packet
        raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op}'")


# ATen operators whose torch names start with an underscore and that mstorch has (other underscore names are
# Python-level helpers, not operators)
_PRIVATE_ATEN = ("_assert_async", "_assert_scalar", "_assert_tensor_metadata", "_grouped_mm")


def _aten_function(name):
    import mstorch
    from .nn import functional as F
    if name.startswith("_") and not (name in _PRIVATE_ATEN or name in _ATEN_ONLY or name.startswith("_foreach_")):
        return None
    for owner in (mstorch, F, mstorch.Tensor):
        fn = getattr(owner, name, None)
        if callable(fn) and not isinstance(fn, type):
            return _returning_none(fn) if name.startswith("_foreach_") and name.endswith("_") else fn
    return _ATEN_ONLY.get(name)


# ATen operators that have no torch.* or Tensor method form: what exported and traced graphs call
# (transformers' ExecuTorch exporter rewrites them); each is the ATen semantics on mstorch's public ops

def _to_copy(self, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
             memory_format=None):
    """aten::_to_copy: always a new tensor (differentiable), converted like ``Tensor.to``."""
    import mstorch
    return self.to(device=device, dtype=dtype, non_blocking=non_blocking, copy=True,
                   memory_format=memory_format or mstorch.preserve_format)


def _slice(self, dim=0, start=None, end=None, step=1):
    """aten::slice.Tensor: a view of ``start:end:step`` along ``dim`` (bounds clamped as Python's)."""
    from .ops._helpers import wrap_dim
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    dim = wrap_dim(dim, self.dim())
    return self[(slice(None),) * dim + (slice(start, end, step),)]


def _sym_size(self, dim):
    """aten::sym_size.int: the size of ``dim`` as an int."""
    return self.size(dim)


def _alias(self):
    """aten::alias: a view of the whole tensor."""
    return self[...]


def _unsafe_view(self, size):
    """aten::_unsafe_view: ``view``'s result (torch does not record it as a view of ``self``)."""
    return self.view(size)


def _local_scalar_dense(self):
    """aten::_local_scalar_dense: the first element as a Python number (torch does not check the count)."""
    if self.numel() == 0:
        raise RuntimeError("_local_scalar_dense: Empty tensor not supported")
    return self.reshape(-1)[0].item()


def _is_all_true(self):
    """aten::_is_all_true: ``all()`` of a bool tensor (torch asserts the dtype)."""
    import mstorch
    if self.dtype != mstorch.bool:
        raise RuntimeError("self.scalar_type() == at::kBool INTERNAL ASSERT FAILED at "
                           '"/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp":2144, please report a bug to '
                           "PyTorch. ")
    return self.all()


# aten::_fft_c2c's ``normalization`` (fft_norm_mode: none, 1/sqrt(n), 1/n) as torch.fft's ``norm`` per direction
_FFT_NORM = {True: {0: "backward", 1: "ortho", 2: "forward"}, False: {0: "forward", 1: "ortho", 2: "backward"}}


def _fft_c2c(self, dim, normalization, forward):
    """aten::_fft_c2c: the complex n-D transform over ``dim`` (a list), scaled as ``normalization`` says."""
    import mstorch
    if not isinstance(dim, (list, tuple)):
        raise RuntimeError("aten::_fft_c2c() Expected a value of type 'List[int]' for argument 'dim' but instead "
                           f"found type '{type(dim).__name__}'.")
    if not self.is_complex():
        from ._dtype import scalar_type_name
        raise RuntimeError(f"Only supports complex dtypes, but found: {scalar_type_name(self.dtype)}")
    if not dim:
        return self.clone()
    transform = mstorch.fft.fftn if forward else mstorch.fft.ifftn
    return transform(self, dim=list(dim), norm=_FFT_NORM[bool(forward)][normalization])


_ATEN_ONLY = {"_to_copy": _to_copy, "slice": _slice, "sym_size": _sym_size, "alias": _alias,
              "_unsafe_view": _unsafe_view, "_local_scalar_dense": _local_scalar_dense,
              "_is_all_true": _is_all_true, "_fft_c2c": _fft_c2c}


def _returning_none(fn):
    """ATen's in-place foreach operators return nothing (``torch._foreach_add_`` gives back its list, the
    ``torch.ops.aten`` operator None)."""
    def op(*args, **kwargs):
        fn(*args, **kwargs)
    op.__name__ = op.__qualname__ = fn.__name__
    return op


class _Ops(types.ModuleType):
    """``torch.ops``: namespaces created on first use; ``load_library`` refuses C++ extensions."""

    def __init__(self):
        super().__init__("torch.ops")
        self.__file__ = "_ops.py"
        self.loaded_libraries = set()

    def __getattr__(self, ns):
        if ns.startswith("__"):
            raise AttributeError(ns)
        namespace = _OpNamespace(ns)
        setattr(self, ns, namespace)
        return namespace

    def load_library(self, path):
        """torch.ops.load_library: a torch C++ extension is machine code linked against libtorch, which
        MindSpore cannot run; raised as OSError, the error torch gives for a library it cannot load (libraries
        such as torchvision catch it and go on without their compiled operators)."""
        raise OSError(f"torch.ops.load_library({str(path)!r}): mstorch cannot load a torch C++ extension (it is "
                      "compiled against libtorch, which MindSpore does not provide); register the operators in "
                      "Python with torch.library instead")

    def import_module(self, module):
        import importlib
        importlib.import_module(module)


ops = _Ops()


def forget_namespace_cache(qualname):
    """Drop ``torch.ops`` attributes cached for an op that a destroyed Library removed."""
    ns, _, op = qualname.partition("::")
    namespace = ops.__dict__.get(ns)
    if namespace is not None:
        namespace.__dict__.pop(op, None)
