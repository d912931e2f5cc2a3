"""torch.futures (Future, collect_all, wait_all), torch.Future and torch.jit.fork's future against torch:
results, blocking waits across threads, chained callbacks, errors and their messages."""
import threading
import time

import pytest

from harness import NAMESPACES, check


def _msg(fn):
    def wrapped(T):
        try:
            return fn(T)
        except Exception as exc:  # noqa: BLE001 - the error (type and message) is the result
            return type(exc).__name__, str(exc).split("\n\nAt:")[0]
    return wrapped


CASES = {
    "result": lambda T: (lambda f: (f.done(), f.set_result(5), f.done(), f.wait(), f.value()))(T.futures.Future()),
    "twice": lambda T: (lambda f: (f.set_result(1), f.set_result(2)))(T.futures.Future()),
    "exception": lambda T: (lambda f: (f.set_exception(ValueError("bad")), f.done(), f.wait()))(T.futures.Future()),
    "exception_value": lambda T: (lambda f: (f.set_exception(ValueError("bad")), f.value()))(T.futures.Future()),
    "not_exception": lambda T: T.futures.Future().set_exception(3),
    "then": lambda T: (lambda f: (lambda c: (f.set_result(3), c.wait()))(f.then(lambda x: x.wait() * 2)))(
        T.futures.Future()),
    "then_error": lambda T: (lambda f: (lambda c: (f.set_result(3), c.wait()))(f.then(lambda x: 1 / 0)))(
        T.futures.Future()),
    "then_done": lambda T: (lambda f: (f.set_result(T.ones(2)), f.then(lambda x: x.wait() + 1).wait()))(
        T.futures.Future()),
    "done_callback_error": lambda T: (lambda f: (f.add_done_callback(lambda x: 1 / 0), f.set_result(1), f.value()))(
        T.futures.Future()),
    "collect_all": lambda T: _collect(T),
    "collect_error": lambda T: _collect(T, error=True),
    "collect_bad": lambda T: T.futures.collect_all([1]),
    "wait_all": lambda T: (lambda a, b: (a.set_result(1), b.set_result(T.ones(2)), T.futures.wait_all([a, b]))[2])(
        T.futures.Future(), T.futures.Future()),
    "wait_all_error": lambda T: (lambda a, b: (a.set_result(1), b.set_exception(RuntimeError("x")),
                                               T.futures.wait_all([a, b])))(T.futures.Future(), T.futures.Future()),
    "classes": lambda T: (T.futures.Future is T.jit.Future, issubclass(T.futures.Future, T.Future),
                          type(T.jit.fork(lambda: 3)) is T.Future, T.jit.fork(lambda a: a + 1, 2).wait(),
                          T.Future.__module__, T.futures.Future.__module__, T.Future.__name__),
}


def _collect(T, error=False):
    a, b = T.futures.Future(), T.futures.Future()
    both = T.futures.collect_all([a, b])
    if error:
        a.set_exception(ValueError("x"))
    else:
        a.set_result(1)
    first = both.done()
    b.set_result(2)
    return first, both.done(), [f.wait() for f in both.wait()]


@pytest.mark.parametrize("case", sorted(CASES))
def test_futures(case):
    check(_msg(CASES[case]))


def test_wait_blocks_until_another_thread_completes():
    def fn(T):
        f = T.futures.Future()
        threading.Thread(target=lambda: (time.sleep(0.1), f.set_result(7))).start()
        return f.wait(), f.done()
    check(fn)


def test_value_before_completion_raises():
    for T in NAMESPACES.values():
        with pytest.raises(RuntimeError):
            T.futures.Future().value()
