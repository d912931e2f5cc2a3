"""torch.nn.Module behaviour, written once against a namespace ``T`` and run on torch and mstorch
(compared by module_compare.same: values, types and exact exception messages): registration and the
attribute protocol, naming, ordering and de-duplication of shared weights, state_dict / load_state_dict
(exact error text) and their hooks, modes and conversions. Hooks on calls, repr, pickling and
containers are in test_module_calls.py."""
import warnings
from collections import OrderedDict

import pytest

import mstorch
from module_compare import same, raises, fill, x_in, make_net, make_tied, names


# --- registration and the attribute protocol ---------------------------------------------------------

def test_registration_tables():
    def case(T):
        m = make_net(T)
        return (list(m._parameters), list(m._buffers), sorted(m._non_persistent_buffers_set), list(m._modules),
                names(m.named_parameters()), names(m.named_buffers()), names(m.named_children()),
                names(m.named_modules()), list(m.state_dict()), m.training)
    same(case)


def test_getattr_errors():
    raises(lambda T: make_net(T).x)
    raises(lambda T: make_net(T).fc1.nope)
    same(lambda T: getattr(T.nn.Module(), "weight", "default"))


def test_setattr_tensor_to_parameter_name():
    def case(T):
        m = make_net(T)
        m.fc1.weight = T.ones(4, 3)
    raises(case)
    raises(lambda T: setattr(T.nn.Linear(2, 2), "weight", 3))


def test_setattr_none_and_replacements():
    def case(T):
        m = make_net(T)
        m.fc1.bias = None                      # parameter slot kept, value None
        m.steps = None                         # buffer slot kept, value None
        m.act = None                           # module slot kept, value None
        out = [list(m.fc1._parameters.items()), names(m.named_parameters()), list(m.state_dict()),
               names(m.named_buffers()), list(m._modules), names(m.named_children())]
        m.fc1.bias = T.nn.Parameter(T.zeros(4))  # back from None
        m.fc2.weight = T.nn.ReLU()               # a module where a parameter was
        m.fc1 = T.nn.Parameter(T.ones(2))        # a parameter where a module was
        m.steps = T.full((2,), 7.0)              # plain tensor into a buffer slot stays a buffer
        out += [names(m.named_parameters()), list(m._modules), list(m.fc2._modules), list(m.state_dict()),
                m.steps, "steps" in m._buffers]
        return out
    raises(case)


def test_setattr_type_errors():
    def to_buffer(T):
        m = make_net(T)
        m.steps = 3

    def to_module(T):
        m = make_net(T)
        m.fc1 = "linear"

    def to_param_from_module(T):
        m = make_net(T)
        m.fc1.weight = T.nn.Linear(1, 1).weight.detach()
    raises(to_buffer)
    raises(to_module)
    raises(to_param_from_module)


def test_setattr_plain_attribute_then_parameter_and_buffer():
    def case(T):
        m = T.nn.Module()
        m.foo = 1
        m.t = T.ones(2)                     # a plain tensor attribute is no buffer
        first = (list(m.state_dict()), "t" in m.__dict__)
        m.foo = T.nn.Parameter(T.ones(1))   # replaces the plain attribute
        m.b = T.nn.Buffer(T.ones(2), persistent=False)
        m.c = T.nn.Buffer(T.zeros(1))
        return first, names(m.named_parameters()), names(m.named_buffers()), list(m.state_dict()), \
            "foo" in m.__dict__, sorted(m._non_persistent_buffers_set), type(m.b).__name__
    same(case)


def _before_init(T, what):
    class Early(T.nn.Module):
        def __init__(self):
            if what == "param":
                self.w = T.nn.Parameter(T.ones(1))
            elif what == "module":
                self.m = T.nn.Linear(1, 1)
            elif what == "buffer":
                self.register_buffer("b", T.ones(1))
            elif what == "register_parameter":
                self.register_parameter("p", None)
            elif what == "plain":
                self.x = 3
                self.t = T.ones(1)
            super().__init__()
            if what == "plain":
                return
    return Early()


@pytest.mark.parametrize("what", ["param", "module", "buffer", "register_parameter"])
def test_assign_before_super_init(what):
    raises(lambda T: _before_init(T, what))


def test_plain_attributes_before_super_init():
    same(lambda T: (_before_init(T, "plain").x, list(_before_init(T, "plain").state_dict())))


