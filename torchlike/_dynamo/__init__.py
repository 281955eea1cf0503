"""PyTorch's torch._dynamo names that user code touches: `config`
(cache_size_limit, recompile_limit) and `reset()`, over torchlike.compile."""
from torchlike._compile import config, reset  # noqa: F401

__all__ = ["config", "reset"]
