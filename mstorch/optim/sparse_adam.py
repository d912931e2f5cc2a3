"""torch.optim.SparseAdam.

torch's SparseAdam only updates from sparse gradients and raises for a dense one. mstorch has no sparse
gradient tensors (``nn.Embedding(sparse=True)`` is refused), so every gradient it can meet is dense:
``step()`` raises torch's own error as soon as a parameter has a gradient. The constructor (its
checks and messages), ``param_groups``, ``state_dict``, hooks and ``repr`` are torch's."""
from .. import _ms_private as P
from .._tensor import Tensor
from .optimizer import Optimizer


class SparseAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        sparse_params, complex_params = [], []
        for index, group in enumerate(self.param_groups):
            for d_index, p in enumerate(group["params"]):
                if p.is_sparse:
                    sparse_params.append([index, d_index])
                if p.is_complex():
                    complex_params.append([index, d_index])
        if sparse_params:
            raise ValueError(f"Sparse params at indices {sparse_params}: SparseAdam requires dense parameter tensors")
        if complex_params:
            raise ValueError(
                f"Complex params at indices {complex_params}: SparseAdam does not support complex parameters")

    def _update(self):
        for group in self.param_groups:
            for p in group["params"]:
                if P.grad(p._ms) is not None:
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
