"""accelerate on a single CPU process, run unmodified through ``python -m mstorch run`` where torch is not
installed, against the same script on real torch: accelerate's import-time checks, ``Accelerator()`` with
``prepare`` (model, optimizer, shuffled dataloader, scheduler), ``backward``, ``clip_grad_norm_``, ``gather``,
``reduce``, ``unwrap_model``, ``print``, and a ``save_state``/``load_state`` round trip that restores
parameters, optimizer, scheduler and RNG; real torch then loads the checkpoint mstorch wrote."""
from harness import check_as_torch as check  # value and error cases side by side: as torch does
from json_compare import assert_close

CASE = r'''
import inspect, json, os
import accelerate.utils.imports as I
checks = {}
for name, fn in sorted(vars(I).items()):   # every no-argument is_*() check accelerate runs
    if not (name.startswith("is_") and inspect.isfunction(inspect.unwrap(fn)) and fn.__module__ == I.__name__):
        continue
    params = inspect.signature(inspect.unwrap(fn)).parameters.values()
    if any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
        continue
    try:
        checks[name] = fn()
    except Exception as e:
        checks[name] = type(e).__name__
from accelerate.utils import is_torch_version
checks["torch_version_checks"] = [is_torch_version(">=", "2.4.0"), is_torch_version("<", "2.13.0"),
                                  is_torch_version(">=", "2.13.0")]

import torch
from torch.utils.data import DataLoader, TensorDataset
from accelerate import Accelerator
from accelerate.utils import set_seed

def step(model, opt, batch):
    xb, yb = batch
    loss = torch.nn.functional.mse_loss(model(xb), yb)
    acc.backward(loss)
    norm = acc.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    opt.zero_grad()
    return loss.item(), float(norm)

def params(m):
    return {k: v.detach().flatten().tolist() for k, v in m.state_dict().items()}

out = {"checks": checks}
set_seed(0)
acc = Accelerator()
out["state"] = [str(acc.device), acc.num_processes, acc.process_index, acc.is_main_process, acc.mixed_precision,
                str(acc.distributed_type)]
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
opt = torch.optim.AdamW(model.parameters(), lr=0.05)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
g = torch.Generator().manual_seed(1)
data = TensorDataset(torch.randn(12, 4, generator=g), torch.randn(12, 2, generator=g))
model, opt, dl, sched = acc.prepare(model, opt, DataLoader(data, batch_size=4, shuffle=True), sched)
out["steps"] = []
for epoch in range(2):
    for batch in dl:
        out["steps"].append(step(model, opt, batch))
        sched.step()
out["lr"] = sched.get_last_lr()
out["gather"] = acc.gather(torch.tensor([1.5, 2.5])).tolist()
out["gather_for_metrics"] = acc.gather_for_metrics(torch.arange(3)).tolist()
out["reduce"] = acc.reduce(torch.tensor([2.0]), reduction="sum").tolist()
net = acc.unwrap_model(model)
out["unwrapped"] = [type(net).__name__, net is model or type(model).__name__]
out["params"] = params(net)
acc.print("printed once, by the main process")

mine = "torch_state" if torch.__name__ == "torch" else "mstorch_state"
acc.save_state(mine)
out["files"] = sorted(os.listdir(mine))
saved, draws = params(net), torch.rand(3).tolist()
with torch.no_grad():                      # disturb parameters, optimizer, scheduler and RNG ...
    for p in net.parameters():
        p.add_(1.0)
step(model, opt, next(iter(dl)))
sched.step()
torch.rand(5)
acc.load_state(mine)                       # ... and restore them
out["restored"] = [params(net) == saved, sched.get_last_lr(), torch.rand(3).tolist() == draws,
                   opt.state_dict()["state"][0]["step"].item()]
out["after_restore"] = [step(model, opt, next(iter(dl))), params(net)]
if torch.__name__ == "torch":              # real torch reads what mstorch's run wrote
    acc.load_state("mstorch_state")
    out["read_mstorch_state"] = [params(net), sched.get_last_lr(), torch.rand(3).tolist() == draws]
print(json.dumps(out))
'''


