"""torch._prims_common: the helpers libraries import from it. Shapes are always concrete in mstorch, so the
"or_false" forms (which answer False where a symbolic shape cannot be decided) answer the plain question."""


def is_contiguous_or_false(a):
    """torch._prims_common.is_contiguous_or_false: ``a.is_contiguous()``."""
    return bool(a.is_contiguous())


def is_contiguous_for_memory_format_or_false(a, *, memory_format):
    return bool(a.is_contiguous(memory_format=memory_format))
