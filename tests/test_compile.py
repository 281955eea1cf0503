"""torchlike.compile: capture, guards and recompiles, graph breaks, fused
pointwise kernels and their backward, the kernel cache across processes,
modules, and the same values and gradients as eager over the op-sample
registry's pointwise operators."""
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import torchlike as tl
from torchlike._compile import reset
from torchlike.utils import cpp_extension as ce

pytestmark = pytest.mark.skipif(not ce.is_ninja_available(), reason="compile builds its kernels with ninja")


@pytest.fixture(autouse=True)
def _kernel_cache(tmp_path_factory, monkeypatch):
    # One kernel cache for the module: tests that build the same kernels share it.
    root = tmp_path_factory.getbasetemp() / "compile_cache"
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(root))
    yield
    reset()


def gelu_chain(x, w, b):
    return tl.nn.functional.gelu(x * w + b) * 0.5


def silu_chain(x, y):
    return x * tl.sigmoid(x) + y


def rand(*shape, grad=False, dtype=tl.float64, seed=0):
    g = np.random.default_rng(seed + len(shape))
    return tl.tensor(g.standard_normal(shape), dtype=dtype).requires_grad_(grad)


def plans(fn):
    return [e.plan for entries in fn._cache.values() for e in entries]


def test_fused_forward_matches_eager_and_numpy():
    x, w, b = rand(64), rand(64, seed=1), rand(64, seed=2)
    c = tl.compile(gelu_chain)
    out = c(x, w, b)                 # the capture run: eager values
    again = c(x, w, b)               # the fused kernel
    (p,) = plans(c)
    assert [n.name for n in p.groups[0].nodes] == ["aten::mul.Tensor", "aten::add.Tensor", "aten::_gelu_erf",
                                                   "aten::mul.Tensor"]
    from math import erf
    xn, wn, bn = x.numpy(), w.numpy(), b.numpy()
    z = xn * wn + bn
    ref = 0.5 * z * (1 + np.vectorize(erf)(z / np.sqrt(2))) * 0.5
    np.testing.assert_allclose(again.numpy(), ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(out.numpy(), again.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("dtype", [tl.float32, tl.float16, tl.bfloat16])
def test_fused_forward_in_reduced_precision(dtype):
    x, y = rand(3, 40, dtype=dtype), rand(40, dtype=dtype, seed=3)
    c = tl.compile(silu_chain)
    c(x, y)
    got = c(x, y)
    assert got.dtype == dtype and plans(c)[0].groups
    ref = silu_chain(x.double(), y.double())
    tol = {tl.float32: 1e-6, tl.float16: 2e-3, tl.bfloat16: 2e-2}[dtype]
    np.testing.assert_allclose(got.double().numpy(), ref.numpy(), rtol=tol, atol=tol)


def test_fused_backward_matches_eager_with_broadcasting():
    x, w, b = rand(4, 5, grad=True), rand(5, grad=True, seed=1), rand(1, grad=True, seed=2)
    c = tl.compile(gelu_chain)
    c(x, w, b)
    out = c(x, w, b)
    assert "_FusedFunctionBackward" in repr(out.grad_fn)
    out.backward(tl.ones_like(out))
    fused = [t.grad.clone() for t in (x, w, b)]
    for t in (x, w, b):
        t.grad = None
    gelu_chain(x, w, b).backward(tl.ones_like(out))
    for f, t in zip(fused, (x, w, b)):
        assert f.shape == t.shape
        np.testing.assert_allclose(f.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-14)
    assert tl.autograd.gradcheck(c, (x, w, b))


def test_input_used_twice_and_grad_of_one_input_only():
    x = rand(30, grad=True)
    y = rand(30, seed=4)              # no grad: the backward computes only x's
    c = tl.compile(silu_chain)
    c(x, y)
    out = c(x, y)
    out.sum().backward()
    s = 1 / (1 + np.exp(-x.detach().numpy()))
    np.testing.assert_allclose(x.grad.numpy(), s + x.detach().numpy() * s * (1 - s), rtol=1e-12)
    assert y.grad is None


@pytest.mark.parametrize("layout", ["broadcast", "contiguous", "transposed", "broadcast_row"])
def test_fused_backward_for_each_layout_of_the_incoming_gradient(layout):
    # sum().backward() hands the kernel one value broadcast (stride 0), which
    # it loads once; other layouts take the contiguous or the strided loop.
    x, y = rand(37, 23, grad=True), rand(37, 23, seed=5)
    c = tl.compile(silu_chain)
    c(x, y)
    out = c(x, y)
    gn = np.random.default_rng(6).standard_normal((37, 23))
    grad = {"broadcast": lambda: tl.tensor(1.5, dtype=tl.float64).expand(37, 23),
            "contiguous": lambda: tl.tensor(gn),
            "transposed": lambda: tl.tensor(gn.T.copy()).t(),
            "broadcast_row": lambda: tl.tensor(np.arange(23.0)).expand(37, 23)}[layout]()
    assert (layout == "contiguous") == grad.is_contiguous()
    out.backward(grad)
    xn = x.detach().numpy()
    s = 1 / (1 + np.exp(-xn))
    np.testing.assert_allclose(x.grad.numpy(), grad.numpy() * (s + xn * s * (1 - s)), rtol=1e-12, atol=1e-14)


def test_guards_recompile_and_the_limit(capfd, monkeypatch):
    monkeypatch.setenv("TORCHLIKE_LOGS", "recompiles")
    c = tl.compile(silu_chain)
    c(rand(8), rand(8))
    c(rand(8), rand(8))
    assert len(plans(c)) == 1
    c(rand(9), rand(9))                            # new shape
    c(rand(9, dtype=tl.float32), rand(9, dtype=tl.float32))   # new dtype
    c(rand(9, grad=True), rand(9))                 # requires_grad
    with tl.no_grad():
        c(rand(9, grad=True), rand(9))             # grad mode
    assert len(plans(c)) == 5
    assert "guard failed" in capfd.readouterr().err
    c2 = tl.compile(silu_chain, recompile_limit=2)
    c2(rand(2), rand(2))
    c2(rand(3), rand(3))
    with pytest.warns(UserWarning, match="hit the recompile limit \\(2\\)"):
        out = c2(rand(4), rand(4))
    assert len(plans(c2)) == 2 and out.shape == (4,)


def test_graph_break_runs_eagerly_and_fullgraph_raises(capfd, monkeypatch):
    monkeypatch.setenv("TORCHLIKE_LOGS", "graph_breaks")

    def branchy(x):
        if x.sum() > 0:
            return x * 2 + 1
        return x * 3 - 1
    c = tl.compile(branchy)
    pos, neg = tl.ones(3), -tl.ones(3)
    assert c(pos).tolist() == [3.0] * 3 and c(neg).tolist() == [-4.0] * 3
    err = capfd.readouterr().err
    assert "graph_breaks" in err and "control flow may depend on data" in err
    with pytest.raises(RuntimeError, match="fullgraph=True.*cannot be captured as one graph"):
        tl.compile(branchy, fullgraph=True)(pos)


def test_non_fusible_calls_run_eagerly_between_groups():
    def f(x, w):
        h = tl.tanh(x @ w) * 2 + 1          # matmul, then a fused group
        return h.sum(dim=1) * h.mean()      # reductions stay eager
    x, w = rand(3, 4, grad=True), rand(4, 5, grad=True, seed=1)
    c = tl.compile(f)
    c(x, w)
    out = c(x, w)
    ref = f(x, w)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-12)
    (gx, gw) = tl.autograd.grad(out.sum(), (x, w))
    (rx, rw) = tl.autograd.grad(ref.sum(), (x, w))
    np.testing.assert_allclose(gx.numpy(), rx.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gw.numpy(), rw.numpy(), rtol=1e-12)
    assert len(plans(c)[0].groups) == 1


def test_module_wrapper_parameters_and_mode():
    m = tl.nn.Sequential(tl.nn.Linear(6, 8), tl.nn.GELU(), tl.nn.Dropout(0.5), tl.nn.Linear(8, 2))
    c = tl.compile(m)
    assert isinstance(c, tl.nn.Module) and c._orig_mod is m
    assert list(c.state_dict()) == ["_orig_mod." + k for k in m.state_dict()]
    m.eval()
    x = rand(5, 6, dtype=tl.float32)
    np.testing.assert_allclose(c(x).detach().numpy(), m(x).detach().numpy(), rtol=1e-6)
    # a parameter updated in place is seen by the compiled graph (used by reference)
    with tl.no_grad():
        m[0].bias.add_(1.0)
    np.testing.assert_allclose(c(x).detach().numpy(), m(x).detach().numpy(), rtol=1e-6)
    # train() is a different graph (dropout on): a recompile, not a stale graph
    m.train()
    tl.manual_seed(0)
    y = c(x)
    assert y.shape == (5, 2)
    n_before = len(plans(c._compiled_call))
    m.double()                                   # parameters change dtype: recompile
    c(x.double())
    assert len(plans(c._compiled_call)) == n_before + 1


def test_training_loop_matches_eager():
    def make():
        tl.manual_seed(0)
        return tl.nn.Sequential(tl.nn.Linear(4, 16), tl.nn.SiLU(), tl.nn.Linear(16, 1))
    data = rand(32, 4, dtype=tl.float32)
    target = rand(32, 1, dtype=tl.float32, seed=9)
    losses = []
    for compiled in (False, True):
        m = make()
        step_model = tl.compile(m) if compiled else m
        opt = tl.optim.SGD(m.parameters(), lr=0.1)
        out = []
        for _ in range(5):
            opt.zero_grad()
            loss = ((step_model(data) - target) ** 2).mean()
            loss.backward()
            opt.step()
            out.append(loss.item())
        losses.append(out)
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-5)