def test_delattr():
    def case(T):
        m = make_net(T)
        m.plain = 5
        del m.fc2
        del m.steps
        del m.scratch
        del m.fc1.bias
        del m.plain
        return list(m._modules), list(m._buffers), sorted(m._non_persistent_buffers_set), \
            list(m.fc1._parameters), list(m.state_dict()), hasattr(m, "plain")
    same(case)
    raises(lambda T: delattr(make_net(T), "nothing"))


def test_dir_lists_members():
    def case(T):
        d = dir(make_net(T))
        return [n in d for n in ("fc1", "act", "steps", "scratch", "forward", "training", "state_dict")]
    same(case)


_BAD_NAMES = [1, "a.b", "", "training", "forward"]


@pytest.mark.parametrize("name", _BAD_NAMES, ids=repr)
def test_register_parameter_name_errors(name):
    raises(lambda T: T.nn.Linear(1, 1).register_parameter(name, T.nn.Parameter(T.ones(1))))


@pytest.mark.parametrize("name", _BAD_NAMES, ids=repr)
def test_register_buffer_name_errors(name):
    raises(lambda T: T.nn.Linear(1, 1).register_buffer(name, T.ones(1)))


@pytest.mark.parametrize("name", _BAD_NAMES, ids=repr)
def test_add_module_name_errors(name):
    raises(lambda T: T.nn.Linear(1, 1).add_module(name, T.nn.ReLU()))
    raises(lambda T: T.nn.Linear(1, 1).register_module(name, T.nn.ReLU()))


def test_register_value_type_errors():
    raises(lambda T: T.nn.Module().register_parameter("p", T.ones(1)))
    raises(lambda T: T.nn.Module().register_parameter("p", 1.0))
    raises(lambda T: T.nn.Module().register_buffer("b", [1.0]))
    raises(lambda T: T.nn.Module().add_module("m", 3))
    raises(lambda T: T.nn.Module().add_module("m", T.ones(1)))
    raises(lambda T: T.nn.Linear(1, 1).register_parameter("weight", T.ones(1)))


def test_register_existing_members_and_none():
    def case(T):
        m = T.nn.Linear(2, 2)
        m.register_parameter("weight", T.nn.Parameter(T.ones(2, 2)))   # same name: replaced in place
        m.register_parameter("extra", None)
        m.register_buffer("b", None)
        m.register_buffer("b", T.ones(1), persistent=False)
        m.register_buffer("b", T.ones(1))                              # back to persistent
        m.register_module("child", None)
        m.add_module("child2", T.nn.ReLU())
        return list(m._parameters), names(m.named_parameters()), list(m.state_dict()), \
            sorted(m._non_persistent_buffers_set), list(m._modules), names(m.named_children()), repr(m)
    same(case)


def test_get_submodule_parameter_buffer():
    def case(T):
        m = make_net(T)
        seq = T.nn.Sequential(m)
        return (seq.get_submodule(""), seq.get_submodule("0.fc1"), seq.get_parameter("0.fc1.bias"),
                seq.get_buffer("0.steps"), seq.get_buffer("0.scratch"), m.get_parameter("fc2.weight"))
    same(case)


@pytest.mark.parametrize("call", [
    "get_submodule('nope')", "get_submodule('fc1.nope')", "get_submodule('fc1.weight')",
    "get_submodule('steps')", "get_parameter('nope')", "get_parameter('fc1.nope')", "get_parameter('steps')",
    "get_parameter('fc1')", "get_buffer('nope')", "get_buffer('fc1.weight')", "get_buffer('zz.steps')",
])
def test_get_member_errors(call):
    raises(lambda T: eval("m." + call, {"m": make_net(T)}))


def test_set_submodule():
    def case(T):
        m = make_net(T)
        m.set_submodule("fc2", T.nn.Linear(4, 1))
        m.set_submodule("act", T.nn.Tanh(), strict=True)
        return repr(m)
    same(case)
    raises(lambda T: make_net(T).set_submodule("", T.nn.ReLU()))
    raises(lambda T: make_net(T).set_submodule("nope.x", T.nn.ReLU()))
    raises(lambda T: make_net(T).set_submodule("newone", T.nn.ReLU(), strict=True))


# --- global registration hooks (torch.nn.modules.module.register_module_*_registration_hook) ----------

