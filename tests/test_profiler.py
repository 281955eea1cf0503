"""torchlike.profiler / torchlike.autograd.profiler: events from the
dispatcher-level recorder, ranges, backward nodes, shapes, memory, the step
schedule, exports, the table, and the bottleneck CLI and __config__."""
import gzip
import importlib.metadata
import json
import os
import subprocess
import sys
import threading
import warnings

import pytest

import torchlike as tl
from torchlike import _C

_PC = _C._VariableFunctions
from torchlike.autograd import profiler as aprof
from torchlike.profiler import (ExecutionTraceObserver, ProfilerAction, ProfilerActivity, profile, record_function,
                                schedule, supported_activities, tensorboard_trace_handler)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def names(events):
    return [e.name for e in events]


def find(events, name):
    found = [e for e in events if e.name == name]
    assert found, f"no event {name!r} in {sorted(set(names(events)))}"
    return found


def test_op_events_have_names_keys_times_and_threads():
    a, b = tl.ones(5, 10), tl.ones(5, 10)
    with profile() as p:
        tl.add(a, b)
        tl.mul(a, b)
    ev = p.events()
    add, mul = find(ev, "aten::add")[0], find(ev, "aten::mul")[0]
    # Tensors carry the Autograd key (as in PyTorch) whether or not they require grad.
    assert add.dispatch_key == "AutogradCPU" and mul.dispatch_key == "AutogradCPU"
    assert add.time_range.end >= add.time_range.start >= 0
    assert mul.time_range.start >= add.time_range.end  # recorded in call order
    assert add.os_tid == threading.get_native_id()
    assert add.cpu_parent is None
    assert not _PC._profiler_enabled()


def test_autograd_key_and_no_recording_outside_session():
    a = tl.ones(3, requires_grad=True)
    with profile() as p:
        tl.neg(a)
    assert find(p.events(), "aten::neg")[0].dispatch_key == "AutogradCPU"
    with profile() as p, tl.no_grad():
        tl.neg(a)
    assert find(p.events(), "aten::neg")[0].dispatch_key == "CPU"  # no_grad excludes the Autograd keys
    tl.neg(a)  # after stop: nothing is recorded anywhere
    assert len(find(p.events(), "aten::neg")) == 1 and not _PC._profiler_enabled()


def test_nested_calls_are_children_within_parent_interval():
    x = tl.ones(4, 4)
    with profile() as p:
        tl.ones_like(x)
        tl.zeros(3)
    for e in p.events():
        for c in e.cpu_children:
            assert c.cpu_parent is e
            assert e.time_range.start <= c.time_range.start <= c.time_range.end <= e.time_range.end
            assert c.os_tid == e.os_tid
        assert e.self_cpu_time_total == pytest.approx(
            e.cpu_time_total - sum(c.cpu_time_total for c in e.cpu_children))


def test_record_function_nesting_and_decorator():
    a = tl.ones(3)

    @record_function("decorated")
    def f(x):
        return tl.neg(x)

    with profile() as p:
        with record_function("outer"):
            with record_function("inner"):
                tl.exp(a)
            f(a)
    ev = p.events()
    outer, inner, dec = find(ev, "outer")[0], find(ev, "inner")[0], find(ev, "decorated")[0]
    assert inner.cpu_parent is outer and dec.cpu_parent is outer
    assert find(ev, "aten::exp")[0].cpu_parent is inner
    assert find(ev, "aten::neg")[0].cpu_parent is dec
    assert outer.is_user_annotation and not find(ev, "aten::exp")[0].is_user_annotation
    assert outer.cpu_time_total >= inner.cpu_time_total + dec.cpu_time_total


def test_record_function_without_profiler_is_free_and_checked():
    with record_function("nothing") as r:
        tl.ones(2)
    assert r.record is None
    assert _PC._record_function_enter("x") == 0
    with pytest.raises(TypeError):
        record_function(3)


def test_record_function_recursion_nests():
    @record_function("rec")
    def rec(n):
        return tl.ones(1) if n == 0 else rec(n - 1)

    with profile() as p:
        rec(2)
    r = find(p.events(), "rec")
    assert len(r) == 3
    assert r[1].cpu_parent is r[0] and r[2].cpu_parent is r[1]


def test_backward_nodes_are_recorded():
    a = tl.ones(5, 10, requires_grad=True)
    b = tl.full((5, 10), 2.0)
    with profile(record_shapes=True) as p:
        y = (a * b).sum()
        y.backward()
    ev = p.events()
    ev_mul = find(ev, "autograd::engine::evaluate_function: MulBackward0")[0]
    mul_node = find(ev, "MulBackward0")[0]
    assert mul_node.cpu_parent is ev_mul
    assert find(ev, "SumBackward0")[0].cpu_parent is find(ev, "autograd::engine::evaluate_function: SumBackward0")[0]
    acc = find(ev, "torch::autograd::AccumulateGrad")[0]
    assert acc.cpu_parent.name == "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad"
    # The node's apply runs the backward formula's ops as its children.
    assert "aten::mul" in names(mul_node.cpu_children)
    assert mul_node.input_shapes == [[5, 10]]  # the incoming gradient
    assert mul_node.sequence_nr >= 0
    # The forward op carries its Node's sequence number (first Node made inside it).
    fwd_mul = [e for e in find(ev, "aten::mul") if e.cpu_parent is None or "Backward" not in e.cpu_parent.name][0]
    assert fwd_mul.sequence_nr == mul_node.sequence_nr
    assert find(ev, "aten::sum")[0].sequence_nr == find(ev, "SumBackward0")[0].sequence_nr
    assert all(e.sequence_nr == -1 for e in mul_node.cpu_children)  # no grad mode in backward: no Nodes
    assert a.grad is not None and float(a.grad.sum().item()) == 100.0


def test_input_shapes_and_dtypes():
    a = tl.ones(5, 10)
    b = tl.ones(10, 3, dtype=tl.float64)
    with profile(record_shapes=True) as p:
        tl.add(a, a)
        tl.mm(b.t(), b)
        tl.cat([a, a])
    add = find(p.events(), "aten::add")[0]
    assert add.input_shapes == [[5, 10], [5, 10], []]
    assert add.input_dtypes == ["float32", "float32", ""]
    assert add.input_strides == [[10, 1], [10, 1], []]
    mm = find(p.events(), "aten::mm")[0]
    assert mm.input_shapes == [[3, 10], [10, 3]]
    assert mm.input_strides[0] == [1, 3]  # the transposed view
    assert find(p.events(), "aten::cat")[0].input_shapes[0] == []  # a list argument


def test_shapes_not_recorded_by_default():
    with profile() as p:
        tl.add(tl.ones(2), tl.ones(2))
    assert find(p.events(), "aten::add")[0].input_shapes == []


def test_memory_attribution():
    with profile(profile_memory=True) as p:
        with record_function("alloc"):
            x = tl.empty(1000)          # 4000 bytes, inside aten::empty
        del x                           # freed outside every range
    ev = p.events()
    empty = find(ev, "aten::empty")[0]
    assert empty.self_cpu_memory_usage == 4000 and empty.cpu_memory_usage == 4000
    alloc = find(ev, "alloc")[0]
    assert alloc.self_cpu_memory_usage == 0 and alloc.cpu_memory_usage == 4000
    frees = [e for e in ev if e.name == "[memory]"]
    assert sum(e.cpu_memory_usage for e in frees) == -4000
    for e in ev:
        assert e.cpu_memory_usage == e.self_cpu_memory_usage + sum(c.cpu_memory_usage for c in e.cpu_children)


def test_memory_not_recorded_without_profile_memory():
    with profile() as p:
        x = tl.empty(100)
        del x
    assert all(e.cpu_memory_usage == 0 for e in p.events())
    assert "[memory]" not in names(p.events())


def test_schedule_actions():
    s = schedule(wait=1, warmup=1, active=2, repeat=1, skip_first=1)
    A = ProfilerAction
    assert [s(i) for i in range(8)] == [A.NONE, A.NONE, A.WARMUP, A.RECORD, A.RECORD_AND_SAVE, A.NONE, A.NONE,
                                        A.NONE]
    s = schedule(wait=1, warmup=1, active=2)
    assert [s(i) for i in range(8)] == [A.NONE, A.WARMUP, A.RECORD, A.RECORD_AND_SAVE] * 2
    s = schedule(wait=2, warmup=1, active=1, skip_first_wait=1)
    assert [s(i) for i in range(5)] == [A.WARMUP, A.RECORD_AND_SAVE, A.NONE, A.NONE, A.WARMUP]


