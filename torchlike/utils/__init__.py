"""Utilities outside the tensor API (torchlike.utils.cpp_extension, ...)."""
