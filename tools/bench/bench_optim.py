"""Optimizer step timings vs PyTorch (same run, same thread count): Adam,
AdamW and SGD with momentum over the parameters of a 784-512-256-10 MLP
(three weight matrices, three biases). Not a test.

    python tools/bench/bench_optim.py [--threads 2]

Each line times one optimizer.step() (median of >= 15 after warm-up, the two
frameworks timed in turns). Ratios are PyTorch time / torchlike time: above
1.0 torchlike is faster; "ratio" against PyTorch's default CPU path, "vs
foreach" against PyTorch with foreach=True. Defaults are compared with defaults (torchlike runs
its _foreach_ kernels; PyTorch on CPU runs its per-tensor loop), and each
side's other path is shown too."""
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

try:
    import torch
except Exception:  # pragma: no cover
    torch = None

LAYERS = [(784, 512), (512, 256), (256, 10)]
CASES = [("SGD momentum", "SGD", {"lr": 0.01, "momentum": 0.9}),
         ("Adam", "Adam", {"lr": 1e-3}),
         ("AdamW", "AdamW", {"lr": 1e-3})]


def mlp_arrays(rng):
    arrays = []
    for fan_in, fan_out in LAYERS:
        arrays.append(rng.standard_normal((fan_out, fan_in)).astype(np.float32) * 0.05)
        arrays.append(rng.standard_normal(fan_out).astype(np.float32) * 0.05)
    return arrays


def make_step(mod, name, kwargs, values, grads, **extra):
    params = [mod.tensor(v, requires_grad=True) for v in values]
    for p, g in zip(params, grads):
        p.grad = mod.tensor(g)
    opt = getattr(mod.optim, name)(params, **kwargs, **extra)
    opt.step()  # state created outside the timing
    return opt.step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    tl.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    values = mlp_arrays(rng)
    grads = [rng.standard_normal(v.shape).astype(np.float32) * 1e-3 for v in values]
    count = sum(v.size for v in values)
    print(f"optimizer step over a 784-512-256-10 MLP ({count} parameters in {len(values)} tensors), "
          f"{args.threads} threads, {cpu_name()}")
    print(f"{'case':<16}{'torchlike':>12}{'tl per-tensor':>15}{'torch':>12}{'torch foreach':>15}"
          f"{'ratio':>8}{'vs foreach':>12}")
    for label, name, kwargs in CASES:
        fns = [make_step(tl, name, kwargs, values, grads),
               make_step(tl, name, kwargs, values, grads, foreach=False)]
        if torch is not None:
            fns += [make_step(torch, name, kwargs, values, grads),
                    make_step(torch, name, kwargs, values, grads, foreach=True)]
        times = interleaved_median_times(fns, repeat=30, warmup=5)
        cells = [f"{t * 1e6:10.0f}us" for t in times]
        if torch is not None:
            ratio, ratio_foreach = times[2] / times[0], times[3] / times[0]
            print(f"{label:<16}{cells[0]:>12}{cells[1]:>15}{cells[2]:>12}{cells[3]:>15}{ratio:>7.2f}x"
                  f"{ratio_foreach:>11.2f}x")
        else:
            print(f"{label:<16}{cells[0]:>12}{cells[1]:>15}{'-':>12}{'-':>15}{'-':>8}")


if __name__ == "__main__":
    main()
