"""Tensor.register_hook and Tensor.retain_grad on MindSpore's tensor hooks.

MindSpore's own retain_grad clones the gradient with a kernel that CPU lacks ("The kernel Clone
unregistered"), so a retained gradient is kept by a tensor hook of ours instead; like torch's, that
hook always runs after the user's hooks (it is moved to the end when a hook is added).
"""
import threading
import weakref
from collections import OrderedDict

from mindspore import ops as _ops
from mindspore.ops import auto_generate as _gen

from .. import _ms_private as P
from . import anomaly_mode
from .._tensor import Tensor, beside, wrap, write_memory
from ..utils.hooks import RemovableHandle


class _TensorHooks(OrderedDict):
    """torch's ``Tensor._backward_hooks``: the user's hooks by handle id. Removing one (through its
    RemovableHandle) also removes the MindSpore hook that calls it."""

    def __init__(self):
        super().__init__()
        self.engine_handles = {}

    def __delitem__(self, key):
        super().__delitem__(key)
        self.engine_handles.pop(key).remove()


def register_tensor_hook(tensor, hook):
    t = tensor._ms
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")

    def ms_hook(grad):
        r = hook(beside(tensor, grad))   # the gradient is on the tensor's device
        return None if r is None else r._ms

    table = P.tensor_hooks(t)
    if table is None:
        table = _TensorHooks()
        P.set_tensor_hooks(t, table)
    handle = RemovableHandle(table)
    table[handle.id] = hook
    table.engine_handles[handle.id] = t.register_hook(ms_hook)
    P.move_leaf_hook_last(t)
    if P.retain_hook(t) is not None:
        _install_retain_hook(t)
    return handle


def retain_grad(t):
    """Keep the gradient of the non-leaf mindspore tensor ``t`` in its ``.grad``, accumulating."""
    if P.retain_hook(t) is None:
        _install_retain_hook(t)


def _install_retain_hook(t):
    old = P.retain_hook(t)
    if old is not None:
        old.remove()
    ref = weakref.ref(t)   # the hook lives on the tensor: no reference cycle through it

    def keep(grad):
        owner = ref()
        if owner is not None:
            current = P.grad(owner)
            P.set_grad(owner, _ops.mul(grad, 1) if current is None else current + grad)
        return None

    P.set_retain_hook(t, t.register_hook(keep))


# --- leaf gradients -------------------------------------------------------------------------------
#
# Every leaf requiring grad gets this hook (installed by _ms_private's set_requires_grad, kept after
# the user's hooks), which hands MindSpore's engine a gradient it accumulates correctly:
#
# - A first gradient may be a tensor the engine also hands elsewhere (``a + b`` gives the same
#   gradient to a and b; a user's grad_output can reach a leaf as is). MindSpore then clones it with
#   a kernel CPU lacks; the hook hands it a view instead, a new tensor the engine keeps without
#   cloning, at the cost of no kernel. Views that end up sharing memory with another leaf's gradient
#   or with a grad_output are copied after backward, so ``.grad`` never aliases, as torch.
# - The engine adds a gradient to ``.grad`` element by element in *memory* order, whatever the strides
#   of either (a transposed gradient from ``x @ w.T`` scrambles the rows of an accumulated ``.grad``),
#   and ignoring their storage offsets (a gradient from ``cat``'s backward is a slice of a bigger one).
#   So a first gradient gets torch's layout (the leaf's own when the leaf is dense, else row-major:
#   torch's "layout contract") in memory of its own. Row-major gradients into a row-major ``.grad``
#   (the common case) go to the engine untouched; a strided one is added here by one add that reads
#   strides (the kernel the engine would have run); a ``.grad`` laid out otherwise (assigned by hand)
#   is added to here in place, as torch's accumulation does.

class _EngineRun(threading.local):
    """The backward run in progress in this thread (runs in two threads do not see each other's)."""

    def __init__(self):
        self.create_graph = False   # autograd.grad/backward(create_graph=True)
        self.accumulate = False     # backward() writes .grad; autograd.grad returns the gradients
        self.pending = []           # (leaf weakref, view) handed out during the current backward
        self.accumulated = []       # leaves with post-accumulate-grad hooks that got a gradient
        self.callbacks = []         # queue_callback: run when the backward run in progress ends
        self.depth = 0              # engine runs in progress (a checkpointed forward nests one)


_run = _EngineRun()


def _leaf_hook_for(t):
    ref = weakref.ref(t)

    def leaf_grad(grad):
        owner = ref()
        if owner is None:
            return None
        if anomaly_mode.STATE["enabled"]:   # (one dict read per leaf when anomaly mode is off)
            anomaly_mode.check_gradient(grad)
        run = _run
        if not run.accumulate:
            return None            # autograd.grad: the gradient is returned, .grad is left alone
        if P.post_accumulate_hooks(owner):
            run.accumulated.append(ref)
        current = P.grad(owner)
        out = _engine_grad(owner, ref, current, grad, run)
        ready = P.grad_ready_hooks(owner)
        if ready:
            arrived = _ArrivedGrad(owner, current, grad, out)
            for fn in list(ready.values()):
                fn(arrived)
            out = arrived.out
        return out

    return leaf_grad


