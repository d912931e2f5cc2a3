"""Mirrors ``torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook``: PowerSGD gradient compression
(Vogels et al., 2019) as a DDP communication hook, on the engine's ``all_reduce``.

Each bucket gradient ``M`` (an ``n x m`` matrix: a parameter's gradient viewed as ``shape[0] x rest``)
worth compressing is approximated by ``P Q^T`` of rank ``r``: ``P = M Q`` is summed over the ranks and
orthogonalised, ``Q = M^T P`` summed and averaged, and ``M`` replaced by ``P Q^T``; the other gradients
(vectors, small matrices) are averaged uncompressed. ``Q`` starts from a standard normal draw seeded from
the state's NumPy generator (the same draw as torch's, on torch's random stream) and is reused from the
previous step with ``warm_start``; with ``use_error_feedback`` what the approximation lost is added back
the next step. The first ``start_powerSGD_iter`` steps are a plain averaging all-reduce.
"""
import logging
import math
from collections import defaultdict

import numpy as np

from .... import linalg
from .... import random as _random
from ...._dtype import bfloat16, float16
from ...._functions import bmm, cat, empty, matmul, randn, stack, zeros
from ....futures import Future
from ... import distributed_c10d as c10d
from ..._reducer import _future_of
from . import default_hooks as default

__all__ = ["PowerSGDState", "powerSGD_hook", "batched_powerSGD_hook"]

logger = logging.getLogger(__name__)


def _orthogonalize(matrices, epsilon=0):
    """Orthonormalise the columns of each matrix of a batch, in place: Gram-Schmidt for rank <= 2 or
    half types (QR has no half kernels), QR otherwise (as torch chooses)."""
    if not (matrices.dim() == 3 and matrices.shape[2] <= matrices.shape[1]):
        raise AssertionError
    if matrices.shape[2] <= 2 or matrices.dtype in (float16, bfloat16):
        _orthogonalize_gram_schmidt(matrices, epsilon)
    else:
        matrices.copy_(linalg.qr(matrices)[0])


def _orthogonalize_gram_schmidt(matrices, epsilon=0):
    # column by column: normalise it (a zero column gives NaN without epsilon, as torch's), then remove
    # its component from the columns after it
    cols = [matrices[:, :, i:i + 1].clone() for i in range(matrices.shape[2])]
    for i in range(len(cols)):
        norm = linalg.vector_norm(cols[i], dim=1, keepdim=True)
        cols[i] = cols[i] / (norm if epsilon == 0 else norm + epsilon)
        for j in range(i + 1, len(cols)):
            cols[j] = cols[j] - (cols[i] * cols[j]).sum(dim=1, keepdim=True) * cols[i]
    matrices.copy_(cat(cols, dim=2))


def _should_compress(num_rows, num_cols, matrix_approximation_rank, min_compression_rate):
    """(worth compressing, elements before, elements after): compressed when ``(n + m) * r *
    min_compression_rate < n * m``."""
    uncompressed = num_rows * num_cols
    compressed = (num_rows + num_cols) * matrix_approximation_rank
    return compressed * min_compression_rate < uncompressed, uncompressed, compressed


def _report_compression_stats(bucket, state):
    if bucket.is_last() and state.iter >= state.next_stats_report:
        rate, before, after = state.compression_stats()
        logger.info("Compression stats: iter %s, total before compression %s, total after compression %s, rate %s",
                    state.iter, before, after, rate)
        state.next_stats_report = state.iter + state.compression_stats_logging_frequency


