"""The profiler's results: FunctionEvent (one recorded range), FunctionEventAvg
(events grouped by key_averages) and EventList (a list of events with the
table, chrome-trace and stack exports), laid out as PyTorch's.

Times are microseconds (floats), memory is bytes; an event's self values
exclude its children, which are the ranges recorded inside it on its thread.
"""
import enum
import json
import os
from collections import OrderedDict

__all__ = ["DeviceType", "EventList", "FunctionEvent", "FunctionEventAvg", "Interval", "format_time", "format_time_share",
           "format_memory"]


class DeviceType(enum.IntEnum):
    """Device types of profiler events (PyTorch's numbering)."""
    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    Vulkan = 10
    Metal = 11
    XPU = 12
    MPS = 13
    Meta = 14
    HPU = 15
    VE = 16
    Lazy = 17
    IPU = 18
    MTIA = 19
    PrivateUse1 = 20


def _device_type_cpu():
    return DeviceType.CPU


def format_time(time_us):
    """'1.574ms', '405.813us', '2.100s' (PyTorch's table format)."""
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def format_time_share(time_us, total_time_us):
    if total_time_us == 0:
        assert time_us == 0, f"Expected time_us == 0 but got {time_us}"
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def format_memory(nbytes):
    """'200 B', '-32.00 KB', '94.79 MB'."""
    KB, MB, GB = 1024, 1024 * 1024, 1024 * 1024 * 1024
    if abs(nbytes) >= GB:
        return f"{nbytes * 1.0 / GB:.2f} GB"
    if abs(nbytes) >= MB:
        return f"{nbytes * 1.0 / MB:.2f} MB"
    if abs(nbytes) >= KB:
        return f"{nbytes * 1.0 / KB:.2f} KB"
    return f"{nbytes} B"


class Interval:
    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start

    def __repr__(self):
        return f"Interval(start={self.start}, end={self.end})"


class FormattedTimesMixin:
    """cpu_time_str etc., and the per-call average cpu_time."""

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else 1.0 * self.cpu_time_total / self.count

    @property
    def device_time(self):
        return 0.0 if self.count == 0 else 1.0 * self.device_time_total / self.count

    cuda_time = device_time

    @property
    def self_cpu_time_total_str(self):
        return format_time(self.self_cpu_time_total)

    @property
    def cpu_time_total_str(self):
        return format_time(self.cpu_time_total)

    @property
    def cpu_time_str(self):
        return format_time(self.cpu_time)

    @property
    def device_time_total_str(self):
        return format_time(self.device_time_total)

    @property
    def self_device_time_total_str(self):
        return format_time(self.self_device_time_total)


