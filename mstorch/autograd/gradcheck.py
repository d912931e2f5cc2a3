"""torch.autograd.gradcheck / gradgradcheck: analytical Jacobians (mstorch's autograd) against central finite
differences, with torch's checks, tolerances, vectors (fast mode draws them from a fresh ``Generator`` as torch
does, and mstorch's generator is torch's) and error messages.

Real-valued inputs and outputs; complex and sparse ones, and ``check_batched_grad`` /
``check_batched_forward_grad`` (torch's vmap over autograd), refuse by name. ``check_forward_ad`` uses
mstorch's forward_ad (double backward, see forward_ad.py).
"""
import sys
import warnings

from .._tensor import Tensor
from . import forward_ad as fwAD
from .functional import _tupled as _as_tuple

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Mirrors torch.autograd.gradcheck.GradcheckError."""


_NONDET_HINT = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""

_FAST_FAIL_SLOW_OK = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()


def _mt():
    return sys.modules["mstorch"]


def _is_float(t):
    return isinstance(t, Tensor) and (t.is_floating_point() or t.is_complex())


def _differentiable(outputs):
    return tuple(o for o in _as_tuple(outputs) if o.requires_grad)


def _diff_inputs(inputs):
    return [(i, t) for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]


def _check_inputs(inputs):
    found = False
    for idx, inp in enumerate(inputs):
        if isinstance(inp, Tensor) and inp.requires_grad:
            mt = _mt()
            if inp.dtype not in (mt.float64, mt.complex128):
                warnings.warn(
                    f"Input #{idx} requires gradient and is not a double precision floating point or complex. This "
                    "check will likely fail if all the inputs are not of double precision floating point or "
                    "complex. ", stacklevel=4)
            if inp.is_sparse:
                raise NotImplementedError("torch.autograd.gradcheck with sparse inputs is not supported by mstorch")
            if inp.is_complex():
                raise NotImplementedError("torch.autograd.gradcheck with complex inputs is not supported by mstorch "
                                          "(Wirtinger derivatives); check the real and imaginary parts as real inputs")
            if not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.size())):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only supports inputs that are "
                    "non-overlapping to be able to compute the numerical gradients correctly. You should call "
                    ".contiguous on the input before passing it to gradcheck.")
            found = True
    if not found:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")


def _call_with(func, inputs, idx, value):
    """func's outputs (cloned) with inputs[idx] replaced by ``value``."""
    args = tuple(value if i == idx else a for i, a in enumerate(inputs))
    return tuple(o.clone() for o in _as_tuple(func(*args)))


def _check_same(a, b, eps, idx):
    where = f"on index {idx} " if idx is not None else ""
    if a.shape != b.shape:
        raise AssertionError(f"Expected `func` to return outputs with the same shape when inputs are perturbed "
                             f"{where}by {eps}, but got: shapes {a.shape} and {b.shape}.")
    if a.dtype != b.dtype:
        raise AssertionError(f"Expected `func` to return outputs with the same dtype when inputs are perturbed "
                             f"{where}by {eps}, but got: dtypes {a.dtype} and {b.dtype}.")


def _perturbed(inp, delta):
    """A copy of ``inp`` moved by ``delta`` (its requires_grad kept: gradgradcheck's function differentiates it)."""
    with _mt().no_grad():
        moved = (inp.detach() + delta).to(inp.dtype)
    return moved.requires_grad_(inp.requires_grad)


def _central_difference(func, inputs, idx, delta, eps, index=None):
    """(f(x + delta) - f(x - delta)) / 2eps for every output of func, flattened."""
    inp = inputs[idx]
    minus = _call_with(func, inputs, idx, _perturbed(inp, -delta))
    plus = _call_with(func, inputs, idx, _perturbed(inp, delta))
    cols = []
    for a, b in zip(minus, plus):
        _check_same(a, b, eps, index)
        cols.append(((b - a) / (2 * eps)).detach().reshape(-1))
    return cols


def _numerical_jacobians(func, inputs, outputs, eps):
    """[input][float output] -> (input numel, output numel) Jacobian by central differences."""
    mt = _mt()
    float_outs = [o for o in outputs if _is_float(o)]
    result = []
    for idx, inp in _diff_inputs(inputs):
        jacs = [o.new_zeros((inp.numel(), o.numel())) for o in float_outs]
        for k in range(inp.numel()):
            delta = mt.zeros(inp.numel(), dtype=inp.dtype)
            delta[k] = eps
            position = tuple(int(i) for i in _unravel(k, inp.shape))
            cols = [c for c, o in zip(_central_difference(func, inputs, idx, delta.reshape(inp.shape), eps, position),
                                      outputs) if _is_float(o)]
            for jac, col in zip(jacs, cols):
                jac[k] = col
        result.append(jacs)
    return result


