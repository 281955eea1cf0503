"""What every rank runs under torchlike.distributed.run: sets the torchrun-style
environment from mpiexec's (RANK, LOCAL_RANK, WORLD_SIZE, ...), runs the user's
script or module as __main__, and if it raises, records the traceback for the
launcher and stops every rank of the job (PMI/MPI abort), so no rank is left
waiting in a collective for one that died.

Usage (the launcher builds it): python _rank_main.py ERROR_DIR NODE_RANK
NPROC_PER_NODE NNODES [-m] TARGET ARGS...
"""
import os
import runpy
import sys
import traceback


def main(argv):
    error_dir, node_rank, nproc, nnodes = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    rest = argv[4:]
    as_module = rest and rest[0] == "-m"
    if as_module:
        rest = rest[1:]
    target, args = rest[0], rest[1:]
    env = os.environ
    if "PMI_RANK" in env:  # started by mpiexec: its numbering is the job's
        local = int(env.get("MPI_LOCALRANKID", env["PMI_RANK"]))
        rank = int(env["PMI_RANK"])
    else:  # started directly by a multi-node launcher, which set RANK
        local = int(env["LOCAL_RANK"])
        rank = int(env["RANK"])
    env["RANK"] = str(rank)
    env["LOCAL_RANK"] = str(local)
    env["GROUP_RANK"] = str(node_rank)
    env["ROLE_RANK"] = str(rank)
    env["LOCAL_WORLD_SIZE"] = str(nproc)
    env["WORLD_SIZE"] = str(nproc * nnodes)
    env["ROLE_WORLD_SIZE"] = str(nproc * nnodes)
    env["TORCHELASTIC_RUN_ID"] = env.get("TORCHELASTIC_RUN_ID", "none")
    if env.get("TORCHLIKE_LAUNCH_LOCAL_RANK_ARG") == "1":
        args = [f"--local-rank={local}"] + args
    sys.argv = [target] + args
    try:
        if as_module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
            runpy.run_path(target, run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if code != 0:
            _fail(error_dir, rank, f"SystemExit: {e.code}\n", code)
        raise
    except BaseException:
        text = traceback.format_exc()
        sys.stderr.write(text)
        _fail(error_dir, rank, text, 1)


def _fail(error_dir, rank, text, code):
    try:
        with open(os.path.join(error_dir, f"rank{rank}.err"), "w") as f:
            f.write(text)
    except OSError:
        pass
    from torchlike.distributed._pmi import abort_job
    abort_job(code)


if __name__ == "__main__":
    main(sys.argv[1:])
