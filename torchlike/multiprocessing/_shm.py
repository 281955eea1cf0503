"""Shared-memory segments that back tensor storages shared between processes.

A segment is a file mapped with mmap, in one of three forms:
  * 'file_descriptor' strategy: an anonymous memfd, handed to other processes
    as a duplicated descriptor; the kernel frees it with its last mapping.
  * 'file_system' strategy: a named file in /dev/shm that other processes open
    by name. A reference count after the data (guarded by flock) counts the
    mappings plus the pickled messages not yet received; whoever drops it to
    zero unlinks the name. Pickling counts the message *before* the sender can
    drop its own reference, so a temporary tensor put on a queue survives.
  * loan (DataLoader workers): a named file the worker lends to the main
    process. When the main process's batch dies, the name goes back to the
    worker with its next task, and the worker collates a later batch into the
    same pages: no fresh pages to allocate and zero per batch (the larger part
    of a batch's cost). The loader removes every loan name by prefix when it
    shuts its workers down.

Every storage living in a segment is recorded by its data pointer, so
`Tensor.is_shared()` and the pickler can tell a shared storage from a private
one. Entries hold only weak references: the storage keeps the NumPy array over
the mapping alive, and when the storage dies the entry goes with it.
"""
import fcntl
import itertools
import mmap
import os
import secrets
import sys
import tempfile
import threading
import weakref

import numpy as np

# Named segments live in /dev/shm (memory); elsewhere, in the temporary directory.
_SHM_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
_counter = itertools.count()
_lock = threading.Lock()
_by_ptr = {}  # (storage data pointer, pid) -> Segment
_COUNT_BYTES = 8

# Set in DataLoader worker processes: tensors they send are written into
# loan segments named with this prefix.
handoff_prefix = None

# Worker side of loans: segments lent and not yet returned (name -> [array,
# times lent]), and returned ones waiting for reuse ([(nbytes, name, array)]).
_lent = {}
_idle = []
_MAX_IDLE = 4

# Main-process side: where returned loan names are collected, per worker
# prefix (a deque each, filled by finalizers, drained by the loader).
loan_returns = {}


class Segment:
    """One mapping: how to reach it from another process."""

    __slots__ = ("array", "nbytes", "fd", "name", "handoff", "recyclable", "__weakref__")

    def __init__(self, nbytes, fd=None, name=None, handoff=False):
        self.recyclable = False  # a loan made for a collated batch, reusable once returned
        self.array = None
        self.nbytes = nbytes
        self.fd = fd            # 'file_descriptor' creator: kept open to hand on
        self.name = name        # 'file_system' and hand-off segments
        self.handoff = handoff  # a loan: the receiver returns the name when done


def _register(array, seg):
    key = (array.ctypes.data, os.getpid())

    def forget(_ref, key=key, seg=seg):
        with _lock:
            if _by_ptr.get(key) is seg:
                del _by_ptr[key]
        if seg.fd is not None:
            try:
                os.close(seg.fd)
            except OSError:
                pass
            seg.fd = None

    seg.array = weakref.ref(array, forget)
    with _lock:
        _by_ptr[key] = seg
    return seg


def lookup(ptr):
    """The live segment whose mapping starts at `ptr` in this process, or None."""
    seg = _by_ptr.get((ptr, os.getpid()))
    if seg is None or seg.array() is None:
        return None
    return seg


def _unlink_quietly(path):
    try:
        os.unlink(path)
    except OSError:
        pass


# A new segment is about to be written whole (a batch collated into it): one
# populating mmap call allocates its pages instead of a fault per page.
_POPULATE = getattr(mmap, "MAP_POPULATE", 0)


def _map_fd(fd, nbytes, length, populate=False):
    flags = mmap.MAP_SHARED | (_POPULATE if populate else 0)
    m = mmap.mmap(fd, length, flags, mmap.PROT_READ | mmap.PROT_WRITE)
    return np.frombuffer(m, dtype=np.uint8, count=nbytes)


def _fresh_path(prefix=None):
    if prefix is None:
        prefix = f"torchlike_{os.getpid()}"
    return os.path.join(_SHM_DIR, f"{prefix}_{next(_counter)}_{secrets.token_hex(4)}")


def remove_prefixed(prefix):
    """Unlinks every segment name starting with `prefix` (hand-offs nobody received)."""
    head = os.path.basename(prefix) + "_"
    try:
        names = os.listdir(_SHM_DIR)
    except OSError:
        return
    for n in names:
        if n.startswith(head):
            _unlink_quietly(os.path.join(_SHM_DIR, n))


# ------------------------------------------------------------------ reference counts of named segments
def _count_offset(nbytes):
    return (nbytes + _COUNT_BYTES - 1) // _COUNT_BYTES * _COUNT_BYTES


