"""NVTX ranges and marks (torch.cuda.nvtx), for Nsight Systems timelines.

They go through NVTX's header-only API compiled into the CUDA library, which
costs nothing unless a profiler has injected itself. A build without CUDA
raises, as PyTorch's does."""
import contextlib
import ctypes

__all__ = ["range_push", "range_pop", "range_start", "range_end", "mark", "range"]


def _lib():
    from torchlike import _cuda_lib
    lib = _cuda_lib.load()
    if lib is None:
        raise RuntimeError("NVTX functions not installed. Are you sure you have a CUDA build?")
    if not getattr(lib, "_tl_nvtx_typed", False):
        lib.tl_nvtx_range_push.argtypes = [ctypes.c_char_p]
        lib.tl_nvtx_range_push.restype = ctypes.c_int
        lib.tl_nvtx_range_pop.argtypes = []
        lib.tl_nvtx_range_pop.restype = ctypes.c_int
        lib.tl_nvtx_range_start.argtypes = [ctypes.c_char_p]
        lib.tl_nvtx_range_start.restype = ctypes.c_uint64
        lib.tl_nvtx_range_end.argtypes = [ctypes.c_uint64]
        lib.tl_nvtx_range_end.restype = None
        lib.tl_nvtx_mark.argtypes = [ctypes.c_char_p]
        lib.tl_nvtx_mark.restype = None
        lib._tl_nvtx_typed = True
    return lib


def _msg(msg):
    if not isinstance(msg, str):
        raise TypeError(f"nvtx: msg must be str, not {type(msg).__name__}")
    return msg.encode("utf-8")


def range_push(msg):
    """Pushes a nested range; returns its depth (zero-based)."""
    return _lib().tl_nvtx_range_push(_msg(msg))


def range_pop():
    """Pops the innermost range; returns the depth it ended at."""
    return _lib().tl_nvtx_range_pop()


def range_start(msg):
    """Starts a range that may end on another thread; returns its id."""
    return _lib().tl_nvtx_range_start(_msg(msg))


def range_end(range_id):
    _lib().tl_nvtx_range_end(int(range_id))


def mark(msg):
    """An instantaneous event."""
    _lib().tl_nvtx_mark(_msg(msg))


@contextlib.contextmanager
def range(msg, *args, **kwargs):
    """Context manager: a range named msg.format(*args, **kwargs)."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
