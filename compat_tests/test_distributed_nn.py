"""torch.distributed.nn.functional (collectives with autograd) and torch.distributed.elastic.multiprocessing.errors
against torch: values and gradients at world size 1 beside torch's gloo, gradients across two mstorch ranks
against torch's formulas over both ranks' inputs, and ChildFailedError / @record with torch's messages and files."""
import json
import os
import pickle
from datetime import timedelta

import numpy as np
import pytest
import torch

import mstorch
from harness import assert_same, rand
from ranks import free_port, run_ranks
from test_distributed import world1  # noqa: F401  (the world-size-1 groups on both libraries)

pytestmark = pytest.mark.opens_ports


CALLS = {
    "all_reduce": lambda F, x: F.all_reduce(x * 2),
    "all_reduce_max": lambda F, x: F.all_reduce(x * 2, op=mstorch.distributed.ReduceOp.MAX
                                                if F.__name__.startswith("mstorch") else torch.distributed.ReduceOp.MAX),
    "broadcast": lambda F, x: F.broadcast(x * 3, src=0),
    "reduce": lambda F, x: F.reduce(x * 3, dst=0),
    "all_gather": lambda F, x: F.all_gather(x * 2),
    "gather": lambda F, x: F.gather(x * 2, dst=0),
    "scatter": lambda F, x: F.scatter([x * 2], src=0),
    "all_to_all": lambda F, x: F.all_to_all([x.new_empty(x.shape)], [x * 2]),
}


class _WithGroup:
    def __init__(self, module, group):
        self.module, self.group, self.__name__ = module, group, module.__name__

    def __getattr__(self, name):
        f = getattr(self.module, name)
        return lambda *a, **k: f(*a, group=self.group, **k)


@pytest.mark.parametrize("name", list(CALLS))
def test_world_size_one(world1, name):  # noqa: F811  (the fixture imported above)
    def fn(T):
        import importlib
        F = importlib.import_module(f"{T.__name__}.distributed.nn.functional")
        x = T.tensor(rand(2, 3), requires_grad=True)
        # (torch binds the default group= when the module is first imported: pass this test's group)
        out = CALLS[name](_WithGroup(F, T.distributed.group.WORLD), x)
        outs = out if isinstance(out, tuple) else (out,)
        w = T.tensor(rand(2, 3, seed=1))
        sum((o * w).sum() for o in outs).backward()
        return [o.detach() for o in outs], x.grad
    assert_same(fn(torch), fn(mstorch))


# --- two ranks: gradients by torch's formulas over both ranks' inputs -------------------------------

def _inputs(rank):
    return rand(2, 3, seed=rank), rand(2, 3, seed=10 + rank)   # x, the weight of rank's loss


def _rank_main(rank, port, out_dir):
    import mstorch as T
    from mstorch.distributed.nn import functional as F
    T.distributed.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", world_size=2, rank=rank,
                                     timeout=timedelta(seconds=60))   # a deadlock fails instead of hanging
    xa, wa = _inputs(rank)
    res = {}
    for name in ("all_reduce", "broadcast", "reduce", "all_gather"):
        x, w = T.tensor(xa, requires_grad=True), T.tensor(wa)
        out = {"all_reduce": lambda: F.all_reduce(x * 2), "broadcast": lambda: F.broadcast(x * 3, src=1),
               "reduce": lambda: F.reduce(x * 3, dst=0), "all_gather": lambda: F.all_gather(x * 2)}[name]()
        outs = out if isinstance(out, tuple) else (out,)
        sum((o * w * (i + 1)).sum() for i, o in enumerate(outs)).backward()
        res[name] = ([o.detach().numpy() for o in outs], x.grad.numpy())
    T.distributed.barrier()
    T.distributed.destroy_process_group()
    with open(os.path.join(out_dir, f"rank{rank}.pkl"), "wb") as f:
        pickle.dump(res, f)


def _expected(rank):
    """What each rank gets, by torch on one process: the outputs, and d(sum over ranks of each rank's loss)/dx."""
    xs = [torch.tensor(_inputs(r)[0], requires_grad=True) for r in range(2)]
    ws = [torch.tensor(_inputs(r)[1]) for r in range(2)]
    res = {}
    for name in ("all_reduce", "broadcast", "reduce", "all_gather"):
        for x in xs:
            x.grad = None
        if name == "all_reduce":
            outs = [[(xs[0] + xs[1]) * 2] for _ in range(2)]
        elif name == "broadcast":
            outs = [[xs[1] * 3] for _ in range(2)]
        elif name == "reduce":   # only the destination's result is defined; the others keep their own input
            outs = [[(xs[0] + xs[1]) * 3], [xs[1] * 3]]
        else:
            outs = [[xs[0] * 2, xs[1] * 2] for _ in range(2)]
        total = sum((o * ws[r] * (i + 1)).sum() for r in range(2) for i, o in enumerate(outs[r]))
        if name == "reduce":   # torch's backward: the gradient of the destination's output, broadcast
            total = sum((o * ws[0]).sum() for o in outs[0])
        total.backward()
        grad = xs[rank].grad
        res[name] = ([o.detach().numpy() for o in outs[rank]], np.zeros((2, 3), np.float32) if grad is None
                     else grad.numpy())
    return res


def test_two_ranks(tmp_path):
    run_ranks(mstorch, _rank_main, (free_port(), str(tmp_path)))
    for rank in range(2):
        got = pickle.load(open(tmp_path / f"rank{rank}.pkl", "rb"))
        exp = _expected(rank)
        for name in exp:
            for g, e in zip(got[name][0], exp[name][0]):
                np.testing.assert_allclose(g, e, rtol=1e-6, err_msg=f"rank {rank} {name} output")
            np.testing.assert_allclose(got[name][1], exp[name][1], rtol=1e-6, err_msg=f"rank {rank} {name} grad")


# --- ChildFailedError and @record --------------------------------------------------------------------

def _errors(T):
    import importlib
    return importlib.import_module(f"{T.__name__}.distributed.elastic.multiprocessing.errors")


def test_record_writes_torchs_error_file_and_child_failed_error_formats_it(tmp_path, monkeypatch):
    texts = {}
    for T in (torch, mstorch):
        E = _errors(T)
        path = tmp_path / f"{T.__name__}_error.json"
        monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(path))

        @E.record
        def main():
            raise ValueError("I'm an even process")
        with pytest.raises(ValueError):
            main()
        data = json.loads(path.read_text())
        failure = E.ProcessFailure(local_rank=0, pid=123, exitcode=1, error_file=str(path))
        signalled = E.ProcessFailure(local_rank=1, pid=124, exitcode=-9, error_file="/nonexistent")
        signalled.timestamp = failure.timestamp + 5
        err = E.ChildFailedError("train.py", {0: failure, 1: signalled})
        # (the traceback names each library's own wrapper frame: compared by its last line)
        tb = data["message"]["extraInfo"]["py_callstack"]
        texts[T.__name__] = (sorted(data["message"]), data["message"]["message"], tb.strip().splitlines()[-1],
                             str(err).replace(str(path), "PATH").replace(tb.replace("\n", "\n  "), "TRACEBACK"), err.get_first_failure()[0],
                             isinstance(err, Exception), signalled.message, signalled.signal_name())
        with pytest.raises(AssertionError):
            E.ChildFailedError("x", {})

        @E.record
        def clean_exit():
            raise SystemExit(0)
        assert clean_exit() is None
    assert texts["mstorch"] == texts["torch"]
