"""Operator schemas as torch.library reads and writes them: ``"ns::name.overload(Tensor x, float k=1.) -> Tensor"``.

``parse`` turns a schema string into a ``FunctionSchema`` (what ``torch.ops.ns.op.default._schema`` is);
``FunctionSchema.bind`` puts a call's arguments in schema order with defaults filled, raising torch's
messages for too many, missing or unknown arguments; ``infer`` writes the schema of a type-annotated
Python function (``torch.library.infer_schema``, used by ``custom_op``)."""
import inspect
import re
import typing


class Argument:
    """One argument or return of a schema (torch.Argument): name, type string, default, kwarg_only, alias."""

    _NO_DEFAULT = object()

    def __init__(self, name, type_str, default=_NO_DEFAULT, kwarg_only=False, alias=None):
        self.name = name
        self.type_str = type_str
        self._default = default
        self.kwarg_only = kwarg_only
        self.alias = alias   # "a!" for a mutated Tensor(a!)

    @property
    def has_default_value(self):
        return self._default is not Argument._NO_DEFAULT

    @property
    def default_value(self):
        return self._default if self.has_default_value else None

    @property
    def is_write(self):
        return bool(self.alias) and self.alias.endswith("!")

    def __str__(self):
        t = self.type_str
        if self.alias:
            base, opt = (t[:-1], "?") if t.endswith("?") else (t, "")
            t = f"{base}({self.alias}){opt}"
        s = f"{t} {self.name}" if self.name else t
        if self.has_default_value:
            s += "=" + _format_default(self._default)
        return s


class FunctionSchema:
    """torch.FunctionSchema: ``name`` ("ns::op"), ``overload_name``, ``arguments``, ``returns``."""

    def __init__(self, name, overload_name, arguments, returns, returns_tuple):
        self.name = name
        self.overload_name = overload_name
        self.arguments = arguments
        self.returns = returns
        self._returns_tuple = returns_tuple

    def __str__(self):
        name = self.name + (f".{self.overload_name}" if self.overload_name else "")
        return name + _signature(self.arguments, self.returns, self._returns_tuple)

    __repr__ = __str__

    @property
    def is_mutable(self):
        return any(a.is_write for a in self.arguments)

    def bind(self, args, kwargs):
        """The call's values in schema order (defaults filled): (positional values, keyword-only values)."""
        positional = [a for a in self.arguments if not a.kwarg_only]
        if len(args) > len(positional):
            raise RuntimeError(f"{self.name}() expected at most {len(positional)} argument(s) but received "
                               f"{len(args)} argument(s). Declaration: {self}")
        kwargs = dict(kwargs)
        values = []
        for i, a in enumerate(self.arguments):
            if not a.kwarg_only and i < len(args):
                if a.name in kwargs:
                    raise RuntimeError(f"{self.name}() got multiple values for argument '{a.name}'. "
                                       f"Declaration: {self}")
                values.append(args[i])
            elif a.name in kwargs:
                values.append(kwargs.pop(a.name))
            elif a.has_default_value:
                values.append(a.default_value)
            else:
                raise RuntimeError(f"{self.name}() is missing value for argument '{a.name}'. Declaration: {self}")
        if kwargs:
            raise RuntimeError(f"Unknown keyword argument '{next(iter(kwargs))}' for operator '{self.name}'. "
                               f"Schema: {self}")
        n = len(positional)
        return tuple(values[:n]), {a.name: v for a, v in zip(self.arguments[n:], values[n:])}


def _signature(arguments, returns, returns_tuple):
    parts, star = [], False
    for a in arguments:
        if a.kwarg_only and not star:
            parts.append("*")
            star = True
        parts.append(str(a))
    rets = ", ".join(str(r) for r in returns)
    if returns_tuple or len(returns) != 1:
        rets = f"({rets})"
    return f"({', '.join(parts)}) -> {rets}"


def _format_default(v):
    # torch prints schema defaults as C++ does: 1.0 as "1.", lists with ", ", strings double-quoted
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        text = repr(v)
        return text[:-1] if text.endswith(".0") else text
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_format_default(x) for x in v) + "]"
    if isinstance(v, str):
        return '"' + v + '"'
    return str(v)


def _split_top(text):
    """Split at commas outside brackets and parentheses."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


_TYPE = re.compile(r"^(?P<base>[A-Za-z_][\w]*)(?:\((?P<alias>[^)]*)\))?(?P<rest>(?:\[\d*\])?\??)$")


def _parse_default(text):
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    if text.startswith('"') or text.startswith("'"):
        return text[1:-1]
    if text.startswith("["):
        return [_parse_default(x) for x in _split_top(text[1:-1])]
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text   # an enum default such as "contiguous_format": kept as written


def _parse_argument(text, kwarg_only, what):
    default = Argument._NO_DEFAULT
    if "=" in text:
        text, dflt = text.split("=", 1)
        default = _parse_default(dflt.strip())
    pieces = text.strip().rsplit(" ", 1)
    type_text, name = (pieces[0], pieces[1]) if len(pieces) == 2 else (pieces[0], "")
    m = _TYPE.match(type_text.replace(" ", ""))
    if m is None:
        raise RuntimeError(f"Unknown type in schema {what}: {type_text}")
    return Argument(name, m.group("base") + m.group("rest"), default, kwarg_only, m.group("alias"))


def parse(schema, qualname=None):
    """``"name.overload(args) -> returns"`` (``name`` optional when ``qualname`` is given) to a FunctionSchema."""
    head, sep, returns = schema.partition("->")
    if not sep:
        raise RuntimeError(f"Expected '->' in operator schema: {schema}")
    head = head.strip()
    open_ = head.index("(")
    if not head.endswith(")"):
        raise RuntimeError(f"Malformed operator schema: {schema}")
    name = head[:open_].strip()
    if qualname is not None and not name:
        name = qualname
    name, _, overload = name.partition(".")
    args, kwarg_only = [], False
    for part in _split_top(head[open_ + 1:-1]):
        if part == "*":
            kwarg_only = True
            continue
        args.append(_parse_argument(part, kwarg_only, schema))
    returns = returns.strip()
    returns_tuple = returns.startswith("(")
    inner = returns[1:-1] if returns_tuple else returns
    rets = [_parse_argument(r, False, schema) for r in _split_top(inner)]
    return FunctionSchema(name, overload, args, rets, returns_tuple)


# --- torch.library.infer_schema ---------------------------------------------------------------------------------

def _type_names(torch):
    t = torch.Tensor
    return {t: "Tensor", int: "SymInt", float: "float", bool: "bool", str: "str",
            torch.dtype: "ScalarType", torch.device: "Device", typing.Optional[t]: "Tensor?"}


def _schema_type(ann, torch, where):
    names = _type_names(torch)
    if ann in names:
        return names[ann]
    origin, params = typing.get_origin(ann), typing.get_args(ann)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)) and type(None) in params:
        rest = [p for p in params if p is not type(None)]
        if len(rest) == 1:
            return _schema_type(rest[0], torch, where) + "?"
    if origin in (list, typing.List, typing.Sequence, __import__("collections.abc").abc.Sequence) and len(params) == 1:
        elem = _schema_type(params[0], torch, where)
        return elem + "[]"
    if origin is typing.Union and set(params) <= {int, float, bool}:
        return "Scalar"
    raise ValueError(f"infer_schema(func): {where} has unsupported type {ann}. We do not support Tuple inputs "
                     "in schema. As a workaround, please try to use List instead." if origin is tuple else
                     f"infer_schema(func): {where} has unsupported type {ann}.")


def _return_type(ann, torch):
    if ann is None or ann is type(None):
        return [], True
    if typing.get_origin(ann) is tuple:
        return [Argument("", _schema_type(a, torch, "Return")) for a in typing.get_args(ann)], True
    return [Argument("", _schema_type(ann, torch, "Return"))], False


def infer(fn, mutates_args, op_name=None):
    """torch.library.infer_schema: the schema string of a type-annotated function."""
    import mstorch as torch
    sig = inspect.signature(fn)
    hints = typing.get_type_hints(fn)
    if mutates_args == "unknown":
        mutates = set()
    else:
        mutates = {mutates_args} if isinstance(mutates_args, str) else set(mutates_args)
    args, alias = [], 0
    for name, p in sig.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ValueError("infer_schema(func): Parameters of type *args or **kwargs are not supported.")
        if name not in hints:
            raise ValueError(f"infer_schema(func): Parameter {name} must have a type annotation.")
        t = _schema_type(hints[name], torch, f"Parameter {name}")
        default = Argument._NO_DEFAULT if p.default is p.empty else p.default
        a = Argument(name, t, default, p.kind == p.KEYWORD_ONLY)
        if name in mutates:
            a.alias = f"a{alias}!"
            alias += 1
        args.append(a)
    unknown = mutates - set(sig.parameters)
    if unknown:
        raise ValueError(f"infer_schema(func): {sorted(unknown)[0]} in mutates_args were not found in the "
                         "custom op's signature. mutates_args should contain the names of all args that the "
                         "custom op mutates, or just the string 'unknown' if you don't know.")
    if "return" not in hints:
        raise ValueError("infer_schema(func): No return type annotation was provided. Please add one.")
    rets, tup = _return_type(hints["return"], torch)
    text = _signature(args, rets, tup)
    return (op_name + text) if op_name else text
