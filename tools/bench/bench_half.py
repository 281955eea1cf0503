"""float16/bfloat16 on CPU, torchlike vs PyTorch measured in the same run.

    python tools/bench/bench_half.py [--threads N] [--repeat 15] [--only NAME ...]

Cases: bf16 and fp16 matmul 1024^2, float16<->float32 and bfloat16<->float32
conversion of 16M elements, a bfloat16 sum over 16M elements, and a bfloat16
conv2d of a small-CNN layer. Each is a median of at least 15 repeats after
warm-up, torchlike and PyTorch timed in turns (tools/bench/_timing.py).
Ratio = PyTorch time / torchlike time: above 1.0 means torchlike is faster.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import cpu_name, interleaved_median_times  # noqa: E402

import torchlike as tl  # noqa: E402


def cpu_flags():
    want = ("avx512_bf16", "avx512f", "amx_bf16", "f16c", "avx2", "fma")
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("flags"):
                have = set(line.split(":", 1)[1].split())
                return [f for f in want if f in have]
    except OSError:
        pass
    return []


def cases(torch):
    rng = np.random.default_rng(0)
    n = 1 << 24
    big = rng.standard_normal(n, dtype=np.float32)
    mat_a = rng.standard_normal((1024, 1024), dtype=np.float32)
    mat_b = rng.standard_normal((1024, 1024), dtype=np.float32)
    img = rng.standard_normal((8, 32, 56, 56), dtype=np.float32)
    wgt = rng.standard_normal((64, 32, 3, 3), dtype=np.float32) * 0.1

    out = []

    def add(name, make_fn):
        out.append((name, make_fn(tl), make_fn(torch)))

    for dt in ("bfloat16", "float16"):
        def mm(m, dt=dt):
            a = m.tensor(mat_a).to(getattr(m, dt))
            b = m.tensor(mat_b).to(getattr(m, dt))
            return lambda: m.matmul(a, b)
        add(f"{dt} matmul 1024^2", mm)
    for dt in ("float16", "bfloat16"):
        def down(m, dt=dt):
            x = m.tensor(big)
            return lambda: x.to(getattr(m, dt))

        def up(m, dt=dt):
            x = m.tensor(big).to(getattr(m, dt))
            return lambda: x.to(m.float32)
        add(f"float32->{dt} 16M", down)
        add(f"{dt}->float32 16M", up)

    def bsum(m):
        x = m.tensor(big).to(m.bfloat16)
        return lambda: x.sum()
    add("bfloat16 sum 16M", bsum)

    def conv(m):
        x = m.tensor(img).to(m.bfloat16)
        w = m.tensor(wgt).to(m.bfloat16)
        return lambda: m.nn.functional.conv2d(x, w, padding=1)
    add("bfloat16 conv2d 8x32x56x56 * 64x32x3x3", conv)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--only", nargs="*", default=None, help="substrings of case names to run")
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        sys.exit("bench_half.py compares against PyTorch, which is not installed")
    nt = args.threads or tl.get_num_threads()
    tl.set_num_threads(nt)
    torch.set_num_threads(nt)
    print(f"CPU: {cpu_name()}  flags: {' '.join(cpu_flags()) or '(none of avx512_bf16/f16c)'}  threads={nt}")
    print(f"torch {torch.__version__}")
    print(f"{'case':44s} {'torchlike ms':>12s} {'torch ms':>10s} {'ratio':>7s}")
    for name, f_tl, f_torch in cases(torch):
        if args.only and not any(s in name for s in args.only):
            continue
        t_tl, t_torch = interleaved_median_times([f_tl, f_torch], repeat=args.repeat)
        print(f"{name:44s} {t_tl * 1e3:12.2f} {t_torch * 1e3:10.2f} {t_torch / t_tl:7.2f}x")


if __name__ == "__main__":
    main()
