"""torch.distributed.nn.functional: collectives that autograd differentiates, over mstorch.distributed's
process groups. Each returns new tensors (the inputs are not written) and its backward is the adjoint
collective, as torch's: all_reduce -> all_reduce of the gradient (same op), broadcast -> the gradients
summed onto the source (zero elsewhere), reduce -> broadcast of the gradient from the destination,
all_gather -> each rank's gradient summed across ranks, gather/scatter and all_to_all -> each other."""
from .. import distributed_c10d as dist
from ..distributed_c10d import ReduceOp
from ... import _functions as fn
from ...autograd.function import Function

__all__ = ["all_gather", "all_reduce", "all_to_all", "all_to_all_single", "broadcast", "gather", "reduce",
           "reduce_scatter", "scatter"]


class _Broadcast(Function):
    @staticmethod
    def forward(ctx, src, grp, tensor):
        ctx.src, ctx.group, ctx.rank = src, grp, dist.get_rank(group=grp)
        tensor = tensor.clone()
        dist.broadcast(tensor, src, group=grp)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        gx = _Reduce.apply(ctx.src, ReduceOp.SUM, ctx.group, grad_output)
        return None, None, gx if ctx.src == ctx.rank else fn.zeros_like(gx)


class _Reduce(Function):
    @staticmethod
    def forward(ctx, dst, op, grp, tensor):
        ctx.dst, ctx.group = dst, grp
        tensor = tensor.clone()
        dist.reduce(tensor, dst, op=op, group=grp)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, None, _Broadcast.apply(ctx.dst, ctx.group, grad_output)


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, op, grp, tensor):
        ctx.op, ctx.group = op, grp
        tensor = tensor.clone()
        dist.all_reduce(tensor, op=op, group=grp)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, _AllReduce.apply(ctx.op, ctx.group, grad_output)


class _AllGather(Function):
    @staticmethod
    def forward(ctx, grp, tensor):
        ctx.group = grp
        tensor = tensor.contiguous()
        out = [fn.empty_like(tensor) for _ in range(dist.get_world_size(group=grp))]
        dist.all_gather(out, tensor, group=grp)
        return tuple(out)

    @staticmethod
    def backward(ctx, *grad_outputs):
        # this rank's input fed slot [rank] on every rank: the sum over ranks of their gradient for that slot
        summed = _AllReduce.apply(ReduceOp.SUM, ctx.group, fn.stack(grad_outputs))
        return None, summed[dist.get_rank(group=ctx.group)]


class _Gather(Function):
    @staticmethod
    def forward(ctx, dst, grp, tensor):
        ctx.dst, ctx.group = dst, grp
        tensor = tensor.contiguous()
        out = [fn.zeros_like(tensor) for _ in range(dist.get_world_size(group=grp))]
        dist.gather(tensor, out if dist.get_rank(group=grp) == dst else None, dst, group=grp)
        return tuple(out)

    @staticmethod
    def backward(ctx, *grad_outputs):
        return (None, None, _Scatter.apply(ctx.dst, ctx.group, *grad_outputs))


class _Scatter(Function):
    @staticmethod
    def forward(ctx, src, grp, *tensors):
        ctx.src, ctx.group = src, grp
        out = fn.zeros_like(tensors[dist.get_rank(group=grp)]).contiguous()
        dist.scatter(out, [t.contiguous() for t in tensors] if dist.get_rank(group=grp) == src else None, src,
                     group=grp)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return (None, None) + _Gather.apply(ctx.src, ctx.group, grad_output)


class _AlltoAll(Function):
    @staticmethod
    def forward(ctx, grp, out, *tensors):
        ctx.group = grp
        dist.all_to_all(out, [t.contiguous() for t in tensors], group=grp)
        return tuple(out)

    @staticmethod
    def backward(ctx, *grad_outputs):
        return (None, None) + _AlltoAll.apply(ctx.group, [fn.empty_like(g) for g in grad_outputs], *grad_outputs)


class _ReduceScatter(Function):
    @staticmethod
    def forward(ctx, op, grp, tensor, *inputs):
        ctx.group = grp
        tensor = tensor.contiguous()
        dist.reduce_scatter(tensor, [t.contiguous() for t in inputs], op=op, group=grp)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        return (None, None, None) + _AllGather.apply(ctx.group, grad_output)


def broadcast(tensor, src, group=None):
    """torch.distributed.nn.functional.broadcast."""
    return _Broadcast.apply(src, group, tensor)


def gather(tensor, dst=0, group=None):
    """torch.distributed.nn.functional.gather: a tuple of world-size tensors (zeros except on ``dst``)."""
    return _Gather.apply(dst, group, tensor)


def scatter(tensors, src=0, group=None):
    """torch.distributed.nn.functional.scatter."""
    return _Scatter.apply(src, group, *tensors)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None):
    """torch.distributed.nn.functional.reduce."""
    return _Reduce.apply(dst, op, group, tensor)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None):
    """torch.distributed.nn.functional.reduce_scatter."""
    return _ReduceScatter.apply(op, group, output, *input_list)


def all_gather(tensor, group=None):
    """torch.distributed.nn.functional.all_gather: a tuple of every rank's tensor."""
    return _AllGather.apply(group, tensor)


def all_to_all(output_tensor_list, input_tensor_list, group=None):
    """torch.distributed.nn.functional.all_to_all: fills ``output_tensor_list`` and returns it as a tuple."""
    return _AlltoAll.apply(group, output_tensor_list, *input_tensor_list)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None):
    """torch.distributed.nn.functional.all_to_all_single: refused (no autograd form here yet)."""
    raise NotImplementedError("mstorch does not provide torch.distributed.nn.functional.all_to_all_single; use "
                              "all_to_all with a list of chunks")


def all_reduce(tensor, op=ReduceOp.SUM, group=None):
    """torch.distributed.nn.functional.all_reduce."""
    return _AllReduce.apply(op, group, tensor)
