"""gather / scatter / index_* timings against PyTorch and NumPy, measured in
the same run with the same thread count. Not a test.

Ratios are time(reference) / time(torchlike): above 1.0 torchlike is faster.
"""
import sys

import numpy as np

from _timing import median_time  # noqa: E402
import torchlike as tl

try:
    import torch
except Exception:  # pragma: no cover
    torch = None


def cases(rng):
    x = rng.standard_normal((2048, 1024)).astype(np.float32)
    idx1 = rng.integers(0, 1024, size=(2048, 512)).astype(np.int64)
    idx0 = rng.integers(0, 2048, size=(1024, 1024)).astype(np.int64)
    rows = rng.integers(0, 2048, size=4096).astype(np.int64)
    src_rows = rng.standard_normal((4096, 1024)).astype(np.float32)
    v = rng.standard_normal(1 << 20).astype(np.float32)
    seg = rng.integers(0, 4096, size=1 << 20).astype(np.int64)
    flat_axis1 = np.broadcast_to(idx1, idx1.shape)
    return [
        # name, torchlike/torch call (module m, args), numpy call or None, args
        ("gather dim=1 (2048x1024 <- 2048x512)", lambda m, a, i: m.gather(a, 1, i),
         lambda a, i: np.take_along_axis(a, i, 1), (x, idx1)),
        ("gather dim=0 (2048x1024 <- 1024x1024)", lambda m, a, i: m.gather(a, 0, i),
         lambda a, i: np.take_along_axis(a[:, :1024], i, 0), (x, idx0)),
        ("scatter_add dim=1", lambda m, a, i: m.zeros(2048, 1024).scatter_add_(1, i, a[:, :512]),
         None, (x, flat_axis1)),
        ("index_select dim=0 (4096 rows of 1024)", lambda m, a, i: m.index_select(a, 0, i),
         lambda a, i: np.take(a, i, 0), (x, rows)),
        ("index_add_ dim=0 (4096 rows of 1024)", lambda m, a, i: m.zeros(2048, 1024).index_add_(0, i, a),
         lambda a, i: np.add.at(np.zeros((2048, 1024), np.float32), i, a), (src_rows, rows)),
        ("scatter_reduce sum 1M -> 4096", lambda m, a, i: m.zeros(4096).scatter_reduce(0, i, a, "sum"),
         lambda a, i: np.bincount(i, a, 4096), (v, seg)),
        ("scatter_reduce amax 1M -> 4096", lambda m, a, i: m.zeros(4096).scatter_reduce(0, i, a, "amax",
                                                                                         include_self=False),
         None, (v, seg)),
        ("scatter_reduce mean 1M -> 4096", lambda m, a, i: m.zeros(4096).scatter_reduce(0, i, a, "mean"),
         None, (v, seg)),
    ]


def main():
    rng = np.random.default_rng(0)
    if len(sys.argv) > 1:  # e.g. `--threads 1`
        tl.set_num_threads(int(sys.argv[-1]))
    if torch is not None:
        torch.set_num_threads(tl.get_num_threads())
    print(f"threads: {tl.get_num_threads()}   ratio = reference time / torchlike time (>1: torchlike faster)")
    print(f"{'case':42s} {'torchlike':>10s} {'torch':>10s} {'vs torch':>9s} {'numpy':>10s} {'vs numpy':>9s}")
    for name, f, npf, args in cases(rng):
        ta = [tl.tensor(a) for a in args]
        t_tl = median_time(lambda: f(tl, *ta))
        line = f"{name:42s} {t_tl * 1e3:9.3f}ms"
        if torch is not None:
            pa = [torch.tensor(np.ascontiguousarray(a)) for a in args]
            t_pt = median_time(lambda: f(torch, *pa))
            line += f" {t_pt * 1e3:9.3f}ms {t_pt / t_tl:8.2f}x"
        else:
            line += f" {'-':>10s} {'-':>9s}"
        if npf is not None:
            t_np = median_time(lambda: npf(*args))
            line += f" {t_np * 1e3:9.3f}ms {t_np / t_tl:8.2f}x"
        print(line)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
