"""torch.optim.LBFGS: torch's algorithm (two-loop recursion, optional strong-Wolfe line search), its
``step(closure)`` semantics and its state (``func_evals``, ``n_iter``, ``d``, ``t``, ``old_dirs``,
``old_stps``, ``ro``, ``H_diag``, ``prev_flat_grad``, ``prev_loss``, ``al``).

The algorithm is written once over a small vector backend:

- ``_HostVectors`` (CPU, float32/float64/complex parameters): the flat vectors are NumPy arrays and the
  parameters are written through NumPy views of their own memory (the same approach as optim/_fast.py).
  torch's 0-d tensor scalars (``ys``, ``ro``, ``H_diag``, ``t``, ``gtd``...) are 1-element arrays: NumPy
  keeps a Python float against them in the array's dtype, as torch does against a 0-d tensor, so every
  comparison and branch of the line search sees torch's float32 values (``number / tensor`` is
  torch's ``reciprocal(tensor) * number``, see ``_rdiv``; ``add(alpha=)`` is its fused multiply-add).
  State tensors are read through views of their memory (cached between steps) and new state tensors
  are made over the step's arrays (``from_numpy``): tensors not replaced keep their identity.
- ``_TensorVectors`` (elsewhere, other dtypes, views): mstorch tensor ops, i.e. torch's code as written.
"""
import numpy as np
import mindspore as ms

from .._runtime import read_host
from .. import _ms_private as P
from .._functions import cat
from .._tensor import Tensor, wrap
from ..autograd import resume_recording
from ..autograd.grad_mode import enable_grad, no_grad
from . import _fast
from .optimizer import Optimizer

_HOST_DTYPES = frozenset((ms.float32, ms.float64, ms.complex64, ms.complex128))
_VECTOR_KEYS = ("d", "prev_flat_grad")
_VECTOR_LIST_KEYS = ("old_dirs", "old_stps")
_SCALAR_KEYS = ("t", "H_diag")
_SCALAR_LIST_KEYS = ("ro", "al")
_LIST_KEYS = _VECTOR_LIST_KEYS + _SCALAR_LIST_KEYS


def _rdiv(num, den):
    """``num / den`` as torch computes it when only ``den`` is a tensor: ``reciprocal(den) * num``."""
    if isinstance(num, (int, float)) and not isinstance(den, (int, float)):
        return (1 / den) * num
    return num / den


