"""Creation functions written in Python on top of the generated operators."""
__all__ = []
