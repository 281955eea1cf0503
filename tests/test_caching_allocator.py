"""The device caching allocator's policy (csrc/c10/cuda/CachingAllocatorPolicy.*),
driven on CPU through a counting fake device (torchlike._C._caching_allocator_testing_*).
Every expected figure below is computed by hand from PyTorch's documented policy:
512-byte rounding, 2 MiB small-pool segments, 20 MiB segments for 1..10 MiB
requests, 2 MiB-rounded segments above, best fit per pool and stream."""
import threading

import pytest

import torchlike._C as C

KiB = 1024
MiB = 1024 * 1024


class Alloc:
    def __init__(self, capacity=1 << 30, device=0):
        self.h = C._caching_allocator_testing_new(capacity, device)

    def malloc(self, size, stream=0):
        return C._caching_allocator_testing_malloc(self.h, size, stream)

    def free(self, p):
        C._caching_allocator_testing_free(self.h, p)

    def record_stream(self, p, stream):
        C._caching_allocator_testing_record_stream(self.h, p, stream)

    def info(self, p):
        return C._caching_allocator_testing_block_info(self.h, p)

    def stats(self):
        return C._caching_allocator_testing_stats(self.h)

    def empty_cache(self):
        C._caching_allocator_testing_empty_cache(self.h)

    def reset_peak(self):
        C._caching_allocator_testing_reset_peak(self.h)

    def reset_accumulated(self):
        C._caching_allocator_testing_reset_accumulated(self.h)

    def set_fraction(self, f):
        C._caching_allocator_testing_set_memory_fraction(self.h, f)

    def set_max_split_size(self, n):
        C._caching_allocator_testing_set_max_split_size(self.h, n)

    def summary(self, abbreviated=False):
        return C._caching_allocator_testing_summary(self.h, abbreviated)

    def check(self):
        C._caching_allocator_testing_check(self.h)

    def fake(self):
        return C._caching_allocator_testing_fake_counters(self.h)

    def complete_stream(self, s):
        C._caching_allocator_testing_fake_complete_stream(self.h, s)

    def set_foreign_usage(self, n):
        C._caching_allocator_testing_fake_set_foreign_usage(self.h, n)

    def close(self):
        C._caching_allocator_testing_delete(self.h)


@pytest.fixture
def alloc():
    a = Alloc()
    yield a
    a.check()
    a.close()


def fmt(n):
    """PyTorch's size text in the OOM message."""
    if n <= 1024:
        return f"{n} bytes"
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{n / 1024:.2f} KiB"


@pytest.mark.parametrize("request_size, block, small", [
    (1, 512, True), (511, 512, True), (512, 512, True), (513, 1024, True), (1000, 1024, True),
    (1024, 1024, True), (MiB - 1, MiB, True), (MiB, MiB, True),
    (MiB + 1, MiB + 512, False), (5 * MiB + 100, 5 * MiB + 512, False),
])
def test_rounding_table(alloc, request_size, block, small):
    p = alloc.malloc(request_size)
    info = alloc.info(p)
    assert (info["size"], info["requested"], info["small_pool"]) == (block, request_size, small)
    s = alloc.stats()
    assert s["allocated_bytes.all.current"] == block
    assert s["requested_bytes.all.current"] == request_size
    pool = "small_pool" if small else "large_pool"
    assert s[f"allocated_bytes.{pool}.current"] == block
    alloc.free(p)


def test_zero_bytes_allocates_nothing(alloc):
    assert alloc.malloc(0) == 0
    alloc.free(0)
    s = alloc.stats()
    assert s["allocation.all.allocated"] == 0 and s["num_device_alloc"] == 0


@pytest.mark.parametrize("request_size, segment", [
    (1, 2 * MiB), (MiB, 2 * MiB), (MiB + 1, 20 * MiB), (10 * MiB - 512, 20 * MiB),
    (10 * MiB, 10 * MiB), (10 * MiB + 1, 12 * MiB), (11 * MiB, 12 * MiB), (20 * MiB + 1, 22 * MiB),
])
def test_segment_sizes(alloc, request_size, segment):
    p = alloc.malloc(request_size)
    info = alloc.info(p)
    assert info["segment_size"] == segment and info["segment_address"] == p
    s = alloc.stats()
    assert s["reserved_bytes.all.current"] == segment and s["num_device_alloc"] == 1
    assert alloc.fake()["live_bytes"] == segment
    alloc.free(p)


