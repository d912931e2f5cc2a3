"""grad_fn objects: a thin torch-style view of MindSpore's backward nodes.

Node names come from MindSpore's kernels, so they differ from torch's for some ops (MindSpore's
``MatMulExtBackward0`` is torch's ``MmBackward0``; in-place ops show as ``InplaceCopyBackward0``).
Custom Functions are named as torch names them (``MyFnBackward``); leaves' nodes as ``AccumulateGrad``.
"""
from typing import NamedTuple

import mindspore

from .. import _ms_private as P
from .._tensor import _DIFFERENTIABLE, Tensor, wrap

# MindSpore kernel name -> torch's, for the nodes scripts print most often
_TORCH_NAMES = {"SumExt": "Sum", "MeanExt": "Mean", "MatMulExt": "Mm", "MatMul": "Mm",
                "BatchMatMul": "Bmm", "BatchMatMulExt": "Bmm", "RealDiv": "Div", "Reshape": "View",
                "InplaceCopy": "Copy", "Cast": "ToCopy", "ReLU": "Relu"}


class Node:
    """Mirrors torch.autograd.graph.Node for what scripts read: ``name()``, ``next_functions``."""

    __slots__ = ("_node",)

    def __init__(self, node):
        self._node = node

    def name(self):
        node = self._node
        if P.is_custom_node(node):
            return _function_node_name(getattr(type(node), "_user", type(node)))
        if P.is_leaf_node(node):    # named "input_27", or after its Parameter ("weight")
            return "AccumulateGrad"
        kernel = node.name()  # e.g. "SumExt"
        return _TORCH_NAMES.get(kernel, kernel) + "Backward0"

    @property
    def next_functions(self):
        return tuple((None if n is None else Node(n), i) for n, i in self._node.next_functions)

    def __repr__(self):
        return f"<{self.name()} object at {hex(id(self._node))}>"

    def __eq__(self, other):
        return isinstance(other, Node) and other._node is self._node

    def __hash__(self):
        return id(self._node)


def node_for(t):
    """The grad_fn of the mindspore tensor ``t``: None for leaves and tensors without history
    (integer and bool results included: MindSpore records them, torch does not)."""
    if P.is_leaf(t) or t.dtype not in _DIFFERENTIABLE:
        return None
    try:
        node = P.grad_node(t)
    except RuntimeError:
        # MindSpore frees a custom Function's node after backward and refuses to hand it out again;
        # torch keeps it. The Function's name was left on its outputs for this case.
        return _FreedFunctionNode(P.function_of_output(t))
    return None if node is None else Node(node)


def output_nr(t):
    """Tensor.output_nr: which output of its grad_fn the mindspore tensor ``t`` is (0 without a grad_fn, as
    torch). The index is in mstorch's graph, whose nodes are MindSpore's: where an op is built from other
    nodes than torch's (a split is one node per piece here) it can differ from torch's."""
    return 0 if node_for(t) is None else P.output_index(t)


class GradientEdge(NamedTuple):
    """torch.autograd.graph.GradientEdge: an output ``output_nr`` of the autograd node ``node``."""

    node: Node
    output_nr: int
    ownership_token: Node | None = None


class _TensorEdge(GradientEdge):
    """The GradientEdge get_gradient_edge returns; it also keeps the tensor (and its version) it was taken
    from: MindSpore's engine differentiates with respect to tensors, so autograd.grad reaches the edge
    through that tensor."""

    def __repr__(self):
        return "GradientEdge" + super().__repr__()[len(type(self).__name__):]


def get_gradient_edge(tensor):
    """torch.autograd.graph.get_gradient_edge: where the gradient of ``tensor`` is computed (its grad_fn's
    output, or a leaf's AccumulateGrad node)."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require "
                           "gradients")
    node = node_for(tensor._ms)
    if node is None:   # a leaf: its gradient accumulator
        node = Node(P.grad_node(tensor._ms))
    edge = _TensorEdge(node, output_nr(tensor._ms))
    edge._tensor, edge._version = tensor, tensor._version
    return edge


def edge_tensor(item):
    """The tensor autograd.grad / backward differentiate for ``item`` (a Tensor or a GradientEdge)."""
    if not isinstance(item, GradientEdge):
        return item
    t = getattr(item, "_tensor", None)
    if t is None:
        raise RuntimeError("mstorch differentiates at a GradientEdge only when it comes from "
                           "torch.autograd.graph.get_gradient_edge: MindSpore's engine computes gradients with "
                           "respect to tensors, and an edge built from a node and an index names no tensor")
    if t._version != item._version:
        raise RuntimeError("the tensor of this GradientEdge was modified in place after get_gradient_edge: "
                           "mstorch reaches the edge through that tensor, whose gradient now belongs to another "
                           "node (MindSpore's engine differentiates with respect to tensors, not node outputs)")
    return t


class _FreedFunctionNode(Node):
    """The grad_fn of a custom Function's output after backward freed MindSpore's node."""

    __slots__ = ("_user",)

    def __init__(self, user):
        super().__init__(None)
        self._user = user

    def name(self):
        return _function_node_name(self._user)


def _function_node_name(cls):
    """A user's autograd.Function ``Exp`` names its node ``ExpBackward``; mstorch's own nodes (ops with
    a backward of their own) are MindSpore Function classes named as torch's node, e.g. ``LinalgPinvBackward0``."""
    if not isinstance(cls, type):   # (a freed node may keep the Function's instance)
        cls = type(cls)
    return cls.__name__ if issubclass(cls, P.FunctionBase) else cls.__name__ + "Backward"

    @property
    def next_functions(self):
        return ()

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)


