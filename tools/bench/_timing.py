"""The one timer every benchmark here uses: best-of-`repeat` mean per call."""
import time


def best_time(fn, number=1, repeat=7):
    """Seconds per call of fn(): `number` calls per repeat, best of `repeat`,
    after one warm-up call (thread pools, allocator caches)."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best
