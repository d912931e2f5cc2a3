"""Key/value stores (mirrors ``torch.distributed.Store``, ``TCPStore``, ``HashStore``, ``PrefixStore``).

``TCPStore`` is MindSpore's store (``mindspore.mint.distributed.TCPStore``: a C++ server in the master
process, the one MindSpore's communication engine rendezvous through), with torch's API and errors on
top. MindSpore's store offers set/get/add/delete_key; what torch adds is composed from them here:
``wait`` and ``check`` are reads through a client of their own timeout (MindSpore's ``get`` waits for
a missing key up to the timeout its client was made with), ``compare_set`` runs under a lock taken with
``add``. ``num_keys`` has no MindSpore counterpart and raises.
``HashStore`` (one process, nothing crosses a process boundary) and ``PrefixStore`` (a key prefix over
another store) have no MindSpore counterpart and are kept here; neither carries any traffic.
"""
import errno
import socket
import threading
import time
from datetime import timedelta

__all__ = ["Store", "TCPStore", "HashStore", "PrefixStore", "DistError", "DistStoreError",
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
