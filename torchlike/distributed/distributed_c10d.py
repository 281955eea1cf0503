"""Process groups and collectives (torch.distributed's c10d API) over MPI.

A ProcessGroup wraps an MPI communicator (MPI_COMM_WORLD for the default group,
a split of it for new_group). backend="gloo" and "mpi" both select it, so CPU
scripts written for PyTorch run unchanged; "nccl" is refused until a CUDA
backend exists. Collectives take CPU tensors: a contiguous tensor is handed to
MPI as a NumPy view of its own memory (no copy); a non-contiguous one goes
through a contiguous copy that is written back; float16/bfloat16 reductions
run in float32 (MPI has no arithmetic for them). Every collective runs on the
engine's worker thread (see _engine.py); async_op=True returns its Work.
"""
import enum
import io
import os
import pickle
import socket
import threading
from datetime import timedelta
from urllib.parse import parse_qs, urlparse

import torchlike
from torchlike.distributed import _mpi_world
from torchlike.distributed._engine import Work, abort, engine
from torchlike.distributed._store import DistBackendError, DistError, FileStore, PrefixStore, TCPStore

default_pg_timeout = timedelta(minutes=30)
GroupName = str


# ---------------------------------------------------------------- names and enums

class Backend(str):
    """A backend name: Backend("GLOO") == "gloo". GLOO and MPI run on MPI here."""
    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"
    backend_list = [UNDEFINED, GLOO, NCCL, UCC, MPI, XCCL]
    default_device_backend_map = {"cpu": GLOO, "cuda": NCCL}
    backend_capability = {GLOO: ["cpu"], MPI: ["cpu"], NCCL: ["cuda"], UCC: ["cpu", "cuda"]}

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return super().__new__(cls, value)

    @classmethod
    def register_backend(cls, name, func, extended_api=False, devices=None):
        setattr(Backend, name.upper(), name.lower())
        Backend.backend_list.append(name.lower())
        _custom_backends[name.lower()] = func


_custom_backends = {}


class BackendConfig:
    """Which backend serves which device type, parsed from "gloo" or
    "cpu:gloo,cuda:nccl"."""

    def __init__(self, backend):
        backend = str(backend).lower()
        self.device_backend_map = {}
        if backend == Backend.UNDEFINED:
            self.device_backend_map = dict(Backend.default_device_backend_map)
        elif ":" not in backend:
            for dev in Backend.backend_capability.get(backend, ["cpu", "cuda"]):
                self.device_backend_map[dev] = Backend(backend)
        else:
            for pair in backend.split(","):
                dev, _, name = pair.partition(":")
                self.device_backend_map[dev.strip()] = Backend(name.strip())

    def get_device_backend_map(self):
        return self.device_backend_map

    def __repr__(self):
        return ",".join(f"{d}:{b}" for d, b in self.device_backend_map.items())


