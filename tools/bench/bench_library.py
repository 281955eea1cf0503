"""Per-call overhead of operators registered from Python (issue 14's target:
at most 3x a built-in op), in one run: a built-in torchlike.add against the
same add reached by name (torchlike.ops.aten.add.Tensor), through a Library
kernel written in Python, and through a custom_op (whose C++ autograd kernel
skips Python when no gradient is needed). PyTorch's torch.library is timed
the same way when it is installed."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import cpu_name, interleaved_median_times  # noqa: E402

import torchlike as tl  # noqa: E402
import torchlike.library as L  # noqa: E402


def cases(torch_mod, lib_mod, ns):
    lib = lib_mod.Library(ns, "DEF")
    lib.define("myadd(Tensor a, Tensor b) -> Tensor")
    lib.impl("myadd", lambda a, b: torch_mod.add(a, b), "CPU")

    @lib_mod.custom_op(f"{ns}::cadd", mutates_args=())
    def cadd(a: torch_mod.Tensor, b: torch_mod.Tensor) -> torch_mod.Tensor:
        return torch_mod.add(a, b)

    a, b = torch_mod.ones(16), torch_mod.ones(16)
    byname = torch_mod.ops.aten.add.Tensor
    libop = getattr(torch_mod.ops, ns).myadd.default
    return lib, {
        "built-in add": lambda: torch_mod.add(a, b),
        "ops.aten.add.Tensor": lambda: byname(a, b),
        "Library.impl (Python kernel)": lambda: libop(a, b),
        "custom_op": lambda: cadd(a, b),
    }


def main():
    print(f"CPU: {cpu_name()}")
    _lib, ours = cases(tl, L, "bench_tl")
    rows = [("torchlike", ours)]
    try:
        import torch
        _tlib, theirs = cases(torch, torch.library, "bench_torch")
        rows.append(("PyTorch", theirs))
    except ImportError:
        pass
    for label, cs in rows:
        times = interleaved_median_times(list(cs.values()), number=2000, repeat=21)
        base = times[0]
        print(f"\n{label}")
        for (name, _), t in zip(cs.items(), times):
            print(f"  {name:32s} {t * 1e6:7.2f} us  {t / base:5.2f}x built-in")


if __name__ == "__main__":
    main()
