"""Dynamic loss scaling for mixed-precision training (``torchlike.amp.GradScaler``).

Small float16 gradients underflow to zero. Multiplying the loss by a large
factor before ``backward()`` keeps them representable; the gradients are
divided by the same factor before the optimizer uses them. The factor adapts:
a step whose gradients hold an inf or NaN is skipped and the factor shrinks
(``backoff_factor``); after ``growth_interval`` clean steps in a row it grows
(``growth_factor``).

One training iteration::

    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)        # optional: to clip or inspect true gradients
    scaler.step(optimizer)            # skipped when a gradient is not finite
    scaler.update()

The scale and the clean-step counter live in two tensors on the device of the
first scaled output, created lazily; the per-gradient work is done by the
fused operators ``_amp_foreach_non_finite_check_and_unscale_`` (one pass per
gradient: unscale and detect non-finite values) and ``_amp_update_scale_``.
Those tensors stay on the device until ``get_scale()``/``state_dict()`` asks
for a value, and ``step()`` reads only one flag per device, so a scaler adds
no host synchronisation beyond that one read.
"""
import enum
import inspect
import warnings
from collections import abc

import torchlike

__all__ = ["GradScaler", "OptState"]


class OptState(enum.Enum):
    """Where one optimizer stands in the current iteration."""

    READY = 0      # nothing done since the last update()
    UNSCALED = 1   # unscale_() ran: its gradients hold true values
    STEPPED = 2    # step() ran (or was skipped for a non-finite gradient)


def _new_record():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class _OptimizerRecords(dict):
    """id(optimizer) -> {"stage": OptState, "found_inf_per_device": {device: flag}},
    a fresh READY record for an optimizer not seen in this iteration.
    (A module-level class rather than a lambda default so a scaler pickles.)"""

    def __missing__(self, key):
        record = self[key] = _new_record()
        return record


class _OnEachDevice:
    """One tensor made available on several devices, copied once per device."""

    def __init__(self, master):
        self._copies = {master.device: master}

    def on(self, device):
        copy = self._copies.get(device)
        if copy is None:
            some = next(iter(self._copies.values()))
            copy = self._copies[device] = some.to(device=device, non_blocking=True)
        return copy


def _device_type(device):
    # Parsed from the text: like PyTorch, a scaler accepts device names this
    # build has no backend for (it only fails when asked to touch one).
    return str(device).split(":", 1)[0]


