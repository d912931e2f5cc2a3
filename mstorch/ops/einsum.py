"""torch.einsum: MindSpore's ``ops.einsum`` has no CPU kernel, so the equation (or sublist form) is parsed
here and reduced to diagonals, sums, permutes and batched matrix products (``linalg._mm``)."""
import math

import mindspore as ms
from . import _msops as ops

from ._helpers import cast, promote
from ._registry import register
from ._views import empty_from
from .reduction import _reduce_sum
from .products import F, _mm, _no_bool, _scalar_type_msg


def _parse_term(term, ndim, k):
    labels, ell = [], False
    i = 0
    while i < len(term):
        c = term[i]
        if c == ".":
            if ell:
                raise RuntimeError(f"einsum(): found '.' for operand {k} for which an ellipsis was already found")
            if term[i:i + 3] != "...":
                raise RuntimeError(f"einsum(): found '.' for operand {k} that is not part of any ellipsis")
            ell = True
            labels.append("...")
            i += 3
            continue
        if not c.isalpha() or not c.isascii():
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                               "subscripts must be in [a-zA-Z]")
        labels.append(c)
        i += 1
    n_named = len(labels) - ell
    if (not ell and n_named != ndim) or (ell and n_named > ndim):
        raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n_named}) "
                           + ("does not match" if not ell else "is more than")
                           + f" the number of dimensions ({ndim}) for operand {k}"
                           + (" and no ellipsis was given" if not ell else ""))
    if ell:
        j = labels.index("...")
        n_ell = ndim - n_named
        # ellipsis dims get labels that cannot clash with letters, aligned from the right
        labels[j:j + 1] = [f"#{n_ell - q}" for q in range(n_ell)]
    return labels


def _parse_output(rhs, ell):
    head, dots, tail = rhs.partition("...")
    for c in head + tail:
        if not (c.isalpha() and c.isascii()):
            raise RuntimeError("einsum(): invalid subscript given in the equation string for the output, "
                               "subscripts must be in [a-zA-Z]" if c != "." else
                               "einsum(): found '.' for output that is not part of any ellipsis")
    return list(head) + (ell if dots else []) + list(tail)


def _sublist_equation(args):
    def letters(sub):
        out = []
        for s in sub:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, int) and 0 <= s < 52:
                out.append(chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26))
            else:
                raise RuntimeError("einsum(): expected subscript to be within the range [0, 52)")
        return "".join(out)
    operands, terms = [], []
    it = list(args)
    while len(it) >= 2 and isinstance(it[0], ms.Tensor):
        operands.append(it.pop(0))
        terms.append(letters(it.pop(0)))
    eq = ",".join(terms)
    if it:
        eq += "->" + letters(it[0])
    return eq, operands


def _diagonalize(t, labels):
    """Take the diagonal over repeated labels of one operand ('ii->i')."""
    while len(set(labels)) != len(labels):
        seen = {}
        for i, l in enumerate(labels):
            if l in seen:
                j = seen[l]
                if t.size:
                    t = ops.diagonal(t, 0, j, i)          # the diagonal goes last
                else:   # (MindSpore's Diagonal backward fails on an empty tensor)
                    n = min(t.shape[i], t.shape[j])
                    t = empty_from(t, [s for q, s in enumerate(t.shape) if q not in (i, j)] + [n])
                labels = [x for q, x in enumerate(labels) if q not in (i, j)] + [l]
                break
            seen[l] = i
    return t, labels


def _sum_labels(t, labels, drop):
    axes = tuple(i for i, l in enumerate(labels) if l in drop)
    if not axes:
        return t, labels
    if t.dtype in _INTEGRAL:   # torch's sum: bool and integers add up in int64, exactly (wrapping)
        return _reduce_sum(cast(t, ms.int64), axes, False, ms.int64), [l for l in labels if l not in drop]
    return ops.sum(t, axes), [l for l in labels if l not in drop]


_INTEGRAL = (ms.bool_, ms.uint8, ms.int8, ms.int16, ms.int32, ms.int64)