def _cubic_interpolate(sqrt, x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, clamped to the bounds
    (by default the interval itself); the midpoint when the cubic has no minimum."""
    if bounds is not None:
        lo, hi = bounds
    elif x1 <= x2:
        lo, hi = x1, x2
    else:
        lo, hi = x2, x1
    d1 = g1 + g2 - _rdiv(3 * (f1 - f2), x1 - x2)
    d2_square = d1 * d1 - g1 * g2   # torch's tensor ** 2 is x * x
    if not d2_square >= 0:
        return (lo + hi) / 2.0
    d2 = sqrt(d2_square)
    if x1 <= x2:
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(min_pos, lo), hi)


def _strong_wolfe(V, obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """torch's strong-Wolfe line search: bracket a step, then zoom into the bracket by cubic
    interpolation. Returns (loss, flat_grad, step, evaluations)."""
    d_norm = V.absmax(d)
    g = V.clone(g)
    f_new, g_new = obj_func(x, t, d)
    evals = 1
    gtd_new = V.dot(g_new, d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    # bracketing phase
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, V.clone(g_new)], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, V.clone(g_new)], [gtd_prev, gtd_new]
            break
        # extrapolate between the last step and ten times the current one
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        last = t
        t = _cubic_interpolate(V.sqrt, t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = last, f_new, V.clone(g_new), gtd_new
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = V.dot(g_new, d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # zoom phase: shrink the bracket until a point satisfies the strong Wolfe conditions
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(V.sqrt, bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        # keep away from the bracket's ends: after one step without progress, or beyond them,
        # move to 10% of the bracket's width inside
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = V.dot(g_new, d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = V.clone(g_new), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos], bracket_gtd[high_pos] = bracket_g[low_pos], bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = V.clone(g_new), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], evals


class _TensorVectors:
    """Flat vectors as mstorch tensors (torch's code, op for op)."""

    def __init__(self, params):
        self._cat = cat
        self.params = params

    def flat_grad(self):
        views = []
        for p in self.params:
            g = p.grad
            views.append(p.new_zeros(p.numel()) if g is None else g.view(-1))
        return self._cat(views, 0)

    def add_grad(self, step_size, update):
        alpha = float(step_size) if isinstance(step_size, Tensor) else step_size
        offset = 0
        for p in self.params:
            n = p.numel()
            p.add_(update[offset:offset + n].view_as(p), alpha=alpha)
            offset += n

    def clone_params(self):
        return [p.clone() for p in self.params]

    def set_params(self, values):
        for p, v in zip(self.params, values):
            p.copy_(v)

    @staticmethod
    def dot(a, b):
        return a.dot(b)

    @staticmethod
    def absmax(a):
        return a.abs().max()

    @staticmethod
    def abssum(a):
        return a.abs().sum()

    @staticmethod
    def neg(a):
        return a.neg()

    @staticmethod
    def sub(a, b):
        return a.sub(b)

    @staticmethod
    def mul(a, s):
        return a.mul(s)

    @staticmethod
    def add_(a, b, alpha):
        a.add_(b, alpha=float(alpha) if isinstance(alpha, Tensor) else alpha)

    @staticmethod
    def clone(a):
        return a.clone()

    @staticmethod
    def copy_(a, b):
        a.copy_(b)

    @staticmethod
    def sqrt(s):
        return s.sqrt()

    def load(self, state):
        return dict(state)

    @staticmethod
    def adopt(values):
        return values

    def store(self, state, values):
        state.update(values)

    def finish(self):
        pass


class _HostVectors:
    """Flat vectors as NumPy arrays; parameters written through views of their memory."""

    def __init__(self, params, arrays, grad_views, state_views):
        self.params = params
        self.arrays = arrays                       # flat real views of the parameters' memory
        self.grad_views = grad_views               # per parameter: (grad tensor, data pointer, flat view)
        self.state_views = state_views             # id(state tensor) -> (tensor, its ._ms, data pointer, view)
        self.origin = {}     # id(array) -> (the state tensor it came from, the array, shares its memory)
        self.lists = {}      # id(working list) -> (the state's list, the working list)
        self.written = []    # origin entries written in place (their versions are bumped)
        self.dirty = False   # parameters written

    def flat_grad(self):
        views = []
        cache = self.grad_views
        for i, (p, a) in enumerate(zip(self.params, self.arrays)):
            g = P.grad(p._ms)
            if g is None:
                views.append(np.zeros(a.size, a.dtype))
                continue
            # ``_grad`` gives a new wrapper at every read: the cached view (which holds the tensor it
            # came from, so its memory stays allocated) is recognised by data pointer, shape and dtype
            e = cache[i]
            if e is not None and e[1] == g.data_ptr() and e[0].shape == g.shape and e[0].dtype == g.dtype:
                views.append(e[2])
                continue
            view = _fast.host_array(g)
            if view is None:
                view = read_host(g) if g.is_contiguous() else read_host(g.contiguous())
            else:
                cache[i] = (g, g.data_ptr(), _flat_real(view))
            views.append(_flat_real(view))
        return np.concatenate(views)

    def add_grad(self, step_size, update):
        self.dirty = True
        offset = 0
        for a in self.arrays:
            n = a.size
            _fma_add_(a, update[offset:offset + n], step_size)
            offset += n

    def clone_params(self):
        return [a.copy() for a in self.arrays]

    def set_params(self, values):
        for a, v in zip(self.arrays, values):
            np.copyto(a, v)

    @staticmethod
    def dot(a, b):
        return np.reshape(np.dot(a, b), 1)

    @staticmethod
    def absmax(a):
        return np.abs(a).max(keepdims=True)

    @staticmethod
    def abssum(a):
        return np.abs(a).sum(keepdims=True)

    @staticmethod
    def neg(a):
        return np.negative(a)

    @staticmethod
    def sub(a, b):
        return a - b

    @staticmethod
    def mul(a, s):
        return a * s

    @staticmethod
    def add_(a, b, alpha):
        _fma_add_(a, b, alpha)

    @staticmethod
    def clone(a):
        return a.copy()

    def copy_(self, a, b):
        np.copyto(a, b)
        known = self.origin.get(id(a))
        if known is not None and known[1] is a:
            self.written.append(known)

    @staticmethod
    def sqrt(s):
        return np.sqrt(s)

    # --- state: tensors in, arrays during the step, tensors out ---------------------------------------

    def _array(self, t):
        tm = t._ms
        e = self.state_views.get(id(t))
        if e is not None and e[0] is t and e[1] is tm and e[2] == tm.data_ptr():
            a, shared = e[3], True
        else:
            a = _fast.host_array(tm) if t._view is None else None
            shared = a is not None
            if shared:
                a = a.reshape(-1) if tm.ndim else a
                self.state_views[id(t)] = (t, tm, tm.data_ptr(), a)
            else:
                a = np.array(read_host(tm), copy=True).reshape(-1 if tm.ndim else 1)
        self.origin[id(a)] = (t, a, shared)
        return a

    def _value(self, v):
        return self._array(v) if isinstance(v, Tensor) else v

    def load(self, state):
        out = {}
        for k, v in state.items():
            if k in _LIST_KEYS and isinstance(v, list):
                out[k] = self.adopt(v)
            elif k in _VECTOR_KEYS or k in _SCALAR_KEYS:
                out[k] = self._value(v)
            else:
                out[k] = v
        return out

    def adopt(self, values):
        """A working copy (arrays) of a list kept in the state; ``store`` writes it back into that list."""
        work = [self._value(x) for x in values]
        self.lists[id(work)] = (values, work)
        return work

    def _tensor(self, a, scalar):
        if isinstance(a, np.generic):
            a = np.reshape(a, 1)
        if not isinstance(a, np.ndarray):
            return a
        known = self.origin.get(id(a))
        if known is not None and known[1] is a:
            t, _, shared = known
            if not shared:   # the array was a copy: carry the step's in-place changes back
                t._ms.copy_(ms.Tensor(a.reshape(t._ms.shape)))
            return t
        # a new array of this step: the tensor takes over its memory (the array is not written again)
        tm = ms.Tensor.from_numpy(np.ascontiguousarray(a).reshape(()) if scalar else np.ascontiguousarray(a))
        t = wrap(tm)
        self.state_views[id(t)] = (t, tm, tm.data_ptr(), a if scalar else a.reshape(-1))
        return t

    def store(self, state, values):
        for k, v in values.items():
            if k in _LIST_KEYS:
                new = [self._tensor(x, k in _SCALAR_LIST_KEYS) for x in v]
                known = self.lists.get(id(v))
                if known is not None and known[1] is v:
                    known[0][:] = new   # torch mutates these lists in place
                    new = known[0]
                state[k] = new
            elif k in _VECTOR_KEYS or k in _SCALAR_KEYS:
                state[k] = self._tensor(v, k in _SCALAR_KEYS)
            else:
                state[k] = v

        if "d" not in values:
            return
        # keep the views of the tensors the state still holds
        held = {}
        for v in state.values():
            for x in (v if isinstance(v, list) else (v,)):
                if isinstance(x, Tensor) and id(x) in self.state_views:
                    held[id(x)] = self.state_views[id(x)]
        self.state_views.clear()
        self.state_views.update(held)

    def finish(self):
        if self.dirty:
            P.bump_versions([p._ms for p in self.params])
        written = [t._ms for t, _, shared in self.written if shared]
        P.bump_versions(written)


def _fma_add_(a, b, alpha):
    """torch's ``a.add_(b, alpha=alpha)`` on float32: its vectorised CPU kernel is a fused multiply-add,
    which float64 arithmetic reproduces (the float32 product is exact there)."""
    if a.dtype == np.float32:
        prod = np.multiply(b, np.float32(alpha), dtype=np.float64)
        np.add(a, prod, out=a, dtype=np.float64, casting="unsafe")
    else:
        np.add(a, b * alpha, out=a)


def _flat_real(a):
    return (a.view(a.real.dtype) if a.dtype.kind == "c" else a).reshape(-1)


def _host_arrays(params, cache):
    """Flat real NumPy views of every parameter's memory, or None where one is out of NumPy's reach.
    ``cache`` keeps them per parameter (``asnumpy`` costs ~15 us), checked by identity and data pointer."""
    if _fast.config.host is None:
        _fast.config.host = _fast._host_default()
    if not _fast.config.host:
        return None
    arrays = []
    for i, p in enumerate(params):
        pm = p._ms
        e = cache[i]
        if e is not None and e[0] is pm and e[1] == pm.data_ptr():
            arrays.append(e[2])
            continue
        if p._view is not None or pm.dtype not in _HOST_DTYPES:
            return None
        a = _fast.host_array(pm)
        if a is None:
            return None
        a = _flat_real(a)
        cache[i] = (pm, pm.data_ptr(), a)
        arrays.append(a)
    return arrays


class LBFGS(Optimizer):
    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = sum(2 * p.numel() if p.is_complex() else p.numel() for p in self._params)
        return self._numel_cache

    def step(self, closure):
        return self._run_step(closure)

    def _closure_and_update(self, closure):
        user_errstate = np.geterr()
        try:
            # torch's tensors do not warn on 0/0 or overflow: neither does the host math (the closure
            # runs under the caller's NumPy settings)
            with no_grad(), np.errstate(all="ignore"):
                return self._lbfgs(closure, user_errstate)
        finally:
            resume_recording()

    def _lbfgs(self, closure, user_errstate):
        if len(self.param_groups) != 1:
            raise AssertionError(f"Expected exactly one param_group, but got {len(self.param_groups)}")

        def evaluate():
            with enable_grad(), np.errstate(**user_errstate):
                return closure()

        group = self.param_groups[0]
        lr = _fast.scalar(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        params = self._params
        views = self.__dict__.get("_host_views")
        if views is None or len(views[0]) != len(params):
            views = self.__dict__["_host_views"] = ([None] * len(params), [None] * len(params), {})
        arrays = _host_arrays(params, views[0])
        if arrays is None:
            if any(p.is_complex() for p in params):
                raise NotImplementedError("torch.optim.LBFGS on complex parameters is supported by mstorch only "
                                          "for CPU tensors with memory of their own")
            V = _TensorVectors(params)
        else:
            V = _HostVectors(params, arrays, views[1], views[2])

        state = self.state[params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1

        try:
            flat_grad = V.flat_grad()
            opt_cond = V.absmax(flat_grad) <= tolerance_grad
            if opt_cond:
                return orig_loss
            work = V.load(state)
            d, t = work.get("d"), work.get("t")
            old_dirs, old_stps, ro = work.get("old_dirs"), work.get("old_stps"), work.get("ro")
            H_diag, prev_flat_grad, prev_loss = work.get("H_diag"), work.get("prev_flat_grad"), work.get("prev_loss")
            al = work.get("al")

            n_iter = 0
            while n_iter < max_iter:
                n_iter += 1
                state["n_iter"] += 1

                # the descent direction: -H @ g with H from the (s, y) history (two-loop recursion)
                if state["n_iter"] == 1:
                    d = V.neg(flat_grad)
                    old_dirs, old_stps, ro = [], [], []
                    H_diag = 1
                else:
                    y = V.sub(flat_grad, prev_flat_grad)
                    s = V.mul(d, t)
                    ys = V.dot(y, s)
                    if ys > 1e-10:   # curvature condition: keep the pair
                        if len(old_dirs) == history_size:
                            old_dirs.pop(0)
                            old_stps.pop(0)
                            ro.pop(0)
                        old_dirs.append(y)
                        old_stps.append(s)
                        ro.append(1.0 / ys)
                        H_diag = ys / V.dot(y, y)
                    num_old = len(old_dirs)
                    if "al" not in state:
                        state["al"] = [None] * history_size
                        al = V.adopt(state["al"])
                    q = V.neg(flat_grad)
                    for i in range(num_old - 1, -1, -1):
                        al[i] = V.dot(old_stps[i], q) * ro[i]
                        V.add_(q, old_dirs[i], -al[i])
                    d = r = V.mul(q, H_diag)
                    for i in range(num_old):
                        be_i = V.dot(old_dirs[i], r) * ro[i]
                        V.add_(r, old_stps[i], al[i] - be_i)

                if prev_flat_grad is None:
                    prev_flat_grad = V.clone(flat_grad)
                else:
                    V.copy_(prev_flat_grad, flat_grad)
                prev_loss = loss

                # the step length: scaled down on the very first iteration
                if state["n_iter"] == 1:
                    t = min(1.0, 1.0 / V.abssum(flat_grad)) * lr
                else:
                    t = lr
                gtd = V.dot(flat_grad, d)
                if gtd > -tolerance_change:   # not a descent direction
                    break

                ls_func_evals = 0
                if line_search_fn is not None:
                    if line_search_fn != "strong_wolfe":
                        raise RuntimeError("only 'strong_wolfe' is supported")
                    x_init = V.clone_params()

                    def obj_func(x, step, direction):
                        V.add_grad(step, direction)
                        value = float(evaluate())
                        grad = V.flat_grad()
                        V.set_params(x)
                        return value, grad

                    loss, flat_grad, t, ls_func_evals = _strong_wolfe(V, obj_func, x_init, t, d, loss, flat_grad, gtd,
                                                                      max_ls=max_eval - current_evals)
                    V.add_grad(t, d)
                    opt_cond = V.absmax(flat_grad) <= tolerance_grad
                else:
                    V.add_grad(t, d)
                    if n_iter != max_iter:
                        loss = float(evaluate())
                        flat_grad = V.flat_grad()
                        opt_cond = V.absmax(flat_grad) <= tolerance_grad
                        ls_func_evals = 1
                current_evals += ls_func_evals
                state["func_evals"] += ls_func_evals

                if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                    break
                if V.absmax(V.mul(d, t)) <= tolerance_change:   # lack of progress
                    break
                if abs(loss - prev_loss) < tolerance_change:
                    break

            if al is not None:
                V.store(state, {"al": al})
            V.store(state, dict(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                                prev_flat_grad=prev_flat_grad, prev_loss=prev_loss))
        finally:
            V.finish()
        return orig_loss