class ReduceOp:
    """Reduction of all_reduce/reduce/reduce_scatter: ReduceOp.SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR."""

    class RedOpType(enum.IntEnum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7
        PREMUL_SUM = 8
        UNUSED = 9

    def __init__(self, op):
        self.op = ReduceOp.RedOpType(int(op))

    def __eq__(self, other):
        return int(self) == int(other) if isinstance(other, (ReduceOp, ReduceOp.RedOpType, int)) else NotImplemented

    def __hash__(self):
        return hash(int(self.op))

    def __int__(self):
        return int(self.op)

    def __index__(self):
        return int(self.op)

    def __repr__(self):
        return f"<RedOpType.{self.op.name}: {int(self.op)}>"


for _op in ReduceOp.RedOpType:
    setattr(ReduceOp, _op.name, _op)


class reduce_op:  # noqa: N801 - PyTorch's deprecated spelling
    """Deprecated: use ReduceOp."""
    SUM = ReduceOp.SUM
    PRODUCT = ReduceOp.PRODUCT
    MIN = ReduceOp.MIN
    MAX = ReduceOp.MAX


class DebugLevel(enum.IntEnum):
    OFF = 0
    INFO = 1
    DETAIL = 2


_debug_level = DebugLevel.OFF


def get_debug_level():
    return _debug_level


def set_debug_level(level):
    global _debug_level
    _debug_level = DebugLevel(level)


def set_debug_level_from_env():
    value = os.environ.get("TORCH_DISTRIBUTED_DEBUG", "OFF").upper()
    if value not in DebugLevel.__members__:
        raise ValueError(f"TORCH_DISTRIBUTED_DEBUG must be one of OFF, INFO, DETAIL, got {value}")
    set_debug_level(DebugLevel[value])


class _Options:
    """Per-call options of the ProcessGroup methods (PyTorch's *Options)."""

    def __init__(self, **defaults):
        self.timeout = default_pg_timeout
        for k, v in defaults.items():
            setattr(self, k, v)


class AllreduceOptions(_Options):
    def __init__(self):
        super().__init__(reduceOp=ReduceOp.SUM)


class AllreduceCoalescedOptions(AllreduceOptions):
    pass


class ReduceOptions(_Options):
    def __init__(self):
        super().__init__(reduceOp=ReduceOp.SUM, rootRank=0, rootTensor=0)


class BroadcastOptions(_Options):
    def __init__(self):
        super().__init__(rootRank=0, rootTensor=0, asyncOp=True)


class GatherOptions(_Options):
    def __init__(self):
        super().__init__(rootRank=0)


class ScatterOptions(_Options):
    def __init__(self):
        super().__init__(rootRank=0, asyncOp=True)


class ReduceScatterOptions(_Options):
    def __init__(self):
        super().__init__(reduceOp=ReduceOp.SUM, asyncOp=True)


class AllToAllOptions(_Options):
    def __init__(self):
        super().__init__()


class BarrierOptions(_Options):
    def __init__(self):
        super().__init__(device_ids=[])


# ---------------------------------------------------------------- tensors <-> MPI buffers

def _red_type(op):
    if isinstance(op, ReduceOp):
        return op.op
    try:
        return ReduceOp.RedOpType(int(op))
    except (TypeError, ValueError):
        raise ValueError(f"unknown reduction {op!r}; use torchlike.distributed.ReduceOp") from None


def _check_tensor(t, name, op):
    if not isinstance(t, torchlike.Tensor):
        raise TypeError(f"{op}: {name} must be a torchlike.Tensor, got {type(t).__name__}")
    if t.device.type != "cpu":
        raise RuntimeError(f"{op}: the MPI backend handles CPU tensors; got a tensor on {t.device} "
                           "(NCCL for CUDA tensors is not available yet)")


def _np(t):
    """A writable NumPy view of contiguous CPU tensor `t`'s memory, flattened;
    bfloat16 as its int16 bits, bool as uint8."""
    t = t.detach()
    if not t.is_contiguous():
        raise AssertionError("torchlike.distributed: internal error, MPI buffer is not contiguous")
    if t.dtype == torchlike.bfloat16 or t.dtype == torchlike.float16:
        t = t.view(torchlike.int16)
    elif t.dtype == torchlike.bool:
        t = t.view(torchlike.uint8)
    return t.numpy().reshape(-1)


class _Staged:
    """Contiguous stand-in for a tensor an op reads and/or writes: the tensor
    itself when contiguous (zero-copy), else a contiguous copy written back by
    finish(). for_reduce=True also widens float16/bfloat16 to float32."""

    def __init__(self, t, for_reduce=False, copy_in=True):
        self.t = t
        narrow = for_reduce and t.dtype in (torchlike.float16, torchlike.bfloat16)
        if narrow:
            self.c = t.detach().float().contiguous()
        elif t.is_contiguous():
            self.c = t.detach()
        elif copy_in:
            self.c = t.detach().contiguous()
        else:
            self.c = torchlike.empty(t.shape, dtype=t.dtype)
        self.copied = narrow or not t.is_contiguous()
        self.a = _np(self.c)

    def finish(self):
        if self.copied:
            with torchlike.no_grad():
                self.t.copy_(self.c.view(self.t.shape))


def _mpi_op(MPI, red, dtype, opname):
    if red == ReduceOp.PREMUL_SUM or red == ReduceOp.UNUSED:
        raise ValueError(f"{opname}: ReduceOp.{red.name} is not supported by the MPI backend")
    if dtype == torchlike.bool:
        table = {ReduceOp.SUM: MPI.MAX, ReduceOp.MAX: MPI.MAX, ReduceOp.BOR: MPI.MAX, ReduceOp.PRODUCT: MPI.MIN,
                 ReduceOp.MIN: MPI.MIN, ReduceOp.BAND: MPI.MIN, ReduceOp.BXOR: MPI.BXOR}
        if red not in table:
            raise ValueError(f"{opname}: ReduceOp.{red.name} is not defined for bool tensors")
        return table[red]
    floating = dtype.is_floating_point
    if floating and red in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR):
        raise ValueError(f"{opname}: ReduceOp.{red.name} needs an integer tensor, got {dtype}")
    if red == ReduceOp.AVG and not floating:
        raise ValueError(f"{opname}: ReduceOp.AVG needs a floating-point tensor, got {dtype}")
    return {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD, ReduceOp.MIN: MPI.MIN,
            ReduceOp.MAX: MPI.MAX, ReduceOp.BAND: MPI.BAND, ReduceOp.BOR: MPI.BOR, ReduceOp.BXOR: MPI.BXOR}[red]


# ---------------------------------------------------------------- process groups

class ProcessGroup:
    """A set of ranks and the MPI communicator they talk over.

    rank()/size() are within the group; the methods (allreduce, broadcast, ...)
    take lists of tensors and option objects, as PyTorch's do, and return Work."""

    class BackendType(enum.IntEnum):
        UNDEFINED = 0
        GLOO = 1
        NCCL = 2
        UCC = 3
        MPI = 4
        CUSTOM = 5

    def __init__(self, comm, ranks, group_name, backend, timeout, store, group_desc=None):
        self._comm = comm
        self._ranks = list(ranks)
        self.group_name = group_name
        self.group_desc = group_desc or group_name
        self._backend = Backend(backend)
        self._timeout = timeout
        self._timeout_s = timeout.total_seconds()
        self._store = store
        self._seq = 0
        self._lock = threading.Lock()

    def rank(self):
        return self._comm.Get_rank()

    def size(self):
        return self._comm.Get_size()

    def name(self):
        return self._backend

    @property
    def options(self):
        return _Options(timeout=self._timeout, backend=self._backend)

    def _next_seq(self):
        with self._lock:
            self._seq += 1
            return self._seq

    def _submit(self, op_name, fn, outputs=None):
        work = Work(op_name, self, self._next_seq(), outputs)
        engine().submit(work, fn)
        return work

    # The method-level API, as ProcessGroup's in PyTorch.
    def allreduce(self, tensors, opts=None):
        if isinstance(tensors, torchlike.Tensor):
            tensors = [tensors]
        op = opts.reduceOp if isinstance(opts, _Options) else (opts if opts is not None else ReduceOp.SUM)
        return _all_reduce_multi(tensors, op, self, True)

    def broadcast(self, tensors, opts=None):
        if isinstance(tensors, torchlike.Tensor):
            tensors = [tensors]
        root = opts.rootRank if isinstance(opts, _Options) else (opts or 0)
        return _broadcast_impl(tensors[0], root, self, True)

    def barrier(self, opts=None):
        return _barrier_impl(self, True)

    def allgather(self, output_tensors, input_tensors, opts=None):
        return _all_gather_impl(output_tensors[0], input_tensors[0], self, True)

    def reduce(self, tensors, opts=None):
        root = opts.rootRank if isinstance(opts, _Options) else 0
        op = opts.reduceOp if isinstance(opts, _Options) else ReduceOp.SUM
        return _reduce_impl(tensors[0], root, op, self, True)

    def send(self, tensors, dst_rank, tag=0):
        return _p2p(tensors[0], dst_rank, tag, self, send=True)

    def recv(self, tensors, src_rank, tag=0):
        return _p2p(tensors[0], src_rank, tag, self, send=False)

    def recv_anysource(self, tensors, tag=0):
        return _p2p(tensors[0], -1, tag, self, send=False)

    def abort(self):
        abort(1)

    def shutdown(self):
        pass

    def __repr__(self):
        return f"ProcessGroup(backend={self._backend}, rank={self.rank()}, size={self.size()})"


