"""torch.utils: the parts mstorch provides. The package imports only ``hooks`` (autograd and nn use it);
``mstorch/__init__`` imports ``data``, ``checkpoint`` and ``_pytree``, which build on the layers above."""
from . import hooks  # noqa: F401


def swap_tensors(t1, t2):
    """Mirrors torch.utils.swap_tensors: ``t1`` and ``t2`` exchange their contents (class, Python attributes, and
    the storage with its dtype, shape, requires_grad and grad, held in the ``_ms`` slot) and keep their identities.

    torch also refuses a tensor that something else references in C++ (a graph that saved it: "Expected use_count
    ..."); mstorch does not count those references (see docs/known-differences.md)."""
    import copyreg
    import weakref
    if weakref.getweakrefs(t1):
        raise RuntimeError("Cannot swap t1 because it has weakref associated with it")
    if weakref.getweakrefs(t2):
        raise RuntimeError("Cannot swap t2 because it has weakref associated with it")
    t1_slots = set(copyreg._slotnames(t1.__class__))
    if t1_slots != set(copyreg._slotnames(t2.__class__)):
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")

    def swap_attr(name):
        tmp = getattr(t1, name)
        setattr(t1, name, getattr(t2, name))
        setattr(t2, name, tmp)
    swap_attr("__class__")
    swap_attr("__dict__")
    for slot in t1_slots:          # ``_ms``, the storage, is one of them: it moves here
        if hasattr(t1, slot) and hasattr(t2, slot):
            swap_attr(slot)
        elif hasattr(t1, slot):
            setattr(t2, slot, getattr(t1, slot))
            delattr(t1, slot)
        elif hasattr(t2, slot):
            setattr(t1, slot, getattr(t2, slot))
            delattr(t2, slot)
