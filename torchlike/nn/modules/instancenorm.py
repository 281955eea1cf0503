"""Instance normalisation: InstanceNorm1d/2d/3d. Each (sample, channel) slice
is normalised over its spatial dims; the optional running statistics (off by
default) come from _NormBase in batchnorm.py."""
import warnings

from torchlike.nn import functional as F
from torchlike.nn.modules.batchnorm import _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_NormBase):
    """Normalises each (sample, channel) slice over its spatial dims. Running
    statistics, when tracked, are averages of the per-instance statistics."""
    spatial = 0

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False,
                 device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias)

    def _check_input_dim(self, input):
        n = self.spatial
        if input.dim() not in (n + 1, n + 2):
            raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {input.dim()}D input)")

    def _get_no_batch_dim(self):
        return self.spatial + 1

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               0.0 if self.momentum is None else self.momentum, self.eps)

    def forward(self, input):
        self._check_input_dim(input)
        channel_dim = input.dim() - self.spatial - 1
        channels = input.size(channel_dim)
        if channels != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={channel_dim} to match num_features "
                                 f"({self.num_features}), but got: {channels}.")
            warnings.warn(f"input's size at dim={channel_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False")
        if input.dim() == self._get_no_batch_dim():
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # Checkpoints from before instance norm stopped tracking statistics by
        # default (no version recorded) may carry running_mean/running_var.
        if local_metadata.get("version", None) is None and not self.track_running_stats:
            stale = [prefix + name for name in ("running_mean", "running_var") if prefix + name in state_dict]
            if stale:
                cls = type(self).__name__
                quoted = " and ".join(f'"{k}"' for k in stale)
                error_msgs.append(
                    f"Unexpected running stats buffer(s) {quoted} for {cls} with track_running_stats=False. If "
                    f"state_dict is a checkpoint saved before 0.4.0, this may be expected because {cls} does "
                    "not track running stats by default since 0.4.0. Please remove these keys from state_dict. "
                    f"If the running stats are actually needed, instead set track_running_stats=True in {cls} "
                    f"to enable them. See the documentation of {cls} for details.")
                for k in stale:
                    state_dict.pop(k)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of an (N, C, L) or (C, L) input."""
    spatial = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of an (N, C, H, W) or (C, H, W) input."""
    spatial = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of an (N, C, D, H, W) or (C, D, H, W) input."""
    spatial = 3
