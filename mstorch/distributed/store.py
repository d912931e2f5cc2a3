"""Key/value stores (mirrors ``torch.distributed.Store``, ``TCPStore``, ``HashStore``, ``PrefixStore``).

``TCPStore`` is MindSpore's store (``mindspore.mint.distributed.TCPStore``: a C++ server in the master
process, the one MindSpore's communication engine rendezvous through), with torch's API and errors on
top. MindSpore's store offers set/get/add/delete_key; what torch adds is composed from them here:
``wait`` and ``check`` are reads through a client of their own timeout (MindSpore's ``get`` waits for
a missing key up to the timeout its client was made with), ``compare_set`` runs under a lock taken with
``add``. ``num_keys`` has no MindSpore counterpart and raises.
``FileStore`` (a store over a shared file) has no MindSpore counterpart either and is mstorch's own code,
in torch's file format.
``HashStore`` (one process, nothing crosses a process boundary) and ``PrefixStore`` (a key prefix over
another store) have no MindSpore counterpart and are kept here; neither carries any traffic.
"""
import atexit
import errno
import fcntl
import operator
import os
import re
import socket
import struct
import threading
import time
import weakref
from datetime import timedelta

__all__ = ["Store", "TCPStore", "HashStore", "PrefixStore", "FileStore", "DistError", "DistStoreError",
           "DistNetworkError", "DistBackendError"]


class DistError(RuntimeError):
    """Mirrors ``torch.distributed.DistError``."""


class DistStoreError(DistError):
    """Mirrors ``torch.distributed.DistStoreError`` (a store operation timed out or failed)."""


class DistNetworkError(DistError):
    """Mirrors ``torch.distributed.DistNetworkError``."""


class DistBackendError(DistError):
    """Mirrors ``torch.distributed.DistBackendError`` (a collective failed in the backend)."""


def _seconds(timeout):
    if timeout is None:
        return 300.0
    return timeout.total_seconds() if isinstance(timeout, timedelta) else float(timeout)


def _as_bytes(value):
    if isinstance(value, str):
        return value.encode()
    return bytes(value)       # bytes, bytearray, or torch's list of uint8


def _timeout_error(keys, seconds):
    return DistStoreError(f"wait timeout after {int(seconds * 1000)}ms, keys: " + ", ".join("/" + k for k in keys))


class Store:
    """Mirrors ``torch.distributed.Store``: ``set``/``get``/``add``/``wait``/``check``/``delete_key``/
    ``compare_set``. Subclasses give ``_set``, ``_get(key, seconds)`` (None when the key is still
    missing after ``seconds``), ``_add`` and ``_delete``."""

    def __init__(self, timeout=None):
        self._timeout = _seconds(timeout)

    @property
    def timeout(self):
        return timedelta(seconds=self._timeout)

    def set_timeout(self, timeout):
        self._timeout = _seconds(timeout)

    def set(self, key, value):
        self._set(key, _as_bytes(value))

    def get(self, key):
        value = self._get(key, self._timeout)
        if value is None:
            raise _timeout_error([key], self._timeout)
        return value

    def add(self, key, amount):
        return self._add(key, int(amount))

    def wait(self, keys, timeout=None):
        seconds = self._timeout if timeout is None else _seconds(timeout)
        deadline = time.monotonic() + seconds
        for k in keys:
            if self._get(k, max(deadline - time.monotonic(), 0.0)) is None:
                raise _timeout_error(keys, seconds)

    def check(self, keys):
        return all(self._get(k, 0.0) is not None for k in keys)

    def delete_key(self, key):
        return self._delete(key)

    def compare_set(self, key, expected_value, desired_value):
        expected, desired = _as_bytes(expected_value), _as_bytes(desired_value)
        with self._locked(key):
            current = self._get(key, 0.0)
            if (current is None and not expected) or current == expected:
                self._set(key, desired)
                return desired
            return expected if current is None else current

    def _locked(self, key):
        return _StoreLock(self, f"__mstorch_lock/{key}", self._timeout)

    def num_keys(self):
        raise RuntimeError("torch.distributed.Store.num_keys is not supported by mstorch: MindSpore's TCPStore "
                           "cannot count its keys")


