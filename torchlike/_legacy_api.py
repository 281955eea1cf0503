"""Small public names of the torch namespace and the Tensor class that are not
operators: build facts (has_lapack, ...), process settings (flush-denormal,
anomaly mode), deprecated-but-public forms (range, set_default_tensor_type,
Tensor.new, the removed linalg methods that now only raise) and the
conversions asarray / Tensor.cuda / pin_memory. Each behaves as PyTorch 2.13's
does on a CPU-only build, errors included."""
import builtins as _builtins
import math as _math
import warnings as _warnings

from torchlike import _C
from torchlike._tensor import Tensor

_VF = _C._VariableFunctions

__all__ = [
    "range", "has_lapack", "has_mkl", "has_openmp", "init_num_threads", "set_flush_denormal", "is_distributed",
    "OutOfMemoryError", "is_anomaly_enabled", "set_anomaly_enabled", "is_anomaly_check_nan_enabled",
    "set_default_tensor_type", "asarray", "get_device_module",
]

# ---- build facts: LAPACK comes from scipy-openblas32, the intra-op pool is OpenMP, there is no MKL.
has_lapack = True
has_mkl = False
has_openmp = True


def init_num_threads():
    """Initialises the intra-op thread count from the environment, as PyTorch does at the
    start of a worker thread; torchlike's count is process-wide, so this re-applies it."""
    _C.set_num_threads(_C.get_num_threads())


set_flush_denormal = _C.set_flush_denormal


def is_distributed(input):
    """Whether `input` is a distributed tensor; torchlike's tensors never are."""
    if not isinstance(input, Tensor):
        raise TypeError(f"is_distributed(): argument 'input' must be Tensor, not {type(input).__name__}")
    return False


class OutOfMemoryError(RuntimeError):
    """Raised when a device allocation fails (torch.OutOfMemoryError, also torch.cuda.OutOfMemoryError)."""


# ---- anomaly mode, the torch-level switches (torchlike.autograd holds the context managers)
def is_anomaly_enabled():
    return _VF._is_anomaly_enabled()


def is_anomaly_check_nan_enabled():
    return _VF._is_anomaly_check_nan()


def set_anomaly_enabled(enabled, check_nan=True):
    _VF._set_anomaly_enabled(_builtins.bool(enabled))
    _VF._set_anomaly_check_nan(_builtins.bool(check_nan))


# ---- deprecated creation
def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """range(start=0, end, step=1): values start, start+step, ... up to and including end
    (deprecated in PyTorch in favour of arange, which excludes end)."""
    _warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                   "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                   "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    vals = []
    for name, v in (("start", start), ("end", end), ("step", step)):
        if isinstance(v, Tensor):
            v = v.item()
        if not isinstance(v, (int, float)):
            raise TypeError(f"range(): argument '{name}' must be Number, not {type(v).__name__}")
        vals.append(v)
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (_math.isfinite(start) and _math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        dtype = _C._get_default_dtype()
    n = int(_math.floor((end - start) / step)) + 1
    # Each value is start + i * step computed in double, as PyTorch's kernel does.
    result = (_VF.arange(n, dtype=_C.float64, device=device) * step + start).to(dtype)
    if out is not None:
        if tuple(out.shape) != tuple(result.shape):
            raise RuntimeError(f"range: out has shape {tuple(out.shape)}, expected {tuple(result.shape)}")
        out.copy_(result)
        result = out
    if requires_grad:
        result.requires_grad_(True)
    return result


_LEGACY_TENSOR_TYPES = {
    "FloatTensor": _C.float32, "DoubleTensor": _C.float64, "HalfTensor": _C.float16, "BFloat16Tensor": _C.bfloat16,
    "LongTensor": _C.int64, "IntTensor": _C.int32, "ShortTensor": _C.int16, "CharTensor": _C.int8,
    "ByteTensor": _C.uint8, "BoolTensor": _C.bool,
}


def set_default_tensor_type(t):
    """Deprecated: sets the default floating dtype from a legacy type name such as
    'torch.DoubleTensor' (CUDA type names need a CUDA device)."""
    _warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                   "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning,
                   stacklevel=2)
    name = t if isinstance(t, str) else getattr(t, "__name__", None)
    if not isinstance(name, str):
        raise TypeError(f"invalid type: {t!r}")
    parts = name.split(".")
    if parts[0] in ("torch", "torchlike"):
        parts = parts[1:]
    if len(parts) == 2 and parts[0] == "cuda":
        raise TypeError(f"type {name} not available. Torch not compiled with CUDA enabled.")
    if len(parts) != 1 or parts[0] not in _LEGACY_TENSOR_TYPES:
        raise TypeError(f"invalid type: '{name}'")
    dtype = _LEGACY_TENSOR_TYPES[parts[0]]
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _C._set_default_dtype(dtype)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """Converts obj to a tensor, sharing memory with tensors and NumPy arrays (and objects
    with __array_interface__) when dtype and device allow it; copy=True always copies,
    copy=False raises where sharing is impossible."""
    import numpy as np

    result = None
    if isinstance(obj, Tensor):
        result = obj
    elif isinstance(obj, np.ndarray) or hasattr(obj, "__array_interface__"):
        arr = np.asarray(obj)
        if arr.dtype.kind in "biuf" and arr.dtype.isnative and arr.dtype != np.uint16 and arr.dtype.itemsize <= 8 \
                and arr.dtype not in (np.uint32, np.uint64):
            result = _VF.from_numpy(arr)
    elif isinstance(obj, (bytes, bytearray, memoryview)):
        if copy is False and dtype is None:
            raise ValueError("can't alias a Python buffer without a dtype")
    if result is not None:
        same = (dtype is None or result.dtype == dtype) and (device is None or result.device == _C.device(device))
        if copy is False and not same:
            target = dtype if dtype is not None else device
            raise ValueError(f"can't alias tensor with dtype '{result.dtype}' into '{target}'.")
        if copy or not same:
            result = result.to(device=device, dtype=dtype, copy=True) if copy else result.to(device=device,
                                                                                               dtype=dtype)
    else:
        if copy is False:
            raise ValueError(f"can't alias an object of type {type(obj).__name__}: it has no memory to share")
        result = _VF.tensor(obj, dtype=dtype, device=device)
    if requires_grad:
        if result is obj:
            result = result.detach() if result.requires_grad else result
        result.requires_grad_(True)
    return result


