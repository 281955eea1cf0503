"""Utilities outside the tensor API (torchlike.utils.cpp_extension, ...)."""
from . import data  # noqa: F401  (torchlike.utils.data, as torch.utils.data)
