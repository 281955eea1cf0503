#!/usr/bin/env python3
"""Core speed figures for issue 2, as ratios against NumPy and PyTorch measured
in the same run (PyTorch only when installed).

    python tools/bench/bench_core.py [--quick]

time ratio < 1 means torchlike is faster; throughput ratio > 1 means faster.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import numpy as np  # noqa: E402

import torchlike as tl  # noqa: E402
from _timing import median_time  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None




def row(name, unit, values, higher_is_better):
    tlv, npv, thv = values.get("torchlike"), values.get("numpy"), values.get("torch")
    fmt = (lambda v: f"{v:10.3f}") if unit != "ns" else (lambda v: f"{v:10.0f}")
    cells = [f"{name:<34}", f"{unit:>7}"]
    for v in (tlv, npv, thv):
        cells.append(fmt(v) if v is not None else f"{'-':>10}")

    def ratio(ref):
        if ref is None or tlv is None:
            return f"{'-':>9}"
        return f"{(tlv / ref if higher_is_better else tlv / ref):9.2f}x"
    cells += [ratio(npv), ratio(thv)]
    print("  ".join(cells))


def header(what):
    print(f"\n{what}")
    print("  ".join([f"{'case':<34}", f"{'unit':>7}", f"{'torchlike':>10}", f"{'numpy':>10}", f"{'torch':>10}",
                     f"{'vs numpy':>10}", f"{'vs torch':>10}"]))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    a = p.parse_args()
    tl.set_num_threads(a.threads)
    if torch is not None:
        torch.set_num_threads(a.threads)
    print(f"threads={a.threads} torch={'%s' % torch.__version__ if torch else 'not installed'} numpy={np.__version__}")

    # ---- per-op overhead
    header("per-op overhead (time per call; ratio = torchlike time / other time, lower is better)")
    n = 20000 if a.quick else 200000
    x, y = tl.tensor([1.0]), tl.tensor([2.0])
    nx, ny = np.array([1.0], np.float32), np.array([2.0], np.float32)
    v = {"torchlike": median_time(lambda: x + y, n) * 1e9, "numpy": median_time(lambda: nx + ny, n) * 1e9}
    if torch is not None:
        tx, ty = torch.tensor([1.0]), torch.tensor([2.0])
        v["torch"] = median_time(lambda: tx + ty, n) * 1e9
    row("a + b, 1 element", "ns", v, False)
    v = {"torchlike": median_time(lambda: tl.add(x, y), n) * 1e9, "numpy": median_time(lambda: np.add(nx, ny), n) * 1e9}
    if torch is not None:
        v["torch"] = median_time(lambda: torch.add(tx, ty), n) * 1e9
    row("torchlike.add(a, b), 1 element", "ns", v, False)

    # ---- memory-bound elementwise (GB/s of array traffic; ratio > 1 is faster)
    header("memory traffic (GB/s moved; ratio = torchlike / other, higher is better)")
    N = 1 << 24
    rep = 3 if a.quick else 10
    na, nb = np.random.rand(N).astype(np.float32), np.random.rand(N).astype(np.float32)
    ta_, tb_ = tl.from_numpy(na.copy()), tl.from_numpy(nb.copy())
    th = (torch.from_numpy(na.copy()), torch.from_numpy(nb.copy())) if torch is not None else None
    gb3, gb2, gb1 = 3 * N * 4 / 1e9, 2 * N * 4 / 1e9, N * 4 / 1e9

    def bench(name, gb, f_tl, f_np, f_th):
        vals = {"torchlike": gb / median_time(f_tl, rep, 5), "numpy": gb / median_time(f_np, rep, 5)}
        if th is not None:
            vals["torch"] = gb / median_time(f_th, rep, 5)
        row(name, "GB/s", vals, True)

    bench("add out-of-place, 16M f32", gb3, lambda: ta_ + tb_, lambda: na + nb, lambda: th[0] + th[1])
    bench("add in-place, 16M f32", gb3, lambda: ta_.add_(tb_), lambda: np.add(na, nb, out=na),
          lambda: th[0].add_(th[1]))
    if hasattr(tl.Tensor, "sum"):
        bench("sum, 16M f32", gb1, lambda: ta_.sum(), lambda: na.sum(), lambda: th[0].sum())
    M = 4096
    m2, r1 = np.random.rand(M, M).astype(np.float32), np.random.rand(M).astype(np.float32)
    tm2, tr1 = tl.from_numpy(m2), tl.from_numpy(r1)
    thm = (torch.from_numpy(m2), torch.from_numpy(r1)) if torch is not None else None
    vals = {"torchlike": gb3 / median_time(lambda: tm2 + tr1, rep, 5), "numpy": gb3 / median_time(lambda: m2 + r1, rep, 5)}
    if thm is not None:
        vals["torch"] = gb3 / median_time(lambda: thm[0] + thm[1], rep, 5)
    row("broadcast add 4096x4096 + 4096", "GB/s", vals, True)
    vals = {"torchlike": gb3 / 3 / median_time(lambda: tm2.sum(dim=1), rep, 5),
            "numpy": gb3 / 3 / median_time(lambda: m2.sum(axis=1), rep, 5)}
    if thm is not None:
        vals["torch"] = gb3 / 3 / median_time(lambda: thm[0].sum(dim=1), rep, 5)
    row("sum(dim=1) 4096x4096", "GB/s", vals, True)
    bench("exp out-of-place, 16M f32", gb2, lambda: ta_.exp(), lambda: np.exp(na), lambda: th[0].exp())

    # ---- GEMM
    if hasattr(tl, "matmul"):
        header("float32 matmul (GFLOP/s; ratio = torchlike / other, higher is better)")
        for n_ in (1024, 2048):
            A, B = np.random.rand(n_, n_).astype(np.float32), np.random.rand(n_, n_).astype(np.float32)
            flop = 2 * n_ ** 3 / 1e9
            r = 1
            vals = {"torchlike": flop / median_time(lambda: tl.matmul(tl.from_numpy(A), tl.from_numpy(B)), r, 3),
                    "numpy": flop / median_time(lambda: A @ B, r, 3)}
            if torch is not None:
                TA, TB = torch.from_numpy(A), torch.from_numpy(B)
                vals["torch"] = flop / median_time(lambda: TA @ TB, r, 3)
            row(f"matmul {n_}x{n_}", "GFLOP/s", vals, True)

    # ---- import time (fresh interpreter, wall clock)
    header("import time (ms, fresh interpreter; ratio = torchlike / other, lower is better)")

    def import_ms(mod):
        ts = []
        for _ in range(3 if a.quick else 7):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", f"import {mod}"], check=True)
            ts.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(ts)
    vals = {"torchlike": import_ms("torchlike"), "numpy": import_ms("numpy")}
    if torch is not None:
        vals["torch"] = import_ms("torch")
    row("import", "ms", vals, False)


if __name__ == "__main__":
    main()
