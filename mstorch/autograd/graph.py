"""grad_fn objects: a thin torch-style view of MindSpore's backward nodes."""
from .. import _ms_private as P


class Node:
    """Mirrors torch.autograd.graph.Node for the parts scripts read: ``name()``, ``next_functions``."""

    __slots__ = ("_node",)

    def __init__(self, node):
        self._node = node

    def name(self):
        return _torch_name(self._node)

    def __repr__(self):
        return f"<{self.name()} object at {hex(id(self._node))}>"

    def __eq__(self, other):
        return isinstance(other, Node) and other._node is self._node

    def __hash__(self):
        return id(self._node)


def _torch_name(node):
    text = repr(node)  # e.g. "<SumExt, seq=1>"
    name = text.strip("<>").split(",")[0]
    return f"{name}Backward0"


def node_for(t):
    node = P.grad_node(t)
    if node is None or P.is_leaf(t):
        return None
    return Node(node)
