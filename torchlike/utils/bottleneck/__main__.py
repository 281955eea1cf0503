"""python -m torchlike.utils.bottleneck script.py [args]

Runs the script twice, once under cProfile and once under torchlike's
autograd profiler, and prints the environment and both summaries, as
PyTorch's torch.utils.bottleneck does. The script should finish in a bounded
time (profile a few iterations, not a whole training run).
"""
import argparse
import cProfile
import io
import os
import pstats
import sys

import torchlike
from torchlike.autograd import profiler

DESCRIPTION = """
`bottleneck` is a tool that can be used as an initial step for debugging
bottlenecks in your program.

It summarizes runs of your script with the Python profiler and torchlike's
autograd profiler. Because your script will be profiled, please ensure that it
exits in a finite amount of time.
"""


def redirect_argv(new_argv):
    sys.argv[:] = new_argv[:]


def compiled_with_cuda(cfg):
    return f"compiled w/ CUDA {cfg.get('cuda_version')}" if cfg.get("use_cuda") else "not compiled w/ CUDA"


def run_env_analysis():
    from torchlike.__config__ import _build_config
    cfg = _build_config()
    lines = ["--------------------------------------------------------------------------------",
             "  Environment Summary",
             "--------------------------------------------------------------------------------",
             f"torchlike {torchlike.__version__} {compiled_with_cuda(cfg)}",
             f"Running with Python {sys.version.split()[0]} and "
             f"{'CUDA' if torchlike.cuda.is_available() else 'no CUDA device'}",
             f"Compiler: {cfg.get('compiler', 'unknown')}, threads: {torchlike.get_num_threads()}"]
    return "\n".join(lines)


def _run(code, globs):
    # A script that ends with sys.exit(0) has finished normally; any other
    # exit status, like an exception, ends the analysis with it.
    try:
        exec(code, globs, None)
    except SystemExit as e:
        if e.code not in (None, 0):
            raise


def run_cprofile(code, globs, launch_blocking=False):
    prof = cProfile.Profile()
    prof.enable()
    try:
        _run(code, globs)
    finally:
        prof.disable()
    return prof


def run_autograd_prof(code, globs):
    with profiler.profile() as prof:
        _run(code, globs)
    return prof


def print_cprofile_summary(prof, sortby="tottime", topk=15):
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats(sortby).print_stats(topk)
    print("--------------------------------------------------------------------------------")
    print("  cProfile output")
    print("--------------------------------------------------------------------------------")
    print(s.getvalue())


def print_autograd_prof_summary(prof, sortby="cpu_time_total", topk=15):
    print("--------------------------------------------------------------------------------")
    print("  autograd profiler output (CPU mode)")
    print("--------------------------------------------------------------------------------")
    print(f"        top {topk} events sorted by {sortby}")
    print(prof.key_averages().table(sort_by=sortby, row_limit=topk))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog="python -m torchlike.utils.bottleneck", description=DESCRIPTION)
    parser.add_argument("scriptfile", type=str, help="Path to the script to be run.")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="Command-line arguments to be passed to the script.")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    scriptfile = args.scriptfile
    if not os.path.isfile(scriptfile):
        print(f"bottleneck: no such script: {scriptfile}", file=sys.stderr)
        return 2
    redirect_argv([scriptfile] + args.args)
    sys.path.insert(0, os.path.dirname(os.path.abspath(scriptfile)))
    with open(scriptfile, "rb") as stream:
        code = compile(stream.read(), scriptfile, "exec")

    def fresh_globals():
        return {"__file__": scriptfile, "__name__": "__main__", "__package__": None, "__cached__": None}

    print(DESCRIPTION)
    print(run_env_analysis())
    print("Running your script with cProfile")
    cprofile_prof = run_cprofile(code, fresh_globals())
    print("Running your script with the autograd profiler...")
    autograd_prof = run_autograd_prof(code, fresh_globals())
    print_cprofile_summary(cprofile_prof)
    print_autograd_prof_summary(autograd_prof)
    return 0


if __name__ == "__main__":
    sys.exit(main())
