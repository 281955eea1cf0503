"""Where the C++ headers and the core library live, for code compiled against
torchlike's C++ API (extensions, plain C++ programs). Same names and return
shapes as torch.utils.cpp_extension.

    g++ -std=c++17 prog.cpp -I<include_paths()[0]> -L<library_paths()[0]> -ltorchlike -Wl,-rpath,<...>
"""
import os

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_DEVICE_TYPES = ("cpu",)


def _check_device_type(device_type):
    if device_type not in _DEVICE_TYPES:
        raise ValueError(f"cpp_extension: device_type '{device_type}' is not supported by this build "
                         f"(supported: {', '.join(_DEVICE_TYPES)})")


def include_paths(device_type: str = "cpu", torch_include_dirs: bool = True) -> list:
    """Include directories for the C++ API: the one root that holds c10/, aten/,
    autograd/, ops/, Functions.h, TensorBody.h (the build copies them into
    torchlike/include). `#include "aten/ATen.h"` gives the whole API."""
    _check_device_type(device_type)
    if not torch_include_dirs:
        return []
    return [os.path.join(_PACKAGE_DIR, "include")]


def library_paths(device_type: str = "cpu", torch_include_dirs: bool = True) -> list:
    """Directories to pass to the linker (-L) and as rpath: the one that holds
    libtorchlike.so (the torchlike package dir, beside torchlike._C)."""
    _check_device_type(device_type)
    if not torch_include_dirs:
        return []
    return [_PACKAGE_DIR]
