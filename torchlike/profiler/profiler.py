"""torchlike.profiler.profile: the autograd profiler driven by a step schedule
(wait / warmup / active cycles), with on_trace_ready callbacks such as
tensorboard_trace_handler, and an execution-trace observer."""
import enum
import gzip
import json
import os
import socket
import tempfile
import time
import warnings

from torchlike.autograd import profiler as prof
from torchlike.autograd.profiler_util import DeviceType  # noqa: F401  (re-exported)

__all__ = ["ProfilerAction", "ProfilerActivity", "DeviceType", "schedule", "profile", "tensorboard_trace_handler",
           "supported_activities", "kineto_available", "ExecutionTraceObserver", "_KinetoProfile",
           "_ExperimentalConfig"]


class ProfilerActivity(enum.Enum):
    """What a profile records. CPU: operator calls and ranges on the CPU;
    CUDA: accepted, records no device kernels (torchlike has no CUDA activity
    tracer; CUDA ops still show as CPU-side operator events)."""
    CPU = 0
    XPU = 1
    CUDA = 2
    HPU = 3
    MTIA = 4
    PrivateUse1 = 5

    def __repr__(self):
        return f"<ProfilerActivity.{self.name}: {self.value}>"


class ProfilerAction(enum.Enum):
    """What the profiler does at a step."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


class _ExperimentalConfig:
    """Options of PyTorch's Kineto backend; kept for compatibility (torchlike
    records CPU events only, so none of them changes what is recorded)."""

    def __init__(self, profiler_metrics=None, profiler_measure_per_kernel=False, verbose=False,
                 performance_events=None, enable_cuda_sync_events=False, adjust_profiler_step=False,
                 disable_external_correlation=False, profile_all_threads=False, capture_overload_names=False,
                 record_python_gc_info=False, **kwargs):
        self.profiler_metrics = list(profiler_metrics or [])
        self.profiler_measure_per_kernel = profiler_measure_per_kernel
        self.verbose = verbose
        self.performance_events = list(performance_events or [])
        self.enable_cuda_sync_events = enable_cuda_sync_events
        self.adjust_profiler_step = adjust_profiler_step
        self.disable_external_correlation = disable_external_correlation
        self.profile_all_threads = profile_all_threads
        self.capture_overload_names = capture_overload_names
        self.record_python_gc_info = record_python_gc_info
        self.extra = kwargs


def supported_activities():
    """The activities this build can record: CPU, and CUDA when a CUDA device is usable."""
    acts = {ProfilerActivity.CPU}
    try:
        import torchlike
        if torchlike.cuda.is_available():
            acts.add(ProfilerActivity.CUDA)
    except Exception:  # noqa: BLE001  (no CUDA runtime: CPU only)
        pass
    return acts


def kineto_available():
    """False: torchlike records its own events; there is no Kineto library."""
    return False


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A step -> ProfilerAction function: after `skip_first` steps, cycles of
    `wait` idle steps, `warmup` steps, and `active` recorded steps (the last
    one RECORD_AND_SAVE), `repeat` times (0: forever). skip_first_wait=1 skips
    the first cycle's wait."""

    def schedule_fn(step):
        assert step >= 0
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    if not (wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0):
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    return schedule_fn


