"""Rank programs for tests/test_distributed.py, run under the launcher
(`python -m torchlike.distributed.run ... distributed_worker.py CASE`) or by
multiprocessing.spawn (spawn_main). Every rank checks its own results against
NumPy / exact values and raises on a mismatch, which fails the job."""
import os
import sys
import time
from datetime import timedelta

import numpy as np

import torchlike as torch
import torchlike.distributed as dist
import torchlike.nn as nn


def close(a, b, tol=1e-5, what=""):
    a = a.detach().numpy() if isinstance(a, torch.Tensor) else np.asarray(a)
    b = b.detach().numpy() if isinstance(b, torch.Tensor) else np.asarray(b)
    if a.shape != b.shape or not np.allclose(a, b, rtol=tol, atol=tol):
        raise AssertionError(f"rank {dist.get_rank()}: {what}: {a} != {b}")


def rank_data(r, shape=(3, 4), dtype=np.float64):
    """What rank r contributes: distinct, exactly representable values."""
    n = int(np.prod(shape))
    return (np.arange(n, dtype=np.float64).reshape(shape) * (r + 1) + r - 1.5).astype(dtype)


def collectives():
    dist.init_process_group("gloo")
    r, n = dist.get_rank(), dist.get_world_size()
    assert int(os.environ["RANK"]) == r and int(os.environ["WORLD_SIZE"]) == n
    assert int(os.environ["LOCAL_RANK"]) == r and dist.get_node_local_rank() == r
    assert os.environ["MASTER_ADDR"] and int(os.environ["MASTER_PORT"]) > 0
    assert os.environ.get("OMP_NUM_THREADS") == "1"
    assert dist.is_initialized() and dist.get_backend() == "gloo"
    all_data = [rank_data(q) for q in range(n)]
    stacked = np.stack(all_data)

    # all_reduce: every op, contiguous and non-contiguous, several dtypes
    expect = {dist.ReduceOp.SUM: stacked.sum(0), dist.ReduceOp.PRODUCT: stacked.prod(0),
              dist.ReduceOp.MIN: stacked.min(0), dist.ReduceOp.MAX: stacked.max(0),
              dist.ReduceOp.AVG: stacked.mean(0)}
    for op, ref in expect.items():
        for dtype in (torch.float32, torch.float64):
            t = torch.from_numpy(all_data[r].copy()).to(dtype)
            dist.all_reduce(t, op=op)
            close(t, ref.astype(t.numpy().dtype), 1e-4, f"all_reduce {op}")
        nc = torch.from_numpy(all_data[r].T.copy()).t()  # non-contiguous view of the same values
        assert not nc.is_contiguous()
        dist.all_reduce(nc, op=op)
        close(nc, ref, 1e-9, f"all_reduce non-contiguous {op}")
    ints = torch.tensor([r + 1, 10 * r, -r], dtype=torch.int64)
    dist.all_reduce(ints)
    close(ints, np.array([n * (n + 1) // 2, 10 * n * (n - 1) // 2, -n * (n - 1) // 2]), 0, "int sum")
    flags = torch.tensor([r == 0, True, False])
    dist.all_reduce(flags)  # bool SUM is logical or
    assert flags.tolist() == [True, True, False]
    half = torch.tensor([1.5, -2.0], dtype=torch.bfloat16) * (r + 1)
    dist.all_reduce(half)
    close(half.float(), np.array([1.5, -2.0]) * n * (n + 1) / 2, 1e-2, "bf16 sum")
    try:
        dist.all_reduce(torch.ones(2, dtype=torch.int64), op=dist.ReduceOp.AVG)
        raise AssertionError("AVG on integers should raise")
    except ValueError as e:
        assert "AVG" in str(e)

    # zero-copy: the contiguous tensor's own memory is what MPI wrote
    t = torch.ones(4)
    ptr = t.data_ptr()
    dist.all_reduce(t)
    assert t.data_ptr() == ptr and t.tolist() == [float(n)] * 4

    # broadcast from every root, including into a non-contiguous view
    for root in range(n):
        t = torch.from_numpy(all_data[r].copy())
        dist.broadcast(t, src=root)
        close(t, all_data[root], 0, "broadcast")
        base = torch.zeros(4, 3, dtype=torch.float64)
        view = base.t()
        if r == root:
            view.copy_(torch.from_numpy(all_data[root]))
        dist.broadcast(view, src=root)
        close(base.t(), all_data[root], 0, "broadcast non-contiguous")

    # reduce to the last rank
    dst = n - 1
    t = torch.from_numpy(all_data[r].copy())
    dist.reduce(t, dst=dst, op=dist.ReduceOp.MAX)
    if r == dst:
        close(t, stacked.max(0), 0, "reduce")

    # all_gather / all_gather_into_tensor (concatenated and stacked layouts)
    outs = [torch.zeros(3, 4, dtype=torch.float64) for _ in range(n)]
    dist.all_gather(outs, torch.from_numpy(all_data[r].copy()))
    for q in range(n):
        close(outs[q], all_data[q], 0, "all_gather")
    cat = torch.zeros(3 * n, 4, dtype=torch.float64)
    dist.all_gather_into_tensor(cat, torch.from_numpy(all_data[r].copy()))
    close(cat, np.concatenate(all_data), 0, "all_gather_into_tensor")
    stack = torch.zeros(n, 3, 4, dtype=torch.float64)
    dist.all_gather_into_tensor(stack, torch.from_numpy(all_data[r].copy()))
    close(stack, stacked, 0, "all_gather_into_tensor stacked")

    # gather / scatter
    gl = [torch.zeros(3, 4, dtype=torch.float64) for _ in range(n)] if r == 0 else None
    dist.gather(torch.from_numpy(all_data[r].copy()), gl, dst=0)
    if r == 0:
        for q in range(n):
            close(gl[q], all_data[q], 0, "gather")
    out = torch.zeros(3, 4, dtype=torch.float64)
    dist.scatter(out, [torch.from_numpy(a.copy()) for a in all_data] if r == 1 else None, src=1)
    close(out, all_data[r], 0, "scatter")

    # reduce_scatter_tensor / reduce_scatter
    big = [rank_data(q, (n * 2, 3)) for q in range(n)]
    out = torch.zeros(2, 3, dtype=torch.float64)
    dist.reduce_scatter_tensor(out, torch.from_numpy(big[r].copy()))
    close(out, np.sum(big, 0)[2 * r:2 * r + 2], 1e-9, "reduce_scatter_tensor")
    out = torch.zeros(2, 3, dtype=torch.float64)
    dist.reduce_scatter(out, [torch.from_numpy(big[r][2 * q:2 * q + 2].copy()) for q in range(n)],
                        op=dist.ReduceOp.MIN)
    close(out, np.min(big, 0)[2 * r:2 * r + 2], 0, "reduce_scatter")

    # all_to_all_single, equal and uneven splits
    inp = torch.arange(n * 2, dtype=torch.float64) + 100 * r
    out = torch.zeros(n * 2, dtype=torch.float64)
    dist.all_to_all_single(out, inp)
    close(out, np.concatenate([np.arange(2 * r, 2 * r + 2) + 100 * q for q in range(n)]), 0, "all_to_all_single")
    in_splits = [q + 1 for q in range(n)]  # rank r sends q+1 rows to rank q
    out_splits = [r + 1] * n
    inp = torch.full((sum(in_splits), 2), float(r))
    out = torch.zeros(sum(out_splits), 2)
    dist.all_to_all_single(out, inp, out_splits, in_splits)
    close(out, np.repeat(np.arange(n, dtype=np.float32), r + 1)[:, None].repeat(2, 1), 0, "all_to_all uneven")
    outs = [torch.zeros(2) for _ in range(n)]
    dist.all_to_all(outs, [torch.full((2,), float(10 * r + q)) for q in range(n)])
    for q in range(n):
        close(outs[q], np.full(2, 10 * q + r, np.float32), 0, "all_to_all")

    # point to point: a ring, blocking and non-blocking
    nxt, prv = (r + 1) % n, (r - 1) % n
    send_t = torch.full((5,), float(r))
    recv_t = torch.zeros(5)
    reqs = [dist.isend(send_t, nxt), dist.irecv(recv_t, prv)]
    for w in reqs:
        w.wait()
    close(recv_t, np.full(5, prv, np.float32), 0, "isend/irecv ring")
    if r == 0:
        dist.send(torch.tensor([7.0, 8.0]), dst=n - 1, tag=3)
    if r == n - 1:
        got = torch.zeros(2)
        assert dist.recv(got, tag=3) == 0  # any source: the sender is reported
        assert got.tolist() == [7.0, 8.0]
    works = dist.batch_isend_irecv([dist.P2POp(dist.isend, send_t, nxt), dist.P2POp(dist.irecv, recv_t, prv)])
    for w in works:
        w.wait()

    # async collectives: handles complete and carry the result
    ts = [torch.full((1000,), float(r + i)) for i in range(4)]
    ws = [dist.all_reduce(t, async_op=True) for t in ts]
    for i, w in enumerate(ws):
        assert w.wait() is True and w.is_completed() and w.is_success()
        close(ts[i], np.full(1000, sum(q + i for q in range(n)), np.float32), 0, "async all_reduce")
    fut = dist.all_reduce(torch.ones(2), async_op=True).get_future()
    close(fut.wait()[0], np.full(2, float(n), np.float32), 0, "future")
    assert dist.barrier(async_op=True).wait()

    # object collectives
    objs = [{"rank": r, "msg": "x" * r}] if r == 0 else [None]
    dist.broadcast_object_list(objs, src=0)
    assert objs == [{"rank": 0, "msg": ""}]
    gathered = [None] * n
    dist.all_gather_object(gathered, ("r", r, [r] * r))
    assert gathered == [("r", q, [q] * q) for q in range(n)]
    out = [None]
    dist.scatter_object_list(out, [f"to{q}" for q in range(n)] if r == 0 else None, src=0)
    assert out == [f"to{r}"]
    g = [None] * n if r == 0 else None
    dist.gather_object(r * r, g, dst=0)
    if r == 0:
        assert g == [q * q for q in range(n)]
    if r == 0:
        dist.send_object_list([{"k": 1}, "two"], dst=1)
    elif r == 1:
        box = [None, None]
        assert dist.recv_object_list(box, src=0) == 0 and box == [{"k": 1}, "two"]

    # groups: a subgroup of ranks {0, last}, with the others outside it
    members = [0, n - 1]
    pg = dist.new_group(members)
    if r in members:
        assert dist.get_world_size(pg) == 2 and dist.get_rank(pg) == members.index(r)
        assert dist.get_process_group_ranks(pg) == members and dist.get_global_rank(pg, 1) == n - 1
        t = torch.tensor([float(r)])
        dist.all_reduce(t, group=pg)
        assert t.item() == float(n - 1)
        t = torch.tensor([float(r)])
        dist.broadcast(t, src=n - 1, group=pg)  # src is a global rank
        assert t.item() == float(n - 1)
    else:
        assert pg is dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(pg) == -1
    sub, subs = dist.new_subgroups(1)
    assert dist.get_world_size(sub) == 1 and len(subs) == n
    dist.monitored_barrier(timeout=timedelta(seconds=20))
    dist.barrier()
    dist.destroy_process_group()
    assert not dist.is_initialized()
    print(f"rank {r}: collectives ok", flush=True)


def raise_on_one():
    dist.init_process_group("gloo")
    if dist.get_rank() == 1:
        raise RuntimeError("rank one fails on purpose")
    dist.barrier()  # the others wait here for rank 1, which never comes
    time.sleep(60)


def timeout_case():
    dist.init_process_group("gloo", timeout=timedelta(seconds=2))
    if dist.get_rank() == 1:
        time.sleep(60)  # never reaches the collective
    t = torch.ones(3)
    dist.all_reduce(t)
    time.sleep(60)


# ---------------------------------------------------------------- training (spawn)

def _model(seed):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))


def _batches(steps, global_batch):
    g = np.random.default_rng(0)
    return [(g.standard_normal((global_batch, 6)).astype(np.float32),
             g.standard_normal((global_batch, 3)).astype(np.float32)) for _ in range(steps)]


def ddp_training(rank, world_size, port, error_dir):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    from torchlike.nn.parallel import DistributedDataParallel as DDP
    B = 4
    # every rank starts from a different seed: DDP's construction broadcast makes them equal
    model = _model(100 + rank)
    reference = _model(100)  # rank 0's initial weights, trained on the whole batch in one process
    ddp = DDP(model, bucket_cap_mb=0.0005)  # tiny buckets: several all-reduces overlap backward
    assert len(ddp.reducer.buckets) > 1
    assert all(k.startswith("module.") for k in ddp.state_dict())
    assert ddp.module is model
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1)
    loss_fn = nn.MSELoss()
    for x, y in _batches(3, B * world_size):
        sl = slice(rank * B, (rank + 1) * B)
        opt.zero_grad()
        loss_fn(ddp(torch.from_numpy(x[sl])), torch.from_numpy(y[sl])).backward()
        opt.step()
        ref_opt.zero_grad()
        loss_fn(reference(torch.from_numpy(x)), torch.from_numpy(y)).backward()
        ref_opt.step()
    for p, q in zip(model.parameters(), reference.parameters()):
        close(p, q, 1e-5, "DDP vs single process")

    # no_sync: two micro-batches, the first accumulated locally
    model2 = _model(7)
    reference2 = _model(7)
    ddp2 = DDP(model2)
    micro = _batches(2, B * world_size)
    with ddp2.no_sync():
        x, y = micro[0]
        loss_fn(ddp2(torch.from_numpy(x[rank * B:(rank + 1) * B])), torch.from_numpy(y[rank * B:(rank + 1) * B])).backward()
    local = [p.grad.clone() for p in model2.parameters()]
    x, y = micro[1]
    loss_fn(ddp2(torch.from_numpy(x[rank * B:(rank + 1) * B])), torch.from_numpy(y[rank * B:(rank + 1) * B])).backward()
    for x, y in micro:
        loss_fn(reference2(torch.from_numpy(x)), torch.from_numpy(y)).backward()
    for p, q in zip(model2.parameters(), reference2.parameters()):
        close(p.grad, q.grad, 1e-5, "no_sync accumulation")
    # inside no_sync the gradient stayed local (it differs between ranks)
    gathered = [torch.zeros_like(local[0]) for _ in range(world_size)]
    dist.all_gather(gathered, local[0])
    assert not torch.equal(gathered[0], gathered[1])

    # find_unused_parameters: a branch unused on every rank keeps grad None
    class Branchy(nn.Module):
        def __init__(self):
            super().__init__()
            self.used = nn.Linear(4, 2)
            self.unused = nn.Linear(4, 2)

        def forward(self, x):
            return self.used(x)
    torch.manual_seed(3)
    m = Branchy()
    ddp3 = DDP(m, find_unused_parameters=True)
    for _ in range(2):
        ddp3(torch.ones(2, 4) * (rank + 1)).sum().backward()
    assert m.unused.weight.grad is None
    # d(sum(Wx+b))/dW = sum over batch of x = 2*(rank+1) per entry; averaged over ranks, twice accumulated
    expect = 2 * 2 * np.mean([q + 1 for q in range(world_size)])
    close(m.used.weight.grad, np.full((2, 4), expect, np.float32), 1e-5, "find_unused grads")

    # without find_unused_parameters, an unused parameter leaves the reduction
    # unfinished, and the next forward says so (a forward alone is fine)
    torch.manual_seed(3)
    m = Branchy()
    ddp4 = DDP(m)
    ddp4(torch.ones(2, 4))
    ddp4(torch.ones(2, 4)).sum().backward()
    try:
        ddp4(torch.ones(2, 4))
        raise AssertionError("an unfinished reduction should be reported")
    except RuntimeError as e:
        assert "Expected to have finished reduction" in str(e) and "unused.weight" in str(e)

    # SyncBatchNorm: statistics and gradients of BatchNorm over the global batch
    C = 3
    g = np.random.default_rng(5)
    xs = g.standard_normal((2 * world_size, C, 5)).astype(np.float64)
    coef = g.standard_normal(xs.shape)
    bn = nn.BatchNorm1d(C).double()
    sbn = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.BatchNorm1d(C))).double()[0]
    assert isinstance(sbn, nn.SyncBatchNorm)
    with torch.no_grad():
        for mod in (bn, sbn):
            mod.weight.copy_(torch.tensor([1.0, 2.0, -0.5]))
            mod.bias.copy_(torch.tensor([0.1, 0.0, 0.3]))
    xfull = torch.from_numpy(xs).requires_grad_()
    outfull = bn(xfull)
    (outfull * torch.from_numpy(coef)).sum().backward()
    xl = torch.from_numpy(xs[2 * rank:2 * rank + 2].copy()).requires_grad_()
    outl = sbn(xl)
    (outl * torch.from_numpy(coef[2 * rank:2 * rank + 2])).sum().backward()
    close(outl, outfull[2 * rank:2 * rank + 2], 1e-9, "SyncBatchNorm output")
    close(sbn.running_mean, bn.running_mean, 1e-9, "SyncBatchNorm running_mean")
    close(sbn.running_var, bn.running_var, 1e-9, "SyncBatchNorm running_var")
    close(xl.grad, xfull.grad[2 * rank:2 * rank + 2], 1e-9, "SyncBatchNorm input grad")
    wg = sbn.weight.grad.clone()
    dist.all_reduce(wg)
    close(wg, bn.weight.grad, 1e-9, "SyncBatchNorm weight grad (summed over ranks)")
    dist.destroy_process_group()


