"""The one timer every benchmark here uses: median per-call time of at least
15 timed repeats, after warm-up calls.

Why a median of many: with 5 repeats, start-up (waking the thread pool,
first-touch page faults of fresh outputs) dominated some cases, and one case
read anywhere from 0.4x to 7x PyTorch between runs. A median of 15 or more
repeats after warm-up is stable; ratios are only compared within one run.
"""
import platform
import statistics
import time

MIN_REPEATS = 15


def median_time(fn, number=1, repeat=MIN_REPEATS, warmup=3):
    """Seconds per call of fn(): `number` calls per repeat, median over
    max(repeat, 15) repeats, after `warmup` untimed calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(max(repeat, MIN_REPEATS)):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def interleaved_median_times(fns, number=1, repeat=MIN_REPEATS, warmup=3):
    """Median seconds per call of each fn in `fns`, timed in turns (one repeat of
    each, then the next round), so a slow spell of the machine hits all of them
    alike and their ratio stays meaningful. Same repeat rules as median_time."""
    for fn in fns:
        for _ in range(warmup):
            fn()
    times = [[] for _ in fns]
    for _ in range(max(repeat, MIN_REPEATS)):
        for fn, ts in zip(fns, times):
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            ts.append((time.perf_counter() - t0) / number)
    return [statistics.median(ts) for ts in times]


def cpu_name():
    """The CPU's model name (ratios are only quoted with the CPU they were measured on)."""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()