class ProcessGroupGloo(ProcessGroup):
    """ProcessGroupGloo(store, rank, size, timeout): a group of `size` processes
    meeting through `store`; here it runs on MPI like every CPU group."""

    class Device:
        def __init__(self, hostname="", interface=""):
            self.hostname, self.interface = hostname, interface

    @staticmethod
    def create_device(hostname="", interface=""):
        return ProcessGroupGloo.Device(hostname, interface)

    def __init__(self, store, rank, size, timeout=default_pg_timeout):
        MPI, rank, size = _mpi_world.bring_up(rank, size, store, timeout.total_seconds())
        name = f"gloo_{_next_group_id()}"
        super().__init__(MPI.COMM_WORLD.Dup(), range(size), name, Backend.GLOO, timeout, store)


class GroupMember:
    """GroupMember.WORLD: the default group; NON_GROUP_MEMBER: what new_group
    returns to a rank outside the new group."""
    WORLD = None
    NON_GROUP_MEMBER = object()


class group:  # noqa: N801 - PyTorch's name
    WORLD = None


class _State:
    def __init__(self):
        self.default_pg = None
        self.groups = {}  # name -> ProcessGroup
        self.group_count = 0
        self.store = None
        self.backend = None
        self.lock = threading.Lock()


_state = _State()


def _next_group_id():
    with _state.lock:
        _state.group_count += 1
        return _state.group_count - 1


def _default():
    if _state.default_pg is None:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
    return _state.default_pg


def _group(g):
    if g is None or g is GroupMember.WORLD:
        return _default()
    if g is GroupMember.NON_GROUP_MEMBER:
        raise ValueError("this rank is not a member of the group")
    if not isinstance(g, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup, got {type(g).__name__}")
    return g


def _to_group_rank(pg, global_rank, group_rank, what):
    """The group rank meant by a global `global_rank` or a `group_rank` (one of them)."""
    if global_rank is not None and group_rank is not None:
        raise ValueError(f"Can not specify both {what} and group_{what}")
    if group_rank is not None:
        r = int(group_rank)
    elif global_rank is None:
        r = 0
    else:
        g = int(global_rank)
        if g not in pg._ranks:
            raise ValueError(f"Global rank {g} is not part of group {pg.group_name}")
        r = pg._ranks.index(g)
    if not 0 <= r < pg.size():
        raise ValueError(f"{what} rank {r} is out of range for a group of size {pg.size()}")
    return r


def is_available():
    return True


def is_initialized():
    return _state.default_pg is not None


def is_mpi_available():
    return _mpi_world.is_available()


def is_gloo_available():
    # gloo is served by the MPI backend
    return _mpi_world.is_available()


def is_nccl_available():
    return False


def is_ucc_available():
    return False


def is_xccl_available():
    return False


def is_backend_available(backend):
    b = str(backend).lower()
    if b in (Backend.GLOO, Backend.MPI):
        return _mpi_world.is_available()
    return b in _custom_backends


def is_torchelastic_launched():
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def get_default_backend_for_device(device):
    dev = torchlike.device(device).type if not isinstance(device, str) or ":" in device else device
    if dev not in Backend.default_device_backend_map:
        raise ValueError(f"Default backend not registered for device : {dev}")
    return Backend.default_device_backend_map[dev]


# ---------------------------------------------------------------- rendezvous

_rendezvous_handlers = {}


def register_rendezvous_handler(scheme, handler):
    """handler(url, **kwargs) yields (store, rank, world_size) for init_method URLs of `scheme`."""
    if scheme in _rendezvous_handlers:
        raise RuntimeError(f"Rendezvous handler for {scheme}:// already registered")
    _rendezvous_handlers[scheme] = handler


def rendezvous(url, rank=-1, world_size=-1, **kwargs):
    """The (store, rank, world_size) generator for an init_method URL."""
    if not isinstance(url, str):
        raise RuntimeError(f"`url` must be a string. {type(url)}: {url}")
    scheme = urlparse(url).scheme
    if scheme not in _rendezvous_handlers:
        raise RuntimeError(f"No rendezvous handler for {scheme}://")
    query = parse_qs(urlparse(url).query)
    if rank != -1 and "rank" not in query:
        url += ("&" if "?" in url else "?") + f"rank={rank}"
    if world_size != -1 and "world_size" not in query:
        url += ("&" if "?" in url else "?") + f"world_size={world_size}"
    return _rendezvous_handlers[scheme](url, **kwargs)


def _query_int(query, name, default=-1):
    return int(query[name][0]) if name in query else default


def _env_int(name, required):
    if name in os.environ:
        return int(os.environ[name])
    if required:
        raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: environment "
                         f"variable {name} expected, but not set")
    return -1


def _tcp_handler(url, timeout=default_pg_timeout, **kwargs):
    u = urlparse(url)
    q = parse_qs(u.query)
    rank, world_size = _query_int(q, "rank"), _query_int(q, "world_size")
    if rank < 0 or world_size < 0:
        raise ValueError("tcp:// rendezvous needs rank and world_size")
    store = TCPStore(u.hostname, u.port, world_size, rank == 0, timeout, wait_for_workers=False)
    yield store, rank, world_size


