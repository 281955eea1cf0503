"""Intel ITT (VTune) annotations. torchlike is built without ITT, so, as on a
PyTorch build without it, is_available() is False and the calls do nothing."""
from contextlib import contextmanager

__all__ = ["is_available", "range_push", "range_pop", "mark", "range"]


def is_available():
    """Whether ITT annotations reach a collector: never in torchlike."""
    return False


def range_push(msg):
    """Opens a nested ITT range (no collector: nothing is emitted)."""
    if not isinstance(msg, str):
        raise TypeError(f"range_push: msg must be a str, not {type(msg).__name__}")
    return 0


def range_pop():
    """Closes the innermost ITT range (no collector: nothing is emitted)."""
    return 0


def mark(msg):
    """An instant ITT event (no collector: nothing is emitted)."""
    if not isinstance(msg, str):
        raise TypeError(f"mark: msg must be a str, not {type(msg).__name__}")


@contextmanager
def range(msg, *args, **kwargs):
    """range_push(msg.format(*args, **kwargs)) for the block, then range_pop()."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
