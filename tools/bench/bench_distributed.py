"""torchlike.distributed speed, as ratios measured in one run.

    python tools/bench/bench_distributed.py

1. all_reduce of a 64 MiB float32 tensor over 2 ranks against raw mpi4py
   Allreduce (in place) on the same buffer, timed in turns in the same job
   (target: torchlike >= 0.9x mpi4py's throughput).
2. One DDP training step of an MLP with 2 ranks (each half the batch) against
   one process training the same MLP on half the batch without DDP, every
   process with one intra-op thread (target: <= 1.2x). PyTorch's gloo DDP is
   measured the same way, when installed, for context.

Every number is a median of >= 15 timed repeats after warm-up (_timing.py).
Two ranks on a 2-core machine shared with other work: the DDP ratio includes
the all-reduce's own CPU time, which cannot overlap when both cores are busy.
"""
import os
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from _timing import cpu_name, interleaved_median_times, median_time  # noqa: E402

SIZES = (512, 1024, 1024, 10)
GLOBAL_BATCH = 128
MIB = 64


def _mlp(nn):
    layers = []
    for a, b in zip(SIZES[:-1], SIZES[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers[:-1])


def _step_fn(lib, model, opt, batch):
    x = lib.randn(batch, SIZES[0])
    y = lib.randint(0, SIZES[-1], (batch,))
    loss_fn = lib.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
    return step


def rank_main(use_torch):
    """Runs in each of the 2 ranks (launcher for torchlike, spawn for PyTorch)."""
    if use_torch:
        import torch as lib
        import torch.distributed as dist
    else:
        import torchlike as lib
        import torchlike.distributed as dist
    lib.set_num_threads(1)
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    out = {}
    if not use_torch:
        import numpy as np
        from mpi4py import MPI
        n = MIB * 1024 * 1024 // 4
        t = lib.ones(n)
        raw = np.ones(n, dtype=np.float32)
        comm = MPI.COMM_WORLD

        def ours():
            dist.all_reduce(t)

        def mpi():
            comm.Allreduce(MPI.IN_PLACE, raw, op=MPI.SUM)
        t_ours, t_mpi = interleaved_median_times([ours, mpi], warmup=2)
        out["allreduce"] = (t_ours, t_mpi)
    lib.manual_seed(0)
    model = _mlp(lib.nn)
    ddp = lib.nn.parallel.DistributedDataParallel(model)
    opt = lib.optim.SGD(ddp.parameters(), lr=0.01)
    out["ddp"] = median_time(_step_fn(lib, ddp, opt, GLOBAL_BATCH // 2), repeat=20, warmup=3)
    # The same comparison with less noise from the machine: in each rank, a
    # step of a plain model (no DDP, half the batch) and a DDP step in turns,
    # both ranks starting each step together, so both figures see the same
    # machine (two busy processes) at the same moments.
    import statistics
    import time
    plain_model = _mlp(lib.nn)
    plain = _step_fn(lib, plain_model, lib.optim.SGD(plain_model.parameters(), lr=0.01), GLOBAL_BATCH // 2)
    ddp_step = _step_fn(lib, ddp, opt, GLOBAL_BATCH // 2)
    tp, td = [], []
    for i in range(5 + 31):
        for fn, acc in ((plain, tp), (ddp_step, td)):
            dist.barrier()
            t0 = time.perf_counter()
            fn()
            acc.append(time.perf_counter() - t0)
    out["turns"] = (statistics.median(tp[5:]), statistics.median(td[5:]))
    if rank == 0:
        print("RESULT", repr(out), flush=True)
    dist.destroy_process_group()


def _torch_spawned(rank, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE="2",
                      OMP_NUM_THREADS="1")
    rank_main(True)


def single(use_torch):
    if use_torch:
        import torch as lib
    else:
        import torchlike as lib
    lib.set_num_threads(1)
    lib.manual_seed(0)
    model = _mlp(lib.nn)
    opt = lib.optim.SGD(model.parameters(), lr=0.01)
    print("RESULT", repr(median_time(_step_fn(lib, model, opt, GLOBAL_BATCH // 2), repeat=20, warmup=3)),
          flush=True)


def _result(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return eval(line[len("RESULT "):])
    raise RuntimeError(f"{cmd} failed:\n{p.stdout}\n{p.stderr}")


def main():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT] + [os.environ.get("PYTHONPATH", "")]),
               OMP_NUM_THREADS="1")
    me = os.path.abspath(__file__)
    ours = _result([sys.executable, "-m", "torchlike.distributed.run", "--nproc_per_node", "2", me, "--rank"], env)
    ours_single = _result([sys.executable, me, "--single"], env)
    print(f"CPU: {cpu_name()} ({os.cpu_count()} cores; say whether other work shared the machine)")
    t_ours, t_mpi = ours["allreduce"]
    gb = MIB / 1024
    print(f"all_reduce {MIB} MiB float32, 2 ranks: torchlike {t_ours * 1e3:.1f} ms ({gb / t_ours:.2f} GiB/s), "
          f"mpi4py Allreduce {t_mpi * 1e3:.1f} ms ({gb / t_mpi:.2f} GiB/s): torchlike at "
          f"{t_mpi / t_ours:.2f}x mpi4py's throughput (target >= 0.9x)")
    print(f"DDP MLP {SIZES} step, batch {GLOBAL_BATCH // 2} per rank, 1 thread each: 2 ranks "
          f"{ours['ddp'] * 1e3:.2f} ms vs 1 process on half the batch {ours_single * 1e3:.2f} ms: "
          f"{ours['ddp'] / ours_single:.2f}x (target <= 1.2x)")
    tp, td = ours["turns"]
    print(f"  in turns within the ranks (median of 31): plain step {tp * 1e3:.2f} ms, DDP step {td * 1e3:.2f} ms: "
          f"{td / tp:.2f}x")
    try:
        import torch  # noqa: F401
    except ImportError:
        print("PyTorch not installed: no gloo reference")
        return
    with socket.socket() as s:
        s.bind(("", 0))
        port = s.getsockname()[1]
    code = (f"import sys; sys.path.insert(0, {HERE!r}); import bench_distributed as b\n"
            f"import torch.multiprocessing as mp\n"
            f"if __name__ == '__main__': mp.spawn(b._torch_spawned, args=({port},), nprocs=2)\n")
    theirs = _result([sys.executable, "-c", code], env)
    theirs_single = _result([sys.executable, me, "--single-torch"], env)
    print(f"PyTorch gloo DDP, same MLP: 2 ranks {theirs['ddp'] * 1e3:.2f} ms vs 1 process on half the batch "
          f"{theirs_single * 1e3:.2f} ms: {theirs['ddp'] / theirs_single:.2f}x; torchlike's DDP step takes "
          f"{ours['ddp'] / theirs['ddp']:.2f}x PyTorch's")
    tp, td = theirs["turns"]
    print(f"  in turns within the ranks (median of 31): plain step {tp * 1e3:.2f} ms, DDP step {td * 1e3:.2f} ms: "
          f"{td / tp:.2f}x")


if __name__ == "__main__":
    if "--rank" in sys.argv:
        rank_main(False)
    elif "--single" in sys.argv:
        single(False)
    elif "--single-torch" in sys.argv:
        single(True)
    else:
        main()
