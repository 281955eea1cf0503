"""torchlike.jit: trace, script, save/load, freeze. Values are checked
against NumPy / exact math; PyTorch parity (where installed) on top."""
import io
import math
import os
import subprocess
import sys
import textwrap
import zipfile
from typing import List, Optional, Tuple

import numpy as np
import pytest

import torchlike
import torchlike as torch
from torchlike import jit
from torchlike.jit.frontend import NotSupportedError, UnsupportedNodeError

HERE = os.path.abspath(__file__)


def _np(t):
    return t.detach().numpy()


# ------------------------------------------------------------------ trace

def test_trace_function_values_and_graph():
    def f(x, y):
        return torch.tanh(x * 2 + y).sum(dim=1)
    x, y = torch.randn(3, 4), torch.randn(3, 4)
    tf = jit.trace(f, (x, y))
    a, b = torch.randn(3, 4), torch.randn(3, 4)
    np.testing.assert_allclose(_np(tf(a, b)), np.tanh(_np(a) * 2 + _np(b)).sum(1), rtol=1e-5, atol=1e-6)
    g = str(tf.graph)
    for op in ("aten::mul(", "aten::add(", "aten::tanh(", "aten::sum("):
        assert op in g
    assert [n.kind for n in tf.graph.nodes] == ["aten::mul.Tensor", "aten::add.Tensor", "aten::tanh",
                                                "aten::sum.dim_IntList"]
    assert "graph(%x : Float(3, 4" in g
    code = tf.code
    assert code.startswith("def f(x: Tensor,") and "torch.tanh(" in code


def test_trace_module_submodule_structure_and_params_shared():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(4, 8)
            self.fc2 = torch.nn.Linear(8, 2)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))
    m = M()
    x = torch.randn(5, 4)
    t = jit.trace(m, x)
    assert isinstance(t, jit.ScriptModule)
    assert t.fc1.weight is m.fc1.weight  # shared, not copied
    g = str(t.graph)
    assert 'prim::GetAttr[name="fc1.weight"]' in g and "scope: fc2" in g
    assert "self.fc1.weight" in t.code
    x2 = torch.randn(7, 4)
    w1, b1, w2, b2 = (_np(p) for p in (m.fc1.weight, m.fc1.bias, m.fc2.weight, m.fc2.bias))
    ref = np.maximum(_np(x2) @ w1.T + b1, 0) @ w2.T + b2
    np.testing.assert_allclose(_np(t(x2)), ref, rtol=1e-5, atol=1e-5)
    # parameters are read at call time: an update shows in the replay
    with torch.no_grad():
        m.fc2.bias.add_(1.0)
    np.testing.assert_allclose(_np(t(x2)), ref + 1.0, rtol=1e-5, atol=1e-5)


def test_trace_gradients_flow():
    lin = torch.nn.Linear(3, 1)
    t = jit.trace(lin, torch.randn(2, 3))
    x = torch.randn(4, 3)
    t(x).sum().backward()
    np.testing.assert_allclose(_np(lin.weight.grad), _np(x).sum(0, keepdims=True), rtol=1e-5)


def test_trace_bakes_data_dependent_control_flow_with_warning():
    def f(x):
        if x.sum() > 0:
            return x * 2
        return x * -1
    with pytest.warns(jit.TracerWarning, match="Converting a tensor to a Python boolean might cause the trace to "
                                               "be incorrect"):
        tf = jit.trace(f, torch.ones(3), check_trace=False)
    # the branch taken for the example is baked in
    np.testing.assert_allclose(_np(tf(-torch.ones(3))), [-2.0, -2.0, -2.0])


def test_trace_item_warns():
    def f(x):
        return x * x.max().item()
    with pytest.warns(jit.TracerWarning, match="Converting a tensor to a Python number") as rec:
        jit.trace(f, torch.arange(3.0), check_trace=False)
    assert rec[0].filename == HERE   # attributed to the user's line, not torchlike's


def test_trace_input_and_output_errors():
    with pytest.raises(RuntimeError, match="Type 'int' cannot be traced"):
        jit.trace(lambda x, n: x * n, (torch.ones(2), 3))
    with pytest.raises(RuntimeError, match="pass strict=False"):
        jit.trace(lambda x: [x + 1, x + 2], torch.ones(2))
    t = jit.trace(lambda x: [x + 1, x + 2], torch.ones(2), strict=False)
    assert isinstance(t(torch.zeros(2)), list)
    with pytest.raises(RuntimeError, match="Only tensors"):
        jit.trace(lambda x: 3, torch.ones(2))
    t = jit.trace(lambda x: x + 1, torch.ones(2))
    with pytest.raises(RuntimeError, match="expected 1 tensor input"):
        t(torch.ones(2), torch.ones(2))


def test_check_trace_detects_nondeterminism():
    calls = [0]

    def f(x):
        calls[0] += 1
        return x + 1 if calls[0] % 2 else x.neg().exp()
    with pytest.raises(jit.TracingCheckError, match="Graphs differed"):
        jit.trace(f, torch.ones(2))