class _StoreLock:
    """A lock shared by every client of a store: the holder is whoever raised the counter from 0 to 1."""

    def __init__(self, store, key, seconds):
        self.store, self.key, self.seconds = store, key, seconds

    def __enter__(self):
        deadline = time.monotonic() + self.seconds
        while self.store._add(self.key, 1) != 1:
            self.store._add(self.key, -1)
            if time.monotonic() > deadline:
                raise _timeout_error([self.key], self.seconds)
            time.sleep(0.001)

    def __exit__(self, *exc):
        self.store._add(self.key, -1)


class HashStore(Store):
    """Mirrors ``torch.distributed.HashStore``: a table in this process (world size 1 uses it)."""

    def __init__(self):
        super().__init__()
        self._data = {}
        self._cond = threading.Condition()

    def _set(self, key, value):
        with self._cond:
            self._data[key] = value
            self._cond.notify_all()

    def _get(self, key, seconds):
        with self._cond:
            if not self._cond.wait_for(lambda: key in self._data, seconds):
                return None
            return self._data[key]

    def _add(self, key, amount):
        with self._cond:
            value = int(self._data.get(key, b"0")) + amount
            self._data[key] = str(value).encode()
            self._cond.notify_all()
            return value

    def _delete(self, key):
        with self._cond:
            return self._data.pop(key, None) is not None

    def num_keys(self):
        with self._cond:
            return len(self._data)


class PrefixStore(Store):
    """Mirrors ``torch.distributed.PrefixStore``: every key of ``store`` prefixed with ``prefix/``."""

    def __init__(self, prefix, store):
        super().__init__(store.timeout)
        self._prefix, self._store = prefix, store

    @property
    def underlying_store(self):
        return self._store

    def _key(self, k):
        return f"{self._prefix}/{k}"

    def _set(self, key, value):
        self._store._set(self._key(key), value)

    def _get(self, key, seconds):
        return self._store._get(self._key(key), seconds)

    def _add(self, key, amount):
        return self._store._add(self._key(key), amount)

    def _delete(self, key):
        return self._store._delete(self._key(key))


def free_port(host="127.0.0.1"):
    """A port nobody listens on now (torch's ``port=0``; MindSpore's store needs a number)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _ip_address(host):
    """MindSpore's store takes IP addresses only; torchrun's MASTER_ADDR is often ``localhost``."""
    try:
        return socket.gethostbyname(host)
    except OSError:
        return host


def own_address():
    """This host's address as the others reach it (``file://`` rendezvous without MASTER_ADDR)."""
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"


def _listen_error(host, port):
    """The errno that made MindSpore's server fail to listen (its own error does not say): a bind of our
    own on the same address, closed at once."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError as e:
            return e.errno or errno.EIO
    return errno.EIO


# The shortest wait a MindSpore store client supports (it connects and reads a missing key in steps of
# ~0.1 s): ``check`` and ``compare_set`` pay it for a missing key
_PROBE_SECONDS = 0.1
_CONNECT_SECONDS = 5.0


class TCPStore(Store):
    """Mirrors ``torch.distributed.TCPStore(host_name, port, world_size, is_master, timeout,
    wait_for_workers)`` on MindSpore's store; ``port=0`` on the master picks a free port."""

    def __init__(self, host_name, port, world_size=None, is_master=False, timeout=timedelta(seconds=300),
                 wait_for_workers=True, multi_tenant=False, master_listen_fd=None, use_libuv=True):
        super().__init__(timeout)
        if not 0 <= int(port) < 2 ** 16:
            raise ValueError(f"port must have value from 0 to 65535 but was {port}.")
        from mindspore.mint.distributed import TCPStore as MsStore
        self._ms_store_class = MsStore
        self.host = host_name
        ip = _ip_address(host_name)
        self.port = free_port(ip) if is_master and int(port) == 0 else int(port)
        self._is_master = is_master
        self._readers = {}      # timeout in ms -> a client whose get waits that long
        try:
            # this client also connects within its timeout, which takes MindSpore ~0.1-1 s: short store
            # timeouts are kept by the readers (``_reader``)
            self._ms = MsStore(ip, self.port, world_size=world_size if world_size else 1, is_master=is_master,
                               timeout=timedelta(seconds=max(self._timeout, _CONNECT_SECONDS)),
                               wait_for_workers=bool(wait_for_workers and world_size))
        except RuntimeError as e:
            if is_master:
                code = _listen_error(ip, self.port)
                raise DistNetworkError(
                    f"The server socket has failed to listen on any local network address. port: {self.port}, "
                    f"useIpv6: false, code: -{code}, name: {errno.errorcode.get(code, code)}, message: "
                    f"{__import__('os').strerror(code).lower()}") from None
            raise DistNetworkError(f"The client socket has timed out after {int(self._timeout * 1000)}ms while trying "
                                   f"to connect to ({host_name}, {self.port}).") from e
        self._readers[int(max(self._timeout, _CONNECT_SECONDS) * 1000)] = self._ms

    @property
    def ms_store(self):
        """The MindSpore store (mstorch.distributed hands it to MindSpore's engine)."""
        return self._ms

    def _reader(self, seconds):
        ms = max(int(seconds * 1000), int(_PROBE_SECONDS * 1000))
        client = self._readers.get(ms)
        for attempt in range(10):     # a short timeout may run out while connecting: try again
            if client is not None:
                break
            try:
                client = self._readers[ms] = self._ms_store_class(_ip_address(self.host), self.port, is_master=False,
                                                                  timeout=timedelta(milliseconds=ms))
            except RuntimeError:
                if attempt == 9:
                    raise
        return client

    def _set(self, key, value):
        self._ms.set(key, value)

    def _get(self, key, seconds):
        client = self._reader(seconds)
        try:
            return client.get(key)
        except RuntimeError:     # MindSpore: "TCP get operation failed." once its wait ran out
            return None

    def _add(self, key, amount):
        return self._ms.add(key, amount)

    def _delete(self, key):
        return self._ms.delete_key(key)


