"""The autograd profiler (PyTorch's older API, still the engine under
torchlike.profiler): `profile` records every operator call that goes through
the dispatcher, record_function ranges, backward Nodes run by the autograd
engine and (profile_memory) CPU allocations, all from one C++ event stream
(csrc/c10/ProfilerHooks.cpp), and turns them into an EventList.
"""
import functools
import gc
import os
import sys
import threading
import time
import warnings

from torchlike import _C

_PC = _C._VariableFunctions  # the profiler's controls (csrc/python/ProfilerBindings.cpp)
from torchlike.autograd.profiler_util import (EventList, FunctionEvent, FunctionEventAvg,  # noqa: F401
                                              format_time, format_memory, format_time_share)

__all__ = ["profile", "record_function", "emit_nvtx", "emit_itt", "EventList", "FunctionEvent", "FunctionEventAvg",
           "format_time", "format_memory", "load_nvprof", "kineto_available"]

_KIND_NAMES = {0: "cpu_op", 1: "user_annotation", 2: "cpu_op", 3: "cpu_instant_event"}


def kineto_available():
    """False: torchlike records CPU events itself; there is no Kineto library."""
    return False


def load_nvprof(path):
    raise RuntimeError("load_nvprof: nvprof traces are not supported by torchlike (no CUDA profiling backend)")


# ---------------------------------------------------------------------------
# FLOPs of the ops whose count follows from their input shapes alone.

def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _broadcast(*shapes):
    nd = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(nd):
        d = 1
        for s in shapes:
            j = i - (nd - len(s))
            if j >= 0 and s[j] != 1:
                d = s[j]
        out.append(d)
    return out


def _flops(name, shapes):
    try:
        if name == "aten::mm" and len(shapes) >= 2 and len(shapes[0]) == 2 and len(shapes[1]) == 2:
            return 2 * shapes[0][0] * shapes[0][1] * shapes[1][1]
        if name == "aten::addmm" and len(shapes) >= 3 and len(shapes[1]) == 2 and len(shapes[2]) == 2:
            return 2 * shapes[1][0] * shapes[1][1] * shapes[2][1]
        if name == "aten::bmm" and len(shapes) >= 2 and len(shapes[0]) == 3 and len(shapes[1]) == 3:
            b, m, k = shapes[0]
            return 2 * b * m * k * shapes[1][2]
        if name == "aten::baddbmm" and len(shapes) >= 3 and len(shapes[1]) == 3 and len(shapes[2]) == 3:
            b, m, k = shapes[1]
            return 2 * b * m * k * shapes[2][2]
        if name in ("aten::mul", "aten::add") and len(shapes) >= 2:
            return _numel(_broadcast(shapes[0], shapes[1]))
    except (TypeError, IndexError):
        return 0
    return 0


# ---------------------------------------------------------------------------
# with_stack: the Python frames around each operator call. A profile hook
# snapshots the Python stack at every call into C (each operator call from
# Python is one); an op gets the last snapshot its thread took before it began.

class _StackTracer:
    def __init__(self):
        self.snapshots = {}  # os tid -> ([ns], [stack])
        # File names are shown relative to the longest sys.path entry (or the
        # working directory) holding them, as PyTorch shows them.
        self._prefixes = sorted({os.getcwd()} | {p for p in sys.path if p}, key=len, reverse=True)
        self._short = {}

    def _short_path(self, path):
        s = self._short.get(path)
        if s is None:
            s = path
            for prefix in self._prefixes:
                if path.startswith(prefix + os.sep):
                    s = path[len(prefix) + 1:]
                    break
            self._short[path] = s
        return s

    def _hook(self, frame, event, arg):
        if event != "c_call":
            return
        ns = time.monotonic_ns()
        stack = []
        f = frame
        while f is not None:
            code = f.f_code
            stack.append(f"{self._short_path(code.co_filename)}({f.f_lineno}): {code.co_name}")
            f = f.f_back
        times, stacks = self.snapshots.setdefault(threading.get_native_id(), ([], []))
        times.append(ns)
        stacks.append(stack)

    def start(self):
        self._prev = sys.getprofile()
        self._prev_threads = threading.getprofile()
        sys.setprofile(self._hook)
        threading.setprofile(self._hook)

    def stop(self):
        sys.setprofile(self._prev)
        threading.setprofile(self._prev_threads)

    def stack_at(self, tid, ns):
        import bisect
        entry = self.snapshots.get(tid)
        if not entry:
            return []
        i = bisect.bisect_right(entry[0], ns) - 1
        return list(entry[1][i]) if i >= 0 else []


# ---------------------------------------------------------------------------
# with_modules: each nn.Module forward becomes a range "nn.Module: Linear_0".

