"""torch.library: define operators in Python, give them kernels, fake implementations and autograd formulas,
and call them as ``torch.ops.<ns>.<name>`` (the registry is ``mstorch/_library.py``).

What cannot exist on MindSpore raises and says so: C++ extensions (``torch.ops.load_library``),
``torch.compile``-only registrations (``register_vmap``, ``register_torch_dispatch``, ``triton_op``) and
``opcheck`` (it needs fake tensors)."""
import functools
import traceback
import warnings

from . import _library as L
from . import _op_schema

__all__ = ["Library", "impl", "define", "fallthrough_kernel", "impl_abstract", "register_autocast",
           "register_fake", "register_torch_dispatch", "register_vmap", "get_ctx", "get_kernel", "custom_op",
           "triton_op", "wrap_triton", "infer_schema"]

_reserved_namespaces = ["prim"]
_def_namespaces = set()   # namespaces held by a live Library(ns, "DEF")
_def_namespaces_where = {}
_keep_alive = []


def fallthrough_kernel():
    """A dummy function to pass to ``Library.impl`` in order to register a fallthrough."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


def _caller():
    frame = traceback.extract_stack(limit=4)[0]
    return f"{frame.filename}:{frame.lineno}"


class Library:
    """torch.library.Library(ns, kind, dispatch_key=""): kind "DEF" owns the namespace, "FRAGMENT" adds
    definitions to it, "IMPL" only registers kernels. ``_destroy`` removes what it registered."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in L.DEF_KINDS:
            raise ValueError(f"Unsupported kind: {kind}")
        if ns in _reserved_namespaces and kind in ("DEF", "FRAGMENT"):
            raise ValueError(ns, " is a reserved namespace. Please try creating a library with another name.")
        where = _caller()
        if kind == "DEF":
            if ns in _def_namespaces:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please put all of "
                    "your definitions in a single TORCH_LIBRARY block.  If you were trying to specify "
                    "implementations, consider using TORCH_LIBRARY_IMPL (which can be duplicated).  If you really "
                    "intended to define operators for a single namespace in a distributed way, you can use "
                    "TORCH_LIBRARY_FRAGMENT to explicitly indicate this.  Previous registration of TORCH_LIBRARY "
                    f"was registered at {_def_namespaces_where.get(ns)}; latest registration was registered at "
                    f"{where}")
            _def_namespaces.add(ns)
            _def_namespaces_where[ns] = where
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._defs = []          # _OpDef objects this library defined
        self._impls = []         # (_OpDef, key, previous kernel)
        self._destroyed = False

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema, alias_analysis="", *, tags=()):
        if alias_analysis not in ("", "FROM_SCHEMA", "CONSERVATIVE"):
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        self._check_alive()
        d = L.define(self.ns, schema, _caller())
        self._defs.append(d)
        return d.qualname.split("::")[1] + (f".{d.overload}" if d.overload else "")

    def _resolve(self, op_name):
        if isinstance(op_name, L.OpOverload):
            return op_name._def.qualname, op_name._def.overload
        if isinstance(op_name, str):
            return L.split_name(op_name, self.ns)
        raise RuntimeError("impl should be passed either a name or an OpOverload object as the first argument")

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=True):
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type {type(fn)}")
        self._check_alive()
        key = dispatch_key or self.dispatch_key or "CompositeImplicitAutograd"
        qualname, overload = self._resolve(op_name)
        d = L.entry(qualname, overload)
        if key in d.kernels and not allow_override:
            raise RuntimeError(
                f"This is not allowed since there's already a kernel registered from python overriding "
                f"{qualname.split('::')[1]}'s behavior for {key} dispatch key and {self.ns} namespace.")
        if key == "Meta" and d.schema is None:
            raise RuntimeError(f"operator {qualname} does not exist")
        if fn is fallthrough_kernel:
            return
        if with_keyset:
            fn = functools.partial(fn, None)   # no dispatch key sets on MindSpore: the keyset argument is None
        self._impls.append((d, key, d.kernels.get(key)))
        d.kernels[key] = fn
        if key == "Meta":
            d.fake = fn

    def fallback(self, fn, dispatch_key="", *, with_keyset=False):
        raise NotImplementedError("torch.library.Library.fallback: mstorch has no dispatcher fallbacks (boxed "
                                  "kernels for every operator under a dispatch key)")

    def _register_fake(self, op_name, fn, _stacklevel=1, *, allow_override=True):
        qualname, overload = self._resolve(op_name)
        L.entry(qualname, overload).fake = fn

    def _check_alive(self):
        if self._destroyed:
            raise AssertionError("Library object has been destroyed")

    def _destroy(self):
        for d, key, previous in reversed(self._impls):
            if previous is None:
                d.kernels.pop(key, None)
            else:
                d.kernels[key] = previous
        for d in self._defs:
            L.undefine(d)
            L.forget_namespace_cache(d.qualname)
        if self.kind == "DEF":
            _def_namespaces.discard(self.ns)
        self._impls, self._defs, self._destroyed = [], [], True

    def __del__(self):
        if not getattr(self, "_destroyed", True):
            try:
                self._destroy()
            except Exception:  # noqa: BLE001 (interpreter shutdown)
                pass



