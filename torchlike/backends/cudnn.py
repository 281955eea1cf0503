"""torchlike.backends.cudnn: cuDNN's switches, as PyTorch's.

The flags are plain module attributes with PyTorch's defaults (enabled=True,
benchmark=False, deterministic=False, allow_tf32=True), so scripts that set
`torchlike.backends.cudnn.benchmark = True` run unchanged; CUDA kernels read
them when the CUDA backend exists. This build has no cuDNN: is_available()
is False and version() is None, as in a CPU-only PyTorch.
"""
import contextlib

enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True
fp32_precision = "none"
depthwise_kernel = "auto"


def is_available():
    """True when cuDNN can be used: never in a build without the CUDA backend."""
    return False


def version():
    """cuDNN's version as an int, or None when it cannot be loaded."""
    return None


def is_acceptable(tensor):
    """Whether cuDNN would take this tensor: only CUDA floating tensors, and only with cuDNN present."""
    return bool(enabled and is_available() and tensor.device.type == "cuda"
                and tensor.dtype.is_floating_point)


_FLAGS = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32", "fp32_precision",
          "depthwise_kernel")


def _get_flags():
    g = globals()
    return {k: g[k] for k in _FLAGS}


def set_flags(_enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None, _allow_tf32=None,
              _fp32_precision="none", _depthwise_kernel=None):
    """Sets the given flags (None leaves one alone) and returns the previous values as a tuple."""
    g = globals()
    orig = tuple(g[k] for k in _FLAGS)
    for k, v in zip(_FLAGS, (_enabled, _benchmark, _benchmark_limit, _deterministic, _allow_tf32,
                            _fp32_precision, _depthwise_kernel)):
        if v is not None:
            g[k] = v
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
