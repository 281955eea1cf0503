"""Loads the CUDA backend (libtorchlike_cuda.so) when this build has one.

The library exists only in a build made with CUDA (TORCHLIKE_CUDA=1, or
auto where nvcc and a driver were found). Loading it registers the CUDA
DeviceGuard, allocator, copy kernels, generator, hooks and every CUDA
kernel through the same registries a PrivateUse1 backend uses. It is loaded
once _C is in, with RTLD_LOCAL: RTLD_GLOBAL would also publish the core's
c10:: symbols, and a later `import torch` would bind PyTorch's own c10 to
them and crash. Its entry point `tl_cuda_init` (which
never throws) connects the runtime; with no driver or no GPU the backend
stays registered but reports zero devices, so `torchlike.cuda.is_available()`
is False, quietly.

`load_error()` says why the library is absent or could not be loaded.
"""
import ctypes
import os

_LIB_NAME = "libtorchlike_cuda.so"
_state = {"lib": None, "error": None, "tried": False}


def library_path():
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), _LIB_NAME)


def load():
    """The loaded CUDA library (a ctypes.CDLL), or None when there is none."""
    if _state["tried"]:
        return _state["lib"]
    _state["tried"] = True
    path = library_path()
    if os.environ.get("TORCHLIKE_NO_CUDA", "0") not in ("", "0"):
        _state["error"] = "TORCHLIKE_NO_CUDA is set"
        return None
    if not os.path.exists(path):
        _state["error"] = "torchlike was built without CUDA"
        return None
    try:
        lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
    except OSError as e:
        _state["error"] = f"{_LIB_NAME} could not be loaded: {e}"
        return None
    init = getattr(lib, "tl_cuda_init", None)
    if init is not None:
        init.restype = ctypes.c_int
        init.argtypes = []
        if init() != 0:
            _state["error"] = f"{_LIB_NAME}: tl_cuda_init failed"
    _state["lib"] = lib
    return lib


def load_error():
    return _state["error"]
