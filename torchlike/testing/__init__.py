"""torchlike.testing: assert_close and make_tensor, as PyTorch's torch.testing."""
from torchlike.testing._comparison import assert_allclose, assert_close  # noqa: F401
from torchlike.testing._creation import make_tensor  # noqa: F401

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
