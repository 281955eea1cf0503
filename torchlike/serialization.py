"""torchlike.save / torchlike.load in PyTorch's checkpoint format.

A checkpoint is a zip archive (stored, never compressed) under one top
directory ``<archive>/``:

* ``data.pkl``: the pickled object; each tensor is a call of
  ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...)`` whose
  storage is a *persistent id* ``('storage', torch.FloatStorage, key, 'cpu', numel)``;
* ``data/<key>``: the bytes of that storage, once per storage, so tensors that
  view one buffer still share it after loading; the record starts on a
  64-byte boundary, which makes mmap loading zero-copy;
* ``byteorder``, ``version``, ``.format_version``, ``.storage_alignment`` and
  ``.data/serialization_id``: small text records.

Globals are written under PyTorch's names so that PyTorch reads the files, and
read back into torchlike objects whether PyTorch is installed or not.
"""
import contextlib
import ctypes
import enum
import io
import mmap as _mmap
import os
import pickle
import struct
import sys
import threading
import warnings
import zlib
from collections import OrderedDict

import torchlike
from torchlike import _weights_only_unpickler as _wo
from torchlike._weights_only_unpickler import (  # noqa: F401  (public names of this module)
    add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals,
)

__all__ = [
    "SourceChangeWarning", "mkdtemp", "register_package", "check_module_version_greater_or_equal",
    "validate_cuda_device", "validate_hpu_device", "location_tag", "default_restore_location",
    "normalize_storage_type", "storage_to_tensor_type", "save", "load", "StorageType", "LoadEndianness",
    "get_crc32_options", "set_crc32_options", "get_default_load_endianness", "set_default_load_endianness",
    "get_default_mmap_options", "set_default_mmap_options", "clear_safe_globals", "get_safe_globals",
    "add_safe_globals", "safe_globals", "get_unsafe_globals_in_checkpoint", "skip_data",
]

DEFAULT_PROTOCOL = 2
_ALIGNMENT = 64
_FORMAT_VERSION = b"3\n"

# PyTorch's legacy typed-storage class names, as checkpoints spell them.
_STORAGE_DTYPES = {
    "FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16",
    "BFloat16Storage": "bfloat16", "LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16",
    "CharStorage": "int8", "ByteStorage": "uint8", "BoolStorage": "bool",
}
_STORAGE_NAME_OF_DTYPE = {dtype_name: storage for storage, dtype_name in _STORAGE_DTYPES.items()}


class SourceChangeWarning(Warning):
    """Warned when the source of a pickled module class differs from the current one."""


@contextlib.contextmanager
def mkdtemp():
    """A temporary directory, removed with everything in it when the block ends."""
    import tempfile
    path = tempfile.mkdtemp()
    try:
        yield path
    finally:
        import shutil
        shutil.rmtree(path, ignore_errors=True)


def check_module_version_greater_or_equal(module, req_version_tuple, error_if_malformed=True):
    """Whether module.__version__ is at least req_version_tuple (compared
    component-wise over the leading numeric parts)."""
    text = str(module.__version__)
    parts = text.split(".")
    try:
        numbers = []
        for part, wanted in zip(parts, req_version_tuple):
            digits = ""
            for ch in part:
                if not ch.isdigit():
                    break
                digits += ch
            numbers.append(type(wanted)(digits))
        return tuple(numbers) >= tuple(req_version_tuple)
    except (ValueError, TypeError) as exc:
        message = (f"'{module.__name__}' module version string is malformed '{text}' and cannot be compared "
                   f"with tuple {tuple(req_version_tuple)}")
        if error_if_malformed:
            raise RuntimeError(message) from exc
        warnings.warn(message + ", but continuing assuming that requirement is met")
        return True


# ---------------------------------------------------------------------------
# settings

_settings = threading.local()


def _setting(name, default):
    return getattr(_settings, name, default)


_crc32_enabled = True
_default_mmap_flags = _mmap.MAP_PRIVATE


def get_crc32_options():
    """Whether save computes a CRC-32 for each record (True by default)."""
    return _crc32_enabled


def set_crc32_options(compute_crc32):
    """Turn the CRC-32 of saved records on or off (off stores 0, which load
    then does not check)."""
    global _crc32_enabled
    _crc32_enabled = bool(compute_crc32)


def get_default_mmap_options():
    """The mmap flags load(mmap=True) uses: mmap.MAP_PRIVATE (default) or MAP_SHARED."""
    return _default_mmap_flags


class set_default_mmap_options:
    """Set the flags of load(mmap=True); works as a call or a with block
    (which restores the previous flags). MAP_SHARED writes tensor changes
    through to the file; MAP_PRIVATE keeps them in copy-on-write pages."""

    def __init__(self, flags):
        global _default_mmap_flags
        if flags not in (_mmap.MAP_PRIVATE, _mmap.MAP_SHARED):
            raise ValueError("Invalid argument in function set_default_mmap_options, expected mmap.MAP_PRIVATE or "
                             f"mmap.MAP_SHARED, but got {flags}")
        self._previous = _default_mmap_flags
        _default_mmap_flags = flags

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        global _default_mmap_flags
        _default_mmap_flags = self._previous


class LoadEndianness(enum.Enum):
    NATIVE = 1
    LITTLE = 2
    BIG = 3


_default_load_endianness = None


def get_default_load_endianness():
    """The byte order assumed for checkpoints without a byteorder record (None: native)."""
    return _default_load_endianness


def set_default_load_endianness(endianness):
    """Set the byte order assumed for checkpoints without a byteorder record."""
    global _default_load_endianness
    if endianness is not None and not isinstance(endianness, LoadEndianness):
        raise TypeError("Invalid argument type in function set_default_load_endianness")
    _default_load_endianness = endianness


class skip_data:
    """Within this block, save writes every record at its full size but leaves
    storage bytes unwritten (zeros), and load builds tensors over uninitialized
    storage without reading it: the layout of a checkpoint without its data."""

    def __init__(self, materialize_fake_tensors=False):
        # torchlike has no fake tensors, so there is nothing to materialize.
        self.materialize_fake_tensors = materialize_fake_tensors
        self._previous = None

    def __enter__(self):
        self._previous = _setting("skip_data", False)
        _settings.skip_data = True
        return self

    def __exit__(self, *exc):
        _settings.skip_data = self._previous


# ---------------------------------------------------------------------------
# storages


