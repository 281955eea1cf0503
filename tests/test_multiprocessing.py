"""torchlike.multiprocessing: the standard module's surface, tensors shared
through shared memory (not pickled by value), sharing strategies, and
spawn/start_processes with their failure reports.

Every child process here is joined with a timeout, so a bug fails a test
instead of hanging the run."""
import multiprocessing as std_mp
import os
import pickle
import signal
import sys
import time
from multiprocessing.reduction import ForkingPickler

import pytest

import torchlike
import torchlike.multiprocessing as mp

try:
    import torch
    import torch.multiprocessing as tmp
except ImportError:  # PyTorch is an optional reference
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")
WT = 60  # seconds: an upper bound for any child round trip on a loaded machine


@pytest.fixture(params=["file_descriptor", "file_system"])
def strategy(request):
    before = mp.get_sharing_strategy()
    mp.set_sharing_strategy(request.param)
    yield request.param
    mp.set_sharing_strategy(before)


def _fork():
    return mp.get_context("fork")


# ------------------------------------------------------------------ surface
def test_reexports_standard_multiprocessing():
    for name in std_mp.__all__:
        assert hasattr(mp, name), name
    assert mp.Process is std_mp.Process and mp.cpu_count() == std_mp.cpu_count()
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    assert mp.get_sharing_strategy() == "file_descriptor"
    with pytest.raises(AssertionError, match="invalid sharing strategy 'bogus'"):
        mp.set_sharing_strategy("bogus")
    assert issubclass(mp.ProcessRaisedException, mp.ProcessException)
    assert issubclass(mp.ProcessExitedException, mp.ProcessException)
    assert issubclass(mp.SpawnContext, mp.ProcessContext)


@needs_torch
def test_public_names_match_torch():
    ours = {n for n in dir(mp) if not n.startswith("_")}
    theirs = {n for n in dir(tmp) if not n.startswith("_")} - {"torch", "sys", "ENV_VAR_PARALLEL_START"}
    assert theirs - ours == set()
    assert tmp.get_all_sharing_strategies() == mp.get_all_sharing_strategies()
    with pytest.raises(AssertionError) as ref:
        tmp.set_sharing_strategy("bogus")
    with pytest.raises(AssertionError) as got:
        mp.set_sharing_strategy("bogus")
    assert str(got.value) == str(ref.value)


# ------------------------------------------------------------------ pickling through shared memory
def test_payload_is_small_and_rebuild_shares_memory(strategy):
    x = torchlike.arange(1 << 16, dtype=torchlike.float32)  # 256 KiB of data
    assert not x.is_shared()
    payload = ForkingPickler.dumps(x)
    assert len(payload) < 1024  # the storage travels by reference, not by value
    assert x.is_shared()  # pickling moved the sender's storage into shared memory, in place
    y = pickle.loads(payload)
    assert y.is_shared() and y.tolist() == x.tolist()
    y[5] = -1.0
    assert x[5].item() == -1.0


@pytest.mark.parametrize("dtype", [torchlike.float32, torchlike.float64, torchlike.float16, torchlike.bfloat16,
                                   torchlike.int64, torchlike.int8, torchlike.uint8, torchlike.bool])
def test_geometry_dtype_and_requires_grad_survive(dtype, strategy):
    base = (torchlike.arange(24) % 3).to(dtype).reshape(4, 6)
    view = base.t()[1:5:2]  # non-contiguous, with a storage offset
    got = pickle.loads(ForkingPickler.dumps(view))
    assert got.dtype == dtype and got.shape == view.shape and got.stride() == view.stride()
    assert got.storage_offset() == view.storage_offset()
    assert got.to(torchlike.float64).tolist() == view.to(torchlike.float64).tolist()
    if dtype.is_floating_point:
        leaf = torchlike.ones(3, dtype=dtype, requires_grad=True)
        back = pickle.loads(ForkingPickler.dumps(leaf))
        assert back.requires_grad and back.is_leaf


def test_share_memory_moves_views_too():
    base = torchlike.arange(10.)
    view = base[2:6]
    assert base.share_memory_() is base and base.is_shared()
    # the storage itself moved, so the earlier view reads and writes the shared pages
    assert view.is_shared() and view.data_ptr() == base.data_ptr() + 2 * 4
    view[0] = 100.0
    assert base[2].item() == 100.0
    assert base.share_memory_() is base  # already shared: nothing to do


def test_non_leaf_requiring_grad_is_refused():
    x = torchlike.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor which requires_grad"):
        ForkingPickler.dumps(x * 2)
    ForkingPickler.dumps((x * 2).detach())


def test_empty_and_scalar_tensors(strategy):
    for t in (torchlike.zeros(0), torchlike.tensor(3.5), torchlike.zeros(2, 0, 3)):
        got = pickle.loads(ForkingPickler.dumps(t))
        assert got.shape == t.shape and got.tolist() == t.tolist()


def _add_in_child(q, done):
    t = q.get(timeout=WT)
    t.add_(1)  # in place, in the child's mapping of the same pages
    done.put(t.sum().item())


def test_child_modifies_tensor_sent_through_queue(strategy):
    ctx = _fork()
    q, done = mp.Queue(), mp.Queue()
    x = torchlike.zeros(1000)
    p = ctx.Process(target=_add_in_child, args=(q, done))
    p.start()
    q.put(x)
    assert done.get(timeout=WT) == 1000.0
    p.join(WT)
    assert p.exitcode == 0
    assert x.sum().item() == 1000.0  # the parent sees the child's write


def _hogwild_step(rank, shared, out):
    shared[rank] += rank + 1
    out.put(rank)


def test_shared_tensor_as_process_argument_under_spawn():
    # spawn pickles Process arguments; a shared tensor must reach the child as the same memory
    ctx = mp.get_context("spawn")
    shared = torchlike.zeros(2).share_memory_()
    out = ctx.Queue()
    procs = [ctx.Process(target=_hogwild_step, args=(r, shared, out)) for r in range(2)]
    for p in procs:
        p.start()
    assert sorted(out.get(timeout=WT) for _ in procs) == [0, 1]
    for p in procs:
        p.join(WT)
        assert p.exitcode == 0
    assert shared.tolist() == [1.0, 2.0]


def _send_back(q_in, q_out, received):
    t = q_in.get(timeout=WT)
    q_out.put(t * 2)  # a new tensor made in the child comes back through shared memory too
    q_out.put(t)      # and a received one goes back (copied into a fresh segment)
    # Under 'file_descriptor' the receiver fetches descriptors from this process
    # as it unpickles, so (as with PyTorch) the sender stays until they arrive.
    received.wait(WT)


def test_round_trip_through_child(strategy):
    ctx = _fork()
    q_in, q_out, received = mp.Queue(), mp.Queue(), ctx.Event()
    p = ctx.Process(target=_send_back, args=(q_in, q_out, received))
    p.start()
    q_in.put(torchlike.arange(5.))  # a temporary: its segment must outlive the sender's reference
    doubled, echoed = q_out.get(timeout=WT), q_out.get(timeout=WT)
    received.set()
    p.join(WT)
    assert p.exitcode == 0
    assert doubled.tolist() == [0., 2., 4., 6., 8.] and echoed.tolist() == [0., 1., 2., 3., 4.]


def test_file_system_segments_are_counted_and_removed():
    prefix = f"torchlike_{os.getpid()}_"

    def named():
        return {n for n in os.listdir("/dev/shm") if n.startswith(prefix)}

    before_strategy = mp.get_sharing_strategy()
    mp.set_sharing_strategy("file_system")
    try:
        before = named()
        x = torchlike.ones(100).share_memory_()
        assert len(named() - before) == 1
        # a message in flight holds a reference: the name outlives the sender's tensor
        payload = ForkingPickler.dumps(x)
        del x
        assert len(named() - before) == 1
        y = pickle.loads(payload)
        assert y.tolist() == [1.0] * 100
        del y  # the last mapping: the name goes
        assert named() - before == set()
    finally:
        mp.set_sharing_strategy(before_strategy)


# ------------------------------------------------------------------ spawn / start_processes
def _ok(rank, path):
    with open(os.path.join(path, f"r{rank}"), "w") as f:
        f.write(str(rank))


def _raise_in_one(rank):
    if rank == 1:
        raise ValueError("boom from rank 1")
    time.sleep(30)  # the parent must stop us, not wait for us


def _sigkill_self(rank):
    os.kill(os.getpid(), signal.SIGKILL)


def _exit_3(rank):
    sys.exit(3)


def test_start_processes_runs_every_rank(tmp_path):
    assert mp.start_processes(_ok, args=(str(tmp_path),), nprocs=3, start_method="fork") is None
    assert sorted(os.listdir(tmp_path)) == ["r0", "r1", "r2"]


def test_spawn_join_false_returns_context(tmp_path):
    ctx = mp.start_processes(_ok, args=(str(tmp_path),), nprocs=2, join=False, start_method="fork")
    assert isinstance(ctx, mp.ProcessContext) and len(ctx.pids()) == 2
    deadline = time.monotonic() + WT
    while not ctx.join(timeout=1):
        assert time.monotonic() < deadline


def test_raised_exception_carries_child_traceback():
    start = time.monotonic()
    with pytest.raises(mp.ProcessRaisedException) as e:
        mp.start_processes(_raise_in_one, nprocs=2, start_method="fork")
    text = str(e.value)
    assert text.startswith("\n\n-- Process 1 terminated with the following error:\nTraceback (most recent call last)")
    assert "ValueError: boom from rank 1" in text and e.value.error_index == 1
    assert time.monotonic() - start < 20  # rank 0 was terminated, not waited for


@pytest.mark.parametrize("fn,msg,code,sig", [(_sigkill_self, "process 0 terminated with signal SIGKILL", -9, "SIGKILL"),
                                             (_exit_3, "process 0 terminated with exit code 3", 3, None)])
def test_exited_process_reported(fn, msg, code, sig):
    with pytest.raises(mp.ProcessExitedException, match=msg) as e:
        mp.start_processes(fn, nprocs=1, start_method="fork")
    assert e.value.exit_code == code and e.value.signal_name == sig and e.value.error_index == 0


def test_spawn_warns_for_other_start_methods(tmp_path):
    with pytest.warns(FutureWarning, match="This method only supports start_method=spawn"):
        mp.spawn(_ok, args=(str(tmp_path),), nprocs=1, start_method="fork")


def test_exceptions_pickle():
    e = mp.ProcessExitedException("m", 1, 2, 3, "SIGTERM")
    back = pickle.loads(pickle.dumps(e))
    assert (back.msg, back.error_index, back.pid, back.exit_code, back.signal_name) == ("m", 1, 2, 3, "SIGTERM")