def test_schedule_errors_and_warning():
    with pytest.raises(AssertionError, match="active=0"):
        schedule(wait=1, warmup=1, active=0)
    with pytest.raises(AssertionError, match="wait=-1"):
        schedule(wait=-1, warmup=1, active=1)
    with pytest.warns(UserWarning, match="warmup"):
        schedule(wait=1, warmup=0, active=1)


def test_schedule_and_step_record_only_active_steps():
    traces = []

    def ready(prof):
        traces.append([e.name for e in prof.events()])

    with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=2), on_trace_ready=ready) as p:
        for i in range(9):
            with record_function(f"work{i}"):
                tl.ones(2)
            p.step()
    assert len(traces) == 2
    assert [n for n in traces[0] if n.startswith("work")] == ["work2", "work3"]
    assert [n for n in traces[1] if n.startswith("work")] == ["work6", "work7"]
    assert "ProfilerStep#2" in traces[0] and "ProfilerStep#3" in traces[0]
    assert not any(n.startswith("ProfilerStep#1") for n in traces[0])
    # The last cycle's events stay readable.
    assert "work7" in names(p.events())
    # A step range contains that step's work.
    w = find(p.events(), "work7")[0]
    assert w.cpu_parent.name == "ProfilerStep#7"


def test_schedule_with_nothing_active_records_nothing():
    called = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning and no crash
        with profile(schedule=lambda step: ProfilerAction.NONE, on_trace_ready=called.append) as p:
            for _ in range(3):
                tl.ones(2)
                p.step()
    assert called == []
    with pytest.raises(AssertionError, match="initialized"):
        p.events()
    with pytest.raises(AssertionError, match="initialized"):
        p.key_averages()
    assert not _PC._profiler_enabled()


def test_schedule_ending_before_any_active_step():
    got = []
    with profile(schedule=schedule(wait=1, warmup=2, active=1), on_trace_ready=got.append) as p:
        for _ in range(2):  # exits in the warmup: an empty trace, no callback
            tl.ones(2)
            p.step()
    assert got == [] and len(p.events()) == 0
    with profile(schedule=schedule(wait=5, warmup=1, active=1), on_trace_ready=got.append) as p:
        for _ in range(2):  # exits while waiting: no trace at all
            tl.ones(2)
            p.step()
    assert got == []
    with pytest.raises(AssertionError, match="initialized"):
        p.events()
    assert not _PC._profiler_enabled()


def test_schedule_must_return_an_action():
    with pytest.raises(TypeError, match="ProfilerAction"):
        with profile(schedule=lambda step: "record") as p:
            p.step()
    if _PC._profiler_enabled():  # pragma: no cover  (leave no session behind)
        _PC._profiler_stop()


def test_no_schedule_calls_on_trace_ready_at_stop():
    got = []
    with profile(on_trace_ready=got.append) as p:
        tl.ones(1)
    assert got == [p]
    assert not any(n.startswith("ProfilerStep") for n in names(p.events()))


def test_stop_twice_and_stop_before_start():
    p = profile()
    with pytest.raises(AssertionError, match="initialized"):
        p.stop()
    p.start()
    tl.ones(1)
    p.stop()
    with pytest.warns(UserWarning, match="not running"):
        p.stop()
    assert "aten::ones" in names(p.events())


def test_profilers_do_not_nest():
    with profile():
        with pytest.raises(RuntimeError, match="already"):
            with profile():
                pass
    assert not _PC._profiler_enabled()


def test_exception_inside_profiled_op():
    with profile(record_shapes=True) as p:
        with pytest.raises(RuntimeError):
            tl.mm(tl.ones(2, 3), tl.ones(2, 3))
    mm = find(p.events(), "aten::mm")[0]
    assert mm.time_range.end >= mm.time_range.start
    assert not _PC._profiler_enabled()


def test_other_threads_are_recorded():
    def work():
        tl.exp(tl.ones(3))

    with profile() as p:
        t = threading.Thread(target=work)
        t.start()
        t.join()
        tl.exp(tl.ones(3))
    tids = {e.os_tid for e in find(p.events(), "aten::exp")}
    assert len(tids) == 2
    assert len({e.thread for e in find(p.events(), "aten::exp")}) == 2


