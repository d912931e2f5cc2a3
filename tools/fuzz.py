"""Differential fuzzer: random calls run on torch and on mstorch, every observable compared (issue 18).

Each case is a few lines of Python source written against a namespace ``T`` (``F`` = ``T.nn.functional``,
``nan``/``inf`` are floats), executed once with ``T = torch`` and once with ``T = mstorch``: both sides
build the same tensors from the same literals, so the case's source is its own reproducer.

Cases come from the op table (``mstorch.ops._registry.OPS``), with the samples in ``compat_tests/op_db``
as templates for valid signatures. A template's NumPy arrays are replaced by random ones: shapes
0-4-d with size-0 and size-1 dims (the template's sizes mapped consistently, so matching dims still
match), every common dtype, non-contiguous layouts (transposed, stepped slice, expanded, storage
offset), special values (nan, +-inf, -0.0, extremes, tiny). Forms: function, method,
``torch.nn.functional``, in place, ``out=``, backward and two backward passes accumulating into
``.grad``. Compared: values, dtypes, shapes, gradients, exception types; after every case the global
state (grad mode, autograd recording, default dtype, the RNG position where torch's did not move).

A worker subprocess runs a chunk of cases, so a crash (or a hang) is caught and reported with the
case that caused it. Differences documented in docs/known-differences.md (its fuzzer table) are
counted apart and never fail.

    python tools/fuzz.py --minutes 10              # random seed, report with reproducers
    python tools/fuzz.py --seed 3 --cases 2000     # fixed seed (what compat_tests/test_fuzz.py runs)
    python tools/fuzz.py --repro 'T.relu(T.tensor([nan]))'   # one source on both sides
"""
from __future__ import annotations

import argparse
import dataclasses
import fnmatch
import json
import math
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
KNOWN_DIFFERENCES = ROOT / "docs" / "known-differences.md"

# kinds of difference; the first five are silent wrong results, which CI fails on
SILENT = ("value", "dtype", "shape", "grad", "state", "crash")
LOUD = ("exception-type", "raises-vs-returns")

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64")
FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("uint8", "int8", "int16", "int32", "int64")
_INFO = {"float16": (65504.0, 6e-08), "bfloat16": (3.3895313892515355e38, 9.2e-41),
         "float32": (3.4028234663852886e38, 1e-45), "float64": (1.7976931348623157e308, 5e-324),
         "complex64": (3.4028234663852886e38, 1e-45)}
_IRANGE = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767),
           "int32": (-2 ** 31, 2 ** 31 - 1), "int64": (-2 ** 63, 2 ** 63 - 1)}
# tolerances per result dtype: (rtol, atol)
_TOL = {"float16": (1e-2, 1e-3), "bfloat16": (2e-2, 1e-2), "float32": (1e-4, 1e-5),
        "float64": (1e-9, 1e-12), "complex64": (1e-4, 1e-5), "complex128": (1e-9, 1e-12)}


# ----------------------------------------------------------------------------------------------
# source rendering

def _num(v):
    """A Python literal for one value (nan/inf are names in the case's namespace)."""
    if isinstance(v, (bool, np.bool_)):
        return "True" if v else "False"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (complex, np.complexfloating)):
        return f"complex({_num(float(v.real))}, {_num(float(v.imag))})"
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def _nested(a, single=False):
    if a.ndim == 0:
        v = a[()]
        if single and isinstance(v, (float, np.floating)) and math.isfinite(v) and v != 0:
            # the shortest decimal that rounds back to this float32 value
            return str(np.float32(v))
        return _num(v)
    return "[" + ", ".join(_nested(x, single) for x in a) + "]"


def _default_dtype_of_literal(a, dtype):
    kind = np.asarray(a).dtype.kind
    return {"b": "bool", "i": "int64", "u": "int64", "f": "float32", "c": "complex64"}.get(kind) == dtype


def tensor_src(values, dtype, requires_grad=False):
    """``T.tensor(...)`` building ``values`` (a NumPy array holding Python-exact values) as ``dtype``."""
    kw = ""
    if values.size == 0:
        dims = ", ".join(str(d) for d in values.shape)
        kw = f", dtype=T.{dtype}" if dtype != "float32" else ""
        rg = ", requires_grad=True" if requires_grad else ""
        return f"T.zeros(({dims}{',' if values.ndim == 1 else ''}){kw}{rg})"
    if not _default_dtype_of_literal(values, dtype):
        kw += f", dtype=T.{dtype}"
    if requires_grad:
        kw += ", requires_grad=True"
    return f"T.tensor({_nested(values, dtype == 'float32')}{kw})"


class Expr:
    """Renders what a template's ``lambda T: ...`` does into source: attribute reads, calls, indexing and
    operators. Calls are recorded as statements (they may have side effects, like ``manual_seed``)."""

    def __init__(self, src, rec):
        self._src, self._rec = src, rec

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Expr(f"{self._src}.{name}", self._rec)

    def __call__(self, *args, **kwargs):
        parts = [render(a, self._rec) for a in args] + [f"{k}={render(v, self._rec)}" for k, v in kwargs.items()]
        return self._rec.add(f"{self._src}({', '.join(parts)})")

    def __getitem__(self, key):
        keys = key if isinstance(key, tuple) else (key,)
        return Expr(f"{self._src}[{', '.join(_index(k, self._rec) for k in keys)}]", self._rec)

    def __bool__(self):
        raise TypeError("data-dependent template")

    def __iter__(self):
        raise TypeError("data-dependent template")

    def __len__(self):
        raise TypeError("data-dependent template")

    def __index__(self):
        raise TypeError("data-dependent template")


def _binop(sym, reflected=False):
    def op(self, other):
        a, b = self._src, render(other, self._rec)
        return Expr(f"({b} {sym} {a})" if reflected else f"({a} {sym} {b})", self._rec)
    return op


