"""Utilities outside the tensor API (torchlike.utils.cpp_extension, ...)."""
from torchlike.utils.summary import summary  # noqa: F401