class StorageType:
    """A legacy typed-storage name (FloatStorage, ...) read from a checkpoint:
    it tells the dtype of the storage bytes."""

    def __init__(self, name):
        if name not in _STORAGE_DTYPES:
            raise KeyError(f"unknown storage type {name!r}")
        self._name = name
        self.dtype = getattr(torchlike, _STORAGE_DTYPES[name])

    def __repr__(self):
        return f"StorageType(dtype={self.dtype})"

    def __eq__(self, other):
        return isinstance(other, StorageType) and other._name == self._name

    def __hash__(self):
        return hash(self._name)


_STORAGE_TYPES = {name: StorageType(name) for name in _STORAGE_DTYPES}


class CheckpointStorage:
    """The storage of tensors being loaded, as map_location callables and
    register_package deserializers receive it: one typed, 1-D tensor over the
    whole buffer. Moving it (cpu/cuda/to) returns a new CheckpointStorage."""

    __slots__ = ("_tensor",)

    def __init__(self, flat):
        self._tensor = flat

    @property
    def device(self):
        return self._tensor.device

    @property
    def dtype(self):
        return self._tensor.dtype

    @property
    def is_cuda(self):
        return self._tensor.device.type == "cuda"

    def size(self):
        return self._tensor.numel()

    def __len__(self):
        return self._tensor.numel()

    def nbytes(self):
        return self._tensor.numel() * self._tensor.element_size()

    def element_size(self):
        return self._tensor.element_size()

    def data_ptr(self):
        return self._tensor.data_ptr()

    def to(self, device=None, non_blocking=False):
        if device is None:
            return self
        return CheckpointStorage(self._tensor.to(device, non_blocking=non_blocking))

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None, non_blocking=False):
        target = "cuda" if device is None else (f"cuda:{device}" if isinstance(device, int) else device)
        return self.to(target, non_blocking=non_blocking)

    def tolist(self):
        return self._tensor.tolist()

    def __repr__(self):
        return f"CheckpointStorage(dtype={self.dtype}, device={self.device}) of size {self.size()}"


def normalize_storage_type(storage_type):
    """The StorageType for a storage type name or StorageType."""
    if isinstance(storage_type, StorageType):
        return storage_type
    return StorageType(getattr(storage_type, "__name__", storage_type))


def storage_to_tensor_type(storage):
    """The legacy tensor type name (torch.FloatTensor, ...) of a storage's dtype."""
    dtype = storage.dtype
    legacy = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
              "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor",
              "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor"}
    name = legacy[str(dtype).split(".")[-1]]
    prefix = "torch.cuda." if storage.device.type == "cuda" else "torch."
    return prefix + name


# Device packages: (priority, tagger, deserializer), lowest priority first.
_packages = []


def register_package(priority, tagger, deserializer):
    """Teach save/load a device: tagger(storage) returns its location string
    (or None if not its device); deserializer(storage, location) returns the
    storage moved there (or None if the location is not its own)."""
    entry = (priority, tagger, deserializer)
    _packages.append(entry)
    _packages.sort(key=lambda e: e[0])


def _cpu_tag(storage):
    return "cpu" if storage.device.type == "cpu" else None


def _cpu_restore(storage, location):
    if location == "cpu":
        return storage if storage.device.type == "cpu" else storage.cpu()
    return None


def _device_index(location):
    _, _, index = location.partition(":")
    return int(index) if index else 0


def validate_cuda_device(location):
    """The CUDA device index a location names, if that device exists here."""
    index = location if isinstance(location, int) else _device_index(str(location))
    if not torchlike.cuda.is_available():
        raise RuntimeError("Attempting to deserialize object on a CUDA device but torchlike.cuda.is_available() is "
                           "False. If you are running on a CPU-only machine, please use torchlike.load with "
                           "map_location=torchlike.device('cpu') to map your storages to the CPU.")
    count = torchlike.cuda.device_count()
    if index >= count:
        raise RuntimeError(f"Attempting to deserialize object on CUDA device {index} but "
                           f"torchlike.cuda.device_count() is {count}. Please use torchlike.load with map_location "
                           "to map your storages to an existing device.")
    return index


def validate_hpu_device(location):
    """torchlike has no HPU backend, so no HPU location can be restored."""
    raise RuntimeError("The HPU device module is not registered. If you are running on a CPU-only machine, please "
                       "use torchlike.load with map_location=torchlike.device('cpu') to map your storages to the "
                       "CPU.")


def _cuda_tag(storage):
    if storage.device.type == "cuda":
        return f"cuda:{storage.device.index or 0}"
    return None


def _cuda_restore(storage, location):
    if location.startswith("cuda"):
        index = validate_cuda_device(location)
        return storage.to(f"cuda:{index}")
    return None


def _meta_tag(storage):
    return "meta" if storage.device.type == "meta" else None


def _meta_restore(storage, location):
    if location == "meta":
        return storage.to("meta")
    return None


register_package(10, _cpu_tag, _cpu_restore)
register_package(20, _cuda_tag, _cuda_restore)
register_package(30, _meta_tag, _meta_restore)


def _as_storage(obj):
    if isinstance(obj, torchlike.Tensor):
        return CheckpointStorage(obj)
    return obj


def location_tag(storage):
    """The location string save records for a storage (or a tensor's storage)."""
    storage = _as_storage(storage)
    for _, tagger, _ in _packages:
        tag = tagger(storage)
        if tag is not None:
            return tag
    raise RuntimeError(f"don't know how to determine data location of {type(storage).__name__}")


def default_restore_location(storage, location):
    """Move a loaded storage to `location` with the first package that knows it."""
    for _, _, deserializer in _packages:
        result = deserializer(storage, location)
        if result is not None:
            return result
    raise RuntimeError(f"don't know how to restore data location of {type(storage).__module__}."
                       f"{type(storage).__name__} (tagged with {location})")


# ---------------------------------------------------------------------------
# rebuilding tensors (the globals data.pkl calls)


