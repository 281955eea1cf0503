"""torchlike.nn.functional: norm (see functional.py)."""
__all__ = []
