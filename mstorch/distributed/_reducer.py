"""DistributedDataParallel's gradient reducer (torch's C++ ``Reducer``), on the public collectives.

Gradients are grouped into buckets of parameters of one dtype; a bucket is flattened into one buffer
and all-reduced (or handed to a communication hook) as soon as every gradient in it is ready, buckets
always in the same order on every rank; the averaged buffers are awaited once backward has finished
and written into ``.grad`` in place. As in torch:

- the first iteration reduces one bucket of every parameter in registration order; after it the
  buckets are rebuilt once from the order the gradients arrived in (rank 0's order, broadcast), with a
  small first bucket (``_DEFAULT_FIRST_BUCKET_BYTES``) and ``bucket_cap_mb`` after it. With
  ``find_unused_parameters=True`` (and not ``static_graph``) the buckets are fixed at construction:
  registration order cut at the caps, reduced last bucket first;
- a gradient is "ready" when it reaches its parameter during backward (a grad-ready hook on the
  engine's leaf hook, autograd/hooks.py, where torch hooks the parameter's AccumulateGrad node): its
  accumulated value is copied (divided by the world size) into its bucket there, and a bucket whose
  gradients are all in is handed to the all-reduce (or the comm hook) at once, while backward goes on
  through the earlier layers (on CPU under blocking launch MindSpore's engine finishes the all-reduce
  inside that call: docs/known-differences.md); the end of the backward pass is a callback queued on the autograd engine,
  where parameters that got no gradient are marked ready (``find_unused_parameters``), the buckets are
  awaited and ``.grad`` written.
"""
import weakref

import numpy as np

from .. import _ms_private as P
from .._dtype import int32
from .._functions import cat, empty_like, tensor, zeros
from .._tensor import Tensor, beside, strided_host_view
from ..autograd.grad_mode import no_grad
from ..autograd import hooks as _autograd_hooks
from ..futures import Future
from .distributed_c10d import ReduceOp, all_reduce, broadcast, get_global_rank

__all__ = ["GradBucket", "Reducer"]

_DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024
_DEFAULT_BUCKET_CAP_MB = 25
_MB = 1024 * 1024


def _compute_bucket_assignment_by_size(tensors, bucket_size_limits, expect_sparse_gradient=(), tensor_indices=(),
                                       logger=None):
    """Mirrors ``torch.distributed._compute_bucket_assignment_by_size``: (bucket indices, size limit of each).

    Tensors are taken in order, per (dtype, device); a bucket closes once its bytes reach its limit,
    the limits of successive buckets of one kind following ``bucket_size_limits`` (the last repeats). A
    tensor expecting a sparse gradient gets a bucket of its own. Without ``tensor_indices`` the buckets
    are sorted by their smallest index; with them (gradient-ready order) they stay in order."""
    if expect_sparse_gradient and len(expect_sparse_gradient) != len(tensors):
        raise RuntimeError("expect_sparse_gradient must be empty or have one entry per tensor")
    if tensor_indices and len(tensor_indices) != len(tensors):
        raise RuntimeError("tensor_indices must be empty or have one entry per tensor")
    if not bucket_size_limits:
        raise RuntimeError("bucket_size_limits must not be empty")
    result, open_buckets = [], {}
    for i, t in enumerate(tensors):
        index = tensor_indices[i] if tensor_indices else i
        if expect_sparse_gradient and expect_sparse_gradient[index]:
            result.append(([index], None))
            continue
        key = (t.dtype, str(t.device))
        bucket = open_buckets.setdefault(key, {"indices": [], "bytes": 0, "limit": 0})
        bucket["indices"].append(index)
        bucket["bytes"] += t.numel() * t.element_size()
        limit = bucket_size_limits[bucket["limit"]]
        if bucket["bytes"] >= limit:
            result.append((bucket["indices"], limit))
            open_buckets[key] = {"indices": [], "bytes": 0,
                                 "limit": min(bucket["limit"] + 1, len(bucket_size_limits) - 1)}
    # the leftovers in the order torch's unordered_map of kinds yields them: the last kind seen first
    for bucket in reversed(list(open_buckets.values())):
        if bucket["indices"]:
            result.append((bucket["indices"], bucket_size_limits[bucket["limit"]]))
    if not tensor_indices:
        result.sort(key=lambda b: min(b[0]))
    return [b[0] for b in result], [b[1] for b in result]


