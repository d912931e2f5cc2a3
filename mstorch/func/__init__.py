"""torch.func: vmap, grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, functional_call,
stack_module_state.

``vmap`` runs the function once per sample (a slice along each input's ``in_dim``) and stacks the
results along ``out_dims``: the values are torch's, as every op is, and autograd flows through the slices
and the stack. MindSpore's own ``vmap`` works on MindSpore functions, not on a function of mstorch
tensors calling back into Python, so it does not serve here. ``randomness="same"`` replays the generator
for every sample (torch draws once for all); ``"different"`` draws per sample, in sample order, which is
not torch's batched stream; ``"error"`` refuses a function that draws.

The differentiation transforms run on mstorch's autograd (MindSpore's engine): inputs that do not yet
require grad get a fresh leaf; where they already do (a transform inside another), the gradient graph
is kept so the outer transform differentiates through it, as torch's levels compose.
"""
import functools

from .. import _tensor
from ..autograd import grad as _autograd_grad
from ..autograd.grad_mode import enable_grad
from ..utils import _pytree as pytree

__all__ = ["grad", "grad_and_value", "vmap", "hessian", "jacfwd", "jacrev", "jvp", "vjp", "functional_call",
           "stack_module_state", "linearize", "functionalize", "debug_unwrap", "replace_all_batch_norm_modules_"]

Tensor = _tensor.Tensor


def _name(func):
    return getattr(func, "__name__", repr(func))


# --- vmap -----------------------------------------------------------------------------------------

def _broadcast_dims(dims, tree):
    """``dims`` (an int/None prefix of ``tree``'s structure) as one entry per leaf of ``tree``, or None."""
    if dims is None or isinstance(dims, int):
        return [dims] * len(pytree.tree_leaves(tree))
    if isinstance(dims, (tuple, list)) and isinstance(tree, (tuple, list)) and len(dims) == len(tree):
        out = []
        for d, t in zip(dims, tree):
            sub = _broadcast_dims(d, t)
            if sub is None:
                return None
            out.extend(sub)
        return out
    if isinstance(dims, dict) and isinstance(tree, dict) and set(dims) == set(tree):
        out = []
        for k in tree:
            sub = _broadcast_dims(dims[k], tree[k])
            if sub is None:
                return None
            out.extend(sub)
        return out
    return None


def _batch_size(flat_dims, flat_args, func, in_dims):
    sizes = [a.shape[d] for a, d in zip(flat_args, flat_dims) if d is not None]
    if not sizes:
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): at least one input must be "
                         "a Tensor with a batch dimension, got all in_dims=None")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return sizes[0]


def _check_inputs(func, in_dims, args):
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or "
                         f"a (potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you "
                         "are trying to vmap over a function with no inputs. The latter is unsupported.")
    flat_args, spec = pytree.tree_flatten(args)
    flat_dims = _broadcast_dims(in_dims, args)
    if flat_dims is None:
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with "
                         f"the structure of `inputs`. in_dims has structure {pytree.tree_flatten(in_dims)[1]} but "
                         f"inputs has structure {spec}.")
    for i, (arg, d) in enumerate(zip(flat_args, flat_dims)):
        if d is not None and not isinstance(d, int):
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input "
                             "but in_dim must be either an integer dimension or None.")
        if isinstance(d, int) and not isinstance(arg, Tensor):
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input "
                             f"but the input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, "
                             "please use None as the respective in_dim")
        if d is not None:
            n = arg.dim()
            if d < -n or d >= n:
                raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some "
                                 f"input, but that input is a Tensor of dimensionality {n} so expected in_dim to "
                                 f"satisfy -{n} <= in_dim < {n}.")
            flat_dims[i] = d % n
    return flat_args, flat_dims, spec


