"""The __torch_function__ protocol and torch.overrides against torch: ops on Tensor subclasses return the
subclass (the default Tensor.__torch_function__), overrides see the public function and the types, NotImplemented
falls through to torch's error, DisableTorchFunctionSubclass turns dispatch off, Parameter opts out."""
import pytest

from harness import check


def _subclass(T):
    class My(T.Tensor):
        pass
    return My


def _logged(T, calls):
    class Logged(T.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append((func.__name__, [t.__name__ for t in types]))
            return super().__torch_function__(func, types, args, kwargs)
    return Logged


def _types(*xs):
    return [type(x).__name__ for x in xs]


CASES = {
    "default_converts": lambda T: (lambda x: _types(x + 1, T.add(x, 1), x.sum(), x.exp(), T.cat([x, x]), x.max(0).values,
                                                    T.nn.functional.relu(x), x * x, x.reshape(2, 1), T.stack([x, x])))(
        T.ones(2).as_subclass(_subclass(T))),
    "values_kept": lambda T: (lambda x: (x * 3 + 1).sum().as_subclass(T.Tensor))(T.arange(4.).as_subclass(_subclass(T))),
    "return_types": lambda T: (lambda r: (type(r).__name__, _types(*r)))(
        T.ones(2, 3).as_subclass(_subclass(T)).max(1)),
    "parameter_opts_out": lambda T: (lambda p: _types(p * 2, p.sum(), T.relu(p)))(T.nn.Parameter(T.ones(2))),
    "logged": lambda T: _run_logged(T),
    "not_implemented": lambda T: T.add(T.ones(1).as_subclass(_not_impl(T)), 1),
    "disabled": lambda T: _disabled(T),
    "has_torch_function": lambda T: (lambda x: (T.overrides.has_torch_function((x,)),
                                                T.overrides.has_torch_function((T.ones(1),)),
                                                T.overrides.is_tensor_like(x), T.overrides.is_tensor_like(3),
                                                T.overrides.is_tensor_like(T.ones(1))))(
        T.ones(1).as_subclass(_subclass(T))),
    "wrap_torch_function": lambda T: _wrapped(T),
    "handle_torch_function": lambda T: _handled(T),
    "mixed_subclasses": lambda T: _mixed(T),
}


def _run_logged(T):
    calls = []
    y = T.ones(2).as_subclass(_logged(T, calls))
    r = T.mul(y, 2), y.exp(), T.nn.functional.softmax(y, 0)
    return calls, _types(*r)


def _not_impl(T):
    class Ret(T.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented
    return Ret


def _disabled(T):
    x = T.ones(2).as_subclass(_subclass(T))
    with T._C.DisableTorchFunctionSubclass():
        inside = _types(x + 1, T.add(x, 1))
    return inside, _types(x + 1)


def _wrapped(T):
    @T.overrides.wrap_torch_function(lambda a, b: (a,))
    def scale(a, b):
        return a * b
    return _types(scale(T.ones(1).as_subclass(_subclass(T)), 2), scale(T.ones(1), 2))


def _handled(T):
    class Intercept(T.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ("intercepted", func.__name__, len(args))

    def public(a, b):
        if T.overrides.has_torch_function((a, b)):
            return T.overrides.handle_torch_function(public, (a, b), a, b)
        return a + b
    return public(T.ones(1).as_subclass(Intercept), 1), public(T.ones(1), 1)


def _mixed(T):
    class Base(T.Tensor):
        pass

    class Child(Base):
        pass
    a, b = T.ones(1).as_subclass(Base), T.ones(1).as_subclass(Child)
    return _types(a + b, b + a, T.add(a, b))


@pytest.mark.parametrize("case", sorted(CASES))
def test_torch_function(case):
    check(CASES[case], raises=case == "not_implemented")


def test_not_implemented_message():
    from harness import NAMESPACES
    msgs = []
    for T in NAMESPACES.values():
        try:
            CASES["not_implemented"](T)
        except TypeError as exc:
            msgs.append(str(exc).replace("mstorch", "torch").split(" <class")[0])
    assert len(msgs) == 2 and msgs[0] == msgs[1]
