"""torch._dynamo._trace_wrapped_higher_order_op: ``TransformGetItemToIndex``.

In torch it is a torch-function mode that, inside ``vmap``ped mask functions, keeps ``A[i]`` with a 0-d tensor
``i`` as a tensor index instead of calling ``i.item()`` (which vmap forbids). mstorch's indexing by a 0-d
integer tensor gives the same values either way, and its ``__getitem__`` is not among the calls torch-function
modes see, so entering the context changes nothing (no mode is pushed: the op wrappers keep their fast path)."""


class TransformGetItemToIndex:
    """Mirrors torch._dynamo._trace_wrapped_higher_order_op.TransformGetItemToIndex (see the module docstring)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