def _stack_outputs(func, results, out_dims):
    from .. import stack
    flat0, spec = pytree.tree_flatten(results[0])
    dims = _broadcast_dims(out_dims, results[0])
    if dims is None:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with "
                         f"the structure of `outputs`. out_dims has structure {pytree.tree_flatten(out_dims)[1]} "
                         f"but outputs has structure {spec}.")
    columns = [pytree.tree_flatten(r)[0] for r in results]
    out = []
    for j, d in enumerate(dims):
        leaf = flat0[j]
        if d is None:
            out.append(leaf)
            continue
        if not isinstance(leaf, Tensor):
            raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
                             f"{type(leaf)}. Did you mean to set out_dims= to None for output?")
        n = leaf.dim() + 1
        if d < -n or d >= n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        out.append(stack([col[j] for col in columns], d))
    return pytree.tree_unflatten(out, spec)


def _run_samples(func, flat_args, flat_dims, spec, size, kwargs, randomness):
    from .. import autograd, random as _random
    results = []
    state = _random.get_rng_state() if randomness in ("same", "error") else None
    autograd.vmap_depth[0] += 1
    try:
        for i in range(size):
            if randomness == "same" and i:
                _random.set_rng_state(state)
            sample = [a.select(d, i) if d is not None else a for a, d in zip(flat_args, flat_dims)]
            results.append(func(*pytree.tree_unflatten(sample, spec), **kwargs))
            if randomness == "error" and i == 0 and not _random.get_rng_state().equal(state):
                _random.set_rng_state(state)
                raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use "
                                   "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                                   "operation out of vmap")
    finally:
        autograd.vmap_depth[0] -= 1
    return results


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """torch.func.vmap (see the module docstring for how it runs)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        flat_args, flat_dims, spec = _check_inputs(func, in_dims, args)
        size = _batch_size(flat_dims, flat_args, func, in_dims)
        results = _run_samples(func, flat_args, flat_dims, spec, size, kwargs, randomness)
        return _stack_outputs(func, results, out_dims)
    return wrapped


# --- grad, vjp, jacobians -----------------------------------------------------------------------

def _argnums_tuple(argnums, nargs):
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if not nums:
        raise RuntimeError("argnums must be non-empty")
    for a in nums:
        if not isinstance(a, int):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
        if not -nargs <= a < nargs:
            raise RuntimeError(f"Got argnum={a}, but only {nargs} positional inputs")
    return tuple(a % nargs for a in nums)


def _prepare(args, argnums, api):
    """The arguments with the differentiated ones as leaves that require grad; returns (args, the selected
    argument trees, whether an outer transform needs the graph)."""
    nums = _argnums_tuple(argnums, len(args))
    args = list(args)
    outer = False
    picked = []
    for a in nums:
        leaves, spec = pytree.tree_flatten(args[a])
        new = []
        for x in leaves:
            if not isinstance(x, Tensor):
                raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
            if x.requires_grad:
                outer = True
                new.append(x.view_as(x))   # a fresh node of the outer graph, differentiated on its own
            else:
                new.append(x.detach().requires_grad_(True))
        args[a] = pytree.tree_unflatten(new, spec)
        picked.append(args[a])
    return args, picked, nums, outer


def _regroup(flat, picked):
    """``flat`` (one entry per leaf of the ``picked`` argument trees) back in those trees' structures."""
    out, k = [], 0
    for p in picked:
        spec = pytree.tree_structure(p)
        out.append(pytree.tree_unflatten(flat[k:k + spec.num_leaves], spec))
        k += spec.num_leaves
    return out


def _grads_of(outputs, picked, cotangents, retain, create):
    """Gradients of ``outputs`` for every leaf of ``picked`` (zeros for unused ones), regrouped."""
    from .. import zeros_like
    leaves = [x for p in picked for x in pytree.tree_leaves(p)]
    gs = _autograd_grad(outputs, leaves, cotangents, retain_graph=retain, create_graph=create, allow_unused=True)
    return _regroup([zeros_like(x) if g is None else g for g, x in zip(gs, leaves)], picked)


def _grads(output, picked, outer):
    return _grads_of(output, picked, None, outer or None, outer)


