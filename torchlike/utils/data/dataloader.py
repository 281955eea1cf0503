"""DataLoader: batches from a dataset, in the main process or from worker
processes (worker.py has their side of the protocol).

Multi-process loading, as seen from the main process: each worker has a task
pipe (main -> worker) and a result pipe (worker -> main). Tasks go to the
workers round-robin, at most prefetch_factor per worker in flight; the main
process waits on every result pipe and every worker's exit sentinel at once,
so a worker that dies is noticed as soon as it dies rather than at a poll.

Tensors in results travel through shared memory (torchlike.multiprocessing):
a worker collates straight into a segment and the pipe carries only its name.
When a batch dies in the main process, its segment's name rides back to the
worker with a later task and the worker collates into the same pages again,
so a steady loader allocates no new memory per batch.
"""
import itertools
import math
import multiprocessing
import multiprocessing.connection
import os
import time
import warnings
import weakref
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Generic, TypeVar

import torchlike
import torchlike.multiprocessing  # noqa: F401  registers the shared-memory tensor pickler
from torchlike.multiprocessing import _shm
from torchlike.utils.data import worker as _worker
from torchlike.utils.data.collate import default_collate, default_convert
from torchlike.utils.data.dataset import IterableDataset
from torchlike.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

get_worker_info = _worker.get_worker_info
T_co = TypeVar("T_co", covariant=True)

# Seconds shutdown waits for workers to exit by themselves before terminating them.
_EXIT_GRACE_S = 5.0


class _EndlessNone(Sampler):
    """The key stream for iterable datasets: the dataset decides when it ends."""

    def __iter__(self):
        while True:
            yield None


def _widen_pipe(conn):
    """Grows a pipe's kernel buffer (Linux), so that the writer practically never
    blocks: task messages are written straight from the loader's thread."""
    try:
        import fcntl
        fcntl.fcntl(conn.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except (ImportError, OSError):
        pass


class _Kind:
    MAP = 0
    ITERABLE = 1


def _cpu_budget():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count()


def _pin(data):
    """Copies every tensor in `data` into pinned memory (containers rebuilt)."""
    if isinstance(data, torchlike.Tensor):
        return data.pin_memory()
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, Mapping):
        pinned = {k: _pin(v) for k, v in data.items()}
        try:
            return type(data)(pinned)
        except TypeError:
            return pinned
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_pin(v) for v in data))
    if isinstance(data, tuple):
        return [_pin(v) for v in data]
    if isinstance(data, Sequence):
        try:
            return type(data)([_pin(v) for v in data])
        except TypeError:
            return [_pin(v) for v in data]
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data


class DataLoader(Generic[T_co]):
    """Iterates over a dataset in batches (see PyTorch's documentation for the
    arguments; every one of torch 2.13's is accepted with its meaning)."""

    _FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")
    _iterator = None
    __initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers: int = 0, collate_fn=None, pin_memory: bool = False, drop_last: bool = False,
                 timeout: float = 0, worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers: bool = False, pin_memory_device: str = "",
                 in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _Kind.ITERABLE
            # the dataset orders its own samples: a sampler would have nothing to say
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _Kind.MAP

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _Kind.ITERABLE:
                sampler = _EndlessNone()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.multiprocessing_context = multiprocessing_context
        self._IterableDataset_len_called = None
        self._iterator = None
        self.__initialized = True
        self.check_worker_number_rationality()

    # ------------------------------------------------------------------ attributes
    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context):
        if context is not None:
            if self.num_workers <= 0:
                raise ValueError("multiprocessing_context can only be used with multi-process loading "
                                 f"(num_workers > 0), but got num_workers={self.num_workers}")
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError(f"multiprocessing_context option should specify a valid start method in "
                                     f"{methods!r}, but got multiprocessing_context={context!r}")
                context = multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context object or a string "
                                f"specifying the start method, but got multiprocessing_context={context}")
        self.__multiprocessing_context = context

    def __setattr__(self, name, value):
        if self.__initialized and name in self._FROZEN:
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    # ------------------------------------------------------------------ iteration
    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        return _MultiProcessIter(self)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None or not self._iterator._finalizer.alive:
                # first epoch, or the workers were shut down (a worker died, say)
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self) -> int:
        if self._dataset_kind == _Kind.ITERABLE:
            n = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
            return n
        return len(self._index_sampler)

    def check_worker_number_rationality(self):
        """Warns when more workers are asked for than this process may run on CPUs."""
        if self.num_workers <= 0:
            return
        budget = _cpu_budget()
        if budget is not None and self.num_workers > budget:
            warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. Our suggested "
                          f"max number of worker in current system is {budget}, which is smaller than what this "
                          "DataLoader is going to create. Please be aware that excessive worker creation might get "
                          "DataLoader running slow or even freeze, lower the worker number to avoid potential "
                          "slowness/freeze if necessary.")


