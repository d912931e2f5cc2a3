"""torch.distributed, DistributedDataParallel, DistributedSampler and torch.multiprocessing.

World size 1 runs in this process on both libraries (torch's gloo over a free port) and compares
results and error messages. The two-process test starts two ranks with ``mstorch.multiprocessing.spawn``
(each imports mstorch) and compares their collectives and DDP-averaged gradients with torch's
full-batch gradient computed here.
"""
import os
import sys

import numpy as np
import pytest
import torch

import mstorch
from harness import assert_same, run, Raised
from ranks import free_port, run_ranks

pytestmark = pytest.mark.opens_ports


def same_error(fn):
    """fn(T) must raise on both libraries with the same type and message."""
    ref, got = run(fn, torch), run(fn, mstorch)
    assert isinstance(ref, Raised) and isinstance(got, Raised), (ref, got)
    assert type(got.exc).__name__ == type(ref.exc).__name__, (ref.exc, got.exc)
    assert str(got.exc) == str(ref.exc), (str(ref.exc), str(got.exc))


@pytest.fixture
def world1():
    """The default group of world size 1 on both libraries; destroyed afterwards."""
    for T in (torch, mstorch):
        T.distributed.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{free_port()}", world_size=1, rank=0)
    yield
    for T in (torch, mstorch):
        if T.distributed.is_initialized():
            T.distributed.destroy_process_group()


def both(fn, **kw):
    ref, got = fn(torch), fn(mstorch)
    assert_same(ref, got, **kw)
    return got


# --- before init -----------------------------------------------------------------------------------

@pytest.mark.parametrize("call", ["get_rank", "get_world_size", "barrier", "get_backend", "all_reduce",
                                  "destroy_process_group", "new_group"])
def test_errors_before_init(call):
    def fn(T):
        d = T.distributed
        assert d.is_available() and not d.is_initialized() and d.group.WORLD is None
        if call == "all_reduce":
            return d.all_reduce(T.ones(2))
        return getattr(d, call)()
    same_error(fn)


def test_init_errors(monkeypatch):
    for var in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(var, raising=False)
    same_error(lambda T: T.distributed.init_process_group("gloo"))
    same_error(lambda T: T.distributed.init_process_group("gloo", init_method="env://", rank=0))
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "1")
    same_error(lambda T: T.distributed.init_process_group("gloo"))     # MASTER_ADDR missing
    same_error(lambda T: T.distributed.init_process_group("gloo", init_method="tcp://127.0.0.1", world_size=1,
                                                          rank=0))
    same_error(lambda T: T.distributed.init_process_group("gloo", init_method="tcp://127.0.0.1:5",
                                                          world_size=1))
    same_error(lambda T: T.distributed.init_process_group("gloo", init_method="tcp://127.0.0.1:5", store=1))
    assert not torch.distributed.is_initialized() and not mstorch.distributed.is_initialized()