# --- FileStore ------------------------------------------------------------------------------------------
# MindSpore has no store over a file (its only store is the TCP one), so this one is mstorch's own code.
# It keeps torch's file format -- an append-only log of records, each a key then a value, both a native
# uint32 length followed by the bytes; a key "-" + k deletes k -- and torch's locks (flock: shared to
# read, exclusive to append), so torch's FileStore and this one can share a file.
_LEN = struct.Struct("=I")
_REGULAR, _DELETED = "/", "-"
_REFCOUNT, _CLEANUP = "refcount/", "cleanup/"
_POLL_SECONDS = 0.01


def _int64(value):
    return (value + 2 ** 63) % 2 ** 64 - 2 ** 63


def _stoll(data):
    """C++'s ``std::stoll`` (what torch parses a counter with): leading digits, ValueError('stoll') if none."""
    match = re.match(rb"\s*([+-]?\d+)", bytes(data))
    if match is None:
        raise ValueError("stoll")
    return int(match.group(1))


class _LockedFile:
    """The store's file, opened and flock-ed for one operation (torch reopens it for each, so a file
    replaced or removed between operations is seen)."""

    def __init__(self, path, flags, lock, seconds):
        deadline = time.monotonic() + seconds
        while True:
            try:
                self.fd = os.open(path, flags, 0o644)
                break
            except OSError as e:   # torch retries opening until the store's timeout
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Timeout waiting for file {path} to open: {e.strerror}") from None
                time.sleep(_POLL_SECONDS)
        fcntl.flock(self.fd, lock)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        os.close(self.fd)      # closing the descriptor drops its flock

    def size(self):
        return os.fstat(self.fd).st_size

    def read_records(self, start, end):
        data = os.pread(self.fd, end - start, start)
        pos, out = 0, []
        while pos < len(data):
            parts = []
            for _ in range(2):
                (n,) = _LEN.unpack_from(data, pos)
                parts.append(data[pos + _LEN.size:pos + _LEN.size + n])
                pos += _LEN.size + n
            out.append((parts[0].decode("utf-8", "surrogateescape"), parts[1]))
        return out

    def append(self, key, value):
        k = key.encode("utf-8", "surrogateescape")
        os.lseek(self.fd, 0, os.SEEK_END)
        os.write(self.fd, _LEN.pack(len(k)) + k + _LEN.pack(len(value)) + bytes(value))