class GradScaler:
    """Scales losses and unscales gradients so float16 training neither
    underflows nor diverges.

    Args:
        device (str): device type whose gradients this scaler serves ("cuda" by default).
        init_scale (float): the scale before the first update (2**16).
        growth_factor (float): multiplies the scale after ``growth_interval``
            consecutive iterations without inf/NaN gradients (must be > 1).
        backoff_factor (float): multiplies the scale after an iteration with
            inf/NaN gradients (must be < 1).
        growth_interval (int): clean iterations between two growths.
        enabled (bool): False makes every method a pass-through, so one
            script serves mixed and full precision.

    On a machine without CUDA, a "cuda" scaler warns and disables itself.
    """

    def __init__(self, device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if enabled and _device_type(device) == "cuda" and not _cuda_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                          stacklevel=_caller_level())
            self._enabled = False
        if self._enabled:
            if not growth_factor > 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if not backoff_factor < 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        # The hyperparameters are kept even when disabled, so the getters
        # answer on any scaler.
        self._init_scale = init_scale
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        # Created by the first scale() call, on its output's device.
        self._scale = None
        self._growth_tracker = None
        self._per_optimizer_states = _OptimizerRecords()

    # ------------------------------------------------------------------ state tensors
    def _lazy_init_scale_growth_tracker(self, device):
        """Creates the scale and counter tensors on `device` (first scale() call)."""
        self._scale = torchlike.full((), float(self._init_scale), dtype=torchlike.float32, device=device)
        self._growth_tracker = torchlike.full((), int(self._init_growth_tracker), dtype=torchlike.int32,
                                              device=device)

    def _require_scale(self, caller):
        if self._scale is None:
            raise AssertionError(
                f"Attempted {caller} but _scale is None.  This may indicate your script did not use "
                "scaler.scale(loss or outputs) earlier in the iteration.")

    # ------------------------------------------------------------------ scale
    def scale(self, outputs):
        """Returns `outputs` multiplied by the current scale.

        `outputs` is a tensor, or a list/tuple (nested as deep as needed) of
        tensors, which comes back with the same structure; any other iterable
        comes back as a lazy ``map`` over its items. A disabled scaler returns
        `outputs` itself.
        """
        if not self._enabled:
            return outputs
        if isinstance(outputs, torchlike.Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device, non_blocking=True)

        scale_on = []  # the per-device copies, made when the first tensor is met

        def scaled(value):
            if isinstance(value, torchlike.Tensor):
                if not scale_on:
                    if self._scale is None:
                        self._lazy_init_scale_growth_tracker(value.device)
                    scale_on.append(_OnEachDevice(self._scale))
                return value * scale_on[0].on(value.device)
            if isinstance(value, list):
                items = [scaled(v) for v in value]
                return items if type(value) is list else type(value)(items)
            if isinstance(value, tuple):
                items = [scaled(v) for v in value]
                return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
            if isinstance(value, abc.Iterable):
                return map(scaled, value)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return scaled(outputs)

    # ------------------------------------------------------------------ unscale
    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        """Multiplies every gradient of `optimizer` by `inv_scale` in place
        and returns {device: found_inf flag} (1.0 where a gradient on that
        device held an inf or NaN). One fused call per (device, dtype)."""
        buckets = {}  # device -> dtype -> [grad, ...]
        for group in optimizer.param_groups:
            for param in group["params"]:
                grad = param.grad
                if grad is None:
                    continue
                if grad.dtype == torchlike.float16 and not allow_fp16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                buckets.setdefault(grad.device, {}).setdefault(grad.dtype, []).append(grad)

        flags = _OnEachDevice(found_inf)
        inv_scales = _OnEachDevice(inv_scale)
        found = {}
        with torchlike.no_grad():
            for device, by_dtype in buckets.items():
                flag = found[device] = flags.on(device)
                for grads in by_dtype.values():
                    torchlike._amp_foreach_non_finite_check_and_unscale_(grads, flag, inv_scales.on(device))
        return found

    def unscale_(self, optimizer):
        """Divides the gradients of `optimizer`'s parameters by the scale, in place.

        Optional: ``step()`` does it when it was not done. Call it yourself to
        see the true gradients between ``backward()`` and ``step()`` (to clip
        them, say). At most once per optimizer per iteration, and before
        ``step()``. float16 gradients are refused (keep master weights in float32).
        """
        if not self._enabled:
            return
        self._require_scale("unscale_")
        record = self._per_optimizer_states[id(optimizer)]
        if record["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if record["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # 1/scale in double, rounded once to float: exact for the powers of
        # two the default factors produce, the nearest float otherwise.
        inv_scale = self._scale.double().reciprocal().float()
        no_inf_yet = torchlike.zeros((), dtype=torchlike.float32, device=self._scale.device)
        record["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, no_inf_yet, False)
        record["stage"] = OptState.UNSCALED

    def _check_inf_per_device(self, optimizer):
        """Records which devices hold non-finite gradients without changing
        them (an inverse scale of 1), for optimizers that unscale themselves."""
        self._require_scale("_check_inf_per_device")
        one = torchlike.ones((), dtype=torchlike.float32, device=self._scale.device)
        no_inf_yet = torchlike.zeros((), dtype=torchlike.float32, device=self._scale.device)
        record = self._per_optimizer_states[id(optimizer)]
        record["found_inf_per_device"] = self._unscale_grads_(optimizer, one, no_inf_yet, True)
        return record["found_inf_per_device"]

    def _found_inf_per_device(self, optimizer):
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]

    # ------------------------------------------------------------------ step
    def _combined_found_inf(self, record):
        """The sum of an optimizer's per-device flags, on the scale's device."""
        total = None
        for flag in record["found_inf_per_device"].values():
            flag = flag.to(device=self._scale.device, non_blocking=True)
            total = flag if total is None else total + flag
        return total

    def _step_with_optimizer_scaling(self, optimizer, record, args, kwargs):
        """step() for optimizers that set ``_step_supports_amp_scaling``: they
        take the scale and the inf verdict and do the unscaling (or skipping)
        in their own step."""
        if "grad_scaler" in inspect.signature(optimizer.step).parameters:
            # The older protocol: the optimizer is handed the scaler itself.
            warnings.warn(
                "GradScaler is going to stop passing itself as a keyword argument to the passed optimizer. "
                "In the near future GradScaler registers `grad_scale: Tensor` and `found_inf: Tensor` to the "
                "passed optimizer and let the optimizer use them directly.", FutureWarning, stacklevel=3)
            result = optimizer.step(*args, grad_scaler=self, **kwargs)
            record["stage"] = OptState.STEPPED
            return result
        if record["stage"] is OptState.READY:
            # Gradients are still scaled: the optimizer divides by grad_scale.
            self._check_inf_per_device(optimizer)
            grad_scale = self._scale
        else:
            grad_scale = None  # unscale_() already divided them
        optimizer.grad_scale = grad_scale
        optimizer.found_inf = self._combined_found_inf(record)
        try:
            result = optimizer.step(*args, **kwargs)
        finally:
            del optimizer.grad_scale
            del optimizer.found_inf
        record["stage"] = OptState.STEPPED
        return result

    def step(self, optimizer, *args, **kwargs):
        """Unscales the gradients if ``unscale_()`` was not called, then runs
        ``optimizer.step(*args, **kwargs)`` unless a gradient held an inf or
        NaN. Returns what ``optimizer.step`` returned, or None when skipped.
        A closure is not supported while the scaler is enabled."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._require_scale("step")
        record = self._per_optimizer_states[id(optimizer)]
        if record["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")

        if getattr(optimizer, "_step_supports_amp_scaling", False):
            return self._step_with_optimizer_scaling(optimizer, record, args, kwargs)

        if record["stage"] is OptState.READY:
            self.unscale_(optimizer)
        flags = record["found_inf_per_device"]
        if not flags:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        # The one host read of the iteration: a flag per device.
        all_finite = not any(flag.item() for flag in flags.values())
        result = optimizer.step(*args, **kwargs) if all_finite else None
        record["stage"] = OptState.STEPPED
        return result

    # ------------------------------------------------------------------ update
    def update(self, new_scale=None):
        """Ends the iteration: adapts the scale from the inf/NaN verdicts of
        every optimizer stepped since the last update, or sets it to
        `new_scale` (a float, or a one-element float tensor on this scaler's
        device type that does not require grad)."""
        if not self._enabled:
            return
        self._require_scale("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                acceptable = (new_scale.device.type == _device_type(self._device) and new_scale.numel() == 1
                              and not new_scale.requires_grad)
                if not acceptable:
                    raise AssertionError("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                                         "torch.FloatTensor with requires_grad=False.")
                self._scale.copy_(new_scale)
        else:
            verdict = None
            for record in self._per_optimizer_states.values():
                combined = self._combined_found_inf(record)
                if combined is not None:
                    verdict = combined if verdict is None else verdict + combined
            if verdict is None:
                raise AssertionError("No inf checks were recorded prior to update.")
            torchlike._amp_update_scale_(self._scale, self._growth_tracker, verdict, self._growth_factor,
                                         self._backoff_factor, self._growth_interval)
        self._per_optimizer_states = _OptimizerRecords()

    # ------------------------------------------------------------------ getters / setters
    def get_scale(self):
        """The current scale as a Python float (1.0 when disabled). Reading it
        synchronises with the device."""
        if not self._enabled:
            return 1.0
        return float(self._init_scale) if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_scale_async(self):
        """The scale tensor itself (None before the first scale()), without a host read."""
        return self._scale

    def _get_growth_tracker(self):
        if self._growth_tracker is None:
            return self._init_growth_tracker
        return self._growth_tracker.item()

    def is_enabled(self):
        return self._enabled

    # ------------------------------------------------------------------ serialisation
    def state_dict(self):
        """The scaler's state: keys "scale", "growth_factor", "backoff_factor",
        "growth_interval" and "_growth_tracker" (an empty dict when disabled)."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict):
        """Restores a ``state_dict()``. A disabled scaler ignores it; an empty
        one (saved by a disabled scaler) is an error."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self):
        # Pickles carry plain numbers: the state tensors are recreated on the
        # first scale() after unpickling, on whatever device is at hand then.
        state = dict(self.__dict__)
        if self._enabled:
            if self._per_optimizer_states:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning of an iteration, "
                                     "or at the end after scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)


def _cuda_available():
    import torchlike.cuda
    return torchlike.cuda.is_available()


def _caller_level():
    """stacklevel that points a warning at the code constructing the scaler,
    past the __init__ of any GradScaler subclass in between."""
    frame = inspect.currentframe().f_back  # GradScaler.__init__
    level = 1
    while frame is not None and frame.f_code.co_name == "__init__" and isinstance(frame.f_locals.get("self"),
                                                                                  GradScaler):
        frame = frame.f_back
        level += 1
    return level


class _DeprecatedDeviceGradScaler(GradScaler):
    """The pre-2.4 per-device spellings ``torch.cuda.amp.GradScaler(...)`` and
    ``torch.cpu.amp.GradScaler(...)``: the device is implied and init_scale
    comes first. They warn that ``GradScaler(device, ...)`` replaces them."""

    _device_type = None

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        warnings.warn(f"`torch.{self._device_type}.amp.GradScaler(args...)` is deprecated. Please use "
                      f"`torch.amp.GradScaler('{self._device_type}', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__(self._device_type, init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)


class _CudaGradScaler(_DeprecatedDeviceGradScaler):
    """``torchlike.cuda.amp.GradScaler``: deprecated; use ``GradScaler("cuda", ...)``."""

    _device_type = "cuda"


class _CpuGradScaler(_DeprecatedDeviceGradScaler):
    """``torchlike.cpu.amp.GradScaler``: deprecated; use ``GradScaler("cpu", ...)``."""

    _device_type = "cpu"
