"""Reduction timings vs PyTorch (same run, same threads). Not a test."""
import time

import numpy as np

from _timing import median_time  # noqa: E402
import torchlike as tl

try:
    import torch
except Exception:  # pragma: no cover
    torch = None




REPS = 15


def main():
    rng = np.random.default_rng(0)
    v = rng.standard_normal(16 * 1024 * 1024).astype(np.float32)
    m = rng.standard_normal((4096, 4096)).astype(np.float32)
    cases = [("sum 16M", v, lambda x: x.sum()),
             ("sum(dim=0) 4096^2", m, lambda x: x.sum(dim=0)),
             ("sum(dim=1) 4096^2", m, lambda x: x.sum(dim=1)),
             ("mean(dim=1) 4096^2", m, lambda x: x.mean(dim=1)),
             ("amax(dim=0) 4096^2", m, lambda x: x.amax(dim=0)),
             ("var(dim=1) 4096^2", m, lambda x: x.var(dim=1)),
             ("argmax(dim=1) 4096^2", m, lambda x: x.argmax(dim=1)),
             ("cumsum(dim=1) 4096^2", m, lambda x: x.cumsum(dim=1))]
    for name, a, f in cases:

        # Interleaved and min-of-N: the machine is shared, so single timings are noisy.
        # from_numpy for both: same memory, so the kernels are compared, not the allocators
        xt = tl.from_numpy(a)
        xp = torch.from_numpy(a) if torch is not None else None
        t_tl = t_pt = float("inf")
        for _ in range(REPS):
            t_tl = min(t_tl, median_time(lambda: f(xt), 1, 3))
            if xp is not None:
                t_pt = min(t_pt, median_time(lambda: f(xp), 1, 3))
        line = f"{name:24s} torchlike {t_tl * 1e3:8.3f} ms"
        if xp is not None:
            line += f"   torch {t_pt * 1e3:8.3f} ms   ratio {t_tl / t_pt:5.2f}x"
        print(line, flush=True)


if __name__ == "__main__":
    main()