def _library_for(ns, lib):
    if lib is not None:
        return lib
    lib = Library(ns, "FRAGMENT")
    _keep_alive.append(lib)
    return lib


def define(qualname, schema=None, *, lib=None, tags=()):
    """torch.library.define("ns::name", "(Tensor x) -> Tensor"); also the old form define(lib, schema)."""
    if isinstance(qualname, Library):   # the old API: a decorator that defines and implements
        old_lib, text = qualname, schema

        def wrap(f):
            name = old_lib.define(text)
            old_lib.impl(name, f)
            return f
        return wrap
    if not isinstance(qualname, str):
        raise ValueError(f"define(qualname, schema): expected qualname to be instance of str, got {type(qualname)}")
    ns, name = _parse_namespace(qualname)
    if not schema.lstrip().startswith("("):
        raise ValueError(f'define(qualname, schema, ...): expected schema to look like e.g. "(Tensor x) -> Tensor" '
                         f'but got "{schema}"')
    _library_for(ns, lib).define(name + schema, tags=tags)


def _parse_namespace(qualname):
    parts = qualname.split("::")
    if len(parts) != 2:
        raise ValueError(f"Expected `qualname` to be of the form \"namespace::name\", but got {qualname}. The "
                         "qualname passed to the torch.library APIs must consist of a namespace and a name, e.g. "
                         "aten::sin")
    return parts[0], parts[1]


_DEVICE_KEY = {"default": "CompositeExplicitAutograd", "cpu": "CPU", "cuda": "CUDA", "meta": "Meta",
               "npu": "PrivateUse1", "xpu": "XPU", "mps": "MPS"}


def _key_for(typ):
    return _DEVICE_KEY.get(typ, typ)


def impl(qualname, types=None, func=None, *, lib=None):
    """torch.library.impl("ns::op", "cpu" | ["cpu", "cuda"] | "default", func); a decorator without func.
    The old form impl(lib, name, dispatch_key="") is a decorator too."""
    if isinstance(qualname, Library):
        old_lib, name, key = qualname, types, func or ""

        def wrap(f):
            old_lib.impl(name, f, key)
            return f
        return wrap
    keys = {_key_for(t) for t in ((types,) if isinstance(types, str) else types)}

    def register(f):
        ns, _ = _parse_namespace(qualname.partition(".")[0])
        use = _library_for(ns, lib)
        for key in keys:
            use.impl(qualname, f, key)
    if func is None:
        return register
    register(func)
    return None


def _resolve_op(op, api):
    if isinstance(op, CustomOpDef):
        return op._def
    if isinstance(op, L.OpOverload):
        return op._def
    if not isinstance(op, str):
        raise ValueError(f"{api}({op}): got unexpected type for op: {type(op)}")
    return L.entry(*L.split_name(op))


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=False):
    """torch.library.register_fake: the shape-only implementation used on meta tensors.

    Differs from torch in one way: an operator that is not (yet) defined keeps its fake implementation for when
    it is, where torch raises "operator ... does not exist" (torchvision registers fakes for its C++
    operators, which cannot load on MindSpore)."""
    def register(f):
        _resolve_op(op, "register_fake").fake = f
        return f
    if func is None:
        return register
    return register(func)


def impl_abstract(qualname, func=None, *, lib=None, _stacklevel=1):
    warnings.warn("`torch.library.impl_abstract` was renamed to `torch.library.register_fake`. Please use that "
                  "instead; we will remove `torch.library.impl_abstract` in a future version of PyTorch.",
                  FutureWarning, stacklevel=2)
    return register_fake(qualname, func, lib=lib)


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """torch.library.register_kernel(op, "cpu" | None, func): a kernel for device types (None: all)."""
    def register(f):
        d = _resolve_op(op, "register_kernel")
        types = [device_types] if isinstance(device_types, str) else (device_types or ["default"])
        for t in types:
            d.kernels[_key_for(t)] = f
        return f
    if func is None:
        return register
    return register(func)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """torch.library.register_autograd: ``setup_context(ctx, inputs, output)`` then ``backward(ctx, *grads)``
    returning one gradient per positional input."""
    d = _resolve_op(op, "register_autograd")
    if d.schema is not None and d.schema.is_mutable:
        raise RuntimeError(f"Cannot register autograd formula for non-functional operator {d.display} with "
                           "schema {d.schema}. Please create a functional operator and register an autograd "
                           "formula for that.")
    d.backward = (backward, setup_context)