def _check_chrome_trace(data, events):
    assert isinstance(data["traceEvents"], list)
    xs = [e for e in data["traceEvents"] if e["ph"] == "X"]
    assert sorted(e["name"] for e in xs) == sorted(e.name for e in events if e.name != "[memory]")
    for e in xs:
        assert isinstance(e["ts"], (int, float)) and isinstance(e["dur"], (int, float)) and e["dur"] >= 0
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int)
        assert e["cat"] in ("cpu_op", "user_annotation")
    by_id = {e["args"]["External id"]: e for e in xs}
    for ev in events:
        if ev.cpu_parent is not None:
            c, par = by_id[ev.id], by_id[ev.cpu_parent.id]
            assert par["ts"] <= c["ts"] + 1e-6 and c["ts"] + c["dur"] <= par["ts"] + par["dur"] + 1e-3
    return xs


def test_export_chrome_trace(tmp_path):
    a = tl.ones(5, 10, requires_grad=True)
    with profile(record_shapes=True, profile_memory=True) as p:
        with record_function("block"):
            y = (a * 2).sum()
        y.backward()
    path = tmp_path / "trace.json"
    p.export_chrome_trace(str(path))
    data = json.loads(path.read_text())
    xs = _check_chrome_trace(data, p.events())
    mul = [e for e in xs if e["name"] == "aten::mul"][0]
    assert mul["args"]["Input Dims"][0] == [5, 10] and mul["args"]["Input type"][0] == "float"
    assert [e for e in xs if e["name"] == "block"][0]["cat"] == "user_annotation"
    # Flow arrows from each forward op to its backward Node.
    starts = {e["id"]: e for e in data["traceEvents"] if e["ph"] == "s"}
    ends = {e["id"]: e for e in data["traceEvents"] if e["ph"] == "f"}
    assert set(starts) == set(ends) and len(starts) == 2  # mul and sum
    assert starts[mul["args"]["Sequence number"]]["ts"] == mul["ts"]
    assert data["displayTimeUnit"] == "ms"
    assert any(e["ph"] == "i" and e["name"] == "[memory]" for e in data["traceEvents"]) or \
        "[memory]" not in names(p.events())
    gz = tmp_path / "trace.json.gz"
    p.export_chrome_trace(str(gz))
    assert json.loads(gzip.open(gz).read())["traceEvents"]


def test_tensorboard_trace_handler(tmp_path):
    with profile(schedule=schedule(wait=0, warmup=1, active=1, repeat=1),
                 on_trace_ready=tensorboard_trace_handler(str(tmp_path / "tb"), worker_name="w0")) as p:
        for _ in range(3):
            tl.add(tl.ones(2), 1)
            p.step()
    files = os.listdir(tmp_path / "tb")
    assert len(files) == 1 and files[0].startswith("w0.") and files[0].endswith(".pt.trace.json")
    data = json.loads((tmp_path / "tb" / files[0]).read_text())
    assert any(e.get("name") == "aten::add" for e in data["traceEvents"])
    with profile(on_trace_ready=tensorboard_trace_handler(str(tmp_path / "gz"), use_gzip=True)):
        tl.ones(1)
    (f,) = os.listdir(tmp_path / "gz")
    assert f.endswith(".pt.trace.json.gz")
    assert json.loads(gzip.open(tmp_path / "gz" / f).read())["traceEvents"]


def _table_rows(table):
    lines = table.rstrip("\n").split("\n")
    seps = [i for i, ln in enumerate(lines) if ln.startswith("-")]
    assert len(seps) == 3
    header = lines[seps[0] + 1]
    rows = lines[seps[1] + 1: seps[2]]
    return lines, header, rows


def _to_us(s):
    for unit, f in (("ms", 1e3), ("us", 1.0), ("s", 1e6)):
        if s.endswith(unit):
            return float(s[: -len(unit)]) * f
    raise AssertionError(s)


