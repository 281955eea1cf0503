"""cudaProfilerStart/Stop (torch.cuda.profiler): brackets the region an
external CUDA profiler (Nsight Systems with --capture-range=cudaProfilerApi)
records."""
import contextlib
import ctypes

__all__ = ["init", "start", "stop", "profile"]

DEFAULT_FLAGS = ["gpustarttimestamp", "gpuendtimestamp", "gridsize3d", "threadblocksize", "streamid",
                 "enableonstart 0", "conckerneltrace"]


def _lib():
    from torchlike.cuda import _lazy_init
    _lazy_init()
    from torchlike import _cuda_lib
    lib = _cuda_lib.load()
    lib.tl_cuda_profiler_start.restype = ctypes.c_int
    lib.tl_cuda_profiler_stop.restype = ctypes.c_int
    return lib


def init(output_file, flags=None, output_mode="key_value"):
    raise RuntimeError("torch.cuda.profiler.init is not supported with CUDA 12 and later (CUDA's "
                       "command-line profiler was removed); use Nsight Systems")


def start():
    from torchlike.cuda import check_error
    check_error(_lib().tl_cuda_profiler_start())


def stop():
    from torchlike.cuda import check_error
    check_error(_lib().tl_cuda_profiler_stop())


@contextlib.contextmanager
def profile():
    try:
        start()
        yield
    finally:
        stop()
