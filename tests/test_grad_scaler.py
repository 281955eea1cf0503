"""GradScaler (torchlike.amp.grad_scaler) and its fused operators
_amp_foreach_non_finite_check_and_unscale_ and _amp_update_scale_.

The operators are checked against NumPy and the exact update rule; the
scaler against the documented iteration (scale, unscale_, step, update), its
state machine and error messages, and, when PyTorch is installed, against
torch.amp.GradScaler("cpu") over a short training run."""
import io
import pickle
import warnings

import numpy as np
import pytest

import torchlike as tl
from torchlike.amp.grad_scaler import GradScaler, OptState, _CpuGradScaler, _CudaGradScaler

from conftest import requires_torch

unscale_ = tl._amp_foreach_non_finite_check_and_unscale_
update_scale_ = tl._amp_update_scale_

FLOATS = ["float32", "float64", "float16", "bfloat16"]


# ---------------------------------------------------------------------------- helpers
def _bf16_round(x32):
    """float32 -> nearest bfloat16 (ties to even), returned as float32 (finite inputs)."""
    bits = np.asarray(x32, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return rounded.astype(np.uint32).view(np.float32)


def _expected_unscaled(values32, dtype, inv):
    """What one unscale does to `values32` (already representable in dtype):
    multiply in float32 (float64 for double grads), round to the grad dtype."""
    if dtype == "float64":
        return values32.astype(np.float64) * np.float64(np.float32(inv))
    prod = values32.astype(np.float32) * np.float32(inv)
    if dtype == "float16":
        return prod.astype(np.float16).astype(np.float32)
    if dtype == "bfloat16":
        return _bf16_round(prod)
    return prod


def _representable(a32, dtype):
    if dtype == "float16":
        return a32.astype(np.float16).astype(np.float32)
    if dtype == "bfloat16":
        return _bf16_round(a32)
    return a32


def _grad(values, dtype):
    return tl.tensor(np.asarray(values, dtype=np.float32)).to(getattr(tl, dtype))


def _np(t):
    return t.float().numpy() if t.dtype in (tl.float16, tl.bfloat16) else t.numpy()


def _flag(value=0.0):
    return tl.full((1,), value)


def _inv(value):
    return tl.full((1,), value)


# ---------------------------------------------------------------------------- the unscale op
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("inv", [0.5, 2.0 ** -16, 1.0 / 3.0, 1.0])
def test_unscale_values_against_numpy(dtype, inv):
    rs = np.random.RandomState(7)
    raw = [_representable(rs.uniform(-1e3, 1e3, size=s).astype(np.float32), dtype) for s in [(5, 3), (17,), ()]]
    grads = [_grad(a, dtype) for a in raw]
    found = _flag()
    assert unscale_(grads, found, _inv(inv)) is None
    for g, a in zip(grads, raw):
        assert g.dtype == getattr(tl, dtype)
        np.testing.assert_array_equal(_np(g), _expected_unscaled(a, dtype, inv))
    assert found.item() == 0.0


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("bad", [float("inf"), float("-inf"), float("nan")])
@pytest.mark.parametrize("where", [0, 5, 11])
def test_unscale_records_non_finite(dtype, bad, where):
    values = np.arange(12, dtype=np.float32) - 6
    values[where] = bad
    g = _grad(values, dtype)
    clean = _grad(np.ones(4, np.float32), dtype)
    found = _flag()
    unscale_([clean, g], found, _inv(0.5))
    assert found.item() == 1.0
    out = _np(g)
    # Every element is unscaled whatever the verdict; the bad one stays bad.
    finite = np.isfinite(values)
    np.testing.assert_array_equal(out[finite], values[finite] * 0.5)
    assert np.isnan(out[where]) if np.isnan(bad) else out[where] == bad
    np.testing.assert_array_equal(_np(clean), np.full(4, 0.5, np.float32))


def test_unscale_found_inf_only_from_inputs_and_never_cleared():
    # An input that overflows when multiplied is not "non-finite" (the
    # check is on the gradient as it arrived).
    g = tl.tensor([1e30])
    found = _flag()
    unscale_([g], found, _inv(1e10))
    assert found.item() == 0.0 and g.item() == float("inf")
    h = tl.tensor([65504.0], dtype=tl.float16)
    unscale_([h], found, _inv(2.0))
    assert found.item() == 0.0 and h.float().item() == float("inf")
    # A flag already set stays set; one with another value is left alone
    # when everything is finite and becomes 1.0 otherwise.
    preset = _flag(1.0)
    unscale_([tl.ones(3)], preset, _inv(0.5))
    assert preset.item() == 1.0
    odd = _flag(0.25)
    unscale_([tl.ones(3)], odd, _inv(0.5))
    assert odd.item() == 0.25
    unscale_([tl.tensor([float("nan")])], odd, _inv(0.5))
    assert odd.item() == 1.0


def test_unscale_accumulates_over_calls_and_mixed_dtypes():
    found = _flag()
    a = tl.ones(3, dtype=tl.float64)
    b = tl.tensor([1.0, float("inf")], dtype=tl.bfloat16)
    c = tl.ones(2, dtype=tl.float16)
    unscale_([a, c], found, _inv(0.25))
    assert found.item() == 0.0
    unscale_([b, a], found, _inv(0.25))
    assert found.item() == 1.0
    np.testing.assert_array_equal(a.numpy(), np.full(3, 0.0625))
    np.testing.assert_array_equal(_np(c), np.full(2, 0.25, np.float32))


@pytest.mark.parametrize("dtype", FLOATS)
def test_unscale_non_contiguous(dtype):
    rs = np.random.RandomState(3)
    base = _representable(rs.uniform(-8, 8, size=(6, 10)).astype(np.float32), dtype)
    full = _grad(base, dtype)
    views = [full.t(), full[::2, 1::3]]
    expected = base.copy()
    # The transpose covers everything once; the strided view on top gets a
    # second multiplication. Checked against NumPy doing the same in order.
    expected = _representable(_expected_unscaled(expected, dtype, 0.5), dtype)
    sub = expected[::2, 1::3]
    expected[::2, 1::3] = _expected_unscaled(sub, dtype, 0.5)
    found = _flag()
    unscale_(views, found, _inv(0.5))
    np.testing.assert_array_equal(_np(full), expected)
    assert found.item() == 0.0
    # A non-finite value reached only through a strided view is seen.
    full2 = _grad(base, dtype)
    full2[4, 7] = float("nan")
    found2 = _flag()
    unscale_([full2[::2, 1::3]], found2, _inv(1.0))
    assert found2.item() == 1.0


def test_unscale_large_tensors_split_across_threads():
    # Past the parallel grain: a non-finite value in the last chunk, in the
    # contiguous and the strided loop.
    n = 200_003
    values = np.linspace(-3, 3, n).astype(np.float32)
    g = tl.tensor(values)
    found = _flag()
    unscale_([g], found, _inv(0.125))
    np.testing.assert_array_equal(g.numpy(), values * np.float32(0.125))
    assert found.item() == 0.0
    values[-2] = np.inf
    g = tl.tensor(values)
    unscale_([g], found, _inv(0.125))
    assert found.item() == 1.0
    wide = tl.tensor(np.ones((2, n), np.float32))
    wide[0, n - 1] = float("-inf")
    found = _flag()
    unscale_([wide.t()], found, _inv(0.5))
    assert found.item() == 1.0
    np.testing.assert_array_equal(wide[1].numpy(), np.full(n, 0.5, np.float32))


def test_unscale_edge_arguments():
    # Empty list: nothing is checked or done (an optimizer without grads).
    unscale_([], tl.zeros(2, dtype=tl.float64), _inv(0.5))
    # Zero-size gradients, 0-dim flag and scale are fine.
    found = tl.zeros(())
    unscale_([tl.ones(0), tl.ones(2)], found, tl.tensor(0.5))
    assert found.item() == 0.0
    # inv_scale is read once, before the gradients are written (it may be one of them).
    inv = tl.tensor([0.5])
    g = tl.ones(4)
    unscale_([g, inv], _flag(), inv)
    np.testing.assert_array_equal(g.numpy(), np.full(4, 0.5, np.float32))
    assert inv.item() == 0.25
    # Overlapping views are processed one after the other.
    b = tl.ones(4)
    unscale_([b[:3], b[1:]], _flag(), _inv(0.5))
    np.testing.assert_array_equal(b.numpy(), [0.5, 0.25, 0.25, 0.5])
    # Keyword arguments by the schema's names.
    g = tl.ones(2)
    unscale_([g], found_inf=_flag(), inv_scale=_inv(0.5))
    assert g[0].item() == 0.5


def test_unscale_bumps_versions():
    g = tl.ones(3)
    found = _flag()
    v_g, v_f = g._version, found._version
    unscale_([g], found, _inv(0.5))
    assert g._version > v_g and found._version == v_f
    g[0] = float("inf")
    v_f = found._version
    unscale_([g], found, _inv(0.5))
    assert found._version > v_f


@pytest.mark.parametrize("args, message", [
    (lambda: ([tl.ones(2)], tl.zeros(2), tl.ones(2)), "inv_scale must be a 1-element tensor."),
    (lambda: ([tl.ones(2)], tl.zeros(2, dtype=tl.float64), tl.ones(1)), "found_inf must be a 1-element tensor."),
    (lambda: ([tl.ones(2)], tl.zeros(1, dtype=tl.float64), tl.ones(1, dtype=tl.float64)),
     "inv_scale must be a float tensor."),
    (lambda: ([tl.ones(2)], tl.zeros(1, dtype=tl.bfloat16), tl.ones(1)), "found_inf must be a float tensor."),
    (lambda: ([tl.ones(2)], tl.zeros(1, dtype=tl.int32), tl.ones(1)), "found_inf must be a float tensor."),
])
def test_unscale_argument_errors(args, message):
    grads, found, inv = args()
    with pytest.raises(RuntimeError) as e:
        unscale_(grads, found, inv)
    assert str(e.value).startswith(message)


@pytest.mark.parametrize("dtype, name", [("int64", "Long"), ("int32", "Int"), ("bool", "Bool")])
def test_unscale_refuses_non_floating_grads_before_touching_any(dtype, name):
    first = tl.ones(3)
    bad = tl.ones(2, dtype=getattr(tl, dtype))
    with pytest.raises(NotImplementedError, match=f'"_amp_foreach_non_finite_check_and_unscale_cpu" '
                                                  f"not implemented for '{name}'"):
        unscale_([first, bad], _flag(), _inv(0.5))
    np.testing.assert_array_equal(first.numpy(), np.ones(3, np.float32))


def test_unscale_refuses_expanded_grads():
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        unscale_([tl.ones(1).expand(3)], _flag(), _inv(0.5))


def test_unscale_meta():
    # Shape-only tensors pass the checks and nothing is computed.
    g = tl.ones(3, device="meta")
    unscale_([g], tl.zeros(1, device="meta"), tl.ones(1, device="meta"))
    with pytest.raises(RuntimeError, match="found_inf must be a 1-element tensor."):
        unscale_([g], tl.zeros(2, device="meta"), tl.ones(1, device="meta"))
    cpu_grad = tl.ones(2)
    unscale_([cpu_grad], tl.zeros(1, device="meta"), _inv(0.5))
    np.testing.assert_array_equal(cpu_grad.numpy(), np.ones(2, np.float32))


# ---------------------------------------------------------------------------- the update op
def _reference_update(scale, tracker, found, growth, backoff, interval):
    """The update rule on plain numbers: products in double rounded to float32,
    the counter an int32."""
    if found != 0 or np.isnan(found):
        return float(np.float32(np.float64(scale) * backoff)), 0
    clean = tracker + 1
    if clean == interval:
        grown = np.float32(np.float64(scale) * growth)
        return (float(grown) if np.isfinite(grown) else scale), 0
    return scale, int(np.int64(clean).astype(np.int32))


def test_update_scale_sequence_against_reference():
    rs = np.random.RandomState(11)
    scale, tracker = tl.full((1,), 1024.0), tl.zeros(1, dtype=tl.int32)
    ref = (1024.0, 0)
    for step in range(60):
        found = [0.0, 0.0, 0.0, 1.0, float("nan"), 0.5][rs.randint(6)] if step % 4 == 3 else 0.0
        growth, backoff, interval = [(2.0, 0.5, 3), (1.7, 0.1, 2), (3.0, 0.37, 1)][step % 3]
        out = update_scale_(scale, tracker, tl.tensor([found]), growth, backoff, interval)
        assert out is scale
        ref = _reference_update(ref[0], ref[1], found, growth, backoff, interval)
        assert scale.item() == ref[0] and tracker.item() == ref[1], step


def test_update_scale_rules():
    s, t = tl.full((1,), 8.0), tl.zeros(1, dtype=tl.int32)
    for expected in [(8.0, 1), (8.0, 2), (16.0, 0), (16.0, 1)]:
        update_scale_(s, t, tl.zeros(1), 2.0, 0.5, 3)
        assert (s.item(), t.item()) == expected
    update_scale_(s, t, tl.ones(1), 2.0, 0.5, 3)  # overflow: back off, restart the count
    assert (s.item(), t.item()) == (8.0, 0)
    # Growth that would overflow float32 keeps the scale (and restarts the count).
    big, t = tl.full((1,), 2.0 ** 127), tl.zeros(1, dtype=tl.int32)
    update_scale_(big, t, tl.zeros(1), 2.0, 0.5, 1)
    assert big.item() == 2.0 ** 127 and t.item() == 0
    # An interval the counter never equals (0, negative, huge) never grows.
    for interval in (0, -1, 2 ** 40):
        s, t = tl.full((1,), 4.0), tl.zeros(1, dtype=tl.int32)
        for _ in range(3):
            update_scale_(s, t, tl.zeros(1), 2.0, 0.5, interval)
        assert s.item() == 4.0 and t.item() == 3
    # The int32 counter wraps around.
    s, t = tl.ones(1), tl.full((1,), 2 ** 31 - 1, dtype=tl.int32)
    update_scale_(s, t, tl.zeros(1), 2.0, 0.5, 5)
    assert t.item() == -(2 ** 31)
    # 0-dim state tensors (what GradScaler keeps) and keyword arguments.
    s, t = tl.tensor(3.0), tl.tensor(0, dtype=tl.int32)
    update_scale_(s, growth_tracker=t, found_inf=tl.tensor(1.0), scale_growth_factor=2.0,
                  scale_backoff_factor=0.1, growth_interval=4)
    assert s.item() == float(np.float32(3.0 * 0.1))


@pytest.mark.parametrize("args, message", [
    ((tl.ones(2), tl.zeros(2), tl.zeros(2)), "growth_tracker must be a 1-element tensor."),
    ((tl.ones(2), tl.zeros(1), tl.zeros(2)), "current_scale must be a 1-element tensor."),
    ((tl.ones(1, dtype=tl.float64), tl.zeros(1, dtype=tl.int32), tl.zeros(2)),
     "found_inf must be a 1-element tensor."),
    ((tl.ones(1, dtype=tl.float64), tl.zeros(1), tl.zeros(1)), "growth_tracker must be an int tensor."),
    ((tl.ones(1), tl.zeros(1, dtype=tl.int64), tl.zeros(1)), "growth_tracker must be an int tensor."),
    ((tl.ones(1, dtype=tl.float16), tl.zeros(1, dtype=tl.int32), tl.zeros(1, dtype=tl.float64)),
     "current_scale must be a float tensor."),
    ((tl.ones(1), tl.zeros(1, dtype=tl.int32), tl.zeros(1, dtype=tl.float64)), "found_inf must be a float tensor."),
])
def test_update_scale_argument_errors(args, message):
    with pytest.raises(RuntimeError) as e:
        update_scale_(*args, 2.0, 0.5, 1)
    assert str(e.value).startswith(message)


def test_update_scale_types_meta_and_autograd():
    with pytest.raises(TypeError, match="growth_interval"):
        update_scale_(tl.ones(1), tl.zeros(1, dtype=tl.int32), tl.zeros(1), 2.0, 0.5, 2.0)
    m = update_scale_(tl.ones(1, device="meta"), tl.zeros(1, dtype=tl.int32, device="meta"),
                      tl.zeros(1, device="meta"), 2.0, 0.5, 1)
    assert m.device.type == "meta" and tuple(m.shape) == (1,)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        update_scale_(tl.ones(1, requires_grad=True), tl.zeros(1, dtype=tl.int32), tl.zeros(1), 2.0, 0.5, 1)
    s, t = tl.ones(1), tl.zeros(1, dtype=tl.int32)
    v_s, v_t = s._version, t._version
    update_scale_(s, t, tl.zeros(1), 2.0, 0.5, 1)
    assert s._version > v_s and t._version > v_t


@requires_torch
def test_fused_ops_match_torch():
    import torch
    rs = np.random.RandomState(5)
    for dtype in FLOATS:
        arrays = [rs.uniform(-100, 100, size=s).astype(np.float32) for s in [(4, 5), (9,), ()]]
        arrays[1][3] = [np.inf, -np.inf, np.nan][rs.randint(3)] if dtype != "float64" else arrays[1][3]
        ours = [_grad(a, dtype) for a in arrays]
        theirs = [torch.tensor(a).to(getattr(torch, dtype)) for a in arrays]
        f_ours, f_theirs = _flag(), torch.zeros(1)
        unscale_([g.t() if g.dim() == 2 else g for g in ours], f_ours, _inv(1 / 3))
        torch._amp_foreach_non_finite_check_and_unscale_([g.t() if g.dim() == 2 else g for g in theirs], f_theirs,
                                                         torch.full((1,), 1 / 3))
        assert f_ours.item() == f_theirs.item()
        for a, b in zip(ours, theirs):
            np.testing.assert_array_equal(_np(a), b.float().numpy() if b.dtype != torch.float64 else b.numpy())
    s1, t1 = tl.full((1,), 3.0), tl.zeros(1, dtype=tl.int32)
    s2, t2 = torch.full((1,), 3.0), torch.zeros(1, dtype=torch.int32)
    for i in range(40):
        found = float(rs.rand() < 0.25)
        g, b, n = 1.0 + rs.rand() * 2, rs.rand(), int(rs.randint(1, 4))
        update_scale_(s1, t1, tl.tensor([found]), g, b, n)
        torch._amp_update_scale_(s2, t2, torch.tensor([found]), g, b, n)
        assert s1.item() == s2.item() and t1.item() == t2.item()


# ---------------------------------------------------------------------------- GradScaler
def _model(seed=0, dtype=None):
    tl.manual_seed(seed)
    m = tl.nn.Sequential(tl.nn.Linear(4, 8), tl.nn.Tanh(), tl.nn.Linear(8, 2))
    return m.to(dtype) if dtype is not None else m


def _batch(seed=1, dtype=tl.float32):
    rs = np.random.RandomState(seed)
    return tl.tensor(rs.randn(5, 4).astype(np.float32)).to(dtype)


def _loss(model, x):
    return (model(x) ** 2).mean()


def _reference_grads(seed=0):
    m = _model(seed)
    _loss(m, _batch()).backward()
    return [p.grad.clone() for p in m.parameters()]


def test_documented_sequence():
    model = _model()
    opt = tl.optim.SGD(model.parameters(), lr=0.1)
    scaler = GradScaler("cpu")
    assert scaler.is_enabled() and scaler.get_scale() == 65536.0
    loss = _loss(model, _batch())
    scaled = scaler.scale(loss)
    assert scaled.item() == loss.item() * 65536.0
    scaled.backward()
    true_grads = _reference_grads()
    for p, g in zip(model.parameters(), true_grads):
        assert tl.equal(p.grad, g * 65536.0)  # a power of two: exact
    scaler.unscale_(opt)
    for p, g in zip(model.parameters(), true_grads):
        assert tl.equal(p.grad, g)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) has already been called on this optimizer since the "
                                           r"last update\(\)\."):
        scaler.unscale_(opt)
    before = [p.detach().clone() for p in model.parameters()]
    assert scaler.step(opt) is None  # SGD.step returns None
    for p, b, g in zip(model.parameters(), before, true_grads):
        assert tl.allclose(p.detach(), b - 0.1 * g)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) is being called after step\(\)\."):
        scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match=r"step\(\) has already been called since the last update\(\)\."):
        scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 65536.0 and scaler._get_growth_tracker() == 1
    assert scaler.state_dict()["_growth_tracker"] == 1
    # A new iteration: the state machine starts over.
    opt.zero_grad()
    scaler.scale(_loss(model, _batch())).backward()
    scaler.step(opt)  # unscale_ done by step
    assert scaler._per_optimizer_states[id(opt)]["stage"] is OptState.STEPPED
    scaler.update()


@pytest.mark.parametrize("bad", [float("inf"), float("-inf"), float("nan")])
def test_non_finite_gradient_skips_step_and_backs_off(bad):
    model = _model()
    opt = tl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scaler = GradScaler("cpu", init_scale=1024.0, growth_interval=3)
    for _ in range(2):  # two clean steps: tracker at 2
        opt.zero_grad()
        scaler.scale(_loss(model, _batch())).backward()
        scaler.step(opt)
        scaler.update()
    assert scaler._get_growth_tracker() == 2
    opt.zero_grad()
    scaler.scale(_loss(model, _batch())).backward()
    first = next(iter(model.parameters()))
    first.grad[0, 0] = bad
    before = [p.detach().clone() for p in model.parameters()]
    momentum_before = [opt.state[p]["momentum_buffer"].clone() for p in model.parameters()]

    class Counting:
        """An optimizer wrapper that records whether step() ran."""
        def __init__(self, inner):
            self.inner, self.param_groups, self.calls = inner, inner.param_groups, 0

        def step(self):
            self.calls += 1
            return self.inner.step()

    counting = Counting(opt)
    assert scaler.step(counting) is None
    assert counting.calls == 0
    for p, b in zip(model.parameters(), before):
        assert tl.equal(p.detach(), b)
    for p, m in zip(model.parameters(), momentum_before):
        assert tl.equal(opt.state[p]["momentum_buffer"], m)
    scaler.update()
    assert scaler.get_scale() == 512.0 and scaler._get_growth_tracker() == 0


def test_growth_after_interval_and_tracker_reset():
    model = _model()
    opt = tl.optim.SGD(model.parameters(), lr=0.01)
    scaler = GradScaler("cpu", init_scale=256.0, growth_factor=4.0, backoff_factor=0.25, growth_interval=3)
    history = []
    for step in range(9):
        opt.zero_grad()
        scaler.scale(_loss(model, _batch(step))).backward()
        if step == 4:
            next(iter(model.parameters())).grad[0, 0] = float("nan")
        scaler.step(opt)
        scaler.update()
        history.append((scaler.get_scale(), scaler._get_growth_tracker()))
    assert history == [(256.0, 1), (256.0, 2), (1024.0, 0), (1024.0, 1), (256.0, 0),
                       (256.0, 1), (256.0, 2), (1024.0, 0), (1024.0, 1)]


def test_update_new_scale():
    scaler = GradScaler("cpu")
    scaler.scale(tl.ones(1))
    scaler.update(8.0)
    assert scaler.get_scale() == 8.0
    scaler.update(tl.tensor(32.0))
    assert scaler.get_scale() == 32.0
    t = tl.tensor(64.0)
    scaler.update(t)
    t.fill_(5.0)  # the scaler copied the value
    assert scaler.get_scale() == 64.0
    scaler.update(tl.tensor(3))  # integer and double tensors are converted
    assert scaler.get_scale() == 3.0
    message = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or torch.FloatTensor with "
               "requires_grad=False.")
    for bad in (tl.ones(2), tl.ones(1, requires_grad=True), tl.tensor(8.0, device="meta")):
        with pytest.raises(AssertionError) as e:
            scaler.update(bad)
        assert str(e.value) == message
    with pytest.raises(AttributeError):
        scaler.update(16)  # only a float or a tensor, as in PyTorch
    with pytest.raises(AssertionError, match="Attempted update but _scale is None."):
        GradScaler("cpu").update(4.0)


