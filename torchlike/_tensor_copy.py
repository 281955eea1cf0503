"""copy.deepcopy and pickle for tensors.

deepcopy keeps what the user sees of a leaf: its values, dtype, requires_grad, its
.grad and its Python attributes, and two tensors that shared storage before the copy
share one new storage after it (the memo is keyed by storage, so a model whose
parameters are views of one flat buffer stays that way). Only leaves can be copied:
a copy of a graph node would silently cut it from its graph.

pickle carries the values by value (as NumPy bytes); torchlike.save has its own
storage-sharing zip format on top of this.
"""
from torchlike import _C
from torchlike._tensor import Tensor

_NON_LEAF_DEEPCOPY = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
    "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
    "because of a torch.nn.utils.weight_norm usage, see "
    "https://github.com/pytorch/pytorch/pull/103001")


def _as_subclass(cls, data, requires_grad):
    """data's storage as an object of the Tensor subclass cls, a leaf with the given
    requires_grad (PyTorch's Tensor._make_subclass(cls, data, require_grad))."""
    t = Tensor._make_subclass(cls, data)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _whole_storage(t):
    """A 1-D tensor over all of t's storage (offset 0), so a copy can keep views."""
    import torchlike
    n = t._storage_nbytes() // t.element_size()
    return torchlike.empty(0, dtype=t.dtype, device=t.device).set_(t).as_strided((n,), (1,), 0)


def _deepcopy(self, memo):
    if not self.is_leaf:
        raise RuntimeError(_NON_LEAF_DEEPCOPY)
    if id(self) in memo:
        return memo[id(self)]
    import copy
    import torchlike
    with torchlike.no_grad():
        key = ("torchlike.storage", self.device.type, self._storage_ptr()) if self._storage_ptr() else None
        if key is not None and self._storage_nbytes() > 0:
            storage = memo.get(key)
            if storage is None:
                storage = _whole_storage(self).clone()
                memo[key] = storage
            data = storage.as_strided(self.shape, self.stride(), self.storage_offset())
        else:
            data = self.clone()
    new = _rebuild_like(self, data)
    if self.grad is not None:
        new.grad = copy.deepcopy(self.grad, memo)
    extra = getattr(self, "__dict__", None)
    if extra:
        new.__dict__.update(copy.deepcopy(extra, memo))
    memo[id(self)] = new
    return new


def _rebuild_like(src, data):
    """data as a tensor of src's Python class, with src's requires_grad."""
    cls = type(src)
    if cls is Tensor:
        return data.requires_grad_(src.requires_grad) if src.requires_grad else data
    rebuild = getattr(cls, "_rebuild_from_data", None)
    if rebuild is not None:
        return rebuild(data, src.requires_grad)
    return _as_subclass(cls, data, src.requires_grad)


# dtype -> (NumPy dtype name carried in the pickle, torchlike dtype to view it back as)
def _numpy_payload(t):
    import torchlike
    t = t.detach().contiguous()
    if t.dtype == torchlike.bfloat16:
        return t.view(torchlike.int16).numpy().copy(), "bfloat16"
    return t.numpy().copy(), str(t.dtype).rsplit(".", 1)[-1]


def _rebuild_tensor(cls, array, dtype_name, requires_grad, attrs):
    import torchlike
    data = torchlike.from_numpy(array)
    if dtype_name == "bfloat16":
        data = data.view(torchlike.bfloat16)
    if cls is Tensor:
        t = data.requires_grad_(requires_grad) if requires_grad else data
    else:
        rebuild = getattr(cls, "_rebuild_from_data", None)
        t = rebuild(data, requires_grad) if rebuild is not None else _as_subclass(cls, data, requires_grad)
    if attrs:
        t.__dict__.update(attrs)
    return t


def _reduce_ex(self, protocol):
    if self.device.type != "cpu":
        return self.cpu().__reduce_ex__(protocol)
    array, dtype_name = _numpy_payload(self)
    attrs = dict(getattr(self, "__dict__", {}) or {})
    return (_rebuild_tensor, (type(self), array, dtype_name, self.requires_grad, attrs))


Tensor.__deepcopy__ = _deepcopy
Tensor.__reduce_ex__ = _reduce_ex



# Plain pickle of a dtype: by name through a function. The dtype objects have no
# __module__, so pickle's default (a bare global name) makes it search every loaded
# module for each one; torchlike.save spells dtypes as torch.<name> itself.
def _dtype_by_name(name):
    import torchlike
    return getattr(torchlike, name)


def _reduce_dtype(dtype):
    return (_dtype_by_name, (str(dtype).rpartition(".")[2],))


def _share_memory_(self):
    """Moves this tensor's storage into shared memory (in place; views follow), so
    torchlike.multiprocessing hands it to other processes without copying."""
    from torchlike.multiprocessing import _reductions
    return _reductions.share_memory_(self)


def _is_shared(self):
    """Whether this tensor's storage lives in shared memory."""
    from torchlike.multiprocessing import _reductions
    return _reductions.is_shared(self)


import copyreg  # noqa: E402

copyreg.pickle(_C.dtype, _reduce_dtype)
Tensor.share_memory_ = _share_memory_
Tensor.is_shared = _is_shared
