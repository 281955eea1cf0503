"""interpolate and grid_sample (Python composites), torchlike vs PyTorch, same run.

    python tools/bench/bench_interpolate.py [--threads 2] [--repeat 15]

Cases (float32, NCHW 8x32x64x64): interpolate to 128x128 nearest / bilinear /
bicubic (forward), bilinear forward+backward; grid_sample bilinear zeros with a
random 8x64x64 grid (forward, forward+backward).
Ratio = PyTorch time / torchlike time (above 1.0 means torchlike is faster).
"""
import argparse

import numpy as np

from _timing import median_time  # noqa: E402
import torchlike as tl
import torchlike.nn.functional as F


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    try:
        import torch
        import torch.nn.functional as TF
    except ImportError:
        torch = None
    tl.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(args.threads)
    print(f"threads={args.threads}" + ("" if torch is not None else "  (PyTorch not installed: no ratios)"))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 32, 64, 64), dtype=np.float32)
    g = rng.uniform(-1, 1, (8, 64, 64, 2)).astype(np.float32)

    def cases(lib, fn, mk):
        xt, gt = mk(x), mk(g)
        xg, gg = mk(x).requires_grad_(True), mk(g).requires_grad_(True)

        def bil_fb():
            y = fn.interpolate(xg, size=(128, 128), mode="bilinear", align_corners=False)
            y.backward(lib.ones_like(y))

        def gs_fb():
            y = fn.grid_sample(xg, gg, align_corners=False)
            y.backward(lib.ones_like(y))
        return {
            "interpolate nearest": lambda: fn.interpolate(xt, size=(128, 128)),
            "interpolate bilinear": lambda: fn.interpolate(xt, size=(128, 128), mode="bilinear", align_corners=False),
            "interpolate bicubic": lambda: fn.interpolate(xt, size=(128, 128), mode="bicubic", align_corners=False),
            "interpolate bilinear f+b": bil_fb,
            "grid_sample bilinear": lambda: fn.grid_sample(xt, gt, align_corners=False),
            "grid_sample bilinear f+b": gs_fb,
        }

    ours = cases(tl, F, lambda a: tl.tensor(a))
    theirs = cases(torch, TF, lambda a: torch.from_numpy(a.copy())) if torch is not None else {}
    for name, f in ours.items():
        t_tl = median_time(f, 1, args.repeat, warmup=2)
        line = f"{name:28s} torchlike {t_tl * 1e3:8.2f} ms"
        if name in theirs:
            t_pt = median_time(theirs[name], 1, args.repeat, warmup=2)
            line += f"  torch {t_pt * 1e3:8.2f} ms  ratio {t_pt / t_tl:5.2f}x"
        print(line, flush=True)


if __name__ == "__main__":
    main()
