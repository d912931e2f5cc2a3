"""torch's own documented examples, run on torch and on mstorch (the machinery of test_doc_examples.py).

``walk()`` lists every public torch API of ``NAMESPACES`` that the scanner (``mstorch._scan.status``)
reports present in mstorch, with the ``>>>`` examples of its torch docstring. ``Session`` runs one
docstring's examples statement by statement in two fresh namespaces, ``torch`` bound to torch in one
and to mstorch in the other (imports of ``torch.*`` inside an example go to ``mstorch.*``), both seeded
alike, and hands back each statement's observable results for ``harness.assert_same``: the value of
an expression, the names an assignment binds, and what ``print`` receives.
"""
import ast
import builtins
import math
import re
import textwrap
import warnings

import numpy as np
import torch

import mstorch
from mstorch import _scan

NAMESPACES = (
    "torch", "torch.Tensor", "torch.nn", "torch.nn.functional", "torch.linalg", "torch.special", "torch.fft",
    "torch.nn.init", "torch.nn.utils", "torch.nn.utils.rnn", "torch.autograd", "torch.autograd.functional",
    "torch.optim", "torch.optim.lr_scheduler", "torch.distributions", "torch.utils.data", "torch.sparse",
    "torch.random", "torch.testing", "torch.nn.utils.parametrizations", "torch.nn.utils.parametrize",
    "torch.utils.checkpoint", "torch.distributions.constraints", "torch.serialization", "torch.accelerator",
)   # not torch.hub (its examples download from the network) nor torch.distributed (they need process groups)


def resolve(dotted, root):
    """``torch.nn.functional`` -> that object under ``root`` (torch or mstorch)."""
    obj = root
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


class Example:
    """One statement of a docstring example and whether the docs show it raising."""

    def __init__(self, source, raises):
        self.source, self.raises = source, raises

    def __repr__(self):
        return f"Example({self.source!r}, raises={self.raises})"


_PROMPT = re.compile(r"^\s*(>>>|\.\.\.)( |$)")
_ERROR_WANT = re.compile(r"^\s*(Traceback|[A-Za-z_.]*(Error|Exception)\b)")
_TORCH_SKIPS = re.compile(r"^\s*#\s*x?doctest:\s*\+REQUIRES\((env:TORCH_DOCTEST_CUDA|module:)")
_CONTINUES = re.compile(r"^(\s|\)|\]|\}|else\b|elif\b|except\b|finally\b)")


def examples(doc):
    """The statements of a docstring's ``>>>`` examples, in order.

    torch's docstrings are read by xdoctest, which (unlike doctest) lets a statement continue on further
    ``>>>`` lines, so statements are cut where the collected lines parse as Python and the next line does
    not continue them. A statement is marked ``raises`` when the output shown under it is an error."""
    out, lines, want = [], [], []
    skipping = False

    def flush():
        if lines:
            out.append(Example("\n".join(lines), any(_ERROR_WANT.match(w) for w in want[:1])))
        lines.clear()
        want.clear()

    for row in doc.splitlines():
        m = _PROMPT.match(row)
        if m is None:
            if lines and row.strip() and not want and not _complete(lines):
                lines.append(row.strip())       # a bracket left open continues without a prompt
            elif lines and row.strip():
                want.append(row.strip())
            elif not row.strip():       # a blank line ends an example
                flush()
                skipping = False
            continue
        code = row[m.end():]
        if _TORCH_SKIPS.match(code):    # needs CUDA or a module torch does not depend on: skip this run of >>> lines
            flush()
            skipping = True
            continue
        if skipping:
            continue
        blank = not code.strip() or code.lstrip().startswith("#")     # (comments may sit at any indent)
        if want or (lines and not blank and _complete(lines) and not _CONTINUES.match(code)):
            flush()
        lines.append(code)
    flush()
    return out


def _complete(lines):
    try:
        ast.parse(textwrap.dedent("\n".join(lines)))
        return True
    except SyntaxError:
        return False


def walk():
    """Yields (dotted torch name, doc examples) for every public API of NAMESPACES that mstorch has.
    Several names sharing one docstring (aliases, a function and its module-level twin) run it once:
    the later names get an empty list."""
    seen = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ns in NAMESPACES:
            mod = resolve(ns, torch)
            for name in sorted(dir(mod)):
                if name.startswith("_"):
                    continue
                obj = getattr(mod, name, None)
                if obj is None or type(obj).__name__ == "module":
                    continue
                full = f"{ns}.{name}"
                if _scan.status(full)[0] == _scan.MISSING:
                    continue
                doc = getattr(obj, "__doc__", None)
                if not isinstance(doc, str) or ">>>" not in doc or doc in seen:
                    yield full, []
                    continue
                seen.add(doc)
                yield full, examples(doc)


