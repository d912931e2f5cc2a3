"""grad_fn objects: a thin torch-style view of MindSpore's backward nodes.

Node names come from MindSpore's kernels, so they differ from torch's for some ops (MindSpore's
``MatMulExtBackward0`` is torch's ``MmBackward0``; in-place ops show as ``InplaceCopyBackward0``).
Custom Functions are named as torch names them (``MyFnBackward``); leaves' nodes as ``AccumulateGrad``.
"""
from .. import _ms_private as P
from .._tensor import _DIFFERENTIABLE

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
            return type(node)._user.__name__ + "Backward"
        kernel = node.name()  # e.g. "SumExt"; "input_27" for a leaf
        if kernel.startswith("input_"):
            return "AccumulateGrad"
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


class _FreedFunctionNode(Node):
    """The grad_fn of a custom Function's output after backward freed MindSpore's node."""

    __slots__ = ("_user",)

    def __init__(self, user):
        super().__init__(None)
        self._user = user

    def name(self):
        return self._user.__name__ + "Backward"

    @property
    def next_functions(self):
        return ()

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)


class saved_tensors_hooks:
    """torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook).

    MindSpore's autograd engine keeps the tensors it saves for backward inside its own nodes and offers no hook
    on saving or reading them, so pack/unpack hooks cannot run. Entering the context raises instead of silently
    running backward without them (a non-identity hook would change results or memory use)."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if disable_saved_tensors_hooks._active:
            raise RuntimeError(disable_saved_tensors_hooks._active[-1])
        raise RuntimeError(
            "torch.autograd.graph.saved_tensors_hooks is not supported by mstorch: MindSpore's autograd engine "
            "saves tensors for backward internally and cannot run pack/unpack hooks on them")

    def __exit__(self, *args):
        return False


class save_on_cpu(saved_tensors_hooks):
    """torch.autograd.graph.save_on_cpu: keep tensors saved for backward in host memory. mstorch runs on the
    CPU, where saved tensors already live in host memory, so this is the identity (as torch's is on CPU
    tensors); ``pin_memory`` has no effect without an accelerator."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        self.pin_memory = pin_memory
        self.device_type = device_type

    def __enter__(self):
        return self


class disable_saved_tensors_hooks:
    """torch.autograd.graph.disable_saved_tensors_hooks(error_message): inside it, saved_tensors_hooks raise
    ``RuntimeError(error_message)`` — mstorch's raise anyway, with that message while it is active."""

    _active = []

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        disable_saved_tensors_hooks._active.append(self.error_message)
        return self

    def __exit__(self, *args):
        disable_saved_tensors_hooks._active.pop()
        return False
