#!/usr/bin/env python3
"""torchlike.linalg against PyTorch and NumPy, measured in the same run:
factorizations and solves on one 256x256 float64 matrix (LAPACK-bound) and a
batch of 512 4x4 matrices (per-matrix and per-call overhead bound), forward
only, plus inv/svd forward+backward.

    python tools/bench/bench_linalg.py [--quick]

ratio = torchlike time / reference time (lower is better). NumPy's own
thread count follows OPENBLAS_NUM_THREADS (set it to match --threads).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import numpy as np  # noqa: E402

import torchlike as tl  # noqa: E402
from _timing import median_time  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def inputs(shape, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, shape) + shape[-1] * np.eye(shape[-1])
    spd = a @ np.swapaxes(a, -1, -2)
    b = rng.uniform(-1, 1, shape[:-1] + (4,))
    return a, spd, b


CASES = [
    ("inv", lambda m, a, s, b: m.linalg.inv(a), np.linalg.inv),
    ("det", lambda m, a, s, b: m.linalg.det(a), np.linalg.det),
    ("solve", lambda m, a, s, b: m.linalg.solve(a, b), np.linalg.solve),
    ("cholesky", lambda m, a, s, b: m.linalg.cholesky(s), lambda a, s, b: np.linalg.cholesky(s)),
    ("qr", lambda m, a, s, b: m.linalg.qr(a), np.linalg.qr),
    ("eigh", lambda m, a, s, b: m.linalg.eigh(s), lambda a, s, b: np.linalg.eigh(s)),
    ("svd", lambda m, a, s, b: m.linalg.svd(a, full_matrices=False),
     lambda a, s, b: np.linalg.svd(a, full_matrices=False)),
    ("lu_factor", lambda m, a, s, b: m.linalg.lu_factor(a), None),
    ("matrix_norm(2)", lambda m, a, s, b: m.linalg.matrix_norm(a, 2), lambda a, s, b: np.linalg.norm(a, 2, (-2, -1))),
]


def np_call(ref, a, s, b):
    if ref in (np.linalg.inv, np.linalg.det, np.linalg.qr):
        return ref(a)
    if ref is np.linalg.solve:
        return ref(a, b)
    return ref(a, s, b)


def grad_case(mod, name, a):
    x = mod.tensor(a, requires_grad=True)

    def step():
        if name == "inv+backward":
            mod.linalg.inv(x).sum().backward()
        else:
            U, S, Vh = mod.linalg.svd(x, full_matrices=False)
            (S.sum() + (U * U).sum()).backward()
        x.grad = None
    return step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--threads", type=int, default=1,
                    help="intra-op threads for both libraries (default 1: on a shared, loaded machine "
                         "spinning BLAS/OpenMP pools make multi-threaded timings vary 100x between runs)")
    args = ap.parse_args()
    tl.set_num_threads(args.threads)
    if torch:
        torch.set_num_threads(args.threads)
    repeat = 15
    shapes = [(256, 256), (512, 4, 4)] if not args.quick else [(64, 64), (64, 4, 4)]
    print(f"{'op':<16}{'shape':<14}{'torchlike':>12}{'torch':>12}{'numpy':>12}{'vs torch':>10}{'vs numpy':>10}")
    for shape in shapes:
        a, s, b = inputs(shape)
        ta, ts, tb = (tl.tensor(x) for x in (a, s, b))
        pa, ps, pb = (torch.tensor(x) for x in (a, s, b)) if torch else (None, None, None)
        for name, fn, ref in CASES:
            t_tl = median_time(lambda: fn(tl, ta, ts, tb), repeat=repeat)
            t_pt = median_time(lambda: fn(torch, pa, ps, pb), repeat=repeat) if torch else float("nan")
            t_np = median_time(lambda: np_call(ref, a, s, b), repeat=repeat) if ref else float("nan")
            print(f"{name:<16}{str(shape):<14}{t_tl * 1e3:>10.3f}ms{t_pt * 1e3:>10.3f}ms{t_np * 1e3:>10.3f}ms"
                  f"{t_tl / t_pt:>10.2f}{t_tl / t_np:>10.2f}")
        for name in ("inv+backward", "svd+backward"):
            t_tl = median_time(grad_case(tl, name, a), repeat=repeat)
            t_pt = median_time(grad_case(torch, name, a), repeat=repeat) if torch else float("nan")
            print(f"{name:<16}{str(shape):<14}{t_tl * 1e3:>10.3f}ms{t_pt * 1e3:>10.3f}ms{'':>12}"
                  f"{t_tl / t_pt:>10.2f}")


if __name__ == "__main__":
    main()
