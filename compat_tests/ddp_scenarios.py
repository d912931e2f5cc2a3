"""The two-rank DistributedDataParallel scenarios of test_ddp.py, written once against a library ``T``
(torch or mstorch). A module of its own so that each library's spawned ranks import only that library."""
import importlib
import os

import numpy as np

STEPS = 5


def init_weights(T, m, seed=0):
    with T.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(T.tensor(np.random.RandomState(seed + i).uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
    return m


def mlp(T):
    return init_weights(T, T.nn.Sequential(T.nn.Linear(4, 8), T.nn.Tanh(), T.nn.Linear(8, 8), T.nn.Tanh(),
                                           T.nn.Linear(8, 2)))


def wide(T):
    """Two 8x8 layers (one shape twice: PowerSGD's batching by shape)."""
    return init_weights(T, T.nn.Sequential(T.nn.Linear(4, 8), T.nn.Tanh(), T.nn.Linear(8, 8), T.nn.Tanh(),
                                           T.nn.Linear(8, 8), T.nn.Tanh(), T.nn.Linear(8, 2)))


def heads(T):
    """A trunk and three heads: ``a`` always used, ``b`` used on rank 1 only, ``c`` never."""
    class Heads(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.trunk, self.a, self.b, self.c = (T.nn.Linear(4, 4), T.nn.Linear(4, 2), T.nn.Linear(4, 2),
                                                  T.nn.Linear(4, 2))

        def forward(self, x, use_b):
            h = self.trunk(x).tanh()
            return self.a(h) + self.b(h) if use_b else self.a(h)
    return init_weights(T, Heads())


def data(n=8):
    rs = np.random.RandomState(7)
    return rs.randn(STEPS, n, 4).astype(np.float32), rs.randn(STEPS, n, 2).astype(np.float32)


def numpy_of(xs):
    return [None if x is None else x.detach().numpy().copy() for x in xs]


def default_hooks(T):
    return importlib.import_module(T.__name__ + ".distributed.algorithms.ddp_comm_hooks.default_hooks")


def recording_hook(log):
    """An all-reduce comm hook that records what each bucket holds."""
    def hook(state, bucket):
        log.append((bucket.index(), [tuple(p.shape) for p in bucket.parameters()], bucket.buffer().numel(),
                    bucket.is_last(), str(bucket.buffer().dtype).split(".")[-1],
                    [tuple(g.shape) for g in bucket.gradients()]))
        return state(None, bucket)
    return hook


# --- the two-rank scenarios, run by each library ---------------------------------------------------------

def scenarios(T, rank):
    DDP = T.nn.parallel.DistributedDataParallel
    hooks = default_hooks(T)
    xs, ys = data()
    half = slice(4 * rank, 4 * rank + 4)
    mse = T.nn.functional.mse_loss
    res = {}

    # 5 SGD steps on half the batch each; rank 1 starts from other weights (construction broadcasts rank 0's)
    model = mlp(T)
    if rank == 1:
        with T.no_grad():
            for p in model.parameters():
                p.add_(1.0)
    ddp = DDP(model, bucket_cap_mb=0.0005)        # several buckets even for this small model
    opt = T.optim.SGD(ddp.parameters(), lr=0.1)
    res["train"] = []
    for s in range(STEPS):
        opt.zero_grad()
        mse(ddp(T.tensor(xs[s][half])), T.tensor(ys[s][half])).backward()
        opt.step()
        res["train"].append(numpy_of(ddp.parameters()))

    # gradient accumulation: each rank's half batch in two micro-batches, the first under no_sync, several
    # buckets; with gradient_as_bucket_view too (zero_grad to None each step: new .grad copied into the views)
    for name, kw in (("train_no_sync", {}), ("train_no_sync_view", {"gradient_as_bucket_view": True})):
        ddp = DDP(mlp(T), bucket_cap_mb=0.0002, **kw)
        opt = T.optim.SGD(ddp.parameters(), lr=0.1)
        res[name] = []
        for s in range(STEPS):
            opt.zero_grad()
            x, y = T.tensor(xs[s][half]), T.tensor(ys[s][half])
            with ddp.no_sync():
                (mse(ddp(x[:2]), y[:2]) / 2).backward()
            (mse(ddp(x[2:]), y[2:]) / 2).backward()
            opt.step()
            res[name].append(numpy_of(ddp.parameters()))

    # overlap: the comm hook of a bucket of the last layers is called inside backward, before the first
    # layer's gradient is computed (one bucket in the first iteration, rebuilt by gradient order after it)
    model = mlp(T)
    ddp = DDP(model, bucket_cap_mb=0.0002)
    log = []

    def logging_hook(state, bucket):
        log.append(f"bucket {bucket.index()} launched")
        return hooks.allreduce_hook(state, bucket)
    ddp.register_comm_hook(None, logging_hook)
    model[0].weight.register_hook(lambda grad: log.append("first layer's weight gradient computed"))
    res["overlap"] = []
    for s in range(3):
        ddp.zero_grad()
        mse(ddp(T.tensor(xs[s][half])), T.tensor(ys[s][half])).backward()
        res["overlap"].append(list(log))
        log.clear()
    res["overlap_grads"] = numpy_of(p.grad for p in ddp.parameters())

    # gradient_as_bucket_view: .grad are views of the buckets, divided there in place from the second step
    ddp = DDP(mlp(T), bucket_cap_mb=0.0005, gradient_as_bucket_view=True)
    opt = T.optim.SGD(ddp.parameters(), lr=0.1)
    res["bucket_view"] = []
    for s in range(3):
        opt.zero_grad(set_to_none=s == 2)
        mse(ddp(T.tensor(xs[s][half])), T.tensor(ys[s][half])).backward()
        opt.step()
        res["bucket_view"].append(numpy_of(p.grad for p in ddp.parameters()))

    # PowerSGD: averaging all-reduce for the first steps, then rank-r compression (Gram-Schmidt for r <= 2,
    # QR above) with error feedback and warm start, Q drawn from the state's seed; a bucket rebuild after step 1.
    # One bucket each: torch's hook chains of several buckets run on gloo's threads and may issue their
    # all-reduces in another order on each rank (a collective mismatch in torch itself)
    powersgd = importlib.import_module(T.__name__ + ".distributed.algorithms.ddp_comm_hooks.powerSGD_hook")
    for name, make, cap, kw in [
            ("powerSGD_r1", mlp, None, dict(matrix_approximation_rank=1, start_powerSGD_iter=2)),
            ("powerSGD_r3_batched", wide, None, dict(matrix_approximation_rank=3, start_powerSGD_iter=2,
                                                       min_compression_rate=1, batch_tensors_with_same_shape=True,
                                                       random_seed=5)),
            ("powerSGD_r2_cold", wide, None, dict(matrix_approximation_rank=2, start_powerSGD_iter=1,
                                                  warm_start=False, use_error_feedback=False, min_compression_rate=1))]:
        ddp = DDP(make(T), bucket_cap_mb=cap)
        state = powersgd.PowerSGDState(None, **kw)
        ddp.register_comm_hook(state, powersgd.powerSGD_hook)
        opt = T.optim.SGD(ddp.parameters(), lr=0.1)
        res[name] = []
        for s in range(STEPS):
            opt.zero_grad()
            mse(ddp(T.tensor(xs[s][half])), T.tensor(ys[s][half])).backward()
            opt.step()
            res[name].append(numpy_of(p.grad for p in ddp.parameters()))
        res[name].append([state.iter, state.compression_stats(), sorted(state.error_dict)])

    # no_sync: two local backward passes, then a synced one reduces all three
    ddp = DDP(mlp(T))
    with ddp.no_sync():
        for s in range(2):
            mse(ddp(T.tensor(xs[s][half])), T.tensor(ys[s][half])).backward()
    res["no_sync_local"] = numpy_of(p.grad for p in ddp.parameters())
    mse(ddp(T.tensor(xs[2][half])), T.tensor(ys[2][half])).backward()
    res["no_sync"] = numpy_of(p.grad for p in ddp.parameters())

    # comm hooks, recording the buckets they get (two iterations: the buckets are rebuilt after the first)
    for name in ("allreduce_hook", "fp16_compress_hook"):
        ddp = DDP(mlp(T), bucket_cap_mb=0.0002)
        log = []
        ddp.register_comm_hook(getattr(hooks, name), recording_hook(log))
        for s in range(2):
            ddp.zero_grad()
            mse(ddp(T.tensor(xs[s][half])), T.tensor(ys[s][half])).backward()
        res[name] = numpy_of(p.grad for p in ddp.parameters())
        res[name + "_buckets"] = log

    # unused parameters: head b is used by rank 1 only, head c by no rank
    ddp = DDP(heads(T), find_unused_parameters=True)
    for s in range(2):
        ddp.zero_grad(set_to_none=True)
        mse(ddp(T.tensor(xs[s][half]), rank == 1), T.tensor(ys[s][half])).backward()
    res["unused"] = numpy_of(p.grad for p in ddp.parameters())

    # static graph: the same always-unused head c, found in the first iteration
    ddp = DDP(heads(T), static_graph=True)
    for s in range(3):
        ddp.zero_grad(set_to_none=True)
        mse(ddp(T.tensor(xs[s][half]), False), T.tensor(ys[s][half])).backward()
    res["static"] = numpy_of(p.grad for p in ddp.parameters())

    # buffers: running statistics diverge in forward; the next forward starts from rank 0's
    for broadcast in (True, False):
        bn = T.nn.BatchNorm1d(4)
        ddp = DDP(init_weights(T, T.nn.Sequential(T.nn.Linear(4, 4), bn)), broadcast_buffers=broadcast)
        stats = []
        for s in range(2):
            ddp(T.tensor(xs[s][half] * (1 + rank))).sum().backward()
            stats.append(numpy_of([bn.running_mean, bn.running_var, bn.num_batches_tracked]))
        res[f"buffers_{broadcast}"] = stats

    # join: rank 1 has one more input than rank 0
    ddp = DDP(mlp(T))
    opt = T.optim.SGD(ddp.parameters(), lr=0.1)
    with ddp.join():
        for s in range(2 + rank):
            opt.zero_grad()
            mse(ddp(T.tensor(xs[s][half])), T.tensor(ys[s][half])).backward()
            opt.step()
    res["join"] = numpy_of(ddp.parameters())
    return res


def _rank(rank, lib, port, out_dir):
    import warnings
    from datetime import timedelta
    warnings.simplefilter("ignore")
    T = __import__(lib)
    T.distributed.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", world_size=2, rank=rank,
                                     timeout=timedelta(seconds=60))   # a deadlock fails instead of hanging
    try:
        res = scenarios(T, rank)
        np.save(os.path.join(out_dir, f"{lib}{rank}.npy"), np.array(res, dtype=object), allow_pickle=True)
    finally:
        T.distributed.destroy_process_group()
