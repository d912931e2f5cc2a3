"""torch.optim.Adafactor: torch's single-tensor update (factored second moments for matrices, a full one for
vectors), run as in-place tensor ops in torch's order. Its norms and the row x column product are reductions,
which the host path of optim/_fast.py does not have; their roundings are MindSpore's (within an ulp or two of
torch's per step)."""
from .._finfo import finfo
from .._functions import norm, zeros, zeros_like
from .._tensor import Tensor
from ._shared import scalar_state, upgrade_scalar_states
from .optimizer import Optimizer


class Adafactor(Optimizer):
    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)

    _group_flags = dict(foreach=None)

    def __setstate__(self, state):
        super().__setstate__(state)
        upgrade_scalar_states(self, ("step",))

    def _init_state(self, p, state):
        state["step"] = scalar_state(0.0)
        if p.grad.dim() > 1:
            state["row_var"] = zeros(tuple(p.grad.shape[:-1]) + (1,), dtype=p.grad.dtype)
            state["col_var"] = zeros(tuple(p.grad.shape[:-2]) + (1, p.grad.shape[-1]), dtype=p.grad.dtype)
        else:
            state["variance"] = zeros_like(p.grad)

    def _update(self):
        for group in self.param_groups:
            lr = float(group["lr"])
            eps1, eps2 = group["eps"]
            d, wd, beta2_decay, maximize = group["d"], group["weight_decay"], group["beta2_decay"], group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.is_complex():
                    raise RuntimeError("Adafactor does not support complex parameters")
                if getattr(p.grad, "is_sparse", False):
                    raise RuntimeError("Adafactor does not support sparse gradients")
                state = self.state[p]
                if len(state) == 0:
                    self._init_state(p, state)
                grad = -p.grad if maximize else p.grad
                if eps1 is None:
                    eps1 = finfo(p.dtype).eps
                state["step"].add_(1)
                step = state["step"].item()
                one_minus_beta2 = step ** beta2_decay
                rho = min(lr, 1 / (step ** 0.5))
                alpha = max(eps2, norm(p, 2).item() / (p.numel() ** 0.5)) * rho
                if wd != 0:
                    p.mul_(1 - lr * wd)
                if grad.dim() > 1:
                    row_var, col_var = state["row_var"], state["col_var"]
                    row_mean = norm(grad, dim=-1, keepdim=True).square_().div_(grad.size(-1))
                    row_var.lerp_(row_mean, one_minus_beta2)
                    col_mean = norm(grad, dim=-2, keepdim=True).square_().div_(grad.size(-2))
                    col_var.lerp_(col_mean, one_minus_beta2)
                    estimate = row_var @ col_var
                    estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
                else:
                    variance = state["variance"]
                    variance.lerp_(grad * grad, one_minus_beta2)
                    estimate = variance.clone()
                update = estimate.clamp_(min=eps1 * eps1).rsqrt_()
                update.mul_(grad)
                denom = max(1.0, norm(update, 2).item() / ((update.numel() ** 0.5) * d))
                p.add_(update, alpha=-alpha / denom)