class PowerSGDState:
    """Mirrors ``PowerSGDState``: the hyperparameters and the per-bucket state (error feedback, the
    ``P``/``Q`` memories, the step count, compression statistics)."""

    __slots__ = ["process_group", "matrix_approximation_rank", "start_powerSGD_iter", "min_compression_rate",
                 "orthogonalization_epsilon", "use_error_feedback", "warm_start", "batch_tensors_with_same_shape",
                 "rng", "error_dict", "p_memory_dict", "q_memory_dict", "iter", "total_numel_before_compression",
                 "total_numel_after_compression", "compression_stats_logging_frequency", "next_stats_report"]

    def __init__(self, process_group, matrix_approximation_rank=1, start_powerSGD_iter=1_000, min_compression_rate=2,
                 use_error_feedback=True, warm_start=True, orthogonalization_epsilon=0, random_seed=0,
                 compression_stats_logging_frequency=10_000, batch_tensors_with_same_shape=False):
        if (use_error_feedback or warm_start) and start_powerSGD_iter <= 1:
            # DDP rebuilds its buckets after the first step: memories kept per bucket before would not fit
            raise ValueError("Expect `start_powerSGD_iter` > 1 if `use_error_feedback` or `warm_start` is enabled, "
                             "because PowerSGD can only be applied after the first two iterations in DDP.")
        self.process_group = process_group
        self.matrix_approximation_rank = matrix_approximation_rank
        self.start_powerSGD_iter = start_powerSGD_iter
        self.min_compression_rate = min_compression_rate
        self.use_error_feedback = use_error_feedback
        self.warm_start = warm_start
        self.orthogonalization_epsilon = orthogonalization_epsilon
        # torch draws the seeds of Q's normal draws from NumPy's generator: so does this one, so both
        # libraries start from the same Q
        self.rng = np.random.RandomState(random_seed)
        self.error_dict, self.p_memory_dict, self.q_memory_dict = {}, {}, {}
        self.iter = 0
        self.total_numel_before_compression = self.total_numel_after_compression = 0
        self.compression_stats_logging_frequency = max(1, compression_stats_logging_frequency)
        self.next_stats_report = 0
        self.batch_tensors_with_same_shape = batch_tensors_with_same_shape

    def __getstate__(self):
        logger.warning("NOTE: Process group is not serializable and excluded from a saved state.")
        return {slot: getattr(self, slot) for slot in self.__slots__ if slot != "process_group"}

    def __setstate__(self, state):
        self.process_group = c10d.group.WORLD
        logger.warning("NOTE: Process group will be set to a default group (i.e. the world size).                "
                       "If a different group is desired, please set `self.process_group` after PowerSGD state is "
                       "loaded.")
        for slot, value in state.items():
            setattr(self, slot, value)

    def maybe_increase_iter(self, bucket):
        """A step ends with its last bucket."""
        if bucket.is_last():
            self.iter += 1
        if self.iter == self.start_powerSGD_iter:
            logger.info("Start to apply PowerSGD after %s iterations.", self.iter)

    def compression_stats(self):
        """(compression rate, elements before compression, elements after), over all steps so far."""
        after = self.total_numel_after_compression
        rate = self.total_numel_before_compression / after if after > 0 else 0
        return rate, self.total_numel_before_compression, after


def _group_and_warm_up(state, bucket):
    """The state's group (the world's by default), and the averaging all-reduce's future while the
    step is still in the warm-up (None after it)."""
    group = state.process_group if state.process_group is not None else c10d.group.WORLD
    if state.iter < state.start_powerSGD_iter:
        state.maybe_increase_iter(bucket)
        return group, default._allreduce_fut(group, bucket.buffer())
    return group, None


def _allreduce(tensor, group):
    """A future of ``tensor`` summed over ``group`` in place (an empty tensor has nothing to send)."""
    if tensor.numel() == 0:
        fut = Future()
        fut.set_result([tensor])
        return fut
    return _future_of(c10d.all_reduce(tensor, group=group, async_op=True), tensor)


def _error_feedback(state, bucket_index, tensor):
    """Add the error kept from the previous step (or start it at zeros); a copy of the corrected input."""
    if bucket_index in state.error_dict:
        tensor.add_(state.error_dict[bucket_index])
    else:
        logger.info("A zero tensor of length %s that represents local error is created.", tensor.shape[0])
        state.error_dict[bucket_index] = zeros(tensor.shape[0], dtype=tensor.dtype)
    return tensor.detach().clone()


