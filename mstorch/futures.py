"""Mirrors ``torch.futures``: ``Future`` (``set_result``, ``wait``, ``value``, ``then``,
``add_done_callback``; the class lives in ``mstorch/_future.py``), ``collect_all`` and ``wait_all``."""
import threading

from ._future import Future

__all__ = ["Future", "collect_all", "wait_all"]


def collect_all(futures):
    """Mirrors ``torch.futures.collect_all``: a future of the list of ``futures``, done when all are."""
    futures = list(futures)
    out = Future()
    out._driver = lambda: [f._drive() for f in futures if isinstance(f, Future)]
    remaining = [len(futures)]
    lock = threading.Lock()

    def one_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            out.set_result(futures)
    if not futures:
        out.set_result([])
    for f in futures:
        f.add_done_callback(one_done)
    return out


def wait_all(futures):
    """Mirrors ``torch.futures.wait_all``: the futures' values, raising the first error."""
    return [f.wait() for f in futures]
