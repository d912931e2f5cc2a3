"""torch._foreach_*: one op over lists of tensors (optimizers written for torch's multi-tensor path, timm's among
them, call these). torch's CPU kernels run the op tensor by tensor (its fast fused path is CUDA's), and so does
mstorch: each element goes through the same public op or in-place method a per-tensor loop would call, so values,
dtypes, promotion and in-place cast errors are those ops'. Out-of-place forms return a tuple, in-place forms
return the list they were given, as torch's do.

The second operand takes torch's forms: a number, a list of tensors, a list of numbers ("scalar list"), or one
tensor applied to every element. ``FOREACH`` maps each torch name to its function; mstorch/__init__ exports them.
"""
from . import _functions as F
from .linalg import vector_norm
from ._tensor import Tensor


def _check_lists(*lists):
    n = len(lists[0])
    if n == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    for other in lists[1:]:
        if len(other) != n:
            raise RuntimeError(f"Tensor lists must have the same number of tensors, got {n} and {len(other)}")


def _per_element(self, other):
    """The second operand for each element of ``self``."""
    if isinstance(other, (list, tuple)):
        if other and not isinstance(other[0], Tensor) and len(other) != len(self):
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        _check_lists(self, other)
        return list(other)
    _check_lists(self)
    return [other] * len(self)


def _scalars(value, n):
    """addcmul/addcdiv's ``value``: a number, a list of numbers, or a 1-D tensor of them."""
    if isinstance(value, Tensor):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        return list(value)
    return [value] * n


def _binary(fn, inplace_method=None, with_alpha=False):
    """(out-of-place, in-place) foreach forms of a binary op; ``inplace_method``: the Tensor method to write with
    (its dtype checks are torch's in-place ones), else the result is copied into each tensor."""
    def out_of_place(self, other, **kw):
        return tuple(fn(t, o, **kw) for t, o in zip(self, _per_element(self, other)))

    def in_place(self, other, **kw):
        for t, o in zip(self, _per_element(self, other)):
            if inplace_method is not None:
                getattr(t, inplace_method)(o, **kw)
            else:
                t.copy_(fn(t, o, **kw))
        return self

    if not with_alpha:
        # torch's signatures without alpha reject it as an unexpected keyword
        def out_of_place_plain(self, other):
            return out_of_place(self, other)

        def in_place_plain(self, other):
            return in_place(self, other)
        return out_of_place_plain, in_place_plain
    return out_of_place, in_place


def _unary(fn, inplace_method):
    def out_of_place(self):
        _check_lists(self)
        return tuple(fn(t) for t in self)

    def in_place(self):
        _check_lists(self)
        for t in self:
            getattr(t, inplace_method)()
        return self
    return out_of_place, in_place


def _ternary(fn, inplace_method):
    """addcmul/addcdiv: ``self + value * t1 (op) t2`` per element."""
    def out_of_place(self, tensor1, tensor2, value=1):
        _check_lists(self, tensor1, tensor2)
        return tuple(fn(t, a, b, value=v) for t, a, b, v in zip(self, tensor1, tensor2, _scalars(value, len(self))))

    def in_place(self, tensor1, tensor2, value=1):
        _check_lists(self, tensor1, tensor2)
        for t, a, b, v in zip(self, tensor1, tensor2, _scalars(value, len(self))):
            getattr(t, inplace_method)(a, b, value=v)
        return self
    return out_of_place, in_place


def _foreach_lerp(self, tensors1, weight):
    _check_lists(self, tensors1)
    return tuple(F.lerp(t, e, w) for t, e, w in zip(self, tensors1, _per_element(self, weight)))


def _foreach_lerp_(self, tensors1, weight):
    _check_lists(self, tensors1)
    for t, e, w in zip(self, tensors1, _per_element(self, weight)):
        t.lerp_(e, w)
    return self


def _foreach_pow(self, exponent):
    if not isinstance(self, (list, tuple)):   # a number raised to each tensor of a list
        _check_lists(exponent)
        return tuple(F.pow(self, e) for e in exponent)
    return tuple(F.pow(t, e) for t, e in zip(self, _per_element(self, exponent)))


def _foreach_pow_(self, exponent):
    for t, e in zip(self, _per_element(self, exponent)):
        t.pow_(e)
    return self


def _foreach_norm(self, ord=2, dtype=None):
    _check_lists(self)
    return tuple(vector_norm(t, ord, dtype=dtype) for t in self)


def _foreach_zero_(self):
    _check_lists(self)
    for t in self:
        t.zero_()
    return self


def _foreach_copy_(self, src, non_blocking=False):
    _check_lists(self, src)
    for t, s in zip(self, src):
        t.copy_(s, non_blocking)
    return self


def _maximum(t, o):
    # a number operand: torch's foreach maximum/minimum take scalars where torch.maximum does not (clamp's value)
    return F.maximum(t, o) if isinstance(o, Tensor) else F.clamp_min(t, o)


def _minimum(t, o):
    return F.minimum(t, o) if isinstance(o, Tensor) else F.clamp_max(t, o)


FOREACH = {"_foreach_lerp": _foreach_lerp, "_foreach_lerp_": _foreach_lerp_, "_foreach_pow": _foreach_pow,
           "_foreach_pow_": _foreach_pow_, "_foreach_norm": _foreach_norm, "_foreach_zero_": _foreach_zero_,
           "_foreach_copy_": _foreach_copy_}
for _name, _fn, _method, _alpha in (("add", F.add, "add_", True), ("sub", F.sub, "sub_", True),
                                    ("mul", F.mul, "mul_", False), ("div", F.div, "div_", False),
                                    ("maximum", _maximum, None, False), ("minimum", _minimum, None, False),
                                    ("clamp_min", F.clamp_min, "clamp_min_", False),
                                    ("clamp_max", F.clamp_max, "clamp_max_", False)):
    FOREACH[f"_foreach_{_name}"], FOREACH[f"_foreach_{_name}_"] = _binary(_fn, _method, _alpha)
for _name in ("neg", "sqrt", "reciprocal", "abs", "exp", "log", "sign", "sigmoid", "rsqrt", "sin", "cos",
              "tanh", "floor", "ceil", "round", "trunc", "frac", "expm1", "log1p", "log2", "log10", "erf"):
    FOREACH[f"_foreach_{_name}"], FOREACH[f"_foreach_{_name}_"] = _unary(getattr(F, _name), _name + "_")
for _name, _fn in (("addcmul", F.addcmul), ("addcdiv", F.addcdiv)):
    FOREACH[f"_foreach_{_name}"], FOREACH[f"_foreach_{_name}_"] = _ternary(_fn, _name + "_")
for _name, _fn in FOREACH.items():
    _fn.__name__ = _fn.__qualname__ = _name
    _fn.__module__ = "torch"
