"""Samples for torch's top-level ATen forms of nn.functional ops (mstorch/ops/nn_aten.py), the functional
recurrent layers (mstorch/ops/nn_rnn.py), the in-place top-level dropouts (mstorch/ops/nn_dropout.py) and the
top-level forms of in-place methods (mstorch/ops/inplace.py)."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E, EType

X, Y = rand(3), rand(3, seed=1, low=0.1, high=1.0)
SIGN = np.array([1., -1., 1.], dtype=np.float32)


def _top(name):
    return lambda T, *args, **kw: getattr(T, name)(*args, **kw)


def _idx(*values, dtype=np.int64):
    return np.array(values, dtype)


def _rnn_params(gates, layers=1, directions=1, bias=True, proj=0, hidden=4, inputs=3):
    """torch's flat parameter list: per layer and direction w_ih, w_hh[, b_ih, b_hh][, w_hr]."""
    out, seed = [], 10
    for layer in range(layers):
        for _ in range(directions):
            width = inputs if layer == 0 else (proj or hidden) * directions
            shapes = [(gates * hidden, width), (gates * hidden, proj or hidden)]
            shapes += [(gates * hidden,), (gates * hidden,)] if bias else []
            shapes += [(proj, hidden)] if proj else []
            for shape in shapes:
                out.append(rand(*shape, seed=seed, low=-0.5, high=0.5))
                seed += 1
    return out


def _clone_first(name):
    """An in-place top-level form on a copy of its first argument (the sample's leaf stays unchanged)."""
    return lambda T, a, *args, **kw: getattr(T, name)(a.clone(), *args, **kw)


