"""Softmax family, layer/batch norm, embedding and attention timings vs
PyTorch (same run, same thread count, same input memory). Not a test.

    python tools/bench/bench_norm.py [--threads 2] [--only softmax,layer_norm]

Ratios are PyTorch time / torchlike time: above 1.0 torchlike is faster."""
import argparse
import os
import sys

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
# This checkout's torchlike, not whichever one is installed.
sys.path.insert(0, os.path.dirname(os.path.dirname(_HERE)))
from _timing import median_time  # noqa: E402

import torchlike as tl  # noqa: E402
import torchlike.nn.functional as TF  # noqa: E402

try:
    import torch
    import torch.nn.functional as PF
except Exception:  # pragma: no cover
    torch = PF = None


def cases(rng):
    x = rng.standard_normal((4096, 1024)).astype(np.float32)
    img = rng.standard_normal((32, 64, 56, 56)).astype(np.float32)
    c64 = rng.standard_normal(64).astype(np.float32)
    w1k, b1k = rng.standard_normal(1024).astype(np.float32), rng.standard_normal(1024).astype(np.float32)
    table = rng.standard_normal((50000, 512)).astype(np.float32)
    idx = rng.integers(0, 50000, (64, 256)).astype(np.int64)
    q, k, v = (rng.standard_normal((8, 8, 512, 64)).astype(np.float32) for _ in range(3))

    def softmax(m, F, a):
        return lambda: F.softmax(a[0], dim=-1)

    def log_softmax(m, F, a):
        return lambda: F.log_softmax(a[0], dim=-1)

    def softmax_fb(m, F, a):
        def run():
            y = F.softmax(a[0], dim=-1)
            y.backward(a[1])
        return run

    def layer_norm_f(m, F, a):
        return lambda: F.layer_norm(a[0], (1024,), a[1], a[2])

    def layer_norm_fb(m, F, a):
        def run():
            F.layer_norm(a[0], (1024,), a[1], a[2]).backward(a[3])
        return run

    def batch_norm_f(m, F, a):
        return lambda: F.batch_norm(a[0], a[3], a[4], a[1], a[2], training=True)

    def batch_norm_fb(m, F, a):
        def run():
            F.batch_norm(a[0], a[3], a[4], a[1], a[2], training=True).backward(a[5])
        return run

    def embedding_f(m, F, a):
        return lambda: F.embedding(a[1], a[0])

    def embedding_fb(m, F, a):
        def run():
            F.embedding(a[1], a[0]).backward(a[2])
        return run

    def sdpa_causal(m, F, a):
        return lambda: F.scaled_dot_product_attention(a[0], a[1], a[2], is_causal=True)

    g_emb = rng.standard_normal((64, 256, 512)).astype(np.float32)
    return [
        ("softmax (4096,1024)", softmax, [(x, False)]),
        ("log_softmax (4096,1024)", log_softmax, [(x, False)]),
        ("softmax fwd+bwd (4096,1024)", softmax_fb, [(x, True), (x, False)]),
        ("layer_norm fwd (4096,1024)", layer_norm_f, [(x, False), (w1k, False), (b1k, False)]),
        ("layer_norm fwd+bwd (4096,1024)", layer_norm_fb, [(x, True), (w1k, True), (b1k, True), (x, False)]),
        ("batch_norm fwd 32x64x56x56", batch_norm_f,
         [(img, False), (c64, False), (c64, False), (np.zeros(64, np.float32), False), (np.ones(64, np.float32), False)]),
        ("batch_norm fwd+bwd 32x64x56x56", batch_norm_fb,
         [(img, True), (c64, True), (c64, True), (np.zeros(64, np.float32), False), (np.ones(64, np.float32), False),
          (img, False)]),
        ("embedding fwd 50k x512, 64x256", embedding_f, [(table, False), (idx, False)]),
        ("embedding fwd+bwd 50k x512, 64x256", embedding_fb, [(table, True), (idx, False), (g_emb, False)]),
        ("sdpa causal 8x8x512x64", sdpa_causal, [(q, False), (k, False), (v, False)]),
    ]


def tensors(mod, spec):
    out = []
    for a, grad in spec:
        t = mod.from_numpy(a.copy())
        if grad:
            t.requires_grad_(True)
        out.append(t)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    tl.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    only = [s for s in args.only.split(",") if s]
    print(f"threads={args.threads}  torch={'none' if torch is None else torch.__version__}")
    for name, make_fn, spec in cases(rng):
        if only and not any(o in name for o in only):
            continue
        t_tl = median_time(make_fn(tl, TF, tensors(tl, spec)), 1, 15, warmup=3)
        line = f"{name:38s} torchlike {t_tl * 1e3:9.3f} ms"
        if torch is not None:
            t_pt = median_time(make_fn(torch, PF, tensors(torch, spec)), 1, 15, warmup=3)
            line += f"   torch {t_pt * 1e3:9.3f} ms   torch/torchlike {t_pt / t_tl:5.2f}x"
        print(line, flush=True)


if __name__ == "__main__":
    main()
