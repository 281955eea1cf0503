"""Key-value stores the processes of a job meet through (torch.distributed's
Store, TCPStore, FileStore, HashStore, PrefixStore).

Values are bytes (a str is stored UTF-8 encoded). `get` and `wait` block until
the key exists or the store's timeout passes (DistStoreError). `add` keeps a
decimal integer; `compare_set` swaps a value only if it still is `expected`.

TCPStore: the master process runs a small server (threads over sockets, inside
that process, as PyTorch's does); every process, the master included, talks to
it as a client. FileStore keeps an append-only log in one file, locked with
fcntl, so processes sharing a filesystem meet without a network. HashStore is a
dict for threads of one process; PrefixStore puts every key under a prefix.
"""
import fcntl
import os
import pickle
import socket
import struct
import threading
import time
from datetime import timedelta

__all__ = ["Store", "TCPStore", "FileStore", "HashStore", "PrefixStore", "DistError", "DistStoreError",
           "DistNetworkError", "DistBackendError", "QueueEmptyError"]

_DEFAULT_TIMEOUT = timedelta(seconds=300)


class DistError(RuntimeError):
    """An error in the distributed package."""


class DistBackendError(DistError):
    """A collective or the backend under it failed (for example, timed out)."""


class DistStoreError(DistError):
    """A store operation failed or timed out."""


class DistNetworkError(DistError):
    """A connection to another process failed."""


class QueueEmptyError(DistError):
    """queue_pop(block=False) found the queue empty."""


def _to_bytes(value):
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (list, tuple)):  # PyTorch accepts a list of byte values
        return bytes(value)
    raise TypeError(f"Store value must be str or bytes, got {type(value).__name__}")


def _seconds(timeout):
    return timeout.total_seconds() if isinstance(timeout, timedelta) else float(timeout)


class Store:
    """Base class of the stores; a Python subclass implements set/get/add/... itself."""

    def __init__(self, timeout=_DEFAULT_TIMEOUT):
        self._timeout = timeout if isinstance(timeout, timedelta) else timedelta(seconds=float(timeout))

    @property
    def timeout(self):
        return self._timeout

    def set_timeout(self, timeout):
        self._timeout = timeout if isinstance(timeout, timedelta) else timedelta(seconds=float(timeout))

    def _op(self, name, *args):
        raise NotImplementedError(f"{type(self).__name__} does not implement {name}")

    def set(self, key, value):
        self._op("set", key, _to_bytes(value))

    def get(self, key):
        return self._op("get", key, _seconds(self._timeout))

    def add(self, key, amount):
        return self._op("add", key, int(amount))

    def compare_set(self, key, expected_value, desired_value):
        return self._op("compare_set", key, _to_bytes(expected_value), _to_bytes(desired_value))

    def delete_key(self, key):
        return self._op("delete", key)

    def num_keys(self):
        return self._op("num_keys")

    def check(self, keys):
        return self._op("check", list(keys))

    def wait(self, keys, timeout=None):
        t = _seconds(self._timeout if timeout is None else timeout)
        self._op("wait", list(keys), t)

    def append(self, key, value):
        self._op("append", key, _to_bytes(value))

    def multi_get(self, keys):
        return [self.get(k) for k in keys]

    def multi_set(self, keys, values):
        for k, v in zip(keys, values):
            self.set(k, v)

    def queue_push(self, key, value):
        self._op("queue_push", key, _to_bytes(value))

    def queue_pop(self, key, block=True):
        return self._op("queue_pop", key, bool(block), _seconds(self._timeout))

    def queue_len(self, key):
        return self._op("queue_len", key)

    def has_extended_api(self):
        return True


