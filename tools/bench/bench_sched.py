"""lr_scheduler step and swa_utils averaging timings vs PyTorch (same run, same thread count).
Not a test.

    python tools/bench/bench_sched.py [--threads 2]

A scheduler step is pure Python over the param groups; AveragedModel.update_parameters runs
the multi-tensor (_foreach_) kernels over every parameter of an MLP 784-512-256-10.
Ratios are PyTorch time / torchlike time: above 1.0 torchlike is faster."""
import argparse
import os
import sys
import warnings

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
# This checkout's torchlike, not whichever one is installed.
sys.path.insert(0, os.path.dirname(os.path.dirname(_HERE)))
from _timing import cpu_name, interleaved_median_times  # noqa: E402

import torchlike as tl  # noqa: E402
import torchlike.nn as tnn  # noqa: E402
import torchlike.optim as topt  # noqa: E402
from torchlike.optim import lr_scheduler as tsched  # noqa: E402
from torchlike.optim import swa_utils as tswa  # noqa: E402

try:
    import torch
    import torch.optim.lr_scheduler as psched
    import torch.optim.swa_utils as pswa
except Exception:  # pragma: no cover
    torch = None

N_GROUPS = 4


def _optimizer(lib, optim):
    groups = [{"params": [lib.zeros(8, requires_grad=True)], "lr": 0.1 / (i + 1)} for i in range(N_GROUPS)]
    return optim.SGD(groups, lr=0.1, momentum=0.9)


SCHEDULES = {
    "StepLR": lambda M, o: M.StepLR(o, 10, 0.9),
    "CosineAnnealingLR": lambda M, o: M.CosineAnnealingLR(o, 1000),
    "OneCycleLR": lambda M, o: M.OneCycleLR(o, 0.5, total_steps=10**9),
    "CyclicLR": lambda M, o: M.CyclicLR(o, 0.01, 0.1, step_size_up=50),
    "SequentialLR": lambda M, o: M.SequentialLR(o, [M.LinearLR(o, total_iters=10), M.ExponentialLR(o, 0.999)], [10]),
    "ChainedScheduler": lambda M, o: M.ChainedScheduler([M.ExponentialLR(o, 0.999), M.StepLR(o, 7)]),
}


def _mlp(nn):
    return nn.Sequential(nn.Linear(784, 512), nn.Linear(512, 256), nn.Linear(256, 10))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    tl.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(args.threads)
    warnings.simplefilter("ignore")
    print(f"CPU: {cpu_name()}; threads: {args.threads}")
    print(f"{'case':42s} {'torchlike':>11s} {'PyTorch':>11s} {'ratio':>7s}")

    def report(name, ours_fn, theirs_fn):
        if theirs_fn is None:
            (t_ours,) = interleaved_median_times([ours_fn], number=200)
            print(f"{name:42s} {t_ours * 1e6:9.2f}us {'-':>11s} {'-':>7s}")
            return
        t_ours, t_theirs = interleaved_median_times([ours_fn, theirs_fn], number=200)
        print(f"{name:42s} {t_ours * 1e6:9.2f}us {t_theirs * 1e6:9.2f}us {t_theirs / t_ours:7.2f}")

    for name, build in SCHEDULES.items():
        ours = build(tsched, _optimizer(tl, topt))
        theirs = build(psched, _optimizer(torch, torch.optim)) if torch is not None else None
        report(f"{name}.step ({N_GROUPS} groups)", ours.step, theirs.step if theirs else None)

    plateau_ours = tsched.ReduceLROnPlateau(_optimizer(tl, topt))
    plateau_theirs = psched.ReduceLROnPlateau(_optimizer(torch, torch.optim)) if torch is not None else None
    report("ReduceLROnPlateau.step", lambda: plateau_ours.step(1.0),
           (lambda: plateau_theirs.step(1.0)) if plateau_theirs else None)

    rng = np.random.default_rng(0)
    ours_model = _mlp(tnn)
    theirs_model = _mlp(torch.nn) if torch is not None else None
    if theirs_model is not None:
        with torch.no_grad():
            for po, pt in zip(ours_model.parameters(), theirs_model.parameters()):
                values = rng.standard_normal(tuple(po.shape)).astype(np.float32)
                pt.copy_(torch.from_numpy(values))
                with tl.no_grad():
                    po.copy_(tl.from_numpy(values))
    for label, kw in (("SWA", lambda m: {}), ("EMA", lambda m: {"multi_avg_fn": m.get_ema_multi_avg_fn(0.99)})):
        ours_avg = tswa.AveragedModel(ours_model, **kw(tswa))
        ours_avg.update_parameters(ours_model)
        theirs_avg = None
        if theirs_model is not None:
            theirs_avg = pswa.AveragedModel(theirs_model, **kw(pswa))
            theirs_avg.update_parameters(theirs_model)
        report(f"AveragedModel.update_parameters {label} (MLP)", lambda: ours_avg.update_parameters(ours_model),
               (lambda: theirs_avg.update_parameters(theirs_model)) if theirs_avg else None)


if __name__ == "__main__":
    main()
