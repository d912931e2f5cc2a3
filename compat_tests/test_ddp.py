"""DistributedDataParallel: buckets, no_sync, unused parameters, static graph, buffers, comm hooks, join.

Two ranks on CPU run the same scenarios once with torch (gloo) and once with mstorch, each library
spawning its own processes; the tests compare the two runs, and the 2-rank training with one process
training on the full batch (torch and mstorch). The bucket layout and the errors are compared in this
process at world size 1, where both libraries still run their reducers.
"""
import importlib

import numpy as np
import pytest
import torch

import mstorch
from ddp_scenarios import STEPS, _rank, data, default_hooks, heads, mlp, numpy_of, recording_hook
from harness import assert_same
from ranks import free_port, start_ranks, wait_ranks
from test_distributed import same_error, world1  # noqa: F401  (world1: a fixture)

pytestmark = pytest.mark.opens_ports


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory):
    out = tmp_path_factory.mktemp("ddp")
    # both libraries' ranks at once (each process imports one library only)
    wait_ranks(*[start_ranks(lib, _rank, (lib.__name__, free_port(), str(out))) for lib in (torch, mstorch)])
    return {(lib, r): np.load(out / f"{lib}{r}.npy", allow_pickle=True).item()
            for lib in ("torch", "mstorch") for r in range(2)}


def close(got, ref, tol=1e-6):
    if isinstance(ref, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(ref), (got, ref)
        for g, r in zip(got, ref):
            close(g, r, tol)
    elif isinstance(ref, np.ndarray):
        assert isinstance(got, np.ndarray) and got.shape == ref.shape and got.dtype == ref.dtype, (got, ref)
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)
    else:
        assert got == ref, (got, ref)


@pytest.mark.parametrize("key", ["train", "bucket_view", "powerSGD_r1", "powerSGD_r3_batched", "powerSGD_r2_cold",
                                 "no_sync_local", "no_sync", "allreduce_hook", "allreduce_hook_buckets",
                                 "fp16_compress_hook_buckets", "unused", "static", "buffers_True", "buffers_False",
                                 "join", "train_no_sync", "train_no_sync_view", "overlap", "overlap_grads"])
def test_two_ranks_as_torch(two_ranks, key):
    for r in range(2):
        close(two_ranks["mstorch", r][key], two_ranks["torch", r][key], 1e-5 if key == "join" else 1e-6)


def test_buckets_launched_during_backward(two_ranks):
    """A bucket's reduction starts inside backward, as soon as its gradients are in: once the buckets are
    rebuilt by gradient order (second iteration on), the last layers' bucket is handed to the comm hook
    before the first layer's weight gradient is computed, as torch's DDP does (the first iteration
    reduces one bucket of everything, launched when its last gradient arrives)."""
    computed = "first layer's weight gradient computed"
    for lib in ("torch", "mstorch"):
        for r in range(2):
            first, *later = two_ranks[lib, r]["overlap"]
            assert first == [computed, "bucket 0 launched"], (lib, first)
            for log in later:
                assert log == ["bucket 0 launched", computed, "bucket 1 launched"], (lib, log)


def test_fp16_hook(two_ranks):
    """float16 on the wire: both libraries round the same halves."""
    for r in range(2):
        close(two_ranks["mstorch", r]["fp16_compress_hook"], two_ranks["torch", r]["fp16_compress_hook"], 1e-3)
        close(two_ranks["mstorch", r]["fp16_compress_hook"], two_ranks["mstorch", r]["allreduce_hook"], 2e-3)


def test_two_ranks_equal_one_process_full_batch(two_ranks):
    """5 steps of DDP over 2 ranks (half the batch each) = 5 steps of one process on the whole batch,
    in torch and in mstorch; also with each half in two micro-batches, the first under no_sync (the
    accumulated gradients reduced by the buckets launched during the synced backward)."""
    xs, ys = data()
    for T in (torch, mstorch):
        model = mlp(T)
        opt = T.optim.SGD(model.parameters(), lr=0.1)
        for s in range(STEPS):
            opt.zero_grad()
            T.nn.functional.mse_loss(model(T.tensor(xs[s])), T.tensor(ys[s])).backward()
            opt.step()
            ref = numpy_of(model.parameters())
            for lib in ("torch", "mstorch"):
                for r in range(2):
                    for key in ("train", "train_no_sync", "train_no_sync_view"):
                        close(two_ranks[lib, r][key][s], ref)
    assert two_ranks["mstorch", 0]["unused"][-2] is None      # head c: no rank used it, .grad untouched


# --- world size 1, in this process ----------------------------------------------------------------------