class _Table:
    """The state of a store (shared by HashStore and the TCPStore server): a dict
    and one condition variable every blocking call waits on."""

    def __init__(self):
        self.data = {}
        self.queues = {}
        self.cond = threading.Condition()

    def apply(self, name, *args):
        d, cond = self.data, self.cond
        with cond:
            if name == "set":
                d[args[0]] = args[1]
                cond.notify_all()
                return None
            if name == "get":
                key, timeout = args
                if not cond.wait_for(lambda: key in d, timeout):
                    raise DistStoreError(f"wait timeout after {int(timeout * 1000)}ms, keys: {key}")
                return d[key]
            if name == "wait":
                keys, timeout = args
                if not cond.wait_for(lambda: all(k in d for k in keys), timeout):
                    raise DistStoreError(f"wait timeout after {int(timeout * 1000)}ms, keys: {', '.join(keys)}")
                return None
            if name == "add":
                key, amount = args
                value = int(d.get(key, b"0")) + amount
                d[key] = str(value).encode()
                cond.notify_all()
                return value
            if name == "compare_set":
                key, expected, desired = args
                if key not in d:
                    if expected == b"":
                        d[key] = desired
                        cond.notify_all()
                        return desired
                    return expected
                if d[key] == expected:
                    d[key] = desired
                    cond.notify_all()
                return d[key]
            if name == "delete":
                return d.pop(args[0], None) is not None
            if name == "num_keys":
                return len(d)
            if name == "check":
                return all(k in d for k in args[0])
            if name == "append":
                d[args[0]] = d.get(args[0], b"") + args[1]
                cond.notify_all()
                return None
            if name == "queue_push":
                self.queues.setdefault(args[0], []).append(args[1])
                cond.notify_all()
                return None
            if name == "queue_pop":
                key, block, timeout = args
                if not block and not self.queues.get(key):
                    raise QueueEmptyError(f"queue_pop: queue '{key}' is empty")
                if not cond.wait_for(lambda: self.queues.get(key), timeout):
                    raise DistStoreError(f"wait timeout after {int(timeout * 1000)}ms, keys: {key}")
                return self.queues[key].pop(0)
            if name == "queue_len":
                return len(self.queues.get(args[0], ()))
        raise ValueError(f"unknown store operation {name}")


class HashStore(Store):
    """A thread-safe in-memory store for the threads of one process."""

    def __init__(self):
        super().__init__()
        self._table = _Table()

    def _op(self, name, *args):
        return self._table.apply(name, *args)


class PrefixStore(Store):
    """Every key of `store` under `prefix + '/'`."""

    def __init__(self, prefix, store):
        super().__init__(store.timeout)
        self._prefix = prefix
        self.underlying_store = store

    def _k(self, key):
        return f"{self._prefix}/{key}"

    def set(self, key, value):
        self.underlying_store.set(self._k(key), value)

    def get(self, key):
        return self.underlying_store.get(self._k(key))

    def add(self, key, amount):
        return self.underlying_store.add(self._k(key), amount)

    def compare_set(self, key, expected_value, desired_value):
        return self.underlying_store.compare_set(self._k(key), expected_value, desired_value)

    def delete_key(self, key):
        return self.underlying_store.delete_key(self._k(key))

    def num_keys(self):
        return self.underlying_store.num_keys()

    def check(self, keys):
        return self.underlying_store.check([self._k(k) for k in keys])

    def wait(self, keys, timeout=None):
        self.underlying_store.wait([self._k(k) for k in keys], timeout)

    def append(self, key, value):
        self.underlying_store.append(self._k(key), value)

    def queue_push(self, key, value):
        self.underlying_store.queue_push(self._k(key), value)

    def queue_pop(self, key, block=True):
        return self.underlying_store.queue_pop(self._k(key), block)

    def queue_len(self, key):
        return self.underlying_store.queue_len(self._k(key))

    @property
    def timeout(self):
        return self.underlying_store.timeout

    def set_timeout(self, timeout):
        self.underlying_store.set_timeout(timeout)


# ---- TCPStore: length-prefixed pickled (op, args) requests, (ok, result) replies

def _send_msg(sock, obj):
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    sock.sendall(struct.pack("!Q", len(data)) + data)


