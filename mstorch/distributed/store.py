"""Key/value stores (mirrors ``torch.distributed.Store``, ``TCPStore``, ``HashStore``, ``PrefixStore``).

``TCPStore`` is pure Python: the master starts a small server process (this file run as a script,
standard library only) that serves ``multiprocessing.connection`` clients; every rank (the master
too) talks to it through one client connection. Values are bytes.
The collectives of ``mstorch.distributed`` travel through it (see ``distributed_c10d``): a rank posts
its contribution under a key that the server deletes once the expected number of readers took it.
Like torch's TCPStore it has no authentication: bind it to a trusted interface (MASTER_ADDR).
"""
import errno
import os
import pickle
import socket
import subprocess
import sys
import threading
import time
from datetime import timedelta
from multiprocessing.connection import Client, Listener

__all__ = ["Store", "TCPStore", "HashStore", "PrefixStore", "DistError", "DistStoreError",
           "DistNetworkError"]


class DistError(RuntimeError):
    """Mirrors ``torch.distributed.DistError``."""


class DistStoreError(DistError):
    """Mirrors ``torch.distributed.DistStoreError`` (a store operation timed out or failed)."""


class DistNetworkError(DistError):
    """Mirrors ``torch.distributed.DistNetworkError``."""


def _seconds(timeout):
    if timeout is None:
        return 300.0
    return timeout.total_seconds() if isinstance(timeout, timedelta) else float(timeout)


def _as_bytes(value):
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (list, tuple)):     # torch accepts a list of uint8
        return bytes(value)
    return bytes(value)


class _Table:
    """The key/value table with blocking reads; shared by HashStore and the TCP server."""

    def __init__(self):
        self.data = {}
        self.readers = {}      # key -> reads left before the key is deleted (collective traffic)
        self.clients = 0       # open connections (TCP server only)
        self.cond = threading.Condition()

    def set(self, key, value, readers=None):
        with self.cond:
            self.data[key] = value
            if readers is not None:
                self.readers[key] = readers
            self.cond.notify_all()

    def get(self, key, timeout, take=False):
        with self.cond:
            if not self.cond.wait_for(lambda: key in self.data, timeout):
                return None
            value = self.data[key]
            if take and key in self.readers:
                self.readers[key] -= 1
                if self.readers[key] <= 0:
                    del self.readers[key], self.data[key]
                    self.cond.notify_all()
            return value

    def add(self, key, amount):
        with self.cond:
            value = int(self.data.get(key, b"0")) + amount
            self.data[key] = str(value).encode()
            self.cond.notify_all()
            return value

    def wait(self, keys, timeout):
        with self.cond:
            return self.cond.wait_for(lambda: all(k in self.data for k in keys), timeout)

    def delete(self, key):
        with self.cond:
            self.readers.pop(key, None)
            return self.data.pop(key, None) is not None

    def compare_set(self, key, expected, desired):
        with self.cond:
            current = self.data.get(key)
            if (current is None and not expected) or current == expected:
                self.data[key] = desired
                self.cond.notify_all()
                return desired
            return expected if current is None else current

    def drain(self, timeout):
        """Wait until every collective key has been taken by all its readers, or no peer is left to
        take them."""
        with self.cond:
            return self.cond.wait_for(lambda: not self.readers or not self.clients, timeout)

    def count_client(self, delta):
        with self.cond:
            self.clients += delta
            self.cond.notify_all()

    def call(self, op, args, timeout):
        if op in ("get", "take"):
            return self.get(args[0], timeout, take=op == "take")
        if op == "set":
            return self.set(*args)
        if op == "add":
            return self.add(*args)
        if op == "wait":
            return self.wait(args[0], timeout)
        if op == "check":
            with self.cond:
                return all(k in self.data for k in args[0])
        if op == "delete":
            return self.delete(args[0])
        if op == "num_keys":
            with self.cond:
                return len(self.data)
        if op == "compare_set":
            return self.compare_set(*args)
        raise ValueError(f"unknown store operation {op!r}")


class Store:
    """Mirrors ``torch.distributed.Store``: ``set``/``get``/``add``/``wait``/``check``/``delete_key``."""

    def __init__(self, timeout=None):
        self._timeout = _seconds(timeout)

    @property
    def timeout(self):
        return timedelta(seconds=self._timeout)

    def set_timeout(self, timeout):
        self._timeout = _seconds(timeout)

    def _call(self, op, *args, timeout=None):
        raise NotImplementedError

    def set(self, key, value):
        self._call("set", key, _as_bytes(value))

    def get(self, key):
        value = self._call("get", key)
        if value is None:
            raise DistStoreError(f"wait timeout after {int(self._timeout * 1000)}ms, keys: /{key}")
        return value

    def add(self, key, amount):
        return self._call("add", key, int(amount))

    def wait(self, keys, timeout=None):
        seconds = self._timeout if timeout is None else _seconds(timeout)
        if not self._call("wait", list(keys), timeout=seconds):
            raise DistStoreError(f"wait timeout after {int(seconds * 1000)}ms, keys: "
                                 + ", ".join("/" + k for k in keys))

    def check(self, keys):
        return self._call("check", list(keys))

    def delete_key(self, key):
        return self._call("delete", key)

    def num_keys(self):
        return self._call("num_keys")

    def compare_set(self, key, expected_value, desired_value):
        return self._call("compare_set", key, _as_bytes(expected_value), _as_bytes(desired_value))

    # collective traffic: a value read by ``readers`` ranks, then deleted
    def _post(self, key, value, readers):
        self._call("set", key, value, readers)

    def _take(self, key):
        value = self._call("take", key)
        if value is None:
            raise DistStoreError(f"wait timeout after {int(self._timeout * 1000)}ms, keys: /{key}")
        return value


class HashStore(Store):
    """Mirrors ``torch.distributed.HashStore``: an in-process store (world size 1 uses it)."""

    def __init__(self):
        super().__init__()
        self._table = _Table()

    def _call(self, op, *args, timeout=None):
        return self._table.call(op, args, self._timeout if timeout is None else timeout)


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

    def _call(self, op, *args, timeout=None):
        if op in ("wait", "check"):
            args = ([self._key(k) for k in args[0]],) + args[1:]
        elif op != "num_keys":
            args = (self._key(args[0]),) + args[1:]
        return self._store._call(op, *args, timeout=timeout)


def _no_delay(conn):
    """Small requests go out at once: a post with no reply followed by a read would otherwise wait
    for Nagle's algorithm against the peer's delayed ACK (~40 ms per collective)."""
    with socket.socket(fileno=socket.dup(conn.fileno())) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn


class _Server:
    """The master's table, served to every client connection by a thread of its own. It runs in a
    small process of its own (``_serve_forever``): in the training process it would wait for the GIL
    while the main thread runs kernels."""

    def __init__(self, host, port):
        self.table = _Table()
        self.listener = Listener((host, port), family="AF_INET", backlog=128)
        self.port = self.listener.address[1]
        self.stop = threading.Event()
        threading.Thread(target=self._accept, name="mstorch-store", daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(_no_delay(conn),), daemon=True).start()

    def _serve(self, conn):
        self.table.count_client(1)
        try:
            while True:
                op, args, timeout, reply = pickle.loads(conn.recv_bytes())
                if op == "shutdown":
                    self.stop.set()
                    continue
                try:
                    result = (True, self.table.call(op, args, timeout))
                except Exception as e:  # noqa: BLE001  (sent back to the client)
                    result = (False, e)
                if reply:
                    conn.send_bytes(pickle.dumps(result))
        except (EOFError, OSError):
            pass
        finally:
            self.table.count_client(-1)
            conn.close()


def _serve_forever(host, port, parent, drain_seconds):
    """The store process: serves until the master asks it to stop or its parent is gone, then until
    the peers took the last collective's values (or disconnected), at most ``drain_seconds``."""
    try:
        server = _Server(host, port)
    except OSError as e:
        print(f"ERR {e.errno} {e.strerror}", flush=True)
        return
    print(f"OK {server.port}", flush=True)
    while not server.stop.wait(0.2):
        try:
            os.kill(parent, 0)
        except OSError:
            break
    server.table.drain(drain_seconds)


class TCPStore(Store):
    """Mirrors ``torch.distributed.TCPStore(host_name, port, world_size, is_master, timeout,
    wait_for_workers)``; the master serves the table from a thread of this process."""

    def __init__(self, host_name, port, world_size=None, is_master=False, timeout=timedelta(seconds=300),
                 wait_for_workers=True, multi_tenant=False, master_listen_fd=None, use_libuv=True):
        super().__init__(timeout)
        if not 0 <= int(port) < 2 ** 16:
            raise ValueError(f"port must have value from 0 to 65535 but was {port}.")
        self.host, self._server = host_name, None
        if is_master:
            self._server = subprocess.Popen(
                [sys.executable, "-I", os.path.abspath(__file__), host_name, str(int(port)), str(os.getpid()),
                 str(min(self._timeout, 60.0))], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
            status = self._server.stdout.readline().decode().split()
            self._server.stdout.close()
            if not status or status[0] != "OK":
                self._server.wait()
                code = int(status[1]) if status else errno.EIO
                raise DistNetworkError(f"The server socket has failed to listen on any local network address. "
                                       f"port: {port}, useIpv6: false, code: -{code}, name: "
                                       f"{errno.errorcode.get(code, code)}, message: {os.strerror(code).lower()}")
        self.port = int(status[1]) if is_master else int(port)
        self._lock = threading.Lock()
        self._conn = self._connect()
        if world_size is not None and wait_for_workers:
            self.add("__mstorch_joined", 1)
            if is_master:
                deadline = time.monotonic() + self._timeout
                while int(self._call("get", "__mstorch_joined", timeout=0) or b"0") < world_size:
                    if time.monotonic() > deadline:
                        raise DistStoreError(f"Timed out after {int(self._timeout)} seconds waiting for "
                                             f"clients. {int(self.get('__mstorch_joined'))}/{world_size} "
                                             "clients joined.")
                    time.sleep(0.005)

    def _connect(self):
        deadline = time.monotonic() + self._timeout
        while True:
            try:
                return _no_delay(Client((self.host, self.port), family="AF_INET"))
            except OSError as e:
                if time.monotonic() > deadline:
                    raise DistNetworkError(f"The client socket has timed out after {int(self._timeout)}s while "
                                           f"trying to connect to ({self.host}, {self.port}): {e}") from None
                time.sleep(0.01)

    def _call(self, op, *args, timeout=None):
        reply = not (op == "set" and len(args) == 3)       # collective posts: no round trip
        message = pickle.dumps((op, args, self._timeout if timeout is None else timeout, reply))
        with self._lock:
            self._conn.send_bytes(message)
            if not reply:
                return None
            ok, value = pickle.loads(self._conn.recv_bytes())
        if not ok:
            raise value
        return value

    def _close(self):
        """Close this client; the master's store process then serves until the peers took the last
        collective's values (or disconnected)."""
        with self._lock:
            try:
                if self._server is not None:
                    self._conn.send_bytes(pickle.dumps(("shutdown", (), None, False)))
                self._conn.close()
            except OSError:
                pass
        if self._server is not None:
            threading.Thread(target=self._server.wait, daemon=True).start()    # reap it when it ends
            self._server = None


if __name__ == "__main__":
    _serve_forever(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))
