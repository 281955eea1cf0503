"""Grad modes. Each is thread-local dispatch-key exclusion in the C++ core
(the Autograd keys leave the key set), so no kernel checks a flag."""
import functools

from torchlike import _C

_VF = _C._VariableFunctions


def is_grad_enabled():
    return _VF.is_grad_enabled()


class _GradModeContext:
    """Context manager and decorator that sets grad mode for a block."""
    _enabled = True

    def __enter__(self):
        self._prev = _VF.is_grad_enabled()
        _VF._set_grad_enabled(self._enabled)
        return self

    def __exit__(self, *exc):
        _VF._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__() if not isinstance(self, set_grad_enabled) else set_grad_enabled(self._enabled):
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradModeContext):
    _enabled = False


class enable_grad(_GradModeContext):
    _enabled = True


class set_grad_enabled(_GradModeContext):
    """set_grad_enabled(mode): as a function call it sets the mode immediately
    (like PyTorch); as a context manager it restores the previous mode."""

    def __init__(self, mode):
        self._prev = _VF.is_grad_enabled()
        self._enabled = bool(mode)
        _VF._set_grad_enabled(self._enabled)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _VF._set_grad_enabled(self._prev)
        return False


class inference_mode(_GradModeContext):
    """inference_mode(mode=True): grad mode off (on for mode=False), and tensors
    allocated inside are inference tensors (Tensor.is_inference()): they never
    join a graph, and writing one in place outside inference mode raises."""

    def __init__(self, mode=True):
        self._mode = bool(mode)
        self._enabled = not self._mode  # grad mode inside the block

    def __enter__(self):
        self._prev = _VF.is_grad_enabled()
        self._prev_inference = _VF.is_inference_mode_enabled()
        _VF._set_grad_enabled(self._enabled)
        _VF._set_inference_mode(self._mode)
        return self

    def __exit__(self, *exc):
        _VF._set_inference_mode(self._prev_inference)
        _VF._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        mode = self._mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return fn(*args, **kwargs)
        return wrapper
