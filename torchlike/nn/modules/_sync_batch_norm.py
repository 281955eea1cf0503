"""SyncBatchNorm's training forward across processes.

The batch statistics are sums over every rank's batch, obtained with an
all-reduce that autograd differentiates (its backward all-reduces the incoming
gradients: each rank's statistics feed every rank's loss). So the forward is
BatchNorm over the global batch, and the gradients equal those of BatchNorm
over the concatenated batch with the ranks' losses summed, as DDP expects.
Two reductions: per-channel sum and count first (the mean), then the sum of
squared deviations (the variance), which avoids the cancellation of
E[x^2] - E[x]^2."""
import torchlike
from torchlike.autograd import Function


class _AllReduceSum(Function):
    @staticmethod
    def forward(ctx, tensor, group):
        import torchlike.distributed as dist
        ctx.group = group
        out = tensor.detach().clone()
        dist.all_reduce(out, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        import torchlike.distributed as dist
        g = grad.detach().clone().contiguous()
        dist.all_reduce(g, group=ctx.group)
        return g, None


def sync_batch_norm(input, weight, bias, running_mean, running_var, eps, momentum, group):
    """Training-mode batch norm with statistics over every rank's batch;
    updates running_mean/running_var (unbiased variance) in place."""
    c = input.shape[1]
    dims = [0] + list(range(2, input.dim()))
    shape = [1, c] + [1] * (input.dim() - 2)
    x = input.float() if input.dtype in (torchlike.float16, torchlike.bfloat16) else input
    local_count = input.numel() // c
    stats = torchlike.cat([x.sum(dims), torchlike.full((1,), float(local_count), dtype=x.dtype)])
    stats = _AllReduceSum.apply(stats, group)
    total = stats[c]
    if float(total) <= 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {list(input.shape)} "
                         "over all ranks")
    mean = stats[:c] / total
    centered = x - mean.view(shape)
    var = _AllReduceSum.apply((centered * centered).sum(dims), group) / total
    out = centered * torchlike.rsqrt(var + eps).view(shape)
    if weight is not None:
        out = out * weight.view(shape)
    if bias is not None:
        out = out + bias.view(shape)
    if running_mean is not None:
        with torchlike.no_grad():
            n = float(total)
            running_mean.mul_(1 - momentum).add_(mean.detach().to(running_mean.dtype), alpha=momentum)
            running_var.mul_(1 - momentum).add_((var.detach() * (n / (n - 1))).to(running_var.dtype),
                                                alpha=momentum)
    return out.to(input.dtype)