_W = rand(6, 3, seed=4)
_BAG_I, _BAG_O = _idx(1, 2, 4, 5, 4, 3), _idx(0, 2, 2, 5)
_SEQ, _H, _C = rand(5, 2, 3, seed=5), rand(1, 2, 4, seed=6), rand(1, 2, 4, seed=7)
_LP = np.log(np.random.RandomState(8).dirichlet(np.ones(4), size=(6, 2)).astype(np.float32))
_BN = rand(4, 3, 2, seed=9)


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
    OpInfo("grid_sampler_2d", method=False, samples=[
        S(rand(1, 1, 3, 3), rand(1, 2, 2, 2, seed=1, low=-1, high=1), 0, 0, False),
        S(rand(1, 2, 3, 3), rand(1, 2, 2, 2, seed=1, low=-1, high=1), 1, 1, True),
        E(rand(1, 1, 3, 3, 3), rand(1, 2, 2, 2, 3, seed=1), 0, 0, False)]),
    OpInfo("grid_sampler_3d", method=False, samples=[
        S(rand(1, 1, 3, 3, 3), rand(1, 2, 2, 2, 3, seed=1, low=-1, high=1), 0, 0, False),
        E(rand(1, 1, 3, 3), rand(1, 2, 2, 2, seed=1), 0, 0, False)]),
    OpInfo("torch.ctc_loss", method=False, call=_top("ctc_loss"), samples=[
        S(_LP, _idx(1, 2, 3, 1), (6, 5), (2, 2)), S(_LP, _idx(1, 2, 3, 1), (6, 5), (2, 2), 0, 1),
        S(_LP, _idx(1, 2, 3, 1), (6, 5), (2, 2), 0, 2, True), S(_LP, _idx(1, 2, 3, 1), [6, 5], [2, 2], 3, 0)]),
    # (output, offset2bag, bag_size, max_indices): torch's CPU kernel's four results
    OpInfo("torch.embedding_bag", method=False, call=_top("embedding_bag"), samples=[
        S(_W, _BAG_I, _BAG_O), S(_W, _BAG_I, _BAG_O, False, 1), S(_W, _BAG_I, _BAG_O, False, 2),
        S(_W.astype(np.float64), _BAG_I, _BAG_O, False, 0), S(_W, _BAG_I, _BAG_O, False, 0, False, rand(6, seed=2)),
        S(_W, _BAG_I, _BAG_O, False, 0, False, None, True, -1), S(_W, _BAG_I, _BAG_O, False, 1, False, None, True),
        S(_W, _BAG_I, _BAG_O, False, 2, False, None, True, 4), S(_W, _BAG_I, _BAG_O, False, 1, False, None, False, 5),
        S(_W, _idx(1, 2, 4, 5, dtype=np.int32), _idx(0, 1, dtype=np.int32), True, 0),
        E(_W, _BAG_I, _BAG_O, False, 3), E(_W, _idx(1, 9), _idx(0), False, 0)]),
    # a tie in max mode: max_indices names the first row (values only: mstorch's max shares a tie's gradient)
    OpInfo("torch.embedding_bag", method=False, call=_top("embedding_bag"), grad=False,
           samples=[S(np.array([[1., 5.], [3., 5.], [0., 0.]], np.float32), _idx(0, 1, 2), _idx(0), False, 2)]),
    OpInfo("embedding_renorm_", method=False, grad=False, call=_clone_first("embedding_renorm_"), samples=[
        S(_W, _idx(0, 2, 2), 1.0, 2.0), S(_W, _idx(1, 3, 5), 0.5, 1.0), S(_W, _idx(4,), 0.1, float("inf")),
        S(_W, _idx(0, 1, 2, 3, 4, 5), 100.0, 2.0)]),
    OpInfo("native_batch_norm", method=False, samples=[
        S(_BN, None, None, None, None, True, 0.1, 1e-5),
        S(_BN, rand(3, seed=1), rand(3, seed=2), lambda T: T.zeros(3), lambda T: T.ones(3), True, 0.1, 1e-5),
        S(_BN, rand(3, seed=1), rand(3, seed=2), lambda T: T.zeros(3), lambda T: T.ones(3) * 2, False, 0.1, 1e-5)]),
    # (evaluation without running statistics: torch's CPU kernel crashes the process, so no sample)
    # (the running statistics the training form updates)
    OpInfo("native_batch_norm", method=False, grad=False,
           call=lambda T, x, m, v, *a: (T.native_batch_norm(x, None, None, m, v, *a), m, v),
           samples=[S(_BN, lambda T: T.zeros(3), lambda T: T.ones(3), True, 0.3, 1e-3)]),
    # off (train=False) or p=0 here; the draws (torch's dropout stream) are compared in test_random
    OpInfo("native_dropout", method=False, samples=[S(X, 0.5, False), S(X, 0.0, True), S(X, 0.0, None),
                                                     S(rand(2, 3), 1.0, True)]),
    OpInfo("rnn_tanh", method=False, samples=[
        S(_SEQ, _H, _rnn_params(1), True, 1, 0.0, True, False, False),
        S(_SEQ.transpose(1, 0, 2).copy(), rand(4, 2, 4, seed=3), _rnn_params(1, 2, 2, False), False, 2, 0.0, False,
          True, True)]),
    OpInfo("rnn_relu", method=False, samples=[
        S(_SEQ, _H, _rnn_params(1), True, 1, 0.0, True, False, False),
        S(_SEQ[:, 0], _idx(2, 2, 1), _H, _rnn_params(1), True, 1, 0.0, True, False)]),
    OpInfo("gru", method=False, samples=[
        S(_SEQ, rand(2, 2, 4, seed=3), _rnn_params(3, 1, 2), True, 1, 0.0, True, True, False),
        S(_SEQ[:, 0], _idx(2, 2, 1), _H, _rnn_params(3, bias=False), False, 1, 0.0, True, False)]),
    OpInfo("lstm", method=False, samples=[
        S(_SEQ, [_H, _C], _rnn_params(4), True, 1, 0.0, True, False, False),
        S(_SEQ, [_H[..., :2], _C], _rnn_params(4, proj=2), True, 1, 0.0, True, False, False),
        S(_SEQ[:, 0], _idx(2, 2, 1), [_H, _C], _rnn_params(4), True, 1, 0.0, True, False),
        S(_SEQ.astype(np.float64), [rand(2, 2, 4, seed=6, dtype="float64"), rand(2, 2, 4, seed=7, dtype="float64")],
          [p.astype(np.float64) for p in _rnn_params(4, 2)], True, 2, 0.0, True, False, False)]),
    # the top-level forms of in-place methods, on a copy of the receiver
    OpInfo("index_put_", method=False, call=_clone_first("index_put_"), samples=[
        S(rand(3, 2), lambda T: [T.tensor([2, 0])], rand(2, 2, seed=1)),
        S(rand(3), lambda T: (T.tensor([0, 0]),), rand(2, seed=1), True), E(rand(3), lambda T: (T.tensor([5]),), rand(1))]),
    OpInfo("addmv_", method=False, call=_clone_first("addmv_"), samples=[
        S(rand(2), rand(2, 3, seed=1), rand(3, seed=2)), S(rand(2), rand(2, 3, seed=1), rand(3, seed=2), beta=0.5, alpha=2),
        # (mstorch's addmv_ reports the broadcast of input, torch the three sizes)
        EType(rand(3), rand(2, 3, seed=1), rand(3, seed=2))]),
    # SyncBatchNorm's building blocks: torch's CPU build refuses them (CUDA kernels only); compared with torch's
    # batch norm of the whole batch in test_aten_forms.py
    *[OpInfo(name, samples=[S(_BN, 1e-5)], method=False, skip="torch runs it on CUDA only: test_aten_forms.py")
      for name in ("batch_norm_stats", "batch_norm_elemt", "batch_norm_gather_stats",
                   "batch_norm_gather_stats_with_counts", "batch_norm_backward_reduce", "batch_norm_backward_elemt")],
    OpInfo("batch_norm_update_stats", method=False, grad=False,
           call=lambda T, x, m, v, mom: (T.batch_norm_update_stats(x, m, v, mom), m, v),
           samples=[S(_BN, lambda T: T.zeros(3), lambda T: T.ones(3), 0.1), S(_BN[:1], None, None, 0.3),
                    S(_BN.astype(np.float64), lambda T: T.zeros(3, dtype=T.float64), None, 0.5)]),
]
