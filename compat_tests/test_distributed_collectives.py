"""torch.distributed collectives on MindSpore's communication engine, two processes.

One spawn of two mstorch ranks runs every collective over every dtype (and every ReduceOp for the
reductions), the object collectives, groups, async work, views, rank-0 saving of a state dict loaded
on every rank, and finally a rank that dies. The parent computes each expected result on one process
with real torch (torch's ops over both ranks' inputs; torch's own gloo at world size 1 for the errors
torch raises) and compares dtype, values and exceptions.
"""
import os
import pickle
import time
from datetime import timedelta

import pytest
import torch

import mstorch
from ranks import free_port, run_ranks

pytestmark = pytest.mark.opens_ports

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64"]
OPS = ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]
TIMEOUT = 30     # seconds: the engine's collective timeout here, so a dead rank is detected within it (and the
#                 rendezvous waits as long for the other rank, which starts slowly on a loaded 2-core host)


def inputs(T, rank, dtype, shift=0):
    """Small integers (exact in every dtype), different on each rank."""
    base = [[3, 1, 0, 2, 5, 1], [2, 1, 1, 0, 4, 3]][rank]
    base = [(v + shift) % 6 for v in base]
    if dtype == "complex64":
        return T.tensor([complex(v, v % 3) for v in base], dtype=T.complex64)
    if dtype == "bool":
        return T.tensor([bool(v % 2) for v in base])
    return T.tensor(base, dtype=getattr(T, dtype))


def py(value):
    """A comparable Python form of a tensor (dtype, values), list or other value."""
    if hasattr(value, "dtype") and hasattr(value, "tolist"):
        return (str(value.dtype).split(".")[-1], value.tolist())
    if isinstance(value, (list, tuple)):
        return [py(v) for v in value]
    return value


def attempt(fn):
    try:
        return ("ok", py(fn()))
    except Exception as e:  # noqa: BLE001 - the exception is the result compared with torch's
        return ("err", type(e).__name__, str(e))


