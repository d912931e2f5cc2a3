"""torch.compile(module): the inference forward as a MindSpore graph, against torch's compiled module.

torch's side uses Dynamo with its ``eager`` backend (the captured FX graph run eagerly: inductor needs
~30 s of C++ compilation per model on this host); its values are eager torch's. mstorch's side uses the
default backend, which captures a MindSpore graph. ``torch._dynamo.explain`` tells on both sides whether
the forward became one graph, so a capture that silently fell back to eager fails these tests.
"""
import numpy as np
import pytest
import torch

import mstorch
from harness import check, check_grad, check_raises

RNG = np.random.RandomState(0)
X = RNG.standard_normal((4, 3, 8, 8)).astype(np.float32)
X2 = RNG.standard_normal((2, 3, 8, 8)).astype(np.float32)
W = {"0.weight": RNG.standard_normal((6, 3, 3, 3)).astype(np.float32) * 0.3,
     "0.bias": RNG.standard_normal(6).astype(np.float32) * 0.1,
     "1.weight": RNG.uniform(0.5, 1.5, 6).astype(np.float32),
     "1.bias": RNG.standard_normal(6).astype(np.float32) * 0.1,
     "1.running_mean": RNG.standard_normal(6).astype(np.float32) * 0.1,
     "1.running_var": RNG.uniform(0.5, 1.5, 6).astype(np.float32),
     "1.num_batches_tracked": np.array(3, np.int64),
     "5.weight": RNG.standard_normal((5, 6 * 4 * 4)).astype(np.float32) * 0.1,
     "5.bias": RNG.standard_normal(5).astype(np.float32) * 0.1}


@pytest.fixture(autouse=True)
def always_graph(monkeypatch):
    """These tests check the replayed graph: keep it (after its trials a key may settle on the eager forward
    where that is faster on this host; test_each_key_keeps_the_faster_path checks that choice)."""
    monkeypatch.setattr(mstorch._compile, "_ALWAYS_GRAPH", [True])


def backend(T):
    return "eager" if T is torch else "inductor"


def cnn(T):
    nn = T.nn
    m = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(), nn.Linear(6 * 4 * 4, 5))
    m.load_state_dict({k: T.tensor(v) for k, v in W.items()})
    return m.eval()


def test_compiled_cnn_values_and_one_graph():
    def fn(T):
        T._dynamo.reset()
        m = cnn(T)
        c = T.compile(m, backend=backend(T))
        with T.no_grad():
            x = T.tensor(X)
            first, again = c(x), c(x)
            report = T._dynamo.explain(m)(x)
        return first, again, report.graph_count, report.graph_break_count
    check(fn)


def test_recompiles_on_new_shape_and_sees_updates():
    def fn(T):
        T._dynamo.reset()
        m = cnn(T)
        c = T.compile(m, backend=backend(T))
        outs = []
        with T.no_grad():
            outs.append(c(T.tensor(X)))
            outs.append(c(T.tensor(X2)))              # a new batch size: a new graph
            nan = T.tensor(X2)
            nan[0, 0, 1, 1] = float("nan")
            outs.append(c(nan))                       # NaN through relu/max pool as torch propagates it
            m[0].weight.mul_(0.5)                     # an in-place parameter update (an optimizer step)
            outs.append(c(T.tensor(X)))
            m.load_state_dict({"1.running_mean": T.full((6,), 0.25)}, strict=False)   # a buffer
            outs.append(c(T.tensor(X)))
            m[5].weight = T.nn.Parameter(T.ones(5, 96) * 0.01)   # a new Parameter object
            outs.append(c(T.tensor(X)))
        return outs
    check(fn)


def test_graph_count_after_recompiles():
    if not hasattr(mstorch._compile, "_GraphCache"):
        pytest.fail("no graph cache")
    mstorch._dynamo.reset()
    c = mstorch.compile(cnn(mstorch))
    with mstorch.no_grad():
        c(mstorch.tensor(X))
        c(mstorch.tensor(X2))
        c(mstorch.tensor(X))
    graphs = c._graphs
    assert sum(isinstance(e, tuple) for e in graphs.entries.values()) == 2, graphs.reasons
    assert graphs.reasons == []


def test_recompile_limit_falls_back_with_torch_values():
    def fn(T):
        T._dynamo.reset()
        m = cnn(T)
        c = T.compile(m, backend=backend(T))
        with T._dynamo.config.patch(recompile_limit=1), T.no_grad(), __import__("warnings").catch_warnings():
            __import__("warnings").simplefilter("ignore")
            return c(T.tensor(X)), c(T.tensor(X2)), c(T.tensor(X[:1]))
    check(fn)


