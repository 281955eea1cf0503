"""A PMI-1 server, so that processes mpiexec did not start join one MPI_COMM_WORLD.

Why this exists: processes started by `torchlike.multiprocessing.spawn` (or any
launcher other than mpiexec) come up as MPI singletons. The MPI way to join
singletons, MPI_Comm_accept/MPI_Comm_connect followed by MPI_Intercomm_merge,
fails in MPICH 5.0 ("Local and remote groups in MPI_Intercomm_create must not
overlap": every singleton is rank 0 of a world with the same id; see
pmodels/mpich#7805). So we do what mpiexec's process manager does instead:
one process serves the PMI-1 wire protocol (the text protocol MPICH's MPI_Init
speaks to Hydra over the PMI_FD socket) and every rank connects to it before
MPI_Init, which then builds a normal N-process MPI_COMM_WORLD (shared memory
between ranks on one host, TCP between hosts).

The server runs in its own small process (this file is run as a script, so it
imports only the standard library): MPI_Init blocks in the PMI barrier while
holding the GIL, so a server thread inside a rank's own interpreter could not
answer it. The server exits when every rank has connected and disconnected,
and on a rank's PMI abort it stops the other ranks (as mpiexec would).

Wire protocol (PMI-1): newline-terminated lines `cmd=NAME key=value ...`.
Before its first PMI line each client sends `cmd=tl_hello rank=R pid=P`, so the
server knows whom to stop on abort.
"""
import os
import selectors
import signal
import socket
import sys
import time



def _parse(line):
    fields = {}
    for part in line.split(" "):
        if "=" in part:
            k, v = part.split("=", 1)
            fields[k] = v
    return fields


def _process_mapping(hosts):
    """PMI_process_mapping for ranks on `hosts` (rank order): runs of consecutive
    ranks on one host become `(node, 1, count)` blocks, as Hydra writes them."""
    node_ids, blocks = {}, []
    for h in hosts:
        node = node_ids.setdefault(h, len(node_ids))
        if blocks and blocks[-1][0] == node:
            blocks[-1][2] += 1
        else:
            blocks.append([node, 1, 1])
    return "(vector," + ",".join(f"({n},{k},{c})" for n, k, c in blocks) + ")"