def _check_view_in_bounds(numel, offset, size, stride):
    if offset < 0 or any(s < 0 for s in size) or any(st < 0 for st in stride) or len(size) != len(stride):
        raise RuntimeError(f"checkpoint describes an invalid tensor view: offset {offset}, size {tuple(size)}, "
                           f"stride {tuple(stride)}")
    if any(s == 0 for s in size):
        return
    last = offset + sum((s - 1) * st for s, st in zip(size, stride))
    if last >= numel:
        raise RuntimeError(f"checkpoint describes a tensor view (offset {offset}, size {tuple(size)}, stride "
                           f"{tuple(stride)}) past the end of its storage of {numel} elements: the file is "
                           "corrupted")


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                       metadata=None):
    if isinstance(storage, _LegacySlot):
        result = storage.placeholder((int(storage_offset), tuple(int(s) for s in size),
                                      tuple(int(s) for s in stride)))
        return result.requires_grad_(True) if requires_grad else result
    if not isinstance(storage, CheckpointStorage):
        raise pickle.UnpicklingError(f"_rebuild_tensor_v2 expects a checkpoint storage, got {type(storage).__name__}")
    flat = storage._tensor
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    _check_view_in_bounds(flat.numel(), int(storage_offset), size, stride)
    result = torchlike.empty(0, dtype=flat.dtype, device=flat.device)
    result.set_(flat, int(storage_offset), size, stride)
    if requires_grad:
        result.requires_grad_(True)
    return result


def _rebuild_parameter(data, requires_grad, backward_hooks):
    return torchlike.nn.Parameter(data, requires_grad)


def _restore_state(obj, state):
    if not state:
        return obj
    if hasattr(obj, "__setstate__") and not isinstance(state, dict):
        obj.__setstate__(state)
        return obj
    if isinstance(state, tuple) and len(state) == 2:
        dict_state, slot_state = state
    else:
        dict_state, slot_state = state, None
    for key, value in (dict_state or {}).items():
        setattr(obj, key, value)
    for key, value in (slot_state or {}).items():
        setattr(obj, key, value)
    return obj


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _restore_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    result = func(*args)
    if new_type is not torchlike.Tensor and isinstance(new_type, type) and type(result) is not new_type:
        if not issubclass(new_type, torchlike.Tensor):
            raise pickle.UnpicklingError(f"cannot rebuild a tensor as {new_type!r}, which is not a Tensor subclass")
        result = torchlike.Tensor._make_subclass(new_type, result, result.requires_grad)
    return _restore_state(result, state)


# ---------------------------------------------------------------------------
# saving


class _GlobalName:
    """Stands for a global that the pickle names without torchlike having it
    (torch._utils._rebuild_tensor_v2, torch.device, ...)."""
    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):
        # Only ever written into a pickle (pickle requires reduce functions
        # to be callable); loading resolves the name to the real function.
        raise TypeError(f"{self.module}.{self.name} is resolved when a checkpoint is loaded, not called here")


