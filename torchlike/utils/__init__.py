"""Utilities outside the tensor API (torchlike.utils.cpp_extension, ...)."""
from torchlike.utils import data  # noqa: E402,F401  torchlike.utils.data
