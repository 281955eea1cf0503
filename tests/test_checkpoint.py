"""torchlike.utils.checkpoint: gradients identical to the uncheckpointed
computation, RNG replay, memory, both variants' argument rules, and the
helper names."""
import contextlib
import gc
import warnings
import weakref

import numpy as np
import pytest

import torchlike as tl
from torchlike.utils import checkpoint as C

VARIANTS = [True, False]


def make_params(seed=0):
    tl.manual_seed(seed)
    return tl.randn(6, 6, requires_grad=True), tl.randn(6, requires_grad=True)


def block(w, b):
    def run(x, scale=1.0):
        h = (x @ w + b).tanh()
        h = tl.nn.functional.dropout(h, 0.5, training=True)
        return (h * scale).exp().sum(dim=1)
    return run


def grads_of(fn, x, params, seed=7):
    for p in params + [x]:
        p.grad = None
    tl.manual_seed(seed)
    out = fn(x)
    out.sum().backward()
    return out.detach(), [p.grad.clone() for p in params + [x]]


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_gradients_match_exactly_with_dropout(reentrant):
    w, b = make_params()
    x = tl.randn(4, 6, requires_grad=True)
    run = block(w, b)
    ref_out, ref_grads = grads_of(run, x, [w, b])
    out, grads = grads_of(lambda a: C.checkpoint(run, a, use_reentrant=reentrant), x, [w, b])
    assert tl.equal(out, ref_out)
    for g, r in zip(grads, ref_grads):
        assert tl.equal(g, r)


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_rng_stream_continues_as_without_checkpoint(reentrant):
    w, b = make_params()
    x = tl.randn(4, 6, requires_grad=True)
    run = block(w, b)
    tl.manual_seed(3)
    run(x).sum().backward()
    after_plain = tl.rand(5)
    tl.manual_seed(3)
    C.checkpoint(run, x, use_reentrant=reentrant).sum().backward()
    assert tl.equal(tl.rand(5), after_plain)  # recomputation's draws were undone


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_without_preserve_rng_state_the_mask_changes(reentrant):
    w, b = make_params()
    x = tl.randn(64, 6, requires_grad=True)
    run = block(w, b)
    _, ref = grads_of(run, x, [w, b])
    _, got = grads_of(lambda a: C.checkpoint(run, a, use_reentrant=reentrant, preserve_rng_state=False), x, [w, b])
    assert not tl.equal(got[0], ref[0])


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_intermediates_are_not_kept_alive(reentrant):
    kept = []

    def fn(x):
        # mul saves its other operand for x's gradient: a tensor over a NumPy
        # buffer, whose lifetime a weak reference can watch.
        buffer = np.linspace(0.5, 2.0, 100).astype(np.float32)
        kept.append(weakref.ref(buffer))
        return (x * tl.from_numpy(buffer)).sin()

    x = tl.randn(100, requires_grad=True)
    plain = fn(x)
    gc.collect()
    assert kept[0]() is not None  # the graph holds the saved operand
    out = C.checkpoint(fn, x, use_reentrant=reentrant)
    gc.collect()
    assert kept[1]() is None      # the checkpoint does not
    out.sum().backward()
    g_ckpt = x.grad.clone()
    x.grad = None
    plain.sum().backward()
    assert tl.equal(g_ckpt, x.grad)


def test_non_reentrant_kwargs_structures_and_inputs_without_grad():
    w, b = make_params()
    run = block(w, b)
    x = tl.randn(3, 6)  # does not require grad: parameters still get gradients
    tl.manual_seed(1)
    ref = run(x, scale=2.0)
    ref.sum().backward()
    ref_w = w.grad.clone()
    w.grad = None
    tl.manual_seed(1)
    out = C.checkpoint(run, x, use_reentrant=False, scale=2.0)
    out.sum().backward()
    assert tl.equal(out, ref) and tl.equal(w.grad, ref_w)

    y = tl.randn(3, requires_grad=True)
    res = C.checkpoint(lambda a: {"double": a * 2, "n": 5, "pair": [a.sin(), "s"]}, y, use_reentrant=False)
    assert res["n"] == 5 and res["pair"][1] == "s"
    (res["double"].sum() + res["pair"][0].sum()).backward()
    assert np.allclose(y.grad.numpy(), 2 + np.cos(y.detach().numpy()))


def test_non_reentrant_works_with_autograd_grad_and_double_backward():
    w, b = make_params()
    x = tl.randn(2, 6, requires_grad=True)
    out = C.checkpoint(lambda a: (a @ w).pow(3).sum(), x, use_reentrant=False)
    gx, gw = tl.autograd.grad(out, [x, w])
    ref_gx, ref_gw = tl.autograd.grad((x @ w).pow(3).sum(), [x, w])
    assert tl.equal(gx, ref_gx) and tl.equal(gw, ref_gw)
    assert w.grad is None  # autograd.grad does not accumulate

    z = tl.tensor([0.5, -1.0, 2.0], dtype=tl.float64, requires_grad=True)
    y = C.checkpoint(lambda a: a.pow(3), z, use_reentrant=False)
    (g,) = tl.autograd.grad(y.sum(), z, create_graph=True)
    g.sum().backward()
    assert np.allclose(z.grad.numpy(), 6 * z.detach().numpy())


def test_nested_checkpoints():
    w, b = make_params()
    x = tl.randn(2, 6, requires_grad=True)

    def inner(a):
        return (a @ w).tanh()

    def outer(a):
        return C.checkpoint(inner, a, use_reentrant=False).exp()

    out = C.checkpoint(outer, x, use_reentrant=False)
    out.sum().backward()
    got = (x.grad.clone(), w.grad.clone())
    x.grad = w.grad = None
    (x @ w).tanh().exp().sum().backward()
    assert tl.equal(got[0], x.grad) and tl.equal(got[1], w.grad)


def test_reentrant_rules_and_warnings():
    x = tl.randn(3, requires_grad=True)
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        y = C.checkpoint(tl.sin, x)
    assert y.grad_fn.name() == "CheckpointFunctionBackward"
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True. Gradients will be None"):
        C.checkpoint(tl.sin, tl.randn(3), use_reentrant=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        C.checkpoint(tl.sin, x, use_reentrant=True, foo=1)
    with pytest.raises(ValueError, match="Passing `context_fn` or `debug` is only supported when use_reentrant=False"):
        C.checkpoint(tl.sin, x, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match=r"determinism_check should be one of \['default', 'none'\], but got x"):
        C.checkpoint(tl.sin, x, use_reentrant=False, determinism_check="x")
    out, n = C.checkpoint(lambda a: (a * 2, 5), x, use_reentrant=True)
    assert n == 5 and out.requires_grad


def test_reentrant_refuses_autograd_grad_and_backward_inputs():
    x = tl.randn(3, requires_grad=True)
    message = "When use_reentrant=True, torchlike.utils.checkpoint is incompatible with .grad()"
    with pytest.raises(RuntimeError, match=message):
        tl.autograd.grad(C.checkpoint(tl.exp, x, use_reentrant=True).sum(), x)
    with pytest.raises(RuntimeError, match=message):
        C.checkpoint(tl.exp, x, use_reentrant=True).sum().backward(inputs=[x])
    # Nested in a non-reentrant region (whose backward uses autograd.grad
    # internally) it still runs under a plain backward.
    y = C.checkpoint(lambda a: C.checkpoint(tl.exp, a, use_reentrant=True) * 2, x, use_reentrant=False)
    y.sum().backward()
    assert np.allclose(x.grad.numpy(), 2 * np.exp(x.detach().numpy()))


def test_determinism_check_and_debug():
    calls = []

    def changing(a):
        calls.append(1)
        return a.sin() if len(calls) == 1 else a[:2].sin()

    x = tl.randn(3, requires_grad=True)
    y = C.checkpoint(changing, x, use_reentrant=False)
    with pytest.raises(C.CheckpointError, match=r"(?s)different metadata than during the forward pass.*tensor at "
                                                  r"position 0:.*shape.: torchlike.Size\(\[3\]\).*Size\(\[2\]\)"):
        y.sum().backward()
    calls.clear()
    with C.set_checkpoint_debug_enabled(True):
        y = C.checkpoint(changing, x, use_reentrant=False)
    with pytest.raises(C.CheckpointError, match="(?s)Operations recorded during the original forward.*SinBackward0"):
        y.sum().backward()

    counter = []

    def value_changes(a):
        counter.append(1)
        return a * len(counter)

    y = C.checkpoint(value_changes, x, use_reentrant=False, determinism_check="none")
    y.sum().backward()  # metadata agree: no error, the recomputed graph is used
    assert len(counter) == 2


def test_context_fn_wraps_forward_and_recomputation():
    events = []

    @contextlib.contextmanager
    def tag(name):
        events.append(name)
        yield

    x = tl.randn(2, requires_grad=True)
    y = C.checkpoint(tl.exp, x, use_reentrant=False, context_fn=lambda: (tag("forward"), tag("recompute")))
    assert events == ["forward"]
    y.sum().backward()
    assert events == ["forward", "recompute"]


def test_graph_exec_group_recomputes_once():
    runs = []

    def fn(a):
        runs.append(1)
        return a.exp(), a.sin()

    x = tl.randn(3, requires_grad=True)
    first, second = C.checkpoint(fn, x, use_reentrant=False)
    with C.GraphExecGroup() as group:
        assert C.GraphExecGroup._get_current_group() is group
        first.sum().backward(retain_graph=True)
        second.sum().backward()
    assert len(runs) == 2  # forward + one recomputation
    assert np.allclose(x.grad.numpy(), np.exp(x.detach().numpy()) + np.cos(x.detach().numpy()))
    assert C.GraphExecGroup._get_current_group() is None


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_checkpoint_sequential_matches_plain(reentrant):
    tl.manual_seed(0)
    weights = [tl.randn(5, 5, requires_grad=True) for _ in range(5)]
    layers = [(lambda w: (lambda a: (a @ w).tanh()))(w) for w in weights]
    x = tl.randn(2, 5, requires_grad=True)
    out = x
    for f in layers:
        out = f(out)
    out.sum().backward()
    ref = [w.grad.clone() for w in weights] + [x.grad.clone()]
    for w in weights:
        w.grad = None
    x.grad = None
    got = C.checkpoint_sequential(layers, 2, x, use_reentrant=reentrant)
    assert tl.equal(got, out.detach())
    got.sum().backward()
    for g, r in zip([w.grad for w in weights] + [x.grad], ref):
        assert tl.equal(g, r)


def test_checkpoint_sequential_arguments():
    class Chain:
        def __init__(self, fns):
            self.fns = fns

        def children(self):
            return iter(self.fns)

    x = tl.randn(3, requires_grad=True)
    fns = [tl.sin, tl.cos, tl.exp]
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant parameter should be passed"):
        out = C.checkpoint_sequential(Chain(fns), 3, x)
    assert tl.equal(out, x.sin().cos().exp())
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        C.checkpoint_sequential(fns, 1, x, use_reentrant=True, foo=1)
    with pytest.raises(ValueError):
        C.checkpoint_sequential(fns, 5, x, use_reentrant=True)


def test_helpers():
    x = tl.randn(2, requires_grad=True)
    d = C.detach_variable((x, 1))
    assert d[1] == 1 and d[0].requires_grad and d[0].grad_fn is None and d[0] is not x
    with pytest.raises(RuntimeError, match="Only tuple of tensors is supported. Got Unsupported input type: list"):
        C.detach_variable([x])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        C.check_backward_validity([x])
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        C.check_backward_validity([tl.ones(1), 3])
    if not tl.cuda.is_available():
        assert C.get_device_states(x, [x]) == ([], [])
        assert C.DefaultDeviceType.get_device_type() == "cpu"
    C.set_device_states([], [])
    fwd, rec = C.noop_context_fn()
    with fwd, rec:
        pass
    C.DefaultDeviceType.set_device_type("cuda")
    try:
        assert C.DefaultDeviceType.get_device_type() == "cuda"
    finally:
        C.DefaultDeviceType._default_device_type = None
    with C.set_checkpoint_early_stop(False):
        assert C._flags["early_stop"] is False
    assert C._flags["early_stop"] is True
    with C.set_checkpoint_debug_enabled(False):
        assert C._flags["debug"] is False
    assert C._flags["debug"] is None
    assert issubclass(C.CheckpointError, RuntimeError)
    assert [p.name for p in C.CheckpointPolicy][:4] == ["MUST_SAVE", "PREFER_SAVE", "MUST_RECOMPUTE",
                                                         "PREFER_RECOMPUTE"]
    assert C.SelectiveCheckpointContext(is_recompute=True).is_recompute


def test_checkpoint_function_apply_directly():
    x = tl.randn(3, requires_grad=True)
    y = C.CheckpointFunction.apply(lambda a: a.exp(), True, x)
    y.sum().backward()
    assert np.allclose(x.grad.numpy(), np.exp(x.detach().numpy()))


def test_no_grad_mode_just_runs():
    x = tl.randn(3, requires_grad=True)
    with tl.no_grad():
        for reentrant in VARIANTS:
            y = C.checkpoint(tl.exp, x, use_reentrant=reentrant)
            assert not y.requires_grad and tl.equal(y, x.detach().exp())