def program(T, rank, res, tmp):
    """Everything both ranks run, in the same order; ``res`` collects each result by name."""
    d = T.distributed
    for dt in DTYPES:
        for op in OPS:
            def reduce_all(dt=dt, op=op):
                t = inputs(T, rank, dt)
                d.all_reduce(t, op=getattr(d.ReduceOp, op))
                return t
            res[("all_reduce", dt, op)] = attempt(reduce_all)

        def bcast(dt=dt):
            t = inputs(T, rank, dt)
            d.broadcast(t, src=1)
            return t

        def all_gather(dt=dt):
            outs = [T.zeros(6, dtype=getattr(T, dt)) for _ in range(2)]
            d.all_gather(outs, inputs(T, rank, dt))
            return outs

        def into_tensor(dt=dt):
            out = T.zeros(12, dtype=getattr(T, dt))
            d.all_gather_into_tensor(out, inputs(T, rank, dt))
            return out

        def gather(dt=dt):
            outs = [T.zeros(6, dtype=getattr(T, dt)) for _ in range(2)] if rank == 0 else None
            d.gather(inputs(T, rank, dt), outs, dst=0)
            return outs

        def scatter(dt=dt):
            t = T.zeros(6, dtype=getattr(T, dt))
            d.scatter(t, [inputs(T, 1, dt), inputs(T, 0, dt)] if rank == 1 else None, src=1)
            return t

        def reduce(dt=dt):
            t = inputs(T, rank, dt)
            d.reduce(t, dst=0, op=d.ReduceOp.MAX)
            return t

        def reduce_scatter(dt=dt):
            t = T.zeros(6, dtype=getattr(T, dt))
            d.reduce_scatter(t, [inputs(T, rank, dt), inputs(T, rank, dt, shift=1)], op=d.ReduceOp.MAX)
            return t

        def reduce_scatter_tensor(dt=dt):
            t = T.zeros(3, dtype=getattr(T, dt))
            d.reduce_scatter_tensor(t, inputs(T, rank, dt), op=d.ReduceOp.MAX)
            return t

        def all_to_all(dt=dt):
            outs = [T.zeros(6, dtype=getattr(T, dt)) for _ in range(2)]
            d.all_to_all(outs, [inputs(T, rank, dt), inputs(T, rank, dt, shift=2)])
            return outs

        def send_recv(dt=dt):
            t = inputs(T, rank, dt)
            if rank == 0:
                d.send(t, dst=1)
                d.irecv(t, src=1).wait()
            else:
                d.recv(t, src=0)
                d.isend(inputs(T, rank, dt, shift=3), dst=0).wait()
            return t
        for name, fn in [("broadcast", bcast), ("all_gather", all_gather), ("all_gather_into_tensor", into_tensor),
                         ("gather", gather), ("scatter", scatter), ("reduce", reduce),
                         ("reduce_scatter", reduce_scatter), ("reduce_scatter_tensor", reduce_scatter_tensor),
                         ("all_to_all", all_to_all), ("send_recv", send_recv)]:
            res[(name, dt)] = attempt(fn)

    # uneven all_to_all_single, views and non-contiguous tensors, async work and futures
    def uneven():
        x = T.arange(4, dtype=T.float32) + 10 * rank
        out = T.zeros(3 if rank == 0 else 5)
        d.all_to_all_single(out, x, output_split_sizes=[1, 2] if rank == 0 else [3, 2],
                            input_split_sizes=[1, 3] if rank == 0 else [2, 2])
        return out
    res["all_to_all_single"] = attempt(uneven)

    def batch_p2p():
        got = T.zeros(3)
        ops = [d.P2POp(d.irecv, got, 1 - rank), d.P2POp(d.isend, T.full((3,), rank + 1.0), 1 - rank)]
        for work in d.batch_isend_irecv(ops):
            work.wait()
        return got
    res["batch_isend_irecv"] = attempt(batch_p2p)

    def views():
        buf = T.zeros(4, 3)
        d.all_gather(list(buf.chunk(2)), T.full((2, 3), float(rank)))
        base = T.arange(12.0).reshape(3, 4) * (rank + 1)
        col = base.t()                              # not contiguous
        d.all_reduce(col)
        part = T.zeros(6)
        d.broadcast(part[1:4], src=1) if rank == 0 else d.broadcast(T.tensor([7.0, 8.0, 9.0]), src=1)
        return buf, base, part
    res["views"] = attempt(views)

    def async_work():
        t = T.tensor([1.0, 2.0]) * (rank + 1)
        work = d.all_reduce(t, async_op=True)
        chained = work.get_future().then(lambda f: f.value()[0] * 2)
        return chained.wait(), work.is_completed(), work.wait(), t, d.barrier(async_op=True).wait()
    res["async"] = attempt(async_work)

    def objects():
        out = [None, None]
        d.all_gather_object(out, {"rank": rank, "data": list(range(rank + 2))})
        blist = [rank, "x" * (rank + 1)]
        d.broadcast_object_list(blist, src=1)
        gathered = [None, None] if rank == 0 else None
        d.gather_object(("g", rank), gathered, dst=0)
        scattered = [None]
        d.scatter_object_list(scattered, [{"to": 0}, {"to": 1}] if rank == 0 else None, src=0)
        p2p = [None, None]
        if rank == 0:
            d.send_object_list([{"a": 1}, "b"], dst=1)
        else:
            d.recv_object_list(p2p, src=0)
        return out, blist, gathered, scattered, p2p
    res["objects"] = attempt(objects)

    def groups():
        both = d.new_group([0, 1])
        solo = [d.new_group([0]), d.new_group([1])]
        t = T.tensor([rank + 1.0])
        d.all_reduce(t, group=both)
        s = T.tensor([rank + 1.0])
        d.all_reduce(s, group=solo[rank])
        return (t, s, d.get_rank(both), d.get_world_size(both), d.get_rank(solo[1 - rank]),
                d.get_world_size(solo[rank]), str(d.get_backend(both)), d.get_process_group_ranks(solo[rank]))
    res["groups"] = attempt(groups)

    # item 4: rank 0 saves the state dict, every rank loads it
    def checkpoint():
        T.manual_seed(rank)
        model = T.nn.Linear(3, 2)
        path = os.path.join(tmp, "ckpt.pt")
        if rank == 0:
            T.save(model.state_dict(), path)
        d.barrier()
        model.load_state_dict(T.load(path, map_location="cpu", weights_only=True))
        return [t.detach() for t in model.state_dict().values()]
    res["checkpoint"] = attempt(checkpoint)


def _rank_main(rank, port, out_dir):
    import mstorch as T
    d = T.distributed
    d.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", world_size=2, rank=rank,
                         timeout=timedelta(seconds=TIMEOUT))
    res = {"rank": d.get_rank(), "world": d.get_world_size(), "backend": str(d.get_backend())}
    program(T, rank, res, out_dir)
    d.barrier()
    if rank == 1:                     # dies without a word: rank 0's next collective must fail, not hang
        with open(os.path.join(out_dir, "rank1.pkl"), "wb") as f:
            pickle.dump(res, f)
        os._exit(0)
    start = time.monotonic()
    res["dead_peer"] = attempt(lambda: d.all_reduce(T.ones(2)))
    res["dead_peer_seconds"] = time.monotonic() - start
    with open(os.path.join(out_dir, "rank0.pkl"), "wb") as f:
        pickle.dump(res, f)


