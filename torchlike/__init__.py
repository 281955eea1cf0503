"""torchlike: a PyTorch-compatible deep-learning framework with a C++ core.

    import torchlike as torch
"""
import ctypes as _ctypes
import os as _os



def _load_openblas():
    """OpenBLAS must be in the process before _C resolves its symbols (the rpath
    covers installed layouts; this covers editable installs and moved trees).
    The package is located without importing it: its import reads package
    metadata, which costs more than the rest of `import torchlike`."""
    import importlib.util
    spec = importlib.util.find_spec("scipy_openblas32")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("torchlike needs the scipy-openblas32 package (pip install scipy-openblas32)")
    lib_dir = _os.path.join(list(spec.submodule_search_locations)[0], "lib")
    names = sorted(n for n in _os.listdir(lib_dir) if n.startswith("libscipy_openblas") and ".so" in n)
    if not names:
        raise ImportError(f"no libscipy_openblas*.so in {lib_dir}")
    _ctypes.CDLL(_os.path.join(lib_dir, names[0]), _ctypes.RTLD_GLOBAL)


_load_openblas()

from torchlike import _C  # noqa: E402
from torchlike._C import (  # noqa: E402,F401
    Generator, bfloat16, bool, default_generator, device, dtype, float16, float32, float64, get_num_threads,
    int8, int16, int32, int64, layout, memory_format, contiguous_format, preserve_format, set_num_threads,
    strided, uint8,
)
from torchlike._tensor import Tensor, Size  # noqa: E402,F401
from torchlike import _cuda_lib  # noqa: E402
_cuda_lib.load()  # the CUDA backend, in a build that has one (registers kernels before any op runs)
from torchlike import version  # noqa: E402,F401  (after the CUDA library: version.cuda asks it)
from torchlike._op_namespace import ops  # noqa: E402,F401  (torchlike.ops.<ns>.<name>.<overload>)
from torchlike import _cuda_blas  # noqa: E402,F401  tells the CUDA backend where NVIDIA's cuBLAS wheel is

# Every generated operator function: torchlike.add, torchlike.exp, ...
for _name in dir(_C._VariableFunctions):
    if not _name.startswith("__"):
        globals()[_name] = getattr(_C._VariableFunctions, _name)

# PyTorch's dtype aliases.
half, float, double = float16, float32, float64
short, int, long = int16, int32, int64

# ---- hand-written Python API, one module per area
from torchlike._creation import *  # noqa: E402,F401,F403
from torchlike._ops import *  # noqa: E402,F401,F403
from torchlike._conv_pool import *  # noqa: E402,F401,F403  conv1d/2d/3d, max_pool*, avg_pool1d, adaptive_*_pool1d
from torchlike._shapes import broadcast_shapes  # noqa: E402,F401
from torchlike._math import tensordot, allclose, _install_methods as _install_math_methods  # noqa: E402,F401
_install_math_methods(Tensor)
from torchlike._indexing import nonzero  # noqa: E402,F401
from torchlike._nn_norm import *  # noqa: E402,F401,F403  group_norm, instance_norm, rms_norm, dropout family, bilinear
from torchlike._shape_ops import *  # noqa: E402,F401,F403
from torchlike._tensor_str import set_printoptions, get_printoptions, printoptions  # noqa: E402,F401
from torchlike.random import manual_seed, seed, initial_seed, get_rng_state, set_rng_state  # noqa: E402,F401
from torchlike import cpu  # noqa: E402,F401
from torchlike import cuda  # noqa: E402,F401
from torchlike._autocast import *  # noqa: E402,F401,F403  autocast, torchlike.amp and the torch-namespace autocast controls
from torchlike._C import Stream, Event  # noqa: E402,F401
from torchlike._dtype_info import finfo, iinfo  # noqa: E402,F401
from torchlike import autograd  # noqa: E402,F401
from torchlike import nn  # noqa: E402,F401
from torchlike._linalg_torch import *  # noqa: E402,F401,F403  (also binds torchlike.linalg)
from torchlike import accelerator, backends, testing  # noqa: E402,F401
from torchlike._nn_act_loss import *  # noqa: E402,F401,F403  nn names PyTorch also has at the top level
from torchlike import special  # noqa: E402,F401
from torchlike._aliases import *  # noqa: E402,F401,F403  aliases and thin compositions (absolute, fmax, windows, ...)
from torchlike._legacy_api import *  # noqa: E402,F401,F403  build facts, settings, deprecated forms, Tensor.new/cuda/...
from torchlike import _tensor_misc  # noqa: E402,F401  Tensor.resize / resize_as (deprecated, out of place)
from torchlike import _tensor_copy  # noqa: E402,F401  copy.deepcopy and pickle for tensors
from torchlike._einsum_misc import *  # noqa: E402,F401,F403  einsum call forms, nuclear_norm, unravel_index, grid_sampler, embedding_bag
from torchlike._statistics import *  # noqa: E402,F401,F403  histogram/histogramdd (int bins, range=), gradient
from torchlike._random_dists import *  # noqa: E402,F401,F403  normal's requires_grad= and dtype= with out=
from torchlike._unique_mode import *  # noqa: E402,F401,F403  unique, unique_consecutive (+ Tensor methods)
from torchlike.autograd.grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled  # noqa: E402,F401,E501
from torchlike._rnn import *  # noqa: E402,F401,F403  lstm/gru/rnn_tanh/rnn_relu and their *_cell ops
from torchlike.serialization import save, load  # noqa: E402,F401  (binds torchlike.serialization too)
from torchlike._privateuse1 import _register_device_module  # noqa: E402,F401  torchlike.<backend> for PrivateUse1


def set_default_dtype(d):
    _C._set_default_dtype(d)


def get_default_dtype():
    return _C._get_default_dtype()


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(t):
    return t.numel()


def is_floating_point(t):
    return t.is_floating_point()


__version__ = "0.1.0"


# Packages above the operator layer that a bare `import torchlike` need not load
# (PyTorch imports them eagerly; here they load on first attribute access, which
# keeps `import torchlike` fast). `import torchlike.optim` works as usual.
_LAZY_SUBMODULES = ("distributions", "optim", "multiprocessing", "utils", "library", "distributed", "jit",
                    "profiler", "__config__")


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        import importlib
        return importlib.import_module(f"torchlike.{name}")
    if name == "GradScaler":  # torch.GradScaler is torch.amp.GradScaler
        from torchlike.amp.grad_scaler import GradScaler
        return GradScaler
    raise AttributeError(f"module 'torchlike' has no attribute '{name}'")
from ._compile import compile  # noqa: E402,F401  (torchlike.compile: graph capture and fused pointwise kernels)
