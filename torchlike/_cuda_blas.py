"""Where the CUDA backend looks for NVIDIA's cuBLAS wheel.

cuBLAS (and cuDNN) are not linked into libtorchlike_cuda.so: the backend
dlopens them at the first matrix product on the GPU. The C++ search looks
through Python's path entries for the `nvidia-cublas` wheel's folders, so this
module hands it `sys.path` (plus the interpreter's site-packages folders) once
the CUDA library is loaded. Nothing here touches the file system; a build
without CUDA makes this a no-op. TORCHLIKE_CUBLAS_PATH overrides the search.
"""
import os
import site
import sys

from torchlike import _cuda_lib


def nvidia_site_dirs():
    """The folders searched for NVIDIA's wheels, in order, without duplicates."""
    dirs = []
    extra = []
    try:
        extra = list(site.getsitepackages())
    except AttributeError:  # some embedded interpreters lack it
        pass
    user = getattr(site, "getusersitepackages", None)
    if user is not None:
        try:
            extra.append(user())
        except Exception:  # an unwritable home must not break import
            pass
    for d in list(sys.path) + extra:
        if d and os.pathsep not in d and d not in dirs:
            dirs.append(os.path.abspath(d))
    return dirs


def _register():
    lib = _cuda_lib.load()
    if lib is None:
        return
    setter = getattr(lib, "tl_cuda_set_nvidia_site_dirs", None)
    if setter is None:
        return
    import ctypes
    setter.argtypes = [ctypes.c_char_p]
    setter.restype = None
    setter(os.pathsep.join(nvidia_site_dirs()).encode())


_register()
