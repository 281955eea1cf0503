"""torchlike.cuda memory management: the per-device caching allocator's
statistics and controls (PyTorch's torch.cuda.memory API).

Without CUDA (or before the allocator has served anything) the statistics
are empty and the counters read 0, as PyTorch's do before CUDA is
initialised; controls that need a device raise."""
import collections
import contextlib
import warnings

from torchlike import _C

__all__ = [
    "caching_allocator_alloc", "caching_allocator_delete", "caching_allocator_enable", "caching_allocator_disabled",
    "set_per_process_memory_fraction", "get_per_process_memory_fraction", "empty_cache", "memory_stats",
    "memory_stats_as_nested_dict", "reset_accumulated_memory_stats", "reset_peak_memory_stats",
    "reset_max_memory_allocated", "reset_max_memory_cached", "host_memory_stats", "reset_accumulated_host_memory_stats",
    "reset_peak_host_memory_stats", "memory_allocated", "max_memory_allocated", "memory_reserved",
    "max_memory_reserved", "memory_cached", "max_memory_cached", "memory_snapshot", "memory_summary",
    "get_allocator_backend", "mem_get_info",
]


def _device_index(device):
    from torchlike.cuda import _index, current_device
    idx = _index(device)
    return idx if idx >= 0 else current_device()


def _stats_index(device):
    """The device whose statistics are asked for, or None when CUDA was never
    initialised (then every statistic is empty, as in PyTorch)."""
    from torchlike.cuda import is_initialized
    if not is_initialized():
        return None
    return _device_index(device)


def caching_allocator_alloc(size, device=None, stream=None):
    """Allocates `size` bytes from the caching allocator and returns the
    address; free it with caching_allocator_delete."""
    from torchlike.cuda import _lazy_init, current_stream
    _lazy_init()
    idx = _device_index(device)
    if stream is None:
        stream = current_stream(idx)
    sid = stream.stream_id if isinstance(stream, _C.Stream) else int(stream)
    return _C._raw_alloc("cuda", int(size), idx, sid)


def caching_allocator_delete(mem_ptr):
    """Gives memory from caching_allocator_alloc back to the cache."""
    _C._raw_delete(int(mem_ptr))


def caching_allocator_enable(value=True):
    """Turns caching on (the default) or off: off, freed memory goes straight
    back to the driver."""
    if _C._cuda_is_built():
        _C._cuda_set_caching_enabled(bool(value))


@contextlib.contextmanager
def caching_allocator_disabled():
    """Context manager: no caching inside it."""
    caching_allocator_enable(False)
    try:
        yield
    finally:
        caching_allocator_enable(True)


def set_per_process_memory_fraction(fraction, device=None):
    """Caps the memory the caching allocator reserves on `device` at
    fraction × its total memory; past it, allocations raise OutOfMemoryError."""
    from torchlike.cuda import _lazy_init
    _lazy_init()
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    _C._cuda_set_memory_fraction(fraction, _device_index(device))


def get_per_process_memory_fraction(device=None):
    from torchlike.cuda import _lazy_init
    _lazy_init()
    return _C._cuda_get_memory_fraction(_device_index(device))


def empty_cache():
    """Gives every cached, unused block back to the driver (memory held by
    tensors stays)."""
    from torchlike.cuda import is_initialized
    if is_initialized():
        _C._cuda_empty_cache()


def memory_stats(device=None):
    """The caching allocator's statistics as a flat OrderedDict, keys sorted
    ("allocated_bytes.all.current", "num_alloc_retries", ...)."""
    idx = _stats_index(device)
    if idx is None:
        return collections.OrderedDict()
    return collections.OrderedDict(sorted(_C._cuda_memory_stats(idx).items()))


def memory_stats_as_nested_dict(device=None):
    """memory_stats, nested at each '.' of the keys."""
    nested = {}
    for key, value in memory_stats(device).items():
        parts = key.split(".")
        d = nested
        for p in parts[:-1]:
            d = d.setdefault(p, {})
        d[parts[-1]] = value
    return nested


def reset_accumulated_memory_stats(device=None):
    idx = _stats_index(device)
    if idx is not None:
        _C._cuda_reset_accumulated_memory_stats(idx)


def reset_peak_memory_stats(device=None):
    """Every "peak" statistic starts again from the current value."""
    idx = _stats_index(device)
    if idx is not None:
        _C._cuda_reset_peak_memory_stats(idx)


def reset_max_memory_allocated(device=None):
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, "
                  "which resets /all/ peak memory stats.", FutureWarning, stacklevel=2)
    return reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None):
    warnings.warn("torch.cuda.reset_max_memory_cached now calls torch.cuda.reset_peak_memory_stats, "
                  "which resets /all/ peak memory stats.", FutureWarning, stacklevel=2)
    return reset_peak_memory_stats(device)


def host_memory_stats():
    """Statistics of the pinned host memory cache."""
    from torchlike.cuda import is_initialized
    if not is_initialized():
        return collections.OrderedDict()
    return collections.OrderedDict(sorted(_C._cuda_host_memory_stats().items()))


def reset_accumulated_host_memory_stats():
    if _C._cuda_is_built():
        _C._cuda_reset_accumulated_host_memory_stats()


def reset_peak_host_memory_stats():
    if _C._cuda_is_built():
        _C._cuda_reset_peak_host_memory_stats()


def memory_allocated(device=None):
    """Bytes held by tensors on `device` now."""
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None):
    """Peak of memory_allocated since start or reset_peak_memory_stats."""
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None):
    """Bytes the caching allocator holds from the driver (allocated + cached)."""
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None):
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def memory_cached(device=None):
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
                  FutureWarning, stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device=None):
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to `torch.cuda.max_memory_reserved`",
                  FutureWarning, stacklevel=2)
    return max_memory_reserved(device)


def memory_snapshot(mempool_id=None, include_traces=True):
    """Every segment of every device's caching allocator, with its blocks."""
    if mempool_id is not None:
        raise NotImplementedError("memory_snapshot: memory pools are not supported")
    from torchlike.cuda import is_initialized
    if not is_initialized():
        return []
    return _C._cuda_memory_snapshot()


def memory_summary(device=None, abbreviated=False):
    """A human-readable table of the caching allocator's statistics."""
    from torchlike.cuda import _lazy_init
    _lazy_init()
    return _C._cuda_memory_summary(_device_index(device), bool(abbreviated))


def get_allocator_backend():
    """"native": torchlike's own caching allocator (cudaMallocAsync is not offered)."""
    return "native"


def mem_get_info(device=None):
    """(free, total) bytes of the device, as the driver reports them."""
    from torchlike.cuda import _lazy_init
    _lazy_init()
    return _C._cuda_mem_get_info(_device_index(device))
