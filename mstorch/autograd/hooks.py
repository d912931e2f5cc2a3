"""Tensor.register_hook and Tensor.retain_grad on MindSpore's tensor hooks.

MindSpore's own retain_grad clones the gradient with a kernel that CPU lacks ("The kernel Clone
unregistered"), so a retained gradient is kept by a tensor hook of ours instead; like torch's, that
hook always runs after the user's hooks (it is moved to the end when a hook is added).
"""
import weakref

from mindspore import ops as _ops

from .. import _ms_private as P
from .._tensor import wrap


class RemovableHandle:
    """Mirrors torch.utils.hooks.RemovableHandle for tensor hooks."""

    def __init__(self, ms_handle):
        self._h = ms_handle

    def remove(self):
        if self._h is not None:
            self._h.remove()
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_tensor_hook(tensor, hook):
    t = tensor._ms
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")

    def ms_hook(grad):
        r = hook(wrap(grad))
        return None if r is None else r._ms

    handle = RemovableHandle(t.register_hook(ms_hook))
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


def warn_non_leaf_grad():
    import warnings
    warnings.warn(
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
        "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
        "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf "
        "Tensor by mistake, make sure you access the leaf Tensor instead. See "
        "github.com/pytorch/pytorch/pull/30531 for more information.", UserWarning, stacklevel=3)


# --- fresh gradients for leaves ------------------------------------------------------------------
#
# A leaf's first gradient may be a tensor the engine also hands elsewhere (``a + b`` gives the same
# gradient to a and b; a user's grad_output can reach a leaf as is). MindSpore then clones it with
# a kernel CPU lacks. Every leaf requiring grad gets this hook (installed by _ms_private's
# set_requires_grad): it hands the engine a view of the gradient, a new tensor the engine keeps
# without cloning, at the cost of no kernel. Views that end up sharing memory with another leaf's
# gradient or with a grad_output are copied after backward, so ``.grad`` never aliases, as torch.

_pending = []                      # (leaf weakref, view) handed out during the current backward
state = {"create_graph": False}


def _leaf_hook_for(t):
    ref = weakref.ref(t)

    def fresh_grad(grad):
        owner = ref()
        if owner is None or P.grad(owner) is not None:
            return None            # accumulation adds into a new tensor: nothing to clone
        if state["create_graph"]:
            return _ops.mul(grad, 1)   # keeps the graph; views made in backward lose edges
        view = grad.view(grad.shape)
        _pending.append((ref, view))
        return view

    return fresh_grad


P.leaf_hook_factory[:] = [_leaf_hook_for]


def unalias_fresh_grads(grad_outputs):
    """Give each leaf gradient handed out as a view during the last backward its own memory where
    it shares memory with another one or with a grad_output."""
    if len(_pending) < 2 and not grad_outputs:
        _pending.clear()
        return
    taken = {g.data_ptr() for g in grad_outputs}
    try:
        for ref, view in _pending:
            ptr = view.data_ptr()
            owner = ref()
            if ptr in taken and owner is not None:
                current = P.grad(owner)
                if current is not None and current.data_ptr() == ptr:
                    P.set_grad(owner, _ops.mul(current, 1))
            taken.add(ptr)
    finally:
        _pending.clear()
