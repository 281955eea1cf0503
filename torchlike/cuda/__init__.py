"""torchlike.cuda: CUDA devices, as far as the registered backend says.

Every answer comes from the CUDA DeviceGuard implementation registered in
the C++ core (c10/DeviceGuard.h). This build registers none, so
is_available() is False and device_count() is 0, and calls that need a
device (current_device, set_device, synchronize) raise RuntimeError saying
so. Seeding without a device is a no-op, as in PyTorch, so scripts that seed
everything run unchanged on CPU-only machines.
"""
from torchlike import _C
from torchlike._legacy_api import OutOfMemoryError  # noqa: F401  (torch.cuda.OutOfMemoryError is torch.OutOfMemoryError)

__all__ = [
    "is_available", "device_count", "current_device", "set_device", "synchronize", "device", "device_of",
    "manual_seed", "manual_seed_all", "seed", "seed_all", "is_initialized", "OutOfMemoryError",
]


def is_available():
    """True when a CUDA backend is registered and sees at least one device."""
    return _C._device_count("cuda") > 0


def device_count():
    return _C._device_count("cuda")


def is_initialized():
    return _C._has_device_backend("cuda")


def _index(dev, optional=True):
    """A CUDA device index from an int, "cuda:i" string or torchlike.device;
    None (or an index-less "cuda") means the current device, -1 when optional."""
    if dev is None:
        return -1 if optional else current_device()
    if isinstance(dev, int) and not isinstance(dev, bool):
        return dev
    d = _C.device(dev)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    if d.index is None:
        return -1 if optional else current_device()
    return d.index


def current_device():
    """Index of the current CUDA device (raises when there is none)."""
    return _C._current_device("cuda")


def set_device(device):
    """Makes `device` current; a negative index (or None) is a no-op, as in PyTorch."""
    idx = _index(device)
    if idx >= 0:
        _C._set_device(_C.device("cuda", idx))


def synchronize(device=None):
    """Waits for all work on `device` (default: the current CUDA device)."""
    idx = _index(device)
    _C._synchronize(_C.device("cuda", idx) if idx >= 0 else _C.device("cuda"))


class device:
    """Context manager that makes a CUDA device current and restores the
    previous one on exit. None or a negative index changes nothing."""

    def __init__(self, device):
        self.idx = _index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx >= 0:
            self.prev_idx = current_device()
            if self.prev_idx != self.idx:
                _C._set_device(_C.device("cuda", self.idx))
        return self

    def __exit__(self, *exc):
        if self.idx >= 0 and self.prev_idx != self.idx:
            _C._set_device(_C.device("cuda", self.prev_idx))
        return False


class device_of(device):
    """Makes the device of tensor `obj` current (nothing for a CPU tensor)."""

    def __init__(self, obj):
        super().__init__(obj.device.index if obj.device.type == "cuda" else -1)


def manual_seed(seed):
    """Seeds the current CUDA device's generator (no-op without CUDA)."""
    if is_available():
        _C._default_generator(_C.device("cuda")).manual_seed(int(seed))


def manual_seed_all(seed):
    """Seeds every CUDA device's generator (no-op without CUDA)."""
    seed = int(seed)
    for i in range(device_count()):
        _C._default_generator(_C.device("cuda", i)).manual_seed(seed)


def seed():
    """Seeds the current CUDA device's generator from OS entropy (no-op without CUDA)."""
    if is_available():
        _C._default_generator(_C.device("cuda")).seed()


def seed_all():
    """Seeds every CUDA device's generator with one random seed (no-op without CUDA)."""
    if device_count() > 0:
        s = _C._default_generator(_C.device("cuda", 0)).seed()
        manual_seed_all(s)

from torchlike.cuda import amp  # noqa: E402,F401  (torch.cuda.amp: deprecated autocast spellings)