for _name, _sym in (("add", "+"), ("sub", "-"), ("mul", "*"), ("truediv", "/"), ("floordiv", "//"),
                    ("mod", "%"), ("pow", "**"), ("matmul", "@"), ("and", "&"), ("or", "|"),
                    ("xor", "^"), ("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">="),
                    ("eq", "=="), ("ne", "!=")):
    setattr(Expr, f"__{_name}__", _binop(_sym))
    if _name not in ("lt", "le", "gt", "ge", "eq", "ne"):
        setattr(Expr, f"__r{_name}__", _binop(_sym, True))
Expr.__neg__ = lambda self: Expr(f"(-{self._src})", self._rec)
Expr.__invert__ = lambda self: Expr(f"(~{self._src})", self._rec)
Expr.__hash__ = lambda self: id(self)


class Recorder:
    """The statements a rendered template runs, in order."""

    def __init__(self):
        self.stmts = []

    def add(self, src):
        name = f"_v{len(self.stmts)}"
        self.stmts.append((name, src))
        return Expr(name, self)


def _index(k, rec):
    if isinstance(k, slice):
        parts = ["" if p is None else render(p, rec) for p in (k.start, k.stop, k.step)]
        return ":".join(parts).rstrip(":") if k.step is None else ":".join(parts)
    if k is Ellipsis:
        return "..."
    return render(k, rec)


class Literal:
    """An argument already rendered as source (a generated tensor)."""

    def __init__(self, src):
        self.src = src


def render(v, rec=None):
    if isinstance(v, Expr):
        return v._src
    if isinstance(v, Literal):
        return v.src
    if isinstance(v, np.ndarray):
        return tensor_src(v, str(v.dtype))
    if isinstance(v, (bool, int, float, complex, np.number, np.bool_)):
        return _num(v)
    if isinstance(v, (str, type(None))):
        return repr(v)
    if isinstance(v, range):
        return repr(v)
    if isinstance(v, slice):
        return f"slice({render(v.start, rec)}, {render(v.stop, rec)}, {render(v.step, rec)})"
    if isinstance(v, list):
        return "[" + ", ".join(render(x, rec) for x in v) + "]"
    if isinstance(v, tuple):
        return "(" + ", ".join(render(x, rec) for x in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{render(k, rec)}: {render(x, rec)}" for k, x in v.items()) + "}"
    if callable(v) and rec is not None:
        return render(v(Expr("T", rec)), rec)
    raise TypeError(f"cannot render {type(v).__name__}")


def finish(rec, final_src):
    """Statements plus ``out = final``, with single-use temporaries inlined (no side effect reordered)."""
    stmts = list(rec.stmts)
    tail = final_src
    changed = True
    while changed:
        changed = False
        for i in range(len(stmts) - 1, -1, -1):
            name, src = stmts[i]
            later = [s for _, s in stmts[i + 1:]] + [tail]
            uses = sum(len(re.findall(rf"\b{name}\b", s)) for s in later)
            if uses == 0:
                continue
            # a later statement whose value nobody uses runs for its side effect: keep the order
            bare_after = any(not any(re.search(rf"\b{n}\b", s) for s in [x for _, x in stmts[j + 1:]] + [tail])
                             for j, (n, _) in enumerate(stmts) if j > i)
            if uses == 1 and not bare_after:
                stmts.pop(i)
                stmts = [(n, re.sub(rf"\b{name}\b", lambda m: src, s)) for n, s in stmts]
                tail = re.sub(rf"\b{name}\b", lambda m: src, tail)
                changed = True
                break
    lines = []
    for name, src in stmts:
        used = any(re.search(rf"\b{name}\b", s) for s in [x for _, x in stmts] + [tail])
        lines.append(f"{name} = {src}" if used else src)
    return lines + [f"out = {tail}"]


def one_line(lines):
    """The reproducer as one line (a lone ``out = X`` shows as ``X``)."""
    if len(lines) == 1 and lines[0].startswith("out = "):
        return lines[0][6:]
    return "; ".join(lines)


# ----------------------------------------------------------------------------------------------
# case generation

def _bf16_round(x):
    """Round to the nearest bfloat16 value (ties to even), kept as float32."""
    b = np.atleast_1d(np.asarray(x, np.float32)).view(np.uint32).astype(np.uint64)
    one, half, sh = np.uint64(1), np.uint64(0x7FFF), np.uint64(16)
    b = ((b + half + ((b >> sh) & one)) >> sh) << sh
    return b.astype(np.uint32).view(np.float32).reshape(np.shape(x))


# ``--boundary P``: a share P of the cases draw their float values from the integers -2..2 (ties, zeros,
# equal bounds, the ends of domains: see tools/boundary_audit.py). Off by default, where it draws nothing,
# so the fixed seeds of compat_tests/test_fuzz.py keep their cases; workers read it from the environment.
BOUNDARY = float(os.environ.get("MSTORCH_FUZZ_BOUNDARY", "0") or 0)


def gen_values(rng, shape, dtype, template, special, boundary=False):
    """An array of Python-exact values for ``dtype`` (a NumPy float64/int64/bool/complex array)."""
    n = int(np.prod(shape)) if shape else 1
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if boundary and dtype in FLOATS:
        return rng.integers(-2, 3, size=shape).astype(np.float64)
    tmpl = template[np.isfinite(template)] if template is not None and template.dtype.kind in "fiu" else None
    if dtype in INTS:
        lo, hi = (0, 10) if dtype == "uint8" else (-5, 5)
        if tmpl is not None and tmpl.size and template.dtype.kind in "iu":
            lo, hi = int(tmpl.min()), int(tmpl.max())
        ilo, ihi = _IRANGE[dtype]
        lo, hi = max(lo, ilo), min(hi, ihi)
        vals = rng.integers(lo, hi + 1, size=shape, dtype=np.int64) if lo <= hi else np.zeros(shape, np.int64)
        if special and n:
            flat = vals.reshape(-1)
            for i in np.nonzero(rng.random(n) < 0.3)[0]:
                flat[i] = rng.choice([ilo, ihi, 0])
        return vals
    lo, hi = -3.0, 3.0
    if tmpl is not None and tmpl.size and tmpl.min() < tmpl.max():
        lo, hi = float(tmpl.min()), float(tmpl.max())
    vals = np.round(rng.uniform(lo, hi, size=shape), int(rng.choice([1, 2, 3])))
    if dtype == "float16":
        vals = vals.astype(np.float16).astype(np.float64)
    elif dtype == "bfloat16":
        vals = _bf16_round(vals).astype(np.float64)
    if special and n:
        big, tiny = _INFO[dtype]
        pool = [np.nan, np.inf, -np.inf, -0.0, 0.0, big, -big, tiny, -tiny, 1e30 if big > 1e30 else big / 2]
        flat = vals.reshape(-1)
        for i in np.nonzero(rng.random(n) < 0.3)[0]:
            flat[i] = pool[rng.integers(len(pool))]
    if dtype == "complex64":
        vals = vals + 1j * np.round(rng.uniform(lo, hi, size=shape), 2)
    return vals


class Arg:
    """A generated tensor argument: values, dtype, layout; renders as a leaf and a view of it."""

    def __init__(self, values, dtype, layout, rng):
        self.values, self.dtype, self.layout = values, dtype, layout
        self.base, self.view = values, ""
        shape = values.shape
        if layout == "transposed":
            perm = tuple(range(values.ndim))[::-1]
            self.base = np.ascontiguousarray(values.transpose(perm))
            self.view = ".t()" if values.ndim == 2 else f".permute{perm}"
        elif layout == "stepped":
            d = int(rng.integers(values.ndim))
            big = list(shape)
            big[d] = 2 * shape[d]
            base = np.zeros(big, values.dtype)
            fill = gen_values(rng, tuple(big), dtype, None, False).astype(values.dtype)
            base[...] = fill
            idx = [slice(None)] * values.ndim
            idx[d] = slice(None, None, 2)
            base[tuple(idx)] = values
            self.base = base
            self.view = "[" + ", ".join([":"] * d + ["::2"]) + "]"
        elif layout == "expanded":
            d = int(rng.integers(values.ndim))
            small = list(shape)
            small[d] = 1
            take = [slice(None)] * values.ndim
            take[d] = slice(0, 1)
            self.base = np.ascontiguousarray(values[tuple(take)]) if shape[d] else np.zeros(small, values.dtype)
            self.values = np.broadcast_to(self.base, shape).copy()
            self.view = f".expand{tuple(shape)}" if len(shape) != 1 else f".expand({shape[0]})"
        elif layout == "offset":
            if values.ndim == 0:
                self.base = np.array([gen_values(rng, (), dtype, None, False), values], dtype=values.dtype)
                self.view = "[1]"
            else:
                row = gen_values(rng, (1,) + shape[1:], dtype, None, False).astype(values.dtype)
                self.base = np.concatenate([row, values])
                self.view = "[1:]"

    def src(self, requires_grad=False):
        return tensor_src(self.base, self.dtype, requires_grad)


def _sizes_of(arrays):
    return sorted({d for a in arrays for d in a.shape})


def _pick(rng, options, weights):
    w = np.asarray(weights, float)
    return options[int(rng.choice(len(options), p=w / w.sum()))]


def templates():
    """(OpInfo, sample) pairs usable as templates: those torch accepts (S samples)."""
    sys.path.insert(0, str(ROOT / "compat_tests"))
    from op_db import ALL, E
    out = []
    for info in ALL:
        if info.skip:
            continue
        for s in info.samples:
            if not isinstance(s, E):
                out.append((info, s))
    return out


def _dtype_name(a):
    return {"float32": "float32", "float64": "float64", "float16": "float16", "bool": "bool",
            "complex64": "complex64", "complex128": "complex64"}.get(str(a.dtype), str(a.dtype))


def make_case(rng, info, sample, opdef):
    """One random call built on a template: returns (source lines, tags, form) or None."""
    arrays = [a for a in sample.args if isinstance(a, np.ndarray)]
    # shapes: keep, map the template's sizes consistently, or draw new ones
    mode = _pick(rng, ["keep", "map", "random", "ndim"], [3, 4, 1.5, 1.5]) if arrays else "keep"
    shapes = [a.shape for a in arrays]
    if mode == "map":
        m = {s: int(_pick(rng, [0, 1, 2, 3, 4, 5], [1.5, 2, 2, 2, 1, 1])) for s in _sizes_of(arrays)}
        shapes = [tuple(m[d] for d in a.shape) for a in arrays]
    elif mode == "random":
        nd = int(rng.integers(0, 5))
        shp = tuple(int(_pick(rng, [0, 1, 2, 3, 4], [1, 2, 2, 2, 1])) for _ in range(nd))
        shapes = [shp for _ in arrays]
    elif mode == "ndim":
        top = max(len(s) for s in shapes)
        lead = int(rng.choice([1, 2]))
        shapes = [(lead,) + s if len(s) == top else s for s in shapes]
    if any(int(np.prod(s)) > 256 for s in shapes):
        shapes, mode = [a.shape for a in arrays], "keep"
    # dtypes: keep, map within kind, or anything
    dmode = _pick(rng, ["keep", "kind", "any"], [4.5, 3.5, 2])
    names = sorted({_dtype_name(a) for a in arrays})
    dmap = {}
    for n in names:
        if dmode == "keep" or n not in DTYPES:
            dmap[n] = n if n in DTYPES else None
        elif dmode == "kind":
            group = FLOATS if n in FLOATS else INTS if n in INTS else (n,)
            dmap[n] = str(rng.choice(group))
        else:
            dmap[n] = str(rng.choice(DTYPES))
    if any(v is None for v in dmap.values()):
        return None
    special = rng.random() < 0.3
    boundary = not special and BOUNDARY > 0 and rng.random() < BOUNDARY
    tags = {f"shape:{mode}", f"dtype:{dmode}"}
    if special:
        tags.add("special")
    if boundary:
        tags.add("boundary")
    gen = []
    k = 0
    for a in sample.args:
        if not isinstance(a, np.ndarray):
            gen.append(a)
            continue
        shape, dtype = shapes[k], dmap[_dtype_name(a)]
        k += 1
        keep_vals = mode == "keep" and dtype == _dtype_name(a) and not special and not boundary and rng.random() < 0.5
        vals = a.astype(np.float64 if a.dtype.kind == "f" else a.dtype) if keep_vals else \
            gen_values(rng, shape, dtype, a, special, boundary)
        layouts = ["contiguous"]
        if vals.ndim >= 2:
            layouts.append("transposed")
        if vals.ndim >= 1:
            layouts += ["stepped", "offset"]
            if any(d > 1 for d in vals.shape):
                layouts.append("expanded")
        layout = str(rng.choice(layouts)) if rng.random() < 0.35 else "contiguous"
        if layout == "expanded" and not any(d > 1 for d in vals.shape):
            layout = "contiguous"
        arg = Arg(vals, dtype, layout, rng)
        gen.append(arg)
        tags.update({dtype, layout})
        if 0 in vals.shape:
            tags.add("empty")
        if special and vals.dtype.kind in "fc" and dtype in _INFO:
            tiny = _INFO[dtype][1]
            if (np.abs(vals) == tiny).any():
                tags.add("subnormal")
        if special:
            tags.update(t for t, hit in (("nan", np.isnan(vals).any() if vals.dtype.kind in "fc" else False),
                                         ("inf", np.isinf(vals).any() if vals.dtype.kind in "fc" else False))
                        if hit)
    tensors = [g for g in gen if isinstance(g, Arg)]
    # forms
    custom = info.call is not None
    forms, weights = ["function"], [3]
    if opdef is not None and not custom:
        if opdef.method and info.method and gen and isinstance(gen[0], Arg):
            forms.append("method"), weights.append(1.5)
        if opdef.functional and info.function:
            forms.append("functional"), weights.append(1)
        if opdef.inplace and info.inplace and gen and isinstance(gen[0], Arg):
            forms.append("inplace"), weights.append(1.5)
        if opdef.out and opdef.function and info.function:
            forms.append("out"), weights.append(1)
        if not opdef.function or not info.function:
            forms.remove("function"), weights.pop(0)
    grads = info.grad and any(t.dtype in FLOATS for t in tensors)
    if grads:
        forms += ["backward", "accumulate"]
        weights += [2, 0.7]
    if not forms:
        return None
    form = _pick(rng, forms, weights)
    tags.add(form)
    rec = Recorder()
    grad_form = form in ("backward", "accumulate")
    leaves = []

    def arg_src(g, i):
        if not isinstance(g, Arg):
            return g
        if grad_form and g.dtype in FLOATS:
            name = f"x{i}"
            rec.stmts.append((name, g.src(True)))
            leaves.append(name)
            return Literal(name + g.view)
        return Literal(g.src() + g.view)

    kwargs = {k: (v.astype(np.float64 if v.dtype.kind == "f" else v.dtype) if isinstance(v, np.ndarray) else v)
              for k, v in sample.kwargs.items()}
    kw_exprs = {k: (Literal(tensor_src(v, _dtype_name(v))) if isinstance(v, np.ndarray) else v)
                for k, v in kwargs.items()}
    name = info.name
    try:
        if form == "inplace":
            rec.stmts.append(("x", gen[0].src()))
            args = [Literal("x" + gen[0].view)] + [arg_src(g, i) for i, g in enumerate(gen[1:], 1)]
            call = rec.add(f"{args[0].src}.{opdef.inplace}({_args(args[1:], kw_exprs, rec)})")
            final = f"({call._src}, x)"
        else:
            args = [arg_src(g, i) for i, g in enumerate(gen)]
            if custom:
                r = info.call(Expr("T", rec), *args, **kw_exprs)
                call = Expr(render(r, rec), rec)
            elif form == "method":
                call = rec.add(f"{args[0].src}.{name}({_args(args[1:], kw_exprs, rec)})")
            elif form == "functional":
                fname = opdef.short
                call = rec.add(f"F.{fname}({_args(args, kw_exprs, rec)})")
            elif form == "out":
                dt = tensors[0].dtype if tensors else "float32"
                call = rec.add(f"T.{name}({_args(args, kw_exprs, rec)}, "
                               f"out=T.zeros(0{'' if dt == 'float32' else ', dtype=T.' + dt}))")
            elif grad_form and opdef is not None and not (opdef.function and info.function) \
                    and opdef.functional:
                # backward through the op's own form: an op of torch.nn.functional only (kl_div...) is
                # not torch.<name> (torch's top-level namesakes are aten's, with other signatures)
                fname = opdef.short
                call = rec.add(f"F.{fname}({_args(args, kw_exprs, rec)})")
            elif grad_form and opdef is not None and not (opdef.function and info.function) \
                    and opdef.method and info.method and args and isinstance(args[0], Literal):
                call = rec.add(f"{args[0].src}.{name}({_args(args[1:], kw_exprs, rec)})")
            else:
                call = rec.add(f"T.{name}({_args(args, kw_exprs, rec)})")
            final = call._src
            if grad_form:
                if call._src.startswith("_v"):
                    rname = call._src
                else:
                    rname = rec.add(call._src)._src
                loss = ("g = {r} if isinstance({r}, T.Tensor) else {r}[0]; "
                        "(g * T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype)).sum().backward()")
                # the leaves once, then the forward and backward once (twice to accumulate into .grad)
                body = rec.stmts[len(leaves):]
                rec.stmts = rec.stmts[:len(leaves)]
                for _ in range(2 if form == "accumulate" else 1):
                    rec.stmts.extend(body)
                    rec.stmts.append(("_bw" + str(len(rec.stmts)), loss.format(r=rname)))
                final = "(" + ", ".join([rname] + [f"{x}.grad" for x in leaves]) + ",)"
    except (TypeError, AttributeError):
        return None
    if grad_form:
        lines = [f"{n} = {s}" if not n.startswith("_bw") else s for n, s in rec.stmts] + [f"out = {final}"]
        lines = _rename(lines)
    else:
        lines = finish(rec, final)
    # dtypes that templates' own expressions name (``lambda T: T.tensor(..., dtype=T.float64)``)
    tags.update(d for d in re.findall(r"\bT\.(\w+)\b", " ".join(lines)) if d in DTYPES)
    if info.name in _RANDOM or "manual_seed" in " ".join(lines):
        tags.add("random")
        if "manual_seed" not in " ".join(lines):
            lines.insert(0, "T.manual_seed(0)")
    return lines, sorted(tags), form


def _rename(lines):
    """Readable names for the temporaries of a backward case (``_v3`` -> ``r``)."""
    text = "\n".join(lines)
    temps = sorted(set(re.findall(r"\b_v\d+\b", text)), key=lambda s: int(s[2:]))
    for i, t in enumerate(temps):
        text = re.sub(rf"\b{t}\b", "r" if i == len(temps) - 1 else f"t{i}", text)
    return text.split("\n")


def _args(args, kwargs, rec):
    parts = [render(a, rec) for a in args] + [f"{k}={render(v, rec)}" for k, v in kwargs.items()]
    return ", ".join(parts)


_RANDOM = set()


# ----------------------------------------------------------------------------------------------
# running and comparing

class Raised:
    def __init__(self, exc):
        self.exc = exc


def execute(lines, T):
    ns = {"T": T, "F": T.nn.functional, "nan": math.nan, "inf": math.inf}
    try:
        exec("\n".join(lines), ns)  # noqa: S102 - the case is generated source, run on both libraries
        return ns["out"]
    except Exception as exc:  # noqa: BLE001 - the exception is the result
        return Raised(exc)


def _exc_kind(exc):
    for kind in (IndexError, TypeError, ValueError, NotImplementedError, RuntimeError, AssertionError):
        if isinstance(exc, kind):
            return kind.__name__
    return type(exc).__name__


def _is_tensor(x):
    return type(x).__name__ in ("Tensor", "Parameter") and hasattr(x, "dtype") and hasattr(x, "shape")


def _to_np(t):
    t = t.detach()
    if str(t.dtype) == "torch.bfloat16":
        t = t.float()
    if hasattr(t, "resolve_conj"):
        t = t.resolve_conj()
    return np.array(t.numpy(), copy=True)


def _show(x):
    try:
        return _show_unsafe(x)
    except Exception as exc:  # noqa: BLE001 - a result whose repr fails is still reported
        return f"<{type(x).__name__} whose repr raises {type(exc).__name__}: {_msg(exc)}>"


def _show_unsafe(x):
    if _is_tensor(x):
        try:
            a = _to_np(x)
        except Exception:  # noqa: BLE001
            return f"<{x.dtype} {tuple(x.shape)}>"
        s = np.array2string(a, threshold=6, edgeitems=2, precision=5, separator=", ").replace("\n", "")
        return s if len(s) < 60 else s[:57] + "..."
    s = repr(x)
    return s if len(s) < 60 else s[:57] + "..."


def compare(ref, got, scale, path="out", grad=False):
    """None when they agree, else (kind, detail). ``ref`` is torch's."""
    if isinstance(ref, Raised) or isinstance(got, Raised):
        if isinstance(ref, Raised) and isinstance(got, Raised):
            if _exc_kind(ref.exc) != _exc_kind(got.exc):
                return "exception-type", f"torch {type(ref.exc).__name__}, ours {type(got.exc).__name__}: {_msg(got.exc)}"
            return None
        if isinstance(got, Raised):
            return "raises-vs-returns", f"torch returns, ours raises {type(got.exc).__name__}: {_msg(got.exc)}"
        return "raises-vs-returns", f"torch raises {type(ref.exc).__name__}: {_msg(ref.exc)}, ours returns {_show(got)}"
    if _is_tensor(ref) or _is_tensor(got):
        if not (_is_tensor(ref) and _is_tensor(got)):
            return ("grad" if grad else "value"), f"{path}: torch {_show(ref)}, ours {_show(got)}"
        if tuple(ref.shape) != tuple(got.shape):
            return ("grad" if grad else "shape"), f"{path}: torch shape {tuple(ref.shape)}, ours {tuple(got.shape)}"
        if str(ref.dtype) != str(got.dtype):
            return ("grad" if grad else "dtype"), f"{path}: torch {ref.dtype}, ours {got.dtype}"
        if getattr(ref, "is_sparse", False):
            ref = ref.to_dense()
            got = got.to_dense()
        try:
            a = _to_np(ref)
            b = _to_np(got)
        except Exception as exc:  # noqa: BLE001
            return ("grad" if grad else "value"), f"{path}: ours unreadable ({type(exc).__name__}: {_msg(exc)})"
        bad = _mismatch(a, b, str(ref.dtype).replace("torch.", ""), scale)
        if bad is not None:
            where = "".join(f"[{int(k)}]" for k in bad) if a.ndim else ""
            x, y = a[bad], b[bad]
            # a float64 result only as exact as float32: computed in float32 somewhere on the way
            lowp = " (float32-precision)" if a.dtype in (np.float64, np.complex128) and np.isfinite(x) \
                and np.isfinite(y) and abs(complex(x) - complex(y)) <= 1e-5 * abs(complex(x)) else ""
            return ("grad" if grad else "value"), (f"{path}{where}: torch {_num(x)}, ours {_num(y)}{lowp}"
                                                   f" (of {_show(ref)})")
        return None
    if isinstance(ref, (tuple, list)) and isinstance(got, (tuple, list)):
        if len(ref) != len(got):
            return "value", f"{path}: length {len(ref)} vs {len(got)}"
        for i, (r, g) in enumerate(zip(ref, got)):
            res = compare(r, g, scale, f"{path}[{i}]", grad)
            if res:
                return res
        return None
    if isinstance(ref, float) and isinstance(got, float):
        if _mismatch(np.array(ref), np.array(got), "float64", scale) is None:
            return None
        return "value", f"{path}: torch {ref!r}, ours {got!r}"
    if type(ref).__module__.startswith("torch") or type(got).__module__.startswith("mstorch"):
        if repr(ref).replace("torch.", "") == repr(got).replace("torch.", "").replace("mstorch.", ""):
            return None
        return "value", f"{path}: torch {_show(ref)}, ours {_show(got)}"
    if type(ref) is not type(got) or ref != got:
        return "value", f"{path}: torch {_show(ref)}, ours {_show(got)}"
    return None


def _msg(exc):
    s = str(exc).strip().split("\n")[0]
    return s if len(s) < 100 else s[:97] + "..."


def _mismatch(a, b, dtype, scale):
    """The index of the first element that differs beyond the dtype's tolerance (NaN matches NaN,
    infinities must be equal), or None."""
    if a.dtype.kind not in "fc":
        bad = a != b
    else:
        rtol, atol = _TOL.get(dtype, (1e-4, 1e-5))
        a = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
        b = b.astype(np.complex128 if b.dtype.kind == "c" else np.float64)
        bad = np.zeros(a.shape, bool)
        for x, y in ((a.real, b.real), (a.imag, b.imag)):
            nx, ny = np.isnan(x), np.isnan(y)
            fin = np.isfinite(x) & np.isfinite(y)
            with np.errstate(invalid="ignore", over="ignore"):
                far = np.abs(x - y) > atol * scale + rtol * np.abs(x)
            bad |= (nx != ny) | (~nx & ~ny & ~fin & (x != y)) | (fin & far)
    idx = np.argwhere(bad)
    return tuple(idx[0]) if len(idx) else None


def _state(T):
    probe = (T.ones(2, requires_grad=True) * 2).requires_grad
    return {"grad_mode": T.is_grad_enabled(), "recording": probe, "default_dtype": str(T.get_default_dtype()),
            "rng": bytes(np.asarray(T.get_rng_state().numpy()).tobytes())}


def _scale(lines):
    """A magnitude for absolute tolerances: the largest finite input (inputs up to 1e4 scale atol)."""
    nums = [abs(float(x)) for x in re.findall(r"(?<![\w.])-?\d+\.\d*(?:e[+-]?\d+)?", " ".join(lines))]
    nums = [x for x in nums if math.isfinite(x)]
    return min(max(nums + [1.0]), 1e4)


def run_case(lines, torch, mstorch, mark=None):
    """Run one case on both sides and return (status, kind, detail). ``mark`` is called between torch's
    run and ours (the worker notes it, so a process crash is attributed to the side that crashed)."""
    before = (_state(torch), _state(mstorch))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = execute(lines, torch)
        if mark is not None:
            mark()
        got = execute(lines, mstorch)
        if ".backward()" in "".join(lines) and isinstance(ref, tuple) and isinstance(got, tuple) and len(ref) == len(got):
            # (result, leaf gradients...)
            res = compare(ref[0], got[0], _scale(lines)) or compare(ref[1:], got[1:], _scale(lines), "grads", True)
        else:
            res = compare(ref, got, _scale(lines))
    after = (_state(torch), _state(mstorch))
    leak = None
    for key in ("grad_mode", "recording", "default_dtype"):
        if after[1][key] != after[0][key]:
            leak = f"{key} is {after[1][key]} after the call (torch {after[0][key]})"
    # (a case that seeds the generator sets both positions itself: torch's can end where an earlier case
    # left it, which says nothing about ours advancing)
    seeded = "manual_seed" in "".join(lines)
    if leak is None and not seeded and before[0]["rng"] == after[0]["rng"] and before[1]["rng"] != after[1]["rng"]:
        leak = "the random generator advanced (torch's did not)"
    if leak:
        return "differ", "state", leak
    if res is None:
        both = isinstance(ref, Raised) and isinstance(got, Raised)
        return ("both-raise" if both else "agree"), None, None
    return "differ", res[0], res[1]


def _restore(torch, mstorch):
    for T in (torch, mstorch):
        T.set_grad_enabled(True)
        T.set_default_dtype(T.float32)
    return _state(mstorch)["recording"]


# ----------------------------------------------------------------------------------------------
# worker: a chunk of cases in this process

def _case_list(seed, ops, aliases=False):
    """The op names cases are drawn from and their templates. ``aliases``: also torch's other names for
    table ops (``T.absolute``, ``T.arctan2``, ``T.concat``...), called with their op's samples."""
    from mstorch.ops._registry import OPS
    _RANDOM.update(n for n, o in OPS.items() if o.family == "random")
    by_name = {}
    for info, s in templates():
        by_name.setdefault(info.name, []).append((info, s))
    if aliases:
        for name, opdef in OPS.items():
            for alias in opdef.aliases:
                plain = [(dataclasses.replace(info, name=alias), s) for info, s in by_name.get(name, ())
                         if info.call is None]
                if alias not in by_name and plain:
                    by_name[alias] = plain
    if ops:
        pats = ops.split(",")
        by_name = {n: t for n, t in by_name.items() if any(fnmatch.fnmatchcase(n, p) for p in pats)}
    return sorted(by_name), by_name, OPS


def case_at(seed, index, names, by_name, OPS):
    """The case number ``index`` of a seed (deterministic: a rerun of the same seed gives the same cases)."""
    rng = np.random.default_rng([seed, index])
    for _ in range(20):
        name = names[int(rng.integers(len(names)))]
        info, sample = by_name[name][int(rng.integers(len(by_name[name])))]
        try:
            case = make_case(rng, info, sample, OPS.get(name))
        except Exception as exc:  # noqa: BLE001 - a template the generator cannot vary
            print(f"fuzz: cannot build a case from {name} {sample!r}: {exc!r}", file=sys.stderr)
            case = None
        if case is not None:
            return name, case
    return None, None


def worker(seed, start, stop, ops, out_path, aliases=False):
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch
    import mstorch
    torch.set_num_threads(1)
    names, by_name, OPS = _case_list(seed, ops, aliases)
    with open(out_path, "a") as f:
        for i in range(start, stop):
            name, case = case_at(seed, i, names, by_name, OPS)
            if case is None:
                f.write(json.dumps({"start": i}) + "\n")
                f.write(json.dumps({"i": i, "status": "skip"}) + "\n")
                continue
            lines, tags, form = case
            # the case before it runs: if the process dies, the parent reports this op and reproducer
            f.write(json.dumps({"start": i, "op": _label(name, form, lines), "repro": one_line(lines),
                                "tags": tags}) + "\n")
            f.flush()

            def mark():
                f.write(json.dumps({"phase": "mstorch"}) + "\n")
                f.flush()
            try:
                status, kind, detail = run_case(lines, torch, mstorch, mark)
            except Exception as exc:  # noqa: BLE001 - the comparison itself failed on our result
                status, kind, detail = "differ", "crash", f"comparing raised {type(exc).__name__}: {_msg(exc)}"
            rec = {"i": i, "status": status}
            if status == "differ":
                rec.update(op=_label(name, form, lines), kind=kind, detail=detail, repro=one_line(lines), tags=tags)
            f.write(json.dumps(rec) + "\n")
            f.flush()
            if kind == "state" and not _restore(torch, mstorch):
                return 3   # recording stays off in this process: the parent starts a fresh one
            if status == "differ" and _HEAP_UNSAFE.search(detail or ""):
                return 3   # torch's kernel wrote outside its tensors: the parent starts a fresh process
    return 0


# where torch's run writes outside its tensors (documented torch bugs), the rest of the process is corrupt:
# seed 9111 saw a hundred later cases fail with MindSpore modules half imported and a stray torch assert
_HEAP_UNSAFE = re.compile(r"ctc_loss: target label .* is out of range")


def _label(name, form, lines):
    if form == "inplace":
        m = re.search(r"\.(\w+_)\(", " ".join(lines))
        return f"Tensor.{m.group(1)}" if m else f"{name}_"
    if form == "out":
        return f"{name}(out=)"
    if form == "method":
        return f"Tensor.{name}"
    return name


# ----------------------------------------------------------------------------------------------
# known differences: docs/known-differences.md's fuzzer table

def known_differences(path=KNOWN_DIFFERENCES):
    """Rows ``| op | kind | when | why |`` of the table under the fuzzer heading: ``op`` (the class's
    op label, e.g. ``relu``, ``Tensor.relu_``, ``relu(out=)``) and ``kind`` are globs, several ops
    separated by spaces; ``when`` lists conditions that must all hold (none: always): a case tag
    (an input dtype, a layout, a form, ``nan``, ``inf``, ``special``, ``subnormal``, ``empty``) or
    ``~text``, text found in the reproducer or in the difference's description. A ``why`` that
    starts with "pending" marks a difference being fixed (counted apart, removed when fixed)."""
    rows, inside = [], False
    for line in pathlib.Path(path).read_text().splitlines():
        if line.startswith("#"):
            inside = "fuzzer" in line.lower()
            continue
        if not inside or not line.startswith("|"):
            continue
        cells = [c.strip().replace("`", "") for c in line.strip().strip("|").split("|")]
        if len(cells) < 4 or cells[0] in ("op", "") or set(cells[0]) <= set("-: "):
            continue
        rows.append({"op": cells[0], "kind": cells[1], "when": cells[2].split(), "why": cells[3],
                     "pending": cells[3].lower().startswith("pending")})
    return rows


def documented(rec, rows):
    for row in rows:
        if any(fnmatch.fnmatchcase(rec["op"], op) for op in row["op"].split()) \
                and fnmatch.fnmatchcase(rec["kind"], row["kind"]) \
                and all((t in rec["tags"] or t in DTYPES and f"T.{t}" in rec["repro"]) if not t.startswith("~") else
                        (t[1:] in rec["repro"] or t[1:] in rec.get("detail", "")) for t in row["when"]):
            return row
    return None


# ----------------------------------------------------------------------------------------------
# driver

def fuzz(seed, cases=None, minutes=None, ops=None, chunk=1500, hang_s=120, log=print, aliases=False):
    """Run cases ``0..cases`` (or until ``minutes`` pass) of ``seed`` in worker subprocesses."""
    # ``minutes`` counts the time spent running cases, not the workers' start (imports take from ~15 s
    # to a minute on a loaded machine)
    budget = 60 * minutes if minutes else None
    total = cases if cases is not None else 10 ** 9
    results, crashes = [], []
    i = 0
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMP_NUM_THREADS="1", GLOG_v="3")
    with tempfile.TemporaryDirectory() as tmp:
        while i < total and (budget is None or budget > 0):
            out = pathlib.Path(tmp) / f"chunk{i}.jsonl"
            chunk_start = i
            stop = min(total, i + chunk)
            cmd = [sys.executable, str(pathlib.Path(__file__).resolve()), "--worker", "--seed", str(seed),
                   "--start", str(i), "--stop", str(stop), "--out", str(out)] + (["--ops", ops] if ops else []) + \
                (["--aliases"] if aliases else [])
            proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            last = time.time()
            size, stopped, first = 0, False, None
            while proc.poll() is None:
                time.sleep(0.5)
                cur = out.stat().st_size if out.exists() else 0
                if cur != size:
                    size, last = cur, time.time()
                    first = first or last
                stopped = budget is not None and first is not None and time.time() - first > budget
                quiet = time.time() - last   # a case running that long hangs (the start may take minutes)
                if stopped or quiet > (hang_s if first is not None else 600):
                    proc.kill()
                    proc.wait()
                    break
            if budget is not None and first is not None:
                budget -= time.time() - first
            err = proc.stderr.read().decode(errors="replace")
            proc.stderr.close()
            started, case, done = None, {}, set()
            if out.exists():
                for line in out.read_text().splitlines():
                    rec = json.loads(line)
                    if "start" in rec:
                        started, case = rec["start"], dict(rec, side="torch")
                        continue
                    if "phase" in rec:
                        case["side"] = rec["phase"]
                        continue
                    done.add(rec["i"])
                    results.append(rec)
            if proc.returncode == 0:
                i = stop
            elif started is None:
                raise RuntimeError(f"fuzz worker failed to start: {err[-2000:]}")
            else:
                if started not in done and not stopped:
                    crashes.append((seed, started, proc.returncode, err.strip().splitlines()[-1:] if err else [],
                                    chunk_start, aliases, case))
                    log(f"  worker died on case {started} ({_signal_name(proc.returncode)}) in {case.get('side')}'s "
                        f"run: {case.get('op')}: {case.get('repro')}")
                i = started + 1
    return results, crashes


def _signal_name(rc):
    if rc is not None and rc < 0:
        try:
            import signal
            return signal.Signals(-rc).name
        except ValueError:
            pass
    return f"exit {rc}"


def crash_records(crashes, ops, alone_s=240):
    """Crashed cases as ``crash`` records. The worker noted the case before running it and which side
    was running when the process died: a death during torch's run is torch's own and is dropped. The
    first crash of each op is re-run alone with mstorch in a fresh process (within ``alone_s`` seconds
    in all), to say whether it reproduces alone or needs its chunk's earlier cases."""
    recs, tried = [], set()
    deadline = time.time() + alone_s

    def dies(lib, lines):
        code = (f"import math, {lib}\nT = {lib}\nF = T.nn.functional\nnan, inf = math.nan, math.inf\n"
                "try:\n" + "\n".join("    " + l for l in lines) + "\nexcept Exception:\n    pass\n")
        try:
            return subprocess.run([sys.executable, "-c", code], capture_output=True,
                                  timeout=max(1, deadline - time.time())).returncode != 0
        except subprocess.TimeoutExpired:
            return None

    for seed, idx, rc, tail, first, aliases, case in crashes:
        if case.get("side") == "torch":
            continue   # torch died on it
        if "repro" in case:
            op, repro, tags = case["op"], case["repro"], case["tags"]
            lines = [x.strip() for x in repro.split(";")]
            lines[-1] = lines[-1] if lines[-1].startswith("out =") else "out = " + lines[-1]
        else:
            name, (lines, tags, form) = case_at(seed, idx, *_case_list(seed, ops, aliases))
            op, repro = _label(name, form, lines), one_line(lines)
        detail = f"worker {_signal_name(rc)}: {' '.join(tail)[:120]}"
        if op not in tried and time.time() < deadline:
            tried.add(op)
            alone = dies("mstorch", lines)
            if alone is False and dies("torch", lines):
                # torch alone dies on it: its kernel corrupted the heap (e.g. writing past a short tensor) and
                # glibc noticed only later, during mstorch's run
                continue
            if alone is False:
                # the case only crashes after the ones before it in its chunk: say how to replay them
                detail += (f"; alone it passes, replay the chunk: python tools/fuzz.py --worker --seed {seed} "
                           f"--start {first} --stop {idx + 1} --out /tmp/replay.jsonl{' --aliases' if aliases else ''}")
            elif alone:
                detail += "; crashes alone"
        recs.append({"i": idx, "status": "differ", "op": op, "kind": "crash", "detail": detail,
                     "repro": repro, "tags": tags})
    return recs