class FunctionEvent(FormattedTimesMixin):
    """One recorded range: an operator call, a record_function range, an
    autograd Node's backward, a Python function (with_stack), or a memory
    record outside every range ("[memory]")."""

    def __init__(self, id, name, thread, start_us, end_us, fwd_thread=None, input_shapes=None, stack=None,
                 scope=0, use_device=None, cpu_memory_usage=0, device_memory_usage=0, is_async=False,
                 is_remote=False, sequence_nr=-1, node_id=-1, device_type=None, device_index=0, device_resource_id=None,
                 is_legacy=False, flops=None, trace_name=None, concrete_inputs=None, kwinputs=None,
                 is_user_annotation=False, overload_name="", input_dtypes=None, input_strides=None,
                 dispatch_key="", kind="cpu_op", os_tid=0, metadata_json=None):
        self.id = id
        self.node_id = node_id
        self.name = name
        self.overload_name = overload_name
        self.trace_name = trace_name if trace_name is not None else name
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.kernels = []
        self.count = 1
        self.cpu_children = []
        self.cpu_parent = None
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.input_dtypes = input_dtypes if input_dtypes is not None else []
        self.input_strides = input_strides if input_strides is not None else []
        self.concrete_inputs = concrete_inputs if concrete_inputs is not None else []
        self.kwinputs = kwinputs if kwinputs is not None else {}
        self.stack = stack if stack is not None else []
        self.scope = scope
        self.use_device = use_device
        self.cpu_memory_usage = cpu_memory_usage
        self.self_cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.is_async = is_async
        self.is_remote = is_remote
        self.sequence_nr = sequence_nr
        self.device_type = device_type if device_type is not None else _device_type_cpu()
        self.device_index = device_index
        self.device_resource_id = device_resource_id if device_resource_id is not None else thread
        self.is_legacy = is_legacy
        self.flops = flops
        self.is_user_annotation = is_user_annotation
        self.dispatch_key = dispatch_key
        self.kind = kind          # chrome-trace category: cpu_op, user_annotation, python_function, ...
        self.os_tid = os_tid      # the OS thread id (the trace's tid)
        self.metadata_json = metadata_json

    def append_cpu_child(self, child):
        assert isinstance(child, FunctionEvent)
        assert child.id != self.id
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        assert isinstance(parent, FunctionEvent)
        self.cpu_parent = parent

    def append_kernel(self, name, device, duration):
        self.kernels.append((name, device, duration))

    @property
    def self_device_memory_usage(self):
        return 0

    self_cuda_memory_usage = self_device_memory_usage
    cuda_memory_usage = property(lambda self: self.device_memory_usage)

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        if self.is_async:
            return 0
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def device_time_total(self):
        return 0

    @property
    def self_device_time_total(self):
        return 0

    cuda_time_total = device_time_total
    self_cuda_time_total = self_device_time_total

    @property
    def key(self):
        return self.name

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} overload_name={self.overload_name} "
                f"device_type={self.device_type} node_id={self.node_id} cpu_time={self.cpu_time_str} "
                f"start_us={self.time_range.start:.3f} end_us={self.time_range.end:.3f} "
                f"cpu_children={[c.id for c in self.cpu_children]} thread={self.thread} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
                f"is_async={self.is_async} is_remote={self.is_remote} seq_nr={self.sequence_nr} "
                f"is_legacy={self.is_legacy}>")


