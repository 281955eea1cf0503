"""Anomaly detection: while enabled, every graph node records the Python
stack of the forward call that created it, and the engine checks each
backward output for NaN, raising with the node's name and that stack."""
import traceback

from torchlike import _C

_VF = _C._VariableFunctions

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled"]


def _forward_stack():
    # Drop the frames of this module (the provider itself).
    frames = traceback.extract_stack()[:-1]
    return "".join(traceback.format_list(frames))


_VF._set_stack_provider(_forward_stack)


def is_anomaly_enabled():
    return _VF._is_anomaly_enabled()


class detect_anomaly:
    """Context manager / decorator enabling anomaly detection for a block."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        self.prev = _VF._is_anomaly_enabled()

    def __enter__(self):
        self.prev = _VF._is_anomaly_enabled()
        _VF._set_anomaly_enabled(True)
        return self

    def __exit__(self, *exc):
        _VF._set_anomaly_enabled(self.prev)
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """set_detect_anomaly(mode): sets anomaly detection on or off right away;
    used as a context manager it restores the previous setting on exit."""

    def __init__(self, mode, check_nan=True):
        self.prev = _VF._is_anomaly_enabled()
        _VF._set_anomaly_enabled(bool(mode))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _VF._set_anomaly_enabled(self.prev)
        return False
