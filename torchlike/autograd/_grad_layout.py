"""enforce_grad_layout_policy: whether a parameter's new .grad is laid out like the
parameter (its strides when it is dense and non-overlapping, row-major otherwise).

The flag lives in the C++ engine (thread-local), where AccumulateGrad reads it: when
relaxed, an incoming gradient that could be stolen is kept as it is even if its
layout differs, saving a copy."""
import functools

from torchlike import _C

__all__ = ["enforce_grad_layout_policy"]

_VF = _C._VariableFunctions


class enforce_grad_layout_policy:
    """Sets the policy now (enable=True enforces the contract, the default); as a
    context manager the previous setting comes back on exit, and as a decorator the
    setting applies inside the function only."""

    def __init__(self, enable=True):
        self.prev = _VF._grad_layout_policy_enforced()
        self.enable = bool(enable)
        _VF._set_grad_layout_policy_enforced(self.enable)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _VF._set_grad_layout_policy_enforced(self.prev)
        return False

    def clone(self):
        return self.__class__(self.enable)

    def __call__(self, fn):
        _VF._set_grad_layout_policy_enforced(self.prev)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper
