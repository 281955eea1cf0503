"""The gradient reducer behind DistributedDataParallel.

Parameters are grouped into buckets (in reverse registration order, which is
roughly the order backward produces their gradients; one dtype per bucket, a
bucket closes at bucket_bytes_cap, the first at first_bucket_bytes_cap so
communication starts early). A hook on each parameter's AccumulateGrad node
fires once its .grad is final for this backward; when a bucket is full its
all-reduce is launched asynchronously (on the distributed engine's worker
thread), so communication overlaps the rest of backward. Without a comm hook
or find_unused_parameters, each .grad of the bucket is reduced in place (no
copy); otherwise the gradients are copied into the bucket's flat buffer,
which the hook receives. Buckets are launched in index order on every
rank, as MPI needs the same collective order everywhere. When the last bucket
is launched, the reducer waits for all of them and writes the averaged
gradients back into .grad.
"""
import enum

import torchlike
from torchlike.distributed import distributed_c10d as c10d
from torchlike.nn.modules.module import _flatten_tensors

_DEFAULT_BUCKET_BYTES = 25 * 1024 * 1024
_DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024


class BuiltinCommHookType(enum.Enum):
    ALLREDUCE = 0
    FP16_COMPRESS = 1


class GradBucket:
    """What a communication hook receives: one bucket's flat gradient buffer
    and the parameters whose gradients it holds."""

    def __init__(self, index, buffer, params, offsets, is_last):
        self._index, self._buffer, self._params, self._offsets, self._is_last = index, buffer, params, offsets, is_last

    def index(self):
        return self._index

    def buffer(self):
        return self._buffer

    def set_buffer(self, buffer):
        self._buffer = buffer

    def gradients(self):
        return [self._buffer[o:o + p.numel()].view(p.shape) for p, o in zip(self._params, self._offsets)]

    def parameters(self):
        return list(self._params)

    def is_last(self):
        return self._is_last


def compute_bucket_assignment_by_size(tensors, bucket_size_limits, expect_sparse_gradient=None,
                                      tensor_indices=None):
    """Bucket lists of tensor indices (reverse order is the caller's choice):
    one dtype per bucket, the i-th bucket capped at bucket_size_limits[i]
    bytes (the last limit applies to the rest). Returns (buckets, limits)."""
    order = list(tensor_indices) if tensor_indices is not None else list(range(len(tensors)))
    buckets, limits, open_ = [], [], {}
    for i in order:
        t = tensors[i]
        key = t.dtype
        cur = open_.get(key)
        if cur is None:
            cur = open_[key] = [[], 0, bucket_size_limits[min(len(buckets) + len(open_),
                                                              len(bucket_size_limits) - 1)]]
        cur[0].append(i)
        cur[1] += t.numel() * t.element_size()
        if cur[1] >= cur[2]:
            buckets.append(cur[0])
            limits.append(cur[2])
            del open_[key]
    for cur in open_.values():
        buckets.append(cur[0])
        limits.append(cur[2])
    return buckets, limits


def _accumulator(p):
    """p's AccumulateGrad node (the same node every backward uses, while held)."""
    return p.expand_as(p).grad_fn.next_functions[0][0]


class Reducer:
    def __init__(self, params, bucket_indices, per_bucket_size_limits=None, process_group=None,
                 expect_sparse_gradients=None, bucket_bytes_cap=_DEFAULT_BUCKET_BYTES,
                 find_unused_parameters=False, gradient_as_bucket_view=False, param_to_name_mapping=None,
                 first_bucket_bytes_cap=_DEFAULT_FIRST_BUCKET_BYTES):
        self.params = list(params)
        self.pg = c10d._group(process_group)
        self.find_unused_parameters = find_unused_parameters
        self.bucket_bytes_cap = bucket_bytes_cap
        self.names = param_to_name_mapping or {}
        self.buckets = [list(b) for b in bucket_indices]
        self._where = {}
        self._flat, self._offsets, self._sizes = [], [], []
        for b, idx in enumerate(self.buckets):
            dtypes = {self.params[i].dtype for i in idx}
            if len(dtypes) != 1:
                raise RuntimeError(f"Reducer: bucket {b} mixes dtypes {dtypes}")
            offs, n = [], 0
            for i in idx:
                self._where[i] = (b, n)
                offs.append(n)
                n += self.params[i].numel()
            self._offsets.append(offs)
            self._sizes.append((n, self.params[idx[0]].dtype))
            self._flat.append(None)  # made on first use: the in-place path (_direct) needs none
        self._comm_hook = None
        self._hook_state = None
        self._expect = False
        self._accs, self._handles = [], []
        for i, p in enumerate(self.params):
            acc = _accumulator(p)
            self._accs.append(acc)  # held: the hook lives on this node
            self._handles.append(acc.register_hook(lambda *unused, i=i: self._ready(i)))
        self.num_iterations = 0
        self.num_buckets_reduced = 0

    # ---- per iteration
    def prepare_for_backward(self, outputs=()):
        if self._expect and 0 < self._pending_total < len(self.params):
            # Some gradients were reduced in the last backward, others never
            # arrived: a forward without backward (evaluation with grad mode
            # on) is fine, a half-finished reduction is not.
            names = [self.names.get(i, str(i)) for i in range(len(self.params)) if not self._is_ready[i]]
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. This error "
                "indicates that your module has parameters that were not used in producing loss. You can enable "
                "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
                "`torch.nn.parallel.DistributedDataParallel`. Parameters which did not receive grad: "
                + ", ".join(names))
        self._pending = [len(b) for b in self.buckets]
        self._pending_total = len(self.params)
        self._is_ready = [False] * len(self.params)
        self._works = [None] * len(self.buckets)
        self._next = 0
        self._local_used = [True] * len(self.params)
        self._expect = True
        self.num_iterations += 1
        if self.find_unused_parameters:
            reached = self._reachable(outputs)
            unused = [i for i, p in enumerate(self.params) if id(p) not in reached]
            for i in unused:
                self._local_used[i] = False
            for i in unused:
                self._ready(i)

    def no_sync_iteration(self):
        self._expect = False

    @staticmethod
    def _reachable(outputs):
        """ids of the leaf tensors the autograd graph of `outputs` leads to."""
        seen_nodes, leaves, stack = set(), set(), []

        for o in _flatten_tensors(outputs)[0]:
            if o.grad_fn is not None:
                stack.append(o.grad_fn)
            elif o.requires_grad:
                leaves.add(id(o))
        while stack:
            node = stack.pop()
            if id(node) in seen_nodes:
                continue
            seen_nodes.add(id(node))
            try:
                var = node.variable  # AccumulateGrad nodes only
            except AttributeError:
                var = None
            if var is not None:
                leaves.add(id(var))
            for nxt, _ in node.next_functions:
                if nxt is not None:
                    stack.append(nxt)
        return leaves

    def _bucket(self, b):
        """Bucket b's flat gradient buffer (what a comm hook receives)."""
        if self._flat[b] is None:
            n, dtype = self._sizes[b]
            self._flat[b] = torchlike.zeros(n, dtype=dtype)
        return self._flat[b]

    def _direct(self):
        """Whether buckets are reduced in place in each .grad (no flat copy).
        Every rank decides alike (from construction arguments only), as MPI
        needs the same collectives everywhere: without a comm hook (which
        wants the flat buffer) and without find_unused_parameters (whose
        gradients may be missing on some ranks, so it zero-fills a buffer),
        every parameter's .grad exists when its bucket launches."""
        return self._comm_hook is None and not self.find_unused_parameters

    def _ready(self, i):
        if not self._expect or self._is_ready[i]:
            return
        self._is_ready[i] = True
        b, off = self._where[i]
        if not self._direct():
            p = self.params[i]
            flat = self._bucket(b)
            with torchlike.no_grad():
                if p.grad is None:
                    flat[off:off + p.numel()].zero_()
                else:
                    flat[off:off + p.numel()].copy_(p.grad.detach().reshape(-1))
        self._pending[b] -= 1
        self._pending_total -= 1
        while self._next < len(self.buckets) and self._pending[self._next] == 0:
            self._launch(self._next)
            self._next += 1
        if self._next == len(self.buckets):
            self._finalize()

    def _launch(self, b):
        if self._direct():
            # One in-place all-reduce per gradient, queued in order on the
            # engine's worker: no copy into the bucket and back.
            works = []
            for i in self.buckets[b]:
                p = self.params[i]
                if not p.grad.is_contiguous():
                    p.grad = p.grad.contiguous()
                works.append(c10d.all_reduce(p.grad, group=self.pg, async_op=True))
            self._works[b] = works
        elif self._comm_hook is not None:
            bucket = GradBucket(b, self._bucket(b), [self.params[i] for i in self.buckets[b]], self._offsets[b],
                                b == len(self.buckets) - 1)
            self._works[b] = self._comm_hook(self._hook_state, bucket)
        else:
            # The sum is reduced; the average is taken in _finalize's copy to
            # .grad, so the bucket is not read and written once more for it.
            self._works[b] = c10d.all_reduce(self._bucket(b), group=self.pg, async_op=True)

    def _finalize(self):
        self._expect = False
        used = None
        if self.find_unused_parameters:
            used = torchlike.tensor([1 if u else 0 for u in self._local_used], dtype=torchlike.int32)
            c10d.all_reduce(used, group=self.pg)
            used = used.tolist()
        world = self.pg.size()
        if self._direct():
            with torchlike.no_grad():
                for b, works in enumerate(self._works):
                    for i, work in zip(self.buckets[b], works):
                        work.wait()
                        self.params[i].grad.div_(world)
                    self.num_buckets_reduced += 1
            return
        for b, work in enumerate(self._works):
            result = work.wait()
            if self._comm_hook is not None:
                value = result if isinstance(result, (list, torchlike.Tensor)) else work.value()
                if isinstance(value, list):
                    value = value[0]
                if value is not self._bucket(b):
                    self._bucket(b).copy_(value)
            self.num_buckets_reduced += 1
        # The default reduction is a sum (see _launch): divided here, on the
        # way to .grad. A comm hook's result is already what it wants.
        if self._comm_hook is not None:
            world = 1
        with torchlike.no_grad():
            for b, idx in enumerate(self.buckets):
                flat = self._bucket(b)
                for i, off in zip(idx, self._offsets[b]):
                    p = self.params[i]
                    if used is not None and not used[i]:
                        continue  # no rank used it: leave .grad as it was
                    g = flat[off:off + p.numel()].view(p.shape)
                    if p.grad is None:
                        p.grad = g / world if world != 1 else g.clone()
                    elif world != 1:
                        torchlike.div(g, world, out=p.grad)
                    else:
                        p.grad.copy_(g)

    def register_comm_hook(self, state, hook):
        if self._comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        self._hook_state, self._comm_hook = state, hook

    def register_builtin_comm_hook(self, hook_type):
        if hook_type == BuiltinCommHookType.ALLREDUCE:
            def hook(state, bucket):
                buf = bucket.buffer()
                buf.div_(self.pg.size())
                return c10d.all_reduce(buf, group=self.pg, async_op=True).get_future()
        elif hook_type == BuiltinCommHookType.FP16_COMPRESS:
            def hook(state, bucket):
                buf = bucket.buffer()
                # Gradients travel at float16 precision, as PyTorch's hook sends them.
                compressed = (buf / self.pg.size()).half()
                work = c10d.all_reduce(compressed, group=self.pg, async_op=True)

                class _Decompress:
                    def wait(self_inner):
                        work.wait()
                        return [compressed.to(buf.dtype)]

                    def value(self_inner):
                        return [compressed.to(buf.dtype)]
                return _Decompress()
        else:
            raise ValueError(f"unknown builtin comm hook {hook_type}")
        self.register_comm_hook(None, hook)

    def remove_hooks(self):
        for h in self._handles:
            try:
                h.remove()
            except Exception:
                pass
        self._handles = []


class Logger:
    """DDP's construction and runtime facts (what PyTorch's Logger records)."""

    def __init__(self, reducer):
        self.reducer = reducer
        self.data = {}

    def set_construction_data_and_log(self, module_name, device_ids, output_device, broadcast_buffers,
                                      has_sync_bn=False, static_graph=False):
        r = self.reducer
        self.data.update(module_name=module_name, device_ids=device_ids, output_device=output_device,
                         broadcast_buffers=broadcast_buffers, has_sync_bn=has_sync_bn, static_graph=static_graph,
                         world_size=r.pg.size(), rank=r.pg.rank(), backend_name=str(r.pg._backend),
                         bucket_cap_bytes=r.bucket_bytes_cap, find_unused_parameters=r.find_unused_parameters,
                         num_parameter_tensors=len(r.params), bucket_sizes=[n * dt.itemsize
                                                                             for n, dt in r._sizes])

    def _get_ddp_logging_data(self):
        d = dict(self.data)
        d["num_iterations"] = self.reducer.num_iterations
        d["num_buckets_reduced"] = self.reducer.num_buckets_reduced
        return d

    def _set_static_graph(self):
        self.data["static_graph"] = True