def _engine_grad(owner, ref, current, grad, run):
    """What the leaf hook hands the engine for ``grad`` arriving at ``owner`` (None: the engine adds it
    to ``current``, the ``.grad``)."""
    if current is not None:
        return _add_to_grad(owner, current, grad)
    if run.create_graph:
        return _ops.mul(grad, 1)   # keeps the graph; views made in backward lose edges
    if not _obeys_layout(grad, owner) or grad.storage_offset():
        return _copy_in_layout(grad, owner)
    view = grad.view(grad.shape)
    run.pending.append((ref, view))
    return view


class _ArrivedGrad:
    """A leaf's gradient arriving during backward, as a grad-ready hook sees it (``register_grad_ready_hook``).

    ``out`` is what the leaf hook hands the engine: the tensor the engine keeps as ``.grad``, or None
    where the engine adds the arriving gradient to ``.grad`` itself (after the hook)."""
    __slots__ = ("owner", "current", "grad", "out")

    def __init__(self, owner, current, grad, out):
        self.owner, self.current, self.grad, self.out = owner, current, grad, out

    def value(self):
        """The mindspore tensor ``.grad`` holds once this gradient is accumulated, computed now: where the
        engine would add, the add is made here and the engine keeps its result (the engine's add, moved)."""
        if self.out is None:
            self.out = _ops.add(self.current, self.grad)
            P.set_grad(self.owner, None)   # the engine then keeps ``out``, adding nothing
        return self.out

    def keep(self, t):
        """Have the engine keep the mindspore tensor ``t`` (the value of ``value()``, e.g. written into a
        bucket of DDP) as ``.grad`` instead."""
        P.set_grad(self.owner, None)
        self.out = t


# MindSpore's engine needs this hook on every leaf requiring grad (see above). Measured on CPU; GPU and
# Ascend are not measured yet (no device image carries MindSpore), so the hook is installed there too.
NEEDS_LEAF_HOOK = {"CPU": True, "GPU": True, "Ascend": True}


def install_leaf_hook(device):
    P.set_leaf_hook_factory(_leaf_hook_for if NEEDS_LEAF_HOOK.get(device, True) else None)


def _engine_adds(t):
    """Whether the engine's storage-order add reads ``t`` right: row-major from the start of its storage."""
    return t.is_contiguous() and not t.storage_offset()


def _dense_strides(t):
    """Whether ``t`` covers a block of memory without gaps or repeats (torch's non-overlapping and dense)."""
    dims = sorted((d for d, n in enumerate(t.shape) if n != 1), key=lambda d: -t.stride()[d])
    expected = 1
    strides = t.stride()
    for d in reversed(dims):
        if strides[d] != expected:
            return False
        expected *= t.shape[d]
    return True


def _obeys_layout(grad, leaf):
    """torch's layout contract for a leaf's gradient: the leaf's strides when the leaf is dense and not
    row-major, else row-major (size-1 dims' strides do not count)."""
    if leaf.is_contiguous() or not _dense_strides(leaf):
        return grad.is_contiguous()
    gs, ls = grad.stride(), leaf.stride()
    return all(n == 1 or gs[d] == ls[d] for d, n in enumerate(leaf.shape))


def _copy_in_layout(grad, leaf):
    """A copy of ``grad`` in memory of its own, laid out as torch lays out ``leaf``'s gradient."""
    if leaf.is_contiguous() or not _dense_strides(leaf):
        return _gen.copy(grad)
    strides = leaf.stride()
    order = sorted(range(leaf.ndim), key=lambda d: -strides[d])   # outermost dim first
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i
    return _ops.transpose(_gen.copy(_ops.transpose(grad, tuple(order))), tuple(inverse))


def _add_to_grad(owner, current, grad):
    """What the leaf hook returns for a gradient arriving at a leaf whose ``.grad`` is ``current``."""
    if _engine_adds(current):
        if _engine_adds(grad):
            return None            # the common case: the engine adds
        total = _ops.add(current, grad)   # one add that reads strides: what the engine's would cost
        P.set_grad(owner, None)    # the engine then keeps what this returns, adding nothing
        return total
    # a .grad laid out otherwise: add here, in its own memory and layout (torch adds in place)
    if any(s == 0 and n > 1 for s, n in zip(current.stride(), current.shape)):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation.")
    total = _ops.add(current, grad)
    P.set_grad(owner, None)
    if _run.create_graph:
        return total               # torch's accumulation with a graph is out of place too
    write_memory(current, total)
    return P.detach(current)


