"""The weights_only unpickler: torch's restricted loader (torch/_weights_only_unpickler.py semantics).

It interprets pickle opcodes itself and never imports anything: a GLOBAL resolves only through the
allow-list (tensors, storages, dtypes, Size, device, OrderedDict, a few builtins) or the globals the
user allowlisted with ``add_safe_globals``; REDUCE and NEWOBJ call only those; BUILD, APPEND and
SETITEM(S) apply only to the types torch allows. Anything else raises ``pickle.UnpicklingError``.
"""
import pickle
import pickletools
import warnings
from collections import Counter, OrderedDict
from struct import unpack
from sys import maxsize

from .._tensor import Tensor
from . import names
from . import rebuild as R

# modules never allowed, even when a user allowlists something from them
_BLOCKED_MODULES = ("sys", "os", "posix", "nt")

_safe = set()


def add_safe_globals(safe_globals):
    global _safe
    _safe = _safe.union(set(safe_globals))


def get_safe_globals():
    return list(_safe)


def clear_safe_globals():
    global _safe
    _safe = set()


def _remove_safe_globals(globals_to_remove):
    global _safe
    _safe = _safe - set(globals_to_remove)


class _safe_globals:
    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb):
        _remove_safe_globals(self.safe_globals)


def user_allowed_globals():
    rc = {}
    for f in _safe:
        if isinstance(f, tuple):
            if len(f) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full path), but got tuple "
                                 f"of length: {len(f)}")
            if type(f[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, but got: "
                                f"{type(f[1])}")
            rc[f[1]] = f[0]
        else:
            for path in names.user_global_names(f):
                rc[path] = f
    return rc


# checkpoints are pickled with protocol 2, which writes some Python 2 names; torch maps back these
# (a subset of CPython's _compat_pickle tables: error messages name the others as written)
_IMPORT_MAPPING = {"__builtin__": "builtins", "copy_reg": "copyreg", "Queue": "queue", "repr": "reprlib",
                   "_abcoll": "collections.abc", "UserDict": "collections", "UserList": "collections",
                   "UserString": "collections", "whichdb": "dbm", "StringIO": "io", "cStringIO": "io"}
_NAME_MAPPING = {
    ("__builtin__", "xrange"): ("builtins", "range"), ("__builtin__", "reduce"): ("functools", "reduce"),
    ("__builtin__", "intern"): ("sys", "intern"), ("__builtin__", "unichr"): ("builtins", "chr"),
    ("__builtin__", "unicode"): ("builtins", "str"), ("__builtin__", "long"): ("builtins", "int"),
    ("itertools", "izip"): ("builtins", "zip"), ("itertools", "imap"): ("builtins", "map"),
    ("itertools", "ifilter"): ("builtins", "filter"), ("itertools", "ifilterfalse"): ("itertools", "filterfalse"),
    ("itertools", "izip_longest"): ("itertools", "zip_longest"),
    ("UserDict", "IterableUserDict"): ("collections", "UserDict"),
    ("UserList", "UserList"): ("collections", "UserList"),
    ("UserString", "UserString"): ("collections", "UserString"), ("__builtin__", "basestring"): ("builtins", "str"),
    ("exceptions", "StandardError"): ("builtins", "Exception"), ("UserDict", "UserDict"): ("collections", "UserDict"),
}


def _py3_name(module, name):
    if (module, name) in _NAME_MAPPING:
        return _NAME_MAPPING[(module, name)]
    return _IMPORT_MAPPING.get(module, module), name


def _read_global(readline):
    module = readline()[:-1].decode("utf-8")
    name = readline()[:-1].decode("utf-8")
    return _py3_name(module, name)


_NJT = ("torch.nested._internal.nested_tensor.NestedTensor", "torch.nested._internal.nested_tensor._rebuild_njt",
        "torch._dynamo.decorators._DimRange")
_DTENSOR = ("torch.distributed.device_mesh.DeviceMesh", "torch.distributed.tensor._dtensor_spec.DTensorSpec",
            "torch.distributed.tensor._dtensor_spec.TensorMeta", "torch.distributed.tensor.DTensor",
            "torch.distributed.tensor.placement_types.Partial",
            "torch.distributed.tensor.placement_types.Replicate", "torch.distributed.tensor.placement_types.Shard")


class Unpickler:
    """torch's weights_only Unpickler (same opcodes, same checks, same messages)."""

    def __init__(self, file, *, encoding="bytes"):
        self.encoding = encoding
        self.readline = file.readline
        self.read = file.read
        self.memo = {}
        self.proto = -1

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("unsupported persistent id encountered")

    def load(self):
        self.metastack = []
        self.stack = []
        self.append = self.stack.append
        self._allowed = names.allowed_globals()
        self._user = user_allowed_globals()
        self._callables = {id(v) for v in self._allowed.values()} | {id(v) for v in self._user.values()}
        read = self.read
        dispatch = _DISPATCH
        while True:
            key = read(1)
            if not key:
                raise EOFError
            handler = dispatch.get(key[0])
            if handler is None:
                raise pickle.UnpicklingError(f"Unsupported operand {key[0]}")
            if handler(self):
                return self.stack.pop()

    def _allowed_value(self, obj):
        return id(obj) in self._callables

    # --- risky operators -----------------------------------------------------------------------

    def _global(self):
        module, name = _read_global(self.readline)
        full_path = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise pickle.UnpicklingError(
                f"Trying to load unsupported GLOBAL {full_path} whose module {module} is blocked.")
        if full_path in self._allowed:
            self.append(self._allowed[full_path])
        elif full_path in self._user:
            self.append(self._user[full_path])
        elif full_path in _NJT:
            raise pickle.UnpicklingError(
                "``torch.nested`` and ``torch._dynamo`` must be imported to load nested jagged tensors (NJTs)")
        elif full_path in _DTENSOR:
            raise pickle.UnpicklingError("``torch.distributed.tensor`` must be imported to load DTensors")
        else:
            names.check_supported(module, name)
            if full_path.startswith("builtins"):
                rest = full_path[len("builtins"):]
                full_path = rest[1:] if rest[:1] == "." else "builtins" + rest
            raise pickle.UnpicklingError(
                f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. Please use "
                f"`torch.serialization.add_safe_globals([{full_path}])` or the "
                f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist this global "
                "if you trust this class/function.")

    def _newobj(self):
        from ..nn.parameter import Parameter
        args = self.stack.pop()
        cls = self.stack.pop()
        if cls is Parameter:
            self.append(Parameter(*args))
        elif self._allowed_value(cls):
            self.append(cls.__new__(cls, *args))
        else:
            raise pickle.UnpicklingError(
                "Can only create new object for nn.Parameter or classes allowlisted via `add_safe_globals` "
                f"but got {cls}")

    def _reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        if not self._allowed_value(func):
            msg = f"Trying to call reduce for unrecognized function {func}"
            if hasattr(func, "__self__"):
                msg += f" which belongs to {func.__self__}"
            raise pickle.UnpicklingError(msg)
        self.stack[-1] = func(*args)

    def _build(self):
        from ..nn.parameter import Parameter
        state = self.stack.pop()
        inst = self.stack[-1]
        t = type(inst)
        if t is Tensor or t is Parameter:
            _legacy_tensor_state(inst, state)
        elif t is OrderedDict:
            inst.__dict__.update(state)
        elif self._allowed_value(t):
            if hasattr(inst, "__setstate__"):
                inst.__setstate__(state)
            else:
                slotstate = None
                if isinstance(state, tuple) and len(state) == 2:
                    state, slotstate = state
                if state:
                    inst.__dict__.update(state)
                if slotstate:
                    for k, v in slotstate.items():
                        setattr(inst, k, v)
        else:
            raise pickle.UnpicklingError(
                "Can only build Tensor, Parameter, OrderedDict or types allowlisted via `add_safe_globals`, "
                f"but got {t}")

    # --- containers -----------------------------------------------------------------------------

    def _append_op(self):
        item = self.stack.pop()
        target = self.stack[-1]
        if type(target) is not list:
            raise pickle.UnpicklingError(f"Can only append to lists, but got {type(target)}")
        target.append(item)

    def _appends(self):
        items = self._pop_mark()
        target = self.stack[-1]
        if type(target) is not list:
            raise pickle.UnpicklingError(f"Can only extend lists, but got {type(target)}")
        target.extend(items)

    def _setitem(self):
        v, k = self.stack.pop(), self.stack.pop()
        self._check_set_target("SETITEM")
        self.stack[-1][k] = v

    def _setitems(self):
        items = self._pop_mark()
        self._check_set_target("SETITEMS")
        target = self.stack[-1]
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    def _check_set_target(self, opcode):
        if type(self.stack[-1]) not in (dict, OrderedDict, Counter):
            raise pickle.UnpicklingError(
                f"Can only {opcode} for dict, collections.OrderedDict, collections.Counter, but got "
                f"{type(self.stack[-1])}")

    def _mark(self):
        self.metastack.append(self.stack)
        self.stack = []
        self.append = self.stack.append

    def _pop_mark(self):
        items = self.stack
        self.stack = self.metastack.pop()
        self.append = self.stack.append
        return items

    def _tuple(self):
        items = self._pop_mark()  # before looking up self.append: popping the mark rebinds it
        self.append(tuple(items))

    def _tuple1(self):
        self.stack[-1] = (self.stack[-1],)

    def _tuple2(self):
        self.stack[-2:] = [(self.stack[-2], self.stack[-1])]

    def _tuple3(self):
        self.stack[-3:] = [(self.stack[-3], self.stack[-2], self.stack[-1])]

    # --- values -----------------------------------------------------------------------------------

    def _binunicode(self):
        n = unpack("<I", self.read(4))[0]
        if n > maxsize:
            raise pickle.UnpicklingError("String is too long")
        self.append(str(self.read(n), "utf-8", "surrogatepass"))

    def _short_binstring(self):
        data = self.read(self.read(1)[0])
        self.append(data.decode(self.encoding, "strict") if self.encoding != "bytes" else data)

    def _binpersid(self):
        pid = self.stack.pop()
        if type(pid) is not tuple and type(pid) is not int:
            raise pickle.UnpicklingError(f"persistent_load id must be tuple or int, but got {type(pid)}")
        if type(pid) is tuple and len(pid) > 0 and _decode_ascii(pid[0]) != "storage":
            raise pickle.UnpicklingError(f"Only persistent_load of storage is allowed, but got {type(pid[0])}")
        self.append(self.persistent_load(pid))

    def _get(self, idx):
        self.append(self.memo[idx])

    def _put(self, idx):
        if idx < 0:
            raise ValueError("negative argument")
        self.memo[idx] = self.stack[-1]

    def _proto(self):
        self.proto = self.read(1)[0]
        if self.proto != 2:
            warnings.warn(
                f"Detected pickle protocol {self.proto} in the checkpoint, which was not the default pickle "
                "protocol used by `torch.load` (2). The weights_only Unpickler might not support all "
                "instructions implemented by this protocol, please file an issue for adding support if you "
                "encounter this.", stacklevel=2)


def _legacy_tensor_state(inst, state):
    """torch.Tensor.__setstate__ for pickles from before tensors had rebuild functions."""
    if len(state) == 4:
        storage, offset, size, stride = state
        inst._ms = R._from_storage(storage, offset, size, stride, storage.dtype)._ms
    elif len(state) == 5:
        inst._ms = state[0]._ms
        inst.requires_grad_(bool(state[3]))
    else:
        inst.requires_grad_(bool(state[0]))


def _decode_ascii(s):
    return s.decode("ascii") if isinstance(s, bytes) else s


def _op(code):
    return code[0]


_U = Unpickler
_DISPATCH = {
    _op(pickle.GLOBAL): _U._global,
    _op(pickle.NEWOBJ): _U._newobj,
    _op(pickle.REDUCE): _U._reduce,
    _op(pickle.BUILD): _U._build,
    _op(pickle.APPEND): _U._append_op,
    _op(pickle.APPENDS): _U._appends,
    _op(pickle.SETITEM): _U._setitem,
    _op(pickle.SETITEMS): _U._setitems,
    _op(pickle.MARK): _U._mark,
    _op(pickle.TUPLE): _U._tuple,
    _op(pickle.TUPLE1): _U._tuple1,
    _op(pickle.TUPLE2): _U._tuple2,
    _op(pickle.TUPLE3): _U._tuple3,
    _op(pickle.NONE): lambda self: self.append(None),
    _op(pickle.NEWFALSE): lambda self: self.append(False),
    _op(pickle.NEWTRUE): lambda self: self.append(True),
    _op(pickle.EMPTY_TUPLE): lambda self: self.append(()),
    _op(pickle.EMPTY_LIST): lambda self: self.append([]),
    _op(pickle.EMPTY_DICT): lambda self: self.append({}),
    _op(pickle.EMPTY_SET): lambda self: self.append(set()),
    _op(pickle.BININT): lambda self: self.append(unpack("<i", self.read(4))[0]),
    _op(pickle.BININT1): lambda self: self.append(self.read(1)[0]),
    _op(pickle.BININT2): lambda self: self.append(unpack("<H", self.read(2))[0]),
    _op(pickle.BINFLOAT): lambda self: self.append(unpack(">d", self.read(8))[0]),
    _op(pickle.BINUNICODE): _U._binunicode,
    _op(pickle.SHORT_BINSTRING): _U._short_binstring,
    _op(pickle.BINPERSID): _U._binpersid,
    _op(pickle.BINGET): lambda self: self._get(self.read(1)[0]),
    _op(pickle.LONG_BINGET): lambda self: self._get(unpack("<I", self.read(4))[0]),
    _op(pickle.BINPUT): lambda self: self._put(self.read(1)[0]),
    _op(pickle.LONG_BINPUT): lambda self: self._put(unpack("<I", self.read(4))[0]),
    _op(pickle.LONG1): lambda self: self.append(pickle.decode_long(self.read(self.read(1)[0]))),
    _op(pickle.PROTO): _U._proto,
    _op(pickle.STOP): lambda self: True,
}


def load(file, *, encoding="ASCII"):
    return Unpickler(file, encoding=encoding).load()


def globals_in_pickle(data):
    """The ``module.name`` of every GLOBAL opcode of a pickle, without running it."""
    found = set()
    for op, arg, _ in pickletools.genops(data):
        if op.name == "GLOBAL":
            module, name = _py3_name(*arg.split(" ", 1))
            found.add(f"{module}.{name}")
    return found


def unsafe_globals(data):
    safe = set(names.allowed_globals()) | set(user_allowed_globals())
    return list(globals_in_pickle(data) - safe)


UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, "
    "but it can result in arbitrary code execution. Do it only if you got the file from a "
    "trusted source."
)
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
    "weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)


def failure_message(message):
    """torch.load's explanation wrapped around a weights_only UnpicklingError."""
    import re
    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        updated = (
            "Weights only load failed. This file can still be loaded, to do so you have two options, "
            "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
            f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check "
            "the recommended steps in the following error message.\n\tWeightsUnpickler error: " + message)
    elif re.search(r"(\S+) must be (\S+) to load", message):
        return f"Weights only load failed. {message}\n {UNSAFE_MESSAGE}\n"
    else:
        updated = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
        if not re.search(r"whose module (\S+) is blocked", message):
            updated += ("Please file an issue with the following so that we can make "
                        "`weights_only=True` compatible with your use case: WeightsUnpickler error: ")
        updated += "\n\n" + message
    return updated + _DOCS_MESSAGE