def spawn_raise(rank, world_size, port, unused=None):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    if rank == 1:
        raise ValueError("spawned rank 1 fails")
    dist.barrier()
    time.sleep(60)


def spawn_timeout(rank, world_size, port, unused=None):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world_size, timeout=timedelta(seconds=2))
    if rank == 1:
        time.sleep(60)
    work = dist.all_reduce(torch.ones(2), async_op=True)
    work.wait()  # raises DistBackendError after 2 s


def init_method_case(rank, world_size, port, method):
    url = f"tcp://127.0.0.1:{port}" if method == "tcp" else f"file://{method}"
    dist.init_process_group("gloo", init_method=url, rank=rank, world_size=world_size)
    t = torch.tensor([float(rank + 1)])
    dist.all_reduce(t, op=dist.ReduceOp.PRODUCT)
    assert t.item() == float(np.prod(np.arange(1, world_size + 1)))
    try:
        dist.init_process_group("gloo", init_method=url, rank=rank, world_size=world_size)
        raise AssertionError("a second init_process_group should raise")
    except ValueError as e:
        assert "twice" in str(e)
    dist.destroy_process_group()


if __name__ == "__main__":
    if os.environ.get("TL_DIST_TEST_DUMP"):
        import faulthandler
        faulthandler.dump_traceback_later(float(os.environ["TL_DIST_TEST_DUMP"]), exit=True)
    {"collectives": collectives, "raise": raise_on_one, "timeout": timeout_case}[sys.argv[1]]()