def adjust_refs(path, delta):
    """Adds delta to a named segment's reference count; unlinks it at zero. Returns the count."""
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return 0
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        at = os.fstat(fd).st_size - _COUNT_BYTES
        count = int.from_bytes(os.pread(fd, _COUNT_BYTES, at), "little", signed=True) + delta
        os.pwrite(fd, count.to_bytes(_COUNT_BYTES, "little", signed=True), at)
        if count <= 0:
            _unlink_quietly(path)
        return count
    finally:
        os.close(fd)  # releases the lock


def _drop_ref(path, pid):
    if os.getpid() == pid:  # a forked child inherits mappings, not references
        adjust_refs(path, -1)


# ------------------------------------------------------------------ creating and attaching
def create(nbytes, strategy, handoff=False, recycle=False):
    """A segment of `nbytes` bytes as a registered uint8 ndarray, new and zero-filled.
    handoff=True (only where handoff_prefix is set) makes a loan; recycle=True also
    allows a returned loan of that size, holding old bytes (for outputs written whole)."""
    if handoff and recycle:
        for i, (size, _name, arr) in enumerate(_idle):
            if size == nbytes:
                del _idle[i]
                return arr
    if handoff or strategy == "file_system":
        path = _fresh_path(handoff_prefix if handoff else None)
        length = max(nbytes, 1) if handoff else _count_offset(nbytes) + _COUNT_BYTES
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.ftruncate(fd, length)
            if not handoff:
                os.pwrite(fd, (1).to_bytes(_COUNT_BYTES, "little", signed=True), length - _COUNT_BYTES)
            arr = _map_fd(fd, nbytes, length, populate=True)
        except BaseException:
            _unlink_quietly(path)
            raise
        finally:
            os.close(fd)  # the mapping outlives the descriptor
        seg = _register(arr, Segment(nbytes, name=path, handoff=handoff))
        seg.recyclable = handoff and recycle
        if not handoff:
            # runs when the array (so the storage) dies, or at interpreter exit
            weakref.finalize(arr, _drop_ref, path, os.getpid())
        return arr
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("torchlike_shm", os.MFD_CLOEXEC)
    else:  # an unlinked file in /dev/shm behaves the same
        path = _fresh_path()
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        os.unlink(path)
    try:
        os.ftruncate(fd, max(nbytes, 1))
        arr = _map_fd(fd, nbytes, max(nbytes, 1), populate=True)
    except BaseException:
        os.close(fd)
        raise
    _register(arr, Segment(nbytes, fd=fd))
    return arr


def attach_fd(fd, nbytes):
    """Maps a segment received as a file descriptor and closes the descriptor.

    Keeping it would let this process hand the same segment on, but a loader
    that keeps thousands of batches would run out of descriptors; a received
    tensor sent on again is copied into a fresh segment instead."""
    try:
        arr = _map_fd(fd, nbytes, max(nbytes, 1))
    finally:
        os.close(fd)
    _register(arr, Segment(nbytes))
    return arr


def note_lent(seg):
    """Worker side: `seg` is being sent. A recyclable one stays mapped until it comes back."""
    if not seg.recyclable:
        return  # e.g. a dataset's own storage moved into a loan: never rewritten here
    entry = _lent.get(seg.name)
    if entry is None:
        _lent[seg.name] = [seg.array(), 1]
    else:
        entry[1] += 1


def take_back(names):
    """Worker side: the main process is done with these loans; those nothing
    here uses any more wait for reuse by a batch of the same size."""
    for name in names:
        entry = _lent.get(name)
        if entry is None:
            continue
        entry[1] -= 1
        if entry[1] > 0:
            continue
        del _lent[name]
        arr = entry.pop(0)
        # Unused here, the array's only references are `arr` and getrefcount's
        # argument; a tensor over it adds the buffer export from_numpy holds.
        if sys.getrefcount(arr) > 2:
            continue  # kept by the worker's own code: leave it (and its name) alone
        _idle.append((arr.size, name, arr))
        if len(_idle) > _MAX_IDLE:  # batch sizes changed, say: the oldest goes
            _unlink_quietly(_idle.pop(0)[1])


def _loan_done(path):
    """Main side, when a loaned mapping dies: back to its worker, or away if the loader is gone."""
    sink = loan_returns.get(os.path.basename(path).rsplit("_", 2)[0])
    if sink is None:
        _unlink_quietly(path)
    else:
        sink.append(path)


def attach_name(path, nbytes, handoff=False):
    """Maps a segment received by name. A loan goes back to its lender when
    the mapping dies; a 'file_system' segment takes over the reference its
    message carried."""
    fd = os.open(path, os.O_RDWR)
    try:
        length = max(nbytes, 1) if handoff else _count_offset(nbytes) + _COUNT_BYTES
        arr = _map_fd(fd, nbytes, length)
    finally:
        os.close(fd)
    if handoff:
        _register(arr, Segment(nbytes))
        weakref.finalize(arr, _loan_done, path).atexit = False
    else:
        _register(arr, Segment(nbytes, name=path))
        weakref.finalize(arr, _drop_ref, path, os.getpid())
    return arr
