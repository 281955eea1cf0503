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