def _env_handler(url, timeout=default_pg_timeout, **kwargs):
    q = parse_qs(urlparse(url).query)
    under_mpi = _mpi_world.launched_by_mpiexec()
    rank = _query_int(q, "rank")
    world_size = _query_int(q, "world_size")
    if rank < 0:
        rank = _env_int("RANK", under_mpi is None)
    if world_size < 0:
        world_size = _env_int("WORLD_SIZE", under_mpi is None)
    if under_mpi is not None:
        for name, env_value, mpi_value in (("RANK", rank, under_mpi[0]), ("WORLD_SIZE", world_size, under_mpi[1])):
            if env_value >= 0 and env_value != mpi_value:
                raise RuntimeError(f"init_process_group: {name}={env_value} disagrees with mpiexec, which made "
                                   f"this process rank {under_mpi[0]} of {under_mpi[1]}")
        rank, world_size = under_mpi
    addr = os.environ.get("MASTER_ADDR")
    port = os.environ.get("MASTER_PORT")
    if addr is None or port is None:
        if under_mpi is None:
            missing = "MASTER_ADDR" if addr is None else "MASTER_PORT"
            raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: environment "
                             f"variable {missing} expected, but not set")
        yield None, rank, world_size  # the store is set up over MPI itself
        return
    store = TCPStore(addr, int(port), world_size, rank == 0, timeout, wait_for_workers=False)
    yield store, rank, world_size


def _file_handler(url, timeout=default_pg_timeout, **kwargs):
    u = urlparse(url)
    q = parse_qs(u.query)
    path = u.path if not u.netloc else u.netloc + u.path
    rank, world_size = _query_int(q, "rank"), _query_int(q, "world_size")
    store = FileStore(path, world_size)
    store.set_timeout(timeout)
    yield store, rank, world_size


register_rendezvous_handler("tcp", _tcp_handler)
register_rendezvous_handler("env", _env_handler)
register_rendezvous_handler("file", _file_handler)


def _store_over_mpi(MPI, timeout):
    """A TCPStore hosted by rank 0, its address broadcast over MPI (for jobs
    mpiexec started without MASTER_ADDR/MASTER_PORT)."""
    world = MPI.COMM_WORLD
    if world.Get_rank() == 0:
        store = TCPStore(socket.gethostname(), 0, None, True, timeout, wait_for_workers=False)
        addr = (socket.gethostname(), store.port)
        world.bcast(addr, root=0)
        return store
    host, port = world.bcast(None, root=0)
    return TCPStore(host, port, None, False, timeout)


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Joins this process to the job's default group. backend "gloo"/"mpi" (or
    None: gloo for CPU); init_method "env://" (default; RANK, WORLD_SIZE,
    MASTER_ADDR, MASTER_PORT), "tcp://host:port", "file:///path", or a `store`.
    Under mpiexec, rank and world size come from MPI."""
    if _state.default_pg is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if timeout is None:
        timeout = default_pg_timeout
    if not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout)}")
    backend_name = Backend(backend) if backend is not None else Backend.GLOO
    if ":" in backend_name:
        backend_name = BackendConfig(backend_name).get_device_backend_map().get("cpu", Backend.GLOO)
    if backend_name == Backend.NCCL:
        raise RuntimeError("init_process_group: the NCCL backend (CUDA tensors) is not available in torchlike "
                           "yet; use backend='gloo' for CPU tensors")
    if backend_name not in (Backend.GLOO, Backend.MPI):
        raise ValueError(f"init_process_group: unknown backend {backend!r}; torchlike offers 'gloo' and 'mpi' "
                         "(both run on MPI)")
    if store is not None and init_method is not None:
        raise ValueError("Cannot specify both init_method and store.")
    server_host = None
    if store is not None:
        if world_size <= 0 or rank < 0:
            raise ValueError("world_size and rank must be given with store")
    else:
        if init_method is None:
            init_method = "env://"
        store, rank, world_size = next(rendezvous(init_method, rank, world_size, timeout=timeout))
        if isinstance(store, TCPStore) and store._server is not None:
            server_host = store.host
    if store is not None:
        store.set_timeout(timeout)
    MPI, rank, world_size = _mpi_world.bring_up(rank, world_size, store, timeout.total_seconds(), server_host)
    if store is None:
        store = _store_over_mpi(MPI, timeout)
    prefixed = PrefixStore("default_pg", store)
    pg = ProcessGroup(MPI.COMM_WORLD.Dup(), range(world_size), group_name or str(_next_group_id()),
                      backend_name, timeout, prefixed, "default_pg")
    _state.default_pg = pg
    _state.store = store
    _state.backend = backend_name
    _state.groups[pg.group_name] = pg
    GroupMember.WORLD = pg
    group.WORLD = pg
    # Every rank has its communicator before any returns, as PyTorch's init does.
    _barrier_impl(pg, False)


def destroy_process_group(group=None):
    """Frees `group` (default: every group, leaving the process uninitialised;
    MPI itself stays up, since it cannot be initialised twice in a process)."""
    if group is None or group is GroupMember.WORLD:
        if _state.default_pg is None:
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.")
        for pg in list(_state.groups.values()):
            _free(pg)
        _state.groups.clear()
        _state.default_pg = None
        _state.store = None
        GroupMember.WORLD = None
        globals()["group"].WORLD = None
        return
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    _free(group)
    _state.groups.pop(group.group_name, None)


def _free(pg):
    # Wait for what is queued on this group, then free the communicator.
    w = Work("destroy", None, 0)
    engine().submit(w, lambda: None)
    w.wait()
    try:
        pg._comm.Free()
    except Exception:
        pass


def get_rank(group=None):
    """This process's rank in `group` (default: the world); -1 outside the group."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _group(group).rank()


def get_world_size(group=None):
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _group(group).size()


def get_backend(group=None):
    return _group(group)._backend


def get_backend_config(group=None):
    return str(BackendConfig(_group(group)._backend))


def get_pg_count():
    return len(_state.groups)


