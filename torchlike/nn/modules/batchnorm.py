"""Batch normalisation: BatchNorm1d/2d/3d and SyncBatchNorm, plus _NormBase,
which instance normalisation (instancenorm.py) builds on too.

_NormBase owns what they share: the optional affine weight/bias, the
running_mean/running_var/num_batches_tracked buffers and their reset. The
subclasses add their input checks and forward. Running statistics are updated
inside torchlike.batch_norm / instance_norm; this layer only picks the
momentum (a cumulative average when momentum is None)."""
import torchlike
from torchlike.nn import functional as F
from torchlike.nn.modules.module import Module
from torchlike.nn.modules.normalization import _ones_and_zeros, _register_affine

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]


class _NormBase(Module):
    # version 2 added num_batches_tracked (see _load_from_state_dict).
    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, bias=True):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _register_affine(self, (num_features,), affine, bias, factory_kwargs)
        tracked = track_running_stats
        self.register_buffer("running_mean", torchlike.zeros(num_features, **factory_kwargs) if tracked else None)
        self.register_buffer("running_var", torchlike.ones(num_features, **factory_kwargs) if tracked else None)
        # The batch counter is always int64, whatever dtype the statistics use.
        self.register_buffer("num_batches_tracked",
                             torchlike.tensor(0, dtype=torchlike.long, device=device) if tracked else None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        _ones_and_zeros(self)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        version = local_metadata.get("version", None)
        counter_key = prefix + "num_batches_tracked"
        # Checkpoints older than version 2 have no batch counter: keep ours (or
        # start at 0) instead of reporting it missing.
        if (version is None or version < 2) and self.track_running_stats and counter_key not in state_dict:
            current = self.num_batches_tracked
            if current is not None and current.device.type != "meta":
                state_dict[counter_key] = current
            else:
                state_dict[counter_key] = torchlike.tensor(0, dtype=torchlike.long)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class _BatchNorm(_NormBase):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias)

    def _update_factor(self):
        """The weight of this batch in the running averages, after counting the
        batch: `momentum`, or 1/batches-seen for a cumulative average."""
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                return 1.0 / float(self.num_batches_tracked)
        return 0.0 if self.momentum is None else self.momentum

    def _normalize(self, input):
        factor = self._update_factor()
        # Batch statistics are used in training, and in eval when no running
        # statistics exist; running statistics are updated only while training.
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        updating = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if updating else None,
                            self.running_var if updating else None, self.weight, self.bias,
                            use_batch_stats, factor, self.eps)

    def forward(self, input):
        self._check_input_dim(input)
        return self._normalize(input)


class BatchNorm1d(_BatchNorm):
    """Normalises each channel of an (N, C) or (N, C, L) input over the batch
    (and length), then applies the per-channel affine weight and bias."""

    def _check_input_dim(self, input):
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Normalises each channel of an (N, C, H, W) input over N, H and W."""

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Normalises each channel of an (N, C, D, H, W) input over N, D, H and W."""

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


def _process_group_size(process_group):
    """World size of the group SyncBatchNorm reduces over, or 1 when no
    process group is initialised."""
    import torchlike.distributed as dist
    if not dist.is_initialized():
        return 1
    return dist.get_world_size(process_group)


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation whose statistics are reduced across the processes of
    a group (default: the world) while training, so each rank normalises with
    the statistics of the global batch. With one process, or in eval mode, it
    is BatchNorm over any input of at least 2 dims, as in PyTorch."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input):
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        if self.training and _process_group_size(self.process_group) > 1:
            from torchlike.nn.modules._sync_batch_norm import sync_batch_norm
            factor = self._update_factor()
            track = self.track_running_stats
            return sync_batch_norm(input, self.weight, self.bias, self.running_mean if track else None,
                                   self.running_var if track else None, self.eps, factor, self.process_group)
        return self._normalize(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Returns `module` with every BatchNorm*D in it (itself included)
        replaced by a SyncBatchNorm holding the same parameters, statistics and
        training flag; other modules are kept and their children converted."""
        converted = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            converted = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                      module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                with torchlike.no_grad():
                    converted.weight = module.weight
                    if module.bias is not None:
                        converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
            if hasattr(module, "qconfig"):
                converted.qconfig = module.qconfig
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return converted
