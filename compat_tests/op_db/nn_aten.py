"""Samples for torch's top-level ATen forms of nn.functional ops (mstorch/ops/nn_aten.py) and the in-place
top-level dropouts (mstorch/ops/nn_dropout.py)."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E

X, Y = rand(3), rand(3, seed=1, low=0.1, high=1.0)
SIGN = np.array([1., -1., 1.], dtype=np.float32)


def _top(name):
    return lambda T, *args, **kw: getattr(T, name)(*args, **kw)


def _const(a):
    """A tensor that does not require grad in the grad form (torch does not differentiate loss weights)."""
    return lambda T: T.tensor(a)


OPS = [
    OpInfo("torch.kl_div", method=False, call=_top("kl_div"), samples=[
        S(X, Y), S(X, Y, 1), S(X, Y, 2), S(X, Y, 5), S(X, rand(3, seed=2), 2, log_target=True), E(X, Y, "mean")]),
    OpInfo("torch.binary_cross_entropy_with_logits", method=False, call=_top("binary_cross_entropy_with_logits"),
           samples=[S(X, Y), S(X, Y, None, _const(rand(3, seed=3, low=0.5, high=2.0)), 2), S(X, Y, _const(Y), None, 1)]),
    OpInfo("torch.margin_ranking_loss", method=False, call=_top("margin_ranking_loss"),
           samples=[S(X, Y, SIGN), S(X, Y, SIGN, 0.5, 1), S(X, Y, SIGN, 0.1, 2)]),
    OpInfo("torch.hinge_embedding_loss", method=False, call=_top("hinge_embedding_loss"),
           samples=[S(X, SIGN), S(X, SIGN, 0.5, 1), S(X, SIGN, 1.0, 2)]),
    OpInfo("torch.cosine_embedding_loss", method=False, call=_top("cosine_embedding_loss"),
           samples=[S(rand(2, 3), rand(2, 3, seed=1), SIGN[:2]), S(rand(2, 3), rand(2, 3, seed=1), SIGN[:2], 0.2, 1)]),
    OpInfo("torch.poisson_nll_loss", method=False, call=_top("poisson_nll_loss"),
           samples=[S(X, Y, True, False, 1e-8, 1), S(Y, Y, False, True, 1e-8, 0), S(X, Y, True, True, 1e-8, 2)]),
    OpInfo("torch.triplet_margin_loss", method=False, call=_top("triplet_margin_loss"),
           samples=[S(rand(2, 3), rand(2, 3, seed=1), rand(2, 3, seed=2)),
                    S(rand(2, 3), rand(2, 3, seed=1), rand(2, 3, seed=2), 0.5, 1.0, 1e-6, True, 1)]),
    OpInfo("native_layer_norm", method=False, samples=[
        S(rand(2, 3), [3], None, None, 1e-5), S(rand(2, 3, 4), [3, 4], rand(3, 4, seed=1), rand(3, 4, seed=2), 1e-5),
        E(rand(2, 3), [4], None, None, 1e-5)]),
    OpInfo("native_group_norm", method=False, samples=[
        S(rand(2, 4, 3), None, None, 2, 4, 3, 2, 1e-5), S(rand(2, 4, 3), rand(4, seed=1), rand(4, seed=2), 2, 4, 3, 4, 1e-5)]),
    OpInfo("convolution", method=False, samples=[
        S(rand(1, 2, 5), rand(3, 2, 3, seed=1), None, [1], [0], [1], False, [0], 1),
        S(rand(1, 2, 5), rand(2, 3, 3, seed=1), rand(3, seed=2), [2], [1], [1], True, [1], 1),
        S(rand(1, 2, 3, 3), rand(4, 1, 2, 2, seed=1), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 2)]),
    OpInfo("grid_sampler", method=False, samples=[
        S(rand(1, 1, 3, 3), rand(1, 2, 2, 2, seed=1, low=-1, high=1), 0, 0, False),
        S(rand(1, 1, 3, 3), rand(1, 2, 2, 2, seed=1, low=-1, high=1), 0, 2, True)]),
    OpInfo("affine_grid_generator", method=False, samples=[S(rand(1, 2, 3), [1, 1, 2, 2], False),
                                                           S(rand(2, 2, 3), [2, 3, 4, 5], True)]),
    OpInfo("empty_permuted", method=False, grad=False, call=lambda T, *a, **k: T.empty_permuted(*a, **k).stride(),
           samples=[S((2, 3, 4), (0, 2, 1)), S((2, 3), (1, 0)), E((2, 3), (0, 0))]),
    OpInfo("norm_except_dim", method=False, samples=[S(rand(3, 4)), S(rand(3, 4), 2, 1), S(rand(3, 4), 3, -1),
                                                     S(rand(2, 3, 4), 2, 0)]),
    # the in-place top-level dropouts, off (train=False) or p=0 so no draw is compared here; draws: test_random
    OpInfo("dropout_", method=False, grad=False, call=lambda T, a, *args: T.dropout_(a.clone(), *args),
           samples=[S(X, 0.5, False), S(X, 0.0, True)]),
    OpInfo("alpha_dropout_", method=False, grad=False, call=lambda T, a, *args: T.alpha_dropout_(a.clone(), *args),
           samples=[S(X, 0.5, False), S(X, 0.0, True)]),
    OpInfo("feature_dropout_", method=False, grad=False, call=lambda T, a, *args: T.feature_dropout_(a.clone(), *args),
           samples=[S(rand(2, 3, 2), 0.5, False), S(rand(2, 3, 2), 0.0, True)]),
    OpInfo("feature_alpha_dropout_", method=False, grad=False,
           call=lambda T, a, *args: T.feature_alpha_dropout_(a.clone(), *args),
           samples=[S(rand(2, 3, 2), 0.5, False), S(rand(2, 3, 2), 0.0, True)]),
]
