"""torch.distributions.relaxed_bernoulli: the class exists so that libraries importing it load (peft's poly
router); constructing one raises (docs/known-differences.md)."""
from .distribution import Distribution

__all__ = ["RelaxedBernoulli", "LogitRelaxedBernoulli"]


def _unsupported(name):
    return NotImplementedError(
        f"torch.distributions.{name} is not provided by mstorch: it is built on torch's distribution transforms "
        "(TransformedDistribution, SigmoidTransform), which mstorch.distributions does not have")


class LogitRelaxedBernoulli(Distribution):
    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        raise _unsupported("LogitRelaxedBernoulli")


class RelaxedBernoulli(Distribution):
    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        raise _unsupported("RelaxedBernoulli")
