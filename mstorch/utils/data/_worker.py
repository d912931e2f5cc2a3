"""The worker side of ``DataLoader(num_workers > 0)``: mirrors ``torch.utils.data._utils.worker``.

Workers are real processes. MindSpore is fork-safe only through its own fork callbacks (its CPU thread
pool is not rebuilt in a plain ``fork`` child, which then hangs in its first multi-threaded kernel), so
fork-started workers run them (``_ms_private.before_fork`` ...) and re-apply mstorch's runtime settings.
Tensors cross the process boundary as NumPy arrays and are rebuilt in the receiving process.
"""
import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass

import numpy as np

from ... import _ms_private as P
from ... import _runtime
from ..._dtype import bfloat16
from ..._tensor import Tensor

MP_STATUS_CHECK_INTERVAL = 5.0   # seconds between liveness checks, as torch


# --- worker info ----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """Mirrors ``torch.utils.data.WorkerInfo``."""
    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str = "multiprocessing"


_worker_info = None


def get_worker_info():
    """Mirrors ``torch.utils.data.get_worker_info``: None in the main process."""
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    seed: int = None


# --- exceptions across processes ------------------------------------------------------------------

class KeyErrorMessage(str):
    """KeyError repr()s its argument; this keeps a multi-line message readable."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """Mirrors ``torch._utils.ExceptionWrapper``: the exception type and its formatted traceback."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        try:
            raise exception
        finally:
            del exception    # no frame -> traceback -> frame cycle keeping the iterator (and workers) alive


# --- tensors through pickling (multiprocessing queues) --------------------------------------------

def _rebuild_tensor(array, bf16, requires_grad):
    from ...ops.creation import from_numpy
    t = from_numpy(array)
    if bf16:
        t = t.to(bfloat16)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _reduce_tensor(t):
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does not "
            "support crossing process boundaries.  If you just want to transfer the data, call detach() "
            "on the tensor before serializing (e.g., putting it on the queue).")
    d = t.detach()
    bf16 = d.dtype is bfloat16     # NumPy has no bfloat16: its values travel as float32 (exactly)
    array = (d.float() if bf16 else d).numpy()
    return _rebuild_tensor, (np.ascontiguousarray(array), bf16, t.requires_grad)


_reducer_registered = []


def register_tensor_reducer():
    """Tensors on multiprocessing queues travel as NumPy arrays (as torch.multiprocessing registers its
    own reducers); only ``multiprocessing``'s pickler is affected, not ``pickle`` or ``torch.save``."""
    if not _reducer_registered:
        from multiprocessing.reduction import ForkingPickler
        ForkingPickler.register(Tensor, _reduce_tensor)
        _reducer_registered.append(True)


# --- processes ------------------------------------------------------------------------------------

_fork_classes = {}


def process_class(ctx):
    """``ctx.Process``, wrapped with MindSpore's fork callbacks when ``ctx`` forks."""
    base = ctx.Process
    if ctx.get_start_method() != "fork":
        return base
    cls = _fork_classes.get(base)
    if cls is None:
        cls = _fork_classes[base] = _forking(base)
    return cls


def _forking(base):
    class MindSporeForkProcess(base):
        def start(self):
            self._mstorch_grad_enabled = P.grad_enabled()   # the child inherits the forking thread's mode
            P.before_fork()
            try:
                super().start()
            finally:
                P.parent_after_fork()

        def run(self):
            P.child_after_fork()
            _runtime.configure()
            P.enable_recording()
            P.set_grad_enabled(self._mstorch_grad_enabled)
            super().run()

    return MindSporeForkProcess


class ManagerWatchdog:
    """True while the process that started this worker is alive."""

    def __init__(self):
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self):
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


# --- seeding --------------------------------------------------------------------------------------

_M32 = 0xFFFFFFFF


def _generate_state(base_seed, worker_id):
    """The NumPy seed torch gives each worker: NumPy's SeedSequence hashing (4 words of entropy:
    worker id, the two halves of the base seed, 0; a pool of 4), written out in Python so that it runs
    without torch."""
    mult_a, mult_b = 0x931E8875, 0x58F38DED
    hash_a = [0x43B0D7E5]

    def hashmix(v):
        v = (v ^ hash_a[0]) & _M32
        hash_a[0] = (hash_a[0] * mult_a) & _M32
        v = (v * hash_a[0]) & _M32
        return (v ^ (v >> 16)) & _M32

    def mix(x, y):
        r = ((0xCA01F9DD * x) - (0x4973F715 * y)) & _M32
        return (r ^ (r >> 16)) & _M32

    pool = [hashmix(e) for e in (worker_id, base_seed & _M32, base_seed >> 32, 0)]
    for src in range(4):
        for dst in range(4):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    out, hash_b = [], 0x8B51F9DD
    for v in pool:
        v = (v ^ hash_b) & _M32
        hash_b = (hash_b * mult_b) & _M32
        v = (v * hash_b) & _M32
        out.append((v ^ (v >> 16)) & _M32)
    return out


# --- the worker loop ------------------------------------------------------------------------------

def _worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation, collate_fn,
                 drop_last, base_seed, init_fn, worker_id, num_workers, persistent_workers, shared_seed):
    from ... import random as _random
    from .dataloader import _DatasetKind
    global _worker_info
    try:
        register_tensor_reducer()
        seed = base_seed + worker_id
        random.seed(seed)
        _random.manual_seed(seed)
        np.random.seed(_generate_state(base_seed, worker_id))
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)

        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")

        # iteration_end: an IterableDataset ran out; keep answering (nothing) until told to resume or stop
        iteration_end = False
        watchdog = ManagerWatchdog()
        while watchdog.is_alive():
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))
                iteration_end = False
                fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn,
                                                      drop_last)
                continue
            if r is None:
                break
            if done_event.is_set() or iteration_end:
                continue
            idx, index = r
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == _DatasetKind.Iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
            del data, idx, index, r
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
