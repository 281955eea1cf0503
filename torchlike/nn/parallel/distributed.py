"""DistributedDataParallel: data-parallel training over torchlike.distributed.

Each process holds a replica; construction broadcasts rank 0's parameters and
buffers so replicas start equal; backward all-reduces gradient buckets as they
fill (torchlike.distributed.Reducer), leaving every replica with the gradient
averaged over the ranks, as if one process had run the concatenated batch.
"""
import contextlib

import torchlike
from torchlike import distributed as dist
from torchlike.distributed._reducer import (_DEFAULT_FIRST_BUCKET_BYTES, Logger, Reducer,
                                            compute_bucket_assignment_by_size)
from torchlike.nn.modules.module import Module

__all__ = ["DistributedDataParallel"]


def _sync_tensors(tensors, pg, src=0):
    """Broadcasts `tensors` from group rank `src`, one flat message per dtype."""
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    with torchlike.no_grad():
        for group in by_dtype.values():
            flat = torchlike.cat([t.detach().reshape(-1) for t in group])
            dist.broadcast(flat, group=pg, group_src=src)
            off = 0
            for t in group:
                t.copy_(flat[off:off + t.numel()].view(t.shape))
                off += t.numel()


class DistributedDataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True, init_sync=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, delay_all_reduce_named_params=None,
                 param_to_hook_all_reduce=None, mixed_precision=None, device_mesh=None,
                 skip_all_reduce_unused_params=False):
        super().__init__()
        if not dist.is_initialized():
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.")
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        devices = {p.device.type for p in module.parameters()}
        if devices != {"cpu"}:
            raise RuntimeError(f"DistributedDataParallel: parameters on {sorted(devices)}; torchlike's backend "
                               "(MPI) handles CPU modules only for now")
        if device_ids is not None or output_device is not None:
            raise ValueError(f"DistributedDataParallel device_ids and output_device arguments only work with "
                             f"single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                             f"{device_ids}, output_device {output_device}, and module parameters "
                             f"{ {p.device for p in module.parameters()} }.")
        self.module = module
        self.device_ids = None
        self.output_device = None
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.process_group = process_group if process_group is not None else dist.GroupMember.WORLD
        self._pg = dist.distributed_c10d._group(process_group)
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        self._module_buffers = [b for b in module.buffers()]
        if init_sync:
            _sync_tensors([p for p in module.parameters()] + self._module_buffers, self._pg)
        names = {id(p): n for n, p in module.named_parameters()}
        self._params = params
        limits = [min(_DEFAULT_FIRST_BUCKET_BYTES, self.bucket_bytes_cap), self.bucket_bytes_cap]
        buckets, _ = compute_bucket_assignment_by_size(params, limits,
                                                       tensor_indices=list(reversed(range(len(params)))))
        self.reducer = Reducer(params, buckets, process_group=self._pg, bucket_bytes_cap=self.bucket_bytes_cap,
                               find_unused_parameters=find_unused_parameters,
                               param_to_name_mapping={i: names.get(id(p), str(i)) for i, p in enumerate(params)})
        self.logger = Logger(self.reducer)
        has_sync_bn = any(type(m).__name__ == "SyncBatchNorm" for m in module.modules())
        self.logger.set_construction_data_and_log(type(module).__name__, None, None, broadcast_buffers,
                                                  has_sync_bn, static_graph)

    def forward(self, *inputs, **kwargs):
        if self.require_forward_param_sync and self.broadcast_buffers and self._module_buffers \
                and self._pg.size() > 1:
            _sync_tensors(self._module_buffers, self._pg)
        if torchlike.is_grad_enabled() and self.require_backward_grad_sync:
            # Without unused-parameter detection the reducer is reset (and a
            # previous, half-finished reduction reported) before the forward.
            if not self.find_unused_parameters:
                self.reducer.prepare_for_backward()
            output = self.module(*inputs, **kwargs)
            if self.find_unused_parameters:
                self.reducer.prepare_for_backward(output)
        else:
            self.reducer.no_sync_iteration()
            output = self.module(*inputs, **kwargs)
        return output

    @contextlib.contextmanager
    def no_sync(self):
        """Backward passes inside the block accumulate gradients locally; the
        first synchronised backward after it all-reduces the accumulated sum."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def register_comm_hook(self, state, hook):
        """hook(state, bucket: GradBucket) -> Future of the reduced bucket tensor."""
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        self.reducer.register_comm_hook(state, hook)

    def _register_builtin_comm_hook(self, comm_hook_type):
        self.reducer.register_builtin_comm_hook(comm_hook_type)

    def _get_ddp_logging_data(self):
        return self.logger._get_ddp_logging_data()

    def _set_static_graph(self):
        self.static_graph = True
        self.logger._set_static_graph()

    def will_sync_module_buffers(self):
        return self.require_forward_param_sync and self.broadcast_buffers and len(self._module_buffers) > 0

    def __getstate__(self):
        raise TypeError("DistributedDataParallel cannot be pickled: wrap the module again in each process")