def _undiff(x, outer):
    return x if outer else pytree.tree_map_only(Tensor, lambda t: t.detach(), x)


def grad_and_value(func, argnums=0, has_aux=False):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with enable_grad():
            args, picked, nums, outer = _prepare(args, argnums, "grad_and_value")
            output = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should be a tuple: "
                                       "(output, aux) if has_aux is True")
                output, aux = output
            if not isinstance(output, Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(output)}")
            if output.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs "
                                   "instead?")
            gs = _grads(output, picked, outer)
        gs = gs[0] if isinstance(argnums, int) else tuple(gs)
        value = _undiff(output, outer)
        if has_aux:
            return gs, (value, _undiff(aux, outer))
        return gs, value
    return wrapper


def grad(func, argnums=0, has_aux=False):
    inner = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        gs, value = inner(*args, **kwargs)
        return (gs, value[1]) if has_aux else gs
    return wrapper


def vjp(func, *primals, has_aux=False):
    """torch.func.vjp: (output, vjp_fn[, aux]); ``vjp_fn(cotangents)`` gives one gradient per primal."""
    with enable_grad():
        args, picked, nums, outer = _prepare(primals, tuple(range(len(primals))), "vjp")
        output = func(*args)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: (output, aux) "
                                   "if has_aux is True")
            output, aux = output
    out_leaves, out_spec = pytree.tree_flatten(output)
    for o in out_leaves:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"vjp(f, *primals): Expected f to be a function that has non-empty output (got {output})"
                               if not out_leaves else f"vjp(f, ...): All outputs of f must be floating-point or complex "
                               f"Tensors, got Tensor with dtype {type(o)}")

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        cot_leaves, cot_spec = pytree.tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of outputs "
                               f"to the function. cotangents: {cot_spec}, primal output: {out_spec}")
        with enable_grad():
            return tuple(_grads_of(out_leaves, picked, cot_leaves, True,
                                   outer if create_graph is None else create_graph))
    value = _undiff(output, outer)
    return (value, vjp_fn, _undiff(aux, outer)) if has_aux else (value, vjp_fn)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """torch.func.jvp: (output, jvp_out), by the double-vjp identity on the reverse-mode engine."""
    from .. import zeros_like
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    if not isinstance(tangents, tuple) or len(tangents) != len(primals):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, tangents also must be. Got "
                           f"primals with structure {pytree.tree_structure(primals)} and tangents with structure "
                           f"{pytree.tree_structure(tangents)}")
    res = vjp(func, *primals, has_aux=has_aux)
    output, vjp_fn = res[0], res[1]
    out_leaves, out_spec = pytree.tree_flatten(output)
    with enable_grad():
        # u -> J^T u is linear in u; differentiating <J^T u, t> with respect to u gives J t
        us = [zeros_like(o).requires_grad_(True) for o in out_leaves]
        back = vjp_fn(pytree.tree_unflatten(us, out_spec), create_graph=True)
        back_leaves = pytree.tree_leaves(back)
        tan_leaves = pytree.tree_leaves(tangents)
        jv = _autograd_grad(back_leaves, us, tan_leaves, allow_unused=True)
    jv = [zeros_like(o) if g is None else g.detach() for g, o in zip(jv, out_leaves)]
    result = (output, pytree.tree_unflatten(jv, out_spec))
    return result + (res[2],) if has_aux else result


