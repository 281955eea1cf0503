"""torchlike.autocast: mixed-precision regions.

Inside a region the generated Autocast kernels (from the `autocast:` policies
in native_functions.yaml) cast the floating inputs of the ops that have a
policy: matmul-like ops to the region's lower-precision dtype, numerically
touchy ones to float32, mixed-input ones to the widest input type. A region
turns on by putting its device type's Autocast key into the thread's included
dispatch keys (see csrc/aten/Autocast.h); leaving it restores the state the
region found, and leaving the outermost region drops the cached casts.
"""
import functools
import warnings

import torchlike
from torchlike import _C

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available"]

_state = _C._VariableFunctions

# Device types with Autocast kernels (one per backend with an Autocast key);
# meta has the key but autocasting shape-only tensors means nothing, as in PyTorch.
_AUTOCAST_DEVICE_TYPES = ("cpu", "cuda", "privateuseone")

# What a region may run in on each device type; anything else warns and turns the region off.
_CPU_DTYPES = (torchlike.bfloat16, torchlike.float16)


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast has kernels for `device_type` ('cpu', 'cuda', or the PrivateUse1 backend's name)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    return _canonical(device_type) in _AUTOCAST_DEVICE_TYPES


def _canonical(device_type):
    """'cuda:0' -> 'cuda'; the PrivateUse1 backend's custom name -> 'privateuseone'."""
    kind = _C.device(device_type).type
    return "privateuseone" if kind not in ("cpu", "cuda", "meta") else kind


class autocast:
    """Context manager (and decorator) running a region under autocast.

    autocast(device_type, dtype=None, enabled=True, cache_enabled=None): dtype
    defaults to the device type's current autocast dtype (bfloat16 on CPU,
    float16 on CUDA); cache_enabled defaults to the thread's current setting.
    Regions nest; each restores on exit what it found on entry.
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        kind = _canonical(device_type)
        if kind not in _AUTOCAST_DEVICE_TYPES:
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self._kind = kind
        self.fast_dtype = _state._autocast_get_dtype(kind) if dtype is None else dtype
        self._cache_enabled = _state._autocast_is_cache_enabled() if cache_enabled is None else bool(cache_enabled)
        self._enabled = bool(enabled)
        if self._enabled:
            self._enabled = self._supported()

    def _supported(self):
        """PyTorch's checks: a device type without devices, or a dtype the
        device type cannot autocast to, warns and leaves the region disabled."""
        if self._kind == "cuda":
            if not torchlike.cuda.is_available():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=3)
                return False
            if self.fast_dtype not in (torchlike.float16, torchlike.bfloat16, torchlike.float32):
                warnings.warn("In CUDA autocast, but the target dtype is not supported. Disabling autocast.\n"
                              "CUDA Autocast only supports dtypes of torch.float16, torch.bfloat16 and "
                              "torch.float32 currently.", stacklevel=3)
                return False
        elif self._kind == "cpu":
            if self.fast_dtype not in _CPU_DTYPES:
                warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                              "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                              stacklevel=3)
                return False
        return True

    def __enter__(self):
        kind = self._kind
        self._saved = (_state._autocast_is_enabled(kind), _state._autocast_get_dtype(kind),
                       _state._autocast_is_cache_enabled())
        _state._autocast_set_enabled(kind, self._enabled)
        _state._autocast_set_dtype(kind, self.fast_dtype)
        _state._autocast_set_cache_enabled(self._cache_enabled)
        _state._autocast_increment_nesting()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if _state._autocast_decrement_nesting() == 0:
            _state._autocast_clear_cache()
        was_enabled, dtype, cache_enabled = self._saved
        _state._autocast_set_enabled(self._kind, was_enabled)
        _state._autocast_set_dtype(self._kind, dtype)
        _state._autocast_set_cache_enabled(cache_enabled)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def run_in_region(*args, **kwargs):
            # A fresh context per call: a decorated function may recurse or run on several threads.
            with autocast(self.device, dtype=self.fast_dtype, enabled=self._enabled,
                          cache_enabled=self._cache_enabled):
                return func(*args, **kwargs)
        return run_in_region


def _cast_floating(value, dtype, kind):
    """Floating tensors of device type `kind` in a (nested) argument, cast to dtype."""
    if isinstance(value, torchlike.Tensor):
        if value.is_floating_point() and value.dtype != torchlike.float64 and value.device.type == kind:
            return value.to(dtype)
        return value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, dict):
        return {k: _cast_floating(v, dtype, kind) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        items = [_cast_floating(v, dtype, kind) for v in value]
        return type(value)(items) if not hasattr(value, "_fields") else type(value)(*items)
    return value


def _python_policy(target_dtype, device_types):
    """An autocast policy for an op written in Python, which has no generated
    Autocast kernel: inside a region of one of `device_types`, that device
    type's floating inputs are cast to `target_dtype(device)` and the op runs
    with its autocast off, as a generated kernel runs it below its Autocast key
    (so the ops it is made of are not cast again). Outside every region: one
    check per device type."""
    def wrap(fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            active = [d for d in device_types if _state._autocast_is_enabled(d)]
            if not active:
                return fn(*args, **kwargs)
            for d in active:
                dtype = target_dtype(d)
                args, kwargs = _cast_floating(args, dtype, d), _cast_floating(kwargs, dtype, d)
                _state._autocast_set_enabled(d, False)
            try:
                return fn(*args, **kwargs)
            finally:
                for d in active:
                    _state._autocast_set_enabled(d, True)
        return run
    return wrap


def _float32_policy(*device_types):
    """PyTorch's `fp32` policy for a Python-written op (the losses of nn.functional,
    pinverse, lstsq): its inputs are cast to float32."""
    return _python_policy(lambda d: torchlike.float32, device_types)


def _lower_policy(*device_types):
    """PyTorch's `lower_precision_fp` policy for a Python-written op (prelu,
    scaled_dot_product_attention, vecdot): its inputs are cast to the region's dtype."""
    return _python_policy(_state._autocast_get_dtype, device_types)


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Decorator for a custom autograd Function's forward.

    Without cast_inputs, forward runs under the caller's autocast state and
    records it, so a custom_bwd backward runs under the same one. With
    cast_inputs, inside an enabled region the floating inputs are cast to
    cast_inputs and forward runs with autocast off."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    kind = _canonical(device_type)

    @functools.wraps(fwd)
    def forward(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = _state._autocast_get_dtype(kind)
        if cast_inputs is None:
            ctx._fwd_used_autocast = _state._autocast_is_enabled(kind)
            return fwd(*args, **kwargs)
        in_region = _state._autocast_is_enabled(kind)
        ctx._fwd_used_autocast = False
        if not in_region:
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast_floating(args, cast_inputs, kind), **_cast_floating(kwargs, cast_inputs, kind))
    return forward


def custom_bwd(bwd=None, *, device_type: str):
    """Decorator for a custom autograd Function's backward: runs it under the
    autocast state its custom_fwd forward recorded."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def backward(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=getattr(ctx, "_fwd_used_autocast", False),
                      dtype=getattr(ctx, "_dtype", None)):
            return bwd(*args, **kwargs)
    return backward
