"""Lazy modules: layers whose input size (in_features, in_channels,
num_features) is read from the first input instead of given up front.

LazyModuleMixin is the machinery: until the first forward the module holds
UninitializedParameter/UninitializedBuffer placeholders; a forward pre-hook
calls initialize_parameters(input) to give them their shapes and initial
values, removes itself, and switches the object's class to `cls_to_become`
(LazyConv2d becomes Conv2d). Loading a state dict materialises placeholders
from the stored shapes as well."""
import itertools

from torchlike.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from torchlike.nn.modules.instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from torchlike.nn.modules.conv import (
    Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)
from torchlike.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy

import torchlike

__all__ = ["LazyModuleMixin", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class LazyModuleMixin:
    """Mixed in before a concrete module class. Subclasses create placeholders in
    __init__ and implement initialize_parameters(*inputs), which materialises
    them; cls_to_become names the class the object turns into afterwards
    (None keeps its class)."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _lazy_members(self):
        return itertools.chain(self._parameters.items(), self._buffers.items())

    def has_uninitialized_params(self):
        """True while any parameter or buffer of this module is still a placeholder."""
        return any(is_lazy(value) for _, value in self._lazy_members())

    def initialize_parameters(self, *args, **kwargs):
        """Gives the placeholders their shapes from the forward inputs."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # Placeholders are saved as themselves (detaching one would lose what it is).
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars or is_lazy(param) else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars or is_lazy(buf) else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs):
        """Before loading: a placeholder whose key holds a real tensor takes that
        tensor's shape, so the ordinary copy (and its shape check) can follow."""
        for name, value in self._lazy_members():
            key = prefix + name
            if value is None or not is_lazy(value) or key not in state_dict:
                continue
            incoming = state_dict[key]
            if is_lazy(incoming):
                continue
            with torchlike.no_grad():
                value.materialize(incoming.shape)

    def _infer_parameters(self, module, args, kwargs=None):
        """The forward pre-hook: initialise from this call's inputs, then drop the
        hooks and become cls_to_become."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        del module._initialize_hook
        del module._load_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        if self.has_uninitialized_params():
            raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. "
                               "Run a dummy forward pass to correctly initialize the modules")
        return super()._replicate_for_data_parallel()


def _channel_count(input, unbatched_ndim):
    """The channel size of an input: dim 0 when the input has the unbatched
    rank `unbatched_ndim` (None: the layer only takes batched inputs), else dim 1."""
    return input.shape[0] if input.dim() == unbatched_ndim else input.shape[1]


# ---------------------------------------------------------------- convolutions

class _LazyConvXdMixin(LazyModuleMixin):
    """in_channels comes from the input's channel dim; the weight then takes
    the concrete class's layout (_ConvNd._weight_shape)."""

    def _make_placeholders(self, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if self.bias is not None:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if not self.has_uninitialized_params():
            return
        in_channels = _channel_count(input, self.spatial + 1)
        if in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        self.in_channels = in_channels
        with torchlike.no_grad():
            self.weight.materialize(self._weight_shape(in_channels))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


def _lazy_conv(concrete, doc):
    class LazyConv(_LazyConvXdMixin, concrete):
        __doc__ = doc
        cls_to_become = concrete

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                     padding_mode="zeros", device=None, dtype=None):
            # Built with 0 input channels (so an empty weight, left uninitialised
            # by reset_parameters), then given placeholders.
            super().__init__(0, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                             device=device, dtype=dtype)
            self._make_placeholders(device, dtype)
    return LazyConv


def _lazy_conv_transpose(concrete, doc):
    class LazyConvTranspose(_LazyConvXdMixin, concrete):
        __doc__ = doc
        cls_to_become = concrete

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                     dilation=1, padding_mode="zeros", device=None, dtype=None):
            super().__init__(0, out_channels, kernel_size, stride, padding, output_padding, groups, bias, dilation,
                             padding_mode, device=device, dtype=dtype)
            self._make_placeholders(device, dtype)
    return LazyConvTranspose


def _named(cls, name):
    cls.__name__ = name
    cls.__qualname__ = name
    return cls


LazyConv1d = _named(_lazy_conv(Conv1d, "A Conv1d whose in_channels is read from the first input."), "LazyConv1d")
LazyConv2d = _named(_lazy_conv(Conv2d, "A Conv2d whose in_channels is read from the first input."), "LazyConv2d")
LazyConv3d = _named(_lazy_conv(Conv3d, "A Conv3d whose in_channels is read from the first input."), "LazyConv3d")
LazyConvTranspose1d = _named(_lazy_conv_transpose(
    ConvTranspose1d, "A ConvTranspose1d whose in_channels is read from the first input."), "LazyConvTranspose1d")
LazyConvTranspose2d = _named(_lazy_conv_transpose(
    ConvTranspose2d, "A ConvTranspose2d whose in_channels is read from the first input."), "LazyConvTranspose2d")
LazyConvTranspose3d = _named(_lazy_conv_transpose(
    ConvTranspose3d, "A ConvTranspose3d whose in_channels is read from the first input."), "LazyConvTranspose3d")


# ---------------------------------------------------------------- batch / instance norm

class _LazyNormBase(LazyModuleMixin):
    """num_features comes from the input's channel dim."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None,
                 *, bias=True):
        factory_kwargs = {"device": device, "dtype": dtype}
        # Built with 0 features, the affine/statistics tensors then swapped for
        # placeholders (the int64 batch counter needs no shape, so it stays).
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(**factory_kwargs)
            if bias:
                self.bias = UninitializedParameter(**factory_kwargs)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(**factory_kwargs)
            self.running_var = UninitializedBuffer(**factory_kwargs)
            self.num_batches_tracked = torchlike.tensor(0, dtype=torchlike.long, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if not self.has_uninitialized_params():
            return
        self.num_features = _channel_count(input, self._unbatched_ndim)
        with torchlike.no_grad():
            for name in ("weight", "bias", "running_mean", "running_var"):
                value = getattr(self, name)
                if value is not None and is_lazy(value):
                    value.materialize((self.num_features,))
            self.reset_parameters()


def _lazy_norm(concrete, spatial, batched_only, doc):
    class LazyNorm(_LazyNormBase, concrete):
        __doc__ = doc
        cls_to_become = concrete

        # BatchNorm inputs always carry the batch dim; instance norm inputs may not.
        _unbatched_ndim = None if batched_only else spatial + 1
    return LazyNorm


LazyBatchNorm1d = _named(_lazy_norm(BatchNorm1d, 1, True,
                                    "A BatchNorm1d whose num_features is read from the first input."),
                         "LazyBatchNorm1d")
LazyBatchNorm2d = _named(_lazy_norm(BatchNorm2d, 2, True,
                                    "A BatchNorm2d whose num_features is read from the first input."),
                         "LazyBatchNorm2d")
LazyBatchNorm3d = _named(_lazy_norm(BatchNorm3d, 3, True,
                                    "A BatchNorm3d whose num_features is read from the first input."),
                         "LazyBatchNorm3d")
LazyInstanceNorm1d = _named(_lazy_norm(InstanceNorm1d, 1, False,
                                       "An InstanceNorm1d whose num_features is read from the first input."),
                            "LazyInstanceNorm1d")
LazyInstanceNorm2d = _named(_lazy_norm(InstanceNorm2d, 2, False,
                                       "An InstanceNorm2d whose num_features is read from the first input."),
                            "LazyInstanceNorm2d")
LazyInstanceNorm3d = _named(_lazy_norm(InstanceNorm3d, 3, False,
                                       "An InstanceNorm3d whose num_features is read from the first input."),
                            "LazyInstanceNorm3d")
