"""torch.nn.LinearCrossEntropyOptions: how F.linear_cross_entropy chunks the batch (torch 2.13,
torch/nn/modules/linear_cross_entropy_options.py). The ``"auto"`` picks and the chunk-size heuristic are
torch's, so a given options object cuts the batch into the same chunks on both."""
import dataclasses
from typing import NamedTuple

from ... import _dtype as D

__all__ = ["LinearCrossEntropyOptions"]


class _AutoDefault(NamedTuple):
    acc_policy: str
    chunking_method: str


# torch's per-(device type, input dtype) picks for "auto"; other pairs take _AUTO_FALLBACK
_AUTO_DEFAULTS = {
    ("cuda", D.bfloat16): _AutoDefault("compact", "aspect_ratio:2"),
    ("cuda", D.float16): _AutoDefault("compact", "aspect_ratio:2"),
    ("cpu", D.bfloat16): _AutoDefault("accurate", "aspect_ratio"),
    ("cpu", D.float16): _AutoDefault("accurate", "aspect_ratio"),
}
_AUTO_FALLBACK = _AutoDefault("compact", "aspect_ratio:2")
_ACC_POLICIES = ("auto", "accurate", "balanced", "compact")
_ACC_DTYPES = (D.float16, D.bfloat16, D.float32, D.float64)


def _ceil_div(a, b):
    return -(-a // b)


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """torch.nn.LinearCrossEntropyOptions. mstorch's chunked loop accumulates in ``acc_dtype`` throughout
    (torch's "accurate" layout) whatever ``acc_policy`` says: the policies only trade memory for speed in
    torch's CUDA kernels, the loss and gradients they give are the same up to rounding."""

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: D.dtype | None = None

    def __post_init__(self):
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            factor = factor if sep else "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None
                or (isinstance(self.batch_chunk_size, int) and self.batch_chunk_size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {self.batch_chunk_size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in _ACC_DTYPES:
            raise ValueError("acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, "
                             f"torch.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op pick "
                             "automatically.")

    @staticmethod
    def _resolve_auto_acc_dtype(dtype, device):
        # half inputs accumulate in float32 where torch has a mixed-precision matmul (CPU, recent CUDA)
        if device is None or dtype not in (D.float16, D.bfloat16):
            return None
        return D.float32 if device.type in ("cpu", "cuda") else None

    @staticmethod
    def _compute_batch_chunk_size(num_batches, in_features, num_classes, method):
        # "aspect_ratio[:N]": a chunk's (rows, num_classes) logits about as large as the whole (N, in_features)
        # input, rounded up to a power of two, then divided by N
        factor = int(method.partition(":")[2] or 1)
        target = _ceil_div(num_batches, _ceil_div(num_classes, in_features))
        return min((1 << (target - 1).bit_length()) // factor, num_batches)

    def _adjust(self, num_batches, in_features, num_classes, dtype, device=None):
        """The options of one call, "auto" and ``None`` resolved (torch's private method of that name)."""
        acc_policy, method = self.acc_policy, self.chunking_method
        if method == "auto" and self.batch_chunk_size is not None:
            method = None   # an explicit chunk size wins over the automatic heuristic
        if "auto" in (acc_policy, method):
            pick = _AUTO_DEFAULTS.get((device.type, dtype), _AUTO_FALLBACK) if device is not None \
                else _AUTO_FALLBACK
            acc_policy = pick.acc_policy if acc_policy == "auto" else acc_policy
            method = pick.chunking_method if method == "auto" else method
        size = num_batches if self.batch_chunk_size is None else min(self.batch_chunk_size, num_batches)
        if method is not None:
            size = self._compute_batch_chunk_size(num_batches, in_features, num_classes, method)
            if self.batch_chunk_size is not None and self.batch_chunk_size != size:
                raise ValueError(f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method ('{method}') "
                                 f"give different chunk sizes ({self.batch_chunk_size} vs {size}); pass only one.")
        acc_dtype = self.acc_dtype
        if acc_dtype is None:
            auto = self._resolve_auto_acc_dtype(dtype, device) if self.acc_policy == "auto" else None
            acc_dtype = dtype if auto is None else auto
        return dataclasses.replace(self, acc_policy=acc_policy, chunking_method=method,
                                   batch_chunk_size=max(1, size), acc_dtype=acc_dtype)
