"""The PrivateUse1 test backend (tests/extension_backend/): how long
cpp_extension.load takes to build it, and what an op costs on it.

    python tools/bench/bench_extension_backend.py [--cold N] [--warm N] [--size N] [--threads N]

- cold load: an empty build folder to an imported, installed backend (three
  C++ files compiled and linked with ninja, then imported), each in a fresh
  process so nothing is cached in memory (cpp_extension does not use ccache);
- warm load: load() again in a fresh process with the build folder in place
  (ninja's up-to-date check and the import);
- per op, the time on npu and on CPU, and the ratio npu/CPU: a native npu
  kernel (add) costs the CPU kernel plus its npu allocation; an op through
  the CPU fallback pays two copies of each input and one of each result on
  top (all host memory here, so the copies are memcpy-speed).

Medians: builds over their repeats (seconds each, so fewer than 15); ops
with tools/bench/_timing.py (median of >= 15 repeats after warm-up,
interleaved so a busy spell of the machine hits both sides alike), with
OMP_NUM_THREADS=1 unless --threads says otherwise: on a machine shared with
other work, a fallback op's three parallel regions (copy in, kernel, copy
out) each wait for a descheduled worker thread, which measured the machine's
load (ratios of 100x and more) rather than the backend. There is no PyTorch
figure: PyTorch's equivalent needs its own out-of-tree backend."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import cpu_name, interleaved_median_times  # noqa: E402

BACKEND = os.path.join(ROOT, "tests", "extension_backend")
SOURCES = [os.path.join(BACKEND, f) for f in ("npu_device.cpp", "npu_ops.cpp", "npu_module.cpp")]

LOAD = """\
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, sys.argv[1])
import torchlike as tl
t1 = time.perf_counter()
from torchlike.utils import cpp_extension as ce
npu = ce.load("npu_backend_bench", sys.argv[3:], build_directory=sys.argv[2])
npu.install(1)
assert npu.device_count() == 1
print(time.perf_counter() - t1)
"""


def time_load(build_dir):
    out = subprocess.run([sys.executable, "-c", LOAD, ROOT, build_dir, *SOURCES], check=True,
                         capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cold", type=int, default=3)
    p.add_argument("--warm", type=int, default=5)
    p.add_argument("--size", type=int, default=256, help="matrix side for the op timings")
    p.add_argument("--threads", type=int, default=1, help="OMP_NUM_THREADS for the op timings (0: leave as is)")
    a = p.parse_args()
    if a.threads:
        os.environ["OMP_NUM_THREADS"] = str(a.threads)  # read when torchlike is first imported, below
    print(f"CPU: {cpu_name()} ({os.cpu_count()} cores, shared with other work: figures are indicative)")

    cold, warm = [], []
    for _ in range(a.cold):
        with tempfile.TemporaryDirectory() as build:
            cold.append(time_load(build))
    with tempfile.TemporaryDirectory() as build:
        time_load(build)
        for _ in range(a.warm):
            warm.append(time_load(build))
    print(f"cpp_extension.load of the npu backend (3 sources), import of torchlike excluded:")
    print(f"  cold (empty build folder): {statistics.median(cold):7.2f} s  (median of {a.cold})")
    print(f"  warm (built, unchanged):   {statistics.median(warm) * 1e3:7.1f} ms (median of {a.warm})")

    import numpy as np
    import torchlike as tl
    from torchlike.utils import cpp_extension as ce
    with tempfile.TemporaryDirectory() as build:
        npu = ce.load("npu_backend_bench", SOURCES, build_directory=build)
        npu.install(1)
        tl.utils.rename_privateuse1_backend("npu")
        n = a.size
        rng = np.random.default_rng(0)
        xc = tl.tensor(rng.standard_normal((n, n)), dtype=tl.float32)
        yc = tl.tensor(rng.standard_normal((n, n)), dtype=tl.float32)
        xn, yn = xc.to("npu"), yc.to("npu")
        cases = [
            ("add (native kernel)", lambda x, y: x + y),
            ("mul (CPU fallback)", lambda x, y: x * y),
            ("relu (CPU fallback)", lambda x, y: tl.relu(x)),
            ("mm (CPU fallback)", lambda x, y: x @ y),
            ("sum (CPU fallback)", lambda x, y: x.sum()),
            ("add_ in place (fallback)", lambda x, y: x.add_(y, alpha=0.0)),
            ("view (native kernel)", lambda x, y: x.view(-1)),
        ]
        threads = os.environ.get("OMP_NUM_THREADS", "default")
        print(f"\nper call, {n}x{n} float32, OMP_NUM_THREADS={threads} (median of >= 15, interleaved)")
        print(f"{'op':28s} {'npu us':>10s} {'cpu us':>10s} {'npu/cpu':>8s}")
        for name, f in cases:
            t_npu, t_cpu = interleaved_median_times([lambda: f(xn, yn), lambda: f(xc, yc)], number=20)
            print(f"{name:28s} {t_npu * 1e6:10.1f} {t_cpu * 1e6:10.1f} {t_npu / t_cpu:8.2f}")
        del xn, yn
        npu.uninstall()


if __name__ == "__main__":
    main()