def register_autocast(op, device_type, cast_inputs, /, *, lib=None):
    """torch.library.register_autocast: under autocast on ``device_type``, floating inputs are cast to
    ``cast_inputs`` and the op runs with autocast off."""
    d = _resolve_op(op, "register_autocast")
    key = L._AUTOCAST_KEYS.get(device_type)
    if key is None:
        raise ValueError(f"Unknown device type: {device_type}")

    def kernel(*args, **kwargs):
        from .amp.autocast_mode import autocast

        def cast(x):
            from ._tensor import Tensor
            return x.to(cast_inputs) if isinstance(x, Tensor) and x.is_floating_point() else x
        with autocast(device_type, enabled=False):
            return L.call(d, tuple(cast(a) for a in args), {k: cast(v) for k, v in kwargs.items()})
    d.kernels[key] = kernel


def _unsupported(api, why):
    def refuse(*args, **kwargs):
        raise NotImplementedError(f"{api}: {why}")
    refuse.__name__ = api.rpartition(".")[2]
    return refuse


register_torch_dispatch = _unsupported("torch.library.register_torch_dispatch",
                                       "mstorch has no __torch_dispatch__ subclasses (no ATen dispatcher)")
register_vmap = _unsupported("torch.library.register_vmap", "mstorch's vmap does not dispatch to operator rules")
triton_op = _unsupported("torch.library.triton_op", "Triton kernels need CUDA and torch.compile")
wrap_triton = _unsupported("torch.library.wrap_triton", "Triton kernels need CUDA and torch.compile")
opcheck = _unsupported("torch.library.opcheck", "it checks operators against fake tensors and torch.compile, "
                       "which mstorch does not have")


def get_kernel(op, dispatch_key):
    """torch.library.get_kernel: the kernel registered for a dispatch key (a plain callable here)."""
    d = _resolve_op(op, "get_kernel")
    key = str(dispatch_key).rpartition(".")[2]
    if key not in d.kernels:
        raise RuntimeError(f"no kernel for {d.qualname} for dispatch key {key}")
    return d.kernels[key]


class _FakeImplCtx:
    def create_unbacked_symint(self, *, min=2, max=None):
        raise NotImplementedError("torch.library.get_ctx().create_unbacked_symint: mstorch has no fake tensors "
                                  "or symbolic sizes")

    new_dynamic_size = create_unbacked_symint


def get_ctx():
    """torch.library.get_ctx: the context of a fake implementation (only reachable inside one)."""
    return _FakeImplCtx()


def infer_schema(prototype_function, /, *, mutates_args, op_name=None):
    return _op_schema.infer(prototype_function, mutates_args, op_name)


class CustomOpDef:
    """What ``custom_op`` returns: callable as the op, with register_fake, register_autograd and
    register_kernel (torch._library.custom_ops.CustomOpDef)."""

    def __init__(self, namespace, name, schema, fn):
        self._namespace, self._name = namespace, name
        self._qualname = f"{namespace}::{name}"
        self._init_fn = fn
        self._lib = _library_for(namespace, None)
        self._lib.define(name + schema)
        self._def = L.entry(self._qualname)
        self._def.custom_op = True
        self._def.kernels["CompositeExplicitAutograd"] = fn
        self._opoverload = getattr(getattr(L.ops, namespace), name).default
        functools.update_wrapper(self, fn)

    def __repr__(self):
        return f"<CustomOpDef({self._qualname})>"

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)

    def register_fake(self, fn, /):
        self._def.fake = fn
        return fn

    def register_kernel(self, device_types, fn=None, /):
        return register_kernel(self, device_types, fn)

    def register_autograd(self, backward, /, *, setup_context=None):
        register_autograd(self, backward, setup_context=setup_context)

    def register_torch_dispatch(self, torch_dispatch_class, fn=None, /):
        return register_torch_dispatch(self, torch_dispatch_class, fn)

    def register_vmap(self, func=None, /):
        return register_vmap(self, func)

    def register_autocast(self, device_type, cast_inputs):
        register_autocast(self, device_type, cast_inputs)
        return self


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """torch.library.custom_op("ns::name", mutates_args=(...)): turns a type-annotated function into an
    operator (``torch.ops.ns.name``) whose calls run it as a kernel below autograd."""
    def wrap(f):
        ns, opname = _parse_namespace(name)
        text = schema if schema is not None else _op_schema.infer(f, mutates_args)
        op = CustomOpDef(ns, opname, text, f)
        if device_types is not None:
            del op._def.kernels["CompositeExplicitAutograd"]
            op.register_kernel(device_types, f)
        return op
    if fn is None:
        return wrap
    return wrap(fn)