def test_update_without_inf_checks():
    scaler = GradScaler("cpu")
    scaler.scale(tl.ones(1))
    with pytest.raises(AssertionError, match="No inf checks were recorded prior to update."):
        scaler.update()
    # An optimizer without gradients records no check either.
    opt = tl.optim.SGD(tl.nn.Linear(2, 2).parameters(), lr=0.1)
    with pytest.raises(AssertionError, match="No inf checks were recorded for this optimizer."):
        scaler.step(opt)


def test_state_dict_round_trip_through_save_load():
    model = _model()
    opt = tl.optim.SGD(model.parameters(), lr=0.01)
    scaler = GradScaler("cpu", init_scale=128.0, growth_factor=3.0, backoff_factor=0.25, growth_interval=5)
    assert scaler.state_dict() == {"scale": 128.0, "growth_factor": 3.0, "backoff_factor": 0.25,
                                   "growth_interval": 5, "_growth_tracker": 0}
    for step in range(3):
        opt.zero_grad()
        scaler.scale(_loss(model, _batch(step))).backward()
        if step == 0:
            next(iter(model.parameters())).grad.fill_(float("inf"))
        scaler.step(opt)
        scaler.update()
    sd = scaler.state_dict()
    assert sd == {"scale": 32.0, "growth_factor": 3.0, "backoff_factor": 0.25, "growth_interval": 5,
                  "_growth_tracker": 2}
    assert isinstance(sd["scale"], float) and isinstance(sd["_growth_tracker"], int)
    buf = io.BytesIO()
    tl.save(sd, buf)
    buf.seek(0)
    loaded = tl.load(buf)
    fresh = GradScaler("cpu")
    fresh.load_state_dict(loaded)
    assert fresh.state_dict() == sd
    assert (fresh.get_growth_factor(), fresh.get_backoff_factor(), fresh.get_growth_interval()) == (3.0, 0.25, 5)
    # Both continue identically: three more clean steps reach the interval.
    for s in (scaler, fresh):
        s.scale(tl.ones(1))
        for _ in range(3):
            s._per_optimizer_states[0]["found_inf_per_device"] = {tl.device("cpu"): tl.zeros(())}
            s.update()
    assert scaler.state_dict() == fresh.state_dict()
    assert fresh.get_scale() == 96.0 and fresh._get_growth_tracker() == 0
    # Loading into a scaler whose tensors exist updates them in place.
    fresh.load_state_dict({"scale": 2.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 7,
                           "_growth_tracker": 4})
    assert fresh.get_scale() == 2.0 and fresh._get_growth_tracker() == 4


