"""torchlike.nn.functional: act_loss (see functional.py)."""
__all__ = []
