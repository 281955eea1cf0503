"""Shared-memory segments that back tensor storages shared between processes.

A segment is a file mapped with mmap: an anonymous memfd under the
'file_descriptor' strategy (handed to other processes as a duplicated file
descriptor, so the kernel frees it when the last mapping goes), or a named
file in /dev/shm under 'file_system' (other processes open it by name; the
creating process unlinks it when its storage dies or at exit).

Every storage that lives in a segment is recorded here by its data pointer,
so `Tensor.is_shared()` and the pickler can tell a shared storage from a
private one. Entries hold only a weak reference to the NumPy array that owns
the mapping: the storage keeps that array (and so the mapping) alive, and when
the storage dies the entry goes with it.
"""
import itertools
import mmap
import os
import secrets
import threading
import weakref

import numpy as np

_SHM_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else None
_counter = itertools.count()
_lock = threading.Lock()
_by_ptr = {}  # (storage data pointer, pid) -> Segment

# Set in DataLoader worker processes: tensors they send are written into
# segments named with this prefix, which the receiving process unlinks as it
# maps them (one round trip fewer than passing a descriptor). Whatever is
# never received, the loader removes by prefix when it shuts its workers down.
handoff_prefix = None


class Segment:
    """One mapping: its bytes as a uint8 ndarray, and how to reach it from another process."""

    __slots__ = ("array", "nbytes", "fd", "name", "owner_pid", "handoff", "__weakref__")

    def __init__(self, array, nbytes, fd=None, name=None, owner_pid=None, handoff=False):
        self.array = weakref.ref(array)
        self.nbytes = nbytes
        self.fd = fd          # kept open by the creator under 'file_descriptor' (needed to hand it on)
        self.name = name      # path under 'file_system' and for hand-offs
        self.owner_pid = owner_pid  # the process that unlinks `name`; None: someone else does
        self.handoff = handoff  # sent once, and the receiver unlinks the name


def _register(array, seg):
    ptr = array.ctypes.data
    key = (ptr, os.getpid())

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
        if seg.name is not None and seg.owner_pid == os.getpid():
            _unlink_quietly(seg.name)

    seg.array = weakref.ref(array, forget)
    with _lock:
        _by_ptr[key] = seg
    if seg.name is not None and seg.owner_pid == os.getpid():
        # the interpreter may exit while the storage is still referenced
        weakref.finalize(seg, _unlink_quietly, seg.name).atexit = True
    return seg


def _unlink_quietly(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def lookup(ptr):
    """The live segment whose mapping starts at `ptr` in this process, or None."""
    seg = _by_ptr.get((ptr, os.getpid()))
    if seg is None or seg.array() is None:
        return None
    return seg


def _map_fd(fd, nbytes):
    # mmap refuses length 0; an empty storage still gets a (one-byte) mapping
    m = mmap.mmap(fd, max(nbytes, 1), mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    return np.frombuffer(m, dtype=np.uint8, count=nbytes)


def _anonymous_fd(nbytes):
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("torchlike_shm", os.MFD_CLOEXEC)
    else:  # an unlinked file in /dev/shm behaves the same for our purposes
        path = _fresh_path()
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        os.unlink(path)
    os.ftruncate(fd, max(nbytes, 1))
    return fd


def _fresh_path(prefix=None):
    if _SHM_DIR is None:
        raise RuntimeError("torchlike.multiprocessing: sharing by name needs /dev/shm")
    if prefix is None:
        prefix = f"torchlike_{os.getpid()}"
    return os.path.join(_SHM_DIR, f"{prefix}_{next(_counter)}_{secrets.token_hex(4)}")


def remove_prefixed(prefix):
    """Unlinks every segment name starting with `prefix` (hand-offs nobody received)."""
    if _SHM_DIR is None:
        return
    head = os.path.basename(prefix) + "_"
    try:
        names = os.listdir(_SHM_DIR)
    except OSError:
        return
    for n in names:
        if n.startswith(head):
            _unlink_quietly(os.path.join(_SHM_DIR, n))


def create(nbytes, strategy, handoff=False):
    """A new zero-filled segment of `nbytes` bytes; returns its uint8 ndarray (registered).
    handoff=True (only where handoff_prefix is set) makes a segment for one receiver."""
    if handoff:
        path = _fresh_path(handoff_prefix)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.ftruncate(fd, max(nbytes, 1))
            arr = _map_fd(fd, nbytes)
        except BaseException:
            os.close(fd)
            _unlink_quietly(path)
            raise
        os.close(fd)
        _register(arr, Segment(arr, nbytes, name=path, handoff=True))
        return arr
    if strategy == "file_descriptor":
        fd = _anonymous_fd(nbytes)
        try:
            arr = _map_fd(fd, nbytes)
        except BaseException:
            os.close(fd)
            raise
        _register(arr, Segment(arr, nbytes, fd=fd))
        return arr
    path = _fresh_path()
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.ftruncate(fd, max(nbytes, 1))
        arr = _map_fd(fd, nbytes)
    except BaseException:
        os.close(fd)
        _unlink_quietly(path)
        raise
    os.close(fd)  # the mapping outlives the descriptor
    _register(arr, Segment(arr, nbytes, name=path, owner_pid=os.getpid()))
    return arr


def attach_fd(fd, nbytes):
    """Maps a segment received as a file descriptor and closes the descriptor.

    Keeping it would let this process hand the same segment on, but a loader
    that keeps thousands of batches would run out of descriptors; a received
    tensor sent on again is copied into a fresh segment instead."""
    try:
        arr = _map_fd(fd, nbytes)
    finally:
        os.close(fd)
    _register(arr, Segment(arr, nbytes))
    return arr


def attach_name(path, nbytes, unlink=False):
    """Maps a segment received by name; `unlink` hands the name's removal to this process."""
    fd = os.open(path, os.O_RDWR)
    try:
        arr = _map_fd(fd, nbytes)
    finally:
        os.close(fd)
    if unlink:
        _unlink_quietly(path)
        _register(arr, Segment(arr, nbytes))
    else:
        _register(arr, Segment(arr, nbytes, name=path, owner_pid=None))
    return arr