def test_table_layout_and_sorting():
    a = tl.ones(64, 64)
    with profile(record_shapes=True) as p:
        for _ in range(3):
            tl.mm(a, a)
        tl.add(a, a)
        with record_function("a_very_long_name_for_the_record_function_that_exceeds_width_limit_x"):
            tl.neg(a)
    avg = p.key_averages()
    t = avg.table(sort_by="cpu_time_total", row_limit=3)
    lines, header, rows = _table_rows(t)
    cols = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    assert header.split("  ") and [c.strip() for c in header.split("  ") if c.strip()] == cols
    assert len(rows) == 3
    assert lines[-1].startswith("Self CPU time total: ")
    assert _to_us(lines[-1].split(": ")[1]) == pytest.approx(sum(e.self_cpu_time_total for e in avg), rel=1e-3,
                                                             abs=1e-3)
    totals = [_to_us(r.split()[-3]) for r in rows]  # CPU total of each row (avg and calls after it)
    assert totals == sorted(totals, reverse=True)
    name_width = len(lines[0].split("  ")[0])
    assert name_width == 55  # capped; the long name is cut with "..."
    assert any(r.startswith("a_very_long_name_for_the_record_function_that_exceed...") for r in
               avg.table(row_limit=100).split("\n"))
    mm_row = [r for r in avg.table().split("\n") if r.strip().startswith("aten::mm ")][0]
    assert mm_row.split()[-1] == "3"
    assert all(ln.endswith("  ") for ln in lines[:3])


def test_table_memory_and_shape_columns():
    a = tl.ones(8, 8)
    with profile(record_shapes=True, profile_memory=True) as p:
        tl.add(a, a)
        tl.add(tl.ones(2), tl.ones(2))
    t = p.key_averages(group_by_input_shape=True).table(sort_by="self_cpu_memory_usage")
    _, header, rows = _table_rows(t)
    cols = [c.strip() for c in header.split("  ") if c.strip()]
    assert cols == ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "CPU Mem",
                    "Self CPU Mem", "# of Calls", "Input Shapes"]
    add_rows = [r for r in rows if r.strip().startswith("aten::add ")]
    assert len(add_rows) == 2
    assert any(r.rstrip().endswith("[[8, 8], [8, 8], []]") and "256 B" in r for r in add_rows)
    assert p.key_averages().table(sort_by="count")
    with pytest.raises(AttributeError, match="sort_by"):
        p.key_averages().table(sort_by="no_such_key")


def test_key_averages_grouping():
    with profile(record_shapes=True) as p:
        tl.add(tl.ones(2), tl.ones(2))
        tl.add(tl.ones(3, 3), tl.ones(3, 3))
        tl.add(tl.ones(2), tl.ones(2))
    ev = find(p.events(), "aten::add")
    (avg,) = [e for e in p.key_averages() if e.key == "aten::add"]
    assert avg.count == 3
    assert avg.cpu_time_total == pytest.approx(sum(e.cpu_time_total for e in ev))
    assert avg.self_cpu_time_total == pytest.approx(sum(e.self_cpu_time_total for e in ev))
    assert avg.cpu_time == pytest.approx(avg.cpu_time_total / 3)
    grouped = {str(e.input_shapes): e.count for e in p.key_averages(group_by_input_shape=True)
               if e.key == "aten::add"}
    assert grouped == {"[[2], [2], []]": 2, "[[3, 3], [3, 3], []]": 1}
    total = p.events().total_average()
    assert total.key == "Total" and total.count == len(p.events())


def test_with_stack_and_export_stacks(tmp_path):
    def my_model_fn(x):
        return tl.exp(x)

    with profile(with_stack=True) as p:
        my_model_fn(tl.ones(1000))
    exp = find(p.events(), "aten::exp")[0]
    at = [i for i, s in enumerate(exp.stack) if "my_model_fn" in s and "test_profiler.py" in s]
    assert at, exp.stack
    assert "test_with_stack_and_export_stacks" in exp.stack[at[0] + 1]  # innermost frame first
    path = tmp_path / "stacks.txt"
    p.export_stacks(str(path))
    lines = path.read_text().splitlines()
    assert any(ln.split(" ")[0].endswith(";aten::exp") for ln in lines)
    for ln in lines:
        assert int(ln.rsplit(" ", 1)[1]) > 0
    rows = p.key_averages(group_by_stack_n=2).table()
    assert "Source Location" in rows
    with pytest.raises(ValueError):
        p.export_stacks(str(path), metric="bogus")