def get_node_local_rank(fallback_rank=None):
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if "MPI_LOCALRANKID" in os.environ:
        return int(os.environ["MPI_LOCALRANKID"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device context "
                       "and want the code to run locally instead.")


def get_process_group_ranks(group):
    return list(_group(group)._ranks)


def get_global_rank(group, group_rank):
    pg = _group(group)
    if not 0 <= group_rank < pg.size():
        raise ValueError(f"Group rank {group_rank} is not part of group {pg.group_name}")
    return pg._ranks[group_rank]


def get_group_rank(group, global_rank):
    pg = _group(group)
    if global_rank not in pg._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {pg.group_name}")
    return pg._ranks.index(global_rank)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    """A group of the given global ranks (default: all). Every rank of the world
    must call it, in the same order; ranks outside get GroupMember.NON_GROUP_MEMBER."""
    world = _default()
    if ranks is None:
        ranks = list(range(world.size()))
    ranks = sorted(int(r) for r in ranks)
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"new_group: duplicate ranks in {ranks}")
    for r in ranks:
        if not 0 <= r < world.size():
            raise ValueError(f"new_group: rank {r} is out of range for a world of size {world.size()}")
    if backend is not None and Backend(backend) not in (Backend.GLOO, Backend.MPI):
        raise ValueError(f"new_group: backend {backend!r} is not available; use 'gloo'")
    timeout = timeout or world._timeout
    name = str(_next_group_id())
    me = world.rank()
    member = me in ranks
    comm_box = []

    def split():
        MPI = _mpi_world.mpi_module()
        comm_box.append(world._comm.Split(0 if member else MPI.UNDEFINED, ranks.index(me) if member else 0))
    world._submit("new_group", split).wait()
    if not member:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(comm_box[0], ranks, name, backend or world._backend, timeout,
                      PrefixStore(f"group_{name}", _state.store), group_desc)
    _state.groups[name] = pg
    return pg


def new_subgroups(group_size=None, group=None, timeout=None, backend=None, pg_options=None, group_desc=None):
    """Splits the world into groups of `group_size` consecutive ranks; returns
    (this rank's subgroup, all subgroups)."""
    world = _default()
    n = world.size()
    if group_size is None:
        group_size = 1
    if group_size <= 0 or n % group_size:
        raise ValueError(f"The world size ({n}) must be divisible by group_size={group_size}")
    lists = [list(range(s, s + group_size)) for s in range(0, n, group_size)]
    return new_subgroups_by_enumeration(lists, timeout, backend, pg_options, group_desc)


def new_subgroups_by_enumeration(ranks_per_subgroup_list, timeout=None, backend=None, pg_options=None,
                                 group_desc=None):
    if not ranks_per_subgroup_list:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    seen = set()
    for ranks in ranks_per_subgroup_list:
        for r in ranks:
            if r in seen:
                raise ValueError(f"Rank {r} has appeared in both subgroup {ranks} and another subgroup")
            seen.add(r)
    mine, groups = None, []
    for ranks in ranks_per_subgroup_list:
        g = new_group(ranks, timeout, backend, pg_options, group_desc=group_desc)
        groups.append(g)
        if g is not GroupMember.NON_GROUP_MEMBER:
            mine = g
    return mine, groups


# ---------------------------------------------------------------- collectives

def _run(pg, op_name, fn, async_op, outputs=None):
    work = pg._submit(op_name, fn, outputs)
    if async_op:
        return work
    work.wait()
    return None


def _all_reduce_multi(tensors, op, pg, async_op, name="all_reduce"):
    red = _red_type(op)
    for t in tensors:
        _check_tensor(t, "tensor", name)
    MPI = _mpi_world.mpi_module()
    mops = [_mpi_op(MPI, red, t.dtype, name) for t in tensors]

    def fn():
        n = pg.size()
        for t, mop in zip(tensors, mops):
            s = _Staged(t, for_reduce=True)
            pg._comm.Allreduce(MPI.IN_PLACE, s.a, op=mop)
            if red == ReduceOp.AVG:
                s.c.div_(n)
            s.finish()
    return _run(pg, name, fn, async_op, list(tensors))


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces `tensor` over every rank of the group, in place on each."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    return _all_reduce_multi([tensor], op, _group(group), async_op)


def all_reduce_coalesced(tensors, op=ReduceOp.SUM, group=None, async_op=False):
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    if isinstance(tensors, torchlike.Tensor):
        tensors = [tensors]
    return _all_reduce_multi(list(tensors), op, _group(group), async_op, "all_reduce_coalesced")


def _broadcast_impl(tensor, root, pg, async_op):
    _check_tensor(tensor, "tensor", "broadcast")

    def fn():
        s = _Staged(tensor, copy_in=pg.rank() == root)
        pg._comm.Bcast(s.a, root=root)
        s.finish()
    return _run(pg, "broadcast", fn, async_op, [tensor])


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copies `tensor` from rank `src` into `tensor` on every other rank."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    pg = _group(group)
    return _broadcast_impl(tensor, _to_group_rank(pg, src, group_src, "src"), pg, async_op)


def _reduce_impl(tensor, root, op, pg, async_op):
    _check_tensor(tensor, "tensor", "reduce")
    red = _red_type(op)
    MPI = _mpi_world.mpi_module()
    mop = _mpi_op(MPI, red, tensor.dtype, "reduce")

    def fn():
        s = _Staged(tensor, for_reduce=True)
        if pg.rank() == root:
            pg._comm.Reduce(MPI.IN_PLACE, s.a, op=mop, root=root)
            if red == ReduceOp.AVG:
                s.c.div_(pg.size())
            s.finish()
        else:
            pg._comm.Reduce(s.a, None, op=mop, root=root)
    return _run(pg, "reduce", fn, async_op, [tensor])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduces `tensor` over the group into `tensor` on rank `dst`."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    pg = _group(group)
    return _reduce_impl(tensor, _to_group_rank(pg, dst, group_dst, "dst"), op, pg, async_op)


def _same(t, ref, what, op):
    _check_tensor(t, what, op)
    if t.dtype != ref.dtype:
        raise TypeError(f"{op}: {what} has dtype {t.dtype}, expected {ref.dtype} like the input")