def summarize(results, rows):
    counts = {"cases": 0, "agree": 0, "both-raise": 0, "differ": 0, "documented": 0, "pending": 0, "skip": 0}
    classes = {}
    for rec in results:
        counts["cases"] += rec["status"] != "skip"
        counts[rec["status"]] += 1
        if rec["status"] != "differ":
            continue
        row = documented(rec, rows)
        if row is not None:
            counts["pending" if row["pending"] else "documented"] += 1
            continue
        key = (rec["op"], rec["kind"])
        c = classes.setdefault(key, {"count": 0, "repro": rec["repro"], "detail": rec["detail"]})
        c["count"] += 1
        if len(rec["repro"]) < len(c["repro"]):
            c["repro"], c["detail"] = rec["repro"], rec["detail"]
    return counts, classes


def report(counts, classes, seeds):
    lines = [f"seeds {seeds}: {counts['cases']} cases: {counts['agree']} agree, {counts['both-raise']} raise in both, "
             f"{counts['differ']} differ ({counts['documented']} documented, {counts['pending']} pending fixes)"]
    by_kind = {}
    for (op, kind), c in classes.items():
        by_kind.setdefault(kind, []).append((op, c))
    lines.append("undocumented classes by kind: " + ", ".join(
        f"{k} {len(v)} ({sum(c['count'] for _, c in v)} cases)" for k, v in sorted(by_kind.items())))
    for kind in SILENT + LOUD:
        for op, c in sorted(by_kind.get(kind, []), key=lambda x: -x[1]["count"]):
            detail = " ".join(c["detail"].split())
            lines.append(f"[{kind}] {op} x{c['count']}: `{c['repro']}` -> {detail}")
    return "\n".join(lines)


def silent_classes(classes):
    return {k: v for k, v in classes.items() if k[1] in SILENT}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, action="append")
    p.add_argument("--cases", type=int)
    p.add_argument("--minutes", type=float)
    p.add_argument("--ops", help="comma-separated globs of op names")
    p.add_argument("--json", help="write counts and classes here")
    p.add_argument("--repro", help="run one case source on both sides and print the results")
    p.add_argument("--resummarize", nargs="+", metavar="JSON",
                   help="report again on the differences stored by earlier --json runs (after editing the table)")
    p.add_argument("--boundary", type=float, metavar="P",
                   help="a share P of the cases take float values from the integers -2..2 (ties, zeros, domain ends)")
    p.add_argument("--no-aliases", action="store_true",
                   help="draw only the table's names (compat_tests/test_fuzz.py's fixed seeds do)")
    p.add_argument("--aliases", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--stop", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.boundary:
        global BOUNDARY
        BOUNDARY = a.boundary
        os.environ["MSTORCH_FUZZ_BOUNDARY"] = str(a.boundary)   # (the workers read it)
    if a.worker:
        return worker(a.seed[0], a.start, a.stop, a.ops, a.out, a.aliases)
    if a.repro:
        import torch
        import mstorch
        lines = [s.strip() for s in a.repro.split(";")]
        if not lines[-1].startswith("out ="):
            lines[-1] = "out = " + lines[-1]
        for T in (torch, mstorch):
            r = execute(lines, T)
            print(T.__name__, f"raises {type(r.exc).__name__}: {r.exc}" if isinstance(r, Raised) else r)
        print(run_case(lines, torch, mstorch))
        return 0
    if a.resummarize:
        results = []
        for f in a.resummarize:
            d = json.loads(pathlib.Path(f).read_text())
            results += d["records"] + [{"status": k, "i": -1} for k, n in d["statuses"].items() for _ in range(n)]
        counts, classes = summarize(results, known_differences())
        print(report(counts, classes, "stored"))
        return 1 if silent_classes(classes) else 0
    seeds = a.seed or [int.from_bytes(os.urandom(3), "little")]
    minutes = a.minutes if a.cases is None and a.minutes is not None else None
    if a.cases is None and a.minutes is None:
        minutes = 5
    results, crashes = [], []
    t0 = time.time()
    for s in seeds:
        left = None if minutes is None else max(0.1, minutes - (time.time() - t0) / 60)
        r, c = fuzz(s, cases=a.cases, minutes=left, ops=a.ops, aliases=not a.no_aliases)
        results += r
        crashes += c
    results += crash_records(crashes, a.ops)
    counts, classes = summarize(results, known_differences())
    print(report(counts, classes, seeds))
    if a.json:
        statuses = {k: sum(r["status"] == k for r in results) for k in ("agree", "both-raise", "skip")}
        pathlib.Path(a.json).write_text(json.dumps(
            {"seeds": seeds, "counts": counts, "statuses": statuses,
             "classes": [{"op": k[0], "kind": k[1], **v} for k, v in classes.items()],
             "records": [r for r in results if r["status"] == "differ"]}, indent=1))
    return 1 if silent_classes(classes) else 0


if __name__ == "__main__":
    sys.exit(main())
