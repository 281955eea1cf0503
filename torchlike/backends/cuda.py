"""torchlike.backends.cuda: the CUDA backend's switches (PyTorch's
torch.backends.cuda).

* `matmul.allow_tf32`, `matmul.allow_fp16_reduced_precision_reduction`,
  `matmul.allow_bf16_reduced_precision_reduction` live in the C++ core's
  GlobalContext, where the cuBLAS kernels read them; allow_tf32 is the same
  setting as torchlike.set_float32_matmul_precision ("highest" = no TF32).
* The scaled_dot_product_attention switches (enable_flash_sdp, ...) are
  torchlike.nn.attention's, so sdpa_kernel blocks and these agree.
* is_built() says whether this torchlike has the CUDA library.
"""
import contextlib
import warnings

from torchlike import _C

__all__ = [
    "is_built", "cuBLASModule", "matmul", "cufft_plan_cache", "preferred_blas_library", "preferred_linalg_library",
    "blas_workspace_size", "cublas_workspace_size", "cublaslt_workspace_size", "SDPAParams",
    "flash_sdp_enabled", "enable_flash_sdp", "mem_efficient_sdp_enabled", "enable_mem_efficient_sdp",
    "math_sdp_enabled", "enable_math_sdp", "cudnn_sdp_enabled", "enable_cudnn_sdp",
    "allow_fp16_bf16_reduction_math_sdp", "fp16_bf16_reduction_math_sdp_allowed", "is_flash_attention_available",
    "can_use_flash_attention", "can_use_efficient_attention", "can_use_cudnn_attention", "sdp_kernel",
]


def is_built():
    """True when this torchlike was built with CUDA (whether or not a GPU is present)."""
    return _C._cuda_is_built()


class cuBLASModule:
    """torchlike.backends.cuda.matmul: cuBLAS's numerical switches."""

    _BOOL_FLAGS = ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction")

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _C._global_get("float32_matmul_precision") != 0
        if name in self._BOOL_FLAGS:
            return _C._global_get(name)
        if name == "fp32_precision":
            return "tf32" if _C._global_get("float32_matmul_precision") != 0 else "ieee"
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            from torchlike import set_float32_matmul_precision
            set_float32_matmul_precision("high" if value else "highest")
            return
        if name in self._BOOL_FLAGS:
            _C._global_set(name, bool(value))
            return
        if name == "fp32_precision":
            if value not in ("ieee", "tf32", "none"):
                raise ValueError(f"fp32_precision must be 'ieee', 'tf32' or 'none', not {value!r}")
            from torchlike import set_float32_matmul_precision
            set_float32_matmul_precision("high" if value == "tf32" else "highest")
            return
        raise AttributeError(f"Unknown attribute {name}")


matmul = cuBLASModule()


class _CuFFTPlanCache:
    """cuFFT's plan cache: torchlike has no FFT on CUDA, so it stays empty."""

    def __init__(self, device_index=None):
        self.device_index = device_index
        self.max_size = 4096

    @property
    def size(self):
        return 0

    def clear(self):
        pass

    def __getitem__(self, device):
        return _CuFFTPlanCache(device)


cufft_plan_cache = _CuFFTPlanCache()

_BLAS_LIBRARIES = ("cublas", "cublaslt", "default")
_LINALG_LIBRARIES = ("default", "cusolver", "magma")
_preferred = {"blas": "cublas", "linalg": "default"}


def preferred_blas_library(backend=None):
    """Which BLAS library CUDA matmuls prefer ("cublas" or "cublaslt"); returns the setting."""
    if backend is not None:
        if not isinstance(backend, str) or backend.lower() not in _BLAS_LIBRARIES:
            raise RuntimeError(f"Unknown input value. Choose from: {', '.join(_BLAS_LIBRARIES)}.")
        _preferred["blas"] = "cublas" if backend.lower() == "default" else backend.lower()
    return _preferred["blas"]


def preferred_linalg_library(backend=None):
    """Which library CUDA linear algebra would prefer; returns the setting."""
    if backend is not None:
        if not isinstance(backend, str) or backend.lower() not in _LINALG_LIBRARIES:
            raise RuntimeError(f"Unknown input value. Choose from: {', '.join(_LINALG_LIBRARIES)}.")
        _preferred["linalg"] = backend.lower()
    return _preferred["linalg"]


_DEFAULT_CUBLAS_WORKSPACE = 32 * 1024 * 1024  # bytes per handle on sm_90, as cuBLAS recommends


def _parse_workspace_config():
    """CUBLAS_WORKSPACE_CONFIG=":SIZE_KiB:COUNT[:...]": the total bytes it asks for, or None."""
    import os
    cfg = os.environ.get("CUBLAS_WORKSPACE_CONFIG")
    if not cfg:
        return None
    total = 0
    parts = [p for p in cfg.split(":") if p]
    for size_kib, count in zip(parts[::2], parts[1::2]):
        try:
            total += int(size_kib) * 1024 * int(count)
        except ValueError:
            return None
    return total


