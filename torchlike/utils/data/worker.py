"""What runs inside a DataLoader worker process: its identity (get_worker_info),
seeding, thread limits, and the loop that turns key lists into batches.

Protocol with the main process (dataloader.py):
  tasks   (a one-way Pipe per worker, main -> worker):
          (generation, task_id, keys, returned)
                                       fetch a batch (keys: a key list, one key,
                                       or for iterable datasets a count);
                                       `returned` names the shared-memory loans
                                       the main process is done with
          (generation, None, seed, ()) a new epoch with base seed `seed` begins:
                                       restart the iterable
          None                         exit
  results (a one-way Pipe per worker, worker -> main):
          (generation, task_id, payload) where payload is the batch, a
          WorkerError, or StreamEnd when an iterable dataset ran out.
"""
import dataclasses
import gc
import os
import random
import signal
import sys
import traceback
from multiprocessing.reduction import ForkingPickler

import torchlike

__all__ = ["WorkerInfo", "get_worker_info"]

# Seconds a worker waits for a task before checking that its parent still lives.
_PARENT_CHECK_S = 2.0


@dataclasses.dataclass(frozen=True)
class WorkerInfo:
    """Describes the worker process it is read in (None in the main process)."""
    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str = "multiprocessing"


_worker_info = None


def get_worker_info():
    """The WorkerInfo of the DataLoader worker this runs in, or None in the main
    process. An IterableDataset uses it to take its own share of the stream."""
    return _worker_info


class StreamEnd:
    """An iterable dataset's copy in worker `worker_id` is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class _KeyErrorText(str):
    """KeyError shows repr(message); this message's repr is the text itself, so
    the worker's traceback prints as lines, not as one quoted string."""

    def __repr__(self):
        return str(self)


class WorkerError:
    """An exception raised in a worker, carried to the main process as its type
    and formatted traceback (the exception object may not pickle)."""

    def __init__(self, where):
        exc_type, exc, _tb = sys.exc_info()
        self.exc_type = exc_type
        self.text = f"Caught {exc_type.__name__} {where}.\nOriginal {traceback.format_exc()}"

    def reraise(self):
        text = _KeyErrorText(self.text) if self.exc_type is KeyError else self.text
        try:
            error = self.exc_type(text)
        except Exception:
            # constructors needing other arguments cannot take just a message
            raise RuntimeError(text) from None
        raise error


def _seed_everything(seed, worker_id):
    random.seed(seed)
    torchlike.manual_seed(seed)
    try:
        import numpy as np
    except ImportError:
        return
    # NumPy's legacy seeder takes 32-bit words: derive them from both numbers
    # so that workers and loaders with nearby seeds get unrelated streams.
    words = np.random.SeedSequence([worker_id, seed & 0xFFFFFFFFFFFFFFFF]).generate_state(4)
    np.random.seed(words)


def batch_seed(base_seed, batch_index):
    """The seed torchlike's generator gets for fetching one batch.

    It depends on the epoch's base seed and the batch's place in the epoch, not
    on which process fetches it: random augmentation drawn with torchlike's
    generator then gives the same batches with or without workers, and with any
    number of them. (PyTorch seeds each worker once, so its draws depend on the
    worker count; Python's `random` and NumPy keep that per-worker seeding here.)"""
    mixed = (base_seed ^ ((batch_index + 1) * 0x9E3779B97F4A7C15)) & 0x7FFFFFFFFFFFFFFF
    return mixed


def fetch_seeded(fetcher, keys, base_seed, batch_index):
    """fetcher.fetch(keys) with torchlike's CPU generator seeded for this batch; the
    generator's previous state is restored afterwards (in the main process that is
    the user's stream, which loading must not disturb)."""
    gen = torchlike.default_generator
    saved = gen.get_state()
    gen.manual_seed(batch_seed(base_seed, batch_index))
    try:
        return fetcher.fetch(keys)
    finally:
        gen.set_state(saved)


def _die_with_parent():
    """Asks the kernel to kill this worker when the main process dies (Linux)."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    except Exception:
        pass  # the periodic parent check below still ends an orphan


class _MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn
        self.many = getattr(dataset, "__getitems__", None) if auto_collation else None

    def fetch(self, keys):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[keys])
        if callable(self.many):
            samples = self.many(keys)
        else:
            samples = [self.dataset[k] for k in keys]
        return self.collate_fn(samples)


class _IterableFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.stream = iter(dataset)
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.ended = False

    def fetch(self, keys):
        """keys: the batch's length (auto-collation) or None. StopIteration at the end."""
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.stream))
        samples = []
        for _ in range(len(keys)):
            try:
                samples.append(next(self.stream))
            except StopIteration:
                self.ended = True
                break
        if not samples or (self.drop_last and len(samples) < len(keys)):
            raise StopIteration
        return self.collate_fn(samples)


def make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last):
    cls = _IterableFetcher if iterable else _MapFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)


def worker_main(iterable, dataset, tasks, results, auto_collation, collate_fn, drop_last, base_seed, init_fn,
                worker_id, num_workers, shm_prefix, parent_pid):
    """Entry point of worker process `worker_id`."""
    global _worker_info
    # Everything inherited from the parent lives as long as the worker: keeping
    # it out of the cyclic collector's passes saves each pass from walking (and,
    # after fork, copy-on-write faulting) the whole parent heap.
    gc.freeze()
    _die_with_parent()
    # A forked child inherits the parent's OpenMP/BLAS settings but not their
    # thread pools; one thread each keeps it off them (and N workers off N*cores).
    torchlike.set_num_threads(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    seed = base_seed + worker_id
    _seed_everything(seed, worker_id)
    _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)

    from torchlike.multiprocessing import _shm
    _shm.handoff_prefix = f"{shm_prefix}_w{worker_id}"

    where = f"in DataLoader worker process {worker_id}"
    init_error, fetcher = None, None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
    except Exception:
        init_error = WorkerError(where)
    exhausted = False
    epoch_seed = base_seed
    try:
        while True:
            if not tasks.poll(_PARENT_CHECK_S):
                if os.getppid() != parent_pid:
                    break
                continue
            msg = tasks.recv()
            if msg is None:
                break
            generation, task_id, keys, returned = msg
            if returned:
                _shm.take_back(returned)
            if task_id is None:  # new epoch (persistent workers); `keys` is its base seed
                epoch_seed = keys
                exhausted = False
                if init_error is None and iterable:
                    try:
                        fetcher = make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
                    except Exception:
                        init_error = WorkerError(where)
                continue
            if init_error is not None:
                payload = init_error  # every task reports it: the worker cannot serve any
            elif exhausted:
                continue  # the main process stops counting on this worker when it sees StreamEnd
            else:
                try:
                    payload = fetch_seeded(fetcher, keys, epoch_seed, task_id)
                except StopIteration:
                    payload = StreamEnd(worker_id)
                    exhausted = True
                except Exception:
                    payload = WorkerError(where)
            try:
                message = ForkingPickler.dumps((generation, task_id, payload))
            except Exception:  # a batch that cannot be sent is reported like one that failed
                payload = WorkerError(where)
                message = ForkingPickler.dumps((generation, task_id, payload))
            del payload
            results.send_bytes(message)
            del message
    except KeyboardInterrupt:
        pass
    except (BrokenPipeError, EOFError, ConnectionError):
        pass  # the main process went away or closed our pipe: nothing left to do
    finally:
        results.close()
