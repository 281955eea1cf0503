"""GPU benchmark of the hand-written CUDA nn kernels (softmax, layer_norm,
cross-entropy forward+backward, dropout, embedding, gather, sort) against
PyTorch's CUDA build, measured in the same run on the same device.

Each case synchronises the device after every call, so a time is one op's
device time plus its launch overhead. Prints the effective bandwidth
(bytes read + written / time) where that is meaningful, and the ratio
torchlike / PyTorch of times (below 1: torchlike faster).

Needs a GPU: exits with a message where torchlike.cuda.is_available() is
False, or where PyTorch has no CUDA (then only torchlike's figures print).
"""
import sys

import torchlike

from _timing import median_time

if not torchlike.cuda.is_available():
    print("bench_cuda_nn: no CUDA device (torchlike.cuda.is_available() is False); nothing to measure")
    sys.exit(0)

try:
    import torch
    HAVE_TORCH = torch.cuda.is_available()
except ImportError:
    torch, HAVE_TORCH = None, False


def timed(lib, fn):
    def run():
        fn()
        lib.cuda.synchronize()
    return median_time(run, repeat=30, warmup=5)


def case(name, make, bytes_moved=None):
    """make(lib) -> a zero-argument callable running the op with lib's tensors."""
    t_tl = timed(torchlike, make(torchlike))
    line = f"{name:44s} torchlike {t_tl * 1e3:8.3f} ms"
    if bytes_moved:
        line += f" ({bytes_moved / t_tl / 1e12:5.2f} TB/s)"
    if HAVE_TORCH:
        t_pt = timed(torch, make(torch))
        line += f" | torch {t_pt * 1e3:8.3f} ms"
        if bytes_moved:
            line += f" ({bytes_moved / t_pt / 1e12:5.2f} TB/s)"
        line += f" | ratio {t_tl / t_pt:5.2f}x"
    print(line)


def main():
    print(f"device: {torchlike.cuda.get_device_name(0)}")
    R, C = 8192, 4096
    n = R * C * 4

    def softmax(lib):
        x = lib.randn(R, C, device="cuda")
        return lambda: lib.softmax(x, 1)
    case("softmax (8192, 4096) float32", softmax, 2 * n)

    def softmax_bwd(lib):
        y = lib.softmax(lib.randn(R, C, device="cuda"), 1)
        g = lib.randn(R, C, device="cuda")
        return lambda: lib._softmax_backward_data(g, y, 1, y.dtype)
    case("softmax backward (8192, 4096) float32", softmax_bwd, 3 * n)

    def layer_norm(lib):
        x = lib.randn(R, C, device="cuda")
        w, b = lib.randn(C, device="cuda"), lib.randn(C, device="cuda")
        return lambda: lib.nn.functional.layer_norm(x, (C,), w, b)
    case("layer_norm (8192, 4096) float32", layer_norm, 2 * n)

    def layer_norm_half(lib):
        x = lib.randn(R, C, device="cuda", dtype=lib.bfloat16)
        return lambda: lib.nn.functional.layer_norm(x, (C,))
    case("layer_norm (8192, 4096) bfloat16", layer_norm_half, n)

    def cross_entropy(lib):
        x = lib.randn(4096, 32000, device="cuda", requires_grad=True)
        t = lib.randint(0, 32000, (4096,), device="cuda")
        def step():
            x.grad = None
            lib.nn.functional.cross_entropy(x, t).backward()
        return step
    case("cross-entropy fwd+bwd (4096, 32000)", cross_entropy)

    def dropout(lib):
        x = lib.randn(R, C, device="cuda")
        return lambda: lib.nn.functional.dropout(x, 0.1)
    case("dropout p=0.1 (8192, 4096) float32", dropout)

    def embedding_bwd(lib):
        w = lib.randn(32000, 1024, device="cuda", requires_grad=True)
        idx = lib.randint(0, 32000, (8, 512), device="cuda")
        g = lib.randn(8, 512, 1024, device="cuda")
        def step():
            w.grad = None
            lib.nn.functional.embedding(idx, w).backward(g)
        return step
    case("embedding fwd+bwd (32000x1024, 4096 ids)", embedding_bwd)

    def gather(lib):
        x = lib.randn(R, C, device="cuda")
        i = lib.randint(0, C, (R, 512), device="cuda")
        return lambda: lib.gather(x, 1, i)
    case("gather (8192, 4096) -> (8192, 512)", gather)

    def sort(lib):
        x = lib.randn(4096, 1024, device="cuda")
        return lambda: lib.sort(x, 1)
    case("sort rows (4096, 1024)", sort)


if __name__ == "__main__":
    main()