def mixed(T):
    """Float32 and float64 parameters, over 1 MiB in all (torch's first bucket cap)."""
    class Mixed(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.f = T.nn.Sequential(T.nn.Linear(300, 300), T.nn.Linear(300, 300), T.nn.Linear(300, 10))
            self.g = T.nn.Linear(10, 200).double()
            self.h = T.nn.Linear(300, 300)

        def forward(self, x):
            y = self.f(self.h(x))
            return y.sum() + self.g(y.double()).sum().float()
    T.manual_seed(0)
    return Mixed()


@pytest.mark.usefixtures("world1")
@pytest.mark.parametrize("kwargs", [{}, {"bucket_cap_mb": 0.5}, {"find_unused_parameters": True},
                                    {"find_unused_parameters": True, "bucket_cap_mb": 0.3},
                                    {"static_graph": True, "bucket_cap_mb": 0.5}])
def test_bucket_layout(kwargs):
    """The buckets a comm hook sees, iteration by iteration (torch rebuilds them after the first)."""
    def fn(T):
        ddp = T.nn.parallel.DistributedDataParallel(mixed(T), **kwargs)
        log = []
        ddp.register_comm_hook(default_hooks(T).allreduce_hook, recording_hook(log))
        per_iteration = []
        for _ in range(3):
            ddp(T.ones(2, 300)).backward()
            per_iteration.append(list(log))
            log.clear()
        return per_iteration
    both = [fn(T) for T in (torch, mstorch)]
    assert both[1] == both[0]


@pytest.mark.parametrize("limits", [[100], [1000, 4000], [2 ** 20, 25 * 2 ** 20], [50, 50, 3000]])
def test_compute_bucket_assignment_by_size(limits):
    shapes = [(30, 4), (7,), (100,), (3, 3), (500,), (2,), (40, 40), (1,)]
    dtypes = ["float32", "float64", "float32", "float16", "float32", "float64", "float32", "float32"]

    def fn(T, order=None):
        ts = [T.zeros(s, dtype=getattr(T, d)) for s, d in zip(shapes, dtypes)]
        if order is None:
            return T.distributed._compute_bucket_assignment_by_size(ts, limits)
        return T.distributed._compute_bucket_assignment_by_size([ts[i] for i in order], limits, [], order)
    assert fn(mstorch) == fn(torch)
    order = [7, 5, 6, 0, 2, 1, 4, 3]
    assert fn(mstorch, order) == fn(torch, order)
    assert mstorch.distributed._DEFAULT_FIRST_BUCKET_BYTES == torch.distributed._DEFAULT_FIRST_BUCKET_BYTES


@pytest.mark.usefixtures("world1")
def test_unused_parameter_error():
    def step(T, **kw):
        ddp = T.nn.parallel.DistributedDataParallel(heads(T), **kw)
        ddp(T.ones(1, 4), False).sum().backward()
        return ddp

    same_error(lambda T: step(T)(T.ones(1, 4), False))
    assert_same(*[[p.grad for p in step(T, find_unused_parameters=True).parameters()] for T in (torch, mstorch)])


@pytest.mark.usefixtures("world1")
def test_comm_hook_errors():
    hooks = default_hooks
    ddp = lambda T: T.nn.parallel.DistributedDataParallel(mlp(T))  # noqa: E731
    same_error(lambda T: ddp(T).register_comm_hook(None, hooks(T).bf16_compress_hook))
    same_error(lambda T: ddp(T).register_comm_hook(None, 3))

    def annotated(T):
        def hook(state, bucket: int):
            return None
        ddp(T).register_comm_hook(None, hook)
    same_error(annotated)

    def returns(T):
        def hook(state, bucket: T.distributed.GradBucket) -> T.futures.Future[int]:
            return None
        ddp(T).register_comm_hook(None, hook)
    same_error(returns)

    def well_annotated(T):      # accepted
        def hook(state, bucket: T.distributed.GradBucket) -> T.futures.Future[T.Tensor]:
            return hooks(T).allreduce_hook(state, bucket)
        m = ddp(T)
        m.register_comm_hook(None, hook)
        m(T.ones(2, 4)).sum().backward()
        return [p.grad for p in m.parameters()]
    assert_same(well_annotated(torch), well_annotated(mstorch))

    def twice(T):
        m = ddp(T)
        m.register_comm_hook(None, hooks(T).allreduce_hook)
        m.register_comm_hook(None, hooks(T).allreduce_hook)
    same_error(twice)


def test_powersgd_state():
    def fn(T):
        P = importlib.import_module(T.__name__ + ".distributed.algorithms.ddp_comm_hooks.powerSGD_hook")
        st = P.PowerSGDState(None, start_powerSGD_iter=5, compression_stats_logging_frequency=0)
        out = [st.iter, st.compression_stats(), st.compression_stats_logging_frequency, st.rng.randint(100),
               P.PowerSGDState(None, start_powerSGD_iter=1, warm_start=False, use_error_feedback=False).iter,
               P._should_compress(8, 8, 1, 2), P._should_compress(2, 8, 1, 2)]
        for i in (1, 2, 3):    # Gram-Schmidt, then QR
            m = T.tensor(np.random.RandomState(i).randn(2, 6, i).astype(np.float32))
            P._orthogonalize(m)
            out.append(m)
        return out
    assert_same(fn(torch), fn(mstorch), rtol=1e-5, atol=1e-5)
    same_error(lambda T: importlib.import_module(T.__name__ + ".distributed.algorithms.ddp_comm_hooks.powerSGD_hook")
               .PowerSGDState(None, start_powerSGD_iter=1))


def test_futures():
    def fn(T):
        F = T.futures
        f = F.Future()
        g = f.then(lambda fut: fut.value() * 2)
        seen = []
        f.add_done_callback(lambda fut: seen.append(fut.value()))
        before = (f.done(), g.done())
        f.set_result(3)
        bad = f.then(lambda fut: 1 / 0)
        with pytest.raises(RuntimeError) as info:
            bad.wait()
        with pytest.raises(RuntimeError) as twice:
            f.set_result(4)
        e = F.Future()
        e.set_exception(ValueError("x"))
        with pytest.raises(ValueError):
            e.wait()
        return (before, f.wait(), g.wait(), seen, str(info.value).splitlines()[0], str(twice.value),
                F.wait_all([f, g]), [x.wait() for x in F.collect_all([f, g]).wait()])
    assert_same(fn(torch), fn(mstorch))


@pytest.mark.usefixtures("world1")
@pytest.mark.parametrize("hook", [False, True])
def test_gradient_as_bucket_view(hook):
    """gradient_as_bucket_view=True: each .grad is a view of its bucket's flat buffer (its data_ptr lies
    in the bucket; a write to the bucket is seen through .grad), across the rebuild of the buckets after
    the first iteration, ``zero_grad`` to zeros or to None, and ``no_sync``."""
    def fn(T):
        ddp = T.nn.parallel.DistributedDataParallel(mixed(T), bucket_cap_mb=0.5, gradient_as_bucket_view=True)
        params = list(ddp.parameters())
        buffers = []
        if hook:
            def recording(state, bucket):
                buffers.append(bucket.buffer())
                return default_hooks(T).allreduce_hook(state, bucket)
            ddp.register_comm_hook(None, recording)
        out = []
        for step, set_to_none in enumerate([None, False, False, True, False]):
            if set_to_none is not None:
                ddp.zero_grad(set_to_none=set_to_none)
            buffers.clear()
            if step == 2:
                with ddp.no_sync():
                    ddp(T.ones(2, 300) * 0.5).backward()
            ddp(T.ones(2, 300) * (step + 1)).backward()
            ptrs = [p.grad.data_ptr() for p in params]
            out.append([p.grad.clone() for p in params])
            if hook:
                # every gradient lies in one of the buffers the hook got, and sees writes to it
                spans = [(b.data_ptr(), b.data_ptr() + b.numel() * b.element_size()) for b in buffers]
                out.append([any(lo <= ptr < hi for lo, hi in spans) for ptr in ptrs])
                for b in buffers:
                    b.fill_(7.0)
                out.append([bool((p.grad == 7).all()) for p in params])
            else:
                # the gradients of one bucket lie back to back in its buffer
                out.append(sorted(ptrs[i + 1] - ptrs[i] == p.numel() * p.element_size() for i, p in
                                  enumerate(params[:-1])))
            out.append(ptrs == getattr(fn, "last", None) if step in (2, 4) else None)
            fn.last = ptrs
        return out
    assert_same(fn(torch), fn(mstorch), rtol=1e-4, atol=1e-5)   # 300-wide float32 matmuls


@pytest.mark.usefixtures("world1")
def test_batched_powersgd_hook():
    """Warm-up steps average; torch 2.13's first compressed step refuses its 2-D Q (AssertionError)."""
    def fn(T, steps):
        P = importlib.import_module(T.__name__ + ".distributed.algorithms.ddp_comm_hooks.powerSGD_hook")
        ddp = T.nn.parallel.DistributedDataParallel(mlp(T))
        ddp.register_comm_hook(P.PowerSGDState(None, start_powerSGD_iter=2), P.batched_powerSGD_hook)
        for _ in range(steps):
            ddp(T.ones(2, 4)).sum().backward()
        return [p.grad for p in ddp.parameters()]
    assert_same(fn(torch, 2), fn(mstorch, 2))
    same_error(lambda T: fn(T, 3))