def _unravel(k, shape):
    out = []
    for size in reversed(tuple(shape)):
        out.append(k % size)
        k //= size
    return tuple(reversed(out))


def _analytical_rows(output, diff_inputs, grad_output_rows):
    mt = _mt()
    rows = []
    for go in grad_output_rows:
        grads = mt.autograd.grad(output, diff_inputs, go, retain_graph=True, allow_unused=True)
        rows.append([g.clone() if g is not None else None for g in grads])
    return rows


def _stack(rows, diff_inputs):
    """Columns of each input's (input numel, len(rows)) Jacobian; also (sizes ok, dtypes ok)."""
    jacs = [inp.new_zeros((inp.numel(), len(rows))) for inp in diff_inputs]
    sizes_ok = dtypes_ok = True
    for j, grads in enumerate(rows):
        for inp, jac, g in zip(diff_inputs, jacs, grads):
            if g is None:
                continue
            if g.size() != inp.size():
                sizes_ok = False
            elif g.dtype != inp.dtype:
                dtypes_ok = False
            jac[:, j] = g.reshape(-1)
    return jacs, sizes_ok, dtypes_ok


def _analytical_jacobians(inputs, output, nondet_tol, check_grad_dtypes, vectors=None):
    """Each input's Jacobian of ``output`` (rows: output elements, or the one vector of fast mode), computed
    twice to detect a non-reentrant backward."""
    mt = _mt()
    diff = [t for _, t in _diff_inputs(inputs)]
    if vectors is None:
        basis = mt.eye(output.numel(), dtype=output.dtype)
        grad_outputs = [basis[j].reshape(output.shape) for j in range(output.numel())]
    else:
        grad_outputs = [vectors.reshape(output.shape)]
    first, sizes_ok, dtypes_ok = _stack(_analytical_rows(output, diff, grad_outputs), diff)
    second, _, _ = _stack(_analytical_rows(output, diff, grad_outputs), diff)
    reentrant = all(a.numel() == 0 or float((a - b).abs().max()) <= nondet_tol for a, b in zip(first, second))
    # torch's helper returns (sizes, dtypes) into names read the other way round: a dtype mismatch is reported
    # as an incorrect size, and a size mismatch only with check_grad_dtypes; the messages follow torch's
    if not sizes_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not dtypes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
            "gives different values, although analytical gradient matches numerical gradient."
            f"The tolerance for nondeterminism was {nondet_tol}." + _NONDET_HINT)
    return first


def _forward_jacobians(func, inputs, outputs, vectors=None):
    """[input][float output] Jacobians from forward-mode AD (one tangent per input element, or fast mode's u)."""
    float_outs = [o for o in outputs if _is_float(o)]
    diff = _diff_inputs(inputs)
    mt = _mt()
    result = []
    with fwAD.dual_level():
        for n, (idx, inp) in enumerate(diff):
            tangents = ([vectors[n].reshape(inp.shape)] if vectors is not None else
                        [mt.eye(inp.numel(), dtype=inp.dtype)[k].reshape(inp.shape) for k in range(inp.numel())])
            jacs = [o.new_zeros((len(tangents), o.numel())) for o in float_outs]
            for k, tangent in enumerate(tangents):
                args = []
                for i, a in enumerate(inputs):
                    if isinstance(a, Tensor) and a.requires_grad:
                        a = fwAD.make_dual(a.detach(), tangent if i == idx else mt.zeros_like(a))
                    args.append(a)
                outs = [o for o in _as_tuple(func(*args)) if _is_float(o)]
                for jac, o in zip(jacs, outs):
                    t = fwAD.unpack_dual(o).tangent
                    if t is not None:
                        jac[k] = t.reshape(-1)
                fwAD._duals.clear()
            result.append(jacs)
    return result


def _allclose(a, b, rtol, atol):
    mt = _mt()
    dtype = mt.promote_types(a.dtype, b.dtype)
    return mt.allclose(a.to(dtype), b.to(dtype), rtol, atol)


def _mismatch(analytical, numerical, out_idx, in_idx, forward):
    mode = "computed with forward mode " if forward else ""
    return (f"Jacobian {mode}mismatch for output {out_idx:d} with respect to input {in_idx:d},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n")


def _check_no_differentiable_outputs(func, inputs, func_out, eps):
    for per_input in _numerical_jacobians(func, inputs, func_out, eps):
        for jac in per_input:
            if int((jac != 0).sum()) > 0:
                raise GradcheckError("Numerical gradient for function expected to be zero")


def _slow_check(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol, forward):
    func_out = _as_tuple(func_out)
    if not outputs:
        _check_no_differentiable_outputs(func, inputs, func_out, eps)
        return
    numerical = _numerical_jacobians(func, inputs, func_out, eps)      # [input][float output]
    float_outs = [o for o in func_out if _is_float(o)]
    by_output = [[numerical[j][i] for j in range(len(numerical))]
                 for i, o in enumerate(float_outs) if o.requires_grad]
    if forward:
        analytical = _forward_jacobians(func, inputs, func_out)
        for i, per_input in enumerate(by_output):
            for j, n in enumerate(per_input):
                a = analytical[j][i]
                if not _allclose(a, n, rtol, atol):
                    raise GradcheckError(_mismatch(a, n, i, j, True))
        return
    for i, o in enumerate(outputs):
        for j, (a, n) in enumerate(zip(_analytical_jacobians(inputs, o, nondet_tol, check_grad_dtypes),
                                       by_output[i])):
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_mismatch(a, n, i, j, False))


def _unit_vector(t, generator):
    """torch's fast-mode vector for ``t``: float32 uniforms of a fresh generator, in t's dtype, normalised."""
    mt = _mt()
    vec = mt.rand(t.numel(), generator=generator).to(dtype=t.dtype)
    return vec / vec.norm()


def _fast_check(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol, forward):
    mt = _mt()
    generator = mt.Generator()
    diff = _diff_inputs(inputs)
    all_u = [_unit_vector(t, generator) for _, t in diff]
    all_v = None if forward else [_unit_vector(o, generator) for o in outputs]
    func_out = _as_tuple(func_out)
    numerical = []                          # [input][float output]: J u (flattened), or vᵀ J u
    for (idx, inp), u in zip(diff, all_u):
        cols = _central_difference(func, inputs, idx, (u * eps).reshape(inp.shape), eps)
        cols = [c for c, o in zip(cols, func_out) if _is_float(o)]
        numerical.append(cols if all_v is None else [(v * c).sum() for v, c in zip(all_v, cols)])
    if forward:
        analytical = [[j.reshape(-1) for j in per_input]
                      for per_input in _forward_jacobians(func, inputs, func_out, all_u)]
    else:
        if not outputs:
            for per_input in numerical:
                for value in per_input:
                    if not mt.allclose(value, mt.zeros_like(value)):
                        raise GradcheckError("Numerical gradient for function expected to be zero")
        analytical = []                     # [output][input]: vᵀ J u
        for o, v in zip(outputs, all_v):
            rows = _analytical_jacobians(inputs, o, nondet_tol, check_grad_dtypes, v)
            analytical.append([r.T.squeeze(0).dot(u) for r, u in zip(rows, all_u)])
    for i, per_input in enumerate(numerical):
        for j, n in enumerate(per_input):
            a = analytical[i][j] if forward else analytical[j][i]
            tol = atol * float(all_u[i].sum()) * (1.0 if all_v is None else float(all_v[j].sum()))
            if not _allclose(a, n, rtol, tol):
                raise GradcheckError(_mismatch(a, n, j, i, forward)
                                     + _slow_report(func, inputs, func_out, outputs, i, j, rtol, atol, eps, forward))


def _slow_report(func, inputs, func_out, outputs, in_idx, out_idx, rtol, atol, eps, forward):
    mt = _mt()
    numerical = _numerical_jacobians(func, inputs, func_out, eps)[in_idx][out_idx]
    if forward:
        analytical = _forward_jacobians(func, inputs, func_out)[in_idx][out_idx]
    else:
        analytical = _analytical_jacobians(inputs, outputs[out_idx], float("inf"), False)[in_idx]
    worst = (numerical - analytical).abs().max()
    msg = ("\nThe above quantities relating the numerical and analytical jacobians are computed \n"
           "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
           "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
           f"Numerical:\n {numerical}\nAnalytical:\n{analytical}\n\n"
           f"The max per-element difference (slow mode) is: {worst}.\n")
    if mt.allclose(analytical, numerical, rtol, atol):
        msg += _FAST_FAIL_SLOW_OK
    return msg


