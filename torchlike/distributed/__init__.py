"""torchlike.distributed: process groups, collectives and stores over MPI.

CPU tensors travel over MPI (mpi4py + mpich); backend="gloo" selects it as well
as "mpi", so PyTorch CPU scripts run unchanged. Start ranks with
`python -m torchlike.distributed.run --nproc_per_node N script.py` (mpiexec
underneath), or with torchlike.multiprocessing.spawn and env:// rendezvous.
"""
from torchlike.distributed._store import (  # noqa: F401
    DistBackendError, DistError, DistNetworkError, DistStoreError, FileStore, HashStore, PrefixStore,
    QueueEmptyError, Store, TCPStore,
)
from torchlike.distributed._engine import Future, Work  # noqa: F401
from torchlike.distributed.distributed_c10d import (  # noqa: F401
    AllreduceCoalescedOptions, AllreduceOptions, AllToAllOptions, Backend, BackendConfig, BarrierOptions,
    BroadcastOptions, DebugLevel, GatherOptions, GroupMember, GroupName, P2POp, ProcessGroup, ProcessGroupGloo,
    ReduceOp, ReduceOptions, ReduceScatterOptions, ScatterOptions, all_gather, all_gather_coalesced,
    all_gather_into_tensor, all_gather_object, all_reduce, all_reduce_coalesced, all_to_all, all_to_all_single,
    barrier, batch_isend_irecv, breakpoint, broadcast, broadcast_object_list, default_pg_timeout,
    destroy_process_group, gather, gather_object, get_backend, get_backend_config, get_debug_level,
    get_default_backend_for_device, get_global_rank, get_group_rank, get_node_local_rank, get_pg_count,
    get_process_group_ranks, get_rank, get_world_size, group, init_process_group, irecv, is_available,
    is_backend_available, is_gloo_available, is_initialized, is_mpi_available, is_nccl_available,
    is_torchelastic_launched, is_ucc_available, is_xccl_available, isend, monitored_barrier, new_group,
    new_subgroups, new_subgroups_by_enumeration, recv, recv_object_list, reduce, reduce_op, reduce_scatter,
    reduce_scatter_tensor, register_rendezvous_handler, rendezvous, scatter, scatter_object_list, send,
    send_object_list, set_debug_level, set_debug_level_from_env,
)
from torchlike.distributed._reducer import BuiltinCommHookType, GradBucket, Logger, Reducer  # noqa: F401
