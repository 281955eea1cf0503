"""The fused LSTM recurrence ops behind nn.LSTM (issue 11):
torchlike._lstm_fused_sequence and _lstm_fused_sequence_backward.

Forward values against a NumPy float64 re-implementation of the LSTM
equations, the kernel's float tanh against NumPy's float64 tanh in ulps
(including tiny arguments, where tanh(x) ~ x), float64 gradcheck of the op pair
through torchlike._rnn._LSTMSequence, half types against float32, Meta shapes,
and the errors for mismatched shapes and dtypes."""
import numpy as np
import pytest

import torchlike
from torchlike._rnn import _LSTMSequence


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lstm_reference(x_gates, h0, c0, w_hh, reverse):
    """float64 NumPy LSTM over precomputed input gates (i, f, g, o blocks)."""
    x_gates, h, c, w_hh = (np.asarray(a, np.float64) for a in (x_gates, h0, c0, w_hh))
    steps, hidden = x_gates.shape[0], h.shape[1]
    out = np.zeros((steps,) + h.shape)
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        gates = x_gates[t] + h @ w_hh.T
        i, f, g, o = (gates[:, k * hidden:(k + 1) * hidden] for k in range(4))
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
        out[t] = h
    return out, h, c


def make_inputs(steps, batch, hidden, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((steps, batch, 4 * hidden)).astype(dtype),
            (0.5 * rng.standard_normal((batch, hidden))).astype(dtype),
            (0.5 * rng.standard_normal((batch, hidden))).astype(dtype),
            (0.3 * rng.standard_normal((4 * hidden, hidden))).astype(dtype))


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 2e-6)])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("steps,batch,hidden", [(7, 3, 5), (1, 2, 4), (12, 33, 19)])
def test_forward_matches_numpy(dtype, tol, reverse, steps, batch, hidden):
    arrays = make_inputs(steps, batch, hidden, dtype)
    out, h_n, c_n, ws = torchlike._lstm_fused_sequence(*(torchlike.from_numpy(a) for a in arrays), reverse)
    ref_out, ref_h, ref_c = lstm_reference(*arrays, reverse)
    for got, want in ((out, ref_out), (h_n, ref_h), (c_n, ref_c)):
        assert got.dtype == torchlike.from_numpy(arrays[0]).dtype
        np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)
    assert tuple(ws.shape) == (steps, batch, 6 * hidden)
    # The workspace's c block is the cell state of every step.
    np.testing.assert_allclose(ws.numpy()[(0 if reverse else -1), :, 4 * hidden:5 * hidden], ref_c,
                               rtol=tol, atol=tol)


def test_zero_steps_passes_the_state_through():
    _, h0, c0, w = make_inputs(1, 3, 4)
    xg = torchlike.zeros(0, 3, 16, dtype=torchlike.float64)
    out, h_n, c_n, ws = torchlike._lstm_fused_sequence(xg, torchlike.from_numpy(h0), torchlike.from_numpy(c0),
                                                       torchlike.from_numpy(w), False)
    assert tuple(out.shape) == (0, 3, 4) and tuple(ws.shape) == (0, 3, 24)
    np.testing.assert_array_equal(h_n.numpy(), h0)
    np.testing.assert_array_equal(c_n.numpy(), c0)
    grads = torchlike._lstm_fused_sequence_backward(
        None, torchlike.ones(3, 4, dtype=torchlike.float64), None, torchlike.from_numpy(h0),
        torchlike.from_numpy(c0), torchlike.from_numpy(w), out, ws, False)
    assert tuple(grads[0].shape) == (0, 3, 16)
    np.testing.assert_array_equal(grads[1].numpy(), np.ones((3, 4)))
    np.testing.assert_array_equal(grads[2].numpy(), np.zeros((3, 4)))
    np.testing.assert_array_equal(grads[3].numpy(), np.zeros((16, 4)))


def _float_tanh_via_kernel(values):
    """The kernel's float tanh: with w_hh = 0 the g block of the workspace is
    exactly tanh(x_gates' g block)."""
    x = np.asarray(values, np.float32).reshape(1, 1, -1)
    hidden = x.shape[2]
    xg = np.zeros((1, 1, 4 * hidden), np.float32)
    xg[..., 2 * hidden:3 * hidden] = x
    zeros = torchlike.zeros(1, hidden)
    _, _, _, ws = torchlike._lstm_fused_sequence(torchlike.from_numpy(xg), zeros, zeros,
                                                 torchlike.zeros(4 * hidden, hidden), False)
    return ws.numpy()[0, 0, 2 * hidden:3 * hidden]


def _ulps(got, want):
    """Distance from the float32 result to the exact (float64) value in units
    of float32's spacing at that value."""
    want32 = np.float32(want)
    spacing = np.spacing(np.abs(want32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - want) / spacing


def test_float_tanh_accuracy_in_ulps():
    rng = np.random.default_rng(1)
    tiny = np.array([1e-38, 1e-30, 1e-20, 1e-12, 3e-8, 1e-6, 1e-4, 1e-3, 0.01], np.float32)
    grid = np.concatenate([tiny, -tiny, np.linspace(-12, 12, 4001, dtype=np.float32),
                           np.float32([0.6249999, 0.625, 0.6250001, -0.625, 9.0, 20.0, 88.0, 1e4]),
                           rng.uniform(-3, 3, 2000).astype(np.float32)])
    got = _float_tanh_via_kernel(grid)
    want = np.tanh(grid.astype(np.float64))
    assert _ulps(got, want).max() <= 3.0
    # Relative precision near zero is the point of the series branch: below
    # 1e-4, tanh(x) = x (1 - x^2/3) rounds to x itself in float32.
    np.testing.assert_array_equal(got[:7], tiny[:7])
    np.testing.assert_array_equal(got[len(tiny):len(tiny) + 7], -tiny[:7])


def test_float_tanh_special_values():
    got = _float_tanh_via_kernel(np.float32([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45]))
    # (-0 reaches tanh as -0 + 0 = +0: the pre-activation adds h W_hh^T.)
    assert got[0] == 0 and got[1] == 0
    assert got[2] == 1 and got[3] == -1
    assert np.isnan(got[4])
    assert got[5] == np.float32(1e-45)


@pytest.mark.parametrize("reverse", [False, True])
def test_gradcheck_float64(reverse):
    arrays = make_inputs(4, 2, 3, seed=3)
    inputs = tuple(torchlike.from_numpy(a).requires_grad_() for a in arrays)

    def run(xg, h0, c0, w):
        out, h_n, c_n = _LSTMSequence.apply(xg, h0, c0, w, reverse)
        return out, h_n, c_n

    assert torchlike.autograd.gradcheck(run, inputs, eps=1e-6, atol=1e-6)


def test_gradcheck_with_some_outputs_unused():
    arrays = make_inputs(5, 2, 3, seed=4)
    inputs = tuple(torchlike.from_numpy(a).requires_grad_() for a in arrays)
    # Only c_n flows into the loss: grad_output and grad_hn arrive as None.
    assert torchlike.autograd.gradcheck(lambda *a: _LSTMSequence.apply(*a, False)[2], inputs, eps=1e-6, atol=1e-6)
    # Only the output sequence.
    assert torchlike.autograd.gradcheck(lambda *a: _LSTMSequence.apply(*a, True)[0], inputs, eps=1e-6, atol=1e-6)


def test_backward_missing_grads_equal_zero_grads():
    arrays = make_inputs(6, 3, 4, seed=5)
    xg, h0, c0, w = (torchlike.from_numpy(a) for a in arrays)
    out, h_n, c_n, ws = torchlike._lstm_fused_sequence(xg, h0, c0, w, False)
    g_out = torchlike.from_numpy(np.random.default_rng(6).standard_normal(tuple(out.shape)))
    with_none = torchlike._lstm_fused_sequence_backward(g_out, None, None, h0, c0, w, out, ws, False)
    with_zeros = torchlike._lstm_fused_sequence_backward(g_out, torchlike.zeros_like(h_n), torchlike.zeros_like(c_n),
                                                         h0, c0, w, out, ws, False)
    for a, b in zip(with_none, with_zeros):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("dtype", [torchlike.float16, torchlike.bfloat16])
def test_half_types_compute_in_float(dtype):
    arrays = make_inputs(5, 3, 8, np.float32, seed=7)
    half = [torchlike.from_numpy(a).to(dtype) for a in arrays]
    out, h_n, c_n, ws = torchlike._lstm_fused_sequence(*half, False)
    assert out.dtype == dtype and h_n.dtype == dtype and c_n.dtype == dtype
    assert ws.dtype == torchlike.float32
    ref_out, _, ref_c = lstm_reference(*(h.float().numpy() for h in half), False)
    tol = 1e-2 if dtype == torchlike.float16 else 3e-2
    np.testing.assert_allclose(out.float().numpy(), ref_out, atol=tol)
    np.testing.assert_allclose(c_n.float().numpy(), ref_c, atol=tol)
    grads = torchlike._lstm_fused_sequence_backward(torchlike.ones_like(out), None, None, half[1], half[2], half[3],
                                                    out, ws, False)
    assert [g.dtype for g in grads] == [dtype] * 4
    ref = torchlike._lstm_fused_sequence_backward(
        torchlike.ones(tuple(out.shape)), None, None, half[1].float(), half[2].float(), half[3].float(),
        out.float(), ws, False)
    for g, r in zip(grads, ref):
        np.testing.assert_allclose(g.float().numpy(), r.numpy(), atol=tol * 4, rtol=tol)


def test_half_lstm_module_runs_the_fused_path():
    torchlike.manual_seed(0)
    m = torchlike.nn.LSTM(6, 5, batch_first=True)
    x = torchlike.randn(2, 4, 6)
    with torchlike.no_grad():
        ref, _ = m(x)
    out, (h_n, _) = m.to(torchlike.bfloat16)(x.to(torchlike.bfloat16))
    np.testing.assert_allclose(out.detach().float().numpy(), ref.numpy(), atol=5e-2)
    out.float().sum().backward()
    assert m.weight_hh_l0.grad is not None and m.weight_hh_l0.grad.dtype == torchlike.bfloat16


def test_meta_shapes():
    xg = torchlike.empty(7, 3, 20, device="meta")
    h0, c0 = torchlike.empty(3, 5, device="meta"), torchlike.empty(3, 5, device="meta")
    w = torchlike.empty(20, 5, device="meta")
    out, h_n, c_n, ws = torchlike._lstm_fused_sequence(xg, h0, c0, w, True)
    assert [tuple(t.shape) for t in (out, h_n, c_n, ws)] == [(7, 3, 5), (3, 5), (3, 5), (7, 3, 30)]
    assert all(t.device.type == "meta" for t in (out, h_n, c_n, ws))
    grads = torchlike._lstm_fused_sequence_backward(out, None, None, h0, c0, w, out, ws, True)
    assert [tuple(t.shape) for t in grads] == [(7, 3, 20), (3, 5), (3, 5), (20, 5)]
    half = torchlike.empty(7, 3, 20, device="meta", dtype=torchlike.float16)
    hh = torchlike.empty(3, 5, device="meta", dtype=torchlike.float16)
    ws16 = torchlike._lstm_fused_sequence(half, hh, hh, w.half(), False)[3]
    assert ws16.dtype == torchlike.float32


def _good():
    return [torchlike.from_numpy(a) for a in make_inputs(4, 3, 5)]


@pytest.mark.parametrize("which,bad,pattern", [
    (0, torchlike.zeros(4, 3, 19, dtype=torchlike.float64), r"x_gates of shape \(4, 3, 20\)"),
    (0, torchlike.zeros(4, 20, dtype=torchlike.float64), r"x_gates of shape \(T, B, 4 \* hidden\)"),
    (1, torchlike.zeros(2, 5, dtype=torchlike.float64), r"h0 of shape \(3, 5\), got \[2, 5\]"),
    (2, torchlike.zeros(3, 4, dtype=torchlike.float64), r"c0 of shape \(3, 5\)"),
    (3, torchlike.zeros(20, 4, dtype=torchlike.float64), r"w_hh of shape \(20, 5\)"),
    (3, torchlike.zeros(20, 5, dtype=torchlike.float32), r"w_hh to have dtype Double"),
    (1, torchlike.zeros(3, 5, dtype=torchlike.float32), r"h0 to have dtype Double"),
])
def test_forward_errors_name_the_op(which, bad, pattern):
    args = _good()
    args[which] = bad
    with pytest.raises(RuntimeError, match=r"_lstm_fused_sequence: .*" + pattern):
        torchlike._lstm_fused_sequence(*args, False)


def test_forward_rejects_integer_input():
    args = [a.long() for a in _good()]
    with pytest.raises(RuntimeError, match="_lstm_fused_sequence: expected a floating point x_gates"):
        torchlike._lstm_fused_sequence(*args, False)


def test_backward_errors_name_the_op():
    xg, h0, c0, w = _good()
    out, h_n, c_n, ws = torchlike._lstm_fused_sequence(xg, h0, c0, w, False)
    op = "_lstm_fused_sequence_backward: "
    with pytest.raises(RuntimeError, match=op + r"expected grad_output of shape \(4, 3, 5\)"):
        torchlike._lstm_fused_sequence_backward(out[:3], None, None, h0, c0, w, out, ws, False)
    with pytest.raises(RuntimeError, match=op + r"expected grad_hn of shape \(3, 5\)"):
        torchlike._lstm_fused_sequence_backward(None, h0[:2], None, h0, c0, w, out, ws, False)
    with pytest.raises(RuntimeError, match=op + "expected grad_cn to have dtype Double"):
        torchlike._lstm_fused_sequence_backward(None, None, c0.float(), h0, c0, w, out, ws, False)
    with pytest.raises(RuntimeError, match=op + r"expected workspace of shape \(4, 3, 30\)"):
        torchlike._lstm_fused_sequence_backward(out, None, None, h0, c0, w, out, ws[:, :, :25], False)
    with pytest.raises(RuntimeError, match=op + "expected a workspace of dtype Double"):
        torchlike._lstm_fused_sequence_backward(out, None, None, h0, c0, w, out, ws.float(), False)
    with pytest.raises(RuntimeError, match=op + r"expected w_hh of shape \(20, 5\)"):
        torchlike._lstm_fused_sequence_backward(out, None, None, h0, c0, w[:, :4], out, ws, False)


def test_noncontiguous_inputs():
    arrays = make_inputs(5, 4, 3, seed=9)
    xg, h0, c0, w = (torchlike.from_numpy(a) for a in arrays)
    # Batch-first storage seen time-major, as nn.LSTM(batch_first=True) hands it over.
    xg_nc = xg.transpose(0, 1).contiguous().transpose(0, 1)
    w_nc = w.t().contiguous().t()
    got = torchlike._lstm_fused_sequence(xg_nc, h0, c0, w_nc, False)
    want = torchlike._lstm_fused_sequence(xg, h0, c0, w, False)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