def test_env_init_and_twice(monkeypatch):
    for k, v in {"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(free_port())}.items():
        monkeypatch.setenv(k, v)
    try:
        for T in (torch, mstorch):
            T.distributed.init_process_group(backend="gloo")
        both(lambda T: (T.distributed.is_initialized(), T.distributed.get_rank(), T.distributed.get_world_size(),
                        str(T.distributed.get_backend()), T.distributed.Backend("GLOO"),
                        T.distributed.get_process_group_ranks(T.distributed.group.WORLD),
                        T.distributed.is_torchelastic_launched()))
        same_error(lambda T: T.distributed.init_process_group("gloo"))
    finally:
        for T in (torch, mstorch):
            if T.distributed.is_initialized():
                T.distributed.destroy_process_group()
    both(lambda T: T.distributed.is_initialized())


def test_stores():
    from datetime import timedelta

    def fn(T):
        d = T.distributed
        st = d.TCPStore("127.0.0.1", free_port(), 1, True, timedelta(seconds=0.2))
        st.set("k", "v")
        st.set("b", b"\x00\x01")
        out = [st.get("k"), st.get("b"), st.add("c", 2), st.add("c", 3), st.get("c"), st.check(["k"]),
               st.check(["zz"]), st.delete_key("k"), st.delete_key("k"), st.compare_set("k", "", "new"), st.get("k")]
        for call in (lambda: st.get("missing"), lambda: st.wait(["missing"], timedelta(seconds=0.1)),
                     lambda: d.TCPStore("127.0.0.1", st.port, 1, True)):
            with pytest.raises(d.DistError) as info:
                call()
            out.append((type(info.value).__name__, str(info.value).replace(str(st.port), "PORT")))
        hs = d.HashStore()
        hs.set("a", "1")
        ps = d.PrefixStore("pre", hs)
        ps.set("x", "2")
        return out + [hs.get("a"), hs.add("n", 1), ps.get("x"), hs.get("pre/x")]
    both(fn)


# --- collectives at world size 1 -------------------------------------------------------------------

@pytest.mark.parametrize("op", ["SUM", "AVG", "PRODUCT", "MIN", "MAX"])
def test_all_reduce_ops(world1, op):
    def fn(T):
        t = T.tensor([1.5, -2.0, 3.0])
        i = T.tensor([3, 4], dtype=T.int64)
        work = T.distributed.all_reduce(t, op=getattr(T.distributed.ReduceOp, op))
        T.distributed.all_reduce(i, op=getattr(T.distributed.ReduceOp, op)) if op != "AVG" else None
        return t, i, work, repr(getattr(T.distributed.ReduceOp, op))
    both(fn)


def test_collectives_world1(world1):
    def fn(T):
        d = T.distributed
        t = T.tensor([[1.0, 2.0], [3.0, 4.0]])
        outs = [T.zeros(2, 2)]
        d.all_gather(outs, t)
        b = T.tensor([7, 8])
        d.broadcast(b, src=0)
        r = T.tensor([2.0])
        d.reduce(r, dst=0, op=d.ReduceOp.MAX)
        g = [T.zeros(2, 2)]
        d.gather(t, g, dst=0)
        s = T.zeros(3)
        d.scatter(s, [T.tensor([5.0, 6.0, 7.0])], src=0)
        objs = [None]
        d.all_gather_object(objs, {"a": 1, "b": [2, 3]})
        blist = ["x", 3]
        d.broadcast_object_list(blist, src=0)
        work = d.all_reduce(t, async_op=True)
        p = T.nn.Parameter(T.ones(2))
        d.all_reduce(p)
        grp = d.new_group([0])
        return (outs, b, r, g, s, objs, blist, work.wait(), work.is_completed(), p, p.requires_grad, d.barrier(),
                d.get_rank(grp), d.get_world_size(grp), d.get_rank(), d.get_world_size(), str(d.get_backend()))
    both(fn)


def test_collective_errors_world1(world1):
    same_error(lambda T: T.distributed.broadcast(T.ones(2), src=1))
    same_error(lambda T: T.distributed.all_gather([T.zeros(2), T.zeros(2)], T.ones(2)))
    same_error(lambda T: T.distributed.all_reduce([T.ones(2)]))
    same_error(lambda T: T.distributed.all_reduce(T.ones(2), op=T.distributed.ReduceOp.BAND))
    same_error(lambda T: T.distributed.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{free_port()}",
                                                          world_size=1, rank=0))


# --- DistributedDataParallel and DataParallel ------------------------------------------------------

def small_model(T):
    T.manual_seed(0)
    m = T.nn.Sequential(T.nn.Linear(4, 3), T.nn.Tanh(), T.nn.Linear(3, 2))
    m.register_buffer("steps", T.zeros(1))
    with T.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(T.tensor(np.random.RandomState(i).uniform(-1, 1, tuple(p.shape)).astype(np.float32)))
    return m


def test_ddp_world1(world1):
    x = np.random.RandomState(5).randn(6, 4).astype(np.float32)

    def fn(T):
        ddp = T.nn.parallel.DistributedDataParallel(small_model(T))
        out = ddp(T.tensor(x))
        out.pow(2).sum().backward()
        with ddp.no_sync():
            ddp(T.tensor(x)).sum().backward()
        grads = [p.grad for p in ddp.parameters()]
        return (out, grads, list(ddp.state_dict()), type(ddp.module).__name__, ddp.device_ids,
                ddp.require_backward_grad_sync, ddp.broadcast_buffers)
    both(fn)
    same_error(lambda T: T.nn.parallel.DistributedDataParallel(small_model(T), device_ids=[0]))
    same_error(lambda T: T.nn.parallel.DistributedDataParallel(small_model(T).requires_grad_(False)))
    same_error(lambda T: T.nn.parallel.DistributedDataParallel(small_model(T), device_ids=[0, 1]))


class TwoHeads:
    """A module with a head the loss does not use (built per library)."""

    @staticmethod
    def make(T):
        class M(T.nn.Module):
            def __init__(self):
                super().__init__()
                T.manual_seed(1)
                self.a, self.b = T.nn.Linear(2, 2), T.nn.Linear(2, 2)

            def forward(self, x):
                return self.a(x)
        return M()


