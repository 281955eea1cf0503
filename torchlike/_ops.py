"""Operator aliases and conveniences written in Python over the generated operators."""
__all__ = []