class FileStore(Store):
    """Mirrors ``torch.distributed.FileStore(file_name, world_size=-1)``: a store over a file that every
    process sharing it (on one host or a shared file system) opens. MindSpore has no file-backed store,
    so this one is mstorch's own: torch's file format and flock locking (it can share a file with
    torch's FileStore), torch's semantics and errors. Each store counts itself in on construction; when
    the last one is destroyed and ``world_size`` (if not -1) stores have finished, the file is removed."""

    def __init__(self, file_name, world_size=-1):
        super().__init__()
        self._path, self._world_size = os.fspath(file_name), int(world_size)
        self._pos, self._cache = 0, {}
        self._mutex = threading.Lock()
        self._add_raw(_REFCOUNT, 1)
        self._registered = True
        _live_file_stores.add(self)

    @property
    def path(self):
        return self._path

    def _open(self, write):
        flags = os.O_RDWR | os.O_CREAT if write else os.O_RDONLY
        return _LockedFile(self._path, flags, fcntl.LOCK_EX if write else fcntl.LOCK_SH, self._timeout)

    def _refresh(self, f):
        size = f.size()
        if size != self._pos:
            for key, value in f.read_records(self._pos, size):
                if key.startswith(_DELETED):
                    self._cache.pop(key[len(_DELETED):], None)
                else:
                    self._cache[key] = value
            self._pos = size

    def _add_raw(self, key, amount):
        with self._mutex, self._open(True) as f:
            self._refresh(f)
            value = self._cache.get(key, b"")
            total = _int64(amount + (_stoll(value) if value else 0))
            f.append(key, str(total).encode())
            return total

    def set(self, key, value):
        with self._mutex, self._open(True) as f:
            f.append(_REGULAR + key, _as_bytes(value))

    def get(self, key):
        key = _REGULAR + key
        start = time.monotonic()
        while True:
            with self._mutex, self._open(False) as f:
                if key in self._cache or f.size() != self._pos:
                    self._refresh(f)     # a cached value may be stale: read what was appended first
                    if key in self._cache:
                        return self._cache[key]
                    continue
            if time.monotonic() - start > self._timeout:
                raise RuntimeError(f"Timeout waiting for key: {key[len(_REGULAR):]} after "
                                   f"{int(self._timeout * 1000)} ms")
            time.sleep(_POLL_SECONDS)

    def add(self, key, amount):
        return self._add_raw(_REGULAR + key, operator.index(amount))

    def check(self, keys):
        with self._mutex, self._open(False) as f:
            self._refresh(f)
            return all(_REGULAR + k in self._cache for k in keys)

    def wait(self, keys, timeout=None):
        seconds = self._timeout if timeout is None else _seconds(timeout)
        start = time.monotonic()
        while not self.check(keys):
            if time.monotonic() - start > seconds:
                raise RuntimeError("Wait timeout")
            time.sleep(_POLL_SECONDS)

    def delete_key(self, key):
        # torch appends the deletion whether or not the key exists, and answers True
        with self._mutex, self._open(True) as f:
            f.append(_DELETED + _REGULAR + key, b"")
        return True

    def compare_set(self, key, expected_value, desired_value):
        expected, desired = _as_bytes(expected_value), _as_bytes(desired_value)
        key = _REGULAR + key
        with self._mutex, self._open(True) as f:
            self._refresh(f)
            current = self._cache.get(key)
            if (current is None and not expected) or (current is not None and current == expected):
                f.append(key, desired)
                return desired
            return expected if current is None else current

    def num_keys(self):
        # torch counts every key in the file, its own reference counters included
        with self._mutex, self._open(False) as f:
            self._refresh(f)
            return len(self._cache)

    def append(self, key, value):
        key = _REGULAR + key
        with self._mutex, self._open(True) as f:
            self._refresh(f)
            f.append(key, self._cache.get(key, b"") + _as_bytes(value))

    def multi_get(self, keys):
        return [self.get(k) for k in keys]

    def multi_set(self, keys, values):
        for k, v in zip(keys, values):
            self.set(k, v)

    def has_extended_api(self):
        return False

    def queue_push(self, key, value):
        raise NotImplementedError("queue support is not implemented.")

    queue_pop = queue_len = queue_push

    def __del__(self):
        self._release()

    def _release(self):
        if not getattr(self, "_registered", False):
            return
        self._registered = False
        if not os.path.exists(self._path):
            return
        try:
            finished = self._add_raw(_CLEANUP, 1)
            references = self._add_raw(_REFCOUNT, -1)
            # the last store out removes the file, once world_size stores have finished (-1: never)
            if references == 0 and 0 <= self._world_size <= finished:
                os.remove(self._path)
        except (OSError, RuntimeError):
            pass       # best effort, as torch's destructor


# stores still alive at exit are released while the interpreter can still run them (torch's destructors
# run then; a __del__ during the interpreter's teardown could not import or lock any more)
_live_file_stores = weakref.WeakSet()


@atexit.register
def _release_file_stores():
    for st in list(_live_file_stores):
        st._release()