def test_ddp_unused_parameters(world1):
    def step(T, **kw):
        ddp = T.nn.parallel.DistributedDataParallel(TwoHeads.make(T), **kw)
        ddp(T.ones(1, 2)).sum().backward()
        return ddp

    same_error(lambda T: step(T)(T.ones(1, 2)))
    both(lambda T: [p.grad for p in step(T, find_unused_parameters=True).parameters()])


def test_ddp_needs_group_and_data_parallel():
    same_error(lambda T: T.nn.parallel.DistributedDataParallel(small_model(T)))
    x = np.ones((2, 4), np.float32)

    def fn(T):
        dp = T.nn.DataParallel(small_model(T))
        return dp(T.tensor(x)), list(dp.state_dict()), dp.device_ids
    both(fn)


def test_distributed_sampler_uses_group(world1):
    same = lambda T: list(T.utils.data.DistributedSampler(range(7), shuffle=False))  # noqa: E731
    both(lambda T: (same(T), len(T.utils.data.DistributedSampler(range(7), seed=3))))


def test_distributed_sampler_before_init():
    same_error(lambda T: T.utils.data.DistributedSampler(range(7)))


# --- torch.multiprocessing -------------------------------------------------------------------------

def _raise_in(i, word):
    if i == 1:
        raise ValueError(f"{word} {i}")


def _exit_with(i, code):
    sys.exit(code if i == 0 else 0)


def test_multiprocessing_namespace():
    both(lambda T: (T.multiprocessing.cpu_count(), T.multiprocessing.get_sharing_strategy(),
                    sorted(T.multiprocessing.get_all_sharing_strategies()),
                    T.multiprocessing.get_context("spawn").get_start_method(),
                    hasattr(T.multiprocessing, "Queue"), hasattr(T.multiprocessing, "Pool"),
                    sorted(set(T.multiprocessing.__all__) & {"Process", "Queue", "spawn", "set_start_method"})))


def _failure(T, target, args, method="fork"):
    with pytest.raises(Exception) as info:
        if method == "spawn":
            T.multiprocessing.spawn(target, args=args, nprocs=2)
        else:
            T.multiprocessing.start_processes(target, args=args, nprocs=2, start_method=method)
    e = info.value
    return (type(e).__name__, e.error_index, getattr(e, "exit_code", None), str(e).splitlines()[:3],
            str(e).strip().splitlines()[-1])


def test_start_processes_error_propagation():
    both(lambda T: _failure(T, _raise_in, ("boom",)))
    both(lambda T: _failure(T, _exit_with, (3,)))
    # spawn (fresh interpreters importing mstorch): the child's traceback, as torch's forked one gives it
    assert_same(_failure(torch, _raise_in, ("boom",)), _failure(mstorch, _raise_in, ("boom",), "spawn"))
    ctx = mstorch.multiprocessing.start_processes(_raise_in, args=("ok",), nprocs=1, join=False, start_method="fork")
    assert ctx.join() and len(ctx.pids()) == 1


SPAWN_SCRIPT = """
import sys
import torch
import torch.multiprocessing as mp


def worker(i, out):
    with open(out, "w") as f:
        f.write(torch.__name__ + " " + torch.multiprocessing.__name__)


if __name__ == "__main__":
    mp.spawn(worker, args=(sys.argv[1],), nprocs=1)
"""


def test_spawn_under_launcher(tmp_path):
    """``python -m mstorch run``: the spawned children's ``import torch`` is mstorch too (the parent's
    alias reaches them), where plain python gives torch's own."""
    import subprocess
    script = tmp_path / "train.py"
    script.write_text(SPAWN_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(mstorch.__file__))]))
    subprocess.run([sys.executable, "-m", "mstorch", "run", str(script), str(tmp_path / "out")], check=True,
                   env=env, timeout=120)
    assert (tmp_path / "out").read_text() == "mstorch mstorch.multiprocessing"


# --- two processes ---------------------------------------------------------------------------------

