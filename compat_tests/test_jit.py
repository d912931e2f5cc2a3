"""torch.jit against torch: script/trace return objects that compute what the eager code computes and
answer isinstance checks as torch's ScriptModule/ScriptFunction do; trace's checks of inputs and outputs;
decorators, annotations, jit.isinstance, fork/wait, interface, freeze, fusion controls and warnings.
mstorch runs everything eagerly (docs/known-differences.md); save/load raise a clear error."""
import subprocess
import sys
import warnings
from typing import Dict, List, Optional, Tuple, Union

import numpy as np
import pytest
import torch

import mstorch
from harness import check, run, Raised

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)


def quiet(fn):
    def wrapped(T):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(T)
    return wrapped


def same_error(fn):
    ref, got = run(quiet(fn), torch), run(quiet(fn), mstorch)
    assert isinstance(ref, Raised), f"torch did not raise: {ref!r}"
    assert isinstance(got, Raised), f"mstorch did not raise: {got!r}"
    assert (type(got.exc).__name__, str(got.exc)) == (type(ref.exc).__name__, str(ref.exc))


# functions and modules at module level: torch's compiler reads their source
def scale_add(x, y):
    return x * 2 + y.sin()


def branchy(x):
    if bool(x.sum() > 0):
        return x * 3
    return x - 1