def _all_gather_impl(tensor_list, tensor, pg, async_op):
    n = pg.size()
    _check_tensor(tensor, "tensor", "all_gather")
    if len(tensor_list) != n:
        raise ValueError(f"all_gather: tensor_list has {len(tensor_list)} tensors, the group has {n} ranks")
    for t in tensor_list:
        _same(t, tensor, "tensor_list entry", "all_gather")
        if t.numel() != tensor.numel():
            raise ValueError(f"all_gather: output of shape {tuple(t.shape)} does not match the input "
                             f"{tuple(tensor.shape)} (this backend needs equal sizes)")

    def fn():
        src = _Staged(tensor)
        out = torchlike.empty((n,) + tuple(tensor.shape), dtype=tensor.dtype)
        pg._comm.Allgather(src.a, _np(out))
        with torchlike.no_grad():
            for i, t in enumerate(tensor_list):
                t.copy_(out[i].view(t.shape))
    return _run(pg, "all_gather", fn, async_op, tensor_list)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """tensor_list[i] receives rank i's `tensor`."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    return _all_gather_impl(tensor_list, tensor, _group(group), async_op)


def all_gather_coalesced(output_tensor_lists, input_tensor_list, group=None, async_op=False):
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    pg = _group(group)
    works = [_all_gather_impl(outs, t, pg, True) for outs, t in zip(output_tensor_lists, input_tensor_list)]
    if async_op:
        # the engine runs them in order: the last one done means all are
        return works[-1] if works else None
    for w in works:
        w.wait()
    return None


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """output_tensor (world_size * input numel: concatenated along dim 0, or
    stacked) receives every rank's input_tensor in rank order."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    pg = _group(group)
    _check_tensor(input_tensor, "input_tensor", "all_gather_into_tensor")
    _same(output_tensor, input_tensor, "output_tensor", "all_gather_into_tensor")
    if output_tensor.numel() != pg.size() * input_tensor.numel():
        raise ValueError(f"all_gather_into_tensor: output_tensor has {output_tensor.numel()} elements, expected "
                         f"world_size ({pg.size()}) x input numel ({input_tensor.numel()})")

    def fn():
        src, dst = _Staged(input_tensor), _Staged(output_tensor, copy_in=False)
        pg._comm.Allgather(src.a, dst.a)
        dst.finish()
    return _run(pg, "all_gather_into_tensor", fn, async_op, [output_tensor])


def _all_gather_base(output_tensor, input_tensor, group=None, async_op=False):
    return all_gather_into_tensor(output_tensor, input_tensor, group, async_op)


def _check_root_list(tensors, tensor, me, root, n, op, arg, role, side):
    """gather's and scatter's list argument: n tensors of `tensor`'s kind and
    size on the root rank (the `role`), none on the others."""
    if me == root:
        if tensors is None or len(tensors) != n:
            raise ValueError(f"{op}: rank {me} is the {role} and needs a {arg} of {n} tensors")
        for t in tensors:
            _same(t, tensor, f"{arg} entry", op)
            if t.numel() != tensor.numel():
                raise ValueError(f"{op}: {arg} tensors must match the {side}'s size")
    elif tensors:
        raise ValueError(f"{op}: Argument ``{arg}`` must NOT be specified on non-{role} ranks.")


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """On rank `dst`, gather_list[i] receives rank i's `tensor`; other ranks pass no list."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    pg = _group(group)
    root = _to_group_rank(pg, dst, group_dst, "dst")
    _check_tensor(tensor, "tensor", "gather")
    me, n = pg.rank(), pg.size()
    _check_root_list(gather_list, tensor, me, root, n, "gather", "gather_list", "destination", "input")

    def fn():
        src = _Staged(tensor)
        if me == root:
            out = torchlike.empty((n,) + tuple(tensor.shape), dtype=tensor.dtype)
            pg._comm.Gather(src.a, _np(out), root=root)
            with torchlike.no_grad():
                for i, t in enumerate(gather_list):
                    t.copy_(out[i].view(t.shape))
        else:
            pg._comm.Gather(src.a, None, root=root)
    return _run(pg, "gather", fn, async_op, list(gather_list or []))


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Rank i's `tensor` receives scatter_list[i] of rank `src`."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    pg = _group(group)
    root = _to_group_rank(pg, src, group_src, "src")
    _check_tensor(tensor, "tensor", "scatter")
    me, n = pg.rank(), pg.size()
    _check_root_list(scatter_list, tensor, me, root, n, "scatter", "scatter_list", "source", "output")

    def fn():
        dst = _Staged(tensor, copy_in=False)
        if me == root:
            packed = torchlike.stack([t.detach().reshape(tensor.shape) for t in scatter_list])
            pg._comm.Scatter(_np(packed), dst.a, root=root)
        else:
            pg._comm.Scatter(None, dst.a, root=root)
        dst.finish()
    return _run(pg, "scatter", fn, async_op, [tensor])


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces `input` (world_size * output numel) over the group; rank i gets
    chunk i of the result in `output`."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    pg = _group(group)
    _check_tensor(input, "input", "reduce_scatter_tensor")
    _same(output, input, "output", "reduce_scatter_tensor")
    if input.numel() != pg.size() * output.numel():
        raise ValueError(f"reduce_scatter_tensor: input has {input.numel()} elements, expected world_size "
                         f"({pg.size()}) x output numel ({output.numel()})")
    red = _red_type(op)
    MPI = _mpi_world.mpi_module()
    mop = _mpi_op(MPI, red, input.dtype, "reduce_scatter_tensor")

    def fn():
        src = _Staged(input, for_reduce=True)
        dst = _Staged(output, for_reduce=True, copy_in=False)
        pg._comm.Reduce_scatter_block(src.a, dst.a, op=mop)
        if red == ReduceOp.AVG:
            dst.c.div_(pg.size())
        dst.finish()
    return _run(pg, "reduce_scatter_tensor", fn, async_op, [output])


def _reduce_scatter_base(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    return reduce_scatter_tensor(output, input, op, group, async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Rank i's `output` receives the reduction of input_list[i] over the group."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    pg = _group(group)
    if len(input_list) != pg.size():
        raise ValueError(f"reduce_scatter: input_list has {len(input_list)} tensors, the group has "
                         f"{pg.size()} ranks")
    for t in input_list:
        _same(t, output, "input_list entry", "reduce_scatter")
        if t.numel() != output.numel():
            raise ValueError("reduce_scatter: input_list tensors must match the output's size")
    packed = torchlike.stack([t.detach().reshape(output.shape) for t in input_list])
    return reduce_scatter_tensor(output, packed, op, pg, async_op)


def _splits(sizes, dim0, n, what):
    if sizes is None or len(sizes) == 0:
        if dim0 % n:
            raise ValueError(f"all_to_all_single: {what} dim 0 ({dim0}) is not divisible by the group size ({n})")
        return [dim0 // n] * n
    sizes = [int(s) for s in sizes]
    if len(sizes) != n or sum(sizes) != dim0:
        raise ValueError(f"all_to_all_single: {what}_split_sizes {sizes} must have {n} entries summing to {dim0}")
    return sizes


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    """Rank i sends slice j of `input` (along dim 0) to rank j, which stores it as
    slice i of `output`; slices are equal unless split sizes are given."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    pg = _group(group)
    _check_tensor(input, "input", "all_to_all_single")
    _same(output, input, "output", "all_to_all_single")
    n = pg.size()
    dim0_in = input.shape[0] if input.dim() else 1
    dim0_out = output.shape[0] if output.dim() else 1
    row_in = input.numel() // max(dim0_in, 1) if dim0_in else 0
    row_out = output.numel() // max(dim0_out, 1) if dim0_out else 0
    if row_in != row_out and dim0_in and dim0_out:
        raise ValueError("all_to_all_single: input and output rows (dims after the first) must match")
    ins = _splits(input_split_sizes, dim0_in, n, "input")
    outs = _splits(output_split_sizes, dim0_out, n, "output")
    row = row_in or row_out

    def displ(sizes):
        d, acc = [], 0
        for s in sizes:
            d.append(acc * row)
            acc += s
        return d
    MPI = _mpi_world.mpi_module()

    def fn():
        src, dst = _Staged(input), _Staged(output, copy_in=False)
        pg._comm.Alltoallv([src.a, ([s * row for s in ins], displ(ins))],
                           [dst.a, ([s * row for s in outs], displ(outs))])
        dst.finish()
    return _run(pg, "all_to_all_single", fn, async_op, [output])


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """output_tensor_list[i] receives input_tensor_list[rank] of rank i."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    pg = _group(group)
    n = pg.size()
    if len(output_tensor_list) != n or len(input_tensor_list) != n:
        raise ValueError(f"all_to_all: both lists need {n} tensors")
    ref = input_tensor_list[0]
    for t in list(output_tensor_list) + list(input_tensor_list):
        _same(t, ref, "tensor", "all_to_all")
    MPI = _mpi_world.mpi_module()

    def fn():
        flat_in = torchlike.cat([t.detach().reshape(-1) for t in input_tensor_list]) if n else None
        out_sizes = [t.numel() for t in output_tensor_list]
        flat_out = torchlike.empty(sum(out_sizes), dtype=ref.dtype)
        in_sizes = [t.numel() for t in input_tensor_list]

        def displ(sizes):
            d, acc = [], 0
            for s in sizes:
                d.append(acc)
                acc += s
            return d
        pg._comm.Alltoallv([_np(flat_in), (in_sizes, displ(in_sizes))],
                           [_np(flat_out), (out_sizes, displ(out_sizes))])
        with torchlike.no_grad():
            for t, chunk in zip(output_tensor_list, torchlike.split(flat_out, out_sizes)):
                t.copy_(chunk.view(t.shape))
    return _run(pg, "all_to_all", fn, async_op, list(output_tensor_list))


def _barrier_impl(pg, async_op):
    return _run(pg, "barrier", lambda: pg._comm.Barrier(), async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Returns once every rank of the group has called barrier."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    return _barrier_impl(_group(group), async_op)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier that names the ranks that did not arrive within `timeout`
    (raising on this rank instead of aborting the job)."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    pg = _group(group)
    t = (timeout or pg._timeout).total_seconds()
    seq = pg._next_seq()
    store = pg._store
    me, n = pg.rank(), pg.size()
    store.set(f"__tl_mbarrier/{seq}/{me}", b"1")
    if me == 0:
        import time as _time
        deadline = _time.monotonic() + t
        missing = list(range(1, n))
        while missing and _time.monotonic() < deadline:
            missing = [r for r in missing if not store.check([f"__tl_mbarrier/{seq}/{r}"])]
            if missing:
                _time.sleep(0.005)
        if missing:
            shown = missing if wait_all_ranks else missing[:1]
            raise DistBackendError(f"[Rank 0]: Ranks {', '.join(map(str, shown))} failed to pass "
                                   f"monitoredBarrier in {int(t * 1000)} ms")
        for r in range(1, n):
            store.set(f"__tl_mbarrier/{seq}/done/{r}", b"1")
    else:
        try:
            store.wait([f"__tl_mbarrier/{seq}/done/{me}"], timedelta(seconds=t))
        except DistError as e:
            raise DistBackendError(f"[Rank {me}]: monitored_barrier: rank 0 did not release the barrier within "
                                   f"{int(t * 1000)} ms") from e


# ---------------------------------------------------------------- point to point

class _P2PWork(Work):
    """A point-to-point operation: an MPI request polled (with the group's
    timeout) by whoever waits on it."""

    def __init__(self, op_name, pg, req, staged, peer_group_rank):
        super().__init__(op_name, pg, 0, [staged.t])
        self._req = req
        self._staged = staged
        self._deadline = None
        import time as _time
        self._t0 = _time.monotonic()
        self._source_rank = peer_group_rank

    def _poll(self):
        MPI = _mpi_world.mpi_module()
        status = MPI.Status()
        if self._req.Test(status):
            if self.op_name == "recv":
                self._source_rank = self.group._ranks[status.Get_source()]
                self._staged.finish()
            self._finish()
            return True
        return False

    def is_completed(self):
        return self._done.is_set() or self._poll()

    def wait(self, timeout=None):
        import time as _time
        limit = self.group._timeout_s if timeout is None else (
            timeout.total_seconds() if hasattr(timeout, "total_seconds") else float(timeout))
        delay = 0.0
        while not self._done.is_set() and not self._poll():
            if _time.monotonic() - self._t0 > limit:
                msg = (f"[Rank {self.group.rank()}] {self.op_name} with rank {self._source_rank} of group "
                       f"'{self.group.group_name}' did not complete within {limit:.1f} s; MPI cannot cancel it: "
                       "aborting every rank.")
                import sys
                sys.stderr.write(msg + "\n")
                threading.Timer(2.5, abort, (1,)).start()
                raise DistBackendError(msg)
            _time.sleep(delay)
            delay = min(max(delay * 2, 1e-5), 1e-3)
        if self._error is not None:
            raise self._error
        return True


def _p2p(tensor, peer, tag, pg, send):
    name = "send" if send else "recv"
    _check_tensor(tensor, "tensor", name)
    MPI = _mpi_world.mpi_module()
    if peer == pg.rank():
        raise ValueError(f"Invalid destination rank: should not be the same as the rank of the current process."
                         if send else "Invalid source rank: should not be the same as the rank of the current "
                         "process.")
    staged = _Staged(tensor, copy_in=send)
    if send:
        req = pg._comm.Isend(staged.a, dest=peer, tag=tag)
    else:
        req = pg._comm.Irecv(staged.a, source=MPI.ANY_SOURCE if peer < 0 else peer,
                             tag=MPI.ANY_TAG if tag is None else tag)
    return _P2PWork(name, pg, req, staged, pg._ranks[peer] if peer >= 0 else -1)


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Starts sending `tensor` to rank `dst`; returns a Work."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    pg = _group(group)
    return _p2p(tensor, _to_group_rank(pg, dst, group_dst, "dst"), tag, pg, True)


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Starts receiving into `tensor` from rank `src` (None: any rank); returns a Work."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    pg = _group(group)
    peer = -1 if src is None and group_src is None else _to_group_rank(pg, src, group_src, "src")
    return _p2p(tensor, peer, tag, pg, False)


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receives into `tensor`; returns the sender's global rank."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work._source_rank


class P2POp:
    """One send or receive for batch_isend_irecv: P2POp(dist.isend, tensor, peer)."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        self.op, self.tensor, self.peer, self.group, self.tag, self.group_peer = op, tensor, peer, group, tag, group_peer


