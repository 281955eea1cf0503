"""python -m torchlike.distributed.run: torchrun's interface on mpiexec.

    python -m torchlike.distributed.run --nproc_per_node N [--nnodes M --node_rank R
        --master_addr A --master_port P] [-m] script.py args...

One node: mpiexec (from the mpich package) starts N ranks; each gets RANK,
LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, so
init_process_group("gloo") (env://) works unchanged. Several nodes: the
launcher on each node starts its ranks itself and they join one MPI world
through the rendezvous store on the master (see _mpi_world.py). A rank that
raises aborts the job: the others stop within seconds and the launcher exits
non-zero, repeating that rank's traceback.
"""
import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

_OMP_MESSAGE = ("\n*****************************************\n"
                "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your "
                "system being overloaded, please further tune the variable for optimal performance in your "
                "application as needed. \n*****************************************")


def get_args_parser():
    p = argparse.ArgumentParser(description="torchlike distributed launcher (mpiexec underneath)")
    p.add_argument("--nnodes", type=str, default="1")
    p.add_argument("--nproc_per_node", "--nproc-per-node", type=str, default="1")
    p.add_argument("--node_rank", "--node-rank", type=int, default=0)
    p.add_argument("--master_addr", "--master-addr", type=str, default="127.0.0.1")
    p.add_argument("--master_port", "--master-port", type=int, default=None)
    p.add_argument("--standalone", action="store_true")
    p.add_argument("--rdzv_backend", "--rdzv-backend", type=str, default="static")
    p.add_argument("--rdzv_endpoint", "--rdzv-endpoint", type=str, default="")
    p.add_argument("--rdzv_id", "--rdzv-id", type=str, default="none")
    p.add_argument("--max_restarts", "--max-restarts", type=int, default=0)
    p.add_argument("-m", "--module", action="store_true", help="run the target as a module (python -m)")
    p.add_argument("--no_python", "--no-python", action="store_true")
    p.add_argument("training_script", type=str)
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def _free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _nproc(value):
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    if value == "gpu":
        raise ValueError("--nproc_per_node=gpu: torchlike's distributed backend is CPU-only for now")
    n = int(value)
    if n < 1:
        raise ValueError(f"--nproc_per_node must be >= 1, got {n}")
    return n


def _mpiexec():
    here = os.path.dirname(sys.executable)
    for cand in (os.path.join(here, "mpiexec.hydra"), os.path.join(here, "mpiexec"), shutil.which("mpiexec")):
        if cand and os.path.exists(cand):
            return cand
    raise RuntimeError("mpiexec not found: pip install mpich mpi4py (or torchlike[distributed])")


def run(args, local_rank_arg=False):
    nproc = _nproc(args.nproc_per_node)
    nnodes = int(str(args.nnodes).split(":")[-1])
    if not 0 <= args.node_rank < nnodes:
        raise ValueError(f"--node_rank {args.node_rank} is out of range for --nnodes {nnodes}")
    if args.rdzv_endpoint:
        host, _, port = args.rdzv_endpoint.partition(":")
        args.master_addr = host or args.master_addr
        args.master_port = int(port) if port else args.master_port
    if args.master_port is None:
        if nnodes > 1:
            args.master_port = 29500  # every node must agree on it
        else:
            args.master_port = _free_port()
    env = dict(os.environ)
    if "OMP_NUM_THREADS" not in env and nproc > 1:
        print(_OMP_MESSAGE, file=sys.stderr, flush=True)
        env["OMP_NUM_THREADS"] = "1"
    env["MASTER_ADDR"] = args.master_addr
    env["MASTER_PORT"] = str(args.master_port)
    env["PYTHONUNBUFFERED"] = env.get("PYTHONUNBUFFERED", "1")
    if local_rank_arg:
        env["TORCHLIKE_LAUNCH_LOCAL_RANK_ARG"] = "1"
    error_dir = tempfile.mkdtemp(prefix="torchlike_run_")
    rank_main = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_rank_main.py")
    target = (["-m"] if args.module else []) + [args.training_script] + list(args.training_script_args)
    if args.no_python:
        raise ValueError("--no_python is not supported: ranks run the Python rank wrapper")
    per_rank = [sys.executable, "-u", rank_main, error_dir, str(args.node_rank), str(nproc), str(nnodes)] + target
    if nnodes == 1:
        procs = [subprocess.Popen([_mpiexec(), "-n", str(nproc)] + per_rank, env=env)]
    else:
        procs = []
        for local in range(nproc):
            e = dict(env, RANK=str(args.node_rank * nproc + local), LOCAL_RANK=str(local))
            procs.append(subprocess.Popen(per_rank, env=e))
    try:
        code = _wait(procs)
    except KeyboardInterrupt:
        for p in procs:
            p.send_signal(signal.SIGINT)
        for p in procs:
            p.wait()
        code = 130
    if code != 0:
        _report(error_dir, code, args.training_script)
    shutil.rmtree(error_dir, ignore_errors=True)
    return code


def _wait(procs):
    """Exit code of the job: the first failure (after stopping the rest), else 0."""
    while True:
        codes = [p.poll() for p in procs]
        failed = [c for c in codes if c not in (None, 0)]
        if failed:
            for p in procs:
                if p.poll() is None:
                    p.terminate()
            deadline = time.monotonic() + 5
            for p in procs:
                try:
                    p.wait(max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    p.kill()
            return failed[0]
        if all(c == 0 for c in codes):
            return 0
        time.sleep(0.05)


def _report(error_dir, code, script):
    files = sorted(f for f in os.listdir(error_dir) if f.endswith(".err"))
    lines = ["=" * 60, f"{script} FAILED", "-" * 60, "Failures:"]
    for f in files:
        rank = f[len("rank"):-len(".err")]
        with open(os.path.join(error_dir, f)) as fh:
            text = fh.read()
        lines += [f"  rank: {rank}", f"  exitcode: {code}", "  traceback:", text.rstrip(), "-" * 60]
    if not files:
        lines.append(f"  exitcode: {code} (no rank recorded a Python traceback)")
    lines.append("=" * 60)
    print("\n".join(lines), file=sys.stderr, flush=True)


def main(args=None):
    args = get_args_parser().parse_args(args)
    sys.exit(run(args))


if __name__ == "__main__":
    main()