def _run_post_accumulate_hooks(refs, create_graph=False):
    """Call the post-accumulate-grad hooks of the leaves that got a gradient in the last backward, in the
    order their gradients arrived (torch calls each right after that leaf's accumulation)."""
    # torch runs them inside its backward pass, where grad mode is off unless create_graph is on (so a hook
    # may update its leaf in place: p.add_(p.grad, alpha=-lr))
    enabled = P.grad_enabled()
    P.set_grad_enabled(create_graph)
    try:
        for ref in refs:
            t = ref()
            hooks = None if t is None else P.post_accumulate_hooks(t)
            for fn, wrapper_ref in list((hooks or {}).values()):
                tensor = wrapper_ref()
                arg = wrap(t) if tensor is None else tensor
                r = fn(arg)
                if r is None or r is arg or (isinstance(r, Tensor) and r._ms is t):
                    continue    # torch accepts a hook that hands back its own argument (p.add_(...))
                if not isinstance(r, Tensor):
                    raise TypeError(f"expected Variable, but hook returned '{type(r).__name__}'")
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")
    finally:
        P.set_grad_enabled(enabled)


def register_grad_ready_hook(tensor, hook):
    """mstorch's own: ``hook(arrived)`` runs inside the backward pass, as soon as the accumulated gradient of
    the leaf ``tensor`` is known (torch's DDP reducer hooks its AccumulateGrad node for this: a
    post-accumulate-grad hook runs only once backward has finished here). ``arrived`` is an
    ``_ArrivedGrad``. Not called by ``autograd.grad``, which accumulates nothing."""
    t = tensor._ms
    if P.is_leaf(t) and P.requires_grad(t) and not P.has_leaf_hook(t):
        P.set_requires_grad(t, True)   # a leaf made outside mstorch (a native Cell's Parameter) gets the leaf hook
    if not P.is_leaf(t) or not P.has_leaf_hook(t):
        # the leaf hook runs these: a leaf requiring grad has it on every device (NEEDS_LEAF_HOOK)
        raise RuntimeError("grad-ready hooks need a leaf tensor that requires grad, with mstorch's leaf hook")
    hooks = P.grad_ready_hooks(t, create=True)
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


def register_post_accumulate_grad_hook(tensor, hook):
    t = tensor._ms
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if not P.is_leaf(t):
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    hooks = P.post_accumulate_hooks(t, create=True)
    handle = RemovableHandle(hooks)
    hooks[handle.id] = (hook, weakref.ref(tensor))
    return handle


def begin_backward(create_graph, accumulate):
    """Set the leaf hooks up for one engine run; returns what ``end_backward`` restores (runs nest: a
    checkpointed forward recomputed inside a backward runs autograd again)."""
    run = _run
    saved = (run.create_graph, run.accumulate, len(run.pending), len(run.accumulated), len(run.callbacks))
    run.create_graph, run.accumulate = bool(create_graph), accumulate
    run.depth += 1
    return saved


def end_backward(saved, grad_outputs=None):
    """After an engine run (``grad_outputs`` None when it failed): un-alias the gradients it handed
    out, call post-accumulate-grad hooks, and restore the enclosing run's settings."""
    run = _run
    old_create, old_accumulate, n_pending, n_accumulated, n_callbacks = saved
    pending, accumulated = run.pending[n_pending:], run.accumulated[n_accumulated:]
    del run.pending[n_pending:], run.accumulated[n_accumulated:]
    create_graph = run.create_graph
    run.create_graph, run.accumulate = old_create, old_accumulate
    try:
        if grad_outputs is not None:
            _unalias_fresh_grads(pending, grad_outputs)
            _run_post_accumulate_hooks(accumulated, create_graph)
            # callbacks queued by those hooks run too, after them: in torch they run when the graph
            # task ends, after every leaf's accumulation and hooks
            while len(run.callbacks) > n_callbacks:
                callback = run.callbacks.pop(n_callbacks)
                with_grad_mode(create_graph, callback)
    finally:
        del run.callbacks[n_callbacks:]
        run.depth -= 1


def with_grad_mode(enabled, fn):
    old = P.grad_enabled()
    P.set_grad_enabled(enabled)
    try:
        return fn()
    finally:
        P.set_grad_enabled(old)


def queue_callback(callback):
    """Mirrors ``Variable._execution_engine.queue_callback``: ``callback()`` runs once the backward pass in
    progress has finished (after every gradient is accumulated and the post-accumulate-grad hooks ran)."""
    if _run.depth == 0:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    _run.callbacks.append(callback)


def _unalias_fresh_grads(pending, grad_outputs):
    """Give each leaf gradient handed out as a view during the last backward its own memory where
    it shares memory with another one or with a grad_output."""
    if len(pending) < 2 and not grad_outputs:
        return
    taken = {g.data_ptr() for g in grad_outputs}
    for ref, view in pending:
        ptr = view.data_ptr()
        owner = ref()
        if ptr in taken and owner is not None:
            current = P.grad(owner)
            if current is not None and current.data_ptr() == ptr:
                P.set_grad(owner, _ops.mul(current, 1))
        taken.add(ptr)
