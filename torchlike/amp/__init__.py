"""torchlike.amp: automatic mixed precision (PyTorch's torch.amp)."""
from torchlike.amp.autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available"]

from torchlike.amp.grad_scaler import GradScaler, OptState  # noqa: E402

__all__.append("GradScaler")
