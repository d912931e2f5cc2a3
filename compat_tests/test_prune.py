"""torch.nn.utils.prune against torch: masks, pruned weights, state_dict keys, the forward pre-hooks, iterative
pruning (PruningContainer), global pruning, remove, the seeded random methods (the same entries as torch's)
and the argument errors."""
import pytest
import torch.nn.utils.prune  # noqa: F401  (torch does not import it with torch.nn)

from harness import check, rand, run, Raised, NAMESPACES


def _model(T):
    T.manual_seed(0)
    return T.nn.Sequential(T.nn.Conv2d(2, 4, 3), T.nn.ReLU(), T.nn.Flatten(), T.nn.Linear(16, 3))


def _x(T):
    return T.tensor(rand(2, 2, 4, 4, seed=3))


def _report(T, model, *names):
    """What is observable after pruning: state_dict keys and values, parameter names, the pruned
    attributes, the forward output, the pre-hooks' classes, is_pruned, and gradients through the mask."""
    out = model(_x(T))
    out.sum().backward()
    state = model.state_dict()
    hooks = [(n, [type(h).__name__ for h in m._forward_pre_hooks.values()]) for n, m in model.named_modules()]
    grads = [(n, p.grad) for n, p in model.named_parameters()]
    pruned = [getattr(model[int(i)], attr) for i, attr in (n.split(".") for n in names)]
    return (list(state.keys()), list(state.values()), [n for n, _ in model.named_parameters()], pruned, out, hooks,
            T.nn.utils.prune.is_pruned(model), grads)


CASES = {
    "l1": lambda T, P: P.l1_unstructured(T.nn.Linear(5, 4), "weight", amount=0.3),
    "l1_int": lambda T, P: P.l1_unstructured(T.nn.Linear(5, 4), "bias", amount=2),
    "random": lambda T, P: P.random_unstructured(T.nn.Linear(5, 4), "weight", amount=0.5),
    "random_structured": lambda T, P: P.random_structured(T.nn.Linear(5, 4), "weight", amount=2, dim=0),
    "ln": lambda T, P: P.ln_structured(T.nn.Conv2d(2, 5, 3), "weight", amount=0.4, n=2, dim=0),
    "ln_inf": lambda T, P: P.ln_structured(T.nn.Conv2d(2, 5, 3), "weight", amount=1, n=float("inf"), dim=1),
    "ln_neg_dim": lambda T, P: P.ln_structured(T.nn.Linear(6, 4), "weight", amount=0.5, n=1, dim=-1),
    "identity": lambda T, P: P.identity(T.nn.Linear(3, 2), "weight"),
    "custom": lambda T, P: P.custom_from_mask(T.nn.Linear(3, 2), "weight", T.tensor([[1, 0, 1], [0, 1, 1]])),
    "importance": lambda T, P: P.l1_unstructured(T.nn.Linear(3, 2), "weight", amount=2,
                                                 importance_scores=T.tensor(rand(2, 3, seed=9))),
    "iterative": lambda T, P: P.l1_unstructured(P.random_unstructured(T.nn.Linear(5, 4), "weight", 0.3),
                                                "weight", 0.3),
    "iterative_structured": lambda T, P: P.ln_structured(P.l1_unstructured(T.nn.Linear(5, 4), "weight", 0.5),
                                                         "weight", 1, n=1, dim=0),
    "three_times": lambda T, P: P.random_structured(
        P.ln_structured(P.l1_unstructured(T.nn.Linear(6, 5), "weight", 3), "weight", 0.25, n=2, dim=1),
        "weight", 1, dim=0),
    "zero_amount": lambda T, P: P.l1_unstructured(T.nn.Linear(3, 2), "weight", amount=0.0),
}


def _module_outcome(T, case):
    T.manual_seed(1)
    P = T.nn.utils.prune
    m = CASES[case](T, P)
    name = "bias" if case == "l1_int" else "weight"
    x = T.tensor(rand(2, m.weight.shape[1], seed=4)) if isinstance(m, T.nn.Linear) else T.tensor(rand(1, 2, 5, 5))
    out = m(x)
    out.sum().backward()
    hooks = m._forward_pre_hooks
    method = next(iter(hooks.values()))
    members = [type(h).__name__ for h in method] if isinstance(method, P.PruningContainer) else []
    return (list(m.state_dict().keys()), getattr(m, name + "_mask"), getattr(m, name), out,
            getattr(m, name + "_orig").grad, type(getattr(m, name)).__name__, len(hooks), type(method).__name__,
            members, method._tensor_name, isinstance(getattr(m, name + "_orig"), T.nn.Parameter),
            P.is_pruned(m), [n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()], T.rand(2))


@pytest.mark.parametrize("case", sorted(CASES))
def test_prune_module(case):
    check(lambda T: _module_outcome(T, case))


def test_hook_recomputes_after_the_original_changes():
    def fn(T):
        T.manual_seed(0)
        m = T.nn.utils.prune.l1_unstructured(T.nn.Linear(3, 2), "weight", amount=3)
        with T.no_grad():
            m.weight_orig.mul_(10)
        before = m.weight.clone()
        m(T.ones(1, 3))
        return before, m.weight
    check(fn)