_REBUILD_TENSOR = _GlobalName("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _GlobalName("torch._utils", "_rebuild_parameter")
_REBUILD_PARAMETER_STATE = _GlobalName("torch._utils", "_rebuild_parameter_with_state")
_REBUILD_FROM_TYPE = _GlobalName("torch._tensor", "_rebuild_from_type_v2")
_TORCH_TENSOR = _GlobalName("torch", "Tensor")
_TORCH_DEVICE = _GlobalName("torch", "device")
_TORCH_SIZE = _GlobalName("torch", "Size")


class _SavedStorage:
    """One storage to be written as data/<key>: `flat` is a 1-D tensor over all
    of its bytes (kept alive until the record is written)."""
    __slots__ = ("key", "flat", "dtype", "location", "ptr", "nbytes")


def _storage_name(dtype):
    short = str(dtype).split(".")[-1]
    name = _STORAGE_NAME_OF_DTYPE.get(short)
    if name is None:
        raise pickle.PicklingError(f"cannot save tensors of dtype {dtype}")
    return name


class _StorageTable:
    """Assigns storage keys "0", "1", ... in the order tensors reach the
    pickler; tensors over the same buffer get the same key."""

    def __init__(self):
        self.by_identity = {}
        self.in_order = []

    def entry_for(self, tensor):
        nbytes = tensor._storage_nbytes()
        ptr = tensor._storage_ptr()
        if tensor.device.type == "meta":
            raise pickle.PicklingError("cannot save a tensor on the meta device: it has no data")
        identity = (tensor.device.type, tensor.device.index, ptr) if nbytes else None
        entry = self.by_identity.get(identity) if identity is not None else None
        if entry is not None:
            if entry.dtype != tensor.dtype:
                raise RuntimeError("Cannot save multiple tensors or storages that view the same data as "
                                   "different types")
            return entry
        entry = _SavedStorage()
        entry.key = str(len(self.in_order))
        entry.dtype = tensor.dtype
        entry.location = location_tag(tensor)
        itemsize = tensor.element_size()
        with torchlike.no_grad():
            flat = tensor.detach().as_strided((nbytes // itemsize,), (1,), 0)
        if flat.device.type != "cpu":
            flat = flat.cpu()
        entry.flat = flat
        entry.ptr = flat._storage_ptr() if flat.device.type == "cpu" else ptr
        entry.nbytes = (nbytes // itemsize) * itemsize
        self.in_order.append(entry)
        if identity is not None:
            self.by_identity[identity] = entry
        return entry


def _reduce_tensor(tensor, storages, symbols):
    """(callable, args) that rebuild `tensor` the way PyTorch's files do; the
    callables come from `symbols` (placeholders or torchlike's functions,
    depending on the pickler)."""
    if isinstance(tensor, torchlike.nn.Parameter):
        data = tensor.detach()
        state = dict(getattr(tensor, "__dict__", None) or {})
        if state:
            return (symbols["parameter_with_state"], (data, tensor.requires_grad, OrderedDict(), state))
        return (symbols["parameter"], (data, tensor.requires_grad, OrderedDict()))
    entry = storages.entry_for(tensor)
    args = (entry, tensor.storage_offset(), tuple(tensor.shape), tuple(tensor.stride()), tensor.requires_grad,
            OrderedDict())
    state = getattr(tensor, "__dict__", None)
    if type(tensor) is torchlike.Tensor and not state:
        return (symbols["tensor"], args)
    # A subclass, or attributes set on the tensor: PyTorch's files rebuild the
    # plain tensor, then retype it and restore its __dict__.
    new_type = symbols["Tensor"] if type(tensor) is torchlike.Tensor else type(tensor)
    return (symbols["from_type"], (symbols["tensor"], new_type, args, dict(state or {})))


def _storage_pid(entry, storage_type):
    numel = entry.nbytes // entry.flat.element_size()
    return ("storage", storage_type, entry.key, entry.location, numel)


_PLACEHOLDERS = {"tensor": _REBUILD_TENSOR, "parameter": _REBUILD_PARAMETER,
                 "parameter_with_state": _REBUILD_PARAMETER_STATE, "from_type": _REBUILD_FROM_TYPE,
                 "Tensor": _TORCH_TENSOR}


def _pickler_class(base):
    """A Pickler on top of a pure-Python pickler class, which writes PyTorch's
    global names directly (it owns save_global). Works for every protocol and
    any pickle_module whose Pickler is written in Python."""

    class CheckpointPickler(base):
        def __init__(self, file, protocol, storages):
            super().__init__(file, protocol)
            self._storages = storages

        def persistent_id(self, obj):
            if isinstance(obj, _SavedStorage):
                return _storage_pid(obj, StorageType(_storage_name(obj.dtype)))
            return None

        def reducer_override(self, obj):
            if isinstance(obj, (_GlobalName, StorageType, torchlike.dtype)):
                return "global"  # spelled by save_global below
            if isinstance(obj, torchlike.Tensor):
                return _reduce_tensor(obj, self._storages, _PLACEHOLDERS)
            if isinstance(obj, torchlike.device):
                args = (obj.type,) if obj.index is None else (obj.type, obj.index)
                return (_TORCH_DEVICE, args)
            if isinstance(obj, torchlike.Size):
                return (_TORCH_SIZE, (tuple(obj),))
            return NotImplemented

        def save_global(self, obj, name=None):
            if isinstance(obj, _GlobalName):
                module, qualname = obj.module, obj.name
            elif isinstance(obj, StorageType):
                module, qualname = "torch", obj._name
            elif isinstance(obj, torchlike.dtype):
                module, qualname = "torch", str(obj).split(".")[-1]
            else:
                return super().save_global(obj, name)
            if self.proto >= 4:
                self.save(module)
                self.save(qualname)
                self.write(pickle.STACK_GLOBAL)
            else:
                self.write(pickle.GLOBAL + module.encode("utf-8") + b"\n" + qualname.encode("utf-8") + b"\n")
            self.memoize(obj)

    return CheckpointPickler


# The fast path: the C pickler writes torchlike's own (importable) globals,
# and their GLOBAL opcodes are then renamed to PyTorch's. A GLOBAL opcode is
# plain text ("c<module>\n<name>\n") and pickles hold no byte offsets (below
# protocol 4, which adds frames), so a rename is a byte replacement; it is
# done only when each renamed opcode occurs exactly once (the pickler memoizes
# globals), which rules out touching a user's string that happens to contain
# the same bytes.
_FAST_SYMBOLS = {"tensor": _rebuild_tensor_v2, "parameter": _rebuild_parameter,
                 "parameter_with_state": _rebuild_parameter_with_state, "from_type": _rebuild_from_type_v2,
                 "Tensor": torchlike.Tensor}
_FAST_RENAMES = {
    "tensor": (f"{__name__}\n_rebuild_tensor_v2", "torch._utils\n_rebuild_tensor_v2"),
    "parameter": (f"{__name__}\n_rebuild_parameter", "torch._utils\n_rebuild_parameter"),
    "parameter_with_state": (f"{__name__}\n_rebuild_parameter_with_state",
                             "torch._utils\n_rebuild_parameter_with_state"),
    "from_type": (f"{__name__}\n_rebuild_from_type_v2", "torch._tensor\n_rebuild_from_type_v2"),
    "Tensor": (f"{torchlike.Tensor.__module__}\nTensor", "torch\nTensor"),
    "device": (f"{torchlike.device.__module__}\ndevice", "torch\ndevice"),
    "Size": (f"{torchlike.Size.__module__}\nSize", "torch\nSize"),
}


def _module_alias(prefix, name, value):
    """Expose value as this module's attribute prefix+name, so that the C
    pickler finds it here (and nowhere else) when it looks the name up."""
    attr = f"{prefix}{name}"
    if globals().get(attr) is not value:
        globals()[attr] = value
    return attr


class _FastPickler(pickle.Pickler):
    def __init__(self, file, protocol, storages):
        super().__init__(file, protocol)
        self._storages = storages
        self.used = set()

    def persistent_id(self, obj):
        if type(obj) is _SavedStorage:
            name = _storage_name(obj.dtype)
            self.used.add(("storage", name))
            return _storage_pid(obj, _STORAGE_TYPES[name])
        return None

    def reducer_override(self, obj):
        if isinstance(obj, torchlike.Tensor):
            reduced = _reduce_tensor(obj, self._storages, _FAST_SYMBOLS)
            func = reduced[0]
            if func is _rebuild_from_type_v2:
                self.used.update(("from_type", "tensor"))
                if reduced[1][1] is torchlike.Tensor:
                    self.used.add("Tensor")
            else:
                self.used.add(next(key for key, symbol in _FAST_SYMBOLS.items() if symbol is func))
            return reduced
        if isinstance(obj, StorageType):
            return _module_alias("_storage_", obj._name, obj)
        if isinstance(obj, torchlike.dtype):
            name = str(obj).split(".")[-1]
            self.used.add(("dtype", name))
            return _module_alias("_dtype_", name, obj)
        if isinstance(obj, torchlike.device):
            self.used.add("device")
            return (torchlike.device, (obj.type,) if obj.index is None else (obj.type, obj.index))
        if isinstance(obj, torchlike.Size):
            self.used.add("Size")
            return (torchlike.Size, (tuple(obj),))
        return NotImplemented


def _fast_renames(used):
    for key in used:
        if isinstance(key, tuple):
            kind, name = key
            yield f"{__name__}\n_{kind}_{name}", f"torch\n{name}"
        else:
            yield _FAST_RENAMES[key]


def _pickle_fast(obj, protocol):
    storages = _StorageTable()
    out = io.BytesIO()
    pickler = _FastPickler(out, protocol, storages)
    pickler.dump(obj)
    data = out.getvalue()
    for ours, theirs in _fast_renames(pickler.used):
        ours = b"c" + ours.encode() + b"\n"
        if data.count(ours) != 1:
            return None  # ambiguous: let the pure-Python pickler do it
        data = data.replace(ours, b"c" + theirs.encode() + b"\n")
    return data, storages.in_order


def _pickle_checkpoint(obj, pickle_module, protocol):
    if pickle_module is pickle and protocol <= 3:
        fast = _pickle_fast(obj, protocol)
        if fast is not None:
            return fast
    base = getattr(pickle_module, "_Pickler", None) or pickle_module.Pickler
    if not hasattr(base, "save_global"):
        raise TypeError(f"pickle_module {pickle_module.__name__} has no pure-Python Pickler to extend")
    storages = _StorageTable()
    out = io.BytesIO()
    _pickler_class(base)(out, protocol, storages).dump(obj)
    return out.getvalue(), storages.in_order


def _dos_date_1980():
    return (0 << 9) | (1 << 5) | 1  # 1980-01-01, the earliest date a zip entry can carry


class _ZipRecordWriter:
    """Writes an uncompressed zip whose record contents start on 64-byte
    boundaries: the local header's extra field is padded with an "FB" block
    (PyTorch's choice of id) to reach the boundary."""

    def __init__(self, out):
        self.out = out
        self.position = 0
        self.entries = []

    def _write(self, data):
        self.out.write(data)
        self.position += len(data)

    def add(self, name, data, crc=None, skip=False):
        """Write one record; `data` is bytes or a memoryview (written without copying)."""
        encoded = name.encode("utf-8")
        size = len(data) if not isinstance(data, int) else data
        if crc is None:
            crc = zlib.crc32(data) if (_crc32_enabled and not skip) else 0
        zip64 = size >= 0xFFFFFFFF
        extra64 = struct.pack("<HHQQ", 1, 16, size, size) if zip64 else b""
        header_len = 30 + len(encoded) + len(extra64)
        pad = (-(self.position + header_len + 4)) % _ALIGNMENT
        padding = struct.pack("<HH", 0x4246, pad) + b"Z" * pad  # "FB"
        small = 0xFFFFFFFF if zip64 else size
        header = struct.pack("<IHHHHHIIIHH", 0x04034B50, 45 if zip64 else 20, 0x0800, 0, 0, _dos_date_1980(),
                             crc, small, small, len(encoded), len(extra64) + len(padding))
        offset = self.position
        self._write(header + encoded + extra64 + padding)
        if skip:
            self._skip(size)
        else:
            self._write(data)
        self.entries.append((encoded, crc, size, offset))

    def _skip(self, size):
        # Leave the bytes unwritten: seek over them where possible (a hole reads
        # as zeros), else write zeros.
        try:
            self.out.seek(size, os.SEEK_CUR)
            self.position += size
        except (AttributeError, OSError, io.UnsupportedOperation):
            zeros = bytes(min(size, 1 << 20))
            left = size
            while left:
                chunk = zeros[:min(left, len(zeros))]
                self._write(chunk)
                left -= len(chunk)

    def finish(self):
        directory_start = self.position
        for encoded, crc, size, offset in self.entries:
            fields = []
            if size >= 0xFFFFFFFF:
                fields += [size, size]
            if offset >= 0xFFFFFFFF:
                fields.append(offset)
            extra = struct.pack("<HH", 1, 8 * len(fields)) + struct.pack(f"<{len(fields)}Q", *fields) if fields else b""
            self._write(struct.pack(
                "<IHHHHHHIIIHHHHHII", 0x02014B50, 45 if fields else 20, 45 if fields else 20, 0x0800, 0, 0,
                _dos_date_1980(), crc, min(size, 0xFFFFFFFF), min(size, 0xFFFFFFFF), len(encoded), len(extra), 0, 0,
                0, 0, min(offset, 0xFFFFFFFF)) + encoded + extra)
        directory_size = self.position - directory_start
        count = len(self.entries)
        if count >= 0xFFFF or directory_start >= 0xFFFFFFFF or directory_size >= 0xFFFFFFFF:
            end64 = self.position
            self._write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, count, count, directory_size,
                                    directory_start))
            self._write(struct.pack("<IIQI", 0x07064B50, 0, end64, 1))
        self._write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(count, 0xFFFF), min(count, 0xFFFF),
                                min(directory_size, 0xFFFFFFFF), min(directory_start, 0xFFFFFFFF), 0))