def make_net(T):
    class Net(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = T.nn.Linear(3, 2)
            self.scale = 2.0

        def forward(self, x):
            return self.helper(self.fc(x)).relu() * self.scale

        @T.jit.export
        def helper(self, x):
            return x + 1

        @T.jit.ignore
        def debug(self, x):
            return x.tolist()

        @T.jit.unused
        def not_scripted(self, x):
            return x * 100
    T.manual_seed(0)
    return Net()


def test_script_function_runs_and_is_a_script_function():
    def fn(T):
        f = T.jit.script(scale_add)
        x, y = T.tensor(X), T.tensor(X[::-1].copy())
        return (f(x, y), T.jit.script(branchy)(x), T.jit.script(branchy)(-x),
                isinstance(f, T.jit.ScriptFunction), T.jit.script(f) is f, isinstance(scale_add, T.nn.Module))
    check(quiet(fn))


def test_script_module_forward_state_and_isinstance():
    def fn(T):
        net = make_net(T)
        m = T.jit.script(net)
        x = T.tensor(X)
        return (m(x), m.helper(x), m.debug(x), list(m.state_dict()), isinstance(m, T.jit.ScriptModule),
                isinstance(m, T.nn.Module), isinstance(m, T.jit.RecursiveScriptModule),
                isinstance(m, T.jit.ScriptFunction), T.jit.script(m) is m, m.training)
    check(quiet(fn))


def test_script_module_trains():
    def fn(T):
        m = T.jit.script(make_net(T))
        x = T.tensor(X)
        m(x).sum().backward()
        return m.fc.weight.grad, m.fc.bias.grad
    check(quiet(fn))


def test_plain_objects_are_not_script_types():
    def fn(T):
        net = make_net(T)
        return (isinstance(net, T.jit.ScriptModule), isinstance(scale_add, T.jit.ScriptFunction),
                isinstance(T.tensor(X), T.jit.ScriptModule), issubclass(T.jit.ScriptModule, T.nn.Module))
    check(quiet(fn))


def test_prepare_scriptable_is_used():
    def fn(T):
        class Inner(T.nn.Module):
            def forward(self, x):
                return x + 1

        class Swapped(T.nn.Module):
            def forward(self, x):
                return x * 10

            def __prepare_scriptable__(self):
                return Inner()

        class Outer(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.sub = Swapped()

            def forward(self, x):
                return self.sub(x)
        x = T.tensor(X)
        return T.jit.script(Swapped())(x), T.jit.script(Outer())(x)
    check(quiet(fn))


class ScriptedPoint:
    def __init__(self, x: int):
        self.x = x


def test_script_class_and_module_class():
    check(quiet(lambda T: T.jit.script(ScriptedPoint) is ScriptedPoint))
    same_error(lambda T: T.jit.script(T.nn.Linear))


def test_script_module_subclass_and_attribute():
    def fn(T):
        class Legacy(T.jit.ScriptModule):
            def __init__(self):
                super().__init__()
                self.k = T.jit.Attribute(3, int)

            @T.jit.script_method
            def forward(self, x):
                return x * self.k
        m = Legacy()
        return m(T.tensor(X)), m.k, isinstance(m, T.jit.ScriptModule), isinstance(m, T.nn.Module)
    check(quiet(fn))


def test_deprecation_warnings_match():
    def fn(T):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            T.jit.script(scale_add)
            T.jit.trace(make_net(T), T.tensor(X), check_trace=False)
            T.jit.fork(scale_add, T.tensor(X), T.tensor(X)).wait()
            T.jit.wait(T.jit.fork(scale_add, T.tensor(X), T.tensor(X)))
        return sorted({(w.category.__name__, str(w.message)) for w in caught})
    check(fn)


# --- trace ----------------------------------------------------------------------------------------

def test_trace_function_runs_once_with_is_tracing():
    def fn(T):
        seen = []

        def f(x, y):
            seen.append(T.jit.is_tracing())
            return x * y + 1
        x = T.tensor(X)
        g = T.jit.trace(f, (x, x), check_trace=False)
        during = list(seen)
        return g(x, x + 1), during, isinstance(g, T.jit.ScriptFunction), T.jit.is_tracing(), T.jit.is_scripting()
    check(quiet(fn))


def test_trace_module_and_bound_forward():
    def fn(T):
        net = make_net(T)
        x = T.tensor(X)
        t1 = T.jit.trace(net, x, check_trace=False)
        t2 = T.jit.trace(make_net(T).forward, x, check_trace=False)
        return (t1(x), t2(x), isinstance(t1, T.jit.ScriptModule), isinstance(t1, T.jit.TracedModule),
                isinstance(t1, T.jit.TopLevelTracedModule), isinstance(t2, T.jit.ScriptModule),
                isinstance(t1, T.jit.RecursiveScriptModule), T.jit.trace(t1, x) is t1)
    check(quiet(fn))


def test_trace_kwarg_inputs_and_trace_module_methods():
    def fn(T):
        class Two(T.nn.Module):
            def forward(self, x, y=None):
                return x if y is None else x + y

            def triple(self, x):
                return x * 3
        x = T.tensor(X)
        a = T.jit.trace(Two(), example_kwarg_inputs={"x": x, "y": x}, check_trace=False)
        b = T.jit.trace_module(Two(), {"forward": x, "triple": (x,)}, check_trace=False)
        g = T.jit.trace(lambda x, y: x - y, example_kwarg_inputs={"x": x, "y": x * 2}, check_trace=False)
        return a(x, x), b.triple(x), g(x, x), isinstance(b, T.jit.ScriptModule)
    check(quiet(fn))


@pytest.mark.parametrize("case", ["none", "int", "tuple_with_int", "dict_strict", "module_no_inputs",
                                  "other_method", "trace_module_function", "trace_module_list", "none_inputs"])
def test_trace_errors_match(case):
    def fn(T):
        x = T.tensor(X)
        if case == "none":
            return T.jit.trace(lambda x: None, x)
        if case == "int":
            return T.jit.trace(lambda x: 3, x)
        if case == "tuple_with_int":
            return T.jit.trace(lambda x: (x, 2.0), x)
        if case == "dict_strict":
            return T.jit.trace(lambda x: {"a": x}, x)
        if case == "module_no_inputs":
            return T.jit.trace(T.nn.Linear(3, 2))
        if case == "other_method":
            return T.jit.trace(make_net(T).helper, x)
        if case == "trace_module_function":
            return T.jit.trace_module(scale_add, {})
        if case == "trace_module_list":
            return T.jit.trace_module(T.nn.Linear(3, 2), [x])
        return T.jit.trace(scale_add, None)
    same_error(fn)


def test_trace_container_outputs_allowed():
    def fn(T):
        x = T.tensor(X)
        a = T.jit.trace(lambda x: [x * 2], x, check_trace=False)(x)
        b = T.jit.trace(lambda x: (x, (x + 1, [x])), x, check_trace=False)(x)
        c = T.jit.trace(lambda x: {"a": x}, x, strict=False, check_trace=False)(x)
        return a, b, c
    check(quiet(fn))


# --- decorators, annotations, isinstance ------------------------------------------------------------

def test_modifiers_match():
    def fn(T):
        def f(x):
            return x
        out = [T.jit.ignore(f)._torchscript_modifier, T.jit.unused(f)._torchscript_modifier,
               T.jit.export(f)._torchscript_modifier, T.jit.ignore(drop=True)(f)._torchscript_modifier,
               T.jit.ignore(drop=False)(f)._torchscript_modifier]

        class P:
            @T.jit.unused
            @property
            def value(self):
                return 1
        return out, P.value.fget._torchscript_modifier, P().value, T.jit.ignore(f) is f
    check(quiet(fn))
    same_error(lambda T: T.jit.ignore("x"))
    with pytest.warns(FutureWarning, match=r"ignore\(True\) has been deprecated"):
        mstorch.jit.ignore(True)


def test_annotations():
    def fn(T):
        class K:
            n: T.jit.Final[int] = 3
        d = T.jit.annotate(Dict[str, int], {})
        d["a"] = 1
        return d, T.jit.annotate(List[int], [1]), T.jit.Final is getattr(__import__("typing"), "Final"), K.n
    check(fn)


ISINSTANCE = [([1, 2], List[int]), ([1, "a"], List[int]), ({"a": [1]}, Dict[str, List[int]]),
              ({"a": "b"}, Dict[str, int]), (None, Optional[int]), (3, Optional[int]), ("a", Union[int, str]),
              ((1, "a"), Tuple[int, str]), ((1,), Tuple[int, str]), ([[1]], List[List[int]]),
              ([1], Optional[List[int]]), (3, (str, int)), (3, int), ("a", float), ([], List[int])]


def test_jit_isinstance():
    def fn(T):
        out = [T.jit.isinstance(obj, typ) for obj, typ in ISINSTANCE]
        out.append(T.jit.isinstance([T.ones(1)], List[T.Tensor]))
        return out
    check(quiet(fn))
    same_error(lambda T: T.jit.isinstance([1], list))
    same_error(lambda T: T.jit.isinstance({1: 1}, Dict))
    same_error(lambda T: T.jit.isinstance([1], [int]))
    with pytest.warns(UserWarning, match="inner type of a container is lost"):
        mstorch.jit.isinstance([], List[int])


# --- fork / wait / interface / freeze / fusion ------------------------------------------------------

def test_fork_wait_future():
    def fn(T):
        x = T.tensor(X)
        fut = T.jit.fork(scale_add, x, y=x)
        chained = fut.then(lambda f: f.wait() + 1)
        return fut.wait(), T.jit.wait(fut), fut.done(), fut.value(), chained.wait(), isinstance(fut, T.jit.Future)
    check(quiet(fn))


def test_interface():
    def fn(T):
        class Plain:
            def run(self, x: T.Tensor) -> T.Tensor:
                pass
        return T.jit.interface(Plain) is Plain, Plain.__torch_script_interface__
    check(quiet(fn))
    same_error(lambda T: T.jit.interface(3))

    def derived(T):
        class Base:
            def run(self, x):
                pass

        class Child(Base):
            def run(self, x):
                pass
        return T.jit.interface(Child)
    same_error(derived)

    def module_interface(T):
        class ModI(T.nn.Module):
            def forward(self, x: T.Tensor) -> T.Tensor:
                pass
        return T.jit.interface(ModI) is ModI
    check(quiet(module_interface))


def test_freeze_and_optimize_for_inference():
    def fn(T):
        m = T.jit.script(make_net(T)).eval()
        frozen = T.jit.freeze(m)
        return frozen(T.tensor(X)), isinstance(frozen, T.jit.ScriptModule)
    check(quiet(fn))
    same_error(lambda T: T.jit.freeze(make_net(T)))
    same_error(lambda T: T.jit.freeze(T.jit.script(make_net(T))))
    same_error(lambda T: T.jit.optimize_for_inference(make_net(T)))


def test_fusion_controls():
    def fn(T):
        with T.jit.optimized_execution(False), T.jit.fuser("fuser1"):
            y = T.tensor(X) * 2
        previous = T.jit.set_fusion_strategy([("DYNAMIC", 3)])
        restored = T.jit.set_fusion_strategy(previous)
        return y, previous, restored, T.jit.onednn_fusion_enabled()
    check(quiet(fn))
    same_error(lambda T: T.jit.fuser("bad").__enter__())
    with pytest.warns(UserWarning, match="Only works in script mode"):
        mstorch.jit.strict_fusion()


def test_script_if_tracing_and_unwrap():
    check(quiet(lambda T: T.jit.script_if_tracing(scale_add)(T.tensor(X), T.tensor(X))))
    check(lambda T: (T.jit._unwrap_optional(3), issubclass(T.jit.Error, Exception)))


# --- archives -------------------------------------------------------------------------------------

@pytest.mark.parametrize("api", ["save", "load"])
def test_save_load_raise_naming_the_api(api, tmp_path):
    m = mstorch.jit.script(make_net(mstorch))
    with pytest.raises(RuntimeError) as info:
        if api == "save":
            mstorch.jit.save(m, str(tmp_path / "m.pt"))
        else:
            mstorch.jit.load(str(tmp_path / "m.pt"))
    text = str(info.value)
    assert text.startswith(f"torch.jit.{api} is not supported by mstorch") and "state_dict" in text


# --- import paths ---------------------------------------------------------------------------------

def test_torch_alias_resolves_the_modules():
    from mstorch._compat.alias import TorchAliasFinder
    finder = TorchAliasFinder()
    for name in ("torch.jit", "torch.testing", "torch.autograd.functional"):
        spec = finder.find_spec(name)
        assert spec is not None and spec.loader.target == "mstorch" + name[len("torch"):]


def test_import_forms_under_the_alias():
    code = ("from mstorch._compat import alias; alias.install()\n"
            "import torch.jit\n"
            "from torch.testing import assert_close, make_tensor\n"
            "import torch.autograd.functional as AF\n"
            "import torch, mstorch\n"
            "assert torch.jit is mstorch.jit and AF is mstorch.autograd.functional\n"
            "assert_close(AF.jacobian(lambda x: x * 2, torch.ones(2)), 2 * torch.eye(2))\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().endswith("ok"), out.stderr[-2000:]