def _recv_exact(sock, n):
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(min(n - got, 1 << 20))
        if not chunk:
            raise ConnectionError("connection closed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _recv_msg(sock):
    (n,) = struct.unpack("!Q", _recv_exact(sock, 8))
    return pickle.loads(_recv_exact(sock, n))


class _TCPStoreServer:
    """The master's server: one daemon thread accepting, one per connection."""

    def __init__(self, host, port):
        self.table = _Table()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            # every interface, so 'localhost' and the machine's external name both reach it
            self.sock.bind(("0.0.0.0", port))
        except OSError as e:
            self.sock.close()
            raise DistNetworkError(f"The server socket has failed to listen on any local network address. "
                                   f"port: {port}, useIpv6: false, code: {e.errno}, name: {e.strerror}") from e
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True, name="TCPStore-server").start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        with conn:
            while True:
                try:
                    name, args = _recv_msg(conn)
                except (ConnectionError, OSError, EOFError):
                    return
                try:
                    reply = (True, self.table.apply(name, *args))
                except Exception as e:  # sent back and raised in the client
                    reply = (False, e)
                try:
                    _send_msg(conn, reply)
                except OSError:
                    return


class TCPStore(Store):
    """TCPStore(host_name, port, world_size=None, is_master=False, timeout=timedelta(seconds=300),
    wait_for_workers=True, multi_tenant=False, master_listen_fd=None, use_libuv=True).

    The master (is_master=True) listens on `port` (0 picks a free one; see .port);
    every instance connects to host_name:port, retrying until `timeout`. With
    world_size and wait_for_workers, the master's constructor returns once
    world_size instances have connected."""

    _servers = {}  # (port) -> server, for multi_tenant

    def __init__(self, host_name, port, world_size=None, is_master=False, timeout=_DEFAULT_TIMEOUT,
                 wait_for_workers=True, multi_tenant=False, master_listen_fd=None, use_libuv=True):
        super().__init__(timeout)
        self.host = host_name
        self._lock = threading.Lock()
        self._server = None
        if is_master:
            if multi_tenant and port in TCPStore._servers:
                self._server = TCPStore._servers[port]
            else:
                self._server = _TCPStoreServer(host_name, port)
                if multi_tenant:
                    TCPStore._servers[self._server.port] = self._server
            port = self._server.port
        self.port = port
        self.libuvBackend = False
        self._sock = self._connect(host_name, port, _seconds(self._timeout))
        if world_size is not None and world_size > 0:
            self.add("__tl_tcpstore_workers", 1)
            if is_master and wait_for_workers:
                deadline = time.monotonic() + _seconds(self._timeout)
                while int(self._op("get", "__tl_tcpstore_workers", 1.0)) < world_size:
                    if time.monotonic() > deadline:
                        raise DistStoreError(f"Timed out after {_seconds(self._timeout):.0f} seconds waiting "
                                             f"for clients. {self.num_keys()}/{world_size} clients joined.")
                    time.sleep(0.01)

    @staticmethod
    def _connect(host, port, timeout):
        deadline = time.monotonic() + timeout
        delay = 0.01
        while True:
            try:
                sock = socket.create_connection((host, port), timeout=max(0.1, min(5.0, timeout)))
                if sock.getsockname() == sock.getpeername():
                    # TCP self-connect: with no listener yet, a connect to a port in
                    # the ephemeral range can be given that same port as its source
                    # and connect to itself. Drop it and retry.
                    sock.close()
                    raise ConnectionRefusedError("connected to itself; the server is not listening yet")
                sock.settimeout(None)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                return sock
            except OSError as e:
                if time.monotonic() + delay > deadline:
                    raise DistNetworkError(f"TCPStore: failed to connect to {host}:{port} within "
                                           f"{timeout:.0f}s: {e}") from e
                time.sleep(delay)
                delay = min(delay * 2, 0.5)

    def _op(self, name, *args):
        with self._lock:
            try:
                _send_msg(self._sock, (name, args))
                ok, result = _recv_msg(self._sock)
            except (ConnectionError, OSError, EOFError) as e:
                raise DistNetworkError(f"TCPStore {self.host}:{self.port}: connection to the server lost "
                                       f"during {name}: {e}") from e
        if not ok:
            raise result
        return result

    def num_keys(self):
        # The worker counter is the store's own bookkeeping, not a user key.
        n = self._op("num_keys")
        return n - 1 if self._op("check", ["__tl_tcpstore_workers"]) else n

    def __getstate__(self):
        raise TypeError("TCPStore cannot be pickled: create one per process")

    def close(self):
        try:
            self._sock.close()
        except OSError:
            pass