def _default_schedule_fn(_):
    """Without a schedule every step is recorded."""
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False, use_python_export=False):
    """An on_trace_ready handler writing each trace to
    `dir_name/<worker_name>.<time ms>.pt.trace.json[.gz]`, the layout
    TensorBoard's profiler plugin reads."""

    def handler_fn(prof_):
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{name}.{time.time_ns() // 1_000_000}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof_.export_chrome_trace(os.path.join(dir_name, file_name))

    return handler_fn


class _KinetoProfile:
    """The recording half of `profile` (start/stop, results and exports),
    without the schedule."""

    def __init__(self, *, activities=None, record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, custom_trace_id_callback=None, post_processing_timeout_s=None):
        self.activities = set(activities) if activities else supported_activities()
        for a in self.activities:
            if isinstance(a, dict):
                continue
            if not isinstance(a, ProfilerActivity):
                raise TypeError(f"profile: activities must be ProfilerActivity values, got {a!r}")
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.experimental_config = experimental_config
        self.execution_trace_observer = execution_trace_observer
        self.acc_events = acc_events
        self.custom_trace_id_callback = custom_trace_id_callback
        self.profiler = None
        self._metadata = {}

    def start(self):
        self.prepare_trace()
        self.start_trace()

    def stop(self):
        self.stop_trace()

    def prepare_trace(self):
        if self.profiler is None or not self.profiler._running:
            self.profiler = prof.profile(use_cpu=ProfilerActivity.CPU in self.activities,
                                         record_shapes=self.record_shapes, with_flops=self.with_flops,
                                         profile_memory=self.profile_memory, with_stack=self.with_stack,
                                         with_modules=self.with_modules, experimental_config=self.experimental_config)

    def start_trace(self):
        assert self.profiler is not None, "Profiler must be initialized before starting trace"
        if self.execution_trace_observer is not None:
            self.execution_trace_observer._profile_started()
        self.profiler._metadata = self._metadata
        self.profiler._start()

    def stop_trace(self):
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before stopping trace")
        if not self.profiler._running:
            warnings.warn("profile.stop(): no active profiling session (it was already stopped)", stacklevel=2)
            return
        self.profiler._stop()
        if self.execution_trace_observer is not None:
            self.execution_trace_observer._profile_stopped(self.profiler.function_events)

    def export_chrome_trace(self, path):
        """Writes the last recorded trace as Chrome trace-event JSON (gzipped when path ends in .gz)."""
        assert self.profiler, "Profiler must be initialized before exporting chrome trace"
        if path.endswith(".gz"):
            fd, tmp = tempfile.mkstemp(suffix=".json")
            os.close(fd)
            try:
                self.profiler.export_chrome_trace(tmp)
                with open(tmp, "rb") as fin, gzip.open(path, "wb") as fout:
                    fout.writelines(fin)
            finally:
                os.remove(tmp)
            return None
        return self.profiler.export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Folded stacks of the recorded ops (needs with_stack=True), for flame graphs."""
        assert self.profiler, "Profiler must be initialized before exporting stacks"
        return self.profiler.export_stacks(path, metric)

    def events(self):
        """The recorded events (an EventList of FunctionEvents)."""
        assert self.profiler, "Profiler must be initialized before accessing events"
        self.profiler._check_finish()
        return self.profiler.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        """Events grouped by name (and input shapes / stack frames when asked), averaged."""
        assert self.profiler, "Profiler must be initialized before getting key averages"
        return self.profiler.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def add_metadata(self, key, value):
        """Adds a string field to the exported trace's top level."""
        self._metadata[key] = str(value).replace('"', '\\"')

    def add_metadata_json(self, key, value):
        """Adds a JSON value (given as its text) to the exported trace's top level."""
        self._metadata[key] = json.loads(value)

    def preset_metadata_json(self, key, value):
        self.add_metadata_json(key, value)

    def get_trace_id(self):
        return self.custom_trace_id_callback() if self.custom_trace_id_callback else None

    def set_custom_trace_id_callback(self, callback):
        self.custom_trace_id_callback = callback

    def toggle_collection_dynamic(self, enable, activities):
        """CPU collection cannot be paused within a session in torchlike."""
        if ProfilerActivity.CPU in activities and not enable:
            warnings.warn("toggle_collection_dynamic: CPU collection cannot be paused in torchlike", stacklevel=2)


class profile(_KinetoProfile):
    """Profiler context manager with an optional step schedule.

    with torchlike.profiler.profile(activities=[ProfilerActivity.CPU],
                                    schedule=torchlike.profiler.schedule(wait=1, warmup=1, active=2),
                                    on_trace_ready=torchlike.profiler.tensorboard_trace_handler("./log")) as p:
        for batch in data:
            train_step(batch)
            p.step()
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        activities_set = set(activities) if activities else supported_activities()
        if use_cuda is not None:
            warnings.warn("`use_cuda` is deprecated, use `activities` argument instead", FutureWarning, stacklevel=2)
            if use_cuda:
                activities_set.add(ProfilerActivity.CUDA)
            else:
                activities_set.discard(ProfilerActivity.CUDA)
        if len(activities_set) == 0:
            raise AssertionError("No valid profiler activities found")
        super().__init__(activities=activities_set, record_shapes=record_shapes, profile_memory=profile_memory,
                         with_stack=with_stack, with_flops=with_flops, with_modules=with_modules,
                         experimental_config=experimental_config, execution_trace_observer=execution_trace_observer,
                         acc_events=acc_events, custom_trace_id_callback=custom_trace_id_callback)
        if schedule is not None:
            self.schedule = schedule
            self.record_steps = True  # each step is a ProfilerStep#N range
        else:
            self.schedule = _default_schedule_fn
            self.record_steps = False
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.step_rec_fn = None
        self._started = False
        A = ProfilerAction
        self.action_map = {
            (A.NONE, A.NONE): [],
            (A.NONE, A.WARMUP): [self.prepare_trace],
            (A.NONE, A.RECORD): [self.prepare_trace, self.start_trace],
            (A.NONE, A.RECORD_AND_SAVE): [self.prepare_trace, self.start_trace],
            # A warmup that never reaches RECORD ends as an empty trace.
            (A.WARMUP, A.NONE): [partial_warn("Incorrect schedule: WARMUP followed by NONE"), self.start_trace,
                                 self.stop_trace],
            (A.WARMUP, A.WARMUP): [],
            (A.WARMUP, A.RECORD): [self.start_trace],
            (A.WARMUP, A.RECORD_AND_SAVE): [self.start_trace],
            (A.RECORD, A.NONE): [partial_warn("Incorrect schedule: RECORD followed by NONE"), self.stop_trace],
            (A.RECORD, A.WARMUP): [partial_warn("Incorrect schedule: RECORD followed by WARMUP"), self.stop_trace],
            (A.RECORD, A.RECORD): [],
            (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [self.stop_trace, self._trace_ready, self.prepare_trace],
            (A.RECORD_AND_SAVE, A.RECORD): [self.stop_trace, self._trace_ready, self.prepare_trace,
                                            self.start_trace],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [self.stop_trace, self._trace_ready, self.prepare_trace,
                                                     self.start_trace],
            # stop() (exit from the context manager)
            (A.WARMUP, None): [self.start_trace, self.stop_trace],
            (A.RECORD, None): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, None): [self.stop_trace, self._trace_ready],
            (A.NONE, None): [],
        }

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def start(self):
        if self._started:
            raise RuntimeError("profile.start(): the profiler is already running")
        self._started = True
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = prof.record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self):
        if not self._started:
            if self.profiler is None:
                raise AssertionError("Profiler must be initialized before stopping trace")
            warnings.warn("profile.stop(): the profiler is not running (already stopped)", stacklevel=2)
            return
        self._started = False
        if self.record_steps and self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self):
        """Signals the end of a step: the schedule then decides what the next step does."""
        if self.record_steps and self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
        prev_action = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if not isinstance(self.current_action, ProfilerAction):
            raise TypeError(f"profile: the schedule returned {self.current_action!r}, expected a ProfilerAction")
        self._transit_action(prev_action, self.current_action)
        if self.record_steps:
            self.step_rec_fn = prof.record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev_action, current_action):
        for action in self.action_map.get((prev_action, current_action), []):
            action()

    def _stats(self):
        return None


def partial_warn(msg):
    def f():
        warnings.warn(msg, stacklevel=3)
    return f


class ExecutionTraceObserver:
    """Writes an execution trace: every recorded operator as a JSON node with
    its parent (ctrl_deps), input shapes and types, in the Chakra-style layout
    PyTorch's observer writes.

    et = ExecutionTraceObserver().register_callback("trace.json")
    et.start(); model(x); et.stop(); et.unregister_callback()
    """

    def __init__(self):
        self._registered = False
        self._execution_trace_running = False
        self.output_file_path = None
        self.output_file_path_observer = None
        self.extra_resources_collection = False
        self._profile = None
        self._in_profile = False
        self._start_time = 0

    def __del__(self):
        try:
            self.unregister_callback()
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass

    @staticmethod
    def build_execution_trace_obs_from_env():
        """An observer writing to a temporary file when ENABLE_PYTORCH_EXECUTION_TRACE=1, else None."""
        if os.environ.get("ENABLE_PYTORCH_EXECUTION_TRACE", "0") == "1":
            fp = tempfile.NamedTemporaryFile("w+t", suffix=".et.json", delete=False)
            fp.close()
            et = ExecutionTraceObserver()
            et.register_callback(fp.name)
            return et
        return None

    def set_extra_resource_collection(self, val):
        self.extra_resources_collection = bool(val)

    def register_callback(self, output_file_path):
        """Sets the output file; returns self."""
        if not isinstance(output_file_path, str):
            raise TypeError(f"register_callback: output_file_path must be a str, not {type(output_file_path).__name__}")
        self.output_file_path = output_file_path
        self.output_file_path_observer = output_file_path
        self._registered = True
        return self

    def get_resources_dir(self, can_create=False):
        d = os.path.splitext(self.output_file_path or "et")[0] + "_resources"
        if can_create:
            os.makedirs(d, exist_ok=True)
        return d if os.path.isdir(d) or can_create else None

    @staticmethod
    def get_resources_dir_for_et_path(trace_path, create_dir=False):
        d = os.path.splitext(trace_path)[0] + "_resources"
        if create_dir:
            os.makedirs(d, exist_ok=True)
        return d if os.path.isdir(d) else None

    def unregister_callback(self):
        if self._execution_trace_running:
            self.stop()
        self._registered = False

    @property
    def is_registered(self):
        return self._registered

    def is_running(self):
        return self._execution_trace_running

    def start(self):
        """Starts recording (its own profiling session; within a profile it shares that one)."""
        if not self._registered:
            raise RuntimeError("ExecutionTraceObserver.start(): call register_callback(path) first")
        if self._execution_trace_running:
            return
        self._start_time = time.time()
        if not self._in_profile:
            self._profile = prof.profile(record_shapes=True)
            self._profile._start()
        self._execution_trace_running = True

    def stop(self):
        """Stops recording and writes the trace file."""
        if not self._execution_trace_running:
            return
        self._execution_trace_running = False
        if self._profile is not None:
            self._profile._stop()
            events = self._profile.function_events
            self._profile = None
            self._write(events)

    def _profile_started(self):
        if self._registered and not self._execution_trace_running:
            self._in_profile = True
            self.start()

    def _profile_stopped(self, events):
        if self._in_profile and self._execution_trace_running:
            self._execution_trace_running = False
            self._in_profile = False
            self._write(events)

    def _write(self, events):
        root_id = 1
        nodes = [{"id": root_id, "name": "[pytorch|profiler|execution_trace|process]", "ctrl_deps": root_id,
                  "inputs": {"values": [], "shapes": [], "types": []},
                  "outputs": {"values": [], "shapes": [], "types": []},
                  "attrs": [{"name": "rf_id", "type": "uint64", "value": 0},
                            {"name": "tid", "type": "uint64", "value": 0}]}]
        next_id = max([e.id for e in events] + [root_id]) + 1
        ids = {}
        for e in events:
            if e.name == "[memory]":
                continue
            ids[e.id] = e.id if e.id > root_id else next_id
            if e.id <= root_id:
                next_id += 1
        for e in events:
            if e.name == "[memory]":
                continue
            parent = ids.get(e.cpu_parent.id, root_id) if e.cpu_parent is not None else root_id
            types = [f"Tensor({d})" if d else "" for d in e.input_dtypes]
            nodes.append({"id": ids[e.id], "name": e.name, "ctrl_deps": parent,
                          "inputs": {"values": [], "shapes": e.input_shapes, "types": types,
                                     "strides": e.input_strides},
                          "outputs": {"values": [], "shapes": [], "types": []},
                          "attrs": [{"name": "rf_id", "type": "uint64", "value": e.id},
                                    {"name": "seq_id", "type": "int64", "value": e.sequence_nr},
                                    {"name": "scope", "type": "uint64", "value": e.scope},
                                    {"name": "tid", "type": "uint64", "value": e.thread},
                                    {"name": "fw_tid", "type": "uint64", "value": 0},
                                    {"name": "dispatch_key", "type": "string", "value": e.dispatch_key},
                                    {"name": "dur", "type": "float", "value": e.cpu_time_total}]})
        doc = {"schema": "1.1.1-chakra.0.0.4", "pid": os.getpid(),
               "time": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self._start_time)),
               "start_ts": int(self._start_time * 1000), "nodes": nodes, "finish_ts": int(time.time() * 1000)}
        with open(self.output_file_path, "w") as f:
            json.dump(doc, f)

    def get_output_file_path(self):
        """The trace file's path (None before register_callback)."""
        if not self._registered and self.output_file_path is None:
            raise RuntimeError("A callback to the ET profiler needs to be registered first")
        return self.output_file_path

    def cleanup(self):
        """Deletes the written trace file."""
        if self.output_file_path and os.path.exists(self.output_file_path):
            os.remove(self.output_file_path)
