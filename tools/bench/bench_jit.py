"""torchlike.jit call overhead on a small MLP (Linear 64->128, ReLU,
Linear 128->10; batch 32): traced and scripted calls against the eager call,
and PyTorch's traced/scripted/eager calls in the same run when installed.

    python tools/bench/bench_jit.py [--repeat 15] [--batch 32]

Ratios are time(jit call) / time(eager call) of the same library: below 1.0
the graph call is faster, above 1.0 it costs more than eager.
"""
import argparse
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import cpu_name, interleaved_median_times  # noqa: E402

import torchlike as tl  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


def mlp(lib):
    class MLP(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = lib.nn.Linear(64, 128)
            self.fc2 = lib.nn.Linear(128, 10)

        def forward(self, x):
            return self.fc2(lib.relu(self.fc1(x)))
    return MLP().eval()


def measure(lib, batch, repeat):
    m = mlp(lib)
    x = lib.randn(batch, 64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = lib.jit.trace(m, x)
        scripted = lib.jit.script(m)
    with lib.no_grad():
        fns = [lambda: m(x), lambda: traced(x), lambda: scripted(x)]
        t_eager, t_trace, t_script = interleaved_median_times(fns, number=200, repeat=repeat)
    return t_eager, t_trace, t_script


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--batch", type=int, default=32)
    a = ap.parse_args()
    print(f"CPU: {cpu_name()}  (machine shared with other jobs: compare ratios within one run)")
    print(f"MLP 64-128-10, batch {a.batch}, no_grad; median of {max(a.repeat, 15)} repeats x 200 calls")
    libs = [("torchlike", tl)] + ([("torch", torch)] if torch is not None else [])
    for name, lib in libs:
        e, t, s = measure(lib, a.batch, a.repeat)
        print(f"{name:10s} eager {e * 1e6:8.1f} us   traced {t * 1e6:8.1f} us ({t / e:5.2f}x eager)   "
              f"scripted {s * 1e6:8.1f} us ({s / e:5.2f}x eager)")


if __name__ == "__main__":
    main()