def test_data_dependent_branch():
    class Branchy:
        @staticmethod
        def build(T):
            class M(T.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = T.nn.Linear(4, 3)

                def forward(self, x):
                    if x.sum() > 0:
                        return self.lin(x)
                    return -self.lin(x)
            T.manual_seed(0)
            m = M().eval()
            m.lin.load_state_dict({"weight": T.tensor(W["5.weight"][:3, :4]), "bias": T.tensor(W["5.bias"][:3])})
            return m

    def eager_fallback(T):
        T._dynamo.reset()
        c = T.compile(Branchy.build(T), backend=backend(T))
        x = T.tensor(X[0, 0, :2, :4])
        with T.no_grad():
            return c(x), c(-x), c(x * 2)
    check(eager_fallback)

    def fullgraph(T):
        T._dynamo.reset()
        c = T.compile(Branchy.build(T), backend=backend(T), fullgraph=True)
        with T.no_grad():
            return c(T.tensor(X[0, 0, :2, :4]))
    check_raises(fullgraph)


def test_explain_names_the_refusal():
    mstorch._dynamo.reset()
    m = cnn(mstorch)
    report = mstorch._dynamo.explain(m)(mstorch.tensor(X))   # grad mode on, parameters require grad
    assert report.graph_count == 0 and report.graph_break_count == 1
    assert "autograd" in report.break_reasons[0].reason
    assert "Graph Count: 0" in str(report)


def test_training_forward_and_gradients_as_torch():
    def fn(T, x):
        m = cnn(T).train()
        c = T.compile(m, backend=backend(T))
        out = c(x)
        return out, m[1].running_mean.clone()
    check_grad(fn, [X], rtol=1e-4, atol=1e-5)


def test_eager_backend_and_disable_keep_the_module():
    def fn(T):
        m = cnn(T)
        with T.no_grad():
            return (T.compile(m, backend="aot_eager" if T is mstorch else "eager")(T.tensor(X)),
                    T.compile(m, disable=True) is m)
    check(fn)


def test_is_compiling_inside_the_compiled_forward():
    def fn(T):
        seen = []

        class M(T.nn.Module):
            def forward(self, x):
                seen.append(T.compiler.is_compiling())
                return x * 2

        T._dynamo.reset()
        c = T.compile(M().eval(), backend=backend(T))
        with T.no_grad():
            out = c(T.tensor(X))
        return out, seen[0], T.compiler.is_compiling()
    check(fn)


def test_force_eager_stance():
    def fn(T):
        T._dynamo.reset()
        m = cnn(T)
        c = T.compile(m, backend=backend(T))
        with T.compiler.set_stance("force_eager"), T.no_grad():
            out = c(T.tensor(X))
        return out
    check(fn)
    assert not mstorch.compile(cnn(mstorch))._graphs.entries


def test_namedtuple_output_keeps_its_type():
    import collections
    Pair = collections.namedtuple("Pair", "double half")

    def fn(T):
        class M(T.nn.Module):
            def forward(self, x):
                return Pair(x * 2, x / 2)

        T._dynamo.reset()
        c = T.compile(M().eval(), backend=backend(T))
        with T.no_grad():
            out = c(T.tensor(X))
            again = c(T.tensor(X2))
        return type(out).__name__, out.double, out.half, again.half
    check(fn)


@pytest.mark.parametrize("graph_ms,eager_ms,kept", [(1.0, 5.0, "graph"), (5.0, 1.0, "eager")])
def test_each_key_keeps_the_faster_path(monkeypatch, graph_ms, eager_ms, kept):
    """After the capture a key's calls alternate graph and eager forward _TRIALS times each, then keep the
    faster by median; values equal torch's on every call whichever ran (a fake clock picks the winner)."""
    comp = mstorch._compile
    monkeypatch.setattr(comp, "_ALWAYS_GRAPH", [False])
    now, ran, kept_alive = [0.0], [], []
    replay = comp._GraphCache._replay

    def timed_replay(entry, inputs, states):
        ran.append("graph")
        now[0] += graph_ms
        return replay(entry, inputs, states)

    monkeypatch.setattr(comp._GraphCache, "_replay", staticmethod(timed_replay))
    monkeypatch.setattr(comp, "_clock", lambda: now[0])

    def eager_ran(module, args, out):
        ran.append("eager")
        now[0] += eager_ms

    def fn(T):
        T._dynamo.reset()
        m = cnn(T)
        if T is mstorch:
            m.register_forward_hook(eager_ran)
        c = T.compile(m, backend=backend(T))
        kept_alive.append(c)
        with T.no_grad():
            return [c(T.tensor(X)) for _ in range(2 * comp._TRIALS + 3)]
    check(fn)
    choices = [c for c in kept_alive if isinstance(c, mstorch._compile.OptimizedModule)][0]._graphs.choices
    assert len(choices) == 1 and list(choices.values())[0].startswith(kept), choices
    # the capture runs the forward once; then graph and eager alternate for the trials; then the kept path only
    after = ["graph" if kept == "graph" else "eager"] * 2
    assert ran == ["eager"] + ["graph", "eager"] * comp._TRIALS + after, ran