def test_remove_makes_pruning_permanent():
    def fn(T):
        T.manual_seed(0)
        P = T.nn.utils.prune
        m = P.l1_unstructured(T.nn.Linear(4, 3), "weight", amount=0.5)
        P.remove(m, "weight")
        return (list(m.state_dict().keys()), m.weight, isinstance(m.weight, T.nn.Parameter), len(m._forward_pre_hooks),
                P.is_pruned(m), [n for n, _ in m.named_parameters()])
    check(fn)


def test_global_unstructured():
    def fn(T):
        model = _model(T)
        P = T.nn.utils.prune
        P.l1_unstructured(model[3], "weight", 0.2)
        P.global_unstructured([(model[0], "weight"), (model[3], "weight"), (model[0], "bias")],
                              pruning_method=P.L1Unstructured, amount=0.4)
        return _report(T, model, "0.weight", "3.weight", "0.bias")
    check(fn)


def test_global_random_with_importance_scores():
    def fn(T):
        model = _model(T)
        P = T.nn.utils.prune
        scores = {(model[0], "weight"): T.tensor(rand(4, 2, 3, 3, seed=7))}
        P.global_unstructured([(model[0], "weight"), (model[3], "weight")], P.L1Unstructured,
                              importance_scores=scores, amount=30)
        T.manual_seed(5)
        P.global_unstructured([(model[0], "bias"), (model[3], "bias")], P.RandomUnstructured, amount=0.5)
        return _report(T, model, "0.weight", "3.weight", "0.bias", "3.bias") + (T.rand(3),)
    check(fn)


def test_prune_method_directly_and_custom_method():
    def fn(T):
        P = T.nn.utils.prune

        class EveryOther(P.BasePruningMethod):
            PRUNING_TYPE = "unstructured"

            def compute_mask(self, t, default_mask):
                mask = default_mask.clone()
                mask.view(-1)[::2] = 0
                return mask

        t = T.tensor(rand(3, 4))
        direct = P.L1Unstructured(amount=0.5).prune(t), P.LnStructured(1, n=2, dim=0).prune(t)
        m = T.nn.Linear(4, 3)
        EveryOther.apply(m, "weight")
        P.l1_unstructured(m, "weight", 0.25)
        container = next(iter(m._forward_pre_hooks.values()))
        return direct, m.weight_mask, type(container).__name__, [type(x).__name__ for x in container], len(container)
    check(fn)


ERRORS = {
    "amount_type": lambda T, P: P.L1Unstructured(amount="a"),
    "amount_neg": lambda T, P: P.L1Unstructured(amount=-1),
    "amount_float": lambda T, P: P.RandomUnstructured(amount=1.5),
    "amount_big": lambda T, P: P.l1_unstructured(T.nn.Linear(2, 2), "weight", amount=5),
    "structured_1d": lambda T, P: P.ln_structured(T.nn.Linear(2, 2), "bias", amount=1, n=2, dim=0),
    "bad_dim": lambda T, P: P.random_structured(T.nn.Linear(2, 2), "weight", amount=1, dim=2),
    "remove_unpruned": lambda T, P: P.remove(T.nn.Linear(2, 2), "weight"),
    "scores_shape": lambda T, P: P.l1_unstructured(T.nn.Linear(2, 2), "weight", 1, importance_scores=T.ones(3)),
    "global_structured": lambda T, P: P.global_unstructured([(T.nn.Linear(2, 2), "weight")], P.LnStructured,
                                                            amount=1, n=2, dim=0),
    "global_not_iterable": lambda T, P: P.global_unstructured(3, P.L1Unstructured, amount=1),
    "global_scores_type": lambda T, P: P.global_unstructured([], P.L1Unstructured, importance_scores=[1], amount=1),
    "container_type": lambda T, P: P.PruningContainer().add_pruning_method(3),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_prune_errors(case):
    ref = run(lambda T: ERRORS[case](T, T.nn.utils.prune), NAMESPACES["torch"])
    got = run(lambda T: ERRORS[case](T, T.nn.utils.prune), NAMESPACES["mstorch"])
    assert isinstance(ref, Raised) and isinstance(got, Raised), (ref, got)
    # messages that print a module or class differ only by its repr; compare those up to "module", class paths
    # with the package name as torch
    text = lambda e: str(e.exc).split(" of module ")[0].replace("mstorch.", "torch.")  # noqa: E731
    assert (type(got.exc).__name__, text(got)) == (type(ref.exc).__name__, text(ref))


def test_failed_pruning_leaves_the_module_unchanged():
    def fn(T):
        m = T.nn.Linear(2, 2)
        try:
            T.nn.utils.prune.l1_unstructured(m, "weight", amount=5)
        except ValueError:
            pass
        return [n for n, _ in m.named_parameters()], list(m.state_dict().keys()), len(m._forward_pre_hooks)
    check(fn)