def get_device_module(device=None):
    """The torchlike.<device type> module for a device, a device string, or (None) the current
    accelerator, falling back to torchlike.cpu."""
    import importlib
    if device is None:
        from torchlike import accelerator
        acc = accelerator.current_accelerator()
        name = acc.type if acc is not None else "cpu"
    elif isinstance(device, _C.device):
        name = device.type
    elif isinstance(device, str):
        name = _C.device(device).type
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    try:
        return importlib.import_module(f"torchlike.{name}")
    except ModuleNotFoundError:
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered as 'torch.{name}'.")


# ---- Tensor methods
def _new(self, *args, **kwargs):
    """Legacy constructor with this tensor's dtype and device: new() is empty, new(*sizes)
    uninitialised, new(sequence) a copy of the data, new(tensor) an alias of it."""
    dtype = kwargs.pop("dtype", None) or self.dtype
    device = kwargs.pop("device", None) or self.device
    if kwargs:
        raise TypeError(f"new() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if not args:
        return _VF.empty(0, dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Tensor):
        src = args[0]
        if src.dtype != dtype:
            raise TypeError(f"expected {dtype} (got {src.dtype})")
        return src.detach()
    from torchlike._tensor import Size
    if all(isinstance(a, int) and not isinstance(a, _builtins.bool) for a in args):
        return _VF.empty(args, dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Size):
        return _VF.empty(tuple(args[0]), dtype=dtype, device=device)
    if len(args) == 1:
        return _VF.tensor(args[0], dtype=dtype, device=device)
    raise TypeError("new() received an invalid combination of arguments: expected (), (*sizes), (sequence) "
                    "or (Tensor)")


def _is_pinned(self, device=None):
    """True when the tensor's memory is page-locked by the CUDA backend."""
    return _C._cuda_is_pinned(self)


def _pin_memory(self, device=None):
    """A copy in page-locked host memory (self when already pinned), from the
    CUDA backend's pinned-memory cache."""
    from torchlike import accelerator
    if not accelerator.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if not _C._device_count("cuda"):
        raise RuntimeError("pin_memory: pinned host memory needs the CUDA backend, and no CUDA device is available")
    return _C._cuda_pin_memory(self)


def _cuda(self, device=None, non_blocking=False, memory_format=_C.preserve_format):
    from torchlike import cuda
    if not cuda.is_available():
        raise AssertionError("Torch not compiled with CUDA enabled")
    target = "cuda" if device is None else (f"cuda:{device}" if isinstance(device, int) else device)
    return self.to(target, non_blocking=non_blocking, memory_format=memory_format)


def _dim_order(self, *, ambiguity_check=False):
    """Dimensions from outermost to innermost in memory: by decreasing stride, ties kept
    in dimension order (PyTorch's rule). ambiguity_check=True raises where sizes of 1 or
    equal strides make more than one order valid."""
    if not isinstance(ambiguity_check, (_builtins.bool, list)):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    strides = self.stride()
    order = sorted(_builtins.range(self.dim()), key=lambda d: -strides[d])
    if ambiguity_check is True:
        sizes = self.shape
        if any(s == 1 for s in sizes) or len(set(strides)) != len(strides):
            raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the "
                               "given memory formats.")
    return tuple(order)