class _ModuleRanges:
    def __init__(self):
        self._local = threading.local()
        self._names = {}
        self._counts = {}
        self._handles = []

    def _name(self, m):
        key = id(m)
        if key not in self._names:
            cls = type(m).__name__
            n = self._counts.get(cls, 0)
            self._counts[cls] = n + 1
            self._names[key] = f"nn.Module: {cls}_{n}"
        return self._names[key]

    def _stack(self):
        s = getattr(self._local, "stack", None)
        if s is None:
            s = self._local.stack = []
        return s

    def _pre(self, module, args):
        self._stack().append((module, _PC._record_function_enter(self._name(module))))

    def _post(self, module, args, output):
        s = self._stack()
        while s:
            m, rid = s.pop()
            _PC._record_function_exit(rid)
            if m is module:
                break

    def start(self):
        from torchlike.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
        self._handles = [register_module_forward_pre_hook(self._pre), register_module_forward_hook(self._post)]

    def stop(self):
        for h in self._handles:
            h.remove()
        self._handles = []


# ---------------------------------------------------------------------------

def _build_events(raw, t0_ns, *, with_flops, stack_tracer=None):
    """FunctionEvents (sorted by start, children linked) from the C++ records."""
    events = {}
    mem_records = []
    threads = {}
    for (name, kind, key, start_ns, end_ns, tid, eid, parent, seq, sizes, strides, dtypes, nbytes, total, addr,
         dev_type, dev_index) in raw:
        if kind == 3:
            mem_records.append((start_ns, tid, eid, parent, nbytes, total, addr))
            continue
        thread = threads.setdefault(tid, len(threads) + 1)
        has_inputs = len(sizes) > 0
        e = FunctionEvent(id=eid, name=name, thread=thread, start_us=(start_ns - t0_ns) / 1000.0,
                          end_us=(end_ns - t0_ns) / 1000.0, input_shapes=sizes if has_inputs else [],
                          input_dtypes=dtypes, input_strides=strides, sequence_nr=seq,
                          is_user_annotation=(kind == 1), dispatch_key=key, kind=_KIND_NAMES[kind], os_tid=tid,
                          scope=7 if kind == 1 else (1 if kind == 2 else 0))
        e._parent_id = parent
        e._start_ns = start_ns
        if with_flops and kind == 0 and has_inputs:
            e.flops = _flops(name, sizes)
        if stack_tracer is not None and kind == 0:
            e.stack = stack_tracer.stack_at(tid, start_ns)
        events[eid] = e
    ordered = sorted(events.values(), key=lambda e: (e._start_ns, e.id))
    for e in ordered:
        p = events.get(e._parent_id)
        if p is not None:
            e.set_cpu_parent(p)
            p.append_cpu_child(e)
    # Memory: attributed to the innermost open range (self), summed up the tree.
    for e in ordered:
        e.self_cpu_memory_usage = 0
    loose = []
    for (ns, tid, eid, parent, nbytes, total, addr) in mem_records:
        p = events.get(parent)
        if p is not None:
            p.self_cpu_memory_usage += nbytes
        else:
            thread = threads.setdefault(tid, len(threads) + 1)
            m = FunctionEvent(id=eid, name="[memory]", thread=thread, start_us=(ns - t0_ns) / 1000.0,
                              end_us=(ns - t0_ns) / 1000.0, cpu_memory_usage=nbytes, kind="cpu_instant_event",
                              os_tid=tid)
            m._start_ns = ns
            m._total_allocated = total
            m._addr = addr
            loose.append(m)
    for e in reversed(ordered):  # children start after parents: totals fold bottom-up
        e.cpu_memory_usage = e.self_cpu_memory_usage + sum(c.cpu_memory_usage for c in e.cpu_children)
    return ordered + sorted(loose, key=lambda m: (m._start_ns, m.id))