def _storage_bytes(entry):
    if entry.nbytes == 0:
        return b""
    return memoryview((ctypes.c_char * entry.nbytes).from_address(entry.ptr)).cast("B")


def _write_checkpoint(out, archive, pickled, storages, disable_byteorder):
    writer = _ZipRecordWriter(out)
    skip = _setting("skip_data", False)
    writer.add(f"{archive}/data.pkl", pickled)
    writer.add(f"{archive}/.format_version", b"1")
    writer.add(f"{archive}/.storage_alignment", str(_ALIGNMENT).encode())
    if not disable_byteorder:
        writer.add(f"{archive}/byteorder", sys.byteorder.encode())
    for entry in storages:
        if skip:
            writer.add(f"{archive}/data/{entry.key}", entry.nbytes, crc=0, skip=True)
        else:
            writer.add(f"{archive}/data/{entry.key}", _storage_bytes(entry))
    writer.add(f"{archive}/version", _FORMAT_VERSION)
    import secrets
    writer.add(f"{archive}/.data/serialization_id", f"{secrets.randbelow(10 ** 40):040d}".encode())
    writer.finish()


def _is_path(f):
    return isinstance(f, (str, os.PathLike))


def _archive_name(path):
    base = os.path.basename(os.fspath(path))
    if isinstance(base, bytes):
        base = base.decode("utf-8", "replace")
    return os.path.splitext(base)[0] or "archive"


def _atomic_write(path, write_fn):
    """Write through a temporary file in the target's directory, then rename it
    over the target: an interrupted save leaves any previous file intact."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    import tempfile
    fd, temp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            write_fn(out)
            out.flush()
            os.fsync(out.fileno())
        try:
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save obj to a path or a writable binary file object, in PyTorch's zip
    checkpoint format (or its legacy format with
    _use_new_zipfile_serialization=False)."""
    if not _is_path(f) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    if _use_new_zipfile_serialization:
        pickled, storages = _pickle_checkpoint(obj, pickle_module, pickle_protocol)
        archive = _archive_name(f) if _is_path(f) else "archive"

        def write(out):
            _write_checkpoint(out, archive, pickled, storages, _disable_byteorder_record)
    else:
        def write(out):
            _write_legacy(obj, out, pickle_module, pickle_protocol)
    if _is_path(f):
        _atomic_write(f, write)
    else:
        write(f)


# ---------------------------------------------------------------------------
# the legacy (pre-1.6) format: a sequence of pickles, then raw storages

_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
_LEGACY_PROTOCOL_VERSION = 1001


def _write_legacy(obj, out, pickle_module, protocol):
    pickled, storages = _pickle_checkpoint(obj, pickle_module, protocol)
    pickled = _legacy_persistent_ids(pickled)
    header = io.BytesIO()
    for item in (_LEGACY_MAGIC, _LEGACY_PROTOCOL_VERSION,
                 dict(protocol_version=_LEGACY_PROTOCOL_VERSION, little_endian=sys.byteorder == "little",
                      type_sizes=dict(short=2, int=4, long=4))):
        pickle.dump(item, header, protocol=protocol)
    out.write(header.getvalue())
    out.write(pickled)
    pickle.dump([e.key for e in storages], out, protocol=protocol)
    for entry in storages:
        itemsize = entry.flat.element_size()
        out.write(struct.pack("<q", entry.nbytes // itemsize))
        out.write(_storage_bytes(entry))


def _legacy_persistent_ids(pickled):
    """The legacy format's persistent ids carry a sixth field (view metadata,
    None here). Each id is a 5-tuple closed by a TUPLE opcode just before its
    BINPERSID (ids are fresh tuples, never memo hits): a NONE inserted before
    that TUPLE makes it a 6-tuple. Protocol 4 frames, whose lengths the
    insertion would break, are dropped (they are optional)."""
    import pickletools
    ops = list(pickletools.genops(pickled))
    edits = []  # (position, bytes to drop, bytes to insert)
    for i, (op, _arg, pos) in enumerate(ops):
        if op.name == "FRAME":
            edits.append((pos, 9, b""))
        elif op.name == "BINPERSID":
            j = i - 1
            while j >= 0 and ops[j][0].name in ("BINPUT", "LONG_BINPUT", "PUT", "MEMOIZE"):
                j -= 1
            if ops[j][0].name != "TUPLE":
                raise pickle.PicklingError("unexpected persistent id layout in the legacy writer")
            edits.append((ops[j][2], 0, pickle.NONE))
    out = io.BytesIO()
    last = 0
    for pos, drop, insert in sorted(edits):
        out.write(pickled[last:pos])
        out.write(insert)
        last = pos + drop
    out.write(pickled[last:])
    return out.getvalue()


# ---------------------------------------------------------------------------
# loading


class _RecordReader:
    """Finds the records of a checkpoint zip and reads their bytes at their
    file offsets (records are stored uncompressed)."""

    def __init__(self, fobj, description):
        import zipfile
        self.fobj = fobj
        self.description = description
        try:
            self.zip = zipfile.ZipFile(fobj)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, struct.error) as exc:
            raise RuntimeError(f"{description}: failed reading zip archive: failed finding central directory ("
                               f"{exc}). The checkpoint file is truncated or corrupted: it was not saved "
                               "completely, was transferred incorrectly, or was modified after saving.") from None
        names = self.zip.namelist()
        pkl = [n for n in names if n.endswith("data.pkl") and n.count("/") == 1]
        if not pkl:
            raise RuntimeError(f"{description}: zip archive has no <archive>/data.pkl record: not a checkpoint "
                               "written by torchlike.save or torch.save")
        self.prefix = pkl[0][:-len("data.pkl")]
        self.infos = {info.filename: info for info in self.zip.infolist()}
        fobj.seek(0, os.SEEK_END)
        self.file_size = fobj.tell()

    def has(self, name):
        return self.prefix + name in self.infos

    def _info(self, name):
        info = self.infos.get(self.prefix + name)
        if info is None:
            raise RuntimeError(f"{self.description}: checkpoint has no record {self.prefix + name}: the file is "
                               "truncated or corrupted")
        return info

    def data_offset(self, name):
        info = self._info(name)
        if info.compress_type != 0:
            return None, info
        self.fobj.seek(info.header_offset)
        header = self.fobj.read(30)
        if len(header) != 30 or header[:4] != b"PK\x03\x04":
            raise RuntimeError(f"{self.description}: bad local header for record {info.filename}: the file is "
                               "corrupted")
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        offset = info.header_offset + 30 + name_len + extra_len
        if offset + info.file_size > self.file_size:
            raise RuntimeError(f"{self.description}: record {info.filename} is truncated: it needs bytes up to "
                               f"{offset + info.file_size} but the file has {self.file_size}")
        return offset, info

    def _check_crc(self, info, data):
        if info.CRC and zlib.crc32(data) != info.CRC:
            raise RuntimeError(f"{self.description}: CRC-32 mismatch in record {info.filename}: the file is "
                               "corrupted")

    def read_small(self, name):
        offset, info = self.data_offset(name)
        if offset is None:
            data = self.zip.read(info.filename)
        else:
            self.fobj.seek(offset)
            data = self.fobj.read(info.file_size)
            self._check_crc(info, data)
        return data

    def read_into(self, name, nbytes, buffer_out):
        offset, info = self.data_offset(name)
        if info.file_size < nbytes:
            raise RuntimeError(f"{self.description}: record {info.filename} holds {info.file_size} bytes but its "
                               f"storage needs {nbytes}: the file is corrupted")
        if offset is None:
            buffer_out[:] = _bytes_array(self.zip.read(info.filename)[:nbytes])
            return
        self.fobj.seek(offset)
        view = memoryview(buffer_out)
        got = 0
        while got < nbytes:
            n = self.fobj.readinto(view[got:nbytes])
            if not n:
                raise RuntimeError(f"{self.description}: record {info.filename} is truncated")
            got += n
        # No CRC check here: tensors loaded with mmap under MAP_SHARED write
        # into their records, which leaves the stored CRC stale by design.
        # data.pkl (read_small) is checked.


def _np():
    # NumPy is imported on first load, not with torchlike (import time).
    import numpy
    return numpy


def _byte_buffer(nbytes):
    return _np().empty(nbytes, dtype="uint8")


def _bytes_array(data):
    return _np().frombuffer(data, dtype="uint8")


def _flat_from_bytes(byte_array, dtype, swap):
    itemsize = torchlike.empty(0, dtype=dtype).element_size()
    if swap and itemsize > 1:
        byte_array.view(f"u{itemsize}").byteswap(inplace=True)
    raw = torchlike.from_numpy(byte_array)
    return raw.view(dtype) if dtype != torchlike.uint8 else raw


def _make_restorer(map_location):
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, (str, torchlike.device)):
        target = str(map_location)
        return lambda storage, location: default_restore_location(storage, target)
    if isinstance(map_location, dict):
        return lambda storage, location: default_restore_location(storage, map_location.get(location, location))
    if callable(map_location):
        def restore(storage, location):
            result = map_location(storage, location)
            return default_restore_location(storage, location) if result is None else result
        return restore
    raise TypeError(f"map_location should be a str, torchlike.device, dict or callable, got "
                    f"{type(map_location).__name__}")