def test_errors():
    with pytest.raises(RuntimeError, match="expected a function or an nn.Module"):
        tl.compile(3)
    with pytest.raises(RuntimeError, match="Unrecognized mode=fastest"):
        tl.compile(silu_chain, mode="fastest")
    with pytest.raises(RuntimeError, match="Either mode or options"):
        tl.compile(silu_chain, mode="default", options={})
    with pytest.raises(ValueError, match="unknown backend 'nope'"):
        tl.compile(silu_chain, backend="nope")
    assert tl.compile(silu_chain, disable=True) is silu_chain
    deco = tl.compile(fullgraph=True)(silu_chain)
    assert deco(tl.ones(2), tl.ones(2)).shape == (2,)
    eager = tl.compile(silu_chain, backend="eager")
    eager(rand(3), rand(3))
    assert plans(eager)[0].groups == []


def test_second_process_reuses_the_built_kernels(tmp_path):
    script = textwrap.dedent("""
        import time, torchlike as tl
        def f(x, y):
            return x * tl.sigmoid(x) + y
        c = tl.compile(f)
        x = tl.ones(10)
        c(x, x)
        t0 = time.perf_counter()
        c2 = tl.compile(f)
        c2(x, x)
        print(f"{time.perf_counter() - t0:.3f}")
    """)
    env = dict(os.environ, TORCH_EXTENSIONS_DIR=str(tmp_path / "cache"), TORCHLIKE_LOGS="")
    first = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr[-2000:]
    ninja_files = list((tmp_path / "cache").rglob("build.ninja"))
    assert len(ninja_files) == 1
    built = [p.stat().st_mtime for p in (tmp_path / "cache").rglob("*.so")]
    second = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr[-2000:]
    assert [p.stat().st_mtime for p in (tmp_path / "cache").rglob("*.so")] == built  # nothing rebuilt


