"""MultiheadAttention and the Transformer family. Train-mode configs use dropout=0 (dropout streams,
forward-time errors and torch's inference fast paths are in test_transformer.py); eval configs keep the
default dropout. Attention tolerances as in op_db/nn_attention.py (MindSpore's CPU exp)."""
import numpy as np

from harness import rand
from .common import ModuleInfo, M, BadArgs

TOL = dict(rtol=1e-5, atol=1e-5)


class _Same:
    """One tensor passed as several consecutive inputs (self-attention: query is key is value)."""

    def __init__(self, x, uses=3):
        self.x, self.uses, self.n, self.t = x, uses, 0, None

    def __call__(self, T):
        if self.n % self.uses == 0:
            self.t = T.tensor(self.x, requires_grad=True)
        self.n += 1
        return self.t


def _t(x):
    return lambda T: T.tensor(x)


def _layer(cls, *args, **kw):
    return lambda T: getattr(T.nn, cls)(*args, **kw)


_kpm = np.array([[False, False, True, False, True], [False, True, False, False, False]])
_kpm4 = _kpm[:, :4]
_causal4 = np.triu(np.full((4, 4), -np.inf, dtype=np.float32), 1)
_bool4 = np.triu(np.ones((4, 4), dtype=bool), 1)

MODULES = [
    ModuleInfo("MultiheadAttention", [
        M(6, 2, inputs=(rand(4, 2, 6), rand(5, 2, 6, seed=1), rand(5, 2, 6, seed=2))),
        M(6, 2, batch_first=True, inputs=(_Same(rand(2, 4, 6)),) * 3 + (_t(_kpm4), False)),
        M(6, 3, kdim=4, vdim=3, inputs=(rand(4, 2, 6), rand(5, 2, 4), rand(5, 2, 3), _t(_kpm), True,
                                        _t(rand(4, 5, seed=3)))),
        M(6, 2, bias=False, add_bias_kv=True, add_zero_attn=True,
          inputs=(rand(4, 2, 6), rand(5, 2, 6, seed=1), rand(5, 2, 6, seed=2), None, True,
                  _t(rand(4, 5, dtype=bool) & np.array([False, True, True, True, True])), False)),
        M(6, 2, inputs=(rand(4, 6), rand(5, 6, seed=1), rand(5, 6, seed=2), _t(_kpm[0]))),          # unbatched
        M(6, 2, inputs=(_Same(rand(4, 2, 6)),) * 3 + (None, False, _t(_causal4), True, True)),      # is_causal
        M(6, 2, inputs=(rand(4, 2, 6), rand(5, 2, 6, seed=1), rand(5, 2, 6, seed=2), None, True,
                        _t(rand(4, 4, 5, seed=4)), False)),                                           # 3-D mask
        M(6, 2, dropout=0.5, batch_first=True, train=False, inputs=(_Same(rand(2, 4, 6)),) * 3),
        BadArgs(0, 2), BadArgs(6, 0), BadArgs(6, 4),
    ], **TOL),
    ModuleInfo("TransformerEncoderLayer", [
        M(8, 2, 16, dropout=0.0, inputs=(rand(5, 2, 8),)),
        M(8, 2, 16, dropout=0.0, activation="gelu", norm_first=True, batch_first=True,
          inputs=(rand(2, 4, 8), _t(_causal4), _t(_kpm4), True)),
        M(8, 2, 16, train=False, batch_first=True, inputs=(rand(2, 4, 8), None, _t(_kpm4))),
        M(8, 4, 6, dropout=0.0, activation=lambda T: T.nn.Tanh(), bias=False, layer_norm_eps=1e-3,
          inputs=(rand(4, 8), _t(_bool4))),                                                           # unbatched
        BadArgs(8, 2, 16, activation="swish"), BadArgs(8, 3),
    ], **TOL),
    ModuleInfo("TransformerDecoderLayer", [
        M(8, 2, 16, dropout=0.0, inputs=(rand(4, 2, 8), rand(5, 2, 8, seed=1))),
        M(8, 2, 16, dropout=0.0, norm_first=True, batch_first=True, activation="gelu",
          inputs=(rand(2, 4, 8), rand(2, 5, 8, seed=1), _t(_causal4), None, _t(_kpm4), _t(_kpm), True)),
        M(8, 2, 16, train=False, inputs=(rand(4, 2, 8), rand(5, 2, 8, seed=1), None, _t(rand(4, 5, seed=2)))),
        BadArgs(8, 2, 16, activation="tanh"),
    ], **TOL),
    ModuleInfo("TransformerEncoder", [
        M(_layer("TransformerEncoderLayer", 8, 2, 16, dropout=0.0), 2, inputs=(rand(5, 2, 8),)),
        M(_layer("TransformerEncoderLayer", 8, 2, 16, dropout=0.0, batch_first=True), 2,
          norm=lambda T: T.nn.LayerNorm(8), inputs=(rand(2, 4, 8), _t(_causal4), _t(_kpm4))),
        M(_layer("TransformerEncoderLayer", 8, 2, 16, batch_first=True), 2, train=False,
          inputs=(rand(2, 4, 8), None, _t(_kpm4))),
        M(_layer("TransformerEncoderLayer", 8, 2, 16, dropout=0.0), 1, enable_nested_tensor=False,
          inputs=(rand(4, 2, 8), _t(_causal4), None, True)),
    ], **TOL),
    ModuleInfo("TransformerDecoder", [
        M(_layer("TransformerDecoderLayer", 8, 2, 16, dropout=0.0), 2, norm=lambda T: T.nn.LayerNorm(8),
          inputs=(rand(4, 2, 8), rand(5, 2, 8, seed=1), _t(_causal4), None, _t(_kpm4), _t(_kpm))),
        M(_layer("TransformerDecoderLayer", 8, 2, 16, batch_first=True), 1, train=False,
          inputs=(rand(2, 4, 8), rand(2, 5, 8, seed=1))),
    ], **TOL),
    ModuleInfo("Transformer", [
        M(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=2, dim_feedforward=16, dropout=0.0,
          inputs=(rand(5, 2, 8), rand(4, 2, 8, seed=1), None, _t(_causal4), None, _t(_kpm))),
        M(8, 2, 1, 1, 16, batch_first=True, norm_first=True, activation="gelu", train=False,
          inputs=(rand(2, 5, 8), rand(2, 4, 8, seed=1))),
        M(8, 2, 1, 1, 16, 0.0, bias=False, inputs=(rand(5, 8), rand(4, 8, seed=1))),                # unbatched
    ], **TOL),
]
