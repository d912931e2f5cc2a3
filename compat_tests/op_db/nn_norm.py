"""torch.nn.functional normalization. Calls that update running statistics return them with the output,
so the in-place buffer updates are compared too; ``_steps`` trains BatchNorm/InstanceNorm modules for a
few steps and compares the buffers' history."""
import numpy as np

from harness import rand
from .common import OpInfo, S, E

TOL = dict(rtol=1e-5, atol=1e-5)


def _stats(T, c, dt="float32"):
    return T.tensor(rand(c, seed=4, low=-0.5, high=0.5).astype(dt)), T.tensor(rand(c, seed=5, low=0.5, high=2).astype(dt))


def bn_call(T, x, *args, **kw):
    rm, rv = _stats(T, x.shape[1] if x.dim() > 1 else 3, str(x.dtype).split(".")[1])
    out = T.nn.functional.batch_norm(x, rm, rv, *args, **kw)
    return out, rm, rv


def bn_no_stats(T, x, *args, **kw):
    return T.nn.functional.batch_norm(x, None, None, *args, **kw)


def in_call(T, x, *args, **kw):
    rm, rv = _stats(T, x.shape[1])
    return T.nn.functional.instance_norm(x, rm, rv, *args, **kw), rm, rv


def _steps(name, *args, n=3, **kw):
    def call(T, x):
        m = getattr(T.nn, name)(*args, **kw)
        outs = []
        for i in range(n):
            outs.append(m(x * (i + 1) + i))
        m.eval()
        outs.append(m(x))
        return outs, list(m.state_dict().values())
    return call


_x = rand(4, 3, 5)
_w, _b = rand(3, seed=1), rand(3, seed=2)
BN = [S(_x, _w, _b, True), S(_x, _w, _b, False), S(_x, None, None, True, 0.3, 1e-3), S(rand(5, 3), _w, None, True),
      S(rand(2, 3, 2, 3, 2), _w, _b, True, 0.0), S(rand(2, 3, 4, 2), None, _b, False, eps=0.0),
      S(_x.astype(np.float64), _w.astype(np.float64), _b.astype(np.float64), True, 0.2),
      S(_x, _w, _b, True, 1.5),                                            # momentum outside [0, 1]
      E(rand(1, 3), None, None, True), E(rand(1, 3, 1), None, None, True), E(_x, None, None, True, eps=0.0),
      E(_x, None, None, False, eps=-1.0), E(_x, rand(4), None, True), E(_x, None, rand(2), True),
      E(rand(3), None, None, False), E(lambda T: T.ones(2, 3, dtype=T.int64), None, None, True)]
IN = [S(_x, _w, _b, True, 0.2), S(_x, None, None, False), S(rand(2, 3, 2, 3), _w, None, True),
      E(rand(2, 3, 1), None, None, True)]
LN = [S(_x, (5,), rand(5), rand(5)), S(_x, [3, 5]), S(_x, (5,), None, rand(5), 1e-3),
      S(_x.astype(np.float64), (3, 5), rand(3, 5).astype(np.float64)),
      S(lambda T: T.tensor(_x).half(), (5,)),
      E(_x, (3,)), E(_x, (5,), rand(4)), E(_x, (5,), None, rand(3)), E(_x, ()), E(_x, 5),
      E(lambda T: T.ones(2, 4, dtype=T.int64), (4,))]
RMS = [S(_x, (5,), rand(5)), S(_x, [3, 5]), S(_x, (5,), None, 1e-3), S(_x.astype(np.float64), (5,)),
       S(lambda T: T.tensor(_x).half(), (5,)), E(_x, (3,)), E(_x, (5,), rand(3))]
GN = [S(rand(3, 4, 5), 2, rand(4), rand(4)), S(rand(2, 6, 2, 2), 3), S(rand(2, 4), 4, rand(4), rand(4), 1e-3),
      S(rand(2, 4, 3).astype(np.float64), 1), S(rand(2, 2, 2, 2, 2), 2, rand(2)),
      E(rand(2, 5, 3), 2), E(rand(2, 4, 3), 2, rand(3))]
# F.group_norm validates in Python (torch.group_norm does not): compared through F only
GN_F = [S(rand(2, 4), 4, rand(4), None, 1e-3), E(rand(1, 4), 4), E(rand(4), 2)]
HALF = dict(rtol=2e-3, atol=2e-3)   # float16: one half ulp apart where torch rounds intermediate values
LRN = [S(rand(2, 5, 4), 3), S(rand(1, 4, 3, 3), 2, 1e-2, 0.5, 2.0), S(rand(1, 6, 2, 2, 2), 4),
       S(rand(2, 3, 4), 5, 0.1), E(rand(3, 4), 2)]

OPS = [
    OpInfo("batch_norm", BN, call=bn_call, **TOL),
    OpInfo("batch_norm", [S(_x, _w, _b, True), S(rand(3, 2), None, None, True), E(_x, None, None, False)],
           call=bn_no_stats, **TOL),
    OpInfo("batch_norm", [S(_x)], call=_steps("BatchNorm1d", 3), **TOL),
    OpInfo("batch_norm", [S(_x)], call=_steps("BatchNorm1d", 3, momentum=None, affine=False), **TOL),
    OpInfo("batch_norm", [S(rand(2, 3, 2, 2))], call=_steps("BatchNorm2d", 3, momentum=0.7, eps=1e-3), **TOL),
    OpInfo("instance_norm", IN, call=in_call, **TOL),
    OpInfo("instance_norm", [S(_x, None, None, _w, _b), S(rand(2, 3, 4, 2)), E(_x, None, None, None, None, False)],
           **TOL),
    OpInfo("instance_norm", [S(_x)], call=_steps("InstanceNorm1d", 3, affine=True, track_running_stats=True), **TOL),
    OpInfo("layer_norm", LN, **TOL),
    OpInfo("rms_norm", RMS, **TOL),
    OpInfo("group_norm", GN, **TOL),
    OpInfo("nn.functional.group_norm", GN_F, call=lambda T, *a, **k: T.nn.functional.group_norm(*a, **k), **TOL),
    OpInfo("group_norm", [E(rand(4), 2), E(np.array(1.0, np.float32), 1)], **TOL),
    OpInfo("batch_norm", [S(lambda T: T.tensor(_x).half(), None, None, True),
                          S(lambda T: T.tensor(_x).half(), lambda T: T.tensor(_w).half(), None, True)],
           call=bn_call, grad=False, **HALF),
    OpInfo("local_response_norm", LRN, **TOL),
]
