"""torchlike.nn.attention: which scaled_dot_product_attention implementations
may run, as PyTorch's torch.nn.attention.

torchlike's CPU attention has two implementations: MATH (softmax(QK^T)V,
materialised) and FLASH_ATTENTION (blocked over keys with an online softmax).
`sdpa_kernel` restricts the set inside a `with` block; F.scaled_dot_product_attention
reads it through `_enabled_backends()` and raises "No available kernel" when
none of the enabled ones can run on the inputs' device, as PyTorch does.
"""
import contextlib
import enum
import threading

__all__ = [
    "SDPBackend", "WARN_FOR_UNFUSED_KERNELS", "sdpa_kernel", "activate_flash_attention_impl",
    "current_flash_attention_impl", "list_flash_attention_impls", "register_flash_attention_impl",
    "restore_flash_attention_impl",
]

# PyTorch warns, when set, each time a fused kernel cannot be used; torchlike
# reads it the same way.
WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The scaled-dot-product attention implementations, with PyTorch's values."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_ALL = (SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION,
        SDPBackend.OVERRIDEABLE)
_state = threading.local()  # PyTorch's switches are global; per-thread keeps concurrent blocks from clashing


# Process-wide switches (torchlike.backends.cuda.enable_flash_sdp and
# friends); an sdpa_kernel block overrides them on its thread.
_globally_disabled = set()


def _enabled_backends():
    """The backends sdpa may use now, in priority order."""
    chosen = getattr(_state, "enabled", None)
    if chosen is not None:
        return chosen
    if not _globally_disabled:
        return _ALL
    return tuple(b for b in _ALL if b not in _globally_disabled)


def _set_globally_enabled(backend, enabled):
    if enabled:
        _globally_disabled.discard(backend)
    else:
        _globally_disabled.add(backend)


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Inside the block, scaled_dot_product_attention may use only `backends`
    (one SDPBackend or a list); with set_priority=True their order is the
    order they are tried in."""
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = list(backends)
    for b in backends:
        if not isinstance(b, SDPBackend):
            raise AssertionError("Backend must be an instance of SDPBackend")
    if set_priority:
        chosen = tuple(dict.fromkeys(backends))
    else:
        chosen = tuple(b for b in _ALL if b in backends)
    # The raw thread-local setting: outside any block there is none, and the
    # process-wide switches apply again on exit.
    prev = getattr(_state, "enabled", None)
    _state.enabled = chosen
    try:
        yield {}
    finally:
        if prev is None:
            del _state.enabled
        else:
            _state.enabled = prev


# ---- flash-attention implementation registry: providers register a
# function that installs their kernels; users activate one by name.

_FLASH_ATTENTION_IMPLS = {}
_FLASH_ATTENTION_ACTIVE = None  # (name, handle or None)


def register_flash_attention_impl(impl, *, register_fn):
    """Registers `register_fn`, called by activate_flash_attention_impl(impl)
    to install the implementation's kernels (through torchlike.library); it
    may return a handle with a `remove()` method."""
    if not callable(register_fn):
        raise TypeError("register_flash_attention_impl: register_fn must be callable")
    _FLASH_ATTENTION_IMPLS[impl] = register_fn


def list_flash_attention_impls():
    """Names of the registered flash-attention implementations."""
    return list(_FLASH_ATTENTION_IMPLS)


def current_flash_attention_impl():
    """The active implementation's name, or None for torchlike's own."""
    return None if _FLASH_ATTENTION_ACTIVE is None else _FLASH_ATTENTION_ACTIVE[0]


def activate_flash_attention_impl(impl):
    """Restores the default, then installs registered implementation `impl`."""
    global _FLASH_ATTENTION_ACTIVE
    restore_flash_attention_impl(_raise_warn=False)
    register_fn = _FLASH_ATTENTION_IMPLS.get(impl)
    if register_fn is None:
        raise ValueError(f"Unknown flash attention impl '{impl}'. "
                         f"Available implementations: {list_flash_attention_impls()}")
    handle = register_fn()
    _FLASH_ATTENTION_ACTIVE = (impl, handle)


def restore_flash_attention_impl(_raise_warn=True):
    """Uninstalls the active implementation (its handle's remove()), back to torchlike's own."""
    global _FLASH_ATTENTION_ACTIVE
    if _FLASH_ATTENTION_ACTIVE is None:
        if _raise_warn:
            import warnings
            warnings.warn("No flash attention implementation is active; nothing to restore.")
        return
    _, handle = _FLASH_ATTENTION_ACTIVE
    _FLASH_ATTENTION_ACTIVE = None
    if handle is not None and hasattr(handle, "remove"):
        handle.remove()
