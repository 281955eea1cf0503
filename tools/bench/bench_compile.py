"""torchlike.compile on the issue's two pointwise chains, 16M float32:

    gelu(x * w + b) * scale        x * sigmoid(x) + y

forward, and forward + backward (every input requires grad), against eager
torchlike, PyTorch eager and torch.compile (Inductor on CPU) in the same run.
Also the compile time of each (the first call, cold and warm kernel cache).

    python tools/bench/bench_compile.py [--n 16777216] [--repeat 15]

Ratios are speed-ups (other's time / compiled torchlike's time): higher is
better for torchlike.
"""
import argparse
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import cpu_name, interleaved_median_times  # noqa: E402

import torchlike as tl  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


def chains(lib):
    F = lib.nn.functional

    def gelu_chain(x, w, b):
        return F.gelu(x * w + b) * 0.5

    def silu_chain(x, y):
        return x * lib.sigmoid(x) + y
    return {"gelu(x*w+b)*scale": (gelu_chain, 3), "x*sigmoid(x)+y": (silu_chain, 2)}


def inputs(lib, n, k, grad):
    g = lib.Generator().manual_seed(0) if lib is tl else None
    out = []
    for _ in range(k):
        t = lib.randn(n, generator=g) if g is not None else lib.randn(n)
        out.append(t.requires_grad_(grad))
    return out


def fwd_bwd(fn, args):
    def run():
        for a in args:
            a.grad = None
        fn(*args).sum().backward()
    return run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--repeat", type=int, default=15)
    a = ap.parse_args()
    # A fresh kernel cache, so the first compile below is cold.
    cache = tempfile.mkdtemp(prefix="tl_compile_bench_")
    os.environ["TORCH_EXTENSIONS_DIR"] = cache
    print(f"CPU: {cpu_name()}; threads: torchlike {tl.get_num_threads()}"
          + (f", torch {torch.get_num_threads()} (PyTorch {torch.__version__})" if torch else "; PyTorch absent"))
    print(f"n = {a.n} float32; medians of {a.repeat} interleaved repeats after warm-up\n")
    print(f"{'case':34} {'tl eager':>9} {'tl comp':>9} {'torch':>9} {'inductor':>9}   "
          f"{'vs tl eager':>11} {'vs torch':>9} {'vs inductor':>11}")
    compile_times = []
    for name, (tl_fn, k) in chains(tl).items():
        for grad in (False, True):
            xs = inputs(tl, a.n, k, grad)
            comp = tl.compile(tl_fn)
            t0 = time.perf_counter()
            comp(*xs)
            cold = time.perf_counter() - t0
            tl.compile(tl_fn)  # a second compiled function: its first call finds the kernels built
            again = tl.compile(tl_fn)
            t0 = time.perf_counter()
            again(*xs)
            warm = time.perf_counter() - t0
            fns = ([lambda: tl_fn(*xs), lambda: comp(*xs)] if not grad
                   else [fwd_bwd(tl_fn, xs), fwd_bwd(comp, xs)])
            labels = ["tl eager", "tl comp"]
            ind_compile = None
            if torch is not None:
                t_fn = chains(torch)[name][0]
                txs = [torch.from_numpy(x.detach().numpy().copy()).requires_grad_(grad) for x in xs]
                try:
                    ind = torch.compile(t_fn)
                    t0 = time.perf_counter()
                    ind(*txs) if not grad else ind(*txs).sum().backward()
                    ind_compile = time.perf_counter() - t0
                except Exception as e:  # Inductor needs a working C++ toolchain
                    print(f"  (torch.compile failed: {type(e).__name__}: {e})")
                    ind = None
                if not grad:
                    fns += [lambda: t_fn(*txs)] + ([lambda: ind(*txs)] if ind else [])
                else:
                    fns += [fwd_bwd(t_fn, txs)] + ([fwd_bwd(ind, txs)] if ind else [])
            times = interleaved_median_times(fns, repeat=a.repeat, warmup=2)
            times += [float("nan")] * (4 - len(times))
            te, tc, tt, ti = times
            case = f"{name} {'fwd+bwd' if grad else 'fwd'}"
            print(f"{case:34} {te * 1e3:8.1f}ms {tc * 1e3:8.1f}ms {tt * 1e3:8.1f}ms {ti * 1e3:8.1f}ms   "
                  f"{te / tc:10.2f}x {tt / tc:8.2f}x {ti / tc:10.2f}x")
            compile_times.append((case, cold, warm, ind_compile))
    print("\ncompile time (first call, including capture and the C++ build):")
    for case, cold, warm, ind in compile_times:
        print(f"  {case:32} cold {cold:6.2f} s   kernels cached {warm:6.3f} s"
              + (f"   torch.compile {ind:6.2f} s" if ind is not None else ""))
    shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