def test_import_checks_training_save_and_load_state(run_case):
    got = run_case(CASE, "run")            # first: it writes mstorch_state for the torch run to read
    ref = run_case(CASE, "torch")
    checks = ref["checks"]
    assert checks["torch_version_checks"] == [True, False, True] and checks["is_torch_xla_available"] is False
    assert [checks["is_cuda_available"], checks["is_mps_available"], checks["is_bf16_available"]] == [False, False, True]
    assert ref["restored"][0] and ref["restored"][2]
    assert ref["files"] == ["model.safetensors", "optimizer.bin", "random_states_0.pkl", "scheduler.bin"]
    # torch loads mstorch's checkpoint: mstorch's parameters exactly, its scheduler and RNG state
    assert ref.pop("read_mstorch_state") == [got["params"], ref["restored"][1], True]
    assert_close(ref, got)


# --- the torch names accelerate reaches, side by side in this process (harness) ---------------------------------

def test_profiler_names():
    def fn(T):
        P = T.profiler
        s = P.schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
        s2 = P.schedule(wait=2, warmup=1, active=1, skip_first_wait=1)
        return ([repr(a) for a in P.ProfilerActivity.__members__.values()], str(P.ProfilerActivity.CUDA),
                int(P.ProfilerActivity.MTIA), [repr(s(i)) for i in range(11)], [repr(s2(i)) for i in range(6)],
                [repr(a) for a in P.supported_activities()])
    check(fn)
    check(lambda T: T.profiler.schedule(wait=-1, warmup=0, active=1))
    check(lambda T: T.profiler.schedule(wait=0, warmup=1, active=1)(-1))

    def labelled(T):
        with T.profiler.record_function("region"):
            return T.ones(2) * 3
    check(labelled)


def test_placements_and_wrapper_types():
    def types(T):
        dt, fsdp = T.distributed.tensor, T.distributed.fsdp
        lin = T.nn.Linear(2, 2)
        return ([repr(dt.Shard(1)), str(dt.Shard(1)), repr(dt.Replicate()), str(dt.Replicate()), repr(dt.Partial()),
                 str(dt.Partial("max")), dt.Shard(0) == dt.Shard(0), dt.Shard(0) == dt.Shard(1),
                 dt.Replicate() == dt.Replicate(), dt.Shard(0).is_shard(), dt.Shard(0).is_shard(1),
                 dt.Partial().is_partial(), dt.Replicate().is_replicate(), dt.Shard(0).is_replicate()],
                [isinstance(p, dt.DTensor) for p in lin.parameters()], issubclass(dt.DTensor, T.Tensor),
                isinstance(lin, fsdp.FullyShardedDataParallel), [repr(s) for s in fsdp.ShardingStrategy],
                [str(s) for s in fsdp.StateDictType],
                fsdp.fully_sharded_data_parallel.StateDictType is fsdp.StateDictType,
                issubclass(fsdp.fully_sharded_data_parallel.FullyShardedDataParallel, T.nn.Module))
    check(types)


def test_join_needs_joinables():
    def fn(T):
        from importlib import import_module
        join = import_module(T.__name__ + ".distributed.algorithms.join")
        return join.Join([])
    check(fn)


def test_untyped_storage_shared_by_views():
    def fn(T):
        a = T.arange(6.).reshape(2, 3)
        s = a.untyped_storage()
        b = T.nn.Linear(2, 2)
        return ([v.untyped_storage().data_ptr() == s.data_ptr() for v in (a[1], a.t(), a.view(6), a[:, 1:])],
                a.clone().untyped_storage().data_ptr() == s.data_ptr(), s.nbytes(), s.size(), len(s),
                s.element_size(), str(s.device), s[4], s.tolist()[:8], T.is_storage(s),
                T.is_storage(a), b.weight.untyped_storage().data_ptr() == b.weight.data_ptr(),
                repr(T.zeros(1, dtype=T.uint8).untyped_storage()).splitlines()[-1].replace("torch.storage.", ""))
    check(fn)