class _Server:
    def __init__(self, size, hosts, listen_sock, idle_timeout):
        self.size = size
        self.kvs = {"PMI_process_mapping": _process_mapping(hosts)}
        self.sock = listen_sock
        self.sel = selectors.DefaultSelector()
        self.sel.register(listen_sock, selectors.EVENT_READ)
        self.buffers = {}
        self.pids = {}
        self.barrier = []
        self.connected_ever = 0
        self.idle_timeout = idle_timeout
        # Unique per job: MPICH names its shared-memory segments after the KVS.
        self.kvsname = f"tl_kvs_{os.getpid()}_{int(time.time() * 1000) % 1000000}"

    def send(self, conn, text):
        try:
            conn.sendall((text + "\n").encode())
        except OSError:
            pass

    def handle(self, conn, line):
        f = _parse(line)
        cmd = f.get("cmd")
        if cmd == "tl_hello":
            self.pids[conn] = int(f.get("pid", "0"))
        elif cmd == "init":
            self.send(conn, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0")
        elif cmd == "get_maxes":
            self.send(conn, "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024 rc=0")
        elif cmd == "get_appnum":
            self.send(conn, "cmd=appnum appnum=0 rc=0")
        elif cmd == "get_my_kvsname":
            self.send(conn, f"cmd=my_kvsname kvsname={self.kvsname} rc=0")
        elif cmd == "get_universe_size":
            self.send(conn, f"cmd=universe_size size={self.size} rc=0")
        elif cmd == "put":
            self.kvs[f.get("key", "")] = f.get("value", "")
            self.send(conn, "cmd=put_result rc=0 msg=success")
        elif cmd == "get":
            key = f.get("key", "")
            if key in self.kvs:
                self.send(conn, f"cmd=get_result rc=0 msg=success value={self.kvs[key]}")
            else:
                self.send(conn, f"cmd=get_result rc=-1 msg=key_{key}_not_found")
        elif cmd == "barrier_in":
            self.barrier.append(conn)
            if len(self.barrier) == self.size:
                for c in self.barrier:
                    self.send(c, "cmd=barrier_out rc=0")
                self.barrier = []
        elif cmd == "finalize":
            self.send(conn, "cmd=finalize_ack rc=0")
        elif cmd == "abort":
            self.abort(conn)
        else:
            # Anything else (spawn, publish_name, ...) is not offered: say so
            # instead of leaving the client waiting for an answer.
            self.send(conn, f"cmd={cmd}_result rc=-1 msg=unsupported_by_torchlike_pmi")

    def abort(self, source):
        """A rank called MPI_Abort: stop every other rank, as mpiexec does."""
        pids = [p for c, p in self.pids.items() if c is not source and p > 0]
        for p in pids:
            try:
                os.kill(p, signal.SIGTERM)
            except OSError:
                pass
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and any(_alive(p) for p in pids):
            time.sleep(0.05)
        for p in pids:
            if _alive(p):
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass

    def run(self):
        start = time.monotonic()
        while True:
            if self.connected_ever >= self.size and not self.buffers:
                return 0  # every rank came and went
            if self.connected_ever < self.size and time.monotonic() - start > self.idle_timeout:
                return 1  # the job never assembled
            for key, _ in self.sel.select(timeout=1.0):
                if key.fileobj is self.sock:
                    conn, _ = self.sock.accept()
                    conn.setblocking(True)
                    self.sel.register(conn, selectors.EVENT_READ)
                    self.buffers[conn] = b""
                    self.connected_ever += 1
                    continue
                conn = key.fileobj
                try:
                    data = conn.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    self.sel.unregister(conn)
                    self.buffers.pop(conn, None)
                    self.pids.pop(conn, None)
                    conn.close()
                    continue
                buf = self.buffers[conn] + data
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if line.strip():
                        self.handle(conn, line.decode(errors="replace").strip())
                self.buffers[conn] = buf


def _alive(pid):
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:  # our own child? reap it so it does not linger as a zombie
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return True


def start_server(size, hosts, idle_timeout=300.0):
    """Starts the server process; returns (Popen, port). `hosts[r]` names rank
    r's host (for MPICH's process mapping)."""
    import subprocess
    proc = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), str(size), str(idle_timeout)] + list(hosts),
        stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
    line = proc.stdout.readline().decode().strip()
    if not line.isdigit():
        proc.kill()
        raise RuntimeError("torchlike.distributed: the PMI server did not start")
    proc.stdout.close()
    return proc, int(line)


def connect_client(host, port, rank, size):
    """Connects this process to the PMI server and points MPICH's MPI_Init at it
    (PMI_FD/PMI_RANK/PMI_SIZE); returns the descriptor, which MPICH owns from
    then on (MPI_Finalize still talks over it, after Python has torn down its
    objects, so no Python socket object may close it)."""
    sock = socket.create_connection((host, port), timeout=60)
    sock.settimeout(None)
    sock.sendall(f"cmd=tl_hello rank={rank} pid={os.getpid()}\n".encode())
    fd = sock.detach()
    os.set_inheritable(fd, False)
    for k in list(os.environ):
        if k.startswith(("PMI_", "PMIX_")):
            del os.environ[k]
    os.environ["PMI_FD"] = str(fd)
    os.environ["PMI_RANK"] = str(rank)
    os.environ["PMI_SIZE"] = str(size)
    return fd


def _main(argv):
    size, idle_timeout, hosts = int(argv[0]), float(argv[1]), argv[2:]
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("0.0.0.0", 0))
    sock.listen(max(size, 16))
    sys.stdout.write(f"{sock.getsockname()[1]}\n")
    sys.stdout.flush()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C reaches the ranks; they disconnect
    return _Server(size, hosts, sock, idle_timeout).run()


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))


def abort_job(code=1):
    """Stops every rank of the job from this process: MPI_Abort once MPI is up,
    else the PMI abort command on the process manager's socket (mpiexec's or
    ours), which needs no MPI_Init (MPI_Init would wait for the other ranks)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is not None and mpi.Is_initialized() and not mpi.Is_finalized():
        mpi.COMM_WORLD.Abort(code)
    fd = os.environ.get("PMI_FD")
    if fd is not None:
        try:
            fd = int(fd)
            os.write(fd, b"cmd=init pmi_version=1 pmi_subversion=1\n")
            os.read(fd, 4096)
            os.write(fd, f"cmd=abort exitcode={code}\n".encode())
            time.sleep(2.0)  # the process manager stops us with the rest
        except OSError:
            pass
    os._exit(code)