def test_small_split_and_coalesce(alloc):
    a = alloc.malloc(1000)
    b = alloc.malloc(2000)
    # Both carved from one 2 MiB segment, back to back.
    assert b == a + 1024
    s = alloc.stats()
    assert s["segment.all.current"] == 1
    assert s["inactive_split.all.current"] == 1
    assert s["inactive_split_bytes.all.current"] == 2 * MiB - 1024 - 2048
    alloc.check()
    alloc.free(a)
    s = alloc.stats()
    assert s["inactive_split.all.current"] == 2
    assert s["inactive_split_bytes.all.current"] == 2 * MiB - 2048
    alloc.free(b)
    # b merges with a on its left and the tail on its right: one whole free segment.
    s = alloc.stats()
    assert s["inactive_split.all.current"] == 0 and s["inactive_split_bytes.all.current"] == 0
    alloc.check()
    c = alloc.malloc(MiB)
    assert c == a and alloc.info(c)["segment_size"] == 2 * MiB
    assert alloc.stats()["num_device_alloc"] == 1
    alloc.free(c)


def test_large_split_threshold(alloc):
    # 1 MiB + 512 from a 20 MiB segment: the ~19 MiB tail is kept as a free block.
    a = alloc.malloc(MiB + 1)
    assert alloc.stats()["inactive_split_bytes.large_pool.current"] == 20 * MiB - (MiB + 512)
    # That tail serves the next request without a new segment.
    b = alloc.malloc(4 * MiB)
    assert b == a + MiB + 512 and alloc.stats()["num_device_alloc"] == 1
    alloc.free(a)
    alloc.free(b)
    # A remainder of 1 MiB or less is not split off in the large pool.
    c = alloc.malloc(19 * MiB + 512 * KiB)  # own 20 MiB segment, 512 KiB left over
    info = alloc.info(c)
    assert info["segment_size"] == 20 * MiB and info["size"] == 20 * MiB
    s = alloc.stats()
    assert s["allocated_bytes.large_pool.current"] == 20 * MiB
    assert s["requested_bytes.large_pool.current"] == 19 * MiB + 512 * KiB
    alloc.free(c)


def test_best_fit(alloc):
    a = alloc.malloc(4096)
    g1 = alloc.malloc(512)
    b = alloc.malloc(2048)
    g2 = alloc.malloc(512)
    c = alloc.malloc(8192)
    g3 = alloc.malloc(512)
    for p in (a, b, c):
        alloc.free(p)
    alloc.check()
    # Free blocks: 4096 @a, 2048 @b, 8192 @c and the segment's tail.
    assert alloc.malloc(2048) == b
    d = alloc.malloc(3000)  # 3072: best fit is a's 4096, leaving 1024
    assert d == a and alloc.info(d)["size"] == 3072
    e = alloc.malloc(1024)  # a's leftover 1024 fits exactly, before c's 8192
    assert e == a + 3072
    f = alloc.malloc(6000)
    assert f == c
    for p in (b, d, e, f, g1, g2, g3):
        alloc.free(p)


def test_reuse_is_per_stream(alloc):
    p1 = alloc.malloc(1000, stream=1)
    alloc.free(p1)
    p2 = alloc.malloc(1000, stream=2)
    assert p2 != p1 and alloc.info(p2)["stream"] == 2
    assert alloc.stats()["num_device_alloc"] == 2
    p3 = alloc.malloc(1000, stream=1)
    assert p3 == p1 and alloc.stats()["num_device_alloc"] == 2
    alloc.free(p2)
    alloc.free(p3)


def test_record_stream_holds_block_until_event(alloc):
    p = alloc.malloc(1000, stream=0)
    alloc.record_stream(p, 5)
    alloc.record_stream(p, 0)  # its own stream: nothing to wait for
    alloc.free(p)
    s = alloc.stats()
    assert s["allocated_bytes.all.current"] == 0
    assert s["active_bytes.all.current"] == 1024 and s["active.all.current"] == 1
    assert alloc.fake()["live_events"] == 1
    q = alloc.malloc(1000, stream=0)
    assert q != p  # still in use by stream 5
    alloc.check()
    alloc.complete_stream(5)
    r = alloc.malloc(1000, stream=0)  # the event is seen complete: p's block is back
    assert r == p
    assert alloc.fake()["live_events"] == 0
    assert alloc.stats()["active.all.current"] == 2
    alloc.free(q)
    alloc.free(r)


