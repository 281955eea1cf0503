"""set_multithreading_enabled: PyTorch's switch for the autograd engine's per-device
worker threads.

torchlike's engine runs every backward on the calling thread (as PyTorch's does for
CPU work, which is all torchlike runs), so there are no worker threads to switch; the
setting is still kept, per thread, and reported by is_multithreading_enabled(), so
that code which saves, sets and restores it behaves the same.
"""
import functools
import threading

__all__ = ["set_multithreading_enabled", "is_multithreading_enabled"]

_state = threading.local()


def is_multithreading_enabled():
    return getattr(_state, "enabled", True)


class set_multithreading_enabled:
    """Context manager (or plain call) setting whether backward may use worker threads."""

    def __init__(self, mode):
        self.prev = is_multithreading_enabled()
        self.mode = bool(mode)
        _state.enabled = self.mode

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _state.enabled = self.prev
        return False

    def clone(self):
        return self.__class__(self.mode)

    def __call__(self, fn):
        # Used as a decorator the setting applies inside fn only: undo what
        # __init__ just set.
        _state.enabled = self.prev

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper
