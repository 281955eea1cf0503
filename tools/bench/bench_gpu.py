"""GPU benchmark: issue 13's table, torchlike against PyTorch on the same GPU
in the same run.

Each case is timed with CUDA events around the calls (median of >= 15
repeats after warm-up, _timing.MIN_REPEATS), except the host-time case, which
is wall time per call without synchronising. Prints one row per case:
torchlike's figure, PyTorch's, and the ratio (bandwidth and TFLOP/s: torchlike
/ PyTorch, higher is better; times: torchlike / PyTorch, lower is better).
A case that fails in one library prints the error and the run goes on.

Exits with a message (status 0) when no GPU is available to torchlike.
Usage: python tools/bench/bench_gpu.py [--quick] [--only NAME[,NAME...]]
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import MIN_REPEATS  # noqa: E402


def _libs():
    import torchlike
    libs = {"torchlike": torchlike}
    try:
        import torch
        if torch.cuda.is_available():
            libs["torch"] = torch
    except ImportError:
        pass
    return libs


def gpu_median(lib, fn, number=1, repeat=MIN_REPEATS, warmup=3):
    """Seconds per call of fn() on the GPU: CUDA events around `number` calls,
    median over max(repeat, 15) repeats after `warmup` calls."""
    for _ in range(warmup):
        fn()
    lib.cuda.synchronize()
    times = []
    event = getattr(lib.cuda, "Event", None)
    for _ in range(max(repeat, MIN_REPEATS)):
        if event is not None:
            start, end = event(enable_timing=True), event(enable_timing=True)
            start.record()
            for _ in range(number):
                fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / 1e3 / number)
        else:  # no events yet: synchronised wall time
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            lib.cuda.synchronize()
            times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def host_median(lib, fn, number=1000):
    """Host seconds per call, the GPU left to run behind (queue kept short)."""
    for _ in range(10):
        fn()
    lib.cuda.synchronize()
    times = []
    for _ in range(MIN_REPEATS):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
        lib.cuda.synchronize()
    return statistics.median(times)


# ---------------------------------------------------------------- cases
# Each returns (value, unit, higher_is_better) for one library.

def _bandwidth(lib, fn, nbytes):
    return nbytes / gpu_median(lib, fn) / 1e12, "TB/s", True


def case_add(lib, n):
    a, b = lib.randn(n, device="cuda"), lib.randn(n, device="cuda")
    return _bandwidth(lib, lambda: a + b, 12 * n)


def case_exp(lib, n):
    a = lib.randn(n, device="cuda")
    return _bandwidth(lib, lambda: lib.exp(a), 8 * n)


def case_add_(lib, n):
    a, b = lib.randn(n, device="cuda"), lib.randn(n, device="cuda")
    return _bandwidth(lib, lambda: a.add_(b), 12 * n)


def case_sum(lib, side):
    a = lib.randn(side, side, device="cuda")
    return _bandwidth(lib, lambda: a.sum(), 4 * side * side)


def case_sum_dim1(lib, side):
    a = lib.randn(side, side, device="cuda")
    return _bandwidth(lib, lambda: a.sum(dim=1), 4 * side * side)


def case_softmax(lib, rows, cols):
    a = lib.randn(rows, cols, device="cuda")
    return _bandwidth(lib, lambda: lib.softmax(a, dim=-1), 8 * rows * cols)


def case_layer_norm(lib, rows, cols):
    a = lib.randn(rows, cols, device="cuda")
    w, b = lib.ones(cols, device="cuda"), lib.zeros(cols, device="cuda")
    return _bandwidth(lib, lambda: lib.nn.functional.layer_norm(a, (cols,), w, b), 8 * rows * cols)


def case_matmul(lib, n, dtype_name):
    if dtype_name == "tf32":
        lib.set_float32_matmul_precision("high")  # allow_tf32 = True, in both libraries
        dtype = lib.float32
    else:
        dtype = getattr(lib, dtype_name)
    a, b = lib.randn(n, n, device="cuda", dtype=dtype), lib.randn(n, n, device="cuda", dtype=dtype)
    try:
        t = gpu_median(lib, lambda: a @ b)
    finally:
        lib.set_float32_matmul_precision("highest")
    return 2 * n ** 3 / t / 1e12, "TFLOP/s", True


def case_conv2d(lib, N, C, HW):
    x = lib.randn(N, C, HW, HW, device="cuda")
    w = lib.randn(C, C, 3, 3, device="cuda")
    t = gpu_median(lib, lambda: lib.nn.functional.conv2d(x, w, padding=1))
    return 2 * N * C * HW * HW * C * 9 / t / 1e12, "TFLOP/s", True


def case_cross_entropy(lib, rows, classes):
    logits = lib.randn(rows, classes, device="cuda", requires_grad=True)
    target = lib.randint(0, classes, (rows,), device="cuda")

    def step():
        logits.grad = None
        lib.nn.functional.cross_entropy(logits, target).backward()
    return gpu_median(lib, step) * 1e3, "ms", False


def case_tiny_add(lib):
    a, b = lib.ones(1, device="cuda"), lib.ones(1, device="cuda")
    return host_median(lib, lambda: a + b) * 1e6, "us", False


def _mlp(lib, width, depth=3):
    layers = []
    for _ in range(depth - 1):
        layers += [lib.nn.Linear(width, width), lib.nn.ReLU()]
    layers.append(lib.nn.Linear(width, 10))
    return lib.nn.Sequential(*layers).cuda()


def case_mlp_step(lib, batch, width, autocast_bf16=False):
    lib.manual_seed(0)
    model = _mlp(lib, width)
    opt = lib.optim.SGD(model.parameters(), lr=0.01)
    x = lib.randn(batch, width, device="cuda")
    y = lib.randint(0, 10, (batch,), device="cuda")

    def step():
        opt.zero_grad()
        if autocast_bf16:
            with lib.autocast("cuda", dtype=lib.bfloat16):
                loss = lib.nn.functional.cross_entropy(model(x), y)
        else:
            loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    return gpu_median(lib, step) * 1e3, "ms", False


def case_cnn_step(lib, batch):
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 8 * 8, 128), nn.ReLU(), nn.Linear(128, 10)).cuda()
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    x = lib.randn(batch, 3, 32, 32, device="cuda")
    y = lib.randint(0, 10, (batch,), device="cuda")

    def step():
        opt.zero_grad()
        lib.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return gpu_median(lib, step) * 1e3, "ms", False


def cases(quick):
    n = (16 if quick else 64) << 20
    side = 2048 if quick else 8192
    rows, cols = (2048, 4096) if quick else (8192, 4096)
    mm = 2048 if quick else 4096
    return [
        ("add 64M fp32", lambda L: case_add(L, n), ">= 0.95x"),
        ("exp 64M fp32", lambda L: case_exp(L, n), ">= 0.95x"),
        ("add_ 64M fp32", lambda L: case_add_(L, n), ">= 0.95x"),
        ("sum 8192^2", lambda L: case_sum(L, side), ">= 0.95x"),
        ("sum(dim=1) 8192^2", lambda L: case_sum_dim1(L, side), ">= 0.95x"),
        ("softmax 8192x4096", lambda L: case_softmax(L, rows, cols), ">= 0.95x"),
        ("layer_norm 8192x4096", lambda L: case_layer_norm(L, rows, cols), ">= 0.95x"),
        ("matmul 4096^2 fp16", lambda L: case_matmul(L, mm, "float16"), ">= 0.95x"),
        ("matmul 4096^2 bf16", lambda L: case_matmul(L, mm, "bfloat16"), ">= 0.95x"),
        ("matmul 4096^2 tf32", lambda L: case_matmul(L, mm, "tf32"), ">= 0.95x"),
        ("conv2d 64x64x56^2 3x3", lambda L: case_conv2d(L, 16 if quick else 64, 64, 56), ">= 0.9x"),
        ("cross-entropy fwd+bwd 4096x32000", lambda L: case_cross_entropy(L, 4096, 32000), "<= 1.1x"),
        ("1-element add, host time/op", case_tiny_add, "<= 0.5x"),
        ("MLP step b128 w512", lambda L: case_mlp_step(L, 128, 512), "<= 1.0x"),
        ("bf16-autocast MLP step b4096 w4096",
         lambda L: case_mlp_step(L, 1024 if quick else 4096, 4096, autocast_bf16=True), "<= 1.0x"),
        ("CNN step b256 Adam", lambda L: case_cnn_step(L, 256), "<= 1.0x"),
    ]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    ap.add_argument("--only", default="", help="comma-separated substrings of case names to run")
    args = ap.parse_args(argv)
    import torchlike
    if not torchlike.cuda.is_available():
        from torchlike import _cuda_lib
        why = _cuda_lib.load_error() or "no CUDA device is visible"
        print(f"bench_gpu: no GPU available to torchlike ({why}); nothing to measure.")
        return 0
    libs = _libs()
    print(f"GPU: {torchlike.cuda.get_device_name(0)}")
    if "torch" in libs:
        print(f"PyTorch {libs['torch'].__version__} on the same GPU, same run")
    else:
        print("PyTorch with CUDA not available: torchlike's figures only")
    wanted = [w for w in args.only.split(",") if w]
    print(f"{'case':38s} {'torchlike':>14s} {'PyTorch':>14s} {'ratio':>8s}  target")
    for name, fn, target in cases(args.quick):
        if wanted and not any(w in name for w in wanted):
            continue
        results = {}
        for lib_name, lib in libs.items():
            try:
                results[lib_name] = fn(lib)
            except Exception as e:  # report and go on: one missing kernel must not hide the rest
                results[lib_name] = e
        tl, th = results.get("torchlike"), results.get("torch")

        def fmt(r):
            if r is None:
                return "-"
            if isinstance(r, Exception):
                return "failed"
            return f"{r[0]:.3g} {r[1]}"
        ratio = ""
        if isinstance(tl, tuple) and isinstance(th, tuple) and th[0]:
            ratio = f"{tl[0] / th[0]:.2f}x"
        print(f"{name:38s} {fmt(tl):>14s} {fmt(th):>14s} {ratio:>8s}  {target}")
        for lib_name, r in results.items():
            if isinstance(r, Exception):
                print(f"    {lib_name}: {type(r).__name__}: {str(r).splitlines()[0][:200] if str(r) else ''}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
