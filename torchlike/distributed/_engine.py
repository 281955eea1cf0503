"""Where collectives run: one worker thread per process, a watchdog, and the
Work handles callers wait on.

Why a worker thread: MPI cannot cancel a blocking collective, and MPICH makes
progress on a non-blocking one only while some thread is inside MPI. Running
every collective, in issue order, as a blocking MPI call on one thread (which
releases the GIL inside MPI) gives both: async_op=True really overlaps with the
caller (DDP's gradient all-reduce runs while backward continues), and the
caller can stop waiting. All ranks issue collectives in the same program order,
so one FIFO keeps MPI's matching rule (same order on every rank of a
communicator).

Timeouts: the watchdog sees how long the running collective has taken. After a
short while it publishes "rank r is in collective #s of group g" to the store;
past the group's timeout it names the ranks that never arrived (those that did
not publish #s), fails the Work (so the waiting caller raises
DistBackendError), and a few seconds later calls MPI_Abort, which stops every
rank of the job: MPI offers no way back from a collective some rank never
entered.
"""
import queue
import sys
import threading
import time

from torchlike.distributed._store import DistBackendError

_ABORT_GRACE_S = 2.5  # time for the caller's exception to be reported before MPI_Abort


class Future:
    """The result of a Work, as torch.futures.Future offers it: wait(), value(),
    done(), then(callback)."""

    def __init__(self, work):
        self._work = work

    def wait(self):
        self._work.wait()
        return self._work.result()

    def value(self):
        return self._work.result()

    def done(self):
        return self._work.is_completed()

    def then(self, callback):
        parent = self

        class _Chained(Work):
            def __init__(self):
                super().__init__("then", None, None)
                self._done.set()

            def wait(self, timeout=None):
                parent.wait()
                return True

            def result(self):
                return callback(parent)
        return Future(_Chained())


class Work:
    """A collective or point-to-point operation in flight (async_op=True)."""

    def __init__(self, op_name, group, seq, outputs=None):
        self.op_name = op_name
        self.group = group
        self.seq = seq
        self._outputs = outputs if outputs is not None else []
        self._done = threading.Event()
        self._error = None
        self._source_rank = -1
        self.started_at = None
        self.published = False

    def _finish(self, error=None):
        if self._done.is_set():
            return
        self._error = error
        self._done.set()

    def is_completed(self):
        return self._done.is_set()

    def is_success(self):
        return self._done.is_set() and self._error is None

    def exception(self):
        return self._error

    def wait(self, timeout=None):
        """Blocks until the operation finished; raises its error (a timeout
        included). Returns True."""
        t = None if timeout is None else (timeout.total_seconds() if hasattr(timeout, "total_seconds")
                                          else float(timeout))
        if not self._done.wait(t):
            raise DistBackendError(f"Work.wait: {self.op_name} did not finish within {t} s")
        if self._error is not None:
            raise self._error
        return True

    def synchronize(self):
        self.wait()

    def result(self):
        self.wait()
        return list(self._outputs)

    def get_future(self):
        return Future(self)

    def source_rank(self):
        self.wait()
        return self._source_rank

    def block_current_stream(self):
        self.wait()


class _Engine:
    def __init__(self):
        self.q = queue.SimpleQueue()
        self.current = None
        self.aborting = False
        self.worker = threading.Thread(target=self._run, daemon=True, name="torchlike-dist-worker")
        self.worker.start()
        self.watchdog = threading.Thread(target=self._watch, daemon=True, name="torchlike-dist-watchdog")
        self.watchdog.start()

    def submit(self, work, fn):
        self.q.put((work, fn))

    def _run(self):
        while True:
            work, fn = self.q.get()
            if work is None:
                return
            if self.aborting:
                work._finish(DistBackendError(f"{work.op_name}: the process group is aborting"))
                continue
            work.started_at = time.monotonic()
            self.current = work
            try:
                fn()
                error = None
            except BaseException as e:  # handed to the waiter, never lost in this thread
                error = e if isinstance(e, Exception) else DistBackendError(repr(e))
            self.current = None
            work._finish(error)

    def _watch(self):
        while True:
            time.sleep(0.1)
            work = self.current
            if work is None or work.started_at is None or work.group is None:
                continue
            elapsed = time.monotonic() - work.started_at
            timeout = work.group._timeout_s
            if not work.published and elapsed > min(0.5, timeout / 4):
                work.published = True
                self._publish(work)
            if elapsed > timeout and self.current is work and not self.aborting:
                self._time_out(work, elapsed)
                return

    @staticmethod
    def _publish(work):
        group = work.group
        try:
            group._store.set(f"__tl_arrived/{group.group_name}/{group.rank()}", f"{work.seq}")
        except Exception:
            pass

    def _time_out(self, work, elapsed):
        self.aborting = True
        group = work.group
        missing, seen = [], {}
        for r in range(group.size()):
            key = f"__tl_arrived/{group.group_name}/{r}"
            try:
                if group._store.check([key]):
                    seen[r] = int(group._store.get(key))
            except Exception:
                pass
            if seen.get(r) != work.seq and r != group.rank():
                missing.append(r)
        ranks_global = group._ranks
        names = ", ".join(f"{r}" + (f" (global rank {ranks_global[r]})" if ranks_global[r] != r else "")
                          for r in missing) or "unknown"
        msg = (f"[Rank {group.rank()}] Watchdog caught collective operation timeout: {work.op_name} "
               f"(sequence number {work.seq} of group '{group.group_name}') ran for {elapsed:.1f} s, past the "
               f"timeout of {group._timeout_s:.1f} s; rank(s) that did not arrive: {names}. "
               f"MPI cannot cancel a collective: aborting every rank.")
        sys.stderr.write(msg + "\n")
        sys.stderr.flush()
        work._finish(DistBackendError(msg))
        time.sleep(_ABORT_GRACE_S)
        abort(1)


_engine = None
_engine_lock = threading.Lock()


def engine():
    global _engine
    with _engine_lock:
        if _engine is None:
            _engine = _Engine()
        return _engine


def abort(code=1):
    """Stops every rank of the job (MPI_Abort); falls back to ending this process."""
    from torchlike.distributed._pmi import abort_job
    abort_job(code)