def _backward_mul_by_grad_output(outputs, inputs):
    mt = _mt()
    diff = [t for _, t in _diff_inputs(inputs)]
    grads = mt.autograd.grad(outputs, diff, [mt.zeros_like(o) for o in outputs], allow_unused=True)
    for g, d in zip(grads, diff):
        if g is None:
            continue
        if not bool(g.eq(0).all()):
            raise GradcheckError("backward not multiplied by grad_output")
        if g.dtype != d.dtype:
            raise GradcheckError("grad is incorrect type")
        if g.device != d.device:
            raise GradcheckError("grad is incorrect device")
        if g.size() != d.size():
            raise GradcheckError("grad is incorrect size")


def _undefined_grads(func, inputs):
    """torch passes undefined output gradients; mstorch's engine has none, so the nearest it can check is the
    rule torch asks of undefined gradients: zero output gradients give zero (or no) input gradients."""
    mt = _mt()
    diff = [t for _, t in _diff_inputs(inputs)]
    outputs = [o for o in _differentiable(func(*inputs)) if isinstance(o, Tensor)]
    if not outputs:
        return
    try:
        grads = mt.autograd.grad(outputs, diff, [mt.zeros_like(o) for o in outputs], allow_unused=True)
    except RuntimeError as exc:
        raise GradcheckError('Expected backward function to handle undefined output grads. Please look at "Notes '
                             'about undefined output gradients" in "tools/autograd/derivatives.yaml"') from exc
    if any(g is not None and not bool(g.eq(0).all()) for g in grads):
        raise GradcheckError("Expected all input grads to be undefined or zero when all output grads are undefined "
                             'or zero. Please look at "Notes about undefined output gradients" in '
                             '"tools/autograd/derivatives.yaml"')


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    """Mirrors torch.autograd.gradcheck."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    if check_batched_grad or check_batched_forward_grad:
        raise NotImplementedError(
            "torch.autograd.gradcheck(check_batched_grad=True / check_batched_forward_grad=True) is not supported "
            "by mstorch: it needs torch's vmap over autograd (is_grads_batched), which MindSpore's engine lacks")
    try:
        _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes,
                   check_forward_ad, check_backward_ad, fast_mode)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes,
               check_forward_ad, check_backward_ad, fast_mode):
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    func_out = func(*inputs)
    outputs = _differentiable(func_out)
    if any(o.is_sparse for o in outputs):
        raise ValueError("Sparse output is not supported at gradcheck yet. Please call to_dense(masked_grad=...) on "
                         "the output of fn for gradcheck.")
    if any(o.is_complex() for o in _as_tuple(func_out) if isinstance(o, Tensor)):
        raise NotImplementedError("torch.autograd.gradcheck of a function with complex outputs is not supported by "
                                  "mstorch; check its real and imaginary parts as separate outputs")
    check = _fast_check if fast_mode else _slow_check
    if check_backward_ad:
        check(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol, False)
    if check_forward_ad:
        check(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol, True)
    if not check_backward_ad:
        return
    _backward_mul_by_grad_output(outputs, inputs)
    if check_undefined_grad:
        _undefined_grads(func, inputs)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0, check_undefined_grad=True,
                  check_grad_dtypes=False, check_batched_grad=False, check_fwd_over_rev=False,
                  check_rev_over_rev=True, fast_mode=False, masked=False):
    """Mirrors torch.autograd.gradgradcheck: gradcheck of the function's gradient (grad_outputs random in
    [-1, 1) from the global generator, as torch draws them, when not given)."""
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    mt = _mt()
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        grad_outputs = tuple(
            mt.testing.make_tensor(o.shape, dtype=o.dtype if o.is_floating_point() or o.is_complex() else mt.double,
                                   device=o.device, low=-1, high=1, requires_grad=True,
                                   noncontiguous=gen_non_contig_grad_outputs)
            for o in _differentiable(func(*inputs)))
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_out = len(grad_outputs)
    diff_in = {i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad}
    diff_go = {i for i, x in enumerate(grad_outputs) if x.requires_grad}

    def first_derivative(*args):
        ins = tuple(x.requires_grad_() if i in diff_in else x for i, x in enumerate(args[:-n_out]))
        outs = _differentiable(func(*ins))
        gos = tuple(x.requires_grad_() if i in diff_go else x for i, x in enumerate(args[-n_out:]))
        grads = mt.autograd.grad(outs, tuple(x for i, x in enumerate(ins) if i in diff_in), gos,
                                 create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol, check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad, fast_mode=fast_mode,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev, masked=masked)