class profile:
    """Context manager that records the operators run inside it.

    with torchlike.autograd.profiler.profile(record_shapes=True) as prof:
        model(x)
    print(prof.key_averages().table(sort_by="self_cpu_time_total"))
    """

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None,
                 post_processing_timeout_s=None, activity_filters=None):
        self.enabled = enabled
        if not enabled:
            return
        if use_cuda:
            warnings.warn("The attribute `use_cuda` will be deprecated soon, please use ``use_device = 'cuda'`` "
                          "instead.", FutureWarning, stacklevel=2)
            use_device = "cuda"
        if use_device is not None and use_device not in ("cuda", "cpu", "privateuseone"):
            raise ValueError(f"profile: unsupported use_device {use_device!r} (expected 'cuda' or None)")
        # Without CPU there is nothing torchlike can record (no device tracer):
        # the session then yields no events.
        self.use_cpu = use_cpu
        self.use_device = use_device
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.record_shapes |= self.with_flops  # FLOPs are computed from the input shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_kineto = use_kineto
        self.experimental_config = experimental_config
        self.acc_events = acc_events
        self.custom_trace_id_callback = custom_trace_id_callback
        self.function_events = None
        self.entered = False
        self._running = False
        self._stack_tracer = None
        self._module_ranges = None
        self._metadata = {}

    def config(self):
        return {"record_shapes": self.record_shapes, "profile_memory": self.profile_memory,
                "with_stack": self.with_stack, "with_flops": self.with_flops, "with_modules": self.with_modules}

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._start()
        self.entered = True
        return self

    def _start(self):
        if _PC._profiler_enabled():
            raise RuntimeError("profile: a profiler is already running (profilers do not nest; stop the other one "
                               "first)")
        self._t0_ns = time.monotonic_ns()
        self._t0_wall_ns = time.time_ns()
        if self.with_stack:
            self._stack_tracer = _StackTracer()
        if not self.use_cpu:
            self._running = True
            return
        _PC._profiler_start(bool(self.record_shapes), bool(self.profile_memory))
        self._running = True
        if self._stack_tracer is not None:
            self._stack_tracer.start()
        if self.with_modules:
            self._module_ranges = _ModuleRanges()
            self._module_ranges.start()

    def _stop(self):
        if not self._running:
            return
        if not self.use_cpu:
            self._running = False
            self.function_events = self._make_event_list([])
            return
        if self._module_ranges is not None:
            self._module_ranges.stop()
        if self._stack_tracer is not None:
            self._stack_tracer.stop()
        # The results are many small linked objects made at once: a collection
        # pass per allocation threshold would rescan them all (quadratic).
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            raw = _PC._profiler_stop()
            self._running = False
            self.function_events = self._make_event_list(raw)
        finally:
            if gc_was_enabled:
                gc.enable()

    def _make_event_list(self, raw):
        evts = _build_events(raw, self._t0_ns, with_flops=self.with_flops, stack_tracer=self._stack_tracer)
        lst = EventList(evts, use_device=self.use_device, profile_memory=self.profile_memory,
                        with_flops=self.with_flops)
        lst._trace_meta = {"base_us": self._t0_ns / 1000.0, "base_ns": self._t0_wall_ns - self._t0_ns}
        lst._trace_meta.update(self._metadata)
        return lst

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return
        self._stop()
        return False

    def __repr__(self):
        if self.function_events is None:
            return "<unfinished torchlike.autograd.profile>"
        return repr(self.function_events)

    def __str__(self):
        if self.function_events is None:
            return "<unfinished torchlike.autograd.profile>"
        return str(self.function_events)

    def _check_finish(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        self._check_finish()
        return self.function_events.table(sort_by=sort_by, row_limit=row_limit,
                                          max_src_column_width=max_src_column_width,
                                          max_name_column_width=max_name_column_width,
                                          max_shapes_column_width=max_shapes_column_width, header=header,
                                          top_level_events_only=top_level_events_only, time_unit=time_unit)

    table.__doc__ = EventList.table.__doc__

    def export_chrome_trace(self, path):
        self._check_finish()
        return self.function_events.export_chrome_trace(path)

    export_chrome_trace.__doc__ = EventList.export_chrome_trace.__doc__

    def export_stacks(self, path, metric="self_cpu_time_total"):
        self._check_finish()
        if not self.with_stack:
            raise AssertionError("export_stacks() requires with_stack=True")
        return self.function_events.export_stacks(path, metric)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        self._check_finish()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    key_averages.__doc__ = EventList.key_averages.__doc__

    def total_average(self):
        self._check_finish()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        """Total time spent on the CPU, the sum of every event's self CPU time."""
        self._check_finish()
        return self.function_events.self_cpu_time_total


class record_function:
    """A named range in the profile, around a block (context manager) or a
    function (decorator). Ops called inside become its children. Free when no
    profiler runs."""

    def __init__(self, name, args=None):
        if not isinstance(name, str):
            raise TypeError(f"record_function: name must be a str, not {type(name).__name__}")
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self.record = None

    def __enter__(self):
        self.record = _PC._record_function_enter(self.name)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.run_callbacks_on_exit:
            return
        record, self.record = self.record, None
        if record is not None:
            _PC._record_function_exit(record)

    def __call__(self, fn):
        # A fresh range per call, so recursive and concurrent calls nest correctly.
        name, args = self.name, self.args

        @functools.wraps(fn)
        def wrapper(*a, **kw):
            with record_function(name, args):
                return fn(*a, **kw)
        return wrapper

    def _call_end_callbacks_on_future(self, fut):
        """Ends the range when `fut` completes; returns a future completing after that."""
        if not self.run_callbacks_on_exit:
            raise RuntimeError("_call_end_callbacks_on_future can only be called once.")
        self.run_callbacks_on_exit = False
        record, self.record = self.record, None

        def done(f):
            if record is not None:
                _PC._record_function_exit(record)
            return f.wait() if hasattr(f, "wait") else f.result()
        if hasattr(fut, "then"):
            return fut.then(done)
        fut.add_done_callback(lambda f: record is not None and _PC._record_function_exit(record))
        return fut


class emit_nvtx:
    """NVTX ranges for nvprof/Nsight. torchlike has no NVTX emitter: a context
    manager that records nothing, as PyTorch's is on a build without CUDA."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("NVTX annotation context manager is not reentrant")
        self.entered = True
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return
        self.entered = False
        return False


class emit_itt(emit_nvtx):
    """ITT ranges for Intel VTune. torchlike is built without ITT: records nothing."""

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("ITT annotation context manager is not reentrant")
        self.entered = True
        return self
