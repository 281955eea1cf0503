#!/usr/bin/env python3
"""What the profiler costs per operator call (the 1-element add of bench_core).

    python tools/bench/bench_profiler.py [--baseline /path/to/other/checkout] [--calls 5000] [--repeat 51] [--pairs 7]

- on-overhead: the same process, the same add, with a profiling session
  recording (profile(), profile(record_shapes=True)) against none;
- off-overhead (--baseline): this checkout against another built checkout
  (one without the profiler hooks), no profiler active in either. Each runs in
  its own worker process; the workers are timed in turns (one repeat of each,
  then the next round) so a slow spell of the machine hits both alike; the
  figure is the ratio of the medians.

Ratios only mean something within one run on one machine (name the CPU; say
whether other work shared it).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from _timing import MIN_REPEATS, cpu_name, interleaved_median_times  # noqa: E402

WORKER = r"""
import sys, time
import torchlike as tl
tl.set_num_threads(1)
a = tl.ones(1); b = tl.ones(1)
add = tl.add
print(tl.__file__, flush=True)
for line in sys.stdin:
    n = int(line)
    t0 = time.perf_counter()
    for _ in range(n):
        add(a, b)
    print((time.perf_counter() - t0) / n, flush=True)
"""


def start_worker(checkout):
    env = dict(os.environ, PYTHONPATH=checkout)
    p = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         env=env, cwd="/")
    where = p.stdout.readline().strip()
    if not where.startswith(os.path.join(os.path.abspath(checkout), "torchlike")):
        p.kill()
        sys.exit(f"error: the worker for {checkout} imported torchlike from {where}")
    return p


def timed(p, n):
    p.stdin.write(f"{n}\n")
    p.stdin.flush()
    return float(p.stdout.readline())


def off_overhead(baseline, calls, repeat):
    """Median seconds per add in this checkout and in `baseline`, timed in turns."""
    mine, base = start_worker(ROOT), start_worker(baseline)
    try:
        for _ in range(3):  # warm-up
            timed(mine, calls)
            timed(base, calls)
        tm, tb = [], []
        for i in range(max(repeat, MIN_REPEATS)):
            # Alternate which goes first, so neither always follows the other.
            if i % 2:
                tb.append(timed(base, calls))
                tm.append(timed(mine, calls))
            else:
                tm.append(timed(mine, calls))
                tb.append(timed(base, calls))
        return statistics.median(tm), statistics.median(tb)
    finally:
        for p in (mine, base):
            p.stdin.close()
            p.wait()


def on_overhead(calls, repeat):
    sys.path.insert(0, ROOT)
    import torchlike as tl
    from torchlike.autograd.profiler import profile
    tl.set_num_threads(1)
    a, b = tl.ones(1), tl.ones(1)

    def plain():
        for _ in range(calls):
            tl.add(a, b)

    def profiled(**kw):
        def run():
            with profile(**kw):
                for _ in range(calls):
                    tl.add(a, b)
        return run

    from torchlike.autograd.profiler import _PC

    def recorded_only():
        # The C++ recording alone: the session's raw records, no Python events built.
        _PC._profiler_start(False, False)
        try:
            for _ in range(calls):
                tl.add(a, b)
        finally:
            _PC._profiler_stop()

    t_off, t_rec, t_on, t_shapes = interleaved_median_times(
        [plain, recorded_only, profiled(), profiled(record_shapes=True)], number=1, repeat=repeat)
    return t_off / calls, t_rec / calls, t_on / calls, t_shapes / calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", help="another built checkout to compare the unprofiled add with")
    ap.add_argument("--calls", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=51)
    ap.add_argument("--pairs", type=int, default=7, help="fresh worker pairs for the off-overhead")
    a = ap.parse_args()
    print(f"CPU: {cpu_name()}; 1 thread; {a.calls} adds of 1-element float32 tensors per repeat, "
          f"median of {max(a.repeat, MIN_REPEATS)} repeats")
    if a.baseline:
        # A worker process sometimes runs in a slow mode for its whole life (seen here:
        # the same build at 700 or 1250 ns/add from one process to the next, on a VM),
        # so several fresh pairs of workers are timed and the median pair ratio is taken.
        pairs = [off_overhead(a.baseline, a.calls, a.repeat) for _ in range(a.pairs)]
        ratios = sorted(tm / tb for tm, tb in pairs)
        for tm, tb in pairs:
            print(f"off-overhead  this checkout {tm * 1e9:8.0f} ns/add   baseline {tb * 1e9:8.0f} ns/add   "
                  f"ratio {tm / tb:6.3f}x")
        r = statistics.median(ratios)
        print(f"off-overhead  median of {len(pairs)} worker pairs: {r:6.3f}x  ({(r - 1) * 100:+.1f}%)")
    t_off, t_rec, t_on, t_shapes = on_overhead(a.calls, a.repeat)
    print(f"on-overhead   no profiler {t_off * 1e9:8.0f} ns/add")
    print(f"              recording only (C++ records, no Python events) {t_rec * 1e9:8.0f} ns/add "
          f"(+{(t_rec - t_off) * 1e9:.0f} ns, {t_rec / t_off:5.2f}x)")
    # The profile() figures include building the Python events at stop, amortised over the calls.
    print(f"              profile()                                      {t_on * 1e9:8.0f} ns/add "
          f"(+{(t_on - t_off) * 1e9:.0f} ns, {t_on / t_off:5.2f}x)")
    print(f"              profile(record_shapes=True)                    {t_shapes * 1e9:8.0f} ns/add "
          f"(+{(t_shapes - t_off) * 1e9:.0f} ns, {t_shapes / t_off:5.2f}x)")
    return 0


if __name__ == "__main__":
    t = time.perf_counter()
    rc = main()
    print(f"({time.perf_counter() - t:.1f} s)")
    sys.exit(rc)