def _broadcast_coalesced(process_group, tensors, buffer_size=250 * _MB, src=0):
    """Mirrors ``torch.distributed._broadcast_coalesced``: ``src``'s values of ``tensors`` on every rank,
    one broadcast per dtype (the tensors flattened into one buffer; ``buffer_size`` is not used to split
    it). ``src`` is a group rank."""
    if process_group.size() == 1 or not tensors:
        return
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    root = get_global_rank(process_group, src)
    with no_grad():
        for group in by_dtype.values():
            flat = cat([t.detach().reshape(-1) for t in group])
            broadcast(flat, src=root, group=process_group)
            if process_group.rank() != src:
                for t, value in zip(group, flat.split([t.numel() for t in group])):
                    t.copy_(value.view(t.shape))


class GradBucket:
    """Mirrors ``torch.distributed.GradBucket``: what a communication hook gets for one bucket."""

    def __init__(self, index, buffer, parameters, is_last):
        self._index, self._buffer, self._parameters, self._is_last = index, buffer, parameters, is_last

    def index(self):
        return self._index

    def buffer(self):
        return self._buffer

    def gradients(self):
        """Each parameter's gradient: views of ``buffer()``."""
        sizes = [p.numel() for p in self._parameters]
        return [flat.view(p.shape) for flat, p in zip(self._buffer.split(sizes), self._parameters)]

    def parameters(self):
        return list(self._parameters)

    def is_last(self):
        return self._is_last

    def set_buffer(self, buffer):
        self._buffer = buffer


def _marked_twice(index):
    return RuntimeError(
        "Expected to mark a variable ready only once. This error is caused by one of the following reasons: "
        "1) Use of a module parameter outside the `forward` function. Please make sure model parameters are not "
        "shared across multiple concurrent forward-backward passes. or try to use _set_static_graph() as a "
        "workaround if this module graph does not change during training loop.2) Reused parameters in multiple "
        "reentrant backward passes. For example, if you use multiple `checkpoint` functions to wrap the same part "
        "of your model, it would result in the same set of parameters been used by different reentrant backward "
        "passes multiple times, and hence marking a variable ready multiple times. DDP does not support such use "
        "cases in default. You can try to use _set_static_graph() as a workaround if your module graph does not "
        f"change over iterations.\nParameter at index {index} has been marked as ready twice. This means that "
        "multiple autograd engine  hooks have fired for this particular parameter during this iteration.")


def _unfinished(rank, missing, find_unused, static_graph):
    if static_graph:
        head = ("Expected to have finished reduction in the prior iteration before starting a new one. This error "
                "indicates that your training graph has changed in this iteration, e.g., one parameter is used in "
                "first iteration, but then got unused in the second iteration. this is not compatible with "
                "static_graph set to True.")
    elif find_unused:
        head = ("Expected to have finished reduction in the prior iteration before starting a new one. This error "
                "indicates that your module has parameters that were not used in producing loss. Since "
                "`find_unused_parameters=True` is enabled, this likely  means that not all `forward` outputs "
                "participate in computing loss. You can fix this by making sure all `forward` function outputs "
                "participate in calculating loss. \nIf you already have done the above, then the distributed data "
                "parallel module wasn't able to locate the output tensors in the return value of your module's "
                "`forward` function. Please include the loss function and the structure of the return value of "
                "`forward` of your module when reporting this issue (e.g. list, dict, iterable).")
    else:
        head = ("Expected to have finished reduction in the prior iteration before starting a new one. This error "
                "indicates that your module has parameters that were not used in producing loss. You can enable "
                "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
                "`torch.nn.parallel.DistributedDataParallel`, and by \nmaking sure all `forward` function outputs "
                "participate in calculating loss. \nIf you already have done the above, then the distributed data "
                "parallel module wasn't able to locate the output tensors in the return value of your module's "
                "`forward` function. Please include the loss function and the structure of the return value of "
                "`forward` of your module when reporting this issue (e.g. list, dict, iterable).")
    return RuntimeError(
        f"{head}\nParameter indices which did not receive grad for rank {rank}: {' '.join(map(str, missing))}\n In "
        "addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print "
        "out information about which particular parameters did not receive gradient on this rank as part of this "
        "error")


