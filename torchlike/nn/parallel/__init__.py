"""torchlike.nn.parallel: DistributedDataParallel over torchlike.distributed,
and DataParallel with its scatter/gather/replicate/parallel_apply pieces
(which run the module directly on CPU, as PyTorch does without GPUs)."""
from torchlike.nn.parallel.data_parallel import DataParallel, data_parallel  # noqa: F401
from torchlike.nn.parallel.distributed import DistributedDataParallel  # noqa: F401
from torchlike.nn.parallel.parallel_apply import parallel_apply  # noqa: F401
from torchlike.nn.parallel.replicate import replicate  # noqa: F401
from torchlike.nn.parallel.scatter_gather import gather, scatter  # noqa: F401

__all__ = ["replicate", "scatter", "parallel_apply", "gather", "data_parallel", "DataParallel",
           "DistributedDataParallel"]