def _const_data_ptr(self):
    return self.data_ptr()


def _to_dense(self, dtype=None, *, masked_grad=None):
    return self if dtype is None or dtype == self.dtype else self.to(dtype)


def _is_shared(self):
    """Whether the storage lives in shared memory (torchlike.multiprocessing's sharing)."""
    return False


def _volatile_get(self):
    _warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
    return False


def _volatile_set(self, value):
    _warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                   UserWarning, stacklevel=2)


def _reinforce(self, reward):
    raise RuntimeError("reinforce() was removed.\nUse torch.distributions instead.\n"
                       "See https://pytorch.org/docs/main/distributions.html\n\n"
                       "Instead of:\n\nprobs = policy_network(state)\naction = probs.multinomial()\nnext_state, "
                       "reward = env.step(action)\naction.reinforce(reward)\naction.backward()\n\nUse:\n\n"
                       "probs = policy_network(state)\n# NOTE: categorical is equivalent to what used to be called "
                       "multinomial\nm = torch.distributions.Categorical(probs)\naction = m.sample()\nnext_state, "
                       "reward = env.step(action)\nloss = -m.log_prob(action) * reward\nloss.backward()\n")


def _removed(name, replacement, detail):
    def method(self, *args, **kwargs):
        raise RuntimeError(f"This function was deprecated since version 1.9 and is now removed. {detail} "
                           f"Please use the `{replacement}` function instead.")
    method.__name__ = name
    method.__doc__ = f"Removed in PyTorch 1.9: use {replacement}. Raises RuntimeError, as PyTorch does."
    return method


def _elementwise_python(self, fn, others, name):
    """Runs a Python callable over every element (CPU only, as PyTorch's apply_/map_/map2_),
    writing the results back in place, in memory order of a broadcast iteration."""
    import numpy as np
    if self.device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")
    if self.requires_grad and _C._VariableFunctions.is_grad_enabled():
        raise RuntimeError(f"{name}(): a leaf Variable that requires grad is being used in an in-place operation.")
    dst = self.detach().numpy()
    srcs = []
    for o in others:
        if not isinstance(o, Tensor):
            raise TypeError(f"{name}(): argument 'tensor' must be Tensor, not {type(o).__name__}")
        if o.dtype != self.dtype:
            raise TypeError(f"{name}(): expected {self.dtype} tensor, got {o.dtype}")
        srcs.append(np.broadcast_to(o.detach().numpy(), dst.shape))
    py = bool if self.dtype == _C.bool else (float if self.is_floating_point() else int)
    for idx in np.ndindex(*dst.shape):
        dst[idx] = fn(py(dst[idx]), *(py(s[idx]) for s in srcs))
    return self


def _apply_(self, callable):
    return _elementwise_python(self, callable, (), "apply_")


def _map_(self, tensor, callable):
    return _elementwise_python(self, callable, (tensor,), "map_")


def _map2_(self, x, y, callable):
    return _elementwise_python(self, callable, (x, y), "map2_")


def _install_methods():
    T = Tensor
    T.new = _new
    T.is_pinned = _is_pinned
    T.pin_memory = _pin_memory
    T.cuda = _cuda
    T.dim_order = _dim_order
    T.const_data_ptr = _const_data_ptr
    T.to_dense = _to_dense
    T.is_shared = _is_shared
    T.is_distributed = lambda self: False
    T.volatile = property(_volatile_get, _volatile_set)
    T.reinforce = _reinforce
    T.eig = _removed("eig", "torch.linalg.eig",
                     "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real "
                     "tensors mimicking complex tensors.")
    T.lstsq = _removed("lstsq", "torch.linalg.lstsq", "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.")
    T.solve = _removed("solve", "torch.linalg.solve", "`torch.solve` is deprecated in favor of `torch.linalg.solve`.")
    T.symeig = _removed("symeig", "torch.linalg.eigh",
                        "The default behavior has changed from using the upper triangular portion of the matrix by "
                        "default to using the lower triangular portion.")
    T.apply_ = _apply_
    T.map_ = _map_
    T.map2_ = _map2_


_install_methods()
