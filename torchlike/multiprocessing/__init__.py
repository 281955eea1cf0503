"""torchlike.multiprocessing: Python's multiprocessing, with torchlike tensors
sent through shared memory instead of being pickled by value.

Importing it registers the tensor reducer with multiprocessing's pickler, so
Queue.put(tensor), Pipe.send and Process(args=(tensor,)) share the tensor's
storage with the receiving process (see _reductions.py). Everything else is
the standard module's: Process, Queue, Pool, get_context, ... plus spawn /
start_processes and the sharing-strategy switches.
"""
import multiprocessing as _multiprocessing

from multiprocessing import *  # noqa: F401,F403

from torchlike.multiprocessing import _reductions
from torchlike.multiprocessing.spawn import (  # noqa: F401
    ProcessContext, ProcessException, ProcessExitedException, ProcessRaisedException, SpawnContext, spawn,
    start_processes,
)

__all__ = list(_multiprocessing.__all__) + [
    "get_sharing_strategy", "set_sharing_strategy", "get_all_sharing_strategies", "spawn", "start_processes",
    "ProcessContext", "SpawnContext", "ProcessRaisedException", "ProcessExitedException", "init_reductions",
]

multiprocessing = _multiprocessing
reductions = _reductions


def set_sharing_strategy(new_strategy):
    """'file_descriptor' (default): segments are anonymous and handed over as
    duplicated descriptors. 'file_system': segments are named files in /dev/shm
    that other processes open by name."""
    if new_strategy not in _reductions._STRATEGIES:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of "
                             f"{set(_reductions._STRATEGIES)!r}")
    _reductions._strategy = new_strategy


def get_sharing_strategy():
    return _reductions._strategy


def get_all_sharing_strategies():
    return set(_reductions._STRATEGIES)


def init_reductions():
    _reductions.init_reductions()


def _install_tensor_methods():
    from torchlike import Tensor
    Tensor.share_memory_ = _reductions.share_memory_
    Tensor.is_shared = _reductions.is_shared


init_reductions()
_install_tensor_methods()
