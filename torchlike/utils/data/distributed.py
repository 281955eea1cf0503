"""torchlike.utils.data.distributed, the module path PyTorch code imports DistributedSampler from."""
from .sampler import DistributedSampler

__all__ = ["DistributedSampler"]
