"""einsum, torchlike vs PyTorch and NumPy (np.einsum(optimize=True)), float32,
same thread count, measured in one run.

    python tools/bench/bench_einsum.py [--threads N] [--backward]

Prints the median time per call of each equation and the ratios
PyTorch-time / torchlike-time and NumPy-time / torchlike-time (> 1: torchlike
is faster). --backward also times forward+backward against PyTorch.
"""
import argparse

import numpy as np

from _timing import median_time  # noqa: E402
import torchlike as tl

CASES = [
    ("bij,bjk->bik", [(64, 128, 128), (64, 128, 128)]),
    ("ij,ij->i", [(4096, 1024), (4096, 1024)]),
    ("bhqd,bhkd->bhqk", [(8, 8, 512, 64), (8, 8, 512, 64)]),
    ("ij,jk,kl->il", [(256, 512), (512, 512), (512, 64)]),
    ("ii->i", [(2048, 2048)]),
    ("bi,bi->b", [(65536, 16), (65536, 16)]),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--backward", action="store_true")
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        torch = None
    nt = args.threads or tl.get_num_threads()
    tl.set_num_threads(nt)
    if torch is not None:
        torch.set_num_threads(nt)
    print(f"threads={nt}")
    for eq, shapes in CASES:
        arrays = [np.random.default_rng(i).standard_normal(s, dtype=np.float32) for i, s in enumerate(shapes)]
        tls = [tl.tensor(a) for a in arrays]
        t_tl = median_time(lambda: tl.einsum(eq, *tls))
        line = f"{eq:18s} {'x'.join(map(str, shapes[0])):>14s}  torchlike {t_tl * 1e3:8.3f} ms"
        if torch is not None:
            pts = [torch.from_numpy(a) for a in arrays]
            t_pt = median_time(lambda: torch.einsum(eq, *pts))
            line += f"  torch {t_pt * 1e3:8.3f} ms  ratio {t_pt / t_tl:5.2f}x"
        t_np = median_time(lambda: np.einsum(eq, *arrays, optimize=True))
        line += f"  numpy {t_np * 1e3:8.3f} ms  ratio {t_np / t_tl:5.2f}x"
        print(line, flush=True)
        if args.backward and torch is not None:
            tlg = [t.clone().requires_grad_(True) for t in tls]
            ptg = [torch.from_numpy(a).clone().requires_grad_(True) for a in arrays]
            t_tl = median_time(lambda: tl.einsum(eq, *tlg).sum().backward())
            t_pt = median_time(lambda: torch.einsum(eq, *ptg).sum().backward())
            print(f"{'  fwd+bwd':18s} {'':>14s}  torchlike {t_tl * 1e3:8.3f} ms  torch {t_pt * 1e3:8.3f} ms  "
                  f"ratio {t_pt / t_tl:5.2f}x", flush=True)


if __name__ == "__main__":
    main()
