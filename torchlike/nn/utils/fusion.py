"""Folding an eval-mode batch norm into the convolution or linear layer before it.

In eval mode BatchNorm is the affine map y = (x - mean) * gamma / sqrt(var + eps) + beta
per channel, so it can be absorbed into the preceding layer's weight (scaled per
output channel) and bias, which removes a pass over the activations at inference.
"""
import copy

import torchlike
from torchlike.nn.parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def _bn_scale_and_shift(bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """(scale, shift) with bn(x) = x * scale + shift, computed in the statistics' dtype."""
    if bn_w is None:
        bn_w = torchlike.ones_like(bn_rm)
    if bn_b is None:
        bn_b = torchlike.zeros_like(bn_rm)
    scale = bn_w * torchlike.rsqrt(bn_rv + bn_eps)
    return scale, bn_b - bn_rm * scale


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The (weight, bias) Parameters of a convolution followed by an eval-mode batch
    norm with the given statistics. Output channels are dim 0 of the weight, or dim 1
    for a transposed convolution."""
    with torchlike.no_grad():
        scale, shift = _bn_scale_and_shift(bn_rm, bn_rv, bn_eps, bn_w, bn_b)
        per_channel = [1] * conv_w.dim()
        per_channel[1 if transpose else 0] = -1
        fused_w = (conv_w * scale.reshape(per_channel)).to(conv_w.dtype)
        bias = conv_b if conv_b is not None else torchlike.zeros_like(bn_rm)
        fused_b = (bias * scale + shift).to(bias.dtype)
    bias_grad = conv_b.requires_grad if conv_b is not None else False
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, bias_grad)


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of `conv` (both modules in eval mode) whose weight and bias include the
    batch norm that follows it."""
    assert not (conv.training or bn.training), "Fusion only for eval!"
    fused = copy.deepcopy(conv)
    assert bn.running_mean is not None and bn.running_var is not None
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias, transpose)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The (weight, bias) Parameters of a linear layer followed by an eval-mode batch
    norm (per output feature, or one shared channel)."""
    with torchlike.no_grad():
        scale, shift = _bn_scale_and_shift(bn_rm, bn_rv, bn_eps, bn_w, bn_b)
        fused_w = linear_w * scale.unsqueeze(-1)
        bias = linear_b if linear_b is not None else torchlike.zeros_like(bn_rm)
        fused_b = bias * scale + shift
    bias_grad = linear_b.requires_grad if linear_b is not None else False
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, bias_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of `linear` (both modules in eval mode) that includes the batch norm
    applied to its output."""
    assert not (linear.training or bn.training), "Fusion only for eval!"
    assert linear.out_features == bn.num_features or bn.num_features == 1, (
        "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
        f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    fused = copy.deepcopy(linear)
    assert bn.running_mean is not None and bn.running_var is not None
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused
