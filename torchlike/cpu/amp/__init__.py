"""torchlike.cpu.amp: PyTorch's deprecated CPU spelling of torchlike.amp.autocast."""
import warnings

import torchlike
from torchlike.amp import autocast_mode as _amp

__all__ = ["autocast"]


class autocast(_amp.autocast):
    """torchlike.cpu.amp.autocast(args...) == torchlike.amp.autocast('cpu', args...)."""

    def __init__(self, enabled: bool = True, dtype=torchlike.bfloat16, cache_enabled: bool = True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. "
                      "Please use `torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


from torchlike.amp.grad_scaler import _CpuGradScaler as GradScaler  # noqa: E402

__all__.append("GradScaler")