def _random_fill(tensors, rng):
    """Each tensor filled in turn from standard normal draws on one stream seeded from ``rng`` (one seed
    per call, as torch's), leaving the global stream alone."""
    with _random.fork_rng(devices=[]):
        _random.manual_seed(rng.randint(1_000_000_000))
        for t in tensors:
            t.copy_(randn(*t.shape, dtype=t.dtype))


def powerSGD_hook(state, bucket):
    """Mirrors ``powerSGD_hook``: compress each bucket gradient worth it to rank
    ``state.matrix_approximation_rank`` (per gradient, batched by shape with
    ``batch_tensors_with_same_shape``), average the rest; a future of the bucket's buffer."""
    group, warm_up = _group_and_warm_up(state, bucket)
    if warm_up is not None:
        return warm_up
    world_size, input_tensor = group.size(), bucket.buffer()

    dtype, bucket_index = input_tensor.dtype, bucket.index()
    input_copy = _error_feedback(state, bucket_index, input_tensor) if state.use_error_feedback else None

    # which gradients to compress: matrices where the rank-r factors are small enough
    to_compress, uncompressed = [], []
    p_size = q_size = 0
    for grad in bucket.gradients():
        matrix = grad.view(grad.shape[0], -1)
        n, m = matrix.shape
        rank = min(n, m, state.matrix_approximation_rank)
        worth, before, after = _should_compress(n, m, rank, state.min_compression_rate)
        state.total_numel_before_compression += before
        if worth:
            to_compress.append(matrix)
            p_size, q_size = p_size + n * rank, q_size + m * rank
            state.total_numel_after_compression += after
        else:
            uncompressed.append(grad)
            state.total_numel_after_compression += before
    _report_compression_stats(bucket, state)
    uncompressed_memory = (cat([g.view(-1) for g in uncompressed]) if uncompressed else empty(0, dtype=dtype))

    fresh_q = not state.warm_start or bucket_index not in state.p_memory_dict
    if fresh_q:
        if state.warm_start:
            logger.info("Allocating contiguous memory of length %s for Ps, and of length %s for Qs, respectively.",
                        p_size, q_size)
        state.p_memory_dict[bucket_index] = empty(p_size, dtype=dtype)
        state.q_memory_dict[bucket_index] = empty(q_size, dtype=dtype)

    by_shape = defaultdict(list)
    for matrix in to_compress:
        by_shape[tuple(matrix.shape)].append(matrix)
    batches = []      # (batch of matrices, views of them to write back, or None when the batch is a view)
    for matrices in by_shape.values():
        if state.batch_tensors_with_same_shape and len(matrices) > 1:
            batches.append((stack(matrices), matrices))
        else:
            batches.extend((matrix.unsqueeze(0), None) for matrix in matrices)
    # P and Q of each batch: views of the bucket's contiguous memories (one all-reduce each)
    ps, qs = [], []
    p_at = q_at = 0
    for batch, _ in batches:
        b, n, m = batch.shape
        rank = min(n, m, state.matrix_approximation_rank)
        ps.append(state.p_memory_dict[bucket_index][p_at:p_at + b * n * rank].view(b, n, rank))
        qs.append(state.q_memory_dict[bucket_index][q_at:q_at + b * m * rank].view(b, m, rank))
        p_at, q_at = p_at + b * n * rank, q_at + b * m * rank

    if fresh_q:
        _random_fill(qs, state.rng)
    for q in qs:      # a fresh draw, or (warm start) last step's Q, orthogonalised
        _orthogonalize(q, state.orthogonalization_epsilon)
    for (batch, _), q, p in zip(batches, qs, ps):
        p.copy_(bmm(batch, q))

    def uncompressed_done_then_allreduce_ps(fut):
        memory = fut.value()[0].div_(world_size)
        at = 0
        for grad in uncompressed:
            grad.copy_(memory[at:at + grad.numel()].view_as(grad))
            at += grad.numel()
        return _allreduce(state.p_memory_dict[bucket_index], group).wait()[0]

    def compute_qs(fut):
        state.p_memory_dict[bucket_index] = fut.value()
        for p in ps:
            _orthogonalize(p, state.orthogonalization_epsilon)
        for (batch, _), p, q in zip(batches, ps, qs):
            q.copy_(bmm(batch.transpose(1, 2), p))
        return _allreduce(state.q_memory_dict[bucket_index], group).wait()[0]

    def decompress(fut):
        state.q_memory_dict[bucket_index] = fut.value().div_(world_size)
        for (batch, originals), p, q in zip(batches, ps, qs):
            batch.copy_(bmm(p, q.transpose(1, 2)))
            if originals is not None:     # a stacked batch is a copy: its matrices go back to the bucket
                for i, original in enumerate(originals):
                    original.copy_(batch[i])
        if state.use_error_feedback:
            state.error_dict[bucket_index] = input_copy - input_tensor
        if not state.warm_start:
            state.p_memory_dict.clear()
            state.q_memory_dict.clear()
        state.maybe_increase_iter(bucket)
        return input_tensor

    return (_allreduce(uncompressed_memory, group).then(uncompressed_done_then_allreduce_ps).then(compute_qs)
            .then(decompress))