def test_with_flops():
    with profile(with_flops=True) as p:
        tl.mm(tl.ones(64, 32), tl.ones(32, 16))
        tl.mul(tl.ones(4, 1), tl.ones(1, 5))
    assert find(p.events(), "aten::mm")[0].flops == 2 * 64 * 32 * 16
    assert find(p.events(), "aten::mul")[0].flops == 20
    t = p.key_averages().table()
    assert "Total KFLOPs" in t or "Total FLOPs" in t


def test_with_modules():
    lin = tl.nn.Linear(4, 3)
    with profile(with_modules=True) as p:
        lin(tl.ones(2, 4))
    m = find(p.events(), "nn.Module: Linear_0")[0]
    assert m.cpu_children and all(c.cpu_parent is m for c in m.cpu_children)
    lin(tl.ones(2, 4))  # hooks were removed at stop


def test_activities():
    assert ProfilerActivity.CPU in supported_activities()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        tl.ones(1)
    assert "aten::ones" in names(p.events())
    with profile(activities=[ProfilerActivity.CUDA]) as p:  # no CPU activity: nothing recorded
        tl.ones(1)
    assert len(p.events()) == 0
    with pytest.raises(TypeError):
        profile(activities=["cpu"])
    assert tl.profiler.kineto_available() is False
    assert tl.profiler.itt.is_available() is False
    with tl.profiler.itt.range("x {}", 1):
        pass


def test_execution_trace_observer(tmp_path):
    path = str(tmp_path / "et.json")
    et = ExecutionTraceObserver().register_callback(path)
    assert et.is_registered and not et.is_running()
    et.start()
    assert et.is_running()
    tl.add(tl.ones(2, 3), tl.ones(2, 3))
    et.stop()
    et.unregister_callback()
    doc = json.load(open(path))
    adds = [n for n in doc["nodes"] if n["name"] == "aten::add"]
    assert adds and adds[0]["inputs"]["shapes"][0] == [2, 3]
    ids = {n["id"] for n in doc["nodes"]}
    assert all(n["ctrl_deps"] in ids for n in doc["nodes"])
    assert et.get_output_file_path() == path
    # Shared with a profile.
    et2 = ExecutionTraceObserver().register_callback(str(tmp_path / "et2.json"))
    with profile(execution_trace_observer=et2):
        tl.neg(tl.ones(2))
    assert any(n["name"] == "aten::neg" for n in json.load(open(tmp_path / "et2.json"))["nodes"])
    et2.cleanup()
    assert not os.path.exists(tmp_path / "et2.json")
    with pytest.raises(RuntimeError, match="register_callback"):
        ExecutionTraceObserver().start()


def test_legacy_autograd_profiler_alias(tmp_path):
    assert tl.autograd.profiler.profile is aprof.profile
    x = tl.ones(3, requires_grad=True)
    with aprof.profile(record_shapes=True) as p:
        with aprof.record_function("legacy"):
            (x * x).sum().backward()
    assert "legacy" in names(p.function_events)
    assert "MulBackward0" in names(p.function_events)
    t = p.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total", row_limit=5)
    assert "Input Shapes" in t and t.rstrip().split("\n")[-1].startswith("Self CPU time total")
    assert p.self_cpu_time_total == pytest.approx(p.function_events.self_cpu_time_total)
    assert str(p) == p.function_events.table()
    p.export_chrome_trace(str(tmp_path / "t.json"))
    _check_chrome_trace(json.load(open(tmp_path / "t.json")), p.function_events)
    with pytest.raises(RuntimeError, match="reentrant"):
        with p:
            pass
    q = aprof.profile()
    with pytest.raises(RuntimeError, match="finish"):
        q.key_averages()
    with aprof.profile(enabled=False) as off:
        tl.ones(1)
    assert off.enabled is False and not _PC._profiler_enabled()
    with aprof.emit_nvtx():
        tl.ones(1)
    with aprof.emit_itt(record_shapes=True):
        tl.ones(1)
    e = aprof.emit_nvtx()
    with e:
        with pytest.raises(RuntimeError, match="reentrant"):
            e.__enter__()