def test_check_trace_output_mismatch_warns():
    state = [0.0]

    def f(x):
        state[0] += 1.0
        return x + torch.full((2,), state[0])   # a fresh tensor the graph holds as a constant
    with pytest.warns(jit.TracerWarning, match="does not match"):
        jit.trace(f, torch.ones(2))


def test_trace_factory_and_kwargs_and_tuple_inputs():
    def f(x, pair):
        a, b = pair
        return torch.zeros(2, 3) + x * a - b
    x, p = torch.randn(2, 3), (torch.randn(2, 3), torch.randn(2, 3))
    t = jit.trace(f, (x, p))
    y, q = torch.randn(2, 3), (torch.randn(2, 3), torch.randn(2, 3))
    np.testing.assert_allclose(_np(t(y, q)), _np(y) * _np(q[0]) - _np(q[1]), rtol=1e-6)
    assert "aten::zeros" in str(t.graph)
    tk = jit.trace(lambda x, y: x - y, example_kwarg_inputs={"x": torch.ones(2), "y": torch.full((2,), 3.0)})
    np.testing.assert_allclose(_np(tk(x=torch.ones(2), y=torch.ones(2))), [0.0, 0.0])


def test_trace_module_methods():
    class M(torch.nn.Module):
        def forward(self, x):
            return x + 1

        def other(self, x):
            return x * 3
    t = jit.trace_module(M(), {"forward": torch.ones(2), "other": torch.ones(2)})
    np.testing.assert_allclose(_np(t.other(torch.full((2,), 2.0))), [6.0, 6.0])
    np.testing.assert_allclose(_np(t(torch.full((2,), 2.0))), [3.0, 3.0])
    with pytest.raises(AttributeError):
        jit.trace_module(M(), [torch.ones(2)])


def test_trace_of_scriptmodule_is_noop():
    s = jit.script(torch.nn.ReLU())
    with pytest.warns(UserWarning, match="no-op"):
        assert jit.trace(s, torch.ones(2)) is s


def test_is_tracing():
    seen = []

    def f(x):
        seen.append(jit.is_tracing())
        return x + 1
    jit.trace(f, torch.ones(1), check_trace=False)
    assert seen == [True] and not jit.is_tracing()


# ----------------------------------------------------------------- script

def test_script_function_control_flow():
    @jit.script
    def f(x, n: int):
        acc = torch.zeros_like(x)
        i = 0
        while i < n:
            if i % 2 == 0:
                acc = acc + x
            else:
                acc = acc - x * 0.5
            i += 1
        for j in range(3):
            acc += j
        return acc
    x = torch.arange(4.0)
    for n in (0, 1, 4, 5):
        expect = _np(x) * (sum(1.0 if i % 2 == 0 else -0.5 for i in range(n))) + 3.0
        np.testing.assert_allclose(_np(f(x, n)), expect)
    assert isinstance(f, jit.ScriptFunction)
    assert "while i < n" in f.code
    assert "prim::Loop" in f.graph and "prim::If" in f.graph


def test_script_types_lists_tuples_and_defaults():
    @jit.script
    def g(xs: List[torch.Tensor], scale: float = 2.0) -> Tuple[torch.Tensor, int]:
        out: List[torch.Tensor] = []
        for t in xs:
            out.append(t * scale)
        return torch.stack(out).sum(0), len(out)
    a, b = torch.ones(2), torch.full((2,), 3.0)
    r, n = g([a, b])
    np.testing.assert_allclose(_np(r), [8.0, 8.0])
    assert n == 2
    r, _ = g([a], 0.5)
    np.testing.assert_allclose(_np(r), [0.5, 0.5])
    # arguments are checked against the annotations (unannotated = Tensor)
    with pytest.raises(RuntimeError, match="Expected a value of type 'List\\[Tensor\\]' for argument 'xs'"):
        g(a)
    with pytest.raises(RuntimeError, match="Expected a value of type 'Tensor'"):
        jit.script(_plain_add)(1, 2)
    with pytest.raises(RuntimeError, match="missing value for argument"):
        g()


def _plain_add(x, y):
    return x + y


def _helper(x):
    return x * 3


def test_script_calls_plain_function_recursively_compiled():
    @jit.script
    def f(x):
        return _helper(x) + 1
    np.testing.assert_allclose(_np(f(torch.ones(2))), [4.0, 4.0])
    assert isinstance(jit.script(_helper), jit.ScriptFunction)


def _optional_fn(x, y: Optional[torch.Tensor] = None):
    if y is None:
        return x
    return x + y


def test_script_optional():
    f = jit.script(_optional_fn)
    np.testing.assert_allclose(_np(f(torch.ones(2))), [1.0, 1.0])
    np.testing.assert_allclose(_np(f(torch.ones(2), torch.ones(2))), [2.0, 2.0])


def _lambda_fn(x):
    g = lambda y: y + 1  # noqa: E731
    return g(x)


def _with_fn(x):
    with torch.no_grad():
        return x


def _try_fn(x):
    try:
        return x
    except Exception:
        return x


def _star_fn(*xs):
    return xs[0]


def _dunder_fn(x):
    return x.__class__


def _undefined_fn(x):
    return x + not_defined_anywhere  # noqa: F821


