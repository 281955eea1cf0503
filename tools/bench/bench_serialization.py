"""save / load / mmap-load timings of a state dict vs PyTorch (same run, same
values, files in the same temporary directory). Not a test.

    python tools/bench/bench_serialization.py [--mb 64] [--tensors 40]

Ratios are PyTorch time / torchlike time: above 1.0 torchlike is faster."""
import argparse
import collections
import os
import sys
import tempfile

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


def state_dicts(total_mb, count):
    rng = np.random.default_rng(0)
    per = max(1, int(total_mb * 2 ** 20 / 4 / count))
    arrays = [rng.standard_normal(per).astype(np.float32) for _ in range(count)]
    ours = collections.OrderedDict((f"layer{i}.weight", tl.from_numpy(a)) for i, a in enumerate(arrays))
    theirs = None
    if torch is not None:
        theirs = collections.OrderedDict((f"layer{i}.weight", torch.from_numpy(a)) for i, a in enumerate(arrays))
    return ours, theirs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=64)
    parser.add_argument("--tensors", type=int, default=40)
    args = parser.parse_args()
    ours, theirs = state_dicts(args.mb, args.tensors)
    print(f"{cpu_name()}; state dict of {args.tensors} float32 tensors, {args.mb:g} MB in all")
    with tempfile.TemporaryDirectory() as d:
        mine, ref = os.path.join(d, "tl.pt"), os.path.join(d, "torch.pt")
        tl.save(ours, mine)
        rows = [("save", lambda: tl.save(ours, mine), lambda: torch.save(theirs, ref)),
                ("load", lambda: tl.load(mine), lambda: torch.load(ref)),
                ("load mmap", lambda: tl.load(mine, mmap=True), lambda: torch.load(ref, mmap=True)),
                ("load mmap + sum", lambda: sum(float(t.sum()) for t in tl.load(mine, mmap=True).values()),
                 lambda: sum(float(t.sum()) for t in torch.load(ref, mmap=True).values()))]
        if torch is not None:
            torch.save(theirs, ref)
        print(f"{'case':<18}{'torchlike ms':>14}{'torch ms':>12}{'ratio':>8}")
        for name, fn_tl, fn_torch in rows:
            if torch is None:
                (t_tl,) = interleaved_median_times([fn_tl])
                print(f"{name:<18}{t_tl * 1e3:>14.2f}{'-':>12}{'-':>8}")
                continue
            t_tl, t_torch = interleaved_median_times([fn_tl, fn_torch])
            print(f"{name:<18}{t_tl * 1e3:>14.2f}{t_torch * 1e3:>12.2f}{t_torch / t_tl:>8.2f}")


if __name__ == "__main__":
    main()