class FileStore(Store):
    """FileStore(file_name, world_size=-1): a store kept in one file, for
    processes sharing a filesystem. Each operation locks the file (fcntl),
    reads the log, and appends its change; blocking calls poll."""

    def __init__(self, file_name, world_size=-1):
        super().__init__()
        self.path = file_name
        self.world_size = world_size
        open(self.path, "ab").close()

    def _read(self, f):
        f.seek(0)
        data = {}
        raw = f.read()
        pos = 0
        while pos + 8 <= len(raw):
            (n,) = struct.unpack("!Q", raw[pos:pos + 8])
            if pos + 8 + n > len(raw):
                break
            key, value = pickle.loads(raw[pos + 8:pos + 8 + n])
            pos += 8 + n
            if value is None:
                data.pop(key, None)
            else:
                data[key] = value
        return data

    @staticmethod
    def _write(f, key, value):
        rec = pickle.dumps((key, value))
        f.seek(0, os.SEEK_END)
        f.write(struct.pack("!Q", len(rec)) + rec)
        f.flush()

    def _locked(self, fn):
        with open(self.path, "a+b") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                return fn(f)
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def _poll(self, ready, timeout, what):
        deadline = time.monotonic() + timeout
        delay = 0.001
        while True:
            result = self._locked(lambda f: ready(self._read(f)))
            if result is not None:
                return result
            if time.monotonic() > deadline:
                raise DistStoreError(f"wait timeout after {int(timeout * 1000)}ms, keys: {what}")
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def _op(self, name, *args):
        if name == "set":
            return self._locked(lambda f: self._write(f, args[0], args[1]))
        if name == "get":
            key, timeout = args
            return self._poll(lambda d: d.get(key), timeout, key)
        if name == "wait":
            keys, timeout = args
            return self._poll(lambda d: True if all(k in d for k in keys) else None, timeout, ", ".join(keys))
        if name == "add":
            def add(f):
                value = int(self._read(f).get(args[0], b"0")) + args[1]
                self._write(f, args[0], str(value).encode())
                return value
            return self._locked(add)
        if name == "compare_set":
            key, expected, desired = args

            def cas(f):
                d = self._read(f)
                if key not in d:
                    if expected == b"":
                        self._write(f, key, desired)
                        return desired
                    return expected
                if d[key] == expected:
                    self._write(f, key, desired)
                    return desired
                return d[key]
            return self._locked(cas)
        if name == "delete":
            def delete(f):
                if args[0] in self._read(f):
                    self._write(f, args[0], None)
                    return True
                return False
            return self._locked(delete)
        if name == "num_keys":
            return self._locked(lambda f: sum(1 for k in self._read(f) if not k.startswith("__tl_queue/")))
        if name == "check":
            return self._locked(lambda f: all(k in self._read(f) for k in args[0]))
        if name == "append":
            return self._locked(lambda f: self._write(f, args[0], self._read(f).get(args[0], b"") + args[1]))
        if name in ("queue_push", "queue_pop", "queue_len"):
            return self._queue(name, *args)
        raise ValueError(f"unknown store operation {name}")

    def _queue(self, name, key, *args):
        qkey = "__tl_queue/" + key

        def items(d):
            return pickle.loads(d[qkey]) if qkey in d else []
        if name == "queue_push":
            return self._locked(lambda f: self._write(f, qkey, pickle.dumps(items(self._read(f)) + [args[0]])))
        if name == "queue_len":
            return self._locked(lambda f: len(items(self._read(f))))
        block, timeout = args

        def pop(d_unused=None):
            def fn(f):
                q = items(self._read(f))
                if not q:
                    return None
                self._write(f, qkey, pickle.dumps(q[1:]))
                return q[0]
            return self._locked(fn)
        value = pop()
        if value is not None:
            return value
        if not block:
            raise QueueEmptyError(f"queue_pop: queue '{key}' is empty")
        deadline = time.monotonic() + timeout
        while value is None:
            if time.monotonic() > deadline:
                raise DistStoreError(f"wait timeout after {int(timeout * 1000)}ms, keys: {key}")
            time.sleep(0.005)
            value = pop()
        return value
