"""Kernels run without the GIL, as in PyTorch: another Python thread makes
progress while one thread is inside a long operator."""
import threading
import time

import torchlike as tl


def _longest_stall_during(op):
    """The longest time the main thread could not run Python while `op` ran in another thread.
    With the GIL held through a kernel, that is the whole kernel."""
    done = threading.Event()

    def run():
        op()
        done.set()

    t = threading.Thread(target=run)
    last = time.perf_counter()
    stall = 0.0
    t.start()
    while not done.is_set():
        now = time.perf_counter()
        stall = max(stall, now - last)
        last = now
    t.join()
    return stall


def test_kernels_release_the_gil():
    old = tl.get_num_threads()
    tl.set_num_threads(1)
    try:
        a = tl.randn(2048, 2048)
        b = tl.randn(2048, 2048)
        t0 = time.perf_counter()
        tl.matmul(a, b)
        kernel = time.perf_counter() - t0
        c = tl.randn(4096, 4096)
        for op in (lambda: tl.matmul(a, b),  # a generated binding
                   lambda: a @ b,            # the Python operator
                   lambda: c.add_(c)):       # an in-place operator (hand-written binding)
            t0 = time.perf_counter()
            stall = _longest_stall_during(op)
            took = time.perf_counter() - t0
            if took < 0.02:  # too short to tell a held GIL from scheduling
                continue
            assert stall < 0.5 * took, (stall, took, kernel)
    finally:
        tl.set_num_threads(old)