def _jacobian(func, argnums, has_aux, api):
    from .. import stack, zeros_like

    @functools.wraps(func)
    def wrapper(*args):
        with enable_grad():
            args, picked, nums, outer = _prepare(args, argnums, api)
            output = func(*args)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError(f"{api}(f, ...): output of function f should be a tuple: (output, aux) "
                                       "if has_aux is True")
                output, aux = output
            out_leaves, out_spec = pytree.tree_flatten(output)
            in_leaves = [x for p in picked for x in pytree.tree_leaves(p)]
            per_out = []
            for o in out_leaves:
                flat = o.reshape(-1)
                rows = []
                for i in range(flat.numel()):
                    gs = _autograd_grad(flat[i], in_leaves, retain_graph=True, create_graph=outer, allow_unused=True)
                    rows.append([zeros_like(x) if g is None else g for g, x in zip(gs, in_leaves)])
                jacs = []
                for j, x in enumerate(in_leaves):
                    if rows:
                        jac = stack([r[j] for r in rows]).reshape(tuple(o.shape) + tuple(x.shape))
                    else:
                        jac = zeros_like(x).new_zeros(tuple(o.shape) + tuple(x.shape))
                    jacs.append(jac if outer else jac.detach())
                groups = _regroup(jacs, picked)
                per_out.append(groups[0] if isinstance(argnums, int) else tuple(groups))
        result = pytree.tree_unflatten(per_out, out_spec)
        return (result, _undiff(aux, outer)) if has_aux else result
    return wrapper


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian(func, argnums, has_aux, "jacrev")


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """torch.func.jacfwd: the same Jacobian as jacrev (computed here in reverse mode, row by row)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    return _jacobian(func, argnums, has_aux, "jacfwd")


def hessian(func, argnums=0):
    return jacfwd(jacrev(func, argnums), argnums)


# --- modules as functions -------------------------------------------------------------------------

# (the implementation lives in nn.utils.stateless, torch's older home of it, so that nn need not import torch.func)
from ..nn.utils.stateless import _functional_call as functional_call  # noqa: E402


def stack_module_state(models):
    """torch.func.stack_module_state: each parameter and buffer stacked over ``models`` (parameters as new
    leaves that require grad when the originals do)."""
    from .. import stack
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    first = models[0]
    if not all(type(m) is type(first) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {}
    for k in all_params[0]:
        ts = [p[k] for p in all_params]
        grads = {t.requires_grad for t in ts}
        if len(grads) > 1:
            raise RuntimeError("Expected all tensors to have the same requires_grad setting (the same param name "
                               f"{k} has mixed settings)")
        params[k] = stack([t.detach() for t in ts]).requires_grad_(grads.pop())
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: stack([b[k] for b in all_buffers]) for k in all_buffers[0]}
    return params, buffers


def linearize(func, *primals):
    """torch.func.linearize: (output, jvp_fn), ``jvp_fn(*tangents)`` giving the JVP at ``primals``."""
    output = func(*primals)

    def jvp_fn(*tangents):
        flat_p, p_spec = pytree.tree_flatten(primals)
        flat_t, t_spec = pytree.tree_flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(f"Expected the tangents {t_spec} to have the same argspec as the primals {p_spec}")
        for p, t in zip(flat_p, flat_t):
            if tuple(p.shape) != tuple(t.shape) or p.dtype != t.dtype:
                raise RuntimeError(f"Mismatch in dtype or shape: expected tangent to have shape {tuple(p.shape)} "
                                   f"and dtype {p.dtype}, got {tuple(t.shape)} and {t.dtype}")
        return jvp(func, primals, tangents)[1]
    return _undiff(output, False), jvp_fn


def functionalize(func, *, remove="mutations"):
    """torch.func.functionalize: the same results and the same input mutations as ``func`` (mstorch runs
    eagerly: there is no graph whose mutations to remove)."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. "
                           "Valid options are:\n     remove='mutations': all inplace and out= operators will be "
                           "removed from the program, and replaced with their out-of-place equivalents.\n     "
                           "remove='mutations_and_views': In addition to the above, all aliasing operators {view} "
                           "will be replaced with their non-aliasing counterparts, {view}_copy.\n")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapped


def debug_unwrap(tensor, *, recurse=True):
    """Unwraps a functorch tensor wrapper: mstorch's transforms make none, so the tensor itself."""
    return tensor


def replace_all_batch_norm_modules_(root):
    """Stops every batch norm in ``root`` from tracking running stats (in place; returns ``root``)."""
    from ..nn.modules.batchnorm import _BatchNorm
    for m in root.modules():
        if isinstance(m, _BatchNorm):
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root