_REG_KINDS = ("buffer", "module", "parameter")


def _reg_hook(T, kind, hook):
    return getattr(T.nn.modules.module, f"register_module_{kind}_registration_hook")(hook)


def _show(v):
    return v if v is None or isinstance(v, (str, int)) else (type(v).__name__, getattr(v, "shape", None))


def test_registration_hooks_args_and_order():
    def case(T):
        log = []
        handles = [_reg_hook(T, kind, lambda m, n, v, kind=kind: log.append(
            (kind, type(m).__name__, n, _show(v), isinstance(v, T.nn.Buffer)))) for kind in _REG_KINDS]
        handles.append(_reg_hook(T, "buffer", lambda m, n, v: log.append("second buffer hook")))
        try:
            m = make_net(T)                        # layers register in torch's order
            m.fc1.bias = None                      # a None parameter runs no hook
            m.register_parameter("q", None)
            m.act = None                           # None modules and buffers do
            m.steps = None
            m.register_buffer("nb", None, persistent=False)
            m.add_module("extra", None)
            m.b2 = T.nn.Buffer(T.ones(1))          # the hook sees the Buffer itself
            m.t = T.ones(1)                        # a plain attribute: no hook
            m.seq = T.nn.Sequential(T.nn.Linear(1, 1), T.nn.ReLU())
            m.seq.append(T.nn.Tanh())
            m.ml = T.nn.ModuleList([T.nn.ReLU()])
            m.ml[0] = T.nn.Tanh()
            m.pl = T.nn.ParameterList([T.nn.Parameter(T.ones(2))])
            m.md = T.nn.ModuleDict({"a": T.nn.ReLU()})
            T.nn.BatchNorm1d(2)
            T.nn.MultiheadAttention(4, 2)
        finally:
            for h in handles:
                h.remove()
        return log
    same(case)


def test_registration_hooks_replace_values():
    def case(T):
        seen = []

        def on_param(m, n, v):
            if n == "bias":
                return T.nn.Parameter(T.full(tuple(v.shape), 0.5))

        def on_buffer(m, n, v):
            return None if v is None else v + 1

        def on_module(m, n, v):
            seen.append((n, _show(v)))
            if isinstance(v, T.nn.ReLU) or v is None and n == "act":
                return T.nn.Tanh()

        handles = [_reg_hook(T, "parameter", on_param), _reg_hook(T, "buffer", on_buffer),
                   _reg_hook(T, "module", on_module)]
        try:
            m = make_net(T)
            m.fc1.bias = T.nn.Parameter(T.zeros(4))           # replaced again by the hook
            kept = m.fc1.bias
            m.register_buffer("extra", T.zeros(2))
            first = type(m.act).__name__
            m.act = None                                      # the hook turns None into a module
        finally:
            for h in handles:
                h.remove()
        y = m(x_in(T, 2, 3))
        y.sum().backward()
        return (seen, first, type(m.act).__name__, names(m.named_parameters()), m.state_dict(), y,
                kept.grad, m.fc1.bias is kept, m.steps)
    same(case)


def test_registration_hook_returning_other_types():
    def case(T):
        h = _reg_hook(T, "parameter", lambda m, n, v: v.detach() * 0 + 0.5 if n == "b" else None)
        try:
            m = T.nn.Module()
            m.b = T.nn.Parameter(T.ones(2))                   # torch stores whatever the hook returns
            m.c = T.nn.Parameter(T.ones(1))
        finally:
            h.remove()
        return type(m.b).__name__, names(m.named_parameters()), list(m.parameters()), m.state_dict()
    same(case)


def test_registration_hook_handles_and_errors():
    def case(T):
        log = []
        h1 = _reg_hook(T, "module", lambda m, n, v: log.append(("h1", n)))
        h2 = _reg_hook(T, "module", lambda m, n, v: log.append(("h2", n)))
        m = T.nn.Module()
        m.a = T.nn.ReLU()
        h1.remove()
        h1.remove()                                           # removing twice is harmless
        m.b = T.nn.ReLU()
        with h2:
            m.c = T.nn.ReLU()
        m.d = T.nn.ReLU()

        def boom(mod, n, v):
            raise ValueError(f"no {n}")
        h3 = _reg_hook(T, "parameter", boom)
        try:
            try:
                m.w = T.nn.Parameter(T.ones(1))
            except ValueError as e:
                log.append(str(e))
        finally:
            h3.remove()
        m.w = T.nn.Parameter(T.ones(1))
        return log, names(m.named_parameters()), list(m._modules)
    same(case)


