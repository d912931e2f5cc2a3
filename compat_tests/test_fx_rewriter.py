"""torch.fx.replace_pattern / subgraph_rewriter, written once against a namespace ``T`` (torch or mstorch): the
rewritten module's code, its outputs, and the matches (count, anchor and matched node names) must be torch's."""
import operator

from harness import check, rand


def x_in(T, *shape, seed=0):
    return T.tensor(rand(*shape, seed=seed))


def matches_text(matches):
    return [(m.anchor.name, sorted((p.name, g.name if hasattr(g, "name") else repr(g)) for p, g in m.nodes_map.items()))
            for m in matches]


def rewrite(T, module, pattern, replacement, *inputs, rewriter=None):
    gm = T.fx.symbolic_trace(module)
    matches = (rewriter or T.fx.replace_pattern)(gm, pattern, replacement)
    return gm.code, gm(*inputs), len(matches), matches_text(matches)


def test_add_then_mul_becomes_sub():
    def case(T):
        class M(T.nn.Module):
            def forward(self, x, y):
                a = T.add(x, y)
                b = T.mul(a, y)
                return T.relu(b) + x

        def pattern(x, y):
            return T.mul(T.add(x, y), y)

        def replacement(x, y):
            return T.sub(x, y)
        return rewrite(T, M(), pattern, replacement, x_in(T, 3, 4), x_in(T, 3, 4, seed=1))
    check(case)


def test_several_matches_and_docstring_example():
    def case(T):
        class M(T.nn.Module):
            def forward(self, x, w1, w2):
                m1 = T.cat([w1, w2]).sum()
                m2 = T.cat([w1, w2]).sum()
                return x + T.max(m1) + T.max(m2)

        def pattern(w1, w2):
            return T.cat([w1, w2])

        def replacement(w1, w2):
            return T.stack([w1, w2])
        return rewrite(T, M(), pattern, replacement, x_in(T, 2), x_in(T, 2, seed=1), x_in(T, 2, seed=2))
    check(case)


def test_no_match_leaves_module_alone():
    def case(T):
        class M(T.nn.Module):
            def forward(self, x):
                return T.sigmoid(x) * 2

        def pattern(x):
            return T.tanh(x)

        def replacement(x):
            return T.relu(x)
        return rewrite(T, M(), pattern, replacement, x_in(T, 5))
    check(case)


def test_overlapping_matches_keep_the_first():
    def case(T):
        class M(T.nn.Module):
            def forward(self, x):
                return T.neg(T.neg(T.neg(T.neg(T.neg(x)))))

        def pattern(x):
            return T.neg(T.neg(x))

        def replacement(x):
            return T.abs(x)
        return rewrite(T, M(), pattern, replacement, x_in(T, 4))
    check(case)


def test_pattern_with_a_module_call():
    def case(T):
        T.manual_seed(0)

        class M(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = T.nn.Linear(4, 4)

            def forward(self, x):
                return T.relu(self.lin(x)) + T.relu(self.lin(x * 2))

        class Pattern(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = T.nn.Linear(4, 4)

            def forward(self, x):
                return T.relu(self.lin(x))

        class Replacement(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = T.nn.Linear(4, 4)

            def forward(self, x):
                return T.sigmoid(self.lin(x))
        return rewrite(T, M(), Pattern(), Replacement(), x_in(T, 2, 4))
    check(case)


def test_replacement_module_brings_its_submodule():
    def case(T):
        class M(T.nn.Module):
            def forward(self, x):
                return T.tanh(x) - 1

        class Replacement(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.act = T.nn.Hardtanh()

            def forward(self, x):
                return self.act(x)
        gm = T.fx.symbolic_trace(M())
        n = len(T.fx.replace_pattern(gm, lambda x: T.tanh(x), Replacement()))
        return gm.code, gm(x_in(T, 6) * 3), n, sorted(name for name, _ in gm.named_modules())
    check(case)


def test_multiple_returns_and_method_calls():
    def case(T):
        class M(T.nn.Module):
            def forward(self, x, y):
                s = x + y
                d = x - y
                return s.relu() * d.relu(), s.sum()

        def pattern(x, y):
            return x + y, x - y

        def replacement(x, y):
            return x * y, x / y
        return rewrite(T, M(), pattern, replacement, x_in(T, 3), x_in(T, 3, seed=1) + 2)
    check(case)


def test_literals_and_operator_targets():
    def case(T):
        class M(T.nn.Module):
            def forward(self, x):
                return (x * 2) + (x * 3) + (x * 2)

        def pattern(x):
            return operator.mul(x, 2)

        def replacement(x):
            return x + x
        return rewrite(T, M(), pattern, replacement, x_in(T, 3))
    check(case)


def test_with_filters_and_result_type():
    def case(T):
        from importlib import import_module
        rw = import_module(f"{T.__name__}.fx.subgraph_rewriter")

        class M(T.nn.Module):
            def forward(self, x):
                return T.neg(x) + T.neg(x + 1)

        def only_on_placeholder(match, original_graph, pattern_graph):
            return all(n.op == "placeholder" for n in match.placeholder_nodes)
        gm = T.fx.symbolic_trace(M())
        res = rw.replace_pattern_with_filters(gm, lambda x: T.neg(x), lambda x: T.abs(x), [only_on_placeholder])
        return (gm.code, gm(x_in(T, 3)), [type(r).__name__ for r in res],
                [sorted(n.name for n in r.replacements) for r in res], rw.__all__,
                [type(m).__name__ for m in rw.replace_pattern(gm, lambda x: T.abs(x), lambda x: T.relu(x))])
    check(case)
