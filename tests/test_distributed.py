"""torchlike.distributed and torchlike.nn.parallel.

Multi-process tests run real jobs on loopback: 2 and 3 ranks under the
launcher (mpiexec underneath) and through multiprocessing.spawn (the PMI
bootstrap); the rank programs are in distributed_worker.py and check their
values against NumPy themselves. Single-process tests cover the stores,
names and DataParallel's CPU behaviour."""
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from datetime import timedelta

import numpy as np
import pytest

import torchlike as torch
import torchlike.distributed as dist
import torchlike.nn as nn

pytest.importorskip("mpi4py")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKER = os.path.join(ROOT, "tests", "distributed_worker.py")


def _env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([ROOT, os.path.join(ROOT, "tests")] +
                                        ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.pop("OMP_NUM_THREADS", None)
    env.update(extra)
    return env


def _run(cmd, timeout, env=None):
    """subprocess.run in a session of its own, so that a hang is cleaned up
    whole (ranks included) instead of leaving orphans behind."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env or _env(),
                            cwd=ROOT, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{cmd} hung for {timeout} s:\n{out}\n{err}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _launch(nproc, *args, launcher="run", timeout=90, env=None):
    cmd = [sys.executable, "-m", f"torchlike.distributed.{launcher}", "--nproc_per_node", str(nproc)] + list(args)
    t0 = time.monotonic()
    p = _run(cmd, timeout, env)
    return p, time.monotonic() - t0


def _free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _spawn(fn_name, nproc, timeout=90, extra_args="None"):
    code = textwrap.dedent(f"""
        import torchlike.multiprocessing as mp
        import distributed_worker as w
        if __name__ == "__main__":
            mp.spawn(w.{fn_name}, args=({nproc}, {_free_port()}, {extra_args}), nprocs={nproc})
            print("SPAWN OK")
    """)
    t0 = time.monotonic()
    p = _run([sys.executable, "-c", code], timeout)
    return p, time.monotonic() - t0


# ---------------------------------------------------------------- multi-process jobs

@pytest.mark.parametrize("nproc", [2, 3])
def test_collectives_under_launcher(nproc):
    p, _ = _launch(nproc, WORKER, "collectives")
    assert p.returncode == 0, p.stdout + p.stderr
    for r in range(nproc):
        assert f"rank {r}: collectives ok" in p.stdout
    # the launcher says once that it set OMP_NUM_THREADS=1 per rank (PyTorch's message)
    assert "Setting OMP_NUM_THREADS environment variable for each process to be 1" in p.stderr


@pytest.mark.parametrize("nproc", [2, 3])
def test_ddp_syncbn_via_spawn(nproc):
    # DDP == single process on the concatenated batch, no_sync accumulation,
    # find_unused_parameters, SyncBatchNorm == BatchNorm over the global batch
    p, _ = _spawn("ddp_training", nproc)
    assert p.returncode == 0 and "SPAWN OK" in p.stdout, p.stdout + p.stderr


def test_rank_that_raises_stops_the_job():
    p, elapsed = _launch(3, WORKER, "raise", timeout=60)
    assert p.returncode != 0
    assert elapsed < 20, f"the other ranks were not stopped promptly ({elapsed:.1f} s)"
    assert "rank one fails on purpose" in p.stderr
    assert "rank: 1" in p.stderr and "FAILED" in p.stderr  # the launcher's summary names the rank


def test_collective_timeout_aborts_all_ranks():
    p, elapsed = _launch(2, WORKER, "timeout", timeout=60)
    assert p.returncode != 0
    # timeout 2 s + 5 s, plus process start-up
    assert elapsed < 2 + 5 + 8, f"took {elapsed:.1f} s"
    assert "all_reduce" in p.stderr and "rank(s) that did not arrive: 1" in p.stderr, p.stderr


@pytest.mark.parametrize("method", ["tcp", "file"])
def test_init_methods_via_spawn(method, tmp_path):
    arg = repr("tcp" if method == "tcp" else str(tmp_path / "rendezvous"))
    p, _ = _spawn("init_method_case", 2, extra_args=arg)
    assert p.returncode == 0 and "SPAWN OK" in p.stdout, p.stdout + p.stderr


def test_spawned_collective_timeout():
    # the waiting rank raises DistBackendError naming the collective and the
    # missing rank; spawn reports it and stops the rank that never arrived
    p, elapsed = _spawn("spawn_timeout", 2, timeout=60)
    assert p.returncode != 0 and elapsed < 2 + 5 + 8, (elapsed, p.stderr)
    assert "DistBackendError" in p.stderr and "all_reduce" in p.stderr
    assert "rank(s) that did not arrive: 1" in p.stderr


def test_spawned_rank_that_raises():
    p, elapsed = _spawn("spawn_raise", 2, timeout=60)
    assert p.returncode != 0
    assert "spawned rank 1 fails" in p.stderr
    assert elapsed < 30


def test_pytorch_ddp_tutorial_via_spawn(tmp_path):
    # https://pytorch.org/tutorials/intermediate/ddp_tutorial.html (CPU variant),
    # unchanged but for the imports and a free port.
    script = tmp_path / "ddp_tutorial.py"
    script.write_text(textwrap.dedent(f"""
        import os
        import torchlike as torch
        import torchlike.distributed as dist
        import torchlike.nn as nn
        import torchlike.optim as optim
        import torchlike.multiprocessing as mp
        from torchlike.nn.parallel import DistributedDataParallel as DDP

        def setup(rank, world_size):
            os.environ['MASTER_ADDR'] = 'localhost'
            os.environ['MASTER_PORT'] = '{_free_port()}'
            dist.init_process_group("gloo", rank=rank, world_size=world_size)

        def cleanup():
            dist.destroy_process_group()

        class ToyModel(nn.Module):
            def __init__(self):
                super(ToyModel, self).__init__()
                self.net1 = nn.Linear(10, 10)
                self.relu = nn.ReLU()
                self.net2 = nn.Linear(10, 5)

            def forward(self, x):
                return self.net2(self.relu(self.net1(x)))

        def demo_basic(rank, world_size):
            print(f"Running basic DDP example on rank {{rank}}.")
            setup(rank, world_size)
            model = ToyModel()
            ddp_model = DDP(model)
            loss_fn = nn.MSELoss()
            optimizer = optim.SGD(ddp_model.parameters(), lr=0.001)
            optimizer.zero_grad()
            outputs = ddp_model(torch.randn(20, 10))
            labels = torch.randn(20, 5)
            loss_fn(outputs, labels).backward()
            optimizer.step()
            # the replicas stay identical after the step
            w = model.net1.weight.detach().clone()
            ws = [torch.zeros_like(w) for _ in range(world_size)]
            dist.all_gather(ws, w)
            assert all(torch.equal(x, ws[0]) for x in ws)
            cleanup()

        def run_demo(demo_fn, world_size):
            mp.spawn(demo_fn, args=(world_size,), nprocs=world_size, join=True)

        if __name__ == "__main__":
            run_demo(demo_basic, 2)
            print("TUTORIAL DONE")
    """))
    p = _run([sys.executable, str(script)], 90)
    assert p.returncode == 0 and "TUTORIAL DONE" in p.stdout, p.stdout + p.stderr
    assert "Running basic DDP example on rank 1." in p.stdout


def test_launch_alias_passes_local_rank(tmp_path):
    script = tmp_path / "show.py"
    script.write_text("import os, sys\nprint('ARGS', sys.argv[1:], os.environ['LOCAL_RANK'], os.environ['RANK'])\n")
    p, _ = _launch(1, str(script), "x", launcher="launch")
    assert p.returncode == 0, p.stderr
    assert "ARGS ['--local-rank=0', 'x'] 0 0" in p.stdout
    p, _ = _launch(1, "--use_env", str(script), "x", launcher="launch")
    assert "ARGS ['x'] 0 0" in p.stdout


# ---------------------------------------------------------------- stores (one process)

def _store_contract(store):
    store.set("a", "1")
    assert store.get("a") == b"1"
    assert store.add("n", 5) == 5 and store.add("n", -2) == 3 and store.get("n") == b"3"
    assert store.compare_set("a", "1", "2") == b"2"
    assert store.compare_set("a", "1", "3") == b"2"  # no swap: returns the current value
    assert store.compare_set("fresh", "", "x") == b"x"
    assert store.check(["a", "n"]) and not store.check(["missing"])
    store.append("log", b"ab")
    store.append("log", b"cd")
    assert store.get("log") == b"abcd"
    assert store.delete_key("a") and not store.delete_key("a")
    store.set_timeout(timedelta(milliseconds=200))
    t0 = time.monotonic()
    with pytest.raises(dist.DistStoreError):
        store.get("never")
    assert time.monotonic() - t0 < 5
    with pytest.raises(dist.DistStoreError):
        store.wait(["never"], timedelta(milliseconds=100))
    store.queue_push("q", b"1")
    store.queue_push("q", b"2")
    assert store.queue_len("q") == 2 and store.queue_pop("q") == b"1" and store.queue_pop("q") == b"2"
    with pytest.raises(dist.QueueEmptyError):
        store.queue_pop("q", block=False)


def test_hash_store():
    s = dist.HashStore()
    _store_contract(s)
    assert s.num_keys() == 3  # n, fresh, log ("a" was deleted; queues are not keys)


def test_file_store(tmp_path):
    path = str(tmp_path / "store")
    s = dist.FileStore(path, 2)
    _store_contract(s)
    other = dist.FileStore(path, 2)  # a second handle sees the same keys
    assert other.get("n") == b"3" and other.num_keys() == 3


def test_tcp_store_between_threads():
    master = dist.TCPStore("127.0.0.1", 0, 2, True, timedelta(seconds=10), wait_for_workers=False)
    assert master.port > 0
    client = dist.TCPStore("127.0.0.1", master.port, 2, False, timedelta(seconds=10))
    _store_contract(client)
    client.set_timeout(timedelta(seconds=10))
    got = []
    t = threading.Thread(target=lambda: got.append(client.get("late")))
    t.start()
    time.sleep(0.1)
    master.set("late", b"v")  # get blocks until another process sets the key
    t.join(5)
    assert got == [b"v"]
    prefixed = dist.PrefixStore("p", master)
    prefixed.set("k", "v")
    assert master.get("p/k") == b"v" and prefixed.get("k") == b"v"
    with pytest.raises(dist.DistNetworkError):
        dist.TCPStore("127.0.0.1", _free_port(), None, False, timedelta(milliseconds=300))


def test_tcp_store_waits_for_workers():
    port = _free_port()
    results = []

    def worker():
        results.append(dist.TCPStore("127.0.0.1", port, 3, False, timedelta(seconds=10)))
    threads = [threading.Thread(target=worker) for _ in range(2)]
    for th in threads:
        th.start()
    master = dist.TCPStore("127.0.0.1", port, 3, True, timedelta(seconds=10))  # returns once all joined
    for th in threads:
        th.join(10)
    assert len(results) == 2 and master.num_keys() == 0


# ---------------------------------------------------------------- names, errors

def test_names_and_enums():
    assert dist.is_available() and dist.is_gloo_available() and dist.is_mpi_available()
    assert not dist.is_nccl_available() and not dist.is_initialized()
    assert dist.Backend("GLOO") == "gloo" and dist.Backend.MPI == "mpi"
    assert dist.BackendConfig("cpu:gloo,cuda:nccl").get_device_backend_map() == {"cpu": "gloo", "cuda": "nccl"}
    assert dist.get_default_backend_for_device("cpu") == "gloo"
    assert dist.ReduceOp.SUM != dist.ReduceOp.MAX and dist.ReduceOp(dist.ReduceOp.AVG) == dist.ReduceOp.AVG
    assert dist.reduce_op.SUM == dist.ReduceOp.SUM
    assert dist.default_pg_timeout == timedelta(minutes=30)
    dist.set_debug_level(dist.DebugLevel.INFO)
    assert dist.get_debug_level() == dist.DebugLevel.INFO
    dist.set_debug_level(dist.DebugLevel.OFF)


def test_uninitialized_errors():
    with pytest.raises(ValueError, match="not been initialized"):
        dist.get_rank()
    with pytest.raises(ValueError, match="not been initialized"):
        dist.all_reduce(torch.ones(2))
    with pytest.raises(ValueError, match="not been initialized"):
        nn.parallel.DistributedDataParallel(nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="NCCL"):
        dist.init_process_group("nccl", init_method="tcp://127.0.0.1:1", rank=0, world_size=1)


def test_bucket_assignment():
    from torchlike.distributed._reducer import compute_bucket_assignment_by_size
    ts = [torch.zeros(256), torch.zeros(256), torch.zeros(10, dtype=torch.float64), torch.zeros(256)]
    buckets, limits = compute_bucket_assignment_by_size(ts, [1024, 2048], tensor_indices=[3, 2, 1, 0])
    # 1 KiB first bucket closes after one float32 tensor; float64 gets its own bucket
    assert buckets[0] == [3] and sorted(sum(buckets, [])) == [0, 1, 2, 3]
    assert all(len({ts[i].dtype for i in b}) == 1 for b in buckets)


def test_pmi_process_mapping():
    from torchlike.distributed._pmi import _process_mapping
    assert _process_mapping(["a", "a", "a"]) == "(vector,(0,1,3))"
    assert _process_mapping(["a", "a", "b", "b"]) == "(vector,(0,1,2),(1,1,2))"


# ---------------------------------------------------------------- DataParallel on CPU

def test_data_parallel_without_gpus_runs_module():
    torch.manual_seed(0)
    m = nn.Linear(4, 3)
    dp = nn.DataParallel(m)
    x = torch.randn(5, 4)
    assert dp.module is m and dp.device_ids == []
    np.testing.assert_allclose(dp(x).detach().numpy(), m(x).detach().numpy())
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]
    np.testing.assert_allclose(nn.parallel.data_parallel(m, x).detach().numpy(), m(x).detach().numpy())


def test_scatter_gather_replicate_parallel_apply_cpu():
    from torchlike.nn.parallel import gather, parallel_apply, replicate, scatter
    x = torch.arange(12.).reshape(6, 2)
    parts = scatter((x, "tag"), ["cpu", "cpu", "cpu"])
    assert len(parts) == 3 and all(p[1] == "tag" for p in parts)
    np.testing.assert_array_equal(parts[1][0].numpy(), x.numpy()[2:4])
    back = gather([p[0] for p in parts], "cpu")
    np.testing.assert_array_equal(back.numpy(), x.numpy())
    d = gather([{"a": torch.ones(1)}, {"a": torch.zeros(1)}], -1)
    assert d["a"].tolist() == [1.0, 0.0]
    torch.manual_seed(1)
    m = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    reps = replicate(m, ["cpu", "cpu"])
    outs = parallel_apply(reps, [(p[0],) for p in parts[:2]])
    for o, p in zip(outs, parts[:2]):
        np.testing.assert_allclose(o.detach().numpy(), m(p[0]).detach().numpy(), rtol=1e-6)
    # gradients from a replica reach the original parameters
    outs[0].sum().backward()
    assert m[0].weight.grad is not None
    with pytest.raises(ValueError, match="in replica 1"):
        parallel_apply([lambda t: t, lambda t: (_ for _ in ()).throw(ValueError("boom"))], [x, x])


def test_sync_batchnorm_single_process_is_batchnorm():
    torch.manual_seed(0)
    x = torch.randn(4, 3, 5)
    bn = nn.BatchNorm1d(3)
    sbn = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.BatchNorm1d(3)))[0]
    np.testing.assert_allclose(sbn(x).detach().numpy(), bn(x).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_pytorch_names_parity():
    torch_ = pytest.importorskip("torch")
    import torch.distributed as tdist
    assert str(tdist.Backend("GLOO")) == str(dist.Backend("GLOO"))
    assert {"SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"} <= set(dir(tdist.ReduceOp))
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"):
        assert hasattr(dist.ReduceOp, name)
    assert tdist.default_pg_timeout == dist.default_pg_timeout
    del torch_


def test_launcher_two_nodes_on_loopback(tmp_path):
    # --nnodes 2: each node's launcher starts its own ranks, which join one
    # MPI world through the store on the master (no mpiexec across nodes)
    script = tmp_path / "two_nodes.py"
    script.write_text(textwrap.dedent("""
        import os
        import torchlike as torch
        import torchlike.distributed as dist
        dist.init_process_group("gloo")
        r = dist.get_rank()
        assert r == int(os.environ["RANK"]) and dist.get_world_size() == 4
        assert int(os.environ["LOCAL_RANK"]) == r % 2 and int(os.environ["GROUP_RANK"]) == r // 2
        t = torch.tensor([float(r)])
        dist.all_reduce(t)
        assert t.item() == 6.0
        print("NODE RANK OK", r)
    """))
    port = _free_port()
    common = ["--nnodes", "2", "--nproc_per_node", "2", "--master_addr", "127.0.0.1", "--master_port", str(port)]
    cmd = [sys.executable, "-m", "torchlike.distributed.run"]
    other = subprocess.Popen(cmd + common + ["--node_rank", "1", str(script)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=_env())
    p = subprocess.run(cmd + common + ["--node_rank", "0", str(script)], capture_output=True, text=True,
                       timeout=90, env=_env())
    out1, err1 = other.communicate(timeout=90)
    assert p.returncode == 0 and other.returncode == 0, p.stderr + err1
    assert sorted(line for line in (p.stdout + out1).splitlines() if "NODE RANK OK" in line) == \
        [f"NODE RANK OK {r}" for r in range(4)]
