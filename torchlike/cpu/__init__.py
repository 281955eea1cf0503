"""CPU memory controls: the caching allocator keeps freed blocks for reuse."""
from torchlike import _C


def empty_cache():
    """Return every cached free block to the system."""
    _C._cpu_empty_cache()


def memory_stats():
    """cached_bytes, allocated_bytes, cache_limit_bytes, hits, misses."""
    return _C._cpu_cache_stats()


def set_cache_limit(nbytes):
    _C._cpu_set_cache_limit(int(nbytes))


# ---- the CPU as a device (PyTorch's torch.cpu device API): one device,
# one stream, and all work finished when an op returns.

def is_available():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def synchronize(device=None):
    """Nothing to wait for: CPU ops complete before they return."""
    if device is not None and _C.device(device).type != "cpu":
        raise ValueError(f"Expected a cpu device, but got: {device}")


def current_stream(device=None):
    """The CPU's one stream (id 0)."""
    return _C.Stream("cpu")

from torchlike.cpu import amp  # noqa: E402,F401  (torch.cpu.amp: the deprecated autocast spelling)
