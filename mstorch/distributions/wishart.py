"""torch.distributions.wishart: the class exists so that libraries importing it load (peft's MonteCLoRA);
constructing one raises (docs/known-differences.md)."""
from .exp_family import ExponentialFamily

__all__ = ["Wishart"]


class Wishart(ExponentialFamily):
    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        raise NotImplementedError(
            "torch.distributions.Wishart is not provided by mstorch: its sampler draws torch's Gamma (chi-squared) "
            "stream, which mstorch.random does not reproduce")
