"""torchlike.cuda.amp: PyTorch's deprecated CUDA spellings of torchlike.amp.
Each warns (FutureWarning, PyTorch's text) and forwards with device_type='cuda'."""
import functools
import warnings

import torchlike
from torchlike.amp import autocast_mode as _amp

__all__ = ["autocast", "custom_fwd", "custom_bwd", "amp_definitely_not_available"]


def amp_definitely_not_available():
    """True when CUDA autocast cannot run here: no CUDA device (torch_xla, which
    PyTorch also looks for, does not exist for torchlike)."""
    return not torchlike.cuda.is_available()


class autocast(_amp.autocast):
    """torchlike.cuda.amp.autocast(args...) == torchlike.amp.autocast('cuda', args...)."""

    def __init__(self, enabled: bool = True, dtype=torchlike.float16, cache_enabled: bool = True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. "
                      "Please use `torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. "
                  "Please use `torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    if fwd is None:
        return functools.partial(_amp.custom_fwd, device_type="cuda", cast_inputs=cast_inputs)
    return _amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd):
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. "
                  "Please use `torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return _amp.custom_bwd(bwd, device_type="cuda")

from torchlike.amp.grad_scaler import _CudaGradScaler as GradScaler  # noqa: E402

__all__.append("GradScaler")
