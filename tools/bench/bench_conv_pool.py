"""conv2d and max_pool2d, torchlike vs PyTorch, measured in the same run.

    python tools/bench/bench_conv_pool.py [--threads 2] [--repeat 15]

Cases (float32, NCHW):
  conv2d   16x64x56x56, 64 out channels, 3x3, padding 1, with bias: forward, forward+backward
  max_pool2d 16x64x112x112, kernel 3, stride 2, padding 1: forward, forward+backward
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
    x = rng.standard_normal((16, 64, 56, 56), dtype=np.float32)
    w = rng.standard_normal((64, 64, 3, 3), dtype=np.float32) * 0.05
    b = rng.standard_normal((64,), dtype=np.float32)
    p = rng.standard_normal((16, 64, 112, 112), dtype=np.float32)

    def cases(lib, fn, mk):
        xt, wt, bt, pt = mk(x), mk(w), mk(b), mk(p)
        xg, wg, bg, pg = (mk(a).requires_grad_(True) for a in (x, w, b, p))

        def conv_fb():
            y = fn.conv2d(xg, wg, bg, padding=1)
            y.backward(lib.ones_like(y))

        def pool_fb():
            y = fn.max_pool2d(pg, 3, 2, 1)
            y.backward(lib.ones_like(y))

        return {
            "conv2d forward": lambda: fn.conv2d(xt, wt, bt, padding=1),
            "conv2d forward+backward": conv_fb,
            "max_pool2d forward": lambda: fn.max_pool2d(pt, 3, 2, 1),
            "max_pool2d forward+backward": pool_fb,
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