def test_registration_hook_exports():
    def case(T):
        mm = T.nn.modules.module
        api = [f"register_module_{kind}_registration_hook" for kind in _REG_KINDS]
        tables = [f"_global_{kind}_registration_hooks" for kind in _REG_KINDS]
        before = [len(getattr(mm, t)) for t in tables]
        handles = [getattr(mm, a)(lambda m, n, v: None) for a in api]
        during = [len(getattr(mm, t)) for t in tables]
        for h in handles:
            h.remove()
        return (mm.__all__, [hasattr(T.nn, a) or hasattr(T.nn.modules, a) for a in api], before, during,
                [len(getattr(mm, t)) for t in tables], [type(h).__name__ for h in handles])
    same(case)


def test_registration_hook_keeps_mindspore_names():
    # mstorch only: replacements keep the native MindSpore side (Cell._params / _cells, dotted names) in step
    net = make_net(mstorch)
    hp = _reg_hook(mstorch, "parameter", lambda m, n, v: mstorch.nn.Parameter(mstorch.zeros(tuple(v.shape))))
    hm = _reg_hook(mstorch, "module", lambda m, n, v: mstorch.nn.Linear(3, 1) if n == "fc1" else None)
    try:
        net.scale = mstorch.nn.Parameter(mstorch.ones(1))
        net.fc1 = mstorch.nn.Linear(3, 4)
    finally:
        hp.remove()
        hm.remove()
    assert net.scale.item() == 0 and net.fc1.out_features == 1
    assert net._cells["fc1"] is net.fc1
    ms_names = [p.name for _, p in net.parameters_and_names()]
    assert ms_names == names(net.named_parameters()) == ["scale", "fc1.weight", "fc1.bias", "fc2.weight"]
    assert dict(net.parameters_and_names())["scale"] is net.scale._ms


# --- iteration, naming and shared weights ------------------------------------------------------------

def test_named_parameters_options():
    def case(T):
        m = make_tied(T)
        return (names(m.named_parameters()), names(m.named_parameters(prefix="model")),
                names(m.named_parameters(recurse=False)), names(m.named_parameters(remove_duplicate=False)),
                [tuple(p.shape) for p in m.parameters()], len(list(m.parameters(recurse=False))),
                names(m.named_buffers()), names(m.named_buffers(prefix="x", recurse=False)),
                [tuple(b.shape) for b in m.buffers()])
    same(case)


def test_named_modules_and_children_options():
    def case(T):
        m = make_tied(T)
        memo = {m.body}
        return (names(m.named_modules()), names(m.named_modules(remove_duplicate=False)),
                names(m.named_modules(prefix="root")), names(m.named_modules(memo=memo)),
                names(m.named_children()), [type(c).__name__ for c in m.children()],
                [type(c).__name__ for c in m.modules()])
    same(case)


def test_same_module_twice_in_sequential():
    def case(T):
        lin = fill(T, T.nn.Linear(2, 2))
        seq = T.nn.Sequential(lin, T.nn.ReLU(), lin)
        return (names(seq.named_parameters()), names(seq.named_parameters(remove_duplicate=False)),
                names(seq.named_modules()), names(seq.named_children()), list(seq.state_dict()),
                seq(x_in(T, 1, 2)), repr(seq))
    same(case)


def test_tied_weights_share_storage_and_grad():
    def case(T):
        m = make_tied(T)
        out = m(T.tensor([[0, 4, 2]]))
        out.sum().backward()
        return (m.dec.weight is m.emb.weight, out, m.emb.weight.grad, m.body.weight.grad,
                [n for n, p in m.named_parameters() if p.grad is not None])
    same(case)


# --- state_dict ------------------------------------------------------------------------------------

def test_state_dict_keys_values_metadata():
    def case(T):
        m = T.nn.Sequential(make_net(T), T.nn.BatchNorm1d(2))
        sd = m.state_dict()
        return type(sd).__name__, sd, sd._metadata
    same(case)