def batched_powerSGD_hook(state, bucket):
    """Mirrors ``batched_powerSGD_hook``: the whole bucket, zero-padded to a square matrix, compressed to
    rank ``state.matrix_approximation_rank`` at once (no per-gradient choice); a future of the buffer.
    As torch 2.13's, it averages during the warm-up and raises AssertionError at the first compressed step."""
    group, warm_up = _group_and_warm_up(state, bucket)
    if warm_up is not None:
        return warm_up
    world_size, input_tensor = group.size(), bucket.buffer()

    total = input_tensor.shape[0]
    side = math.ceil(math.sqrt(total))
    state.total_numel_before_compression += total
    state.total_numel_after_compression += side * state.matrix_approximation_rank * 2
    # torch resizes the bucket's buffer to the padded square; here the square is a padded copy of it,
    # written back at the end (the buffer may hold the parameters' .grad views)
    padded = zeros(side * side, dtype=input_tensor.dtype)
    padded[:total].copy_(input_tensor)
    _report_compression_stats(bucket, state)
    bucket_index = bucket.index()
    input_copy = _error_feedback(state, bucket_index, padded) if state.use_error_feedback else None
    matrix = padded.view(side, side)
    if not state.warm_start or bucket_index not in state.p_memory_dict:
        if state.warm_start:
            logger.info("Initializing low-rank tensors P and Q, each of which has a shape of %s x %s.", side,
                        state.matrix_approximation_rank)
        state.p_memory_dict[bucket_index] = empty(side, state.matrix_approximation_rank, dtype=padded.dtype)
        q = empty(side, state.matrix_approximation_rank, dtype=padded.dtype)
        _random_fill([q], state.rng)
        state.q_memory_dict[bucket_index] = q
    # torch 2.13 hands the 2-D Q to the batch orthogonalisation, which refuses it (AssertionError) once
    # the warm-up is over: kept, so this hook fails where torch's does
    _orthogonalize(state.q_memory_dict[bucket_index])
    state.p_memory_dict[bucket_index].copy_(matmul(matrix, state.q_memory_dict[bucket_index]))

    def compute_q(fut):
        state.p_memory_dict[bucket_index] = fut.value()[0]
        _orthogonalize(state.p_memory_dict[bucket_index])
        state.q_memory_dict[bucket_index].copy_(matmul(matrix.t(), state.p_memory_dict[bucket_index]))
        return _allreduce(state.q_memory_dict[bucket_index], group).wait()[0]

    def decompress(fut):
        state.q_memory_dict[bucket_index] = fut.value().div_(world_size)
        matrix.copy_(matmul(state.p_memory_dict[bucket_index], state.q_memory_dict[bucket_index].t()))
        if state.use_error_feedback:
            state.error_dict[bucket_index] = input_copy - padded
        if not state.warm_start:
            state.p_memory_dict.clear()
            state.q_memory_dict.clear()
        input_tensor.copy_(padded[:total])
        state.maybe_increase_iter(bucket)
        return input_tensor

    return _allreduce(state.p_memory_dict[bucket_index], group).then(compute_q).then(decompress)
