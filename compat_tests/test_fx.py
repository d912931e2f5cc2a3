"""torch.fx, written once against a namespace ``T`` (torch or mstorch): symbolic tracing of modules and
functions (node lists, ``str(graph)``, the generated ``code`` text and ``print_readable``, outputs equal to
the eager module), leaf modules and custom tracers, ``fx.wrap``, ``concrete_args``, graph editing,
``Interpreter``/``Transformer``, and torch's tracing errors with their messages."""
import contextlib
import copy
import io
import math
import operator
import pathlib
import subprocess
import sys

import torch
import mstorch

from harness import check, rand


# module-level helpers recorded as leaf calls (torch.fx.wrap must run at a module's top level)
def wrapped_scale(x, k):
    return x * k + 1


torch.fx.wrap("wrapped_scale")
mstorch.fx.wrap("wrapped_scale")


def wrapped_pair(a, b):
    return a - b


torch.fx.wrap(wrapped_pair)
mstorch.fx.wrap(wrapped_pair)


def graph_text(gm):
    """What a user sees of a traced module: the code, the graph and each node's fields."""
    nodes = [(n.op, n.name, n.format_node(), sorted(u.name for u in n.users), [a.name for a in n.all_input_nodes])
             for n in gm.graph.nodes]
    return gm.code, str(gm.graph), nodes


def x_in(T, *shape, seed=0):
    return T.tensor(rand(*shape, seed=seed))


def caught(fn):
    try:
        fn()
    except Exception as e:   # noqa: BLE001 - the error is the result
        return type(e).__name__, str(e)
    return None


