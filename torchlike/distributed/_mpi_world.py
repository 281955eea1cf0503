"""Bringing up MPI_COMM_WORLD for init_process_group.

Two ways a process can be started:
- by mpiexec (directly or through torchlike.distributed.run): MPI_Init talks to
  mpiexec's process manager (PMI_FD/PMI_RANK/PMI_SIZE are in the environment),
  and rank and size come from MPI; any RANK/WORLD_SIZE set besides must agree.
- by anything else (multiprocessing.spawn, a shell loop, another launcher):
  the processes meet through the rendezvous store; rank 0 starts a PMI-1 server
  (_pmi.py) and every process points its MPI_Init at it, so they still join one
  MPI_COMM_WORLD (MPICH cannot merge singletons with connect/accept; see _pmi.py).

MPI is initialised once per process (MPI cannot be initialised again after
MPI_Finalize), with MPI_THREAD_MULTIPLE because collectives run on a worker
thread while the caller may post point-to-point operations.
"""
import os
import socket
import sys

_MPI = None
_PMI_SERVER = None


def is_available():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def launched_by_mpiexec():
    """(rank, size) from mpiexec's environment, or None."""
    env = os.environ
    if "PMI_RANK" in env and "PMI_SIZE" in env and ("PMI_FD" in env or "PMI_PORT" in env):
        return int(env["PMI_RANK"]), int(env["PMI_SIZE"])
    return None


def mpi_module(finalize=True):
    """mpi4py.MPI, initialising MPI if no one has (needs the environment set up).
    finalize=False: no MPI_Finalize at exit (see _pmi_rendezvous)."""
    global _MPI
    if _MPI is None:
        try:
            import mpi4py
        except ImportError as e:
            raise RuntimeError("torchlike.distributed needs mpi4py and mpich: pip install mpi4py mpich "
                               "(or pip install torchlike[distributed])") from e
        fresh = "mpi4py.MPI" not in sys.modules
        if fresh:
            mpi4py.rc.initialize = False
            mpi4py.rc.finalize = finalize
        from mpi4py import MPI
        if not MPI.Is_initialized():
            _init_without_gil(MPI)
        _MPI = MPI
    return _MPI


def _init_without_gil(MPI):
    """MPI_Init_thread(MPI_THREAD_MULTIPLE) with the GIL released.

    MPI_Init waits for every rank (the PMI barrier). mpi4py's own
    initialisation holds the GIL meanwhile, which would freeze the threads of
    this process that other ranks still need before they can reach MPI_Init:
    the TCPStore server they rendezvous through runs in rank 0. A ctypes call
    releases the GIL."""
    import ctypes
    lib = None
    try:
        with open("/proc/self/maps") as f:
            paths = [line.split()[-1] for line in f if "/libmpi.so" in line or "/libmpi_abi.so" in line]
        if paths:
            lib = ctypes.CDLL(paths[0])
    except OSError:
        lib = None
    if lib is None or "libmpi_abi" in getattr(lib, "_name", ""):
        MPI.Init_thread(MPI.THREAD_MULTIPLE)
        return
    provided = ctypes.c_int(0)
    rc = lib.MPI_Init_thread(None, None, ctypes.c_int(MPI.THREAD_MULTIPLE), ctypes.byref(provided))
    if rc != 0:
        raise RuntimeError(f"MPI_Init_thread failed with error code {rc}")


def initialized():
    return "mpi4py.MPI" in sys.modules and sys.modules["mpi4py.MPI"].Is_initialized()


def bring_up(rank, world_size, store, timeout_s, server_host=None):
    """Initialises MPI so that COMM_WORLD has `world_size` processes with this
    one as `rank` (either may be -1 under mpiexec: then MPI decides); returns
    (MPI, rank, world_size)."""
    env_geometry = launched_by_mpiexec()
    if initialized():
        MPI = mpi_module()
    elif env_geometry is not None and (world_size in (-1, None, env_geometry[1])) \
            and (rank in (-1, None, env_geometry[0])):
        MPI = mpi_module()
    else:
        if env_geometry is not None:
            # Inherited from an mpiexec-started parent but not describing this
            # job: drop it, or MPI_Init would talk to the wrong process manager.
            for k in list(os.environ):
                if k.startswith("PMI_"):
                    del os.environ[k]
        if rank is None or rank < 0 or world_size is None or world_size < 1:
            raise ValueError("init_process_group: rank and world_size are needed when the processes were "
                             "not started by mpiexec (set RANK and WORLD_SIZE, or pass rank= and world_size=)")
        if world_size > 1:
            _pmi_rendezvous(rank, world_size, store, timeout_s, server_host)
        # No MPI_Finalize at exit for these processes: it ends with a PMI
        # barrier, so a rank leaving with an exception would wait there for
        # ranks that wait for it, and its launcher (spawn) would never see it
        # fail. Nothing is lost: MPICH unlinks its shared memory right after
        # MPI_Init, and our PMI server just sees the connection close.
        MPI = mpi_module(finalize=False)
    world = MPI.COMM_WORLD
    if world_size not in (-1, None) and world.Get_size() != world_size:
        raise RuntimeError(f"init_process_group: world_size={world_size} but MPI_COMM_WORLD has "
                           f"{world.Get_size()} processes" + (" (MPI was already initialised in this process)"
                                                               if env_geometry is None else ""))
    if rank not in (-1, None) and world.Get_rank() != rank:
        raise RuntimeError(f"init_process_group: rank={rank} but this process is rank {world.Get_rank()} "
                           f"of MPI_COMM_WORLD")
    return MPI, world.Get_rank(), world.Get_size()


def _pmi_rendezvous(rank, world_size, store, timeout_s, server_host):
    from torchlike.distributed import _pmi
    global _PMI_SERVER
    host = socket.gethostname()
    store.set(f"__tl_pmi/host/{rank}", host)
    if rank == 0:
        keys = [f"__tl_pmi/host/{r}" for r in range(world_size)]
        store.wait(keys)
        hosts = [store.get(k).decode() for k in keys]
        _PMI_SERVER, port = _pmi.start_server(world_size, hosts, idle_timeout=max(timeout_s, 60.0))
        # Others reach the server where they reach this host: by the store's
        # address when this process hosts the store, by host name otherwise.
        addr_host = server_host or host
        store.set("__tl_pmi/addr", f"{addr_host}:{port}")
    addr = store.get("__tl_pmi/addr").decode()
    h, p = addr.rsplit(":", 1)
    _pmi.connect_client(h, int(p), rank, world_size)