class FunctionEventAvg(FormattedTimesMixin):
    """Events of one key (name, and input shapes / stack when grouped) summed."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0
        self.device_time_total = 0
        self.self_cpu_time_total = 0
        self.self_device_time_total = 0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = _device_type_cpu()
        self.is_legacy = False
        self.flops = 0
        self.is_user_annotation = False

    cuda_time_total = property(lambda self: self.device_time_total)
    self_cuda_time_total = property(lambda self: self.self_device_time_total)
    cuda_memory_usage = property(lambda self: self.device_memory_usage)
    self_cuda_memory_usage = property(lambda self: self.self_device_memory_usage)

    def add(self, other):
        if self.key is None:
            # The first event of the group sets the group's identity.
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.overload_name = other.overload_name
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
            self.device_type = other.device_type
            self.is_legacy = other.is_legacy
            self.use_device = other.use_device
            self.is_user_annotation = other.is_user_annotation
        assert isinstance(other, (FunctionEvent, FunctionEventAvg))
        assert other.key == self.key
        self.cpu_time_total += other.cpu_time_total
        self.device_time_total += other.device_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.self_device_time_total += other.self_device_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.device_memory_usage += other.device_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.self_device_memory_usage += other.self_device_memory_usage
        self.count += other.count
        if self.flops is None:
            self.flops = other.flops
        elif other.flops is not None:
            self.flops += other.flops
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str}  self_cuda_time={format_time(self.self_device_time_total)} "
                f"cuda_time={format_time(self.device_time)} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage} cuda_memory_usage={self.device_memory_usage}>")


_SORT_KEYS = ("cpu_time", "cuda_time", "device_time", "cpu_time_total", "cuda_time_total", "device_time_total",
              "self_cpu_time_total", "self_cuda_time_total", "self_device_time_total", "cpu_memory_usage",
              "cuda_memory_usage", "device_memory_usage", "self_cpu_memory_usage", "self_cuda_memory_usage",
              "self_device_memory_usage", "count", "flops")


class EventList(list):
    """A list of FunctionEvents (or FunctionEventAvgs) with PyTorch's reporting methods."""

    def __init__(self, *args, **kwargs):
        use_device = kwargs.pop("use_device", None)
        profile_memory = kwargs.pop("profile_memory", False)
        with_flops = kwargs.pop("with_flops", False)
        kwargs.pop("use_cuda", None)
        super().__init__(*args, **kwargs)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops
        self._trace_meta = {}

    def __str__(self):
        return self.table()

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        """The events as PyTorch's text table, sorted by `sort_by` (descending)."""
        return _build_table(self, sort_by=sort_by, header=header, row_limit=row_limit,
                            max_src_column_width=max_src_column_width, max_name_column_width=max_name_column_width,
                            max_shapes_column_width=max_shapes_column_width, with_flops=self._with_flops,
                            profile_memory=self._profile_memory, top_level_events_only=top_level_events_only,
                            time_unit=time_unit)

    def export_chrome_trace(self, path):
        """Writes the events as Chrome trace-event JSON (Perfetto and chrome://tracing open it):
        complete events ("ph": "X") with ts/dur in microseconds, and memory instants."""
        trace = _chrome_trace(self, path)
        with open(path, "w") as f:
            json.dump(trace, f)

    def supported_export_stacks_metrics(self):
        return ["self_cpu_time_total", "self_cuda_time_total", "self_xpu_time_total", "self_privateuse1_time_total"]

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Folded stacks ("outer;inner;op value"), one line per event with a
        stack, for flamegraph.pl and speedscope; value in microseconds."""
        if metric not in self.supported_export_stacks_metrics():
            raise ValueError("metric should be one of: " + str(self.supported_export_stacks_metrics()))
        translate = str.maketrans(" ;\t\n", "____")
        with open(path, "w") as f:
            for evt in self:
                if evt.stack:
                    value = getattr(evt, metric, 0)
                    if int(value) > 0:
                        stack_str = ";".join(s.translate(translate) for s in reversed(evt.stack))
                        f.write(f"{stack_str};{evt.name.translate(translate)} {int(value)}\n")

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False):
        """Events grouped by name (and input shapes, the first n stack frames,
        the overload name when asked), summed into FunctionEventAvgs."""
        stats = OrderedDict()

        def get_key(event):
            key = [str(event.key), str(event.node_id), str(event.device_type), str(event.is_legacy),
                   str(event.is_user_annotation)]
            if group_by_input_shapes:
                key.append(str(event.input_shapes))
            if group_by_stack_n > 0:
                key += event.stack[:group_by_stack_n]
            if group_by_overload_name:
                key.append(event.overload_name)
            return tuple(key)

        for evt in self:
            k = get_key(evt)
            if k not in stats:
                stats[k] = FunctionEventAvg()
            stats[k].add(evt)
        avg_list = EventList(stats.values(), use_device=self._use_device, profile_memory=self._profile_memory,
                             with_flops=self._with_flops)
        for evt in avg_list:
            evt.stack = evt.stack[:group_by_stack_n] if evt.stack else []
            if not group_by_input_shapes:
                evt.input_shapes = ""
            if not group_by_overload_name:
                evt.overload_name = ""
        return avg_list

    def total_average(self):
        """All events summed into one FunctionEventAvg keyed "Total"."""
        total = FunctionEventAvg()
        for evt in self:
            total.key = evt.key  # add() sums only events of its own key
            total.add(evt)
        total.key = "Total"
        return total


def _build_table(events, sort_by=None, header=None, row_limit=100, max_src_column_width=75,
                 max_name_column_width=55, max_shapes_column_width=80, with_flops=False, profile_memory=False,
                 top_level_events_only=False, time_unit=None):
    if len(events) == 0:
        return ""
    if sort_by is not None:
        if sort_by not in _SORT_KEYS:
            raise AttributeError(f"table(): unknown sort_by key {sort_by!r}; expected one of {', '.join(_SORT_KEYS)}")
        events = EventList(sorted(events, key=lambda e: getattr(e, sort_by) or 0, reverse=True),
                           profile_memory=profile_memory, with_flops=with_flops)

    has_input_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    has_stack = any(e.stack is not None and len(e.stack) > 0 for e in events)
    show_memory = profile_memory or any(getattr(e, "cpu_memory_usage", 0) != 0 for e in events)

    name_column_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_column_width = min(name_column_width, max_name_column_width)
    shapes_column_width = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_column_width = min(shapes_column_width, max_shapes_column_width)
    DEFAULT_COLUMN_WIDTH = 12
    flops_column_width = DEFAULT_COLUMN_WIDTH
    src_column_width = None
    stacks = [e.stack for e in events if e.stack]
    if has_stack:
        src_column_width = max(max(len(s) for s in st) for st in stacks) + 4
        if max_src_column_width is not None:
            src_column_width = min(src_column_width, max_src_column_width)

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if show_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    if top_level_events_only:
        events = EventList([e for e in events if e.cpu_parent is None], profile_memory=profile_memory,
                           with_flops=with_flops)

    append_node_id = any(e.node_id != -1 and e.node_id != 0 for e in events)
    if append_node_id:
        headers.append("Node ID")

    SPACING_SIZE = 2
    row_format_lst = [""]
    header_sep_lst = [""]
    line_length_lst = [-SPACING_SIZE]

    def add_column(padding, text_dir=">"):
        row_format_lst[0] += "{: " + text_dir + str(padding) + "}" + (" " * SPACING_SIZE)
        header_sep_lst[0] += "-" * padding + (" " * SPACING_SIZE)
        line_length_lst[0] += padding + SPACING_SIZE

    def auto_scale_flops(flops):
        flop_headers = ["FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"]
        assert flops > 0
        import math
        log_flops = max(0, min(math.log10(flops) / 3, float(len(flop_headers) - 1)))
        assert log_flops >= 0 and log_flops < len(flop_headers)
        return (pow(10, (math.floor(log_flops) * -3.0)), flop_headers[int(log_flops)])

    add_column(name_column_width)
    for _ in headers[1:]:
        add_column(DEFAULT_COLUMN_WIDTH)
    if has_input_shapes:
        headers.append("Input Shapes")
        add_column(shapes_column_width)
    if has_stack:
        headers.append("Source Location")
        add_column(src_column_width, text_dir="<")
    if with_flops:
        raw_flops = [e.flops for e in events if e.flops is not None and e.flops > 0]
        if raw_flops:
            flops_scale, flops_header = auto_scale_flops(min(raw_flops))
            headers.append(f"Total {flops_header}")
            add_column(flops_column_width)
        else:
            with_flops = False

    row_format = row_format_lst[0]
    header_sep = header_sep_lst[0]
    line_length = line_length_lst[0]

    result = []

    def append(s):
        result.append(s)
        result.append("\n")

    sum_self_cpu_time_total = sum(e.self_cpu_time_total for e in events)

    if header is not None:
        append("=" * line_length)
        append(header)
    if top_level_events_only:
        append("=" * line_length)
        append("This report only display top-level ops statistics")
    append(header_sep)
    append(row_format.format(*headers))
    append(header_sep)

    def trim_path(path, src_column_width):
        if len(path) > src_column_width:
            offset = len(path) - src_column_width
            path = path[offset:]
            if len(path) > 3:
                path = "..." + path[3:]
        return path

    def fmt_time(t):
        if time_unit == "s":
            return f"{t / 1e6:.3f}s"
        if time_unit == "ms":
            return f"{t / 1e3:.3f}ms"
        if time_unit == "us":
            return f"{t:.3f}us"
        return format_time(t)

    event_limit = 0
    for evt in events:
        if event_limit == row_limit:
            break
        if top_level_events_only and evt.cpu_parent is not None:
            continue
        event_limit += 1
        name = evt.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[: (max_name_column_width - 3)] + "..."
        row_values = [
            name,
            format_time_share(evt.self_cpu_time_total, sum_self_cpu_time_total),
            fmt_time(evt.self_cpu_time_total),
            format_time_share(evt.cpu_time_total, sum_self_cpu_time_total) if not evt.is_async else 0,
            fmt_time(evt.cpu_time_total),
            fmt_time(evt.cpu_time),
        ]
        if show_memory:
            row_values += [format_memory(evt.cpu_memory_usage), format_memory(evt.self_cpu_memory_usage)]
        row_values.append(evt.count)
        if append_node_id:
            row_values.append(evt.node_id)
        if has_input_shapes:
            shapes = str(evt.input_shapes)
            if len(shapes) > shapes_column_width:
                shapes = shapes[: shapes_column_width - 3] + "..."
            row_values.append(shapes)
        if has_stack:
            src_field = ""
            if evt.stack:
                src_field = trim_path(evt.stack[0], src_column_width)
            row_values.append(src_field)
        if with_flops:
            if evt.flops is None or evt.flops <= 0:
                row_values.append("--")
            else:
                row_values.append(f"{evt.flops * flops_scale:8.3f}")
        append(row_format.format(*row_values))
        if has_stack:
            # Further frames of the source location, one line each.
            src_index = headers.index("Source Location")
            for entry in (evt.stack or [])[1:]:
                cells = [""] * len(headers)
                cells[src_index] = trim_path(entry, src_column_width)
                append(row_format.format(*cells))
    append(header_sep)
    append(f"Self CPU time total: {fmt_time(sum_self_cpu_time_total)}")
    return "".join(result)


# ---------------------------------------------------------------------------
# Chrome trace

_TRACE_DTYPE = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
                "complex128": "c10::complex<double>", "": ""}


def _chrome_trace(events, path):
    import socket
    import time
    pid = os.getpid()
    trace_events = []
    tids = OrderedDict()
    for e in events:
        tids.setdefault(getattr(e, "os_tid", 0) or e.thread, None)
    meta_ts = min((e.time_range.start for e in events), default=0.0)
    base_us = events._trace_meta.get("base_us", 0.0) if hasattr(events, "_trace_meta") else 0.0
    trace_events.append({"ph": "M", "name": "process_name", "ts": base_us + meta_ts, "pid": pid, "tid": 0,
                         "args": {"name": "python"}})
    trace_events.append({"ph": "M", "name": "process_labels", "ts": base_us + meta_ts, "pid": pid, "tid": 0,
                         "args": {"labels": "CPU"}})
    for tid in tids:
        trace_events.append({"ph": "M", "name": "thread_name", "ts": base_us + meta_ts, "pid": pid, "tid": tid,
                             "args": {"name": f"thread {tid}"}})
    for idx, e in enumerate(events):
        tid = getattr(e, "os_tid", 0) or e.thread
        if e.name == "[memory]":
            trace_events.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": pid,
                                 "tid": tid, "ts": base_us + e.time_range.start,
                                 "args": {"Total Allocated": getattr(e, "_total_allocated", 0),
                                          "Bytes": e.cpu_memory_usage, "Device Id": -1, "Device Type": 0,
                                          "Addr": getattr(e, "_addr", 0), "Ev Idx": idx}})
            continue
        args = {"External id": e.id, "Ev Idx": idx}
        if e.kind == "cpu_op":
            args["Sequence number"] = e.sequence_nr
            if e.dispatch_key:
                args["Dispatch key"] = e.dispatch_key
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
            args["Input type"] = [_TRACE_DTYPE.get(d, d) for d in e.input_dtypes]
            args["Input Strides"] = e.input_strides
        if e.flops:
            args["flops"] = e.flops
        if e.stack:
            args["Call stack"] = ";".join(e.stack)
        trace_events.append({"ph": "X", "cat": e.kind, "name": e.trace_name, "pid": pid, "tid": tid,
                             "ts": base_us + e.time_range.start, "dur": e.time_range.elapsed_us(), "args": args})
    # Forward op -> its backward Node (same autograd sequence number): flow
    # arrows, as PyTorch's traces draw them.
    fwd = {}
    for e in events:
        if e.kind == "cpu_op" and e.scope == 0 and e.sequence_nr >= 0:
            fwd.setdefault(e.sequence_nr, e)
    for e in events:
        if e.scope == 1 and e.sequence_nr in fwd and not e.name.startswith("autograd::engine::evaluate_function"):
            f = fwd.pop(e.sequence_nr)
            trace_events.append({"ph": "s", "id": e.sequence_nr, "pid": pid, "tid": f.os_tid or f.thread,
                                 "ts": base_us + f.time_range.start, "cat": "fwdbwd", "name": "fwdbwd"})
            trace_events.append({"ph": "f", "id": e.sequence_nr, "pid": pid, "tid": e.os_tid or e.thread,
                                 "ts": base_us + e.time_range.start, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"})
    meta = {"schemaVersion": 1, "deviceProperties": [], "record_shapes": int(any(e.input_shapes for e in events)),
            "profile_memory": int(bool(getattr(events, "_profile_memory", False))), "host_name": socket.gethostname(),
            "displayTimeUnit": "ms", "baseTimeNanoseconds": int(events._trace_meta.get("base_ns", 0)),
            "traceEvents": trace_events, "traceName": path}
    meta.update({k: v for k, v in events._trace_meta.items() if k not in ("base_us", "base_ns")})
    return meta