def make_mlp(T):
    class MLP(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = T.nn.Linear(6, 8)
            self.act = T.nn.ReLU()
            self.body = T.nn.Sequential(T.nn.Linear(8, 8), T.nn.Tanh())
            self.fc2 = T.nn.Linear(8, 3)

        def forward(self, x):
            h = self.act(self.fc1(x))
            h = self.body(h) + h
            return T.nn.functional.softmax(self.fc2(h), dim=-1)
    T.manual_seed(0)
    return MLP()


def test_trace_mlp_code_graph_and_values():
    def case(T):
        m = make_mlp(T)
        gm = T.fx.symbolic_trace(m)
        x = x_in(T, 4, 6)
        return graph_text(gm), gm(x), m(x), type(gm).__name__, isinstance(gm, T.fx.GraphModule)
    check(case)


def test_trace_conv_net_with_residual():
    def case(T):
        class Block(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = T.nn.Conv2d(3, 3, 3, padding=1)
                self.bn = T.nn.BatchNorm2d(3)
                self.conv2 = T.nn.Conv2d(3, 3, 1)

            def forward(self, x):
                y = T.relu(self.bn(self.conv1(x)))
                y = self.conv2(y)
                return T.nn.functional.relu(x + y)

        class Net(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.block = Block()
                self.pool = T.nn.AdaptiveAvgPool2d(1)
                self.head = T.nn.Linear(3, 2)

            def forward(self, x):
                y = self.pool(self.block(x))
                return self.head(T.flatten(y, 1))
        T.manual_seed(0)
        m = Net().eval()
        gm = T.fx.symbolic_trace(m)
        x = x_in(T, 2, 3, 5, 5)
        return graph_text(gm), gm(x), m(x), [k for k, _ in gm.named_parameters()]
    check(case, rtol=1e-4, atol=1e-5)


def test_parameters_buffers_and_tensor_constants():
    def case(T):
        class M(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = T.nn.Parameter(T.tensor([[1.0, 2.0], [3.0, 4.0]]))
                self.register_buffer("b", T.tensor([0.5, -0.5]))
                self.c = T.tensor([2.0, 3.0])        # a plain tensor attribute

            def forward(self, x):
                y = x @ self.w + self.w.sum()
                y = self.c * y + self.b             # tensor on the left of an operator
                y = y - self.c
                return y + T.tensor([1.0, 1.0])    # a tensor made in forward: a constant of the module
        m = M()
        gm = T.fx.symbolic_trace(m)
        x = x_in(T, 3, 2)
        consts = sorted(k for k, _ in gm.named_buffers())
        return graph_text(gm), gm(x), m(x), consts, [k for k, _ in gm.named_parameters()]
    check(case)


def test_tensor_on_the_left_of_each_operator():
    def case(T):
        c = T.tensor([3, 5, 6])
        out = []
        for op in (operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
                   operator.eq, operator.lt, operator.ge, operator.and_, operator.or_, operator.xor):
            def f(x, op=op):
                return op(c, x)
            gm = T.fx.symbolic_trace(_closure(f))
            out.append((gm.code, gm(T.tensor([1, 2, 4]))))
        return out
    check(case)


def _closure(f):
    # `op` as a default would become a placeholder: bind it in a closure instead
    op = f.__defaults__[0]

    def traced(x):
        return f(x, op)
    return traced


def test_methods_shapes_getitem_and_kwargs():
    def case(T):
        class M(T.nn.Module):
            def forward(self, x, scale=2.0):
                n = x.shape[0]
                a, b = x.chunk(2, dim=1)
                y = a.reshape(n, -1).transpose(0, 1).contiguous().view(-1)
                z = T.cat([a, b], dim=1).permute(1, 0)[1:, ::2]
                s = x.size(1) * scale
                return {"y": y.unsqueeze(0) * s, "z": z.sum(dim=0, keepdim=True), "d": x.dim(), "t": x.T}
        m = M()
        gm = T.fx.symbolic_trace(m)
        x = x_in(T, 3, 4)
        return graph_text(gm), gm(x), m(x), gm(x, scale=0.5)
    check(case)


def test_function_trace_and_builtin_math():
    def case(T):
        def f(x, y):
            k = math.sqrt(x.size(-1))
            return (T.add(x, y, alpha=2) / k, T.nn.functional.silu(x), T.sigmoid(y).mean(),
                    T.nn.functional.layer_norm(x, (4,)), T.nn.functional.dropout(y, 0.5, False))
        gm = T.fx.symbolic_trace(f)
        x, y = x_in(T, 2, 4), x_in(T, 2, 4, seed=1)
        return graph_text(gm), gm(x, y), f(x, y), type(gm).__name__
    check(case)


def test_leaf_modules_custom_tracer_and_node_paths():
    def case(T):
        class Inner(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = T.nn.Linear(4, 4)

            def forward(self, x):
                return self.lin(x).relu()

        class Outer(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = Inner()
                self.other = Inner()

            def forward(self, x):
                return self.other(self.inner(x)) + x

        class LeafTracer(T.fx.Tracer):
            """Keeps Inner whole and records each node's module path (as torchvision's NodePathTracer)."""

            def __init__(self):
                super().__init__()
                self.current = ""
                self.paths = []

            def is_leaf_module(self, m, qualname):
                return qualname == "inner" or super().is_leaf_module(m, qualname)

            def call_module(self, m, forward, args, kwargs):
                old = self.current
                try:
                    self.current = self.path_of_module(m)
                    return super().call_module(m, forward, args, kwargs)
                finally:
                    self.current = old

            def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, *_):
                proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr)
                self.paths.append((self.current, proxy.node.name))
                return proxy

        T.manual_seed(0)
        m = Outer()
        tracer = LeafTracer()
        graph = tracer.trace(m)
        gm = T.fx.GraphModule(tracer.root, graph, "Outer")
        x = x_in(T, 2, 4)
        return graph_text(gm), tracer.paths, gm(x), m(x), graph._tracer_cls is LeafTracer
    check(case)


def test_wrapped_functions_are_leaf_calls():
    def case(T):
        class M(T.nn.Module):
            def forward(self, x, y):
                return wrapped_pair(wrapped_scale(x, 3), y)
        m = M()
        gm = T.fx.symbolic_trace(m)
        x, y = x_in(T, 2, 3), x_in(T, 2, 3, seed=1)
        targets = [n.target is wrapped_scale or n.target is wrapped_pair for n in gm.graph.nodes]
        return graph_text(gm), gm(x, y), m(x, y), targets, [n.meta.get("is_wrapped") for n in gm.graph.nodes]
    check(case)


def test_autowrap_functions_argument():
    def case(T):
        def scale(x):
            return x * 2

        def f(x):
            return scale(x) + 1
        tracer = T.fx.Tracer(autowrap_functions=(scale,))
        graph = tracer.trace(f)
        gm = T.fx.GraphModule(tracer.root, graph, "f")
        return [n.op for n in gm.graph.nodes], [n.name for n in gm.graph.nodes], gm(x_in(T, 3))
    check(case)


def test_concrete_args_specialize_and_assert():
    def case(T):
        def f(x, flag=True, y=None):
            if flag:
                x = x + 1
            if y is not None:
                x = x * y
            return x
        gm1 = T.fx.symbolic_trace(f, concrete_args={"flag": True, "y": None})
        gm2 = T.fx.symbolic_trace(f, concrete_args={"flag": False})
        x = x_in(T, 3)
        wrong = caught(lambda: gm1(x, False))
        return graph_text(gm1), graph_text(gm2), gm1(x), gm2(x, False, x), wrong
    check(case)


def test_control_flow_iteration_and_len_errors():
    def case(T):
        class If(T.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    return x
                return -x

        class Loop(T.nn.Module):
            def forward(self, x):
                return [t for t in x]

        class Len(T.nn.Module):
            def forward(self, x):
                return x + len(x)

        out = []
        for cls in (If, Loop, Len):
            try:
                T.fx.symbolic_trace(cls())
            except Exception as e:    # noqa: BLE001
                out.append((type(e).__name__, type(e).__mro__[1].__name__, str(e),
                            isinstance(e, T.fx.proxy.TraceError)))
        out.append(T.fx._symbolic_trace.is_fx_tracing())
        return out
    check(case)


def test_is_fx_tracing_inside_forward():
    def case(T):
        seen = []

        class M(T.nn.Module):
            def forward(self, x):
                seen.append(T.fx._symbolic_trace.is_fx_tracing())
                return x + 1
        m = M()
        m(x_in(T, 2))
        T.fx.symbolic_trace(m)
        m(x_in(T, 2))
        return seen, T.fx._symbolic_trace.is_fx_tracing()
    check(case)


def test_graph_editing_insert_replace_erase_dce_lint():
    def case(T):
        def f(x):
            a = T.relu(x)
            b = a + 1
            unused = x * 5      # noqa: F841  (dead code)
            return b * 2
        gm = T.fx.symbolic_trace(f)
        g = gm.graph
        relu = next(n for n in g.nodes if n.target is T.relu)
        with g.inserting_after(relu):
            neg = g.call_function(T.neg, (relu,))
        relu.replace_all_uses_with(neg)
        neg.args = (relu,)              # the new node itself still reads relu
        err = caught(lambda: g.erase_node(relu))
        changed = g.eliminate_dead_code()
        g.lint()
        gm.recompile()
        x = x_in(T, 5)
        out = graph_text(gm), gm(x), err, changed
        # swap the op of a node in place
        for n in g.nodes:
            if n.op == "call_function" and n.target is operator.mul:
                n.target = operator.sub
        gm.recompile()
        return out, gm.code, gm(x), len(g.nodes), [n.name for n in reversed(g.nodes)]
    check(case)


def test_graph_built_by_hand_and_proxy_on_a_graph():
    def case(T):
        g = T.fx.Graph()
        x = g.placeholder("x")
        w = g.placeholder("w", default_value=2.0)
        p = T.fx.Proxy(x)
        out = T.relu(p) * T.fx.Proxy(w) + p.sum()
        g.output(out.node)
        gm = T.fx.GraphModule(T.nn.Module(), g, "Built")
        lint_bad = T.fx.Graph()
        a = lint_bad.placeholder("a")
        b = lint_bad.call_function(T.relu, (a,))
        lint_bad.output(b)
        with lint_bad.inserting_before(a):
            lint_bad.call_function(T.neg, (b,))
        x_ = x_in(T, 4)
        return (graph_text(gm), gm(x_), gm(x_, 0.5), caught(lint_bad.lint),
                repr(p), type(p.shape).__name__)
    check(case)


def test_immutable_args_and_dict_root():
    def case(T):
        class M(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = T.nn.Linear(2, 2)

            def forward(self, x):
                return T.cat([self.lin(x), x], dim=1)
        T.manual_seed(0)
        m = M()
        gm = T.fx.symbolic_trace(m)
        cat = next(n for n in gm.graph.nodes if n.name == "cat")
        err = caught(lambda: cat.args[0].append(1))
        gm2 = T.fx.GraphModule({"lin": m.lin}, gm.graph, "FromDict")
        gm3 = copy.deepcopy(gm)
        x = x_in(T, 3, 2)
        missing = caught(lambda: T.fx.GraphModule({}, gm.graph))
        return err, type(cat.args[0]).__name__, gm2(x), gm3(x), gm3.code, missing, type(gm2).__name__
    check(case)


def test_interpreter_and_transformer():
    def case(T):
        def f(x):
            return T.sigmoid(x) + T.relu(x)
        gm = T.fx.symbolic_trace(f)

        class Swap(T.fx.Interpreter):
            def call_function(self, target, args, kwargs):
                if target is T.sigmoid:
                    return T.tanh(*args, **kwargs)
                return super().call_function(target, args, kwargs)

        class Rewrite(T.fx.Transformer):
            def call_function(self, target, args, kwargs):
                if target is T.relu:
                    target = T.neg
                return super().call_function(target, args, kwargs)

        x = x_in(T, 5)
        new = Rewrite(gm).transform()
        return T.fx.Interpreter(gm).run(x), Swap(gm).run(x), graph_text(new), new(x)
    check(case)


def test_print_readable_str_and_print_tabular():
    def case(T):
        m = make_mlp(T)
        gm = T.fx.symbolic_trace(m)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            text = gm.print_readable()
            tab = caught(gm.graph.print_tabular)   # tabulate is not installed: both print and raise
        return text, buf.getvalue(), tab, str(gm)
    check(case)


def test_transformers_style_proxy_check():
    def case(T):
        seen = []

        class M(T.nn.Module):
            def forward(self, x):
                seen.append(isinstance(x, T.fx.Proxy))
                return x * 2
        T.fx.symbolic_trace(M())
        return seen, isinstance(x_in(T, 2), T.fx.Proxy)
    check(case)


def test_feature_extractor_flow():
    """The steps of torchvision's create_feature_extractor on a traced model: drop the output, return
    chosen intermediate nodes (an OrderedDict), dead-code elimination, recompile, and a GraphModule
    subclass built over two graphs (train/eval) as its DualGraphModule does."""
    def case(T):
        from collections import OrderedDict
        from_graph_module = T.fx.graph_module

        class Net(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = T.nn.Conv2d(2, 4, 3, padding=1)
                self.drop = T.nn.Dropout(0.5)
                self.fc = T.nn.Linear(4, 3)

            def forward(self, x):
                f = T.relu(self.conv(x))
                f = self.drop(f)
                return self.fc(f.mean(dim=(2, 3)))

        class Dual(T.fx.GraphModule):
            def __init__(self, root, train_graph, eval_graph, class_name="GraphModule"):
                super(T.fx.GraphModule, self).__init__()
                self.__class__.__name__ = class_name
                self.train_graph, self.eval_graph = train_graph, eval_graph
                for node in list(train_graph.nodes) + list(eval_graph.nodes):
                    if node.op in ["get_attr", "call_module"]:
                        from_graph_module._copy_attr(root, self, node.target)
                self.graph = train_graph
                self._tracer_cls = self.graph._tracer_cls

            def train(self, mode=True):
                self.graph = self.train_graph if mode else self.eval_graph
                return super().train(mode=mode)

        T.manual_seed(0)
        model = Net()
        graphs = {}
        for mode in ("train", "eval"):
            model.train(mode == "train")
            tracer = T.fx.Tracer()
            graph = tracer.trace(model)
            gm = T.fx.GraphModule(tracer.root, graph, "Net")
            for n in reversed(gm.graph.nodes):
                if n.op == "output":
                    gm.graph.erase_node(n)
            nodes = list(gm.graph.nodes)
            wanted = OrderedDict((name, n) for n in nodes for name in ("relu", "mean") if n.name == name)
            with gm.graph.inserting_after(nodes[-1]):
                gm.graph.output(wanted)
            gm.graph.eliminate_dead_code()
            gm.recompile()
            graphs[mode] = graph
        fx_model = Dual(model, graphs["train"], graphs["eval"], class_name="Net").eval()
        x = x_in(T, 2, 2, 5, 5)
        out = fx_model(x)
        return (fx_model.code, list(out), out["mean"], T.relu(model.conv(x)).mean(dim=(2, 3)),
                type(fx_model).__name__, [k for k, _ in fx_model.named_children()],
                T.fx.graph_module._USER_PRESERVED_ATTRIBUTES_KEY)
    check(case, rtol=1e-4, atol=1e-5)


def test_functional_call_table_is_current():
    """mstorch/fx/_functional_calls.py (torch's recording convention of each functional) matches torch."""
    tool = pathlib.Path(__file__).resolve().parent.parent / "tools" / "gen_fx_functional.py"
    out = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