def test_record_stream_pending_until_completion_of_every_stream(alloc):
    p = alloc.malloc(4096, stream=0)
    alloc.record_stream(p, 1)
    alloc.record_stream(p, 2)
    alloc.free(p)
    assert alloc.fake()["live_events"] == 2
    alloc.complete_stream(1)
    q = alloc.malloc(4096, stream=0)
    assert q != p and alloc.stats()["active.all.current"] == 2
    alloc.complete_stream(2)
    r = alloc.malloc(4096, stream=0)
    assert r == p
    alloc.free(q)
    alloc.free(r)


def test_empty_cache_waits_for_pending_events(alloc):
    p = alloc.malloc(1000)
    alloc.record_stream(p, 7)
    alloc.free(p)
    alloc.empty_cache()
    f = alloc.fake()
    assert f["waits"] == 1 and f["live_events"] == 0
    assert f["live_allocations"] == 0 and f["free_calls"] == 1
    s = alloc.stats()
    assert s["reserved_bytes.all.current"] == 0 and s["active.all.current"] == 0
    assert s["num_device_free"] == 1 and s["num_sync_all_streams"] == 1


def test_oom_empties_cache_and_retries(alloc):
    a = Alloc(capacity=8 * MiB)
    try:
        held = [a.malloc(1000, stream=s) for s in range(4)]  # four 2 MiB segments fill the device
        for p in held[1:]:
            a.free(p)
        p = a.malloc(1000, stream=4)  # refused, cache emptied, retried
        s = a.stats()
        assert s["num_alloc_retries"] == 1 and s["num_ooms"] == 0
        assert s["num_device_free"] == 3 and s["num_device_alloc"] == 5
        assert s["segment.all.current"] == 2
        f = a.fake()
        assert f["refused_calls"] == 1 and f["live_allocations"] == 2
        a.free(p)
        a.free(held[0])
        a.check()
    finally:
        a.close()


def test_oom_message_and_counters():
    a = Alloc(capacity=8 * MiB)
    try:
        held = [a.malloc(1000, stream=s) for s in range(4)]
        with pytest.raises(C._CachingAllocatorOutOfMemoryError) as e:
            a.malloc(1000, stream=9)
        assert isinstance(e.value, RuntimeError)
        allocated, reserved = 4 * 1024, 8 * MiB
        expected = (f"CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of 8.00 MiB "
                    f"of which 0 bytes is free. Including non-torchlike memory, this process has 8.00 MiB memory "
                    f"in use. Of the allocated memory {fmt(allocated)} is allocated by torchlike, and "
                    f"{fmt(reserved - allocated)} is reserved by torchlike but unallocated.")
        assert str(e.value).startswith(expected), str(e.value)
        s = a.stats()
        assert s["num_ooms"] == 1 and s["num_alloc_retries"] == 1
        # The failed request changed nothing else.
        assert s["allocation.all.current"] == 4 and s["reserved_bytes.all.current"] == reserved
        for p in held:
            a.free(p)
        # A large request names the segment it asked the device for.
        a.set_foreign_usage(3 * MiB)
        with pytest.raises(C._CachingAllocatorOutOfMemoryError, match=r"Tried to allocate 12\.00 MiB\. GPU 0 has "
                           r"a total capacity of 8\.00 MiB of which 5\.00 MiB is free\. Including non-torchlike "
                           r"memory, this process has 3\.00 MiB memory in use\."):
            a.malloc(11 * MiB)
        assert a.stats()["num_ooms"] == 2
        a.check()
    finally:
        a.close()


def test_oom_device_index_in_message():
    a = Alloc(capacity=MiB, device=3)
    try:
        with pytest.raises(C._CachingAllocatorOutOfMemoryError, match="GPU 3 has a total capacity of 1.00 MiB"):
            a.malloc(10)
    finally:
        a.close()