def _two_ranks(rank, port, out_dir, x, y):
    import mstorch as T
    d = T.distributed
    from datetime import timedelta
    d.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", world_size=2, rank=rank,
                         timeout=timedelta(seconds=60))     # a deadlock fails the test instead of hanging it
    res = {"rank": d.get_rank(), "world": d.get_world_size()}
    t = T.tensor([1.0 + rank, 10.0 * rank])
    d.all_reduce(t)
    res["sum"] = t.numpy()
    t = T.tensor([1.0 + rank, -rank])
    d.all_reduce(t, op=d.ReduceOp.MAX)
    res["max"] = t.numpy()
    t = T.tensor([3 + rank])
    d.all_reduce(t, op=d.ReduceOp.PRODUCT)
    res["prod"] = t.numpy()
    b = T.tensor([rank * 5.0, 1.0]) if rank == 1 else T.zeros(2)
    d.broadcast(b, src=1)
    res["bcast"] = b.numpy()
    outs = [T.zeros(2, dtype=T.int64) for _ in range(2)]
    d.all_gather(outs, T.tensor([rank, rank + 100]))
    res["gather"] = [o.numpy() for o in outs]
    buf = T.zeros(4)
    d.all_gather(list(buf.chunk(2)), T.tensor([rank, rank + 0.5]))     # into views of one tensor
    res["gather_view"] = buf.numpy()
    objs = [None, None]
    d.all_gather_object(objs, {"r": rank})
    res["objs"] = objs
    r = T.tensor([rank + 1.0])
    d.reduce(r, dst=0)
    res["reduce"] = r.numpy()
    if rank == 0:
        d.send(T.tensor([42.0]), dst=1)
    else:
        got = T.zeros(1)
        res["recv_from"] = d.recv(got, src=0)
        res["recv"] = got.numpy()
    res["sampler"] = list(T.utils.data.DistributedSampler(range(7), seed=1))
    # DDP: each rank takes half the batch; averaged gradients == full-batch gradient
    model = small_model(T)
    if rank == 1:
        with T.no_grad():
            for p in model.parameters():
                p.add_(1.0)         # construction must broadcast rank 0's weights (and buffers)
            model.steps.fill_(5.0)
    ddp = T.nn.parallel.DistributedDataParallel(model)
    half = slice(rank * 3, rank * 3 + 3)
    loss = T.nn.functional.mse_loss(ddp(T.tensor(x[half])), T.tensor(y[half]))
    loss.backward()
    res["grads"] = [p.grad.numpy() for p in ddp.parameters()]
    res["steps"] = ddp.module.steps.numpy()
    for p in ddp.parameters():
        p.grad = None
    with ddp.no_sync():                      # accumulate a local step, then a synced one
        T.nn.functional.mse_loss(ddp(T.tensor(x[half])), T.tensor(y[half])).backward()
    T.nn.functional.mse_loss(ddp(T.tensor(x[half])), T.tensor(y[half])).backward()
    res["grads2"] = [p.grad.numpy() for p in ddp.parameters()]
    ddp = T.nn.parallel.DistributedDataParallel(small_model(T), find_unused_parameters=True)
    T.nn.functional.mse_loss(ddp(T.tensor(x[half])), T.tensor(y[half])).backward()
    res["grads3"] = [p.grad.numpy() for p in ddp.parameters()]
    d.barrier()
    np.save(os.path.join(out_dir, f"rank{rank}.npy"), np.array(res, dtype=object), allow_pickle=True)
    d.destroy_process_group()


