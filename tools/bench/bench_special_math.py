"""Special functions and pointwise extras against PyTorch (and SciPy where it
has the function), 1M float32 and float64 elements, ratios measured in one run.

    python tools/bench/bench_special_math.py

A ratio > 1 means torchlike is faster. Every special function here computes
in double and rounds once (csrc/aten/native/SpecialFunctions.h), so float32
pays double-precision cost where PyTorch runs a float algorithm.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import median_time  # noqa: E402

import torchlike as tl  # noqa: E402

try:
    import torch
except ImportError:
    torch = None
try:
    import scipy.special as sps
except ImportError:
    sps = None

N = 1 << 20
CASES = [  # (name, torchlike fn, torch fn, scipy fn, value range)
    ("erf", tl.erf, "erf", "erf", (-3, 3)),
    ("erfinv", tl.erfinv, "erfinv", "erfinv", (-0.99, 0.99)),
    ("lgamma", tl.lgamma, "lgamma", "gammaln", (0.1, 10)),
    ("digamma", tl.digamma, "digamma", "psi", (0.1, 10)),
    ("i0", tl.i0, "i0", "i0", (-10, 10)),
    ("special.i1e", tl.special.i1e, "special.i1e", "i1e", (-10, 10)),
    ("special.bessel_j0", tl.special.bessel_j0, "special.bessel_j0", "j0", (-30, 30)),
    ("special.modified_bessel_k0", tl.special.modified_bessel_k0, "special.modified_bessel_k0", "k0", (0.1, 10)),
    ("special.ndtri", tl.special.ndtri, "special.ndtri", "ndtri", (0.01, 0.99)),
    ("sinc", tl.sinc, "sinc", None, (-5, 5)),
]
BINARY = [
    ("logaddexp", tl.logaddexp, "logaddexp"),
    ("xlogy", tl.xlogy, "xlogy"),
    ("copysign", tl.copysign, "copysign"),
    ("special.zeta", tl.special.zeta, "special.zeta"),
]


def _get(mod, name):
    for p in name.split("."):
        mod = getattr(mod, p)
    return mod


def main():
    rng = np.random.default_rng(0)
    print(f"{'op':32s} {'dtype':8s} {'torchlike ms':>12s} {'torch ms':>9s} {'x torch':>8s} {'x scipy':>8s}")
    for dt in ("float32", "float64"):
        for name, fn, tname, sname, (lo, hi) in CASES:
            a = rng.uniform(lo, hi, N).astype(dt)
            x = tl.tensor(a)
            t_tl = median_time(lambda: fn(x))
            row = f"{name:32s} {dt:8s} {t_tl * 1e3:12.2f}"
            if torch is not None:
                tx = torch.tensor(a)
                tf = _get(torch, tname)
                t_t = median_time(lambda: tf(tx))
                row += f" {t_t * 1e3:9.2f} {t_t / t_tl:8.2f}"
            if sps is not None and sname:
                sf = getattr(sps, sname)
                row += f" {median_time(lambda: sf(a)) / t_tl:8.2f}"
            print(row)
        for name, fn, tname in BINARY:
            a = rng.uniform(1.5, 5, N).astype(dt)
            b = rng.uniform(0.5, 5, N).astype(dt)
            x, y = tl.tensor(a), tl.tensor(b)
            t_tl = median_time(lambda: fn(x, y))
            row = f"{name:32s} {dt:8s} {t_tl * 1e3:12.2f}"
            if torch is not None:
                tx, ty = torch.tensor(a), torch.tensor(b)
                tf = _get(torch, tname)
                t_t = median_time(lambda: tf(tx, ty))
                row += f" {t_t * 1e3:9.2f} {t_t / t_tl:8.2f}"
            print(row)


if __name__ == "__main__":
    main()