def test_memory_fraction_caps_reserved():
    a = Alloc(capacity=100 * MiB)
    try:
        a.set_fraction(0.1)  # 10 MiB allowed: five 2 MiB segments
        held = [a.malloc(512, stream=s) for s in range(5)]
        with pytest.raises(C._CachingAllocatorOutOfMemoryError, match=r"10\.00 MiB allowed; Of the allocated"):
            a.malloc(512, stream=5)
        assert a.fake()["refused_calls"] == 0  # the cap, not the device, said no
        assert a.stats()["reserved_bytes.all.peak"] == 10 * MiB
        a.free(held.pop())
        # The freed segment is released by the retry and the request fits again.
        p = a.malloc(512, stream=5)
        assert a.stats()["num_alloc_retries"] == 2
        held.append(p)
        a.set_fraction(1.0)
        held.append(a.malloc(512, stream=6))
        for p in held:
            a.free(p)
        with pytest.raises(ValueError, match="Invalid fraction value: 1.5"):
            a.set_fraction(1.5)
        with pytest.raises(ValueError):
            a.set_fraction(0.0)
    finally:
        a.close()


def test_stats_current_peak_and_resets(alloc):
    a = alloc.malloc(1000)           # 1024 small
    b = alloc.malloc(3 * MiB)        # 3 MiB large, from a 20 MiB segment
    c = alloc.malloc(700)            # 1024 small
    alloc.free(a)
    s = alloc.stats()
    assert s["allocated_bytes.all.current"] == 3 * MiB + 1024
    assert s["allocated_bytes.all.peak"] == 3 * MiB + 2048
    assert s["allocated_bytes.all.allocated"] == 3 * MiB + 2048
    assert s["allocated_bytes.all.freed"] == 1024
    assert s["allocated_bytes.small_pool.peak"] == 2048
    assert s["allocated_bytes.large_pool.current"] == 3 * MiB
    assert s["requested_bytes.all.current"] == 3 * MiB + 700
    assert s["reserved_bytes.all.current"] == 22 * MiB
    assert s["reserved_bytes.small_pool.current"] == 2 * MiB
    assert s["segment.all.current"] == 2 and s["segment.large_pool.current"] == 1
    assert s["allocation.all.current"] == 2 and s["allocation.all.peak"] == 3
    assert s["active.all.current"] == 2
    # Small segment: [free 1024][c 1024][free tail]; large: [b][free tail].
    assert s["inactive_split.small_pool.current"] == 2
    assert s["inactive_split_bytes.small_pool.current"] == 2 * MiB - 1024
    assert s["inactive_split_bytes.large_pool.current"] == 17 * MiB
    assert s["num_device_alloc"] == 2 and s["max_split_size"] == -1
    alloc.reset_peak()
    s = alloc.stats()
    assert s["allocated_bytes.all.peak"] == 3 * MiB + 1024 and s["allocation.all.peak"] == 2
    assert s["allocated_bytes.all.allocated"] == 3 * MiB + 2048  # accumulated counts survive
    alloc.reset_accumulated()
    s = alloc.stats()
    assert s["allocated_bytes.all.allocated"] == 0 and s["allocated_bytes.all.freed"] == 0
    assert s["num_device_alloc"] == 0
    assert s["allocated_bytes.all.current"] == 3 * MiB + 1024  # current is untouched
    alloc.free(b)
    alloc.free(c)
    s = alloc.stats()
    assert s["allocated_bytes.all.freed"] == 3 * MiB + 1024 and s["allocated_bytes.all.current"] == 0
    alloc.empty_cache()
    s = alloc.stats()
    assert s["reserved_bytes.all.current"] == 0 and s["num_device_free"] == 2
    assert s["reserved_bytes.all.freed"] == 22 * MiB


def test_stats_key_set(alloc):
    keys = set(alloc.stats())
    pooled = ["allocation", "segment", "active", "inactive_split", "allocated_bytes", "reserved_bytes",
              "active_bytes", "inactive_split_bytes", "requested_bytes"]
    expected = {f"{n}.{p}.{m}" for n in pooled for p in ("all", "small_pool", "large_pool")
                for m in ("current", "peak", "allocated", "freed")}
    expected |= {f"{n}.{m}" for n in ("oversize_allocations", "oversize_segments")
                 for m in ("current", "peak", "allocated", "freed")}
    expected |= {"num_alloc_retries", "num_ooms", "num_device_alloc", "num_device_free", "num_sync_all_streams",
                 "max_split_size"}
    assert keys == expected
    assert list(alloc.stats()) == sorted(keys)


