"""Printing tensors the way PyTorch does."""


def _str(t):
    return f"tensor({t.tolist()})"
