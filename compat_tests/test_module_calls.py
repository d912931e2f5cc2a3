"""torch.nn.Module behaviour on calls and around them, written once against a namespace ``T`` and run on
torch and mstorch (compared by module_compare.same): forward pre/post hooks, global module hooks, full
backward (pre-)hooks, repr, pickling and copying, and the containers (Sequential, ModuleList, ModuleDict,
ParameterList, ParameterDict) with their error messages."""
import copy
import pickle
import warnings
from collections import OrderedDict

import pytest

from module_compare import same, raises, fill, x_in, make_net, make_tied, names


# --- forward hooks ---------------------------------------------------------------------------------

def test_forward_pre_and_post_hooks():
    def case(T):
        m = make_net(T)
        log = []

        def pre1(mod, args):
            log.append(("pre1", len(args)))
            return (args[0] + 1,)

        def pre2(mod, args):
            log.append("pre2")
            return args[0] * 2          # a single value is wrapped into a tuple

        def prek(mod, args, kwargs):
            log.append(("prek", sorted(kwargs)))
            return args, {**kwargs, "scale": 3.0}

        def post1(mod, args, out):
            log.append(("post1", args[0]))
            return out + 1

        def postk(mod, args, kwargs, out):
            log.append(("postk", kwargs, out))

        def post_first(mod, args, out):
            log.append("post_first")

        handles = [m.register_forward_pre_hook(pre1), m.register_forward_pre_hook(pre2, prepend=True),
                   m.register_forward_pre_hook(prek, with_kwargs=True), m.register_forward_hook(post1),
                   m.register_forward_hook(postk, with_kwargs=True),
                   m.register_forward_hook(post_first, prepend=True)]
        x = x_in(T, 2, 3)
        y1 = m(x, scale=0.5)
        for h in handles[:2] + handles[3:4]:
            h.remove()
        handles[0].remove()             # removing twice is harmless
        y2 = m(x)
        for h in handles:
            h.remove()
        y3 = m(x)
        return log, y1, y2, y3
    same(case)


def test_forward_pre_hook_with_kwargs_bad_return():
    def case(T):
        m = make_net(T)
        m.register_forward_pre_hook(lambda mod, a, k: 5, with_kwargs=True)
        return m(x_in(T, 1, 3))
    raises(case)


def test_forward_hook_always_call():
    def case(T):
        class Boom(T.nn.Module):
            def forward(self, x, flag=False):
                raise ValueError("boom")
        m = Boom()
        log = []
        m.register_forward_hook(lambda mod, a, out: log.append(("always", out)), always_call=True)
        m.register_forward_hook(lambda mod, a, out: log.append("normal"))
        m.register_forward_hook(lambda mod, a, k, out: log.append(("kw", k, out)), with_kwargs=True,
                                always_call=True)
        try:
            m(1, flag=True)
        except ValueError as e:
            log.append(str(e))
        return log
    same(case)


def test_hook_handle_context_manager_and_ids():
    def case(T):
        m = make_net(T)
        log = []
        with m.register_forward_hook(lambda mod, a, out: log.append("in")):
            m(x_in(T, 1, 3))
        m(x_in(T, 1, 3))
        h = m.register_forward_pre_hook(lambda mod, a: None)
        return log, isinstance(h.id, int), len(m._forward_pre_hooks), type(h).__name__
    same(case)


def test_call_kwargs_and_missing_forward():
    same(lambda T: make_net(T)(x_in(T, 2, 3), scale=2.0))
    same(lambda T: make_net(T)(x=x_in(T, 2, 3)))
    raises(lambda T: T.nn.Module()(1))
    raises(lambda T: make_net(T)(x_in(T, 1, 3), bad=1))


# --- global module hooks ---------------------------------------------------------------------------

def test_global_forward_hooks():
    def case(T):
        mm = T.nn.modules.module
        log = []
        h1 = mm.register_module_forward_pre_hook(lambda mod, a: log.append(("gpre", type(mod).__name__)))
        h2 = mm.register_module_forward_hook(lambda mod, a, out: log.append(("gpost", type(mod).__name__)))
        h3 = mm.register_module_forward_hook(lambda mod, a, k, out: log.append(("gkw", sorted(k))),
                                             with_kwargs=True)
        try:
            m = make_net(T)
            m.register_forward_hook(lambda mod, a, out: log.append("local"))
            y = m(x_in(T, 1, 3), scale=2.0)
        finally:
            h1.remove()
            h2.remove()
            h3.remove()
        m(x_in(T, 1, 3))
        return log, y
    same(case)