def test_memory_summary(alloc):
    p = alloc.malloc(3 * MiB)
    text = alloc.summary()
    lines = text.splitlines()
    assert "torchlike CUDA memory summary, device ID 0" in lines[1]
    assert "CUDA OOMs: 0" in text and "cudaMalloc retries: 0" in text
    assert "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |" in lines
    assert len({len(line) for line in lines}) == 1  # a rectangular table
    rows = [line.split("|")[1].strip() for line in lines if line.count("|") == 6]
    for label in ("Allocated memory", "Active memory", "Requested memory", "GPU reserved memory",
                  "Non-releasable memory", "Allocations", "Active allocs", "GPU reserved segments",
                  "Non-releasable allocs", "Oversize allocations", "Oversize GPU segments"):
        assert label in rows
    allocated = next(line for line in lines if line.startswith("| Allocated memory"))
    assert allocated.split("|")[2].strip() == "3072 KiB"
    reserved = next(line for line in lines if line.startswith("| GPU reserved memory"))
    assert reserved.split("|")[2].strip() == "20480 KiB"
    assert rows.count("from small pool") == 9
    short = alloc.summary(abbreviated=True)
    assert "from small pool" not in short and "Allocated memory" in short
    alloc.free(p)


def test_max_split_size_oversize_blocks(alloc):
    alloc.set_max_split_size(40 * MiB)
    assert alloc.stats()["max_split_size"] == 40 * MiB
    big = alloc.malloc(70 * MiB)
    s = alloc.stats()
    assert s["oversize_segments.current"] == 1 and s["oversize_allocations.current"] == 1
    alloc.free(big)
    # A request under the threshold does not take the oversize block: own 26 MiB segment.
    mid = alloc.malloc(25 * MiB)
    assert mid != big and alloc.info(mid)["segment_size"] == 26 * MiB
    assert alloc.stats()["num_device_alloc"] == 2
    # An oversize request less than 20 MiB smaller than the block takes it, unsplit.
    again = alloc.malloc(55 * MiB)
    assert again == big and alloc.info(again)["size"] == 70 * MiB
    alloc.free(again)
    # 45 MiB is 25 MiB short of the block: a segment of its own (46 MiB, oversize too).
    far = alloc.malloc(45 * MiB)
    assert far != big and alloc.info(far)["segment_size"] == 46 * MiB
    s = alloc.stats()
    assert s["oversize_segments.current"] == 2 and s["oversize_allocations.current"] == 1
    assert s["oversize_allocations.allocated"] == 3
    alloc.free(far)
    alloc.free(mid)
    alloc.empty_cache()
    assert alloc.stats()["oversize_segments.current"] == 0
    with pytest.raises(ValueError, match="max_split_size"):
        alloc.set_max_split_size(MiB)


def test_bad_pointers(alloc):
    p = alloc.malloc(100)
    with pytest.raises(RuntimeError, match="did not hand out"):
        alloc.free(p + 512)
    alloc.free(p)
    with pytest.raises(RuntimeError, match="freed twice"):
        alloc.free(p)
    with pytest.raises(RuntimeError, match="record_stream"):
        alloc.record_stream(p, 1)


def test_native_threads_keep_invariants():
    a = Alloc(capacity=256 * MiB)
    try:
        served = C._caching_allocator_testing_stress(a.h, 4, 3000, 1234)
        assert served > 1000
        a.check()
        s = a.stats()
        assert s["allocated_bytes.all.current"] == 0 and s["allocation.all.current"] == 0
        assert s["allocation.all.allocated"] == served
        a.empty_cache()
        f = a.fake()
        assert f["live_allocations"] == 0 and f["live_bytes"] == 0 and f["live_events"] == 0
        assert f["allocate_calls"] - f["refused_calls"] == f["free_calls"]
        assert a.stats()["reserved_bytes.all.current"] == 0
    finally:
        a.close()


def test_python_threads_no_leaks():
    a = Alloc(capacity=1 << 30)
    errors = []

    def worker(k):
        try:
            mine = []
            for i in range(300):
                mine.append(a.malloc((i * 7919 + k * 131) % (3 * MiB) + 1, stream=k % 2))
                if i % 3 == 2:
                    a.free(mine.pop(0))
            for p in mine:
                a.free(p)
        except Exception as exc:  # reported below: a thread's failure must fail the test
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert not errors
        a.check()
        assert a.stats()["allocation.all.allocated"] == 1200
        a.empty_cache()
        assert a.fake()["live_allocations"] == 0
    finally:
        a.close()


def test_unknown_handle():
    with pytest.raises(ValueError, match="no instance"):
        C._caching_allocator_testing_stats(-5)
