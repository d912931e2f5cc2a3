"""Mirrors ``torch.multiprocessing.spawn``: ``fn(i, *args)`` in ``nprocs`` processes, joined, with the
first failure re-raised in the parent (a child's exception with its traceback text)."""
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import warnings

ENV_VAR_PARALLEL_START = "TORCH_MP_PARALLEL_START"

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException", "spawn",
           "SpawnContext", "start_processes"]


class ProcessException(Exception):
    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A process failed with an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A process was killed by a signal or exited with a non-zero code."""

    __slots__ = ["exit_code"]

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _wrap(fn, i, args, error_file):
    if sys.platform.startswith("linux"):    # die with the parent (torch: prctl PR_SET_PDEATHSIG SIGINT)
        try:
            import ctypes
            ctypes.CDLL(None).prctl(1, signal.SIGINT)
        except (OSError, AttributeError):
            pass
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        import traceback
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """Mirrors ``torch.multiprocessing.ProcessContext``: ``join()``, ``pids()``, ``processes``."""

    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def _join_procs_with_timeout(self, timeout):
        end = time.monotonic() + timeout
        for p in self.processes:
            p.join(max(0, end - time.monotonic()))

    def join(self, timeout=None, grace_period=None):
        """True once every process exited cleanly; on the first failure, stops the others and raises."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            p = self.processes[index]
            p.join()
            if p.exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return not self.sentinels
        if grace_period is not None:
            self._join_procs_with_timeout(grace_period)
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        self._join_procs_with_timeout(30 if grace_period is None else grace_period)
        for p in self.processes:
            if p.is_alive():
                p.kill()
            p.join()
        failed = self.processes[error_index]
        if not os.access(self.error_files[error_index], os.R_OK):
            code = failed.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                raise ProcessExitedException(f"process {error_index:d} terminated with signal {name}",
                                             error_index=error_index, error_pid=failed.pid, exit_code=code,
                                             signal_name=name)
            raise ProcessExitedException(f"process {error_index:d} terminated with exit code {code:d}",
                                         error_index=error_index, error_pid=failed.pid, exit_code=code)
        with open(self.error_files[error_index], "rb") as fh:
            original_trace = pickle.load(fh)
        msg = f"\n\n-- Process {error_index:d} terminated with the following error:\n" + original_trace
        raise ProcessRaisedException(msg, error_index, failed.pid)


class SpawnContext(ProcessContext):
    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(processes, error_files)


class _AliasInChildren:
    """Under ``python -m mstorch run`` (``import torch`` is mstorch), a spawned child must alias torch
    too before it imports the parent's main module again: its PYTHONPATH gets ``_alias_site``, whose
    sitecustomize installs the alias. The parent's environment is restored once the children started."""

    def __init__(self, start_method):
        from .._compat import alias
        self.active = start_method != "fork" and alias._FINDER in sys.meta_path
        self.saved = {}

    def __enter__(self):
        if self.active:
            here = os.path.dirname(os.path.abspath(__file__))
            extra = [os.path.join(here, "_alias_site"), os.path.dirname(os.path.dirname(here))]
            self.saved = {k: os.environ.get(k) for k in ("PYTHONPATH", "MSTORCH_SPAWN_ALIAS")}
            os.environ["PYTHONPATH"] = os.pathsep.join(extra + [p for p in [self.saved["PYTHONPATH"]] if p])
            os.environ["MSTORCH_SPAWN_ALIAS"] = "1"
        return self

    def __exit__(self, *exc):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Mirrors ``torch.multiprocessing.start_processes``."""
    from . import get_context
    mp = get_context(start_method)
    processes, error_files = [], []
    with _AliasInChildren(start_method):
        for i in range(nprocs):
            tf = tempfile.NamedTemporaryFile(prefix="pytorch-errorfile-", suffix=".pickle", delete=False)
            tf.close()
            os.unlink(tf.name)
            p = mp.Process(target=_wrap, args=(fn, i, args, tf.name), daemon=daemon)
            p.start()
            processes.append(p)
            error_files.append(tf.name)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Mirrors ``torch.multiprocessing.spawn``: always the ``spawn`` start method."""
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\nTo use a different "
                      "start_method use:\n\t\t torch.multiprocessing.start_processes(...)", FutureWarning,
                      stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
