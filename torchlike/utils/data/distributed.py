"""DistributedSampler: each of num_replicas processes takes every
num_replicas-th key of one (optionally shuffled) ordering, so together they
cover the dataset once per epoch."""
import math

import torchlike
from torchlike.utils.data.sampler import Sampler

__all__ = ["DistributedSampler"]


def _process_group_geometry():
    """(world size, rank) of the default process group."""
    try:
        import torchlike.distributed as dist
    except ImportError:
        dist = None
    if dist is None or not getattr(dist, "is_available", lambda: False)():
        raise RuntimeError("Requires distributed package to be available")
    return dist.get_world_size(), dist.get_rank()


class DistributedSampler(Sampler):
    def __init__(self, dataset, num_replicas=None, rank=None, shuffle: bool = True, seed: int = 0,
                 drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            world, me = _process_group_geometry()
            num_replicas = world if num_replicas is None else num_replicas
            rank = me if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas:
            # drop the tail so every replica gets the same number of distinct keys
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            g = torchlike.Generator()
            g.manual_seed(self.seed + self.epoch)  # every replica draws the same order
            order = torchlike.randperm(n, generator=g).tolist()
        else:
            order = list(range(n))
        if self.drop_last:
            order = order[:self.total_size]
        elif len(order) < self.total_size:
            # pad by repeating the order from its start (as often as needed)
            missing = self.total_size - len(order)
            order += (order * math.ceil(missing / len(order)))[:missing]
        assert len(order) == self.total_size
        mine = order[self.rank:self.total_size:self.num_replicas]
        assert len(mine) == self.num_samples
        return iter(mine)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Sets the epoch that seeds the shuffle; call before each epoch so the
        order changes between epochs yet agrees between replicas."""
        self.epoch = epoch