def _importer(real_import):
    def imp(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and (name == "torch" or name.startswith("torch.")):
            name = "mstorch" + name[len("torch"):]
        return real_import(name, globals, locals, fromlist, level)
    return imp


def _reset(T):
    T.manual_seed(0)
    T.set_default_device(None)
    if T.are_deterministic_algorithms_enabled():
        T.use_deterministic_algorithms(False)
    T.set_default_dtype(T.float32)
    T.set_grad_enabled(True)
    T.set_printoptions(profile="default")


class Session:
    """One docstring's examples against one library ``T``; ``step(source)`` runs one statement."""

    def __init__(self, T, api):
        self.T = T
        self.printed = []
        bi = dict(vars(builtins))
        if T is mstorch:
            bi["__import__"] = _importer(builtins.__import__)
        leaf = api.rsplit(".", 1)[-1]
        self.ns = {"__builtins__": bi, "__name__": "__doc_example__", "torch": T, "nn": T.nn,
                   "F": T.nn.functional, "np": np, "numpy": np, "math": math, "print": self._print}
        try:    # examples name their own API bare (``Bernoulli(...)``, ``pack_padded_sequence(...)``)
            self.ns.setdefault(leaf, getattr(resolve(api.rsplit(".", 1)[0], T), leaf))
        except AttributeError:
            pass
        self.prebound = set(self.ns)
        _reset(T)

    def bound(self):
        """The names the examples have bound, with their values (for the final comparison)."""
        return {k: v for k, v in self.ns.items() if k not in self.prebound and not k.startswith("_")}

    def _print(self, *args, **kwargs):
        self.printed.append(args)

    def step(self, source):
        """Runs one example; returns [(what, value)] for the comparable results, or raises."""
        tree = ast.parse(source)
        self.printed = []
        out = []
        if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr):
            value = eval(compile(ast.Expression(tree.body[0].value), "<example>", "eval"), self.ns)
            out.append(("value", value))
        else:
            exec(compile(tree, "<example>", "exec"), self.ns)
            for node in tree.body:
                for target in getattr(node, "targets", [getattr(node, "target", None)]):
                    for name in _names(target):
                        out.append((name, self.ns.get(name)))
        out += [("print", p) for p in self.printed]
        return out

    def close(self):
        _reset(self.T)


def _names(target):
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for t in target.elts:
            yield from _names(t)


class Unobservable:
    """Stands for a result with nothing to compare (a function, a class, an iterator...)."""


UNOBSERVABLE = Unobservable()


def observe(x, T):
    """What ``harness.assert_same`` compares of one result of library ``T``: tensors (a sparse one as its
    layout and dense values), Python and NumPy values, torch value types (dtype, device, Size, modules by
    repr), an optimizer's hyperparameters, a scheduler's last learning rates; else UNOBSERVABLE."""
    if isinstance(x, T.Tensor):
        if x.layout != T.strided:
            return (repr(x.layout), x.to_dense())
        return x
    if x is None or isinstance(x, (bool, int, float, complex, str, np.ndarray, np.generic)):
        return x
    if isinstance(x, (T.dtype, T.device, T.nn.Module)):
        return x
    if isinstance(x, T.optim.Optimizer):
        return [{k: v for k, v in g.items() if k != "params"} for g in x.param_groups]
    if isinstance(x, (T.optim.lr_scheduler.LRScheduler, T.optim.lr_scheduler.ReduceLROnPlateau)):
        return x.get_last_lr()
    if isinstance(x, (tuple, list)):
        parts = [observe(v, T) for v in x]
        if any(p is UNOBSERVABLE for p in parts):
            return UNOBSERVABLE
        if all(p is v for p, v in zip(parts, x)):
            return x        # keeps torch.Size and the return_types' field names for assert_same
        return tuple(parts) if isinstance(x, tuple) else parts
    if isinstance(x, dict):
        parts = {k: observe(v, T) for k, v in x.items()}
        return UNOBSERVABLE if any(p is UNOBSERVABLE for p in parts.values()) else parts
    return UNOBSERVABLE