def test_bottleneck_cli(tmp_path):
    script = tmp_path / "tiny.py"
    script.write_text("import sys\nimport torchlike as tl\n"
                      "x = tl.ones(8, 8)\nfor _ in range(3):\n    y = tl.mm(x, x)\n"
                      "print('ARGS', sys.argv[1:])\nsys.exit(0)\n")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-m", "torchlike.utils.bottleneck", str(script), "--flag", "7"],
                       capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=120)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.count("ARGS ['--flag', '7']") == 2  # once under each profiler
    assert "cProfile output" in out and "autograd profiler output" in out
    assert "aten::mm" in out and "Self CPU time total" in out
    assert "tottime" in out  # pstats' table
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nsys.exit(3)\n")
    r = subprocess.run([sys.executable, "-m", "torchlike.utils.bottleneck", str(bad)],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 3
    r = subprocess.run([sys.executable, "-m", "torchlike.utils.bottleneck", str(tmp_path / "missing.py")],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode != 0 and "no such script" in r.stderr


def test_config_show_and_parallel_info():
    from torchlike.backends.cpu import get_cpu_capability
    s = tl.__config__.show()
    assert s.startswith("torchlike built with:\n")
    assert "C++ Version: 201703" in s  # the build compiles with -std=c++17
    assert "  - GCC " in s or "  - clang " in s
    assert f"CPU capability usage: {get_cpu_capability()}" in s
    assert f"scipy-openblas32 {importlib.metadata.version('scipy-openblas32')}" in s
    assert "OpenMP 2" in s and "-std=c++17" in s
    assert ("USE_CUDA=ON" in s) == os.path.exists(os.path.join(os.path.dirname(tl.__file__), "libtorchlike_cuda.so"))
    mpi_present = importlib.util.find_spec("mpi4py") is not None
    assert ("MPI" in s and "USE_MPI=ON" in s) == mpi_present
    info = tl.__config__.parallel_info()
    assert f"at::get_num_threads() : {tl.get_num_threads()}" in info
    assert f"hardware_concurrency() : {os.cpu_count()}" in info
    assert "OMP_NUM_THREADS" in info


def test_pytorch_parity_of_names_shapes_and_table_header():
    torch = pytest.importorskip("torch")
    from torch.profiler import profile as tprofile

    def program(lib, prof_cls):
        a = lib.ones(5, 10)
        with prof_cls(record_shapes=True) as p:
            lib.add(a, a)
            lib.mm(a, a.t())
        return p

    tp, mp = program(torch, tprofile), program(tl, profile)

    def top(p):
        return [(e.name, e.input_shapes) for e in p.events() if e.cpu_parent is None]
    assert top(mp) == top(tp)
    th = _table_rows(tp.key_averages().table())[1]
    mh = _table_rows(mp.key_averages().table())[1]
    assert [c.strip() for c in th.split("  ") if c.strip()] == [c.strip() for c in mh.split("  ") if c.strip()]


def test_record_function_ended_by_a_future():
    import concurrent.futures
    with profile() as p:
        rf = record_function("async_part")
        rf.__enter__()
        fut = concurrent.futures.Future()
        assert rf._call_end_callbacks_on_future(fut) is fut
        rf.__exit__(None, None, None)  # the future ends the range, not the block
        tl.ones(1)
        fut.set_result(3)
        tl.zeros(1)
    part = find(p.events(), "async_part")[0]
    assert find(p.events(), "aten::ones")[0].cpu_parent is part
    assert find(p.events(), "aten::zeros")[0].cpu_parent is None
    with pytest.raises(RuntimeError, match="once"):
        rf._call_end_callbacks_on_future(fut)


def test_event_metadata():
    with profile() as p:
        tl.ones(1)
    e = find(p.events(), "aten::ones")[0]
    assert e.device_type == tl.profiler.DeviceType.CPU and e.device_type == 0
    assert e.count == 1 and e.key == "aten::ones" and e.cpu_time == e.cpu_time_total
    assert "aten::ones" in repr(e)
    assert any("aten::ones" in repr(a) for a in p.key_averages())
    assert [a.value for a in ProfilerAction] == [0, 1, 2, 3, 4]
    assert {a.name for a in ProfilerActivity} >= {"CPU", "CUDA"}