def _numpy_fn(x):
    return x.numpy()


def _lineno(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    for i, l in enumerate(lines):
        if text in l:
            return first + i
    raise AssertionError(text)


@pytest.mark.parametrize("fn,cls,match,line_text", [
    (_lambda_fn, UnsupportedNodeError, "Lambda aren't supported", "lambda y"),
    (_with_fn, UnsupportedNodeError, "with statements aren't supported", "with torch"),
    (_try_fn, UnsupportedNodeError, "try blocks aren't supported", "try:"),
    (_star_fn, NotSupportedError, "variable number of arguments", "def _star_fn"),
    (_dunder_fn, NotSupportedError, "attribute names beginning with '_'", "__class__"),
    (_numpy_fn, NotSupportedError, "'numpy' isn't supported", "x.numpy()"),
])
def test_script_unsupported_constructs_name_file_and_line(fn, cls, match, line_text):
    with pytest.raises(cls, match=match) as ei:
        jit.script(fn)
    msg = str(ei.value)
    assert f'File "{HERE}", line {_lineno(fn, line_text)}' in msg
    assert "<--- HERE" in msg


def test_script_undefined_name():
    with pytest.raises(RuntimeError, match="undefined value not_defined_anywhere") as ei:
        jit.script(_undefined_fn)
    assert f"line {_lineno(_undefined_fn, 'not_defined_anywhere')}" in str(ei.value)


def test_script_rejects_unsupported_module_global():
    import os as _os_mod

    def f(x):
        return _os_mod.getcwd()
    with pytest.raises(NotSupportedError, match="Python module 'os' is not supported"):
        jit.script(f)


class _Gate(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        else:
            return -x


def test_script_module_branch_survives():
    g = jit.script(_Gate())
    assert isinstance(g, jit.ScriptModule)
    np.testing.assert_allclose(_np(g(torch.ones(2))), [1.0, 1.0])
    np.testing.assert_allclose(_np(g(-torch.ones(2))), [1.0, 1.0])
    assert "if x.sum() > 0" in g.code
    graph = g.graph
    assert "prim::If" in graph and "aten::neg" in graph and "block1()" in graph


def test_script_module_ignore_unused_export_and_attrs():
    class M(torch.nn.Module):
        SCALE = 3

        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(2, 2)
            self.k = 2
            self.layers = torch.nn.ModuleList([torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)])

        def forward(self, x):
            x = self.helper(x) * self.SCALE
            for layer in self.layers:
                x = layer(x)
            if self.training:
                x = self.debug(x)
            return x

        def helper(self, x):
            return self.lin(x) + self.k

        @jit.ignore
        def py_only(self, x):
            return x.numpy()

        @jit.unused
        def debug(self, x):
            return x.numpy()

        @jit.export
        def extra(self, x):
            return x - 1
    m = M().eval()
    s = jit.script(m)
    x = torch.randn(3, 2)
    np.testing.assert_allclose(_np(s(x)), _np(m(x)), rtol=1e-6)
    np.testing.assert_allclose(_np(s.extra(x)), _np(x) - 1)
    assert s.lin.weight is m.lin.weight
    s.train()
    with pytest.raises(RuntimeError, match="unused"):
        s(x)


def test_script_module_missing_attribute_error():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.obj = object()

        def forward(self, x):
            return x + self.obj
    with pytest.raises(RuntimeError, match="Module 'M' has no attribute 'obj'"):
        jit.script(M())


def test_is_scripting_and_annotate_and_isinstance():
    def f(x):
        if jit.is_scripting():
            return x + 1
        return x - 1
    assert not jit.is_scripting()
    np.testing.assert_allclose(_np(f(torch.zeros(1))), [-1.0])
    np.testing.assert_allclose(_np(jit.script(f)(torch.zeros(1))), [1.0])
    assert jit.annotate(List[int], []) == []
    assert jit.isinstance([1, 2], List[int]) and not jit.isinstance([1, "a"], List[int])
    assert jit.isinstance({"a": torch.ones(1)}, dict)
    assert jit.isinstance(None, Optional[torch.Tensor])


def test_compilation_unit():
    cu = jit.CompilationUnit('''
def double(x):
    return x * 2

def quad(x):
    return double(double(x))
''')
    np.testing.assert_allclose(_np(cu.quad(torch.ones(2))), [4.0, 4.0])
    with pytest.raises(UnsupportedNodeError):
        jit.CompilationUnit("def f(x):\n    return lambda: x\n")


def test_fork_wait_future_attribute_final_interface():
    fut = jit.fork(lambda a, b: a + b, torch.ones(2), torch.ones(2))
    assert isinstance(fut, jit.Future)
    np.testing.assert_allclose(_np(jit.wait(fut)), [2.0, 2.0])
    bad = jit.fork(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        jit.wait(bad)
    a = jit.Attribute(3, int)
    assert a.value == 3 and a.type is int
    assert jit.Final[int] is not None
    assert jit.interface(type("I", (), {})).__torch_script_interface__
    assert issubclass(jit.Error, RuntimeError)
    jit.enable_onednn_fusion(True)
    assert jit.onednn_fusion_enabled()
    jit.enable_onednn_fusion(False)


def test_script_if_tracing_keeps_branch():
    @jit.script_if_tracing
    def pick(x):
        if x.sum() > 0:
            return x
        return -x

    def f(x):
        return pick(x) * 2
    t = jit.trace(f, torch.ones(2))
    np.testing.assert_allclose(_np(t(-torch.ones(2))), [2.0, 2.0])  # not baked
    np.testing.assert_allclose(_np(f(-torch.ones(2))), [2.0, 2.0])


# ---------------------------------------------------------------- tutorial

def test_torchscript_tutorial(tmp_path):
    """The classic TorchScript tutorial, its code unchanged but the import."""
    class MyDecisionGate(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x
            else:
                return -x

    class MyCell(torch.nn.Module):
        def __init__(self, dg):
            super(MyCell, self).__init__()
            self.dg = dg
            self.linear = torch.nn.Linear(4, 4)

        def forward(self, x, h):
            new_h = torch.tanh(self.dg(self.linear(x)) + h)
            return new_h, new_h

    scripted_gate = torch.jit.script(MyDecisionGate())

    my_cell = MyCell(scripted_gate)
    x, h = torch.rand(3, 4), torch.rand(3, 4)
    traced_cell = torch.jit.trace(my_cell, (x, h))
    print(traced_cell.code)

    class MyRNNLoop(torch.nn.Module):
        def __init__(self):
            super(MyRNNLoop, self).__init__()
            self.cell = torch.jit.trace(MyCell(scripted_gate), (x, h))

        def forward(self, xs):
            h, y = torch.zeros(3, 4), torch.zeros(3, 4)
            for i in range(xs.size(0)):
                y, h = self.cell(xs[i], h)
            return y, h

    rnn_loop = torch.jit.script(MyRNNLoop())
    print(rnn_loop.code)

    class WrapRNN(torch.nn.Module):
        def __init__(self):
            super(WrapRNN, self).__init__()
            self.loop = torch.jit.script(MyRNNLoop())

        def forward(self, xs):
            y, h = self.loop(xs)
            return torch.relu(y)

    traced = torch.jit.trace(WrapRNN(), (torch.rand(10, 3, 4)))
    print(traced.code)

    # The scripted gate keeps its branch inside the traced cell.
    assert 'prim::CallMethod[name="forward"](%dg' in str(traced_cell.graph)
    xn = -torch.rand(3, 4) - 10  # linear(x) sums negative: the gate negates
    for xx in (x, xn):
        lin = _np(my_cell.linear(xx))
        gated = lin if lin.sum() > 0 else -lin
        np.testing.assert_allclose(_np(traced_cell(xx, h)[0]), np.tanh(gated + _np(h)), rtol=1e-5, atol=1e-6)

    # Eager reference for the loop: any sequence length (the loop was scripted).
    loop = traced.loop
    def eager(xs):
        hh, y = np.zeros((3, 4), np.float32), np.zeros((3, 4), np.float32)
        w, b = _np(loop.cell.linear.weight), _np(loop.cell.linear.bias)
        for i in range(xs.shape[0]):
            lin = xs[i] @ w.T + b
            g = lin if lin.sum() > 0 else -lin
            hh = np.tanh(g + hh)
            y = hh
        return np.maximum(y, 0)
    for n in (1, 5, 10):
        xs = torch.rand(n, 3, 4) - 0.5
        np.testing.assert_allclose(_np(traced(xs)), eager(_np(xs)), rtol=1e-5, atol=1e-6)

    # Round trip through save/load in a fresh process that has none of this source.
    path = tmp_path / "wrapped.pt"
    traced.save(str(path))
    xs = torch.rand(6, 3, 4) - 0.5
    torch.save(xs, str(tmp_path / "xs.pt"))
    expect = _np(traced(xs))
    np.save(str(tmp_path / "expect.npy"), expect)
    code = textwrap.dedent(f"""
        import numpy as np, torchlike
        m = torchlike.jit.load({str(path)!r})
        xs = torchlike.load({str(tmp_path / 'xs.pt')!r})
        np.testing.assert_allclose(m(xs).detach().numpy(), np.load({str(tmp_path / 'expect.npy')!r}), rtol=1e-6)
        print("OK", type(m).__name__)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(tmp_path),
                       env=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(HERE))))
    assert r.returncode == 0, r.stderr
    assert "OK" in r.stdout


# -------------------------------------------------------------- save/load

def test_save_load_scripted_module_round_trip(tmp_path):
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)
            self.register_buffer("shift", torch.tensor([1.0, 2.0, 3.0]))
            self.n = 2

        def forward(self, x):
            for _ in range(self.n):
                x = torch.relu(self.lin(x)) + self.shift
            return x
    m = M()
    s = jit.script(m)
    buf = io.BytesIO()
    jit.save(s, buf, _extra_files={"meta.txt": "hello"})
    buf.seek(0)
    extra = {"meta.txt": ""}
    l = jit.load(buf, _extra_files=extra)
    assert extra["meta.txt"] == b"hello"
    x = torch.randn(4, 3)
    np.testing.assert_allclose(_np(l(x)), _np(m(x)), rtol=1e-6)
    assert isinstance(l, jit.ScriptModule) and sorted(dict(l.named_parameters())) == ["lin.bias", "lin.weight"]
    assert "for _ in range(self.n)" in l.code


def test_save_load_traced_function_and_script_function(tmp_path):
    tf = jit.trace(lambda x: torch.sigmoid(x) * 2, torch.randn(3))
    p = str(tmp_path / "f.pt")
    jit.save(tf, p)
    x = torch.randn(3)
    np.testing.assert_allclose(_np(jit.load(p)(x)), 2 / (1 + np.exp(-_np(x))), rtol=1e-6)
    sf = jit.script(_optional_fn)
    sf.save(p)
    np.testing.assert_allclose(_np(jit.load(p)(x, x)), 2 * _np(x))


def test_save_rejects_ignored_python_calls(tmp_path):
    class M(torch.nn.Module):
        def forward(self, x):
            return self.py(x)

        @jit.ignore
        def py(self, x):
            return x + 1
    s = jit.script(M())
    np.testing.assert_allclose(_np(s(torch.zeros(1))), [1.0])
    with pytest.raises(RuntimeError, match="Could not export Python function call 'py'"):
        jit.save(s, str(tmp_path / "m.pt"))
    with pytest.raises(RuntimeError, match="expected a ScriptModule"):
        jit.save(torch.nn.Linear(1, 1), str(tmp_path / "m.pt"))


def test_load_map_location(tmp_path):
    t = jit.trace(torch.nn.Linear(2, 2), torch.randn(1, 2))
    p = str(tmp_path / "m.pt")
    t.save(p)
    for loc in ("cpu", torch.device("cpu"), {"cpu": "cpu"}):
        l = jit.load(p, map_location=loc)
        assert l.weight.device.type == "cpu"
    if torch.cuda.is_available():
        l = jit.load(p, map_location="cuda")
        assert l.weight.device.type == "cuda"


def _rewrite(src, dst, fn):
    with zipfile.ZipFile(src) as z:
        items = {n: z.read(n) for n in z.namelist()}
    items = fn(items)
    with zipfile.ZipFile(dst, "w") as z:
        for n, d in items.items():
            z.writestr(n, d)


def test_load_corrupt_and_hostile_files(tmp_path):
    import json
    t = jit.trace(lambda x: torch.relu(x) + 1, torch.randn(3))
    good = str(tmp_path / "good.pt")
    t.save(good)
    bad = str(tmp_path / "bad.pt")
    with open(bad, "wb") as f:
        f.write(b"not a zip at all")
    with pytest.raises(RuntimeError, match="not a zip file"):
        jit.load(bad)
    with pytest.raises(ValueError, match="does not exist"):
        jit.load(str(tmp_path / "missing.pt"))

    def edit_program(fn):
        def go(items):
            p = json.loads(items["archive/program.json"])
            fn(p)
            items["archive/program.json"] = json.dumps(p).encode()
            return items
        return go
    # an operator that is not registered
    _rewrite(good, bad, edit_program(lambda p: p["root"]["graph"]["nodes"][0].update(k="os::system")))
    with pytest.raises(RuntimeError, match="unknown operator 'os::system'"):
        jit.load(bad)
    # a future format version
    _rewrite(good, bad, lambda items: {**items, "archive/version": b"99"})
    with pytest.raises(RuntimeError, match="version 99 is not supported"):
        jit.load(bad)
    # truncated JSON
    _rewrite(good, bad, lambda items: {**items, "archive/program.json": items["archive/program.json"][:20]})
    with pytest.raises(RuntimeError, match="not valid JSON"):
        jit.load(bad)
    # missing record
    _rewrite(good, bad, lambda items: {k: v for k, v in items.items() if not k.endswith("tensors.pt")})
    with pytest.raises(RuntimeError, match="tensors.pt is missing"):
        jit.load(bad)
    # a pickle that would run code is refused by the weights-only reader
    import pickle

    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned > " + str(tmp_path / "pwned"),))
    _rewrite(good, bad, lambda items: {**items, "archive/tensors.pt": pickle.dumps({"0": Evil()})})
    with pytest.raises(RuntimeError, match="tensor record cannot be read"):
        jit.load(bad)
    assert not (tmp_path / "pwned").exists()


class _TorchUser(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x)


def test_load_hostile_script_program(tmp_path):
    import json
    s = jit.script(_Gate())
    good = str(tmp_path / "g.pt")
    s.save(good)
    bad = str(tmp_path / "b.pt")

    def inject(attr_chain_src):
        import ast
        from torchlike.jit._serialization import _Writer, _ast_to_json
        node = ast.parse(attr_chain_src).body[0]

        def go(items):
            p = json.loads(items["archive/program.json"])
            body = p["root"]["methods"]["forward"]["ast"]["body"]
            body.insert(0, _ast_to_json(node, _Writer()))
            items["archive/program.json"] = json.dumps(p).encode()
            return items
        return go
    _rewrite(good, bad, inject("y = x.__class__"))
    with pytest.raises(RuntimeError, match="not valid TorchScript"):
        jit.load(bad)
    _rewrite(good, bad, inject("import os"))
    with pytest.raises(RuntimeError, match="'Import' is not allowed"):
        jit.load(bad)
    _rewrite(good, bad, inject("y = open('x')"))
    with pytest.raises(RuntimeError, match="builtin 'open' is not supported"):
        jit.load(bad)

    def add_global(items):
        p = json.loads(items["archive/program.json"])
        p["root"]["methods"]["forward"]["globals"]["torch"] = ["fn", "torch.save"]
        items["archive/program.json"] = json.dumps(p).encode()
        return items
    _rewrite(good, bad, add_global)
    with pytest.raises(RuntimeError, match="not allowed"):
        jit.load(bad)

    def shadow_forward(items):
        p = json.loads(items["archive/program.json"])
        p["root"]["attrs"]["forward"] = 1
        items["archive/program.json"] = json.dumps(p).encode()
        return items
    _rewrite(good, bad, inject("y = self._methods"))
    with pytest.raises(RuntimeError, match="reads self._methods, which the module does not hold"):
        jit.load(bad)
    _rewrite(good, bad, inject("y = torch.relu(x)"))   # the gate's program has no `torch` global
    with pytest.raises(RuntimeError, match="not valid TorchScript: undefined value torch"):
        jit.load(bad)
    u = jit.script(_TorchUser())
    u.save(good)
    _rewrite(good, bad, inject("y = torch.get_device_module('cpu')"))
    l = jit.load(bad)   # the name is resolved on use, through the namespace allow-list
    with pytest.raises(AttributeError, match="torch.get_device_module is not supported"):
        l(torch.ones(1))
    _rewrite(good, bad, shadow_forward)
    with pytest.raises(RuntimeError, match="not allowed"):
        jit.load(bad)


# ------------------------------------------------------------------ freeze

def test_freeze_traced_folds_constants():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(4, 3))
            self.b = torch.nn.Parameter(torch.randn(3))

        def forward(self, x):
            return x @ self.w.t().t() * 2 + self.b * 3
    m = M()
    t = jit.trace(m, torch.randn(2, 4))
    with pytest.raises(RuntimeError, match="eval mode"):
        jit.freeze(t)
    with pytest.raises(RuntimeError, match="expects a ScriptModule"):
        jit.freeze(m)
    f = jit.freeze(t.eval())
    kinds = [n.kind for n in f.graph.nodes]
    assert "aten::t" not in kinds                     # weight transposes computed once
    assert not any(k.startswith("aten::mul") and False for k in kinds)
    assert len(kinds) < len([n.kind for n in t.graph.nodes])
    assert list(f.parameters()) == []
    x = torch.randn(5, 4)
    ref = _np(x) @ _np(m.w) * 2 + _np(m.b) * 3
    np.testing.assert_allclose(_np(f(x)), ref, rtol=1e-5, atol=1e-5)


def test_freeze_scripted_and_optimize_for_inference():
    m = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Dropout(0.5), torch.nn.ReLU()).eval()
    t = jit.trace(m, torch.randn(2, 3))
    o = jit.optimize_for_inference(t)
    x = torch.randn(4, 3)
    np.testing.assert_allclose(_np(o(x)), _np(m(x)), rtol=1e-6)
    assert all("dropout" not in n.kind for n in o.graph.nodes)
    s = jit.freeze(jit.script(_Gate()).eval())
    np.testing.assert_allclose(_np(s(-torch.ones(2))), [1.0, 1.0])


def test_export_opnames():
    t = jit.trace(lambda x: torch.relu(x) + 1, torch.randn(2))
    s = jit.script(_Gate())
    assert "aten::relu" in jit.export_opnames(t) and "aten::add.Tensor" in jit.export_opnames(t)
    assert "aten::sum" in jit.export_opnames(s) and "aten::neg" in jit.export_opnames(s)


# ----------------------------------------------------------- torch parity

def test_parity_with_pytorch_trace_and_script():
    pt = pytest.importorskip("torch")
    x = np.random.RandomState(0).randn(3, 4).astype(np.float32)

    def f(mod, a):
        return mod.tanh(a * 2 + 1).sum(dim=1)
    ours = jit.trace(lambda a: f(torchlike, a), torchlike.tensor(x))(torchlike.tensor(x))
    theirs = pt.jit.trace(lambda a: f(pt, a), pt.tensor(x))(pt.tensor(x))
    np.testing.assert_allclose(_np(ours), theirs.numpy(), rtol=1e-6)

    def gate_src(a):
        if a.sum() > 0:
            return a
        return -a
    for v in (x, -x - 5):
        np.testing.assert_allclose(_np(jit.script(gate_src)(torchlike.tensor(v))),
                                   pt.jit.script(gate_src)(pt.tensor(v)).numpy())
    # the traced graphs call the same operators
    def mlp(lib, a):
        return lib.nn.functional.linear(lib.relu(a), lib.ones(5, 4)).softmax(dim=-1)
    ours = jit.trace(lambda a: mlp(torchlike, a), torchlike.tensor(x))
    theirs = pt.jit.trace(lambda a: mlp(pt, a), pt.tensor(x))
    kinds = [n.kind().split("::")[1] for n in theirs.graph.nodes() if n.kind().startswith("aten::")]
    assert [n.kind.split("::")[1].split(".")[0] for n in ours.graph.nodes] == kinds
    np.testing.assert_allclose(_np(ours(torchlike.tensor(-x))), theirs(pt.tensor(-x)).numpy(), rtol=1e-5)
    # both warn the same way when a branch on data is baked in
    def branchy(lib):
        def f(a):
            if a.sum() > 0:
                return a * 2
            return a
        return f
    with pytest.warns(pt.jit.TracerWarning, match="Converting a tensor to a Python boolean"):
        pt.jit.trace(branchy(pt), pt.ones(2))
    with pytest.warns(jit.TracerWarning, match="Converting a tensor to a Python boolean"):
        jit.trace(branchy(torchlike), torchlike.ones(2))
    # the same construct is refused by both
    with pytest.raises(UnsupportedNodeError):
        jit.script(_lambda_fn)
    with pytest.raises(pt.jit.frontend.UnsupportedNodeError):
        pt.jit.script(_lambda_fn)


def test_script_library_layers_save_load_and_class_allow_list(tmp_path):
    import json
    m = torch.nn.Sequential(torch.nn.Conv1d(3, 2, 1), torch.nn.GELU(), torch.nn.MultiheadAttention(5, 1)).eval()
    s = jit.script(m[:2])
    p = str(tmp_path / "c.pt")
    s.save(p)
    x = torch.randn(1, 3, 5)
    np.testing.assert_allclose(_np(jit.load(p)(x)), _np(m[:2](x)), rtol=1e-6)
    mha = jit.script(m[2])
    mha.save(p)
    q = torch.randn(4, 1, 5)
    np.testing.assert_allclose(_np(jit.load(p)(q, q, q)[0]), _np(m[2](q, q, q)[0]), rtol=1e-6)
    # a class outside torchlike.nn's layers is refused by name
    s.save(p)
    bad = str(tmp_path / "b.pt")

    def swap(items):
        prog = json.loads(items["archive/program.json"])
        prog["root"]["children"]["0"]["class"] = "subprocess.Popen"
        items["archive/program.json"] = json.dumps(prog).encode()
        return items
    _rewrite(p, bad, swap)
    with pytest.raises(RuntimeError, match="'subprocess.Popen' is not one of torchlike.nn's"):
        jit.load(bad)


# ------------------------------------------------------------- more trace

def test_trace_inplace_on_input_replays():
    def f(x):
        x.mul_(2)
        return x + 1
    t = jit.trace(f, torch.ones(3), check_trace=False)
    a = torch.arange(3.0)
    r = t(a)
    np.testing.assert_allclose(_np(a), [0.0, 2.0, 4.0])      # the input was mutated, as eagerly
    np.testing.assert_allclose(_np(r), [1.0, 3.0, 5.0])


def test_trace_batchnorm_training_updates_running_stats():
    bn = torch.nn.BatchNorm1d(2)
    t = jit.trace(bn, torch.randn(8, 2), check_trace=False)
    before = _np(bn.running_mean).copy()
    x = torch.randn(16, 2) + 5
    t(x)
    expect = 0.9 * before + 0.1 * _np(x).mean(0)
    np.testing.assert_allclose(_np(bn.running_mean), expect, rtol=1e-5)


def test_check_trace_warns_on_nondeterministic_dropout():
    m = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.5))
    with pytest.warns(jit.TracerWarning, match="does not match"):
        jit.trace(m, torch.randn(64, 4))


def test_trace_gradient_through_scripted_call():
    gate = jit.script(_Gate())
    lin = torch.nn.Linear(2, 2)

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin, self.gate = lin, gate

        def forward(self, x):
            return self.gate(self.lin(x)).sum()
    t = jit.trace(M(), torch.ones(1, 2))
    x = torch.full((1, 2), -10.0)   # the gate negates here: the traced branch was not baked
    t(x).backward()
    sign = 1.0 if _np(lin(x)).sum() > 0 else -1.0
    np.testing.assert_allclose(_np(lin.weight.grad), sign * np.full((2, 2), -10.0), rtol=1e-6)


def test_trace_dict_output_needs_strict_false():
    f = lambda x: {"a": x + 1, "b": x * 2}  # noqa: E731
    with pytest.raises(RuntimeError, match="dict"):
        jit.trace(f, torch.ones(2))
    t = jit.trace(f, torch.ones(2), strict=False)
    r = t(torch.full((2,), 3.0))
    np.testing.assert_allclose(_np(r["a"]), [4.0, 4.0])
    np.testing.assert_allclose(_np(r["b"]), [6.0, 6.0])


def test_traced_module_code_survives_load(tmp_path):
    t = jit.trace(torch.nn.Linear(2, 3), torch.randn(1, 2))
    p = str(tmp_path / "l.pt")
    t.save(p)
    l = jit.load(p)
    assert l.code == t.code and "self.weight" in l.code
    assert str(l.graph) == str(t.graph)


def test_freeze_preserved_attrs():
    t = jit.trace(torch.nn.Linear(2, 2), torch.randn(1, 2)).eval()
    f = jit.freeze(t, preserved_attrs=["bias"])
    assert [n for n, _ in f.named_parameters()] == ["bias"]
    with torch.no_grad():
        f.bias.add_(1.0)          # a preserved parameter is still read at call time
    x = torch.randn(3, 2)
    np.testing.assert_allclose(_np(f(x)), _np(x) @ _np(t.weight).T + _np(t.bias), rtol=1e-5)


# ------------------------------------------------------------ more script

def _loops_fn(x, n: int):
    total = 0
    i = 0
    while True:
        i += 1
        if i > n:
            break
        if i % 2 == 0:
            continue
        total += i
    a, (b, c) = 1, (2, 3)
    sq = [k * k for k in range(4) if k != 2]
    sign = 1.0 if total > 3 else -1.0
    ok = 0 < n <= 10
    return x * total * sign + a + b + c + sum(sq), ok


def test_script_break_continue_unpack_ifexp_comprehension():
    f = jit.script(_loops_fn)
    for n in (0, 3, 6):
        total = sum(i for i in range(1, n + 1) if i % 2)
        sign = 1.0 if total > 3 else -1.0
        r, ok = f(torch.ones(2), n)
        np.testing.assert_allclose(_np(r), np.full(2, total * sign + 6 + (0 + 1 + 9.0)))
        assert ok == (0 < n <= 10)


def _nested_def_fn(x):
    def inner(y):
        return y
    return inner(x)


def _global_fn(x):
    global _SOME_GLOBAL
    return x


def _generator_fn(x):
    return sum(t for t in [x, x])


@pytest.mark.parametrize("fn,match,line_text", [
    (_nested_def_fn, "function definitions aren't supported", "def inner"),
    (_global_fn, "global variables aren't supported", "global _SOME"),
    (_generator_fn, "GeneratorExp aren't supported", "t for t in"),
])
def test_script_more_unsupported(fn, match, line_text):
    with pytest.raises(UnsupportedNodeError, match=match) as ei:
        jit.script(fn)
    assert f"line {_lineno(fn, line_text)}" in str(ei.value)


def test_script_module_dict_and_schema():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = torch.nn.ModuleDict({"a": torch.nn.Linear(2, 1), "b": torch.nn.Linear(2, 1)})

        def forward(self, x, which: str = "a"):
            return self.heads[which](x)
    m = M()
    s = jit.script(m)
    x = torch.randn(3, 2)
    np.testing.assert_allclose(_np(s(x, "b")), _np(m.heads["b"](x)), rtol=1e-6)
    np.testing.assert_allclose(_np(s(x)), _np(m.heads["a"](x)), rtol=1e-6)
    assert s.forward_method().schema == "forward(Tensor x, str which) -> Any"
    with pytest.raises(RuntimeError, match="Expected a value of type 'str' for argument 'which'"):
        s(x, 3)


def test_script_attribute_and_final_constants():
    from typing import Final

    class M(torch.nn.Module):
        scale: Final[float] = 2.5

        def __init__(self):
            super().__init__()
            self.count = jit.Attribute(3, int)

        def forward(self, x):
            return x * self.scale + self.count
    s = jit.script(M())
    np.testing.assert_allclose(_np(s(torch.ones(1))), [5.5])


def test_script_ignored_function_runs_python_and_unused_raises():
    @jit.ignore
    def py_side(x):
        return torch.tensor(x.numpy() * 2)

    @jit.unused
    def never(x):
        return x

    def f(x, flag: bool):
        if flag:
            return never(x)
        return py_side(x)
    s = jit.script(f)
    np.testing.assert_allclose(_np(s(torch.ones(2), False)), [2.0, 2.0])
    with pytest.raises(RuntimeError, match="unused"):
        s(torch.ones(2), True)


_K = 3


def _rich_fn(x, n: int) -> List[torch.Tensor]:
    """A docstring is fine."""
    import_free = torch.jit.annotate(List[torch.Tensor], [])
    assert x.dim() == 1, "needs 1-d"
    if n < 0:
        raise ValueError(f"bad n {n}")
    for _ in range(n):
        import_free.append(torch.nn.functional.relu(x) * math.sqrt(4.0) + _K + x.shape[0])
    return [o * 2 for o in import_free]


def test_script_save_load_rich_function(tmp_path):
    f = jit.script(_rich_fn)
    x = torch.tensor([-1.0, 2.0])
    expect = (np.maximum(_np(x), 0) * 2 + 3 + 2) * 2
    for r in f(x, 2):
        np.testing.assert_allclose(_np(r), expect)
    with pytest.raises(ValueError, match="bad n -1"):
        f(x, -1)
    with pytest.raises(AssertionError, match="needs 1-d"):
        f(torch.ones(2, 2), 1)
    p = str(tmp_path / "rich.pt")
    f.save(p)
    g = jit.load(p)
    assert [_np(r).tolist() for r in g(x, 3)] == [expect.tolist()] * 3
    with pytest.raises(ValueError, match="bad n -1"):
        g(x, -1)
    assert "aten::relu" in jit.export_opnames(g)