def _contract(a, la, b, lb, keep):
    """Contract two operands over their shared labels not in ``keep``, as one batched matmul."""
    sizes = {}
    for t, ls in ((a, la), (b, lb)):
        for s, l in zip(t.shape, ls):
            prev = sizes.get(l, 1)
            sizes[l] = s if prev == 1 else prev   # (a size-1 dim broadcasts, also against a size-0 one)
    # torch's rule for a summed label of size 1 in one operand: it sums the other operand over it first
    # (bool and integers then add up in int64), and a label of size 1 in both is a plain product
    for l in [l for l in la if l in lb and l not in keep]:
        sa, sb = a.shape[la.index(l)], b.shape[lb.index(l)]
        if sa != 1 and sb != 1:
            continue
        if sa != 1:
            a, la = _sum_labels(a, la, {l})
        else:
            a, la = a.squeeze(la.index(l)), [x for x in la if x != l]
        if sb != 1:
            b, lb = _sum_labels(b, lb, {l})
        else:
            b, lb = b.squeeze(lb.index(l)), [x for x in lb if x != l]
        sizes.pop(l, None)
    batch = [l for l in la if l in lb and l in keep]
    contr = [l for l in la if l in lb and l not in keep]
    ao = [l for l in la if l not in lb]
    bo = [l for l in lb if l not in la]

    def arrange(t, ls, order):
        t = t.transpose(*[ls.index(l) for l in order]) if order != ls else t
        shape = tuple(sizes[l] for l in order)
        return ops.broadcast_to(t, shape) if tuple(t.shape) != shape else t

    pa = arrange(a, la, batch + ao + contr)
    pb = arrange(b, lb, batch + contr + bo)
    nb = math.prod(sizes[l] for l in batch)
    na, nc, nbo = (math.prod(sizes[l] for l in g) for g in (ao, contr, bo))
    if not contr:
        # nothing summed: torch multiplies (promoting dtypes, bool included) rather than calling bmm
        pa, pb, _ = promote(pa.reshape(nb, na, 1), pb.reshape(nb, 1, nbo))
        out = ops.logical_and(pa, pb) if pa.dtype == ms.bool_ else ops.mul(pa, pb)
        return out.reshape(tuple(sizes[l] for l in batch + ao + bo)), batch + ao + bo
    shape = tuple(sizes[l] for l in batch + ao + bo)
    if not (nb * na * nbo and nc) and (a.dtype != b.dtype or a.dtype == ms.bool_):
        # an empty operand: torch's bmm answers with zeros before it checks the dtypes or looks for a kernel,
        # in the second operand's dtype (bool included)
        return ops._linked(ops.zeros(shape, b.dtype), pa, pb), batch + ao + bo
    # a sum: torch's bmm, which takes one dtype (bool refused first)
    _no_bool(a, "bmm")
    if a.dtype != b.dtype:
        _scalar_type_msg(a, b)
    if batch:
        out = _mm(pa.reshape(nb, na, nc), pb.reshape(nb, nc, nbo))
    else:
        out = _mm(pa.reshape(na, nc), pb.reshape(nc, nbo))   # a plain 2-D product is the cheapest kernel
    return out.reshape(tuple(sizes[l] for l in batch + ao + bo)), batch + ao + bo


@register("einsum", family=F, namespace="torch")
def einsum(*args):
    if args and isinstance(args[0], ms.Tensor):
        equation, operands = _sublist_equation(args)
    else:
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    labels = [_parse_term(term, op.ndim, k) for k, (term, op) in enumerate(zip(terms, operands))]
    # sizes must agree (or broadcast from 1)
    seen = {}
    for k, (op, ls) in enumerate(zip(operands, labels)):
        for s, l in zip(op.shape, ls):
            if l in seen and s != seen[l] and s != 1 and seen[l] != 1:
                name = "ellipsis dimension" if l.startswith("#") else f"subscript {l}"
                raise RuntimeError(f"einsum(): {name} has size {s} for operand {k} which does not broadcast "
                                   f"with previously seen size {seen[l]}")
            seen[l] = max(seen.get(l, 1), s) if s != 0 and seen.get(l) != 0 else 0
    n_ell = max((sum(1 for l in ls if l.startswith("#")) for ls in labels), default=0)
    ell = [f"#{q}" for q in range(n_ell, 0, -1)]
    if arrow:
        out = _parse_output(rhs, ell)
        for l in out:
            if out.count(l) > 1:
                raise RuntimeError(f"einsum(): output subscript {l} appears more than once in the output")
            if not l.startswith("#") and not any(l in ls for ls in labels):
                raise RuntimeError(f"einsum(): output subscript {l} does not appear in the equation for any "
                                   "input operand")
    else:
        counts = {}
        for ls in labels:
            for l in ls:
                counts[l] = counts.get(l, 0) + 1
        out = ell + sorted(l for l, c in counts.items() if c == 1 and not l.startswith("#"))
    items = [_diagonalize(t, ls) for t, ls in zip(operands, labels)]
    # drop labels no one else needs before contracting, then contract left to right
    for k in range(len(items)):
        t, ls = items[k]
        needed = set(out).union(*(set(l2) for q, (_, l2) in enumerate(items) if q != k))
        items[k] = _sum_labels(t, ls, {l for l in ls if l not in needed})
    t, ls = items[0]
    for k in range(1, len(items)):
        keep = set(out).union(*(set(l2) for _, l2 in items[k + 1:]))
        t, ls = _contract(t, ls, items[k][0], items[k][1], keep)
    t, ls = _sum_labels(t, ls, {l for l in ls if l not in out})
    shape = tuple(seen.get(l, 1) for l in out)
    if ls != out:
        t = t.transpose(*[ls.index(l) for l in out]) if ls else t
    if tuple(t.shape) != shape:
        t = ops.broadcast_to(t, shape)
    return t
