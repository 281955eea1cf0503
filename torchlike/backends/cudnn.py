"""torchlike.backends.cudnn: cuDNN's switches, as PyTorch's.

The flags are plain module attributes with PyTorch's defaults (enabled=True,
benchmark=False, deterministic=False, allow_tf32=True), so scripts that set
`torchlike.backends.cudnn.benchmark = True` run unchanged; CUDA kernels read
them when the CUDA backend exists. This build has no cuDNN: is_available()
is False and version() is None, as in a CPU-only PyTorch.
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


def is_available():
    """True when cuDNN can be used: never in a build without the CUDA backend."""
    return False


def version():
    """cuDNN's version as an int, or None when it cannot be loaded."""
    return None


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