def test_load_state_dict_errors_and_disabled():
    with pytest.raises(RuntimeError, match="The source state dict is empty, possibly because it was saved from "
                                           "a disabled instance of GradScaler."):
        GradScaler("cpu").load_state_dict({})
    with pytest.raises(KeyError):
        GradScaler("cpu").load_state_dict({"scale": 2.0})
    disabled = GradScaler("cpu", enabled=False)
    disabled.load_state_dict({"scale": 2.0})  # ignored
    assert disabled.state_dict() == {} and disabled.get_scale() == 1.0


def test_clip_grad_norm_between_unscale_and_step_sees_true_gradients():
    model = _model()
    opt = tl.optim.SGD(model.parameters(), lr=0.1)
    scaler = GradScaler("cpu", init_scale=2.0 ** 20)
    scaler.scale(_loss(model, _batch())).backward()
    scaler.unscale_(opt)
    true_norm = np.sqrt(sum(float((g.double() ** 2).sum()) for g in _reference_grads()))
    max_norm = true_norm / 2
    total = tl.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    assert abs(total.item() - true_norm) <= 1e-5 * true_norm
    clipped = np.sqrt(sum(float((p.grad.double() ** 2).sum()) for p in model.parameters()))
    assert abs(clipped - max_norm) <= 1e-4 * max_norm
    before = [p.detach().clone() for p in model.parameters()]
    grads = [p.grad.clone() for p in model.parameters()]
    scaler.step(opt)  # uses the clipped gradients as they are: no second unscale
    for p, b, g in zip(model.parameters(), before, grads):
        assert tl.allclose(p.detach(), b - 0.1 * g)
    scaler.update()