def cublas_workspace_size(size=None):
    """Bytes of cuBLAS workspace per handle (CUBLAS_WORKSPACE_CONFIG overrides the default)."""
    configured = _parse_workspace_config()
    return configured if configured is not None else _DEFAULT_CUBLAS_WORKSPACE


def cublaslt_workspace_size(size=None):
    """Bytes of cuBLASLt workspace (CUBLASLT_WORKSPACE_SIZE in KiB overrides it)."""
    import os
    v = os.environ.get("CUBLASLT_WORKSPACE_SIZE")
    if v:
        try:
            return int(v) * 1024
        except ValueError:
            pass
    return cublas_workspace_size()


def blas_workspace_size(size=None):
    return cublas_workspace_size(size)


# ---- scaled_dot_product_attention switches (shared with torchlike.nn.attention)

def _attention():
    from torchlike.nn import attention
    return attention


def _enabled(name):
    a = _attention()
    return getattr(a.SDPBackend, name) in a._enabled_backends()


def _enable(name, enabled):
    a = _attention()
    a._set_globally_enabled(getattr(a.SDPBackend, name), bool(enabled))


def flash_sdp_enabled():
    return _enabled("FLASH_ATTENTION")


def enable_flash_sdp(enabled):
    _enable("FLASH_ATTENTION", enabled)


def mem_efficient_sdp_enabled():
    return _enabled("EFFICIENT_ATTENTION")


def enable_mem_efficient_sdp(enabled):
    _enable("EFFICIENT_ATTENTION", enabled)


def math_sdp_enabled():
    return _enabled("MATH")


def enable_math_sdp(enabled):
    _enable("MATH", enabled)


def cudnn_sdp_enabled():
    return _enabled("CUDNN_ATTENTION")


def enable_cudnn_sdp(enabled):
    _enable("CUDNN_ATTENTION", enabled)


_math_sdp_reduced = {"allowed": False}


def allow_fp16_bf16_reduction_math_sdp(enabled):
    """Lets the math attention path reduce in float16/bfloat16 instead of float32."""
    _math_sdp_reduced["allowed"] = bool(enabled)


def fp16_bf16_reduction_math_sdp_allowed():
    return _math_sdp_reduced["allowed"]


def is_flash_attention_available():
    """A fused flash-attention kernel on CUDA: not in this build (the math path and cuDNN's are used)."""
    return False


class SDPAParams:
    """The arguments scaled_dot_product_attention would get, for the can_use_* checks."""

    def __init__(self, query, key, value, attn_mask, dropout, is_causal, enable_gqa=False):
        self.query, self.key, self.value = query, key, value
        self.attn_mask, self.dropout, self.is_causal, self.enable_gqa = attn_mask, dropout, is_causal, enable_gqa


def _why_not_fused(params, name):
    if not isinstance(params, SDPAParams):
        raise TypeError(f"{name}: expected SDPAParams, got {type(params).__name__}")
    q = params.query
    if q.device.type != "cuda":
        return "the inputs are not on a CUDA device"
    return f"{name.split('_', 2)[-1]} is not built into torchlike's CUDA backend"


def can_use_flash_attention(params, debug=False):
    """Whether the fused flash kernel could run these inputs (never here); with
    debug=True the reason is given as a warning."""
    reason = _why_not_fused(params, "can_use_flash_attention")
    if debug:
        warnings.warn(f"Flash attention cannot be used: {reason}", UserWarning, stacklevel=2)
    return False


def can_use_efficient_attention(params, debug=False):
    reason = _why_not_fused(params, "can_use_efficient_attention")
    if debug:
        warnings.warn(f"Memory efficient attention cannot be used: {reason}", UserWarning, stacklevel=2)
    return False


def can_use_cudnn_attention(params, debug=False):
    reason = _why_not_fused(params, "can_use_cudnn_attention")
    if debug:
        warnings.warn(f"cuDNN attention cannot be used: {reason}", UserWarning, stacklevel=2)
    return False


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True):
    """Deprecated: torchlike.nn.attention.sdpa_kernel with the backends whose flag is True."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will "
                  "be removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with "
                  "updated signature.", FutureWarning, stacklevel=3)
    a = _attention()
    chosen = [b for b, on in ((a.SDPBackend.FLASH_ATTENTION, enable_flash), (a.SDPBackend.MATH, enable_math),
                              (a.SDPBackend.EFFICIENT_ATTENTION, enable_mem_efficient),
                              (a.SDPBackend.CUDNN_ATTENTION, enable_cudnn)) if on]
    with (a.sdpa_kernel(chosen) if chosen else _no_backends(a)):
        yield {}


@contextlib.contextmanager
def _no_backends(a):
    prev = getattr(a._state, "enabled", None)
    a._state.enabled = ()
    try:
        yield
    finally:
        if prev is None:
            del a._state.enabled
        else:
            a._state.enabled = prev
