"""Advanced-indexing timings vs PyTorch and NumPy, measured in the same run
on the same data and thread count. Not a test.

    python tools/bench/bench_indexing.py
"""
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import median_time  # noqa: E402

import torchlike as tl  # noqa: E402

try:
    import torch
except Exception:  # pragma: no cover - PyTorch is optional
    torch = None

N = 1 << 20  # 1M elements


def cases(rng):
    x = rng.standard_normal(N).astype(np.float32)
    mask = x > 0.0  # about half the elements
    idx = rng.integers(0, N, size=N).astype(np.int64)  # with duplicates
    vals = rng.standard_normal(N).astype(np.float32)
    x2 = rng.standard_normal((1024, 1024)).astype(np.float32)
    rows = rng.integers(0, 1024, size=512).astype(np.int64)

    def getitem_mask(lib):
        a, m = lib(x), lib(mask)
        return lambda: a[m]

    def index_put_acc(lib):
        a, i, v = lib(x.copy()), lib(idx), lib(vals)
        if lib is np.asarray:
            return lambda: np.add.at(a, i, v)
        return lambda: a.index_put_((i,), v, accumulate=True)

    def setitem_mask(lib):
        a, m = lib(x.copy()), lib(mask)

        def f():
            a[m] = 1.0
        return f

    def getitem_rows(lib):
        a, r = lib(x2), lib(rows)
        return lambda: a[r]

    def getitem_int_1m(lib):
        a, i = lib(x), lib(idx)
        return lambda: a[i]

    def nonzero(lib):
        m = lib(mask)
        if lib is np.asarray:
            return lambda: np.argwhere(m)
        return lambda: m.nonzero()

    return [("x[mask] 1M float32", getitem_mask),
            ("index_put_(accumulate=True) 1M", index_put_acc),
            ("x[mask] = 1.0  1M", setitem_mask),
            ("x[int64 idx] 1M gather", getitem_int_1m),
            ("x[rows] 512 rows of 1024x1024", getitem_rows),
            ("nonzero 1M bool", nonzero)]


def run(threads):
    rng = np.random.default_rng(0)
    tl.set_num_threads(threads)
    if torch is not None:
        torch.set_num_threads(threads)
    print(f"threads: {threads}   torch: {torch.__version__ if torch else 'absent'}")
    print(f"{'case':36s} {'torchlike':>11s} {'torch':>11s} {'numpy':>11s} {'vs torch':>9s} {'vs numpy':>9s}")
    for name, make in cases(rng):
        fns = {"tl": make(tl.from_numpy), "np": make(np.asarray)}
        if torch is not None:
            fns["pt"] = make(torch.from_numpy)
        # Interleaved: each round times every library once, so a burst of load
        # from elsewhere on the machine lands on all of them alike.
        times = {k: [] for k in fns}
        for _ in range(3):
            for k, f in fns.items():
                times[k].append(median_time(f, repeat=15))
        t = {k: statistics.median(v) for k, v in times.items()}
        t_tl, t_np, t_pt = t["tl"], t["np"], t.get("pt", float("nan"))
        print(f"{name:36s} {t_tl * 1e3:9.3f}ms {t_pt * 1e3:9.3f}ms {t_np * 1e3:9.3f}ms "
              f"{t_pt / t_tl:8.2f}x {t_np / t_tl:8.2f}x")


def main():
    # One thread as well as all: on a loaded machine a parallel region can
    # wait a scheduler slice for its second thread, for both libraries alike.
    full = tl.get_num_threads()
    for threads in sorted({1, full}):
        run(threads)
    print("ratios > 1: torchlike faster")


if __name__ == "__main__":
    main()
