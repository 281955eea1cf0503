"""torchlike.nn.functional: conv_pool (see functional.py)."""
__all__ = []
