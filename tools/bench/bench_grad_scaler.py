"""GradScaler timings vs PyTorch and NumPy (same run, same thread count). Not a test.

    python tools/bench/bench_grad_scaler.py [--threads 2]

Cases:
- the fused op _amp_foreach_non_finite_check_and_unscale_ on the gradients of
  a 784-512-256-10 MLP (small tensors: per-tensor overhead) and on 8 tensors
  of 1M float32 elements (memory bound), contiguous and transposed, plus
  float16/bfloat16 grads; NumPy's reference is `g *= inv` followed by an
  `np.isfinite(g).all()` pass (two passes, where the fused op makes one);
- one GradScaler iteration on the MLP (unscale_ + skipped-or-taken SGD step +
  update), gradients reset to the same values (and the scale to 1024) before
  each repeat.

Each line: median of >= 15 repeats after warm-up, frameworks timed in turns.
Ratios are other time / torchlike time: above 1.0 torchlike is faster."""
import argparse
import os
import sys

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
# This checkout's torchlike, not whichever one is installed.
sys.path.insert(0, os.path.dirname(os.path.dirname(_HERE)))
from _timing import cpu_name, interleaved_median_times  # noqa: E402

import torchlike as tl  # noqa: E402
from torchlike.amp.grad_scaler import GradScaler  # noqa: E402

try:
    import torch
except Exception:  # pragma: no cover
    torch = None

MLP = [(512, 784), (512,), (256, 512), (256,), (10, 256), (10,)]
BIG = [(1000, 1000)] * 8


def _arrays(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) * 1024 for s in shapes]


def _unscale_case(mod, arrays, dtype, transpose):
    """A callable running the fused op over fresh-valued gradients (values
    stay finite: inv_scale is 1.0 so repeats do not drift to zero)."""
    grads = [mod.tensor(a).to(getattr(mod, dtype)) for a in arrays]
    if transpose:
        grads = [g.t() if g.dim() == 2 else g for g in grads]
    found = mod.zeros(1)
    inv = mod.ones(1)
    fn = mod._amp_foreach_non_finite_check_and_unscale_
    return lambda: fn(grads, found, inv)


def _numpy_case(arrays, transpose):
    grads = [a.copy() for a in arrays]
    if transpose:
        grads = [g.T if g.ndim == 2 else g for g in grads]
    inv = np.float32(1.0)

    def run():
        bad = False
        for g in grads:
            g *= inv
            bad |= not np.isfinite(g).all()
        return bad
    return run


def _scaler_iteration(mod, scaler_cls, arrays, poison):
    params = [mod.tensor(a / 1024, requires_grad=True) for a in arrays]
    grads = [mod.tensor(a) for a in arrays]
    if poison:
        grads[0][0, 0] = float("inf")
    opt = mod.optim.SGD(params, lr=1e-3, momentum=0.9)
    scaler = scaler_cls("cpu", init_scale=1024.0)
    scaler.scale(mod.ones(1))

    def run():
        for p, g in zip(params, grads):
            p.grad = g.clone()
        scaler.step(opt)
        scaler.update()
        if poison:
            scaler.update(1024.0)  # undo the backoff so every repeat sees the same scale
    return run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    tl.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(args.threads)
    print(f"CPU: {cpu_name()}; threads: {args.threads}; torch: {torch.__version__ if torch else 'absent'}")
    print(f"{'case':52s} {'torchlike':>11s} {'torch':>11s} {'ratio':>7s} {'numpy':>11s} {'ratio':>7s}")

    def line(name, fns):
        times = interleaved_median_times([f for f in fns if f is not None])
        ours = times[0]
        rest = iter(times[1:])
        cells = [f"{name:52s} {ours * 1e6:9.1f}us"]
        for f in fns[1:]:
            if f is None:
                cells.append(f"{'-':>11s} {'-':>7s}")
            else:
                t = next(rest)
                cells.append(f"{t * 1e6:9.1f}us {t / ours:6.2f}x")
        print(" ".join(cells))

    for label, shapes in (("MLP grads (6 tensors, 0.53M)", MLP), ("8 x 1M", BIG)):
        arrays = _arrays(shapes)
        for dtype in ("float32", "float16", "bfloat16"):
            for transpose in (False, True):
                if transpose and dtype != "float32":
                    continue
                name = f"unscale {label} {dtype}{' transposed' if transpose else ''}"
                fns = [_unscale_case(tl, arrays, dtype, transpose),
                       _unscale_case(torch, arrays, dtype, transpose) if torch else None,
                       _numpy_case(arrays, transpose) if dtype == "float32" else None]
                line(name, fns)

    arrays = _arrays(MLP)
    for poison in (False, True):
        name = f"GradScaler iteration MLP ({'inf: step skipped' if poison else 'clean: SGD step'})"
        fns = [_scaler_iteration(tl, GradScaler, arrays, poison),
               _scaler_iteration(torch, torch.amp.GradScaler, arrays, poison) if torch else None, None]
        line(name, fns)


if __name__ == "__main__":
    main()