def test_global_full_backward_hook():
    def case(T):
        mm = T.nn.modules.module
        log = []
        h = mm.register_module_full_backward_hook(
            lambda mod, gi, go: log.append((type(mod).__name__, list(gi), list(go))))
        try:
            m = fill(T, T.nn.Linear(3, 2))
            m(x_in(T, 1, 3, requires_grad=True)).sum().backward()
        finally:
            h.remove()
        return log
    same(case)


def test_global_backward_pre_hook_and_always_call():
    def case(T):
        mm = T.nn.modules.module
        log = []

        class Boom(T.nn.Module):
            def forward(self, x, flag=False):
                raise ValueError("boom")
        h1 = mm.register_module_full_backward_pre_hook(lambda mod, go: (go[0] * 3,))
        h2 = mm.register_module_forward_hook(lambda mod, a, out: log.append(("always", type(mod).__name__)),
                                             always_call=True)
        try:
            m = fill(T, T.nn.Linear(2, 1))
            x = x_in(T, 1, 2, requires_grad=True)
            m(x).sum().backward()
            try:
                Boom()(1)
            except ValueError:
                log.append("raised")
        finally:
            h1.remove()
            h2.remove()
        return log, x.grad, m.weight.grad
    same(case)


# --- backward hooks --------------------------------------------------------------------------------

def test_full_backward_hooks_values():
    def case(T):
        m = fill(T, T.nn.Linear(3, 2))
        log = []

        def pre(mod, grad_output):
            log.append(("pre", list(grad_output)))
            return (grad_output[0] * 2,)

        def hook(mod, grad_input, grad_output):
            log.append(("hook", list(grad_input), list(grad_output)))
            return (grad_input[0] + 1,)

        m.register_full_backward_pre_hook(pre)
        m.register_full_backward_hook(hook)
        x = x_in(T, 2, 3, requires_grad=True)
        (m(x) * x_in(T, 2, 2)).sum().backward()
        return log, x.grad, m.weight.grad, m.bias.grad
    same(case)


def test_full_backward_hook_input_without_grad():
    def case(T):
        m = fill(T, T.nn.Linear(3, 2))
        log = []
        m.register_full_backward_hook(lambda mod, gi, go: log.append((list(gi), list(go))))
        m(x_in(T, 2, 3)).sum().backward()
        return log, m.weight.grad
    same(case)


def test_full_backward_hook_prepend_and_remove():
    def case(T):
        m = fill(T, T.nn.Linear(3, 2))
        log = []
        h1 = m.register_full_backward_hook(lambda mod, gi, go: log.append("a"))
        m.register_full_backward_hook(lambda mod, gi, go: log.append("b"), prepend=True)
        m(x_in(T, 1, 3, requires_grad=True)).sum().backward()
        h1.remove()
        m(x_in(T, 1, 3, requires_grad=True)).sum().backward()
        return log
    same(case)


def _two_io(T):
    class TwoIO(T.nn.Module):
        def forward(self, a, b, k=2.0):
            return a * b * k, a + b

    return TwoIO()


def test_full_backward_hook_several_inputs_and_outputs():
    def case(T):
        m = _two_io(T)
        log = []
        m.register_full_backward_hook(lambda mod, gi, go: log.append((list(gi), list(go))))
        a = x_in(T, 2, 2, requires_grad=True)
        b = x_in(T, 2, 2) + 1
        y1, y2 = m(a, b)
        (y1 * 2 + y2).sum().backward()
        return log, a.grad
    same(case)


def test_full_backward_hook_bad_return_count():
    def case(T):
        m = _two_io(T)
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0], gi[0]))
        a = x_in(T, 2, 2, requires_grad=True)
        y1, y2 = m(a, x_in(T, 2, 2, requires_grad=True))
        (y1 + y2).sum().backward()
    raises(case)


def test_forward_hooks_on_tuple_outputs():
    def case(T):
        m = _two_io(T)
        m.register_forward_hook(lambda mod, args, out: (out[1], out[0]))
        m.register_forward_pre_hook(lambda mod, args: (args[0], args[1] * 0))
        return m(x_in(T, 2), x_in(T, 2) + 1, k=3.0)
    same(case)