def _describe(f):
    if _is_path(f):
        return f"'{os.fspath(f)}'"
    return getattr(f, "name", None) and f"'{f.name}'" or f"{type(f).__name__} object"


class _ZipLoader:
    def __init__(self, reader, restore, mapped, swap):
        self.reader = reader
        self.restore = restore
        self.mapped = mapped  # np.ndarray over the whole file (mmap=True) or None
        self.swap = swap
        self.loaded = {}
        self.skip = _setting("skip_data", False)

    def persistent_load(self, pid):
        if not isinstance(pid, tuple) or len(pid) < 5 or pid[0] != "storage":
            raise pickle.UnpicklingError(f"unsupported persistent id {pid!r} in checkpoint")
        storage_type, key, location, numel = pid[1], str(pid[2]), pid[3], pid[4]
        cached = self.loaded.get(key)
        if cached is not None:
            return cached
        if not isinstance(storage_type, StorageType):
            raise pickle.UnpicklingError(f"unsupported storage type {storage_type!r} in checkpoint")
        dtype = storage_type.dtype
        if not isinstance(numel, int) or numel < 0:
            raise pickle.UnpicklingError(f"invalid storage size {numel!r} in checkpoint")
        nbytes = numel * torchlike.empty(0, dtype=dtype).element_size()
        name = f"data/{key}"
        # Check the size against the record before allocating: a corrupt or
        # crafted data.pkl must not make load allocate what the file lacks.
        offset, info = self.reader.data_offset(name)
        if info.file_size < nbytes:
            raise RuntimeError(f"{self.reader.description}: record {info.filename} holds {info.file_size} bytes but "
                               f"its storage needs {nbytes}: the file is corrupted")
        if self.skip:
            byte_array = _byte_buffer(nbytes)
        elif self.mapped is not None:
            if offset is None:
                raise RuntimeError(f"{self.reader.description}: record {info.filename} is compressed, so it cannot "
                                   "be memory-mapped")
            byte_array = self.mapped[offset:offset + nbytes]
            if self.swap:
                byte_array = byte_array.copy()  # never byte-swap the file itself (MAP_SHARED)
        else:
            byte_array = _byte_buffer(nbytes)
            self.reader.read_into(name, nbytes, byte_array)
        storage = CheckpointStorage(_flat_from_bytes(byte_array, dtype, self.swap))
        restored = self.loaded[key] = _make_storage(self.restore, storage, location)
        return restored


def _make_storage(restore, storage, location):
    restored = restore(storage, location)
    if isinstance(restored, torchlike.Tensor):
        restored = CheckpointStorage(restored)
    if not isinstance(restored, CheckpointStorage):
        raise TypeError(f"map_location returned {type(restored).__name__}, expected the storage it was given "
                        "(moved or not)")
    return restored


def _file_byteorder(reader):
    if reader.has("byteorder"):
        text = reader.read_small("byteorder").decode().strip()
        if text not in ("little", "big"):
            raise RuntimeError(f"{reader.description}: unknown byteorder record {text!r}")
        return text
    setting = _default_load_endianness
    if setting is None or setting is LoadEndianness.NATIVE:
        return sys.byteorder
    return "little" if setting is LoadEndianness.LITTLE else "big"