class saved_tensors_hooks:
    """torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook), on MindSpore's saved-tensor hooks:
    ``pack_hook`` receives each tensor MindSpore's autograd saves for backward, ``unpack_hook`` gives it back.

    MindSpore's backward formulas save their own set of tensors (a matmul + tanh saves 8 tensors here, 3 in
    torch, scalars included), so the hooks run on that set: hooks that preserve values (offloading, copies,
    compression round trips) give torch's gradients; a hook that changes values changes different tensors than
    in torch (docs/known-differences.md)."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook
        self._ms_hooks = None

    def _pack(self, t):
        return self.pack_hook(wrap(t))

    def _unpack(self, packed):
        out = self.unpack_hook(packed)
        if not isinstance(out, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            f"{type(out).__name__}")
        return out._ms

    def __enter__(self):
        if disable_saved_tensors_hooks._active:
            raise RuntimeError(disable_saved_tensors_hooks._active[-1])
        self._ms_hooks = mindspore.saved_tensors_hooks(self._pack, self._unpack)
        self._ms_hooks.__enter__()
        return self

    def __exit__(self, *args):
        if self._ms_hooks is not None:
            self._ms_hooks.__exit__(*args)
            self._ms_hooks = None
        return False


class save_on_cpu(saved_tensors_hooks):
    """torch.autograd.graph.save_on_cpu: keep tensors saved for backward in host memory. mstorch runs on the
    CPU, where saved tensors already live in host memory, so this is the identity (as torch's is on CPU
    tensors); ``pin_memory`` has no effect without an accelerator."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(None, None)
        self.pin_memory = pin_memory
        self.device_type = device_type

    def __enter__(self):
        return self


class disable_saved_tensors_hooks:
    """torch.autograd.graph.disable_saved_tensors_hooks(error_message): entering saved_tensors_hooks inside it
    raises ``RuntimeError(error_message)``."""

    _active = []

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        disable_saved_tensors_hooks._active.append(self.error_message)
        return self

    def __exit__(self, *args):
        disable_saved_tensors_hooks._active.pop()
        return False


def increment_version(tensor):
    """Mirrors torch.autograd.graph.increment_version: count one in-place write on each tensor (for writes
    made behind autograd's back, through the data pointer), so a backward that saved it refuses."""
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        P.bump_versions([t._ms])    # (one at a time: a tensor listed twice counts twice, as torch's)


class _MultiHandle:
    __slots__ = ("handles",)

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __getstate__(self):
        return self.handles

    def __setstate__(self, state):
        self.handles = state


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Mirrors torch.autograd.graph.register_multi_grad_hook. ``"all"``: ``fn(grads)`` once per backward pass
    that computed a gradient of any of ``tensors``, with None for the ones it did not compute; mstorch calls
    it when the pass ends (torch calls it as the last of those gradients is computed, also inside the pass).
    ``"any"``: ``fn(grad)`` with the first of their gradients each pass computes."""
    from .hooks import queue_callback

    supported_modes = ("any", "all")
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    tensors = tuple(tensors)
    if mode == "all":
        buffer = None

        def flush():
            nonlocal buffer
            grads, buffer = buffer, None
            fn(grads)

        def collector(idx):
            def hook(grad):
                nonlocal buffer
                if buffer is None:
                    buffer = [None] * len(tensors)
                    queue_callback(flush)
                buffer[idx] = grad
            return hook
        return _MultiHandle(tuple(t.register_hook(collector(i)) for i, t in enumerate(tensors)))
    seen = []   # the passes that ran fn: one entry, cleared when the pass ends

    def first(grad):
        if seen:
            return
        seen.append(True)
        queue_callback(seen.clear)
        fn(grad)
    return _MultiHandle(tuple(t.register_hook(first) for t in tensors if t.requires_grad))
