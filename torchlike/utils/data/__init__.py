"""torchlike.utils.data: datasets, samplers, collation and the DataLoader."""
from torchlike.utils.data.dataset import (  # noqa: F401
    ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset, random_split,
)
from torchlike.utils.data.sampler import (  # noqa: F401
    BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler, WeightedRandomSampler,
)
from torchlike.utils.data.distributed import DistributedSampler  # noqa: F401
from torchlike.utils.data.collate import default_collate, default_convert  # noqa: F401
from torchlike.utils.data.worker import get_worker_info  # noqa: F401
from torchlike.utils.data.dataloader import DataLoader  # noqa: F401

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
           "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "default_collate", "default_convert",
           "get_worker_info", "random_split"]