def _map_file(path):
    flags = _default_mmap_flags
    with open(path, "r+b" if flags == _mmap.MAP_SHARED else "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size == 0:
            return None
        mapping = _mmap.mmap(handle.fileno(), 0, flags=flags, prot=_mmap.PROT_READ | _mmap.PROT_WRITE)
    # numpy keeps the mapping alive for as long as any tensor views it.
    return _bytes_array(mapping)


def _load_zip(fobj, description, restore, weights_only, mapped_path, unpickler_kwargs):
    reader = _RecordReader(fobj, description)
    if reader.has("version"):
        version = reader.read_small("version").strip()
        if not version.isdigit() or int(version) > 3:
            raise RuntimeError(f"{description}: checkpoint format version {version!r} is newer than this reader "
                               "supports (3)")
    swap = _file_byteorder(reader) != sys.byteorder
    mapped = _map_file(mapped_path) if mapped_path is not None else None
    loader = _ZipLoader(reader, restore, mapped, swap)
    pickled = reader.read_small("data.pkl")
    unpickler = _wo.WeightsUnpickler(io.BytesIO(pickled), loader.persistent_load, weights_only, **unpickler_kwargs)
    return unpickler.load()


def _load_legacy(fobj, description, restore, weights_only, unpickler_kwargs):
    def plain(stream):
        return _wo.WeightsUnpickler(stream, _no_persistent, True, **unpickler_kwargs).load()

    try:
        magic = plain(fobj)
    except Exception as exc:
        raise pickle.UnpicklingError(
            f"{description} is not a checkpoint: it is neither a zip archive written by torchlike.save/torch.save "
            f"nor a file in their legacy format ({type(exc).__name__}: {exc})") from None
    if magic != _LEGACY_MAGIC:
        raise pickle.UnpicklingError(f"{description} is not a checkpoint: invalid magic number; corrupt file?")
    version = plain(fobj)
    if version != _LEGACY_PROTOCOL_VERSION:
        raise RuntimeError(f"{description}: invalid protocol version {version!r} for a legacy checkpoint")
    sys_info = plain(fobj)
    little = sys_info.get("little_endian", True) if isinstance(sys_info, dict) else True
    swap = bool(little) != (sys.byteorder == "little")
    pending = {}  # key -> (dtype, location, [placeholders])

    def persistent_load(pid):
        if not isinstance(pid, tuple) or len(pid) < 5 or pid[0] != "storage":
            raise pickle.UnpicklingError(f"unsupported persistent id {pid!r} in legacy checkpoint")
        if len(pid) > 5 and pid[5] is not None:
            raise RuntimeError(f"{description}: legacy checkpoints with storage views are not supported")
        storage_type, key, location = pid[1], str(pid[2]), pid[3]
        if not isinstance(storage_type, StorageType):
            raise pickle.UnpicklingError(f"unsupported storage type {storage_type!r} in checkpoint")
        slot = pending.get(key)
        if slot is None:
            slot = pending[key] = _LegacySlot(storage_type.dtype, location)
        return slot

    # The object comes before the storage bytes: its tensors are built empty
    # over _LegacySlot placeholders and pointed at their storage afterwards.
    result = _wo.WeightsUnpickler(fobj, persistent_load, weights_only, **unpickler_kwargs).load()
    keys = plain(fobj)
    for key in keys:
        header = fobj.read(8)
        if len(header) != 8:
            raise RuntimeError(f"{description}: legacy checkpoint is truncated")
        (numel,) = struct.unpack("<q", header)
        slot = pending.get(str(key))
        dtype = slot.dtype if slot is not None else torchlike.uint8
        nbytes = numel * torchlike.empty(0, dtype=dtype).element_size()
        here = fobj.tell()
        available = fobj.seek(0, os.SEEK_END) - here
        fobj.seek(here)
        if numel < 0 or nbytes > available:
            raise RuntimeError(f"{description}: legacy checkpoint is truncated or corrupted: a storage of "
                               f"{nbytes} bytes where {available} remain")
        data = _byte_buffer(nbytes)
        if fobj.readinto(memoryview(data)) != nbytes:
            raise RuntimeError(f"{description}: legacy checkpoint is truncated")
        if slot is not None:
            storage = _make_storage(restore, CheckpointStorage(_flat_from_bytes(data, dtype, swap)), slot.location)
            slot.attach(storage)
    for slot in pending.values():
        if slot.waiting:
            raise RuntimeError(f"{description}: legacy checkpoint lacks the data of a storage it uses")
    return result


class _LegacySlot:
    """A storage of a legacy checkpoint before its bytes have been read."""
    __slots__ = ("dtype", "location", "waiting")

    def __init__(self, dtype, location):
        self.dtype, self.location, self.waiting = dtype, location, []

    def placeholder(self, view):
        tensor = torchlike.empty(0, dtype=self.dtype)
        self.waiting.append((tensor, view))
        return tensor

    def attach(self, storage):
        flat = storage._tensor
        for tensor, (offset, size, stride) in self.waiting:
            _check_view_in_bounds(flat.numel(), offset, size, stride)
            with torchlike.no_grad():
                tensor.set_(flat, offset, size, stride)
        self.waiting = []


def _no_persistent(pid):
    raise pickle.UnpicklingError("unexpected persistent id in a checkpoint header")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Load an object saved by torchlike.save or torch.save.

    weights_only (default True unless a pickle_module is given) admits only
    tensors, containers, primitive values and allow-listed globals;
    weights_only=False runs arbitrary pickled code: use it only for files you
    trust. mmap=True maps the file instead of reading it (f must be a path).
    """
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if mmap and not _is_path(f):
        raise ValueError("f must be a file path in order to use the mmap argument")
    unpickler_kwargs = {}
    if pickle_load_args:
        if weights_only:
            warnings.warn("pickle_load_args only works if `weights_only=False`.")
        else:
            unpickler_kwargs = dict(pickle_load_args)
    unpickler_kwargs.setdefault("encoding", "utf-8")
    if _setting("skip_data", False) and mmap:
        raise RuntimeError("mmap=True cannot be combined with skip_data")
    restore = _make_restorer(map_location)
    description = _describe(f)
    if _is_path(f):
        with open(f, "rb") as fobj:
            return _load_from(fobj, description, restore, weights_only, f if mmap else None, unpickler_kwargs)
    if not hasattr(f, "seek") or not hasattr(f, "read"):
        raise AttributeError(f"'{type(f).__name__}' object has no attribute 'seek'. You can only torchlike.load "
                             "from a file that is seekable. Please pre-load the data into a buffer like io.BytesIO "
                             "and try to load from it instead.")
    try:
        seekable = f.seekable() if hasattr(f, "seekable") else True
    except (OSError, ValueError):
        seekable = False
    if not seekable:
        f = io.BytesIO(f.read())
    return _load_from(f, description, restore, weights_only, None, unpickler_kwargs, f.tell())


def _load_from(fobj, description, restore, weights_only, mapped_path, unpickler_kwargs, start=0):
    try:
        fobj.seek(start)
        magic = fobj.read(4)
        fobj.seek(start)
        if magic[:2] == b"PK":
            if start:
                fobj = io.BytesIO(fobj.read())  # zip offsets are relative to the archive's start
            return _load_zip(fobj, description, restore, weights_only, mapped_path, unpickler_kwargs)
        if mapped_path is not None:
            raise RuntimeError(f"{description}: mmap can only be used with files saved in the zip format "
                               "(the default of torchlike.save and torch.save); this is a legacy checkpoint")
        return _load_legacy(fobj, description, restore, weights_only, unpickler_kwargs)
    except _wo.RefusedGlobal as exc:
        raise _with_weights_only_hint(exc) from None


def _with_weights_only_hint(exc):
    text = (
        "Weights only load failed. Re-running `torchlike.load` with `weights_only` set to `False` will likely "
        "succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted "
        "source. Alternatively, to load with `weights_only=True`, allow-list the global named below if you trust "
        f"it.\n\tWeightsUnpickler error: {exc}\n\nweights_only loading admits tensors, primitive types, "
        "dict/list/tuple/set/OrderedDict containers, torchlike.Size, dtypes, devices and the globals added with "
        "torchlike.serialization.add_safe_globals.")
    return pickle.UnpicklingError(text)


def get_unsafe_globals_in_checkpoint(f):
    """The 'module.name' globals a checkpoint names that weights_only loading
    would refuse right now (read from data.pkl's opcodes; nothing runs)."""
    description = _describe(f)
    if _is_path(f):
        with open(f, "rb") as fobj:
            pickled = _RecordReader(fobj, description).read_small("data.pkl")
    else:
        pickled = _RecordReader(f, description).read_small("data.pkl")
    unsafe = []
    for full_name in _wo.globals_named_in(pickled):
        module, _, name = full_name.rpartition(".")
        try:
            _wo.resolve_global(module, name, True)
        except pickle.UnpicklingError:
            unsafe.append(full_name)
    return unsafe