class _LoaderIter:
    """What both iterators share: keys, seeds, length bookkeeping, pinning."""

    def __init__(self, loader):
        self._dataset = loader.dataset
        self._iterable = loader._dataset_kind == _Kind.ITERABLE
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._collate_fn = loader.collate_fn
        self._timeout = loader.timeout
        self._persistent = loader.persistent_workers
        self._pin = self._decide_pinning(loader)
        self._reset_keys(loader)

    @staticmethod
    def _decide_pinning(loader):
        if not loader.pin_memory:
            return False
        if loader.pin_memory_device:
            warnings.warn("pin_memory_device is deprecated, the current accelerator will be used as the device,"
                          f"ignore pin_memory_device='{loader.pin_memory_device}'.")
        if not torchlike.accelerator.is_available():
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.")
            return False
        return True

    def _reset_keys(self, loader):
        # Drawn at every epoch, whatever num_workers: the sampler, sharing the
        # loader's generator, then sees the same stream (so the same order)
        # with or without workers.
        self._base_seed = int(torchlike.empty((), dtype=torchlike.int64).random_(generator=loader.generator).item())
        self._keys = iter(self._index_sampler)
        self._num_yielded = 0
        self._num_fetched = 0
        self._reported_len = loader._IterableDataset_len_called

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._index_sampler)

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if self._iterable and self._reported_len is not None and self._num_yielded > self._reported_len:
            msg = (f"Length of IterableDataset {self._dataset} was reported to be {self._reported_len}(when "
                   f"accessing len(dataloader)), but {self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly configuring the "
                        "IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for examples.")
            warnings.warn(msg)
        return data

    def _finish(self, data):
        return _pin(data) if self._pin else data