# ---------------------------------------------------------------- the op-sample registry

def _registry_cases():
    from tests.opinfo import OPS
    from torchlike._compile.formulas import pointwise_table
    table = pointwise_table()
    names = {q.split("::")[1].split(".")[0] for q in table}
    cases = []
    for op in OPS:
        base = op.name.split(".")[-1]
        if base not in names or "float64" not in op.dtypes or not op.grad:
            continue
        for s in op.samples("float64"):
            arrays = [a for a in s.args if isinstance(a, np.ndarray)]
            if not arrays or any(a.dtype != np.float64 or a.size == 0 for a in arrays):
                continue
            cases.append((op, s))
            break
    return cases


def test_registry_pointwise_ops_match_eager_values_and_gradients():
    """Each pointwise op of the registry, followed by two more pointwise
    calls so that it is fused, in one compiled function (one kernel build):
    the same values and the same gradients as eager."""
    from tests.opinfo.core import resolve
    cases = _registry_cases()
    assert len(cases) >= 40, len(cases)
    inputs, pos_calls = [], []
    for op, s in cases:
        kinds = []
        for a in s.args:
            if isinstance(a, np.ndarray):
                kinds.append(("T", len(inputs)))
                inputs.append(tl.tensor(a).requires_grad_(True))
            else:
                kinds.append(("C", a))
        pos_calls.append((op.name, resolve(op.name), kinds, s.kwargs))

    def f(*ts):
        outs = []
        for _, fn, kinds, kwargs in pos_calls:
            args = [ts[v] if kind == "T" else v for kind, v in kinds]
            outs.append(fn(*args, **kwargs) * 1.25 + 0.5)
        return outs

    c = tl.compile(f)
    c(*inputs)
    got = c(*inputs)
    (p,) = plans(c)
    fused_names = {n.name for g in p.groups for n in g.nodes}
    assert len(p.groups) >= len(cases) * 3 // 4, [g.describe() for g in p.groups]
    ref = f(*inputs)
    for (name, *_), a, b in zip(pos_calls, got, ref):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12, err_msg=name)
    weights = [tl.full_like(r, 0.5 + k / len(ref)) for k, r in enumerate(ref)]
    g_got = tl.autograd.grad(got, inputs, weights, allow_unused=True)
    g_ref = tl.autograd.grad(ref, inputs, weights, allow_unused=True)
    for k, (a, b) in enumerate(zip(g_got, g_ref)):
        if b is None:
            assert a is None or not a.abs().sum().item()
            continue
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-11, err_msg=f"input {k}")
    assert fused_names