def test_two_processes(tmp_path):
    rs = np.random.RandomState(7)
    x, y = rs.randn(6, 4).astype(np.float32), rs.randn(6, 2).astype(np.float32)
    run_ranks(mstorch, _two_ranks, (free_port(), str(tmp_path), x, y))
    res = [np.load(tmp_path / f"rank{r}.npy", allow_pickle=True).item() for r in range(2)]
    model = small_model(torch)
    torch.nn.functional.mse_loss(model(torch.tensor(x)), torch.tensor(y)).backward()
    full = [p.grad.numpy() for p in model.parameters()]
    for r, got in enumerate(res):
        assert (got["rank"], got["world"]) == (r, 2)
        np.testing.assert_array_equal(got["sum"], [3.0, 10.0])
        np.testing.assert_array_equal(got["max"], [2.0, 0.0])
        np.testing.assert_array_equal(got["prod"], [12])
        np.testing.assert_array_equal(got["bcast"], [5.0, 1.0])
        np.testing.assert_array_equal(np.stack(got["gather"]), [[0, 100], [1, 101]])
        np.testing.assert_array_equal(got["gather_view"], [0.0, 0.5, 1.0, 1.5])
        assert got["objs"] == [{"r": 0}, {"r": 1}]
        assert got["sampler"] == list(torch.utils.data.DistributedSampler(range(7), num_replicas=2, rank=r, seed=1))
        np.testing.assert_array_equal(got["steps"], [0.0])
        for g, ref in zip(got["grads"], full):
            np.testing.assert_allclose(g, ref, rtol=1e-5, atol=1e-6)
        for g, ref in zip(got["grads2"], full):
            np.testing.assert_allclose(g, 2 * ref, rtol=1e-5, atol=1e-6)
        for g, ref in zip(got["grads3"], full):
            np.testing.assert_allclose(g, ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(res[0]["reduce"], [3.0])
    np.testing.assert_array_equal(res[1]["reduce"], [2.0])     # only dst gets the result
    assert res[1]["recv_from"] == 0 and res[1]["recv"][0] == 42.0


# --- FileStore -------------------------------------------------------------------------------------

def test_file_store(tmp_path):
    """The same operations on torch's FileStore and mstorch's: the same answers, errors and file bytes."""
    from datetime import timedelta

    def fn(T):
        path = tmp_path / T.__name__
        st = T.distributed.FileStore(str(path), 2)
        out = [st.num_keys(), st.path == str(path), st.timeout]
        st.set("a", "x")
        st.set("b", b"\x00\xff")
        out += [st.num_keys(), st.get("a"), st.get("b"), st.add("n", 3), st.add("n", -1), st.get("n"), st.num_keys(),
                st.check(["a"]), st.check(["a", "zz"]), st.check([]), st.delete_key("a"), st.delete_key("a"),
                st.delete_key("never"), st.num_keys(), st.compare_set("c", "", "v1"), st.compare_set("c", "bad", "v2"),
                st.compare_set("c", "v1", "v2"), st.compare_set("q", "e", "d"), st.num_keys(), st.add("big", 2 ** 62),
                st.add("big", 2 ** 62), st.wait(["b", "c"])]
        st.append("c", "tail")
        st.multi_set(["m1", "m2"], ["1", "2"])
        out += [st.multi_get(["c", "m2"]), st.has_extended_api()]
        st.set_timeout(timedelta(seconds=0.2))
        st.set("s", "notint")
        for name, args in (("get", ("a",)), ("wait", (["missing"],)), ("wait", (["c", "missing"], 0.1)),
                           ("add", ("s", 1)), ("queue_push", ("q", "1"))):
            with pytest.raises(Exception) as info:
                getattr(st, name)(*args)
            out.append((type(info.value).__name__, str(info.value)))
        # our errors' tracebacks hold the store's frames (torch's come from C++): let them go, or the
        # store would outlive ``del st``
        info = None
        other = T.distributed.FileStore(str(path), 2)     # a second user of the file sees everything
        out += [other.get("c"), other.add("n", 10), st.get("n"), other.num_keys()]
        del other
        out.append(path.read_bytes())
        del st
        out.append(path.exists())      # world_size 2: both stores finished, the last one removed the file
        return out
    both(fn)


def test_file_store_shared_with_torch(tmp_path):
    """torch's FileStore and mstorch's on one file: one format, one lock."""
    from datetime import timedelta
    path = str(tmp_path / "shared")
    ours, theirs = mstorch.distributed.FileStore(path, 2), torch.distributed.FileStore(path, 2)
    ours.set("from_ms", "1")
    theirs.set("from_torch", b"\x01")
    assert (ours.get("from_torch"), theirs.get("from_ms")) == (b"\x01", b"1")
    assert [ours.add("n", 2), theirs.add("n", 3), ours.add("n", 0)] == [2, 5, 5]
    assert ours.delete_key("from_torch") and not theirs.check(["from_torch"])
    assert theirs.compare_set("from_ms", "1", "2") == b"2" and ours.get("from_ms") == b"2"
    assert ours.num_keys() == theirs.num_keys() == 3
    theirs.set_timeout(timedelta(seconds=0.1))
    del ours
    assert os.path.exists(path)
    del theirs
    assert not os.path.exists(path)


_FILE_STORE_RANK = """
import sys
from mstorch.distributed import FileStore
rank, path = int(sys.argv[1]), sys.argv[2]
st = FileStore(path, 2)
for _ in range(50):
    st.add("count", 1)
st.set(f"done{rank}", str(rank))
st.wait(["done0", "done1"])
assert st.compare_set("winner", "", str(rank)) in (b"0", b"1")
print(int(st.get("count")), st.get("winner").decode(), st.get(f"done{1 - rank}").decode())
"""


def test_file_store_two_processes(tmp_path):
    """Two processes increment one counter under the file's lock and wait for each other; one of them
    wins compare_set; the last one out removes the file."""
    import subprocess
    path = str(tmp_path / "store")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(mstorch.__file__))] +
                                                      os.environ.get("PYTHONPATH", "").split(os.pathsep)))
    procs = [subprocess.Popen([sys.executable, "-c", _FILE_STORE_RANK, str(r), path], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for r in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    lines = [o[0].split() for o in outs]
    assert lines[0][0] == lines[1][0] == "100" and lines[0][1] == lines[1][1], lines
    assert [lines[0][2], lines[1][2]] == ["1", "0"]
    assert not os.path.exists(path)
