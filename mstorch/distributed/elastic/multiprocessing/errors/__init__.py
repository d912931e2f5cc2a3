"""torch.distributed.elastic.multiprocessing.errors: how a launcher reports a failed worker.

``ProcessFailure`` reads the JSON error file a worker's ``@record`` wrote; ``ChildFailedError`` carries the
failures by global rank and formats them as torch's launcher prints them; ``record`` wraps an entry point so
an uncaught exception is written to ``$TORCHELASTIC_ERROR_FILE`` (what torchrun-style launchers read)."""
import faulthandler
import json
import logging
import os
import signal
import socket
import time
import traceback
import warnings
from dataclasses import dataclass, field
from datetime import datetime
from functools import wraps
from string import Template
from typing import Any

__all__ = ["ProcessFailure", "ChildFailedError", "record", "ErrorHandler", "get_error_handler"]

logger = logging.getLogger(__name__)
_EMPTY_ERROR_DATA = {"message": "<NONE>"}
_NOT_AVAILABLE = "<N/A>"
GlobalRank = int

_FAILURE_FORMAT = """[${idx}]:
  time      : ${time}
  host      : ${hostname}
  rank      : ${rank} (local_rank: ${local_rank})
  exitcode  : ${exitcode} (pid: ${pid}) ${signal_name}
  error_file: ${error_file}
  traceback : ${message}"""

_MSG_FORMAT = """
${boarder}
${title}
${section}
Failures:
${other_failures}
${section}
Root Cause (first observed failure):
${root_failure}
${boarder}"""


class ErrorHandler:
    """torch's ErrorHandler: writes an exception as JSON to ``$TORCHELASTIC_ERROR_FILE``."""

    def _get_error_file_path(self):
        return os.environ.get("TORCHELASTIC_ERROR_FILE", None)

    def initialize(self):
        try:
            faulthandler.enable(all_threads=True)
        except Exception as e:  # noqa: BLE001 - torch warns and goes on
            warnings.warn(f"Unable to enable fault handler. {type(e).__name__}: {e}", stacklevel=2)

    def record_exception(self, e):
        path = self._get_error_file_path()
        if path:
            data = {"message": {"message": f"{type(e).__name__}: {e}",
                                "extraInfo": {"py_callstack": traceback.format_exc(),
                                              "timestamp": str(int(time.time()))}}}
            with open(path, "w") as fp:
                json.dump(data, fp)

    def dump_error_file(self, rootcause_error_file, error_code=0):
        with open(rootcause_error_file) as fp:
            error = json.load(fp)
        if error_code and isinstance(error.get("message"), dict):
            error["message"]["errorCode"] = error_code
        path = self._get_error_file_path()
        if path:
            if os.path.isfile(path):
                os.remove(path)
            with open(path, "w") as fp:
                fp.write(json.dumps(error))
        else:
            logger.error("no error file defined for parent, to copy child error file (%s)", rootcause_error_file)


def get_error_handler():
    return ErrorHandler()


@dataclass
class ProcessFailure:
    """A failed worker: its local rank, pid, exit code and error file (read when it exists)."""
    local_rank: int
    pid: int
    exitcode: int
    error_file: str
    error_file_data: dict = field(init=False)
    message: Any = field(init=False)
    timestamp: int = field(init=False)

    def __post_init__(self):
        self.error_file_data = _EMPTY_ERROR_DATA
        if os.path.isfile(self.error_file):
            with open(self.error_file) as fp:
                self.error_file_data = json.load(fp)
            message = self.error_file_data["message"]
            self.message = message
            self.timestamp = int(self.error_file_data.get("timestamp", 0) if isinstance(message, str)
                                 else message["extraInfo"]["timestamp"])
        else:
            self.error_file, self.error_file_data, self.message = _NOT_AVAILABLE, _EMPTY_ERROR_DATA, ""
            self.timestamp = int(time.time())
        if not self.message:
            if self.exitcode < 0:
                self.message = f"Signal {-self.exitcode} ({self.signal_name()}) received by PID {self.pid}"
            else:
                self.error_file_data["errorTraits"] = {"category": "system_terminated_error",
                                                       "retryability": "False"}
                self.message = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"

    def signal_name(self):
        if self.exitcode < 0:
            try:
                return signal.Signals(-self.exitcode).name
            except Exception:  # noqa: BLE001 - an unknown signal number
                return _NOT_AVAILABLE
        return _NOT_AVAILABLE

    def timestamp_isoformat(self):
        return datetime.fromtimestamp(self.timestamp).isoformat(sep="_")


class ChildFailedError(Exception):
    """torch's ChildFailedError(name, failures): ``failures`` maps global rank to ProcessFailure; the
    message is ``format_msg()``, the first failure (by timestamp) shown as the root cause."""

    def __init__(self, name, failures):
        self.name = name
        self.failures = failures
        if not self.failures:
            raise AssertionError
        super().__init__(self.format_msg())

    def get_first_failure(self):
        rank = min(self.failures.keys(), key=lambda r: self.failures[r].timestamp)
        return rank, self.failures[rank]

    def format_msg(self, boarder_delim="=", section_delim="-"):
        title = f"{self.name} FAILED"
        root_rank, _ = self.get_first_failure()
        root, others, width = "", [], len(title)
        for idx, (rank, failure) in enumerate(self.failures.items()):
            text, w = self._format_failure(idx, rank, failure)
            width = max(width, w)
            if rank == root_rank:
                root = text
            else:
                others.append(text)
        width = min(width, 60)
        return Template(_MSG_FORMAT).substitute(boarder=boarder_delim * width, title=title,
                                                section=section_delim * width, root_failure=root,
                                                other_failures="\n".join(others or ["  <NO_OTHER_FAILURES>"]))

    def _format_failure(self, idx, rank, failure):
        msg = failure.message
        if isinstance(msg, dict):   # {"message": ..., "extraInfo": {"py_callstack": ...}}: the traceback
            msg = msg.get("extraInfo", {}).get("py_callstack", msg.get("message", "<N/A>")).replace("\n", "\n  ")
        name = failure.signal_name()
        text = Template(_FAILURE_FORMAT).substitute(
            idx=idx, time=failure.timestamp_isoformat(), hostname=socket.getfqdn(), rank=rank,
            local_rank=failure.local_rank, exitcode=failure.exitcode, pid=failure.pid,
            signal_name=f" ({name})" if name != _NOT_AVAILABLE else "", error_file=failure.error_file, message=msg)
        return text, max(len(line) for line in text.split("\n"))


def record(fn, error_handler=None):
    """torch's @record: an uncaught exception of the entry point is written to the error file, then re-raised;
    ``SystemExit(0)`` returns None."""
    handler = error_handler or get_error_handler()

    @wraps(fn)
    def wrapper(*args, **kwargs):
        handler.initialize()
        try:
            return fn(*args, **kwargs)
        except SystemExit as se:
            if se.code == 0:
                return None
            raise
        except ChildFailedError as e:
            _, failure = e.get_first_failure()
            if failure.error_file != _NOT_AVAILABLE:
                handler.dump_error_file(failure.error_file, failure.exitcode)
            raise
        except Exception as e:
            handler.record_exception(e)
            raise
    return wrapper