def test_state_dict_tied_and_keep_vars():
    def case(T):
        m = make_tied(T)
        sd = m.state_dict()
        kv = m.state_dict(keep_vars=True)
        return (list(sd), sd["dec.weight"].requires_grad, type(sd["emb.weight"]).__name__,
                kv["dec.weight"] is m.emb.weight, kv["again.bias"] is m.body.bias,
                type(kv["emb.weight"]).__name__, kv["emb.weight"].requires_grad, sd["pos"])
    same(case)


def test_state_dict_prefix_and_destination():
    def case(T):
        m = make_net(T)
        sd = m.state_dict(prefix="model.")
        dest = {"keep": 1}
        out = m.state_dict(destination=dest, prefix="m.")
        return list(sd), dict(sd._metadata), out is dest, list(dest), hasattr(dest, "_metadata")
    same(case)


def test_state_dict_positional_args_warn():
    def case(T):
        dest = OrderedDict()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = make_net(T).state_dict(dest, "p.", True)
        return out is dest, list(dest), type(dest["p.fc1.weight"]).__name__, \
            [(c.category.__name__, str(c.message)) for c in w]
    same(case)


def test_state_dict_values_are_detached_views():
    def case(T):
        m = make_net(T)
        sd = m.state_dict()
        with T.no_grad():
            m.fc1.bias.add_(1.0)
        return sd["fc1.bias"], sd["fc1.bias"].requires_grad, sd["fc1.bias"].grad_fn is None
    same(case)


# --- load_state_dict -------------------------------------------------------------------------------

def _sd(T, drop=(), add=None, change=None):
    sd = make_net(T).state_dict()
    for k in drop:
        del sd[k]
    for k, v in (add or {}).items():
        sd[k] = v(T) if callable(v) else v
    for k, v in (change or {}).items():
        sd[k] = v(T)
    return sd


_LOAD_CASES = {
    "ok": {},
    "missing": dict(drop=["fc2.weight", "steps"]),
    "unexpected": dict(add={"fc1.extra": lambda T: T.ones(1), "zzz": lambda T: T.ones(1),
                            "scratch": lambda T: T.ones(3)}),
    "size": dict(change={"fc1.weight": lambda T: T.ones(4, 2)}),
    "several": dict(drop=["fc1.bias"], add={"u": lambda T: T.ones(1)},
                    change={"fc2.weight": lambda T: T.ones(3, 4), "steps": lambda T: T.ones(5)}),
    "not_a_tensor": dict(change={"fc1.bias": lambda T: [1.0, 2.0, 3.0, 4.0]}),
    "scalar_into_1elem": dict(change={"steps": lambda T: T.ones(1)}),
    "other_dtypes": dict(change={"fc1.weight": lambda T: T.full((4, 3), 0.5, dtype=T.float64),
                                 "steps": lambda T: T.tensor([2, 3])}),
}


@pytest.mark.parametrize("kind", list(_LOAD_CASES))
@pytest.mark.parametrize("strict", [True, False])
def test_load_state_dict_results_and_errors(kind, strict):
    def case(T):
        m = make_net(T)
        with T.no_grad():
            for p in m.parameters():
                p.zero_()
        res = m.load_state_dict(_sd(T, **_LOAD_CASES[kind]), strict=strict)
        return repr(res), res.missing_keys, res.unexpected_keys, type(res).__name__, m.state_dict()
    # strict loading refuses missing/unexpected keys; both modes refuse wrong shapes and non-tensors
    same(case, raises=kind in ("size", "several", "not_a_tensor", "scalar_into_1elem")
         or strict and kind in ("missing", "unexpected"))


def test_load_state_dict_wrong_container_type():
    raises(lambda T: make_net(T).load_state_dict([("fc1.weight", T.ones(4, 3))]))
    raises(lambda T: make_net(T).load_state_dict(None))


def test_load_state_dict_copies_and_keeps_identity():
    def case(T):
        m = make_net(T)
        w = m.fc1.weight
        src = {k: v * 2 for k, v in make_net(T).state_dict().items()}
        m.load_state_dict(src)
        src["fc1.weight"].fill_(0.0)     # the module holds a copy
        return m.fc1.weight is w, m.fc1.weight, m.fc1.weight.requires_grad, type(m.fc1.weight).__name__
    same(case)


