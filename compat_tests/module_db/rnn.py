"""RNN, LSTM, GRU and their cells. Forward-time errors, dropout streams and LSTM state gradients are in
test_rnn.py. Gradients through time use atol 1e-5: the LSTM runs on oneDNN in both libraries except with
projections (torch composes those), where they agree to ~3e-6 absolute; the composed float32 RNN/GRU
compute tanh as 2*sigmoid(2x)-1 (MindSpore's tanh kernel is 1e-4 off), whose gradient near saturation
is a few 1e-6 off torch's (docs/known-differences.md)."""
from harness import rand
from .common import ModuleInfo, M, BadArgs


def _packed(x, lengths, batch_first=False, enforce_sorted=True):
    return lambda T: T.nn.utils.rnn.pack_padded_sequence(T.tensor(x, requires_grad=True), lengths,
                                                         batch_first=batch_first, enforce_sorted=enforce_sorted)


def _pair(h, c):
    return lambda T: (T.tensor(h), T.tensor(c))


_BAD_BASE = [BadArgs(3, 4, dropout=1.5), BadArgs(3, 4, dropout=True), BadArgs(3, 4, bias=1),
             BadArgs(3, 4, batch_first=None), BadArgs(3.0, 4), BadArgs(0, 4), BadArgs(3, 0),
             BadArgs(3, 4, num_layers=0)]

MODULES = [
    ModuleInfo("RNN", [
        M(3, 4, inputs=(rand(5, 2, 3),)),
        M(3, 4, 2, "relu", bidirectional=True, inputs=(rand(4, 2, 3), rand(4, 2, 4))),
        M(3, 4, bias=False, batch_first=True, inputs=(rand(2, 5, 3),)),
        M(3, 4, nonlinearity="relu", inputs=(rand(5, 3), rand(1, 4))),                 # unbatched
        M(3, 4, 2, dropout=0.5, train=False, inputs=(rand(3, 2, 3),)),
        M(3, 4, 2, bidirectional=True, inputs=(_packed(rand(4, 3, 3), [4, 2, 1]), rand(4, 3, 4))),
        M(3, 4, inputs=(rand(3, 0, 3),)),                                              # empty batch
        BadArgs(3, 4, 1, "foo"), BadArgs(3, 4, proj_size=2), *_BAD_BASE,
    ], atol=1e-5),
    ModuleInfo("LSTM", [
        M(3, 4, inputs=(rand(5, 2, 3),)),
        M(3, 5, 2, bidirectional=True, proj_size=2, batch_first=True,
          inputs=(rand(2, 4, 3), _pair(rand(4, 2, 2), rand(4, 2, 5)))),
        M(3, 4, bias=False, inputs=(rand(5, 3), _pair(rand(1, 4), rand(1, 4, seed=1)))),   # unbatched
        M(3, 4, 2, bidirectional=True, dropout=0.3, train=False, inputs=(rand(3, 2, 3),)),
        M(3, 4, bidirectional=True,
          inputs=(_packed(rand(4, 3, 3), [2, 3, 1, 3], batch_first=True, enforce_sorted=False),)),
        M(3, 4, proj_size=3, inputs=(_packed(rand(3, 3, 3), [3, 3, 2]),)),
        M(3, 4, dtype=lambda T: T.float64, inputs=(lambda T: T.tensor(rand(4, 2, 3), dtype=T.float64),)),
        BadArgs(3, 4, proj_size=4), BadArgs(3, 4, proj_size=-1), *_BAD_BASE,
    ], atol=1e-5),
    ModuleInfo("GRU", [
        M(3, 4, inputs=(rand(5, 2, 3),)),
        M(3, 4, 2, bidirectional=True, batch_first=True, inputs=(rand(2, 4, 3), rand(4, 2, 4))),
        M(3, 4, bias=False, inputs=(rand(5, 3),)),                                     # unbatched
        M(3, 4, bidirectional=True, inputs=(_packed(rand(3, 3, 3), [3, 1, 2], enforce_sorted=False),)),
        BadArgs(3, 4, proj_size=1), *_BAD_BASE,
    ], atol=1e-5),
    ModuleInfo("RNNCell", [
        M(3, 4, inputs=(rand(2, 3), rand(2, 4))),
        M(3, 4, bias=False, nonlinearity="relu", inputs=(rand(3),)),
        M(3, 4, inputs=(rand(2, 3),)),
    ], atol=1e-5),
    ModuleInfo("LSTMCell", [
        M(3, 4, inputs=(rand(2, 3), _pair(rand(2, 4), rand(2, 4, seed=1)))),
        M(3, 4, bias=False, inputs=(rand(3),)),
    ], atol=1e-5),
    ModuleInfo("GRUCell", [
        M(3, 4, inputs=(rand(2, 3), rand(2, 4))),
        M(3, 4, bias=False, inputs=(rand(3), rand(4))),
    ], atol=1e-5),
]