def test_multiple_optimizers_share_one_scaler():
    a, b = _model(0), _model(1)
    opt_a = tl.optim.SGD(a.parameters(), lr=0.1)
    opt_b = tl.optim.Adam(b.parameters(), lr=0.1)
    scaler = GradScaler("cpu", init_scale=64.0, growth_interval=1)
    x = _batch()
    scaler.scale(_loss(a, x) + _loss(b, x)).backward()
    next(iter(b.parameters())).grad[0, 0] = float("inf")
    before_a = [p.detach().clone() for p in a.parameters()]
    before_b = [p.detach().clone() for p in b.parameters()]
    scaler.unscale_(opt_a)
    scaler.step(opt_a)
    assert scaler.step(opt_b) is None
    assert any(not tl.equal(p.detach(), q) for p, q in zip(a.parameters(), before_a))
    assert all(tl.equal(p.detach(), q) for p, q in zip(b.parameters(), before_b))
    states = scaler._per_optimizer_states
    assert states[id(opt_a)]["found_inf_per_device"][tl.device("cpu")].item() == 0.0
    assert states[id(opt_b)]["found_inf_per_device"][tl.device("cpu")].item() == 1.0
    scaler.update()  # one optimizer's overflow backs off the shared scale
    assert scaler.get_scale() == 32.0
    # A clean iteration for both grows it again (interval 1).
    for m, o in ((a, opt_a), (b, opt_b)):
        o.zero_grad()
    scaler.scale(_loss(a, x) + _loss(b, x)).backward()
    scaler.step(opt_a)
    scaler.step(opt_b)
    scaler.update()
    assert scaler.get_scale() == 64.0


def test_grads_grouped_by_dtype():
    m32, m64, m16 = tl.nn.Linear(3, 2), tl.nn.Linear(3, 2).double(), tl.nn.Linear(3, 2).bfloat16()
    opt = tl.optim.SGD(list(m32.parameters()) + list(m64.parameters()) + list(m16.parameters()), lr=0.1)
    scaler = GradScaler("cpu", init_scale=4.0)
    x = tl.ones(1, 3)
    loss = m32(x).sum() + m64(x.double()).sum().float() + m16(x.bfloat16()).sum().float()
    scaler.scale(loss).backward()
    m64.weight.grad[1, 1] = float("nan")
    scaler.unscale_(opt)
    assert tl.equal(m32.weight.grad, tl.ones(2, 3))
    assert tl.equal(m16.weight.grad, tl.ones(2, 3, dtype=tl.bfloat16))
    assert m64.weight.grad[0, 0].item() == 1.0
    assert scaler._found_inf_per_device(opt)[tl.device("cpu")].item() == 1.0


def test_fp16_gradients_refused():
    m = tl.nn.Linear(3, 2).half()
    opt = tl.optim.SGD(m.parameters(), lr=0.1)
    for p in m.parameters():
        p.grad = tl.ones_like(p)
    scaler = GradScaler("cpu")
    scaler.scale(tl.ones(1))
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
        scaler.unscale_(opt)
    stepping = GradScaler("cpu")
    stepping.scale(tl.ones(1))
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
        stepping.step(opt)  # through its implicit unscale_
    # Optimizers that unscale themselves may take float16 gradients: only the check runs.
    opt._step_supports_amp_scaling = True
    opt.step = lambda: "own step"
    checking = GradScaler("cpu")
    checking.scale(tl.ones(1))
    assert checking.step(opt) == "own step"
    assert tl.equal(m.weight.grad, tl.ones_like(m.weight))


def test_misuse_errors():
    m = tl.nn.Linear(2, 2)
    opt = tl.optim.SGD(m.parameters(), lr=0.1)
    for p in m.parameters():
        p.grad = tl.ones_like(p)
    fresh = GradScaler("cpu")
    for call, name in ((fresh.unscale_, "unscale_"), (fresh.step, "step")):
        with pytest.raises(AssertionError, match=f"Attempted {name} but _scale is None.  This may indicate your "
                                                 r"script did not use scaler.scale\(loss or outputs\) earlier"):
            call(opt)
    scaler = GradScaler("cpu")
    scaler.scale(tl.ones(1))
    with pytest.raises(RuntimeError, match="Closure use is not currently supported if GradScaler is enabled."):
        scaler.step(opt, closure=lambda: 0.0)
    with pytest.raises(AssertionError, match="The growth factor must be > 1.0."):
        GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError, match="The backoff factor must be < 1.0."):
        GradScaler("cpu", backoff_factor=1.0)
    GradScaler("cpu", growth_factor=0.5, enabled=False)  # not checked when disabled


def test_scale_structures():
    scaler = GradScaler("cpu", init_scale=2.0)
    x = tl.ones(2)
    out = scaler.scale((x, [x * 2, (x,)]))
    assert isinstance(out, tuple) and isinstance(out[1], list) and isinstance(out[1][1], tuple)
    assert tl.equal(out[0], tl.full((2,), 2.0)) and tl.equal(out[1][0], tl.full((2,), 4.0))
    assert scaler.scale([]) == []
    lazy = scaler.scale(t for t in [x, x])
    assert isinstance(lazy, map) and all(tl.equal(v, tl.full((2,), 2.0)) for v in lazy)
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
        scaler.scale(3)
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
        scaler.scale([x, 3])
    # dtypes: the 0-dim float32 scale does not promote half or double outputs.
    assert scaler.scale(tl.ones(2, dtype=tl.float16)).dtype == tl.float16
    assert scaler.scale(tl.ones(2, dtype=tl.float64)).dtype == tl.float64
    assert scaler.scale(tl.ones(2, dtype=tl.int64)).dtype == tl.float32
    y = tl.ones(2, requires_grad=True)
    scaled = scaler.scale(y)
    scaled.sum().backward()
    assert tl.equal(y.grad, tl.full((2,), 2.0))
    # The state tensors: 0-dim, float32 scale and int32 counter, on the output's device.
    assert scaler._scale.dim() == 0 and scaler._scale.dtype == tl.float32
    assert scaler._growth_tracker.dim() == 0 and scaler._growth_tracker.dtype == tl.int32
    assert scaler._get_scale_async() is scaler._scale
    # Outputs on several devices: each is multiplied by a copy of the scale on its own device.
    mixed = scaler.scale([tl.ones(2), tl.ones(3, device="meta"), tl.ones(1)])
    assert mixed[1].device.type == "meta" and tuple(mixed[1].shape) == (3,)
    assert tl.equal(mixed[2], tl.full((1,), 2.0)) and scaler._scale.device.type == "cpu"
    # The first scaled output decides where the state tensors live.
    on_meta = GradScaler("cpu")
    on_meta.scale([tl.ones(1, device="meta")])
    assert on_meta._scale.device.type == "meta"


def test_disabled_scaler_is_pass_through():
    scaler = GradScaler("cpu", enabled=False)
    x = tl.ones(2)
    assert scaler.scale(x) is x
    nested = [x, 3, "s"]
    assert scaler.scale(nested) is nested

    class Recorder:
        param_groups = []

        def step(self, *args, **kwargs):
            self.seen = (args, kwargs)
            return "stepped"

    opt = Recorder()
    assert scaler.unscale_(opt) is None
    assert scaler.step(opt, 1, closure=None) == "stepped" and opt.seen == ((1,), {"closure": None})
    assert scaler.update() is None and scaler.update(4.0) is None
    assert scaler.get_scale() == 1.0 and scaler.state_dict() == {} and not scaler.is_enabled()
    scaler.set_growth_factor(3.0)
    assert scaler.get_growth_factor() == 3.0 and scaler.get_growth_interval() == 2000


def test_getters_setters():
    scaler = GradScaler("cpu", init_scale=3.0, growth_factor=1.5, backoff_factor=0.75, growth_interval=10)
    assert (scaler.get_scale(), scaler.get_growth_factor(), scaler.get_backoff_factor(),
            scaler.get_growth_interval()) == (3.0, 1.5, 0.75, 10)
    scaler.set_growth_factor(4.0)
    scaler.set_backoff_factor(0.125)
    scaler.set_growth_interval(1)
    assert (scaler.get_growth_factor(), scaler.get_backoff_factor(), scaler.get_growth_interval()) == (4.0, 0.125, 1)
    scaler.scale(tl.ones(1))
    scaler._per_optimizer_states[0]["found_inf_per_device"] = {tl.device("cpu"): tl.zeros(())}
    scaler.update()  # the new factors are the ones used
    assert scaler.get_scale() == 12.0
    assert isinstance(scaler.get_scale(), float)


def test_pickle():
    scaler = GradScaler("cpu", init_scale=16.0, growth_interval=3)
    scaler.scale(tl.ones(1))
    scaler._per_optimizer_states[0]["found_inf_per_device"] = {tl.device("cpu"): tl.zeros(())}
    scaler.update()
    copy = pickle.loads(pickle.dumps(scaler))
    assert copy._scale is None and copy.get_scale() == 16.0 and copy._get_growth_tracker() == 1
    assert copy.state_dict() == scaler.state_dict()
    copy.scale(tl.ones(1))
    assert copy._growth_tracker.item() == 1
    m = tl.nn.Linear(2, 2)
    opt = tl.optim.SGD(m.parameters(), lr=0.1)
    scaler.scale(m(tl.ones(1, 2)).sum()).backward()
    scaler.unscale_(opt)
    with pytest.raises(AssertionError, match="A GradScaler instance may only be pickled at the beginning of an "
                                             r"iteration, or at the end after scaler.update\(\)."):
        pickle.dumps(scaler)
    disabled = pickle.loads(pickle.dumps(GradScaler("cpu", enabled=False)))
    assert not disabled.is_enabled()


def test_optimizer_with_its_own_amp_scaling():
    class SelfUnscaling(tl.optim.SGD):
        """Divides by grad_scale itself and skips on found_inf (as fused optimizers do)."""
        _step_supports_amp_scaling = True

        def step(self, closure=None, **kwargs):
            self.seen = (self.grad_scale, self.found_inf, kwargs)
            if self.found_inf.item():
                return "skipped by optimizer"
            with tl.no_grad():
                for group in self.param_groups:
                    for p in group["params"]:
                        g = p.grad if self.grad_scale is None else p.grad / self.grad_scale
                        p.sub_(group["lr"] * g)
            return "stepped"

    model = _model()
    opt = SelfUnscaling(model.parameters(), lr=0.1)
    scaler = GradScaler("cpu", init_scale=8.0)
    scaler.scale(_loss(model, _batch())).backward()
    true_grads = _reference_grads()
    assert scaler.step(opt, extra=1) == "stepped"
    grad_scale, found_inf, kwargs = opt.seen
    assert grad_scale.item() == 8.0 and found_inf.item() == 0.0 and kwargs == {"extra": 1}
    assert found_inf.dim() == 0 and found_inf.dtype == tl.float32
    for p, g in zip(model.parameters(), true_grads):
        assert tl.equal(p.grad, g * 8.0)  # left scaled: the optimizer divides
    assert not hasattr(opt, "grad_scale") and not hasattr(opt, "found_inf")
    scaler.update()
    # After unscale_, the optimizer is told the gradients are unscaled.
    opt.zero_grad()
    scaler.scale(_loss(model, _batch())).backward()
    scaler.unscale_(opt)
    scaler.step(opt)
    assert opt.seen[0] is None
    scaler.update()
    # On overflow the optimizer still runs and decides; the scale backs off.
    opt.zero_grad()
    scaler.scale(_loss(model, _batch())).backward()
    next(iter(model.parameters())).grad[0, 0] = float("nan")
    assert scaler.step(opt) == "skipped by optimizer"
    scaler.update()
    assert scaler.get_scale() == 4.0


def test_cuda_scaler_without_cuda_warns_and_disables():
    if tl.cuda.is_available():
        pytest.skip("CUDA is available")
    with pytest.warns(UserWarning) as record:
        scaler = GradScaler("cuda")
    assert [str(w.message) for w in record] == [
        "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling."]
    assert record[0].filename == __file__  # points at the caller
    assert not scaler.is_enabled() and scaler.get_scale() == 1.0
    x = tl.ones(1)
    assert scaler.scale(x) is x
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        GradScaler("cuda", enabled=False)  # no warning when not asked to be enabled
        GradScaler("cuda", growth_factor=0.5, enabled=False)


def test_deprecated_device_spellings():
    with pytest.warns(FutureWarning, match=r"`torch.cpu.amp.GradScaler\(args...\)` is deprecated. Please use "
                                           r"`torch.amp.GradScaler\('cpu', args...\)` instead."):
        cpu = _CpuGradScaler(128.0, 3.0, 0.25, 7)
    assert isinstance(cpu, GradScaler) and cpu.is_enabled()
    assert (cpu.get_scale(), cpu.get_growth_factor(), cpu.get_backoff_factor(), cpu.get_growth_interval()) == (
        128.0, 3.0, 0.25, 7)
    if tl.cuda.is_available():
        return
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        cuda = _CudaGradScaler(init_scale=256.0)
    assert [(w.category, str(w.message)) for w in record] == [
        (FutureWarning, "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                        "`torch.amp.GradScaler('cuda', args...)` instead."),
        (UserWarning, "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")]
    assert all(w.filename == __file__ for w in record)
    assert not cuda.is_enabled() and cuda._device == "cuda"


# ---------------------------------------------------------------------------- parity with PyTorch
@requires_torch
def test_training_parity_with_torch():
    import torch
    model = _model(3)
    ref = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    with torch.no_grad():
        for p, q in zip(model.parameters(), ref.parameters()):
            q.copy_(torch.from_numpy(p.detach().numpy().copy()))
    opt = tl.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.05, momentum=0.9)
    scaler = GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=2)
    ref_scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=2)
    rs = np.random.RandomState(0)
    poison = {2: float("inf"), 5: float("nan"), 6: float("-inf")}
    for step in range(10):
        x = rs.randn(6, 4).astype(np.float32)
        for m, o, s, lib in ((model, opt, scaler, tl), (ref, ref_opt, ref_scaler, torch)):
            o.zero_grad()
            s.scale((m(lib.tensor(x)) ** 2).mean()).backward()
            if step in poison:
                with lib.no_grad():
                    next(iter(m.parameters())).grad[1, 2] = poison[step]
            if step % 3 == 0:
                s.unscale_(o)
                lib.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
            result = s.step(o)
            assert result is None
            s.update()
        assert scaler.get_scale() == ref_scaler.get_scale(), step
        assert scaler.state_dict() == ref_scaler.state_dict(), step
        for p, q in zip(model.parameters(), ref.parameters()):
            np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_training_loop_backs_off_from_overflow_then_tracks_float32():
    """A scale so large that the first scaled losses overflow: those steps are
    skipped (parameters untouched) while the scale halves, then training runs
    as the unscaled float32 loop does (scales are powers of two, so unscaled
    gradients are exact and the two runs agree to rounding)."""
    x = _batch(4)
    target = tl.tensor(np.random.RandomState(9).randn(5, 2).astype(np.float32) * 20)

    def loss_of(model):
        return ((model(x) - target) ** 2).mean()

    plain, scaled = _model(5), _model(5)
    plain_opt = tl.optim.SGD(plain.parameters(), lr=0.01)
    opt = tl.optim.SGD(scaled.parameters(), lr=0.01)
    scaler = GradScaler("cpu", init_scale=2.0 ** 127, growth_interval=1000)
    skipped, scaled_losses = 0, []
    for _ in range(40):
        opt.zero_grad()
        loss = loss_of(scaled)
        scaler.scale(loss).backward()
        before = scaler.get_scale()
        params_before = [p.detach().clone() for p in scaled.parameters()]
        scaler.step(opt)
        overflow = scaler._found_inf_per_device(opt)[tl.device("cpu")].item() == 1.0
        scaler.update()
        if overflow:
            skipped += 1
            assert scaler.get_scale() == before / 2
            assert all(tl.equal(p.detach(), q) for p, q in zip(scaled.parameters(), params_before))
        else:
            scaled_losses.append(loss.item())
    assert 1 <= skipped < 20 and scaler.get_scale() < 2.0 ** 127
    plain_losses = []
    for _ in range(len(scaled_losses)):
        plain_opt.zero_grad()
        loss = loss_of(plain)
        loss.backward()
        plain_opt.step()
        plain_losses.append(loss.item())
    np.testing.assert_allclose(scaled_losses, plain_losses, rtol=1e-5)
    assert plain_losses[-1] < 0.8 * plain_losses[0]
    for p, q in zip(scaled.parameters(), plain.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5, atol=1e-6)
