"""torch's top-level ATen forms beside the nn.functional ones (issue 16) where a draw or a state is compared;
their values, gradients and errors are op_db samples (op_db/nn_aten.py)."""
import pytest

from harness import check, rand


@pytest.mark.parametrize("p,train", [(0.3, True), (0.5, None), (0.9, True)])
def test_native_dropout_draws_torch_stream(p, train):
    """The mask is torch's dropout draw under the same seed; the output is input * mask / (1 - p)."""
    def fn(T):
        T.manual_seed(7)
        x = T.tensor(rand(4, 5, 3), requires_grad=True)
        out, mask = T.native_dropout(x, p, train)
        out.backward(T.tensor(rand(4, 5, 3, seed=1)))
        return out, mask, x.grad, T.rand(2)   # (the generator is left where torch leaves it)
    check(fn)


@pytest.mark.parametrize("name,gates", [("rnn_tanh", 1), ("gru", 3), ("lstm", 4)])
def test_functional_rnn_inter_layer_dropout(name, gates):
    """torch.<rnn>(..., dropout, train=True): dropout between layers draws torch's stream."""
    def fn(T):
        T.manual_seed(3)
        params = [T.tensor(rand(*s, seed=i, low=-0.5, high=0.5), requires_grad=True) for i, s in enumerate(
            [(gates * 4, 3), (gates * 4, 4), (gates * 4,), (gates * 4,)] * 1 +
            [(gates * 4, 4), (gates * 4, 4), (gates * 4,), (gates * 4,)])]
        x = T.tensor(rand(5, 2, 3, seed=9), requires_grad=True)
        h = T.tensor(rand(2, 2, 4, seed=8))
        hx = [h, T.tensor(rand(2, 2, 4, seed=7))] if name == "lstm" else h
        outs = getattr(T, name)(x, hx, params, True, 2, 0.5, True, False, False)
        sum(o.sum() for o in outs).backward()
        return outs, x.grad, [p.grad for p in params]
    check(fn, rtol=1e-4, atol=1e-5)


def test_batch_norm_update_stats():
    from harness import rand as _rand

    def fn(T):
        rm, rv = T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64)
        x = T.tensor(_rand(4, 3, 2, dtype="float64"))
        mean, var = T.batch_norm_update_stats(x, rm, rv, 0.1)     # (torch has no derivative for it)
        one = T.batch_norm_update_stats(T.tensor(_rand(1, 3)), None, None, 0.1)
        return mean, var, rm, rv, one
    check(fn)


def test_sync_batch_norm_building_blocks_equal_torch_batch_norm():
    """torch runs batch_norm_stats / gather_stats(_with_counts) / elemt / backward_reduce / backward_elemt on CUDA
    only (its CPU build refuses them). What SyncBatchNorm computes with them over replicas is torch's batch norm of
    the whole batch: the forward, the running statistics and the gradients of input, weight and bias are compared
    with torch's F.batch_norm on the same data (two replicas of 3 and 5 samples)."""
    import torch
    import mstorch
    from harness import assert_same

    x, w, b, g = rand(8, 3, 4, dtype="float64"), rand(3, seed=1, dtype="float64"), rand(3, seed=2, dtype="float64"), \
        rand(8, 3, 4, seed=3, dtype="float64")
    eps, momentum = 1e-5, 0.1
    # torch: batch norm of the whole batch
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    trm, trv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    ty = torch.nn.functional.batch_norm(tx, trm, trv, tw, tb, True, momentum, eps)
    ty.backward(torch.tensor(g))
    # mstorch: the SyncBatchNorm recipe over two replicas
    M = mstorch
    parts = [M.tensor(x[:3]), M.tensor(x[3:])]
    stats = [M.batch_norm_stats(p, eps) for p in parts]
    means, invstds = M.stack([s[0] for s in stats]), M.stack([s[1] for s in stats])
    rm, rv = M.zeros(3, dtype=M.float64), M.ones(3, dtype=M.float64)
    counts = M.tensor([3.0 * 4, 5.0 * 4], dtype=M.float64)
    mean, invstd = M.batch_norm_gather_stats_with_counts(parts[0], means, invstds, rm, rv, momentum, eps, counts)
    wm, bm = M.tensor(w), M.tensor(b)
    y = M.cat([M.batch_norm_elemt(p, wm, bm, mean, invstd, eps) for p in parts])
    grads = [M.tensor(g[:3]), M.tensor(g[3:])]
    reduced = [M.batch_norm_backward_reduce(gp, p, mean, invstd, wm, True, True, True) for gp, p in zip(grads, parts)]
    sum_dy, sum_dy_xmu = sum(r[0] for r in reduced), sum(r[1] for r in reduced)
    grad_w, grad_b = sum(r[2] for r in reduced), sum(r[3] for r in reduced)
    count = M.tensor([12, 20], dtype=M.int32)
    grad_x = M.cat([M.batch_norm_backward_elemt(gp, p, mean, invstd, wm, sum_dy, sum_dy_xmu, count)
                    for gp, p in zip(grads, parts)])
    assert_same((ty, trm, trv, tx.grad, tw.grad, tb.grad), (y, rm, rv, grad_x, grad_w, grad_b), rtol=1e-10, atol=1e-12)
    # batch_norm_gather_stats: one count for every replica
    same = M.batch_norm_gather_stats(parts[0], M.stack([stats[0][0]] * 2), M.stack([stats[0][1]] * 2), None, None,
                                     momentum, eps, 12)
    assert_same(tuple(torch.tensor(v.numpy()) for v in stats[0]), same, rtol=1e-12, atol=1e-12)
    # the optional outputs of backward_reduce are None when not asked for, as torch's undefined tensors
    assert [r is None for r in M.batch_norm_backward_reduce(grads[0], parts[0], mean, invstd, None, False, True,
                                                            False)] == [True, True, True, True]