# --- the reference: one process of real torch -------------------------------------------------------

def fold(op, values):
    a, b = values
    if op == "SUM":
        return a | b if a.dtype == torch.bool else a + b
    if op == "PRODUCT":
        return a & b if a.dtype == torch.bool else a * b
    if op == "AVG":
        return (a + b) / 2
    return {"MIN": torch.minimum, "MAX": torch.maximum, "BAND": torch.bitwise_and, "BOR": torch.bitwise_or,
            "BXOR": torch.bitwise_xor}[op](a, b)


def torch_error(fn):
    """torch's exception for ``fn`` at world size 1 on gloo (None when it runs)."""
    got = attempt(fn)
    return got if got[0] == "err" else None


def world1_errors(dt):
    """torch's exception (gloo, world size 1) for each collective on ``dt``, None where it runs."""
    d = torch.distributed
    x, z = (lambda: inputs(torch, 0, dt)), (lambda n=6: torch.zeros(n, dtype=getattr(torch, dt)))
    calls = {"broadcast": lambda: d.broadcast(x(), src=0), "all_gather": lambda: d.all_gather([z()], x()),
             "all_gather_into_tensor": lambda: d.all_gather_into_tensor(z(), x()),
             "gather": lambda: d.gather(x(), [z()], dst=0), "scatter": lambda: d.scatter(z(), [x()], src=0),
             "reduce": lambda: d.reduce(x(), dst=0, op=d.ReduceOp.MAX),
             "reduce_scatter": lambda: d.reduce_scatter(z(), [x()], op=d.ReduceOp.MAX),
             "reduce_scatter_tensor": lambda: d.reduce_scatter_tensor(z(), x(), op=d.ReduceOp.MAX),
             "all_to_all": lambda: d.all_to_all([z()], [x()])}
    errors = {name: torch_error(fn) for name, fn in calls.items()}
    errors["send_recv"] = errors["broadcast"]      # a send to itself is refused at world size 1
    return errors


def expected(rank, path):
    d = torch.distributed
    exp = {}
    for dt in DTYPES:
        ins = [inputs(torch, r, dt) for r in range(2)]
        for op in OPS:
            err = torch_error(lambda: d.all_reduce(inputs(torch, 0, dt), op=getattr(d.ReduceOp, op)))
            exp[("all_reduce", dt, op)] = err or ("ok", py(fold(op, ins)))
        errors = world1_errors(dt)
        lists = [[inputs(torch, r, dt), inputs(torch, r, dt, shift=1)] for r in range(2)]
        a2a = [[inputs(torch, r, dt), inputs(torch, r, dt, shift=2)] for r in range(2)]
        ok = {"broadcast": lambda: ins[1], "all_gather": lambda: ins, "all_gather_into_tensor": lambda: torch.cat(ins),
              "gather": lambda: ins if rank == 0 else None, "scatter": lambda: ins[1 - rank],
              "reduce": lambda: fold("MAX", ins) if rank == 0 else ins[rank],
              "reduce_scatter": lambda: fold("MAX", [lists[0][rank], lists[1][rank]]),
              "reduce_scatter_tensor": lambda: fold("MAX", [i.chunk(2)[rank] for i in ins]),
              "all_to_all": lambda: [a2a[0][rank], a2a[1][rank]],
              "send_recv": lambda: inputs(torch, 1, dt, shift=3) if rank == 0 else ins[0]}
        for name, value in ok.items():
            exp[(name, dt)] = errors[name] or ("ok", py(value()))
    exp["all_to_all_single"] = ("ok", py(torch.tensor([0.0, 10.0, 11.0]) if rank == 0
                                         else torch.tensor([1.0, 2.0, 3.0, 12.0, 13.0])))
    exp["batch_isend_irecv"] = ("ok", py(torch.full((3,), 2.0 - rank)))
    part = torch.tensor([0.0, 7.0, 8.0, 9.0, 0.0, 0.0]) if rank == 0 else torch.zeros(6)
    exp["views"] = ("ok", py((torch.cat([torch.zeros(2, 3), torch.ones(2, 3)]),
                              torch.arange(12.0).reshape(3, 4) * 3, part)))
    s = torch.tensor([3.0, 6.0])
    exp["async"] = ("ok", py((s * 2, True, True, s, True)))
    exp["objects"] = ("ok", py(([{"rank": 0, "data": [0, 1]}, {"rank": 1, "data": [0, 1, 2]}], [1, "xx"],
                                [("g", 0), ("g", 1)] if rank == 0 else None, [{"to": rank}],
                                [{"a": 1}, "b"] if rank == 1 else [None, None])))
    exp["groups"] = ("ok", py((torch.tensor([3.0]), torch.tensor([rank + 1.0]), rank, 2, -1, 1, "gloo", [rank])))
    # rank 0's saved parameters, read by real torch: every rank must hold them after loading
    exp["checkpoint"] = ("ok", py(list(torch.load(path, weights_only=True).values())))
    return exp


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ranks")
    run_ranks(mstorch, _rank_main, (free_port(), str(tmp)))
    got = [pickle.load(open(tmp / f"rank{r}.pkl", "rb")) for r in range(2)]
    torch.distributed.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{free_port()}", world_size=1, rank=0)
    try:
        exp = [expected(r, tmp / "ckpt.pt") for r in range(2)]
    finally:
        torch.distributed.destroy_process_group()
    return got, exp


def _check(ranks, keys):
    got, exp = ranks
    bad = [(r, k, exp[r][k], got[r].get(k)) for r in range(2) for k in keys if got[r].get(k) != exp[r][k]]
    assert not bad, "\n".join(f"rank {r} {k}: torch {e!r}\n  mstorch {g!r}" for r, k, e, g in bad[:10])


def test_world(ranks):
    got, _ = ranks
    assert [(g["rank"], g["world"], g["backend"]) for g in got] == [(0, 2, "gloo"), (1, 2, "gloo")]


@pytest.mark.parametrize("dtype", DTYPES)
def test_all_reduce_every_op(ranks, dtype):
    _check(ranks, [("all_reduce", dtype, op) for op in OPS])


@pytest.mark.parametrize("dtype", DTYPES)
def test_moving_collectives(ranks, dtype):
    _check(ranks, [(name, dtype) for name in ("broadcast", "all_gather", "all_gather_into_tensor", "gather",
                                              "scatter", "reduce", "reduce_scatter", "reduce_scatter_tensor",
                                              "all_to_all", "send_recv")])


@pytest.mark.parametrize("what", ["all_to_all_single", "batch_isend_irecv", "views", "async", "objects", "groups", "checkpoint"])
def test_more(ranks, what):
    _check(ranks, [what])


def test_dead_rank_fails_within_timeout(ranks):
    got, _ = ranks
    outcome = got[0]["dead_peer"]
    assert outcome[0] == "err" and outcome[1] == "DistBackendError", outcome
    assert "all_reduce failed" in outcome[2] and "died" in outcome[2], outcome
    assert got[0]["dead_peer_seconds"] < TIMEOUT + 10


_FILE_RENDEZVOUS_RANK = """
import sys
from datetime import timedelta
from mstorch.distributed import distributed_c10d as c10d
rank = int(sys.argv[2])
store, r, w = c10d._rendezvous(sys.argv[1] + str(rank), -1, -1, timedelta(seconds=60))
store.set(f"from{rank}", "ab"[rank])
other = store.get(f"from{1 - rank}")
store.add("n", rank + 2)
store.set(f"done{rank}", "1")
store.wait([f"done{1 - rank}"])
total = store.add("n", 0)
store.set(f"read{rank}", "1")
store.wait([f"read{1 - rank}"])      # rank 0 serves the store: it stays until rank 1 has read
print("RESULT", r, w, other.decode(), total, flush=True)
"""


def test_file_rendezvous(tmp_path):
    """``file://``: rank 0 serves MindSpore's store and writes its address into the file; rank 1 finds it
    there. Two processes (MindSpore's store server and client in two threads of one process crashed it)."""
    import subprocess
    import sys
    url = f"file://{tmp_path / 'rdzv'}?world_size=2&rank="
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(mstorch.__file__)),
                                                       os.environ.get("PYTHONPATH", "")]))
    procs = [subprocess.Popen([sys.executable, "-c", _FILE_RENDEZVOUS_RANK, url, str(rank)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for rank in (1, 0)]
    outs = [p.communicate(timeout=120) for p in procs]
    results = sorted(line.split()[1:] for out, _ in outs for line in out.splitlines() if line.startswith("RESULT"))
    assert results == [["0", "2", "b", "5"], ["1", "2", "a", "5"]], [err[-2000:] for _, err in outs]
