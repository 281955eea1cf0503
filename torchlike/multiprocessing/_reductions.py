"""How torchlike tensors cross process boundaries: through shared memory.

Pickling a tensor with multiprocessing's ForkingPickler (every Queue, Pipe and
Process argument goes through it) first moves the tensor's storage into a
shared segment, in place, as `share_memory_()` does; the pickle then carries
only the way to reach the segment plus the tensor's geometry. The receiving
process maps the same pages, so writes on either side are seen by the other.
"""
import multiprocessing.reduction as _mpr

import numpy as np

import torchlike
from torchlike.multiprocessing import _shm

_strategy = "file_descriptor"
_STRATEGIES = ("file_descriptor", "file_system")

# How a pickled tensor names its segment.
_BY_FD, _BY_NAME, _BY_HANDOFF = 0, 1, 2


def _storage_bytes(t):
    """The whole of t's storage as a flat uint8 NumPy array (no copy)."""
    nbytes = t._storage_nbytes()
    if nbytes == 0:
        return np.empty(0, dtype=np.uint8)
    item = t.element_size()
    whole = t.detach().as_strided((nbytes // item,), (1,), 0)
    return whole.view(torchlike.uint8).numpy()


def _tensor_over(buf, dtype, size, stride, offset):
    """A tensor (not a view) of `dtype` over the uint8 array `buf`, sharing its memory."""
    flat = torchlike.from_numpy(buf)
    if dtype != torchlike.uint8:
        flat = flat.view(dtype)
    out = torchlike.empty(0, dtype=dtype)
    with torchlike.no_grad():
        out.set_(flat, offset, size, stride)
    return out


def share_storage_(t, handoff=False):
    """Moves t's storage into a new shared segment in place: every tensor that
    views the storage (t's views and bases included) now reads the segment."""
    src = _storage_bytes(t)
    dst = _shm.create(src.size, _strategy, handoff=handoff)
    if src.size:
        np.copyto(dst, src)
    # after the swap, `holder` owns the old private buffer and frees it with itself
    holder = torchlike.from_numpy(dst)
    t._swap_storage_(holder)
    return t


def shared_empty(size, dtype):
    """A new contiguous tensor with uninitialised values whose storage is shared (a
    loan inside a DataLoader worker, perhaps a recycled one): collating straight
    into it saves a copy when it is sent."""
    n = 1
    for s in size:
        n *= s
    item = torchlike.empty(0, dtype=dtype).element_size()
    buf = _shm.create(n * item, _strategy, handoff=_shm.handoff_prefix is not None, recycle=True)
    stride, acc = [], 1
    for s in reversed(size):
        stride.append(acc)
        acc *= max(s, 1)
    return _tensor_over(buf, dtype, tuple(size), tuple(reversed(stride)), 0)


def segment_of(t):
    if t.device.type != "cpu":
        return None
    return _shm.lookup(t._storage_ptr())


def is_shared(self):
    return segment_of(self) is not None


def share_memory_(self):
    if self.device.type == "cpu" and segment_of(self) is None:
        share_storage_(self)
    return self


def _dtype_name(dtype):
    # The name, not the dtype object: dtypes pickle as a bare global name, which
    # pickle resolves by scanning every module in sys.modules (milliseconds per
    # tensor once a large library is imported).
    return str(dtype).rpartition(".")[2]


def _rebuild(cls, how, key, nbytes, dtype_name, size, stride, offset, requires_grad):
    dtype = getattr(torchlike, dtype_name)
    if how == _BY_FD:
        buf = _shm.attach_fd(key.detach(), nbytes)
    else:
        buf = _shm.attach_name(key, nbytes, handoff=(how == _BY_HANDOFF))
    t = _tensor_over(buf, dtype, size, stride, offset)
    if cls is not torchlike.Tensor:
        return torchlike.Tensor._make_subclass(cls, t, requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


def reduce_tensor(t):
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does not support "
            "crossing process boundaries.  If you just want to transfer the data, call detach() on the tensor "
            "before serializing (e.g., putting it on the queue).")
    if t.device.type != "cpu":
        raise RuntimeError(f"torchlike.multiprocessing: sharing {t.device.type} tensors between processes is not "
                           "supported; move the tensor to the CPU first")
    seg = segment_of(t)
    handoff = _shm.handoff_prefix is not None
    # A segment this process cannot hand on (received, or a hand-off already
    # sent) is copied into a new one, as is a private storage.
    if seg is None or (seg.fd is None and seg.name is None) or (seg.handoff and not handoff):
        share_storage_(t, handoff=handoff)
        seg = segment_of(t)
    if seg.handoff:
        how, key = _BY_HANDOFF, seg.name
        _shm.note_lent(seg)
    elif seg.fd is not None:
        how, key = _BY_FD, _mpr.DupFd(seg.fd)
    else:
        how, key = _BY_NAME, seg.name
        _shm.adjust_refs(seg.name, +1)  # the message's own reference, taken over by its receiver
    return _rebuild, (type(t), how, key, seg.nbytes, _dtype_name(t.dtype), tuple(t.shape), tuple(t.stride()),
                      t.storage_offset(), t.requires_grad)


def init_reductions():
    """Makes multiprocessing's pickler send every torchlike tensor (subclasses such as
    Parameter included) through shared memory. Idempotent.

    The pickler's dispatch table is keyed by exact type, so it would miss
    subclasses defined later; a reducer_override sees every object first."""
    pickler = _mpr.ForkingPickler
    if getattr(pickler, "_torchlike_override", False):
        return
    previous = getattr(pickler, "reducer_override", None)

    def reducer_override(self, obj):
        if isinstance(obj, torchlike.Tensor):
            return reduce_tensor(obj)
        if previous is not None:
            return previous(self, obj)
        return NotImplemented

    pickler.reducer_override = reducer_override
    pickler._torchlike_override = True
