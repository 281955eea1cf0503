"""Starting N copies of a function in child processes and waiting for them
(torch.multiprocessing.spawn / start_processes and the context they return)."""
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import tempfile
import time
import traceback
import warnings

__all__ = ["spawn", "start_processes", "ProcessContext", "SpawnContext", "ProcessException",
           "ProcessRaisedException", "ProcessExitedException"]


class ProcessException(Exception):
    """A child started by spawn/start_processes failed (`error_index` is its rank)."""

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """The child raised; the message carries its traceback."""


class ProcessExitedException(ProcessException):
    """The child died without raising: a nonzero exit code or a signal."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _child_main(fn, index, args, error_path):
    try:
        fn(index, *args)
    except KeyboardInterrupt:
        pass  # the parent is tearing everything down
    except Exception:
        with open(error_path, "wb") as f:
            pickle.dump(traceback.format_exc(), f)
        raise SystemExit(1)


class ProcessContext:
    """The children of one start_processes call; join() waits and reports the first failure."""

    def __init__(self, processes, error_files):
        self.processes = processes
        self.error_files = error_files
        self._pending = {p.sentinel: rank for rank, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def _stop_all(self, grace_period):
        live = [p for p in self.processes if p.is_alive()]
        for p in live:
            p.terminate()
        deadline = time.monotonic() + (grace_period or 0)
        for p in live:
            p.join(max(0.0, deadline - time.monotonic()))
        for p in live:
            if p.is_alive():
                p.kill()
                p.join()

    def join(self, timeout=None, grace_period=None):
        """True once every child has exited cleanly; False while some still run
        (after `timeout` seconds); raises for the first child that failed, after
        stopping the others (SIGTERM, then SIGKILL after `grace_period` seconds)."""
        if not self._pending:
            return True
        ready = multiprocessing.connection.wait(list(self._pending), timeout=timeout)
        failed = None
        for sentinel in ready:
            rank = self._pending.pop(sentinel)
            proc = self.processes[rank]
            proc.join()
            if proc.exitcode != 0 and failed is None:
                failed = rank
        if failed is None:
            if self._pending:
                return False
            self._cleanup_files()
            return True
        self._stop_all(grace_period)
        self._pending.clear()
        proc = self.processes[failed]
        path = self.error_files[failed]
        text = None
        if os.path.exists(path) and os.path.getsize(path) > 0:
            with open(path, "rb") as f:
                text = pickle.load(f)
        self._cleanup_files()
        if text is not None:
            raise ProcessRaisedException(f"\n\n-- Process {failed} terminated with the following error:\n{text}",
                                         failed, proc.pid)
        code = proc.exitcode
        if code < 0:
            name = signal.Signals(-code).name
            raise ProcessExitedException(f"process {failed} terminated with signal {name}", failed, proc.pid,
                                         code, name)
        raise ProcessExitedException(f"process {failed} terminated with exit code {code}", failed, proc.pid, code)

    def _cleanup_files(self):
        for path in self.error_files:
            try:
                os.unlink(path)
            except OSError:
                pass


class SpawnContext(ProcessContext):
    """The name ProcessContext had before it served every start method."""

    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.")
        super().__init__(processes, error_files)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Runs fn(i, *args) for i in range(nprocs), each in a child started with
    `start_method`. join=True waits for all (raising for a failure); otherwise
    returns the ProcessContext."""
    ctx = multiprocessing.get_context(start_method)
    procs, files = [], []
    for i in range(nprocs):
        fd, path = tempfile.mkstemp(prefix="torchlike_spawn_err_")
        os.close(fd)
        os.unlink(path)  # the child creates it only to report an error
        files.append(path)
        p = ctx.Process(target=_child_main, args=(fn, i, args, path), daemon=daemon)
        p.start()
        procs.append(p)
    context = ProcessContext(procs, files)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """start_processes with the 'spawn' start method (another method warns)."""
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\n"
                      "To use a different start_method use:\n\t\t torchlike.multiprocessing.start_processes(...)",
                      FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method)
