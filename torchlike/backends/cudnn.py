"""torchlike.backends.cudnn: cuDNN's switches, as PyTorch's.

The flags are plain module attributes with PyTorch's defaults (enabled=True,
benchmark=False, deterministic=False, allow_tf32=True), so scripts that set
`torchlike.backends.cudnn.benchmark = True` run unchanged; CUDA kernels read
them when the CUDA backend exists. is_available() and version() load NVIDIA's
cuDNN through the CUDA backend; without a GPU or cuDNN they give False and
None, as a CPU-only PyTorch.
"""
import contextlib
import sys
import types

from torchlike import _C

benchmark_limit = 10
fp32_precision = "none"
depthwise_kernel = "auto"

# enabled / benchmark / deterministic / allow_tf32 live in the C++ core's
# GlobalContext, where the CUDA convolution reads them; the module's class
# turns attribute reads and writes of those names into the core's flags.
_CORE_FLAGS = {"enabled": "cudnn_enabled", "benchmark": "cudnn_benchmark",
               "deterministic": "cudnn_deterministic", "allow_tf32": "cudnn_allow_tf32"}


class _CudnnModule(types.ModuleType):
    def __getattr__(self, name):
        if name in _CORE_FLAGS:
            return _C._global_get(_CORE_FLAGS[name])
        raise AttributeError(f"module '{__name__}' has no attribute '{name}'")

    def __setattr__(self, name, value):
        if name in _CORE_FLAGS:
            _C._global_set(_CORE_FLAGS[name], bool(value))
        else:
            super().__setattr__(name, value)


sys.modules[__name__].__class__ = _CudnnModule


def _loaded_version():
    # The CUDA backend loads NVIDIA's cuDNN (pip install nvidia-cudnn-cu13) on
    # demand; 0 when there is no backend, no GPU or no cuDNN.
    from torchlike import _cuda_lib
    import torchlike
    lib = _cuda_lib.load()
    fn = getattr(lib, "tl_cuda_cudnn_version", None) if lib is not None else None
    if fn is None or not torchlike.cuda.is_available():
        return 0
    import ctypes
    fn.restype = ctypes.c_longlong
    fn.argtypes = []
    return int(fn())


def is_available():
    """True when cuDNN can be used: a CUDA device and NVIDIA's cuDNN 9 wheel (or system library)."""
    return _loaded_version() > 0


def version():
    """cuDNN's version as an int, or None when it cannot be loaded."""
    return _loaded_version() or None


def is_acceptable(tensor):
    """Whether cuDNN would take this tensor: only CUDA floating tensors, and only with cuDNN present."""
    return bool(_C._global_get("cudnn_enabled") and is_available() and tensor.device.type == "cuda"
                and tensor.dtype.is_floating_point)


_FLAGS = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32", "fp32_precision",
          "depthwise_kernel")


def _get(k):
    return _C._global_get(_CORE_FLAGS[k]) if k in _CORE_FLAGS else globals()[k]


def _get_flags():
    return {k: _get(k) for k in _FLAGS}


def set_flags(_enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None, _allow_tf32=None,
              _fp32_precision="none", _depthwise_kernel=None):
    """Sets the given flags (None leaves one alone) and returns the previous values as a tuple."""
    orig = tuple(_get(k) for k in _FLAGS)
    mod = sys.modules[__name__]
    for k, v in zip(_FLAGS, (_enabled, _benchmark, _benchmark_limit, _deterministic, _allow_tf32,
                            _fp32_precision, _depthwise_kernel)):
        if v is not None:
            setattr(mod, k, v)
    return orig


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True,
          fp32_precision="none", depthwise_kernel="auto"):
    """Sets the flags inside a `with` block (PyTorch's defaults as arguments) and restores them after."""
    orig = set_flags(enabled, benchmark, benchmark_limit, deterministic, allow_tf32, fp32_precision,
                     depthwise_kernel)
    try:
        yield
    finally:
        set_flags(*orig)
