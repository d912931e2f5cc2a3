"""torch.fx._pytree: flattening a value by a known TreeSpec (what pytree-based generated code calls)."""
from ..utils import _pytree as pytree

SUPPORTED_NODES = {}


def register_pytree_flatten_spec(cls, flatten_fn_spec, flatten_fn_exact_match_spec=None):
    SUPPORTED_NODES[cls] = flatten_fn_spec


def tree_flatten_spec(pytree_value, spec):
    """The leaves of ``pytree_value`` in the order of ``spec``."""
    leaves, actual = pytree.tree_flatten(pytree_value)
    if actual != spec:
        raise RuntimeError(f"Tree structure {actual} does not match the expected {spec}")
    return leaves