def batch_isend_irecv(p2p_op_list):
    """Starts every operation of the list; returns their Works."""
    if not p2p_op_list or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    works = []
    for p in p2p_op_list:
        if p.op is isend:
            works.append(isend(p.tensor, p.peer, p.group, p.tag, p.group_peer))
        else:
            works.append(irecv(p.tensor, p.peer, p.group, p.tag, p.group_peer))
    return works


# ---------------------------------------------------------------- object collectives

def _dumps(obj):
    buf = io.BytesIO()
    pickle.Pickler(buf).dump(obj)
    return buf.getvalue()


def _obj_run(pg, name, fn):
    box = []
    _run(pg, name, lambda: box.append(fn()), False)
    return box[0]


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replaces object_list's entries on every rank by those of rank `src` (pickled)."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    pg = _group(group)
    root = _to_group_rank(pg, src, group_src, "src")
    payload = _dumps(list(object_list)) if pg.rank() == root else None
    result = _obj_run(pg, "broadcast_object_list", lambda: pg._comm.bcast(payload, root=root))
    if pg.rank() != root:
        object_list[:] = pickle.loads(result)


def all_gather_object(object_list, obj, group=None):
    """object_list[i] becomes rank i's `obj`."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    pg = _group(group)
    if len(object_list) != pg.size():
        raise ValueError(f"all_gather_object: object_list needs {pg.size()} entries, got {len(object_list)}")
    data = _dumps(obj)
    gathered = _obj_run(pg, "all_gather_object", lambda: pg._comm.allgather(data))
    for i, d in enumerate(gathered):
        object_list[i] = pickle.loads(d)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    pg = _group(group)
    root = _to_group_rank(pg, dst, group_dst, "dst")
    if pg.rank() == root and (object_gather_list is None or len(object_gather_list) != pg.size()):
        raise ValueError(f"gather_object: the destination needs an object_gather_list of {pg.size()} entries")
    data = _dumps(obj)
    gathered = _obj_run(pg, "gather_object", lambda: pg._comm.gather(data, root=root))
    if pg.rank() == root:
        for i, d in enumerate(gathered):
            object_gather_list[i] = pickle.loads(d)


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    pg = _group(group)
    root = _to_group_rank(pg, src, group_src, "src")
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    payload = None
    if pg.rank() == root:
        if scatter_object_input_list is None or len(scatter_object_input_list) != pg.size():
            raise ValueError(f"scatter_object_list: the source needs {pg.size()} input objects")
        payload = [_dumps(o) for o in scatter_object_input_list]
    data = _obj_run(pg, "scatter_object_list", lambda: pg._comm.scatter(payload, root=root))
    scatter_object_output_list[0] = pickle.loads(data)


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None):
    pg = _group(group)
    peer = _to_group_rank(pg, dst, group_dst, "dst")
    data = _dumps(list(object_list))
    size = torchlike.tensor([len(data)], dtype=torchlike.int64)
    send(size, group=pg, group_dst=peer)
    import numpy as np
    send(torchlike.from_numpy(np.frombuffer(bytearray(data), dtype=np.uint8)), group=pg, group_dst=peer)


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Fills object_list with what send_object_list sent; returns the sender's rank."""
    pg = _group(group)
    peer = None if src is None and group_src is None else _to_group_rank(pg, src, group_src, "src")
    size = torchlike.zeros(1, dtype=torchlike.int64)
    sender = recv(size, group=pg, group_src=peer)
    buf = torchlike.empty(int(size.item()), dtype=torchlike.uint8)
    recv(buf, group=pg, group_src=pg._ranks.index(sender))
    objs = pickle.loads(bytes(_np(buf)))
    object_list[:len(objs)] = objs
    return sender


def breakpoint(rank=0, skip=0):  # noqa: A001 - PyTorch's name
    """Drops rank `rank` into pdb (reading the terminal), the others wait in a barrier."""
    if get_rank() == rank:
        import pdb
        import sys
        try:
            sys.stdin = open("/dev/stdin")  # a launcher may have given the rank no terminal
        except OSError:
            pass
        pdb.Pdb().set_trace(sys._getframe(1))
    barrier()