class _Bucket:
    __slots__ = ("index", "params", "sizes", "dtype", "buffer", "pieces", "views")

    def __init__(self, index, indices, params, as_views=False):
        self.index = index
        self.params = list(indices)
        self.sizes = [params[i].numel() for i in indices]
        self.dtype = params[indices[0]].dtype
        self.buffer = None       # the flat gradients, allocated at the first reduction and reused
        self.pieces = self.views = None
        if as_views:
            # gradient_as_bucket_view: the buffer exists from the start; each gradient is a view of it
            self.allocate()
            self.views = [piece.view(params[i].shape) for piece, i in zip(self.pieces, indices)]

    def allocate(self):
        if self.buffer is None:
            self.buffer = zeros(sum(self.sizes), dtype=self.dtype)
            self.pieces = list(self.buffer.split(self.sizes))     # each parameter's slice, flat


def _aliases(a, b):
    """Whether ``a`` is the view ``b`` (the same memory, shape and dtype)."""
    return a.data_ptr() == b.data_ptr() and a.shape == b.shape and a.dtype == b.dtype


_NOT_A_BUCKET_VIEW = (
    "Detected at least one parameter gradient is not the expected DDP bucket view with gradient_as_bucket_view=True. "
    "This may happen (for example) if multiple allreduce hooks were registered onto the same parameter. If you hit "
    "this error, please file an issue with a minimal repro.")


def _host(t):
    """A NumPy array over ``t``'s memory on the host, or None (GPU/Ascend memory)."""
    return strided_host_view(t._ms)


def _flatten_into(buffer, tensors, sizes, scale=None):
    """``buffer[...] = cat(t.reshape(-1) for t in tensors) * scale``; None stands for zeros. On the host
    the copies are NumPy's (MindSpore's CPU copy kernels move ~10x fewer bytes per second)."""
    out = _host(buffer)
    if out is None:
        flat = cat([zeros(n, dtype=buffer.dtype) if t is None else t.reshape(-1) for t, n in zip(tensors, sizes)])
        buffer.copy_(flat if scale is None else flat * scale)
        return
    start = 0
    for t, n in zip(tensors, sizes):
        piece = out[start:start + n]
        start += n
        if t is None:
            piece.fill(0)
        elif scale is None:
            np.copyto(piece, _host(t).reshape(-1))
        else:   # torch's gradient * (1 / world size), rounded once in the bucket's dtype
            np.multiply(_host(t).reshape(-1), np.asarray(scale, dtype=out.dtype), out=piece)


def _unflatten_into(tensors, flat):
    """Each tensor of ``tensors`` (or None: skipped) takes its piece of ``flat``, in place."""
    src = _host(flat) if flat.is_contiguous() else None
    written, start = [], 0
    for t in tensors:
        n = 0 if t is None else t.numel()
        if t is not None:
            dst = None if src is None else _host(t)
            if dst is None:
                t.copy_(flat[start:start + n].view(t.shape))
            else:
                np.copyto(dst, src[start:start + n].reshape(dst.shape), casting="unsafe")
                written.append(t._ms)
        start += n
    P.bump_versions(written)


def _future_of(work, tensor):
    """The future of an in-place collective's result: ``tensor`` once ``work`` has completed."""
    return Future._after(work.wait, [tensor])


