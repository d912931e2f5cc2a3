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


def _same_type_error(call, cut):
    """Both libraries raise TypeError with the same message up to ``cut`` (where a class or object is named)."""
    from harness import NAMESPACES
    msgs = []
    for T in NAMESPACES.values():
        try:
            call(T)
        except TypeError as exc:
            msgs.append(str(exc).replace("mstorch", "torch").split(cut)[0])
    assert len(msgs) == 2 and msgs[0] == msgs[1]


def test_not_implemented_message():
    _same_type_error(CASES["not_implemented"], " <class")


# --- torch function modes ---------------------------------------------------------------------------------------

def _log_mode(T, calls, replace=None):
    class Log(T.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            calls.append((func.__name__, [t.__name__ for t in types]))
            if replace is not None and func.__name__ in replace:
                return replace[func.__name__](T)
            return func(*args, **(kwargs or {}))
    return Log


def _mode_sees(T):
    calls = []
    a = T.arange(4.)
    with _log_mode(T, calls)() as m:
        r = (T.add(a, 1), a.mul(2), a * a, T.zeros(3), a.sum(), T.softmax(a, 0), T.cat([a, a]),
             a.max(0).values, T.matmul(a, a))
        inside = T._C._is_torch_function_mode_enabled(), T.overrides._get_current_function_mode() is m
    outside = T._C._is_torch_function_mode_enabled(), len(T.overrides._get_current_function_mode_stack())
    return calls, r, inside, outside


def _mode_replaces(T):
    calls = []
    with _log_mode(T, calls, {"mul": lambda T: T.full((2,), 7.)})():
        r = T.ones(2) * 3, T.mul(T.ones(2), 3), T.ones(2) + 3
    return calls, r


def _nested_modes(T):
    order = []

    class Outer(T.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            order.append(("outer", func.__name__))
            return func(*args, **(kwargs or {}))

    class Inner(T.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            order.append(("inner", func.__name__, len(T.overrides._get_current_function_mode_stack())))
            if func is T.add:
                return T.tensor(42.)   # itself seen by the outer mode
            return func(*args, **(kwargs or {}))
    a = T.ones(2)
    with Outer(), Inner():
        r = T.add(a, a), T.mul(a, a)
    return order, r


def _mode_and_subclass(T):
    calls = []
    sub = _logged(T, calls)
    with _log_mode(T, calls)():
        r = T.add(T.ones(2).as_subclass(sub), 1)
    return calls, type(r).__name__, r.as_subclass(T.Tensor)


def _mode_not_implemented(T):
    class NI(T.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return NotImplemented
    with NI():
        return T.add(T.ones(1), 1)


def _mode_disabled(T):
    calls = []
    a = T.ones(2)
    with _log_mode(T, calls)():
        with T._C.DisableTorchFunction():
            r1 = T.add(a, a)
            off = T._C._is_torch_function_mode_enabled()
        with T._C.DisableTorchFunctionSubclass():
            r2 = T.mul(a, a)
    return calls, r1, r2, off


def _base_mode(T):
    with T.overrides.BaseTorchFunctionMode():
        return T.ones(2).exp(), T.overrides.has_torch_function((1,)), T.overrides.has_torch_function_unary(T.ones(1))


def _mode_exception(T):
    calls = []
    try:
        with _log_mode(T, calls)():
            raise ValueError("x")
    except ValueError:
        pass
    return T.overrides._len_torch_function_stack() if hasattr(T.overrides, "_len_torch_function_stack") else \
        T._C._len_torch_function_stack()


def _mode_module(T):
    calls = []
    T.manual_seed(0)
    lin = T.nn.Linear(3, 2)
    x = T.ones(1, 3)
    with _log_mode(T, calls)():
        y = T.nn.functional.softmax(T.nn.functional.relu(lin(x)), -1)
    return [c[0] for c in calls], y


MODE_CASES = {"sees": _mode_sees, "replaces": _mode_replaces, "nested": _nested_modes,
              "with_subclass": _mode_and_subclass, "not_implemented": _mode_not_implemented,
              "disabled": _mode_disabled, "base": _base_mode, "exception": _mode_exception, "module": _mode_module}


@pytest.mark.parametrize("case", sorted(MODE_CASES))
def test_torch_function_mode(case):
    check(MODE_CASES[case], raises=case == "not_implemented")


def test_mode_not_implemented_message():
    _same_type_error(_mode_not_implemented, " object at")


def test_mode_is_per_thread():
    # torch's mode stack is thread-local: a mode pushed on one thread does not see another thread's calls
    import threading

    def fn(T):
        calls = []
        seen_other = []
        with _log_mode(T, calls)():
            t = threading.Thread(target=lambda: seen_other.append(T.add(T.ones(1), 1)))
            t.start()
            t.join()
            T.mul(T.ones(1), 2)
        return calls, seen_other
    check(fn)