def test_load_state_dict_assign():
    def case(T):
        m = make_net(T)
        m.fc2.weight.requires_grad_(False)
        src = make_net(T).state_dict()
        new_w = T.nn.Parameter(src["fc1.weight"] + 0)
        src["fc1.weight"] = new_w      # a Parameter in the state_dict is used as it is
        res = m.load_state_dict(src, assign=True)
        return (repr(res), type(m.fc1.weight).__name__, m.fc1.weight.requires_grad, m.fc2.weight.requires_grad,
                m.fc1.weight is new_w, m.steps is src["steps"], m.state_dict())
    same(case)


def test_load_state_dict_tied_model_roundtrip():
    def case(T):
        src = make_tied(T)
        sd = src.state_dict()
        m = make_tied(T)
        with T.no_grad():
            for p in m.parameters():
                p.zero_()
        res = m.load_state_dict(sd)
        return repr(res), m.dec.weight is m.emb.weight, m.state_dict()
    same(case)


def test_load_state_dict_strict_false_partial():
    def case(T):
        m = make_net(T)
        res = m.load_state_dict({"fc1.bias": T.full((4,), 3.0), "nope": T.ones(1)}, strict=False)
        return str(res), m.fc1.bias
    same(case)


# --- state_dict and load_state_dict hooks ----------------------------------------------------------

def test_state_dict_hooks():
    def case(T):
        m = make_net(T)
        log = []

        def pre(mod, prefix, keep_vars):
            log.append(("pre", type(mod).__name__, prefix, keep_vars))

        def post(mod, sd, prefix, local_metadata):
            log.append(("post", type(mod).__name__, prefix, dict(local_metadata), list(sd)))
            sd[prefix + "added"] = T.zeros(1)

        def legacy(mod, sd, prefix, local_metadata):
            return OrderedDict((k, v) for k, v in sd.items() if not k.endswith("bias"))

        h1 = m.fc1.register_state_dict_pre_hook(pre)
        m.fc1.register_state_dict_post_hook(post)
        h3 = m._register_state_dict_hook(legacy)
        first = list(m.state_dict(prefix="p."))
        h1.remove()
        h3.remove()
        second = list(m.state_dict())
        return log, first, second
    same(case)


def test_state_dict_post_hook_must_return_none():
    def case(T):
        m = make_net(T)
        m.register_state_dict_post_hook(lambda mod, sd, prefix, md: sd)
        return m.state_dict()
    raises(case)

    def twice(T):
        m = make_net(T)

        def hook(mod, sd, prefix, md):
            return None
        m.register_state_dict_post_hook(hook)
        m._register_state_dict_hook(hook)
    raises(twice)


def test_load_state_dict_hooks():
    def case(T):
        m = make_net(T)
        log = []

        def pre(mod, sd, prefix, local_metadata, strict, missing, unexpected, errors):
            log.append(("pre", type(mod).__name__, prefix, sorted(local_metadata.items()), strict,
                        sorted(k for k in sd if k.startswith(prefix))))

        def pre_no_module(sd, prefix, local_metadata, strict, missing, unexpected, errors):
            log.append(("pre_nm", prefix))
            sd[prefix + "weight"] = sd[prefix + "weight"] * 0 + 5

        def post(mod, keys):
            log.append(("post", type(mod).__name__, list(keys.missing_keys), list(keys.unexpected_keys)))
            keys.missing_keys.clear()   # the documented way to forgive missing keys

        m.fc1.register_load_state_dict_pre_hook(pre)
        m.fc2._register_load_state_dict_pre_hook(pre_no_module)
        h = m.register_load_state_dict_post_hook(post)
        sd = make_net(T).state_dict()
        del sd["steps"]
        res = m.load_state_dict(sd)
        h.remove()
        return log, repr(res), m.fc2.weight
    same(case)


def test_load_state_dict_post_hook_returning_value():
    def case(T):
        m = make_net(T)
        m.register_load_state_dict_post_hook(lambda mod, keys: keys)
        m.load_state_dict(make_net(T).state_dict())
    raises(case)