class _SingleProcessIter(_LoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._fetcher = _worker.make_fetcher(self._iterable, self._dataset, self._auto_collation,
                                             self._collate_fn, self._drop_last)

    def _next_data(self):
        keys = next(self._keys)
        # seeded per batch as a worker would (worker.batch_seed); an iterable dataset's end is StopIteration too
        data = _worker.fetch_seeded(self._fetcher, keys, self._base_seed, self._num_fetched)
        self._num_fetched += 1
        return self._finish(data)


_iterator_ids = itertools.count()


def _stop_pool(workers, task_queues, result_conns, shm_prefix, num_workers):
    """Ends a loader's workers: asks them to exit, then terminates stragglers.

    A weakref.finalize callback, not __del__: it holds the queues and pipes
    itself, so they are still usable when the iterator dies in a reference
    cycle (where the garbage collector may finalize them first), and it runs
    at interpreter exit for iterators still alive then."""
    try:
        for q in task_queues:
            try:
                os.set_blocking(q.fileno(), False)  # a stuck worker's full pipe must not hang us
                q.send(None)
            except Exception:
                pass  # that worker is gone (or stuck): it is terminated below
        # a worker blocked writing a result nobody will read gets EPIPE and exits
        for c in result_conns:
            c.close()
        deadline = time.monotonic() + _EXIT_GRACE_S
        for w in workers:
            if w.pid is not None:
                w.join(max(0.0, deadline - time.monotonic()))
        for w in workers:
            if w.pid is not None and w.is_alive():
                w.terminate()
                w.join(1.0)
                if w.is_alive():
                    w.kill()
                    w.join()
        for q in task_queues:
            q.close()
    finally:
        for wid in range(num_workers):
            # batches still alive here unlink their names when they die
            _shm.loan_returns.pop(f"{shm_prefix}_w{wid}", None)
        _shm.remove_prefixed(shm_prefix)


class _MultiProcessIter(_LoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._in_order = loader.in_order
        self._in_flight_max = loader.prefetch_factor * self._num_workers
        self._shm_prefix = f"tldl_{os.getpid()}_{next(_iterator_ids)}"
        self._generation = 0
        self._workers, self._task_queues, self._result_conns = [], [], []
        # names of shared-memory batches this process is done with, per worker (worker.py reuses them)
        self._loan_returns = [deque() for _ in range(self._num_workers)]
        for wid, returns in enumerate(self._loan_returns):
            _shm.loan_returns[f"{self._shm_prefix}_w{wid}"] = returns
        ctx = loader.multiprocessing_context or multiprocessing.get_context()
        self._finalizer = weakref.finalize(self, _stop_pool, self._workers, self._task_queues, self._result_conns,
                                           self._shm_prefix, self._num_workers)
        try:
            for wid in range(self._num_workers):
                task_reader, tasks = ctx.Pipe(duplex=False)
                receiver, sender = ctx.Pipe(duplex=False)
                _widen_pipe(tasks)
                _widen_pipe(sender)
                proc = ctx.Process(target=_worker.worker_main, daemon=True,
                                   args=(self._iterable, self._dataset, task_reader, sender, self._auto_collation,
                                         self._collate_fn, self._drop_last, self._base_seed, loader.worker_init_fn,
                                         wid, self._num_workers, self._shm_prefix, os.getpid()))
                proc.start()
                sender.close()  # the worker's copy is the only writer: its exit shows as EOF
                task_reader.close()
                self._workers.append(proc)
                self._task_queues.append(tasks)
                self._result_conns.append(receiver)
        except BaseException:
            self._shutdown_workers()
            raise
        self._start_epoch()

    # ------------------------------------------------------------------ epochs and tasks
    def _start_epoch(self):
        self._outstanding = {}   # task id -> worker id: sent, no answer yet
        self._order = deque()    # task ids in the order batches must come out (in_order)
        self._ready = {}         # task id -> payload: answered, not yet handed out
        self._serving = [True] * self._num_workers
        self._next_id = 0
        self._cursor = 0         # round-robin position, from worker 0 each epoch
        self._keys_left = True
        for _ in range(self._in_flight_max):
            if not self._send_task():
                break

    def _reset(self, loader):
        """A new epoch on persistent workers: new keys, and workers restart iterable datasets."""
        self._reset_keys(loader)
        self._generation += 1
        for q in self._task_queues:
            q.send((self._generation, None, self._base_seed, ()))
        self._start_epoch()

    def _send_task(self):
        if not self._keys_left:
            return False
        for _ in range(self._num_workers):
            wid = self._cursor
            self._cursor = (self._cursor + 1) % self._num_workers
            if self._serving[wid]:
                break
        else:
            return False
        try:
            keys = next(self._keys)
        except StopIteration:
            self._keys_left = False
            return False
        tid = self._next_id
        self._next_id += 1
        returns = self._loan_returns[wid]
        returned = [returns.popleft() for _ in range(len(returns))]
        try:
            self._task_queues[wid].send((self._generation, tid, keys, returned))
        except (BrokenPipeError, ConnectionError):
            pass  # the worker died: _receive reports it
        self._outstanding[tid] = wid
        if self._in_order:
            self._order.append(tid)
        return True

    def _next_data(self):
        while True:
            tid = self._deliverable()
            if tid is not None:
                payload = self._ready.pop(tid)
                self._send_task()
                if isinstance(payload, _worker.WorkerError):
                    payload.reraise()
                return self._finish(payload)
            if not self._outstanding:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration
            generation, tid, payload = self._receive()
            if generation != self._generation or tid not in self._outstanding:
                continue  # from an epoch abandoned part-way
            wid = self._outstanding.pop(tid)
            if isinstance(payload, _worker.StreamEnd):
                # this worker's share of the stream is done: what it still holds gets no answer
                self._serving[wid] = False
                for other, owner in list(self._outstanding.items()):
                    if owner == wid:
                        del self._outstanding[other]
                self._send_task()
                continue
            self._ready[tid] = payload

    def _deliverable(self):
        if not self._in_order:
            return next(iter(self._ready), None)
        while self._order:
            head = self._order[0]
            if head in self._ready:
                self._order.popleft()
                return head
            if head in self._outstanding:
                return None
            self._order.popleft()  # dropped (its worker's stream ended)
        return None

    def _receive(self):
        """The next (generation, task id, payload) from any worker; raises when a worker
        died or (timeout > 0) nothing came for `timeout` seconds."""
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            conns = [c for c in self._result_conns if not c.closed]
            sentinels = {w.sentinel: w for w in self._workers}
            wait_s = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = multiprocessing.connection.wait(conns + list(sentinels), timeout=wait_s)
            for obj in ready:
                if obj in sentinels:
                    continue
                try:
                    return obj.recv()
                except EOFError:
                    obj.close()  # that worker is gone; its sentinel says how
            dead = [w for w in self._workers if w.sentinel in ready or not w.is_alive()]
            if dead:
                # a worker's last results may still be buffered in its pipe: those come first
                pending = [c for c in self._result_conns if not c.closed and c.poll()]
                if pending:
                    continue
                pids = ", ".join(str(w.pid) for w in dead)
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly")
            if deadline is not None and time.monotonic() >= deadline:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    # ------------------------------------------------------------------ shutdown
    def _shutdown_workers(self):
        self._finalizer()  # runs once; later calls do nothing
