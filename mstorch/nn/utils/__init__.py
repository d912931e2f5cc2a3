"""torch.nn.utils: gradient clipping, parameter/vector conversion, RNN packing, weight and spectral
normalisation (hook and parametrization forms)."""
from . import rnn  # noqa: F401  (first: nn.modules.rnn needs PackedSequence)
from . import parametrize, parametrizations, prune, stateless  # noqa: F401
from .init import skip_init  # noqa: F401
from .clip_grad import (clip_grads_with_norm_, get_total_norm, clip_grad_norm, clip_grad_norm_,  # noqa: F401
                        clip_grad_value_)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights  # noqa: F401,E501

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grads_with_norm_", "clip_grad_value_", "get_total_norm",
           "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights",
           "parameters_to_vector", "parametrizations", "parametrize", "prune", "remove_spectral_norm", "remove_weight_norm",
           "rnn", "spectral_norm", "vector_to_parameters", "weight_norm"]