def test_mixing_backward_hook_kinds_errors():
    def case(T):
        m = T.nn.Linear(1, 1)
        m.register_full_backward_hook(lambda *a: None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.register_backward_hook(lambda *a: None)
    raises(case)


# --- repr ------------------------------------------------------------------------------------------

def test_repr_nested_models():
    def case(T):
        class Block(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = T.nn.Linear(2, 2)
                self.norm = T.nn.LayerNorm(2)

            def extra_repr(self):
                return "depth=1\nwidth=2"

        class Single(T.nn.Module):
            def extra_repr(self):
                return "only=1"

        class Model(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = T.nn.ModuleList([Block() for _ in range(3)] + [T.nn.ReLU()] * 2 + [Block()])
                self.seq = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.Linear(2, 2), T.nn.Linear(2, 2))
                self.named = T.nn.Sequential(OrderedDict(a=T.nn.ReLU(), b=Single()))
                self.heads = T.nn.ModuleDict({"x": T.nn.Linear(2, 1), "y": T.nn.Linear(2, 1)})
                self.plist = T.nn.ParameterList([T.nn.Parameter(T.ones(2, 3)), T.ones(1)])
                self.pdict = T.nn.ParameterDict({"b": T.nn.Parameter(T.ones(2)), "a": T.zeros(1, 1)})
                self.empty = T.nn.ModuleList()
                self.none = None
                self.register_module("missing", None)
        m = Model()
        return repr(m), str(m.blocks), repr(m.empty), repr(T.nn.Sequential()), repr(Single()), repr(Block())
    same(case)


def test_parameter_and_keys_repr():
    same(lambda T: repr(T.nn.Parameter(T.ones(2))))
    same(lambda T: repr(T.nn.Parameter(T.ones(2), requires_grad=False)))
    same(lambda T: repr(T.nn.Linear(1, 1).load_state_dict(T.nn.Linear(1, 1).state_dict())))


# --- pickling and copying --------------------------------------------------------------------------

def _double_output(mod, args, out):
    return out * 2


def _shift_input(mod, args):
    return (args[0] + 1,)


def test_pickle_roundtrip():
    same(_pickle_case)


def _count_load(mod, sd, prefix, *rest):
    mod.loads = getattr(mod, "loads", 0) + 1


def _pickle_case(T):
    m = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU(), T.nn.Linear(4, 2))
    fill(T, m)
    m.register_buffer("scratch", T.ones(2), persistent=False)
    m[2].eval()
    m[0].register_forward_hook(_double_output)
    m.register_forward_pre_hook(_shift_input)
    m.register_load_state_dict_pre_hook(_count_load)
    x = x_in(T, 2, 3)
    y = m(x)
    m2 = pickle.loads(pickle.dumps(m))
    m3 = copy.deepcopy(m)
    for k in (m2, m3):
        k.load_state_dict(m.state_dict())
    p2 = list(m2.parameters())
    return (m2(x), y, m2.state_dict(), sorted(m2._non_persistent_buffers_set), [x.training for x in m2.modules()],
            repr(m2), [p.requires_grad for p in p2], [type(p).__name__ for p in p2],
            len(m2[0]._forward_hooks), names(m2.named_parameters()), m2.loads, m3.loads, hasattr(m, "loads"))


def test_pickle_parameter_and_grad_after_load():
    def case(T):
        m = pickle.loads(pickle.dumps(T.nn.Sequential(fill(T, T.nn.Linear(2, 2)))))
        m(x_in(T, 1, 2)).sum().backward()
        return m[0].weight.grad, m[0].bias.grad
    same(case)


def test_deepcopy_keeps_sharing():
    def case(T):
        m = make_tied(T)
        c = copy.deepcopy(m)
        with T.no_grad():
            c.emb.weight.add_(1.0)
        return (c.dec.weight is c.emb.weight, c.again is c.body, c.emb.weight is m.emb.weight,
                names(c.named_parameters()), m.emb.weight, c.dec.weight, c(T.tensor([1, 2])),
                c.state_dict().keys() == m.state_dict().keys(), c.pos)
    same(case)


def test_deepcopy_and_copy_hooks_and_training():
    def case(T):
        m = make_net(T)
        m.register_forward_hook(_double_output)
        m.eval()
        c = copy.deepcopy(m)
        s = copy.copy(m)
        x = x_in(T, 1, 3)
        return c(x), c.training, len(c._forward_hooks), s.fc1 is m.fc1, s(x)
    same(case)


# --- containers ------------------------------------------------------------------------------------

def _seq(T, n=4):
    return T.nn.Sequential(*[T.nn.Linear(i + 1, i + 2) for i in range(n)])


def _shapes(mods):
    return [(type(m).__name__, getattr(m, "in_features", None)) for m in mods]


def test_sequential_indexing_and_mutation():
    def case(T):
        s = _seq(T)
        out = [len(s), _shapes([s[0], s[-1], s[-4]]), _shapes(s[1:3]), list(s[1:3]._modules), type(s[::2]).__name__,
               list(s[::-1]._modules), _shapes(iter(s))]
        s.append(T.nn.ReLU())
        s.insert(1, T.nn.Tanh())
        s.insert(-1, T.nn.Sigmoid())
        s.extend([T.nn.ELU(), T.nn.GELU()])
        out += [list(s._modules), _shapes(s)]
        popped = s.pop(0)
        del s[-1]
        del s[1:3]
        s[0] = T.nn.Identity()
        out += [type(popped).__name__, list(s._modules), _shapes(s)]
        return out
    same(case)


def test_sequential_arithmetic():
    def case(T):
        a, b = _seq(T, 2), T.nn.Sequential(T.nn.ReLU())
        c = a + b
        d = b * 3
        e = 2 * b
        a += b
        return (list(c._modules), _shapes(c), list(d._modules), d[0] is d[2], list(e._modules),
                list(a._modules), _shapes(a), c[0] is a[0])
    same(case)


@pytest.mark.parametrize("expr", ["s[4]", "s[-5]", "s['a']", "s.pop(7)", "s.insert(9, T.nn.ReLU())",
                                  "s.insert(0, 3)", "s + [T.nn.ReLU()]", "s * 0", "s * 1.5", "s.__setitem__(5, T.nn.ReLU())",
                                  "s.__delitem__(8)", "s.append(5)", "s.extend(5)"])
def test_sequential_errors(expr):
    raises(lambda T: eval(expr, {"s": _seq(T), "T": T}))


def test_sequential_forward_and_ordereddict():
    def case(T):
        s = fill(T, T.nn.Sequential(OrderedDict([("inp", T.nn.Linear(3, 2)), ("act", T.nn.Tanh())])))
        return list(s._modules), s(x_in(T, 2, 3)), names(s.named_parameters()), s.inp is s[0]
    same(case)


def test_modulelist_ops():
    def case(T):
        ml = T.nn.ModuleList([T.nn.Linear(1, 1), T.nn.ReLU()])
        ml.append(T.nn.Tanh())
        ml.extend([T.nn.Sigmoid(), T.nn.ELU()])
        ml.insert(1, T.nn.GELU())
        ml.insert(5, T.nn.Identity())
        ml += [T.nn.SiLU()]
        out = [len(ml), list(ml._modules), _shapes(ml), _shapes(ml[2:4]), type(ml[1:]).__name__,
               type(ml[-1]).__name__]
        popped = ml.pop(1)
        del ml[0]
        del ml[::2]
        ml[-1] = T.nn.Softplus()
        both = ml + T.nn.ModuleList([T.nn.ReLU()]) + [T.nn.Tanh()]
        out += [type(popped).__name__, list(ml._modules), _shapes(ml), list(both._modules), _shapes(both),
                names(T.nn.ModuleList([ml[0], ml[0]]).named_modules())]
        return out
    same(case)


@pytest.mark.parametrize("expr", ["ml[3]", "ml[-4]", "ml['a']", "ml.pop(5)", "ml.extend(5)",
                                  "ml.insert(-1, T.nn.Identity())",   # torch 2.13 raises KeyError('-1')
                                  "ml.__setitem__(3, T.nn.ReLU())", "ml.__delitem__(3)", "ml.append(1)",
                                  "T.nn.ModuleList(5)", "T.nn.ModuleList([1])"])
def test_modulelist_errors(expr):
    raises(lambda T: eval(expr, {"ml": T.nn.ModuleList([T.nn.ReLU(), T.nn.Tanh(), T.nn.ELU()]), "T": T}))


def test_moduledict_ops():
    def case(T):
        md = T.nn.ModuleDict({"b": T.nn.ReLU(), "a": T.nn.Tanh()})
        md["c"] = T.nn.ELU()
        md.update([("d", T.nn.GELU()), ("a", T.nn.Sigmoid())])
        md.update(T.nn.ModuleDict({"e": T.nn.SiLU()}))
        out = [list(md.keys()), _shapes(md.values()), [(k, type(v).__name__) for k, v in md.items()], len(md),
               "a" in md, "z" in md, list(iter(md)), names(md.named_children())]
        popped = md.pop("b")
        del md["c"]
        out += [type(popped).__name__, list(md), repr(md)]
        md.clear()
        out += [len(md), repr(md)]
        return out
    same(case)


@pytest.mark.parametrize("expr", ["md['z']", "md.pop('z')", "md.update(5)", "md.update([('a',)])",
                                  "md.update([5])", "md.__setitem__('x', 3)", "md.__setitem__('a.b', T.nn.ReLU())",
                                  "md.__delitem__('q')", "md.__setitem__(1, T.nn.ReLU())", "T.nn.ModuleDict({'training': T.nn.ReLU()})"])
def test_moduledict_errors(expr):
    raises(lambda T: eval(expr, {"md": T.nn.ModuleDict({"a": T.nn.ReLU()}), "T": T}))


def test_parameterlist_ops():
    def case(T):
        pl = T.nn.ParameterList([T.nn.Parameter(T.ones(2)), T.zeros(3)])
        pl.append(T.full((1,), 2.0))
        pl.extend([T.nn.Parameter(T.ones(1, 2))])
        pl += [T.ones(4)]
        pl[0] = T.zeros(2)
        pl.append("text")
        out = [len(pl), [type(p).__name__ for p in pl], names(pl.named_parameters()), list(pl.state_dict()),
               [p for p in pl if not isinstance(p, str)], pl[-2], type(pl[1:3]).__name__, len(pl[1:3]), repr(pl)]
        return out
    same(case)


@pytest.mark.parametrize("expr", ["pl[2]", "pl[-3]", "pl['a']", "pl.extend(5)", "pl.extend(T.ones(2))",
                                  "pl(1)", "pl.__setitem__(4, T.ones(1))"])
def test_parameterlist_errors(expr):
    raises(lambda T: eval(expr, {"pl": T.nn.ParameterList([T.ones(1), T.ones(2)]), "T": T}))


def test_parameterdict_ops():
    def case(T):
        pd = T.nn.ParameterDict({"b": T.nn.Parameter(T.ones(2)), "a": T.zeros(3)})
        pd["c"] = T.ones(1)
        pd.update([("d", T.ones(2, 2)), ("a", T.full((3,), 2.0))])
        pd.update(OrderedDict([("z", T.ones(1)), ("y", T.ones(1))]))
        out = [list(pd.keys()), list(pd), [type(v).__name__ for v in pd.values()], names(pd.named_parameters()),
               list(pd.state_dict()), len(pd), "a" in pd, pd.get("nope", 5), pd["a"], list(reversed(pd))]
        popped = pd.pop("b")
        k, v = pd.popitem()
        del pd["c"]
        out += [popped, k, v, list(pd), pd.setdefault("n", T.ones(1)), list(pd)]
        merged = pd | T.nn.ParameterDict({"m": T.ones(1)})
        pd2 = pd.copy()
        fk = pd.fromkeys(["p", "q"], T.ones(1))
        out += [list(merged), list(pd2), list(fk), type(fk).__name__, repr(pd)]
        pd.clear()
        out += [len(pd), repr(pd)]
        return out
    same(case)


@pytest.mark.parametrize("expr", ["pd['z']", "pd[1]", "pd.pop('z')", "pd.update(5)", "pd.update([('a',)])",
                                  "pd.update([5])", "pd(1)", "pd.__delitem__('q')"])
def test_parameterdict_errors(expr):
    raises(lambda T: eval(expr, {"pd": T.nn.ParameterDict({"a": T.ones(1)}), "T": T}))


def test_containers_state_dict_and_load():
    def case(T):
        def build():
            return fill(T, T.nn.Sequential(
                T.nn.ModuleList([T.nn.Linear(2, 2), T.nn.Linear(2, 1)]),
                T.nn.ModuleDict({"h": T.nn.Linear(1, 1)}),
            ))
        m = build()
        m.add_module("plist", T.nn.ParameterList([T.ones(2)]))
        m.add_module("pdict", T.nn.ParameterDict({"k": T.ones(1)}))
        sd = m.state_dict()
        m2 = build()
        res = m2.load_state_dict(sd, strict=False)
        return list(sd), dict(sd._metadata), repr(res)
    same(case)