class Reducer:
    """Mirrors ``torch.distributed.Reducer`` for DistributedDataParallel (one replica per process)."""

    def __init__(self, params, bucket_indices, process_group, bucket_bytes_cap, first_bucket_bytes_cap,
                 find_unused_parameters=False, gradient_as_bucket_view=False):
        self._params = list(params)
        self._pg = process_group
        self._bucket_bytes_cap = bucket_bytes_cap
        self._first_bucket_bytes_cap = first_bucket_bytes_cap
        self._find_unused = find_unused_parameters
        self._static_graph = False
        self._comm_hook = None
        self._has_rebuilt = False
        self._ready_order = []        # gradient-ready order of the first synced backward (to rebuild)
        self._ready_seen = set()
        self._hook_counts = None      # static graph: hooks per parameter per iteration, from the first
        self._static_used = None      # static graph: the parameters some rank used in the first iteration
        self._static_first = False
        self._delayed = False
        self._expect_hooks = False    # a synced forward ran: the next backward reduces
        self._require_finalize = False
        self._callback_queued = False
        self._local_used = [False] * len(self._params)
        self._forward_work = None     # join: counts the ranks still training (divide_by_initial_world_size=False)
        self._as_views = gradient_as_bucket_view
        self._set_buckets(bucket_indices)
        self._handles = [_autograd_hooks.register_grad_ready_hook(p, self._hook_for(i))
                         for i, p in enumerate(self._params)]

    # --- buckets -------------------------------------------------------------------------------
    def _set_buckets(self, bucket_indices):
        self._buckets = [_Bucket(b, indices, self._params, self._as_views) for b, indices in enumerate(bucket_indices)]
        self._slot_of = [(0, 0)] * len(self._params)     # parameter index -> (bucket, position in it)
        for bucket in self._buckets:
            for k, i in enumerate(bucket.params):
                self._slot_of[i] = (bucket.index, k)
        if self._as_views:
            # gradients that exist already (or views of the buckets before a rebuild) move into the buckets
            with no_grad():
                for bucket in self._buckets:
                    for i, piece, view in zip(bucket.params, bucket.pieces, bucket.views):
                        p = self._params[i]
                        if p.grad is not None and not _aliases(p.grad, view):
                            _flatten_into(piece, [p.grad], [piece.numel()])
                            p.grad = view

    def _should_rebuild(self):
        return (self._static_graph or not self._find_unused) and not self._has_rebuilt

    def _rebuild_buckets(self):
        """Rebuild the buckets once, from the gradient-ready order of the first synced backward (rank 0's,
        so every rank reduces the same buckets). Returns whether it did."""
        if not self._should_rebuild() or not self._ready_order:
            return False
        order = self._ready_order + [i for i in range(len(self._params)) if i not in set(self._ready_order)]
        limits = [self._first_bucket_bytes_cap, self._bucket_bytes_cap]
        indices, _ = _compute_bucket_assignment_by_size([self._params[i] for i in order], limits, (), order)
        self._set_buckets(self._sync_bucket_indices(indices))
        self._has_rebuilt = True
        self._ready_order, self._ready_seen = [], set()
        return True

    def _sync_bucket_indices(self, indices):
        """Rank 0's bucket assignment on every rank: [number of buckets, their lengths, the indices]."""
        if self._pg.size() == 1:
            return indices
        flat = [len(indices)] + [len(b) for b in indices] + [i for b in indices for i in b]
        t = tensor(flat, dtype=int32)
        broadcast(t, src=get_global_rank(self._pg, 0), group=self._pg)
        flat = t.tolist()
        n, lengths, rest = flat[0], flat[1:flat[0] + 1], flat[flat[0] + 1:]
        out, start = [], 0
        for length in lengths[:n]:
            out.append(rest[start:start + length])
            start += length
        return out

    # --- iteration ---------------------------------------------------------------------------
    def prepare_for_backward(self):
        """A synced forward finished: the next backward reduces (torch raises here when the previous
        iteration's reduction did not finish)."""
        if self._require_finalize:
            missing = [i for i in range(len(self._params)) if not self._ready[i]]
            self._require_finalize = False
            raise _unfinished(self._pg.rank(), missing, self._find_unused, self._static_graph)
        self._expect_hooks = True
        self._callback_queued = False
        self._ready = [False] * len(self._params)
        self._pending = [len(b.params) for b in self._buckets]
        self._futures = [None] * len(self._buckets)
        self._next_bucket = 0
        if self._static_first:
            self._first_counts = [0] * len(self._params)
        elif self._static_graph:
            self._hooks_left = list(self._hook_counts)

    def _set_static_graph(self):
        self._static_graph = True
        self._static_first = True

    def _set_forward_pass_work_handle(self, work, divide_by_initial_world_size):
        self._forward_work = None if divide_by_initial_world_size else work

    def _hook_for(self, index):
        # the parameters hold their hooks: a weak reference lets a dropped DDP's reducer go (its hooks then
        # do nothing), as torch's reducer removes its hooks when destroyed
        ref = weakref.ref(self)

        def hook(arrived):
            reducer = ref()
            if reducer is not None:
                reducer._autograd_hook(index, arrived)
        return hook

    def _autograd_hook(self, index, arrived):
        """The gradient of parameter ``index`` arrived during backward (``arrived``: autograd/hooks.py's
        ``_ArrivedGrad``); under ``no_sync`` the engine just accumulates it."""
        if self._find_unused or self._static_first:
            self._local_used[index] = True     # also under no_sync: used once before the synced step counts
        if not self._expect_hooks:
            return
        if not self._callback_queued:
            self._callback_queued = True
            _autograd_hooks.queue_callback(self._finalize_backward)
        if self._should_rebuild() and not self._static_first and index not in self._ready_seen:
            self._ready_seen.add(index)
            self._ready_order.append(index)
        if self._static_first:
            self._first_counts[index] += 1     # the first iteration is reduced at its end, all at once
            return
        if self._static_graph:
            # a parameter that a static graph reaches several times (reentrant checkpoints) is ready at
            # its last hook of the iteration, counted in the first
            self._hooks_left[index] -= 1
            if self._hooks_left[index] > 0:
                return
        self._mark_ready(index, arrived)

    def _mark_ready(self, index, arrived=None):
        """Parameter ``index``'s gradient is final: the one arriving in backward, or (``arrived`` None, at
        the end of backward) its ``.grad``. It goes into its bucket, and the buckets whose gradients are
        all in are launched."""
        if self._ready[index]:
            raise _marked_twice(index)
        self._ready[index] = True
        self._require_finalize = True
        b, k = self._slot_of[index]
        self._into_bucket(self._buckets[b], k, arrived)
        self._pending[b] -= 1
        # buckets are launched in order on every rank, whatever order their gradients arrive in
        while self._next_bucket < len(self._buckets) and self._pending[self._next_bucket] == 0:
            self._launch(self._buckets[self._next_bucket])
            self._next_bucket += 1

    def _into_bucket(self, bucket, k, arrived):
        """torch's ``mark_variable_ready_dense``: the gradient of the bucket's ``k``-th parameter into its
        slice of the bucket, divided by the world size for the built-in reduction (a comm hook gets the
        sums). A missing gradient leaves zeros. With gradient_as_bucket_view the slice's view becomes the
        ``.grad``: a gradient that is the view already (autograd accumulated into it) is divided in place;
        another one (a new ``.grad``, after ``zero_grad(set_to_none=True)``) is copied into it."""
        p = self._params[bucket.params[k]]
        divisor = None if self._comm_hook is not None else self._divide_by()
        scale = None if divisor is None else 1.0 / divisor
        bucket.allocate()
        piece = bucket.pieces[k]
        with no_grad():
            grad = p.grad if arrived is None else beside(p, arrived.value())
            if grad is None:
                piece.zero_()
            elif self._as_views and arrived is None and _aliases(grad, bucket.views[k]):
                if divisor is not None:
                    bucket.views[k].div_(divisor)
            else:
                _flatten_into(piece, [grad], [piece.numel()], scale)
                if self._as_views:
                    if arrived is None:
                        p.grad = bucket.views[k]
                    else:
                        arrived.keep(bucket.views[k]._ms)   # the engine keeps the view as .grad

    def _divide_by(self):
        if self._forward_work is not None:
            self._forward_work.wait()
            return self._forward_work.result()[0].item()
        return self._pg.size()

    def _launch(self, bucket):
        """All-reduce the bucket (or hand it to the comm hook) now, asynchronously; awaited at the end of
        backward."""
        with no_grad():
            self._futures[bucket.index] = self._run_comm_hook(self._grad_bucket(bucket, bucket.buffer))

    def _grad_bucket(self, bucket, buffer):
        params = [self._params[i] for i in bucket.params]
        if self._delayed:
            # torch's delayed reduction of a static graph's first iteration hands every bucket to the
            # hook as index 0, none of them last
            return GradBucket(0, buffer, params, False)
        return GradBucket(bucket.index, buffer, params, bucket.index == len(self._buckets) - 1)

    def _run_comm_hook(self, grad_bucket):
        if self._comm_hook is None:
            buffer = grad_bucket.buffer()
            return _future_of(all_reduce(buffer, ReduceOp.SUM, self._pg, async_op=True), buffer)
        state, hook = self._comm_hook
        fut = hook(state, grad_bucket)
        if not callable(getattr(fut, "wait", None)):
            raise RuntimeError("Expected the communication hook to return a torch.futures.Future, got "
                               f"{type(fut).__name__}")
        return fut

    def _finalize_backward(self):
        """End of the backward pass: mark the parameters that got no gradient ready, await every bucket
        and write the averages into ``.grad``."""
        self._expect_hooks = False
        count_used = self._find_unused or self._static_first
        if self._static_first:
            self._delayed = True
            try:
                for i in range(len(self._params)):
                    self._mark_ready(i)
            finally:
                self._delayed = False
            self._hook_counts = [max(c, 1) for c in self._first_counts]
            self._unused_static = [i for i, c in enumerate(self._first_counts) if c == 0]
        elif self._find_unused:
            for i in range(len(self._params)):
                if not self._ready[i]:
                    self._mark_ready(i)
        elif self._static_graph:
            for i in self._unused_static:
                if not self._ready[i]:
                    self._mark_ready(i)
        if self._next_bucket < len(self._buckets):
            return      # some gradient never came: the next forward raises, as torch's
        used = self._static_used
        if count_used:
            flags = self._get_local_used_map()
            all_reduce(flags, ReduceOp.SUM, self._pg)
            used = [bool(v) for v in flags.tolist()]
            self._local_used = [False] * len(self._params)
            if self._static_first:
                self._static_used = used
        with no_grad():
            for bucket in self._buckets:
                self._write_back(bucket, self._futures[bucket.index].wait(), used)
        self._futures = [None] * len(self._buckets)
        self._require_finalize = False
        self._static_first = False
        self._forward_work = None

    def _write_back(self, bucket, result, used):
        if isinstance(result, (list, tuple)):
            result = result[0]
        if not isinstance(result, Tensor) or result.numel() != sum(bucket.sizes):
            raise RuntimeError("The communication hook's future must hold the bucket's buffer: a Tensor of "
                               f"{sum(bucket.sizes)} elements (or a list holding one)")
        if self._as_views:
            if not _aliases(result, bucket.buffer):    # a hook's result in a tensor of its own
                _unflatten_into([bucket.buffer], result)
            for i, view in zip(bucket.params, bucket.views):
                p = self._params[i]
                if used is not None and not used[i]:
                    continue        # no rank produced a gradient: .grad is left alone, as torch does
                if p.grad is None:
                    p.grad = view
                elif not _aliases(p.grad, view):
                    raise RuntimeError(_NOT_A_BUCKET_VIEW)
            return
        grads = []
        for i in bucket.params:
            p = self._params[i]
            if used is not None and not used[i]:
                grads.append(None)      # no rank produced a gradient: .grad is left alone, as torch does
                continue
            if p.grad is None:
                p.grad = empty_like(p)
            grads.append(p.grad)
        _unflatten_into(grads, result)

    # --- comm hooks and join -----------------------------------------------------------------
    def _register_comm_hook(self, state, hook):
        if self._comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        self._comm_hook = (state, hook)

    def _get_zeros_like_grad_buckets(self):
        return [self._grad_bucket(b, zeros(sum(b.sizes), dtype=b.dtype)) for b in self._buckets]

    def _get_local_used_map(self):
        return tensor([int(u) for u in self._local_used], dtype=int32)

    def _remove_hooks(self):
        for h in self._handles:
            h.remove()