def test_extra_state():
    def make(T):
        class WithExtra(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = T.nn.Linear(1, 1)
                self.tag = "a"

            def get_extra_state(self):
                return {"tag": self.tag}

            def set_extra_state(self, state):
                self.tag = state["tag"]
        return fill(T, WithExtra())

    def case(T):
        m = make(T)
        sd = m.state_dict()
        sd["_extra_state"] = {"tag": "b"}
        m.load_state_dict(sd)
        other = make(T)
        sd2 = other.state_dict()
        del sd2["_extra_state"]
        err = None
        try:
            other.load_state_dict(sd2)
        except RuntimeError as e:
            err = str(e)
        unexpected = None
        try:
            make_net(T).load_state_dict({**make_net(T).state_dict(), "_extra_state": 1})
        except RuntimeError as e:
            unexpected = str(e)
        return list(sd), m.tag, err, unexpected
    same(case)


# --- modes, grads and conversions ------------------------------------------------------------------

def test_train_eval_propagation():
    def case(T):
        m = make_net(T)
        out = [m.training, [x.training for x in m.modules()]]
        r = m.eval()
        out += [r is m, [x.training for x in m.modules()]]
        m.fc1.train()
        out += [[x.training for x in m.modules()]]
        m.train(False)
        out += [[x.training for x in m.modules()]]
        m.train()
        out += [[x.training for x in m.modules()]]
        return out
    same(case)
    raises(lambda T: make_net(T).train("yes"))
    raises(lambda T: make_net(T).train(1))


def test_apply_order_and_return():
    def case(T):
        m = make_tied(T)
        seen = []
        r = m.apply(lambda mod: seen.append(type(mod).__name__))
        return r is m, seen
    same(case)


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    def case(T):
        m = make_net(T)
        m(x_in(T, 2, 3)).sum().backward()
        before = [p.grad for p in m.parameters()]
        m.zero_grad(set_to_none=set_to_none)
        return before, [p.grad for p in m.parameters()]
    same(case)


def test_zero_grad_default_sets_none():
    def case(T):
        m = make_net(T)
        m(x_in(T, 2, 3)).sum().backward()
        m.zero_grad()
        return [p.grad for p in m.parameters()]
    same(case)


def test_requires_grad_():
    def case(T):
        m = make_net(T)
        r = m.requires_grad_(False)
        flags = [p.requires_grad for p in m.parameters()]
        m.fc1.requires_grad_()
        return r is m, flags, [p.requires_grad for p in m.parameters()], m(x_in(T, 1, 3)).requires_grad
    same(case)


@pytest.mark.parametrize("conv", ["float64", "half", "bfloat16", "double", "float", "to_dtype",
                                  "to_device_dtype", "to_tensor", "type", "cpu", "to_cpu_str",
                                  "share_memory", "to_non_blocking"])
def test_conversions(conv):
    def case(T):
        m = T.nn.Sequential(make_net(T), T.nn.BatchNorm1d(2))
        params_before = list(m.parameters())
        m(x_in(T, 2, 3)).sum().backward()
        r = {
            "float64": lambda: m.to(T.float64),
            "half": lambda: m.half(),
            "bfloat16": lambda: m.bfloat16(),
            "double": lambda: m.double(),
            "float": lambda: m.double().float(),
            "to_dtype": lambda: m.to(dtype=T.float16),
            "to_device_dtype": lambda: m.to(T.device("cpu"), T.float64),
            "to_tensor": lambda: m.to(T.zeros(1, dtype=T.float64)),
            "type": lambda: m.type(T.float64),
            "cpu": lambda: m.cpu(),
            "to_cpu_str": lambda: m.to("cpu"),
            "share_memory": lambda: m.share_memory(),
            "to_non_blocking": lambda: m.to(T.float64, non_blocking=True),
        }[conv]()
        return (r is m, [p is q for p, q in zip(params_before, m.parameters())],
                [(n, repr(t.dtype)) for n, t in m.state_dict().items()],
                [repr(p.grad.dtype) for p in m.parameters()], [p.requires_grad for p in m.parameters()],
                [type(p).__name__ for p in m.parameters()], repr(m[0].scratch.dtype))
    same(case)


def test_to_rejects_integer_dtype():
    raises(lambda T: make_net(T).to(T.int32))
    raises(lambda T: make_net(T).to(T.bool))


@pytest.mark.skipif(mstorch.cuda.is_available(), reason="the CPU-only message is what is compared")
def test_cuda_on_cpu_only_machine():
    # docs/migration.md: on CPU, .cuda() raises torch's "Torch not compiled with CUDA enabled"
    raises(lambda T: make_net(T).cuda())
    raises(lambda T: make_net(T).to("cuda"))
