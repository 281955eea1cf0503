#!/usr/bin/env python3
"""torchlike.distributions against torch.distributions, same run:

- Normal: rsample + log_prob over a 100k batch (the VAE inner loop);
- Gamma(0.5 / 3.0): rsample of 100k (Marsaglia-Tsang in Python over
  torchlike ops here, a C++ kernel in PyTorch);
- Dirichlet(8 categories) rsample of 10k rows;
- Categorical(1000 x 50 logits): sample + log_prob;
- MultivariateNormal(16-dim, batch 256): log_prob of 256 x 256 points;
- kl_divergence(Normal, Normal) over 100k.

    python tools/bench/bench_distributions.py [--quick] [--threads N]

ratio = PyTorch time / torchlike time (>= 1.0: torchlike as fast or faster).
The random streams differ, so only costs are compared.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import numpy as np  # noqa: E402

import torchlike as tl  # noqa: E402
from _timing import cpu_name, median_time  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def cases(n):
    rng = np.random.default_rng(0)
    loc = rng.standard_normal(n).astype(np.float32)
    scale = (rng.random(n) + 0.5).astype(np.float32)
    alpha = np.where(np.arange(n) % 2 == 0, 0.5, 3.0).astype(np.float32)
    conc = (rng.random((n // 10, 8)) + 0.5).astype(np.float32)
    logits = rng.standard_normal((1000, 50)).astype(np.float32)
    A = rng.standard_normal((256, 16, 16)).astype(np.float32)
    cov = A @ A.transpose(0, 2, 1) + 16 * np.eye(16, dtype=np.float32)
    mloc = rng.standard_normal((256, 16)).astype(np.float32)
    pts = rng.standard_normal((256, 256, 16)).astype(np.float32)

    def normal(m):
        d = m.distributions.Normal(m.tensor(loc), m.tensor(scale))
        return lambda: d.log_prob(d.rsample())

    def gamma(m):
        d = m.distributions.Gamma(m.tensor(alpha), m.tensor(1.0))
        return lambda: d.rsample()

    def dirichlet(m):
        d = m.distributions.Dirichlet(m.tensor(conc))
        return lambda: d.rsample()

    def categorical(m):
        d = m.distributions.Categorical(logits=m.tensor(logits))
        return lambda: d.log_prob(d.sample((8,)))

    def mvn(m):
        d = m.distributions.MultivariateNormal(m.tensor(mloc), covariance_matrix=m.tensor(cov))
        x = m.tensor(pts).transpose(0, 1)  # (256 points, 256 batch, 16)
        return lambda: d.log_prob(x)

    def kl(m):
        p = m.distributions.Normal(m.tensor(loc), m.tensor(scale))
        q = m.distributions.Normal(m.tensor(scale), m.tensor(scale) + 1)
        return lambda: m.distributions.kl_divergence(p, q)

    return [("Normal rsample+log_prob", normal), ("Gamma rsample", gamma), ("Dirichlet rsample", dirichlet),
            ("Categorical sample+log_prob", categorical), ("MVN log_prob", mvn), ("KL(Normal||Normal)", kl)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--threads", type=int, default=None,
                    help="intra-op threads for both libraries (1 gives stable figures on a loaded machine)")
    args = ap.parse_args()
    if args.threads:
        tl.set_num_threads(args.threads)
        if torch is not None:
            torch.set_num_threads(args.threads)
    n = 20000 if args.quick else 100000
    print(f"cpu: {cpu_name()}  threads: torchlike {tl.get_num_threads()}"
          + (f", torch {torch.get_num_threads()}" if torch else ""))
    print(f"{'case':32s} {'torchlike ms':>13s} {'torch ms':>10s} {'ratio':>7s}")
    for name, make in cases(n):
        t_ours = median_time(make(tl))
        if torch is not None:
            t_ref = median_time(make(torch))
            print(f"{name:32s} {t_ours * 1e3:13.3f} {t_ref * 1e3:10.3f} {t_ref / t_ours:7.2f}")
        else:
            print(f"{name:32s} {t_ours * 1e3:13.3f} {'-':>10s} {'-':>7s}")


if __name__ == "__main__":
    main()
