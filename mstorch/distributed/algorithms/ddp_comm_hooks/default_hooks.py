"""Mirrors ``torch.distributed.algorithms.ddp_comm_hooks.default_hooks``: averaging all-reduce, and
all-reduce of the bucket cast to float16 / bfloat16 (half the bytes on the wire)."""
from ...._dtype import bfloat16, float16
from ...._tensor import Tensor
from ... import distributed_c10d as c10d
from ..._reducer import _future_of

__all__ = ["allreduce_hook", "fp16_compress_hook", "bf16_compress_hook", "fp16_compress_wrapper",
           "bf16_compress_wrapper"]


def _group(process_group):
    return process_group if process_group is not None else c10d.group.WORLD


def _allreduce_fut(process_group, tensor):
    """Average ``tensor`` over the group in place; a future of it."""
    group = _group(process_group)
    tensor.div_(group.size())
    return _future_of(c10d.all_reduce(tensor, group=group, async_op=True), tensor).then(lambda fut: fut.value()[0])


def allreduce_hook(process_group, bucket):
    """Mirrors ``allreduce_hook``: the same averages as DDP without a hook."""
    return _allreduce_fut(process_group, bucket.buffer())


def _compress_hook(dtype, process_group, bucket):
    group = _group(process_group)
    buffer = bucket[0] if isinstance(bucket, tuple) else bucket.buffer()
    compressed = buffer.to(dtype).div_(group.size())

    def decompress(fut):
        value = fut if isinstance(fut, Tensor) else fut.value()[0]
        buffer.copy_(value)
        return buffer
    return _future_of(c10d.all_reduce(compressed, group=group, async_op=True), compressed).then(decompress)


def fp16_compress_hook(process_group, bucket):
    """Mirrors ``fp16_compress_hook``: the bucket cast to float16 and divided by the group size, summed
    over the group, cast back into the bucket."""
    return _compress_hook(float16, process_group, bucket)


def bf16_compress_hook(process_group, bucket):
    """Mirrors ``bf16_compress_hook`` (as ``fp16_compress_hook``, in bfloat16)."""
    return _compress_hook(bfloat16, process_group, bucket)


def _compress_wrapper(dtype, hook):
    def wrapper_hook(hook_state, bucket):
        bucket.set_buffer(bucket.buffer().to(dtype))
        fut = hook(hook_state, bucket)

        def decompress(fut):
            decompressed = bucket.buffer()
            decompressed.copy_(fut.value())
            return decompressed
        return fut.then(decompress)
    return wrapper_hook


def fp16_compress_wrapper(hook):
    """Mirrors ``fp16_compress_wrapper``: ``hook`` run on the bucket cast to float16."""
    wrapper = _compress_wrapper(float16, hook)
    wrapper.__name__ = wrapper.__qualname__ = "fp16_compress_wrapper_hook"
    return wrapper


def bf16_compress_wrapper(hook):
    """Mirrors ``bf16_compress_wrapper``: ``hook`` run on the bucket cast to bfloat16."""
    wrapper = _compress_wrapper(bfloat16, hook)
    wrapper.__name__ = wrapper.__qualname__ = "bf16_compress_wrapper_hook"
    return wrapper
