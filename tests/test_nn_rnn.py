"""Recurrent layers (RNN, LSTM, GRU and their cells), torchlike.lstm/gru/
rnn_tanh/rnn_relu and the *_cell ops, and nn.utils.rnn packing.

Torch-free checks compare against a NumPy re-implementation of the equations
(written here from the documented formulas) and run float64 gradcheck; the
PyTorch parity tables (skipped without torch) build each layer in both
libraries, copy torch's state_dict into ours, and compare outputs, final
states and every gradient."""
import inspect
import math
import warnings

import numpy as np
import pytest

import torchlike
import torchlike.nn as nn
from torchlike.nn.utils import rnn as rnn_utils
from conftest import requires_torch

try:
    import torch
except Exception:  # pragma: no cover
    torch = None


def tl(a, dtype=None):
    arr = np.asarray(a)
    if dtype is not None:
        arr = arr.astype(dtype)
    return torchlike.from_numpy(np.ascontiguousarray(arr).copy())


def npy(t):
    return t.detach().numpy()


def copy_state(src, dst):
    """torch module -> torchlike module, by value."""
    result = dst.load_state_dict({k: tl(v.detach().numpy()) for k, v in src.state_dict().items()})
    assert not result.missing_keys and not result.unexpected_keys


# ------------------------------------------------------------------ NumPy reference

def _sig(x):
    return 1.0 / (1.0 + np.exp(-x))


def np_cell(mode, x, state, w_ih, w_hh, b_ih, b_hh, w_hr=None):
    """One step of the documented equations, NumPy, batched (B, *)."""
    b_ih = 0 if b_ih is None else b_ih
    b_hh = 0 if b_hh is None else b_hh
    if mode == "LSTM":
        h, c = state
        gates = x @ w_ih.T + b_ih + h @ w_hh.T + b_hh
        i, f, g, o = np.split(gates, 4, axis=1)
        c = _sig(f) * c + _sig(i) * np.tanh(g)
        h = _sig(o) * np.tanh(c)
        if w_hr is not None:
            h = h @ w_hr.T
        return h, (h, c)
    (h,) = state
    if mode == "GRU":
        xr, xz, xn = np.split(x @ w_ih.T + b_ih, 3, axis=1)
        hr, hz, hn = np.split(h @ w_hh.T + b_hh, 3, axis=1)
        r, z = _sig(xr + hr), _sig(xz + hz)
        n = np.tanh(xn + r * hn)
        h = (1 - z) * n + z * h
        return h, (h,)
    pre = x @ w_ih.T + b_ih + h @ w_hh.T + b_hh
    h = np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0)
    return h, (h,)


def np_rnn(module, x, states):
    """Whole-module reference on a time-major (T, B, I) input; states are the
    (layers*dirs, B, *) arrays. Returns output and final states."""
    mode = module.mode
    dirs = 2 if module.bidirectional else 1
    params = {k: npy(v) for k, v in module.named_parameters()}
    layer_in = x
    finals = [[] for _ in states]
    for layer in range(module.num_layers):
        outs = []
        for d in range(dirs):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            w = [params.get(n + sfx) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")]
            state = tuple(s[layer * dirs + d] for s in states)
            steps = range(x.shape[0] - 1, -1, -1) if d else range(x.shape[0])
            seq = [None] * x.shape[0]
            for t in steps:
                seq[t], state = np_cell(mode, layer_in[t], state, *w)
            outs.append(np.stack(seq))
            for store, s in zip(finals, state):
                store.append(s)
        layer_in = np.concatenate(outs, axis=2)
    return layer_in, tuple(np.stack(f) for f in finals)


# ------------------------------------------------------------------ construction

def test_parameter_names_shapes_and_repr():
    m = nn.LSTM(3, 4, 2, proj_size=2, bidirectional=True)
    assert repr(m) == "LSTM(3, 4, proj_size=2, num_layers=2, bidirectional=True)"
    shapes = {k: tuple(v.shape) for k, v in m.state_dict().items()}
    assert list(shapes)[:6] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                                "weight_hr_l0", "weight_ih_l0_reverse"]
    assert shapes["weight_ih_l1"] == (16, 4) and shapes["weight_hh_l1_reverse"] == (16, 2)
    assert shapes["weight_hr_l1_reverse"] == (2, 4)
    assert m._all_weights[0] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_hr_l0"]
    assert len(m.all_weights) == 4 and m.flatten_parameters() is None
    g = nn.GRU(5, 6, bias=False, batch_first=True, bidirectional=True)
    assert repr(g) == "GRU(5, 6, bias=False, batch_first=True, bidirectional=True)"
    assert sorted(k for k, _ in g.named_parameters()) == sorted(
        ["weight_ih_l0", "weight_hh_l0", "weight_ih_l0_reverse", "weight_hh_l0_reverse"])
    assert tuple(g.weight_ih_l0.shape) == (18, 5)
    r = nn.RNN(3, 4, 2, "relu", False, True, 0.5, True)
    assert repr(r) == "RNN(3, 4, num_layers=2, bias=False, batch_first=True, dropout=0.5, bidirectional=True)"
    assert r.nonlinearity == "relu" and r.mode == "RNN_RELU"
    assert repr(nn.RNNCell(3, 2, False, "relu")) == "RNNCell(3, 2, bias=False, nonlinearity=relu)"
    assert repr(nn.LSTMCell(3, 2)) == "LSTMCell(3, 2)"
    assert [k for k in nn.GRUCell(3, 2).state_dict()] == ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]
    assert tuple(nn.LSTMCell(3, 2).weight_ih.shape) == (8, 3)


def test_signatures():
    sig = inspect.signature(nn.RNNBase.__init__)
    assert list(sig.parameters)[1:] == ["mode", "input_size", "hidden_size", "num_layers", "bias",
                                        "batch_first", "dropout", "bidirectional", "proj_size",
                                        "device", "dtype"]
    assert sig.parameters["proj_size"].default == 0
    assert str(inspect.signature(nn.RNNCell.__init__)) == (
        "(self, input_size, hidden_size, bias=True, nonlinearity='tanh', device=None, dtype=None)")
    assert list(inspect.signature(rnn_utils.pad_sequence).parameters) == [
        "sequences", "batch_first", "padding_value", "padding_side"]


def test_default_init_bounds():
    m = nn.LSTM(10, 25, 2, bidirectional=True)
    bound = 1 / math.sqrt(25)
    values = np.concatenate([npy(p).ravel() for p in m.parameters()])
    assert values.min() >= -bound and values.max() <= bound
    assert values.std() > bound / 2.5  # uniform(-b, b) has std b/sqrt(3)
    c = nn.GRUCell(4, 100)
    assert np.abs(npy(c.weight_hh)).max() <= 0.1


@pytest.mark.parametrize("call, exc, text", [
    (lambda: nn.RNN(3, 4, nonlinearity="foo"), ValueError, "Unknown nonlinearity 'foo'"),
    (lambda: nn.RNN(3, 4, proj_size=2), ValueError, "only supported for LSTM"),
    (lambda: nn.GRU(3, 4, proj_size=2), ValueError, "only supported for LSTM"),
    (lambda: nn.LSTM(3, 4, proj_size=4), ValueError, "proj_size has to be smaller than hidden_size"),
    (lambda: nn.LSTM(3, 4, proj_size=-1), ValueError, "proj_size should be a positive integer"),
    (lambda: nn.LSTM(3, 0), ValueError, "hidden_size must be greater than zero"),
    (lambda: nn.LSTM(3, 4, num_layers=0), ValueError, "num_layers must be greater than zero"),
    (lambda: nn.LSTM(3, 4.0), TypeError, "hidden_size should be of type int, got: float"),
    (lambda: nn.LSTM(3, 4, dropout=2), ValueError, "dropout should be a number in range [0, 1]"),
    (lambda: nn.LSTM(3, 4, dropout=True), ValueError, "dropout should be a number"),
    (lambda: nn.RNNBase("FOO", 3, 4), ValueError, "Unrecognized RNN mode: FOO"),
])
def test_constructor_errors(call, exc, text):
    with pytest.raises(exc, match=None) as info:
        call()
    assert text in str(info.value)


def test_dropout_single_layer_warns():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.LSTM(3, 4, dropout=0.5)


@pytest.mark.parametrize("call, exc, text", [
    (lambda m: m(torchlike.randn(2, 3, 3, 3)), ValueError, "LSTM: Expected input to be 2D or 3D, got 4D instead"),
    (lambda m: m(torchlike.randn(5, 2, 5)), RuntimeError, "input.size(-1) must be equal to input_size. Expected 3, got 5"),
    (lambda m: m(torchlike.randn(5, 2, 3), (torchlike.randn(2, 4), torchlike.randn(2, 4))), RuntimeError,
     "For batched 3-D input, hx and cx should also be 3-D but got (2-D, 2-D) tensors"),
    (lambda m: m(torchlike.randn(5, 2, 3), (torchlike.randn(1, 3, 4), torchlike.randn(1, 2, 4))), RuntimeError,
     "Expected hidden[0] size (1, 2, 4), got [1, 3, 4]"),
    (lambda m: m(torchlike.randn(5, 2, 3), (torchlike.randn(1, 2, 4), torchlike.randn(1, 3, 4))), RuntimeError,
     "Expected hidden[1] size (1, 2, 4), got [1, 3, 4]"),
    (lambda m: m(torchlike.randn(5, 3), (torchlike.randn(1, 1, 4), torchlike.randn(1, 1, 4))), RuntimeError,
     "For unbatched 2-D input, hx and cx should also be 2-D but got (3-D, 3-D) tensors"),
    (lambda m: m(torchlike.randn(5, 2, 3, dtype=torchlike.float64)), ValueError,
     "does not match weight dtype"),
])
def test_lstm_forward_errors(call, exc, text):
    with pytest.raises(exc) as info:
        call(nn.LSTM(3, 4))
    assert text in str(info.value)


def test_gru_forward_errors():
    g = nn.GRU(3, 4)
    with pytest.raises(RuntimeError, match="For batched 3-D input, hx should also be 3-D but got 2-D tensor"):
        g(torchlike.randn(5, 2, 3), torchlike.randn(2, 4))
    with pytest.raises(RuntimeError, match="For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"):
        g(torchlike.randn(5, 3), torchlike.randn(1, 2, 4))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[1, 3, 4\]"):
        g(torchlike.randn(5, 2, 3), torchlike.randn(1, 3, 4))


def test_cell_errors():
    c = nn.GRUCell(3, 2)
    with pytest.raises(ValueError, match="GRUCell: Expected input to be 1D or 2D, got 3D instead"):
        c(torchlike.randn(2, 3, 3))
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 4 expected 3"):
        c(torchlike.randn(2, 4))
    with pytest.raises(RuntimeError, match="Input batch size 3 doesn't match hidden0 batch size 2"):
        c(torchlike.randn(3, 3), torchlike.randn(2, 2))
    with pytest.raises(RuntimeError, match="hidden0 has inconsistent hidden_size: got 3, expected 2"):
        c(torchlike.randn(3, 3), torchlike.randn(3, 3))
    with pytest.raises(RuntimeError, match="Input batch size 4 doesn't match hidden1 batch size 3"):
        nn.LSTMCell(3, 2)(torchlike.randn(4, 3), (torchlike.randn(4, 2), torchlike.randn(3, 2)))
    with pytest.raises(RuntimeError, match="Unknown nonlinearity: x"):
        nn.RNNCell(3, 2, nonlinearity="x")(torchlike.randn(1, 3))
    with pytest.raises(RuntimeError, match="lstm_cell expects two hidden states"):
        torchlike.lstm_cell(torchlike.randn(2, 3), [torchlike.randn(2, 2)], torchlike.randn(8, 3),
                            torchlike.randn(8, 2))
    with pytest.raises(RuntimeError, match="weight_ih first dim must be 3 \\* hidden_size = 6, but got 5"):
        torchlike.gru_cell(torchlike.randn(2, 3), torchlike.randn(2, 2), torchlike.randn(5, 3),
                           torchlike.randn(6, 2))


# ------------------------------------------------------------------ values vs NumPy (torch-free)

NUMPY_CASES = [
    ("RNN", dict(input_size=3, hidden_size=4)),
    ("RNN", dict(input_size=3, hidden_size=4, nonlinearity="relu", num_layers=2, bidirectional=True)),
    ("LSTM", dict(input_size=3, hidden_size=5)),
    ("LSTM", dict(input_size=3, hidden_size=5, num_layers=2, bidirectional=True, bias=False)),
    ("LSTM", dict(input_size=3, hidden_size=5, proj_size=2, num_layers=2, bidirectional=True)),
    ("GRU", dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True)),
]


@pytest.mark.parametrize("kind, kwargs", NUMPY_CASES)
def test_forward_matches_numpy(kind, kwargs):
    torchlike.manual_seed(1)
    m = getattr(nn, kind)(**kwargs, dtype=torchlike.float64)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 2, 3))
    dirs = 2 if m.bidirectional else 1
    out_size = m.proj_size or m.hidden_size
    h0 = rng.standard_normal((m.num_layers * dirs, 2, out_size))
    c0 = rng.standard_normal((m.num_layers * dirs, 2, m.hidden_size))
    states = (h0, c0) if kind == "LSTM" else (h0,)
    ref_out, ref_states = np_rnn(m, x, states)
    hx = (tl(h0), tl(c0)) if kind == "LSTM" else tl(h0)
    out, final = m(tl(x), hx)
    final = final if kind == "LSTM" else (final,)
    np.testing.assert_allclose(npy(out), ref_out, rtol=1e-10, atol=1e-10)
    for a, b in zip(final, ref_states):
        np.testing.assert_allclose(npy(a), b, rtol=1e-10, atol=1e-10)


def test_batch_first_and_unbatched_agree():
    torchlike.manual_seed(0)
    m = nn.GRU(3, 4, num_layers=2, dtype=torchlike.float64)
    x = torchlike.randn(5, 2, 3, dtype=torchlike.float64)
    out, h = m(x)
    mb = nn.GRU(3, 4, num_layers=2, batch_first=True, dtype=torchlike.float64)
    mb.load_state_dict(m.state_dict())
    outb, hb = mb(x.transpose(0, 1))
    np.testing.assert_allclose(npy(outb.transpose(0, 1)), npy(out), atol=1e-12)
    np.testing.assert_allclose(npy(hb), npy(h), atol=1e-12)
    out1, h1 = m(x[:, 1])
    assert tuple(out1.shape) == (5, 4) and tuple(h1.shape) == (2, 4)
    np.testing.assert_allclose(npy(out1), npy(out[:, 1]), atol=1e-12)


def test_packed_matches_per_sequence_runs():
    """A packed batch gives, per sequence, what running that sequence alone gives."""
    torchlike.manual_seed(0)
    for kind in ("LSTM", "GRU", "RNN"):
        m = getattr(nn, kind)(3, 4, num_layers=2, bidirectional=True, dtype=torchlike.float64)
        seqs = [torchlike.randn(n, 3, dtype=torchlike.float64) for n in (2, 5, 3)]
        packed = rnn_utils.pack_sequence(seqs, enforce_sorted=False)
        out, final = m(packed)
        assert isinstance(out, rnn_utils.PackedSequence)
        padded, lengths = rnn_utils.pad_packed_sequence(out)
        assert lengths.tolist() == [2, 5, 3]
        for b, s in enumerate(seqs):
            alone, alone_final = m(s)
            np.testing.assert_allclose(npy(padded[: s.shape[0], b]), npy(alone), atol=1e-12)
            hf = final[0] if kind == "LSTM" else final
            af = alone_final[0] if kind == "LSTM" else alone_final
            np.testing.assert_allclose(npy(hf[:, b]), npy(af), atol=1e-12)
            assert np.all(npy(padded[s.shape[0]:, b]) == 0)


def test_functional_ops_both_overloads():
    torchlike.manual_seed(0)
    m = nn.LSTM(3, 4, bidirectional=True)
    x = torchlike.randn(5, 2, 3)
    h0 = torchlike.zeros(2, 2, 4)
    out, hn, cn = torchlike.lstm(x, [h0, h0], list(m.parameters()), True, 1, 0.0, False, True, False)
    ref, (rh, rc) = m(x)
    np.testing.assert_allclose(npy(out), npy(ref), atol=1e-6)
    np.testing.assert_allclose(npy(cn), npy(rc), atol=1e-6)
    packed = rnn_utils.pack_padded_sequence(x, [5, 3])
    pout, ph, pc = torchlike.lstm(packed.data, packed.batch_sizes, [h0, h0], list(m.parameters()),
                                  True, 1, 0.0, False, True)
    mref = m(packed)[0]
    np.testing.assert_allclose(npy(pout), npy(mref.data), atol=1e-6)
    g = nn.GRU(3, 4)
    o1, h1 = torchlike.gru(x, torchlike.zeros(1, 2, 4), list(g.parameters()), True, 1, 0.0, False,
                           False, False)
    np.testing.assert_allclose(npy(o1), npy(g(x)[0]), atol=1e-6)
    r = nn.RNN(3, 4, nonlinearity="relu", bias=False)
    o2, _ = torchlike.rnn_relu(x, torchlike.zeros(1, 2, 4), list(r.parameters()), False, 1, 0.0,
                               False, False, False)
    np.testing.assert_allclose(npy(o2), npy(r(x)[0]), atol=1e-6)
    o3, _ = torchlike.rnn_tanh(x.transpose(0, 1), torchlike.zeros(1, 2, 4),
                               list(nn.RNN(3, 4).parameters()), True, 1, 0.0, False, False, True)
    assert tuple(o3.shape) == (2, 5, 4)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"])
def test_cells_match_numpy(mode):
    rng = np.random.default_rng(3)
    gates = {"LSTM": 4, "GRU": 3}.get(mode, 1)
    x, h, c = rng.standard_normal((2, 3)), rng.standard_normal((2, 4)), rng.standard_normal((2, 4))
    w_ih, w_hh = rng.standard_normal((gates * 4, 3)), rng.standard_normal((gates * 4, 4))
    b_ih, b_hh = rng.standard_normal(gates * 4), rng.standard_normal(gates * 4)
    state = (h, c) if mode == "LSTM" else (h,)
    _, want = np_cell(mode, x, state, w_ih, w_hh, b_ih, b_hh)
    args = (tl(w_ih), tl(w_hh), tl(b_ih), tl(b_hh))
    if mode == "LSTM":
        got = torchlike.lstm_cell(tl(x), (tl(h), tl(c)), *args)
    else:
        fn = {"GRU": torchlike.gru_cell, "RNN_TANH": torchlike.rnn_tanh_cell,
              "RNN_RELU": torchlike.rnn_relu_cell}[mode]
        got = (fn(tl(x), tl(h), *args),)
    for a, b in zip(got, want):
        np.testing.assert_allclose(npy(a), b, atol=1e-12)


def test_cell_modules_unbatched_and_default_state():
    torchlike.manual_seed(0)
    for cls in (nn.RNNCell, nn.GRUCell, nn.LSTMCell):
        cell = cls(3, 4, dtype=torchlike.float64)
        x = torchlike.randn(2, 3, dtype=torchlike.float64)
        batched = cell(x)
        single = cell(x[1])
        if cls is nn.LSTMCell:
            assert tuple(single[0].shape) == (4,)
            np.testing.assert_allclose(npy(single[1]), npy(batched[1][1]), atol=1e-12)
        else:
            assert tuple(single.shape) == (4,)
            np.testing.assert_allclose(npy(single), npy(batched[1]), atol=1e-12)


# ------------------------------------------------------------------ gradients

def _gradcheck_module(m, x, hx):
    """gradcheck of the layer's kernels with the input, the initial state and
    every weight as differentiated inputs."""
    weights = [p.detach().clone().requires_grad_() for p in m.parameters()]
    n_state = len(hx)

    def run(inp, *rest):
        states, ws = tuple(rest[:n_state]), list(rest[n_state:])
        steps, batch = inp.shape[0], inp.shape[1]
        out, final = torchlike._rnn._run_stack(m.mode, inp, [batch] * steps, (steps, batch), states,
                                               ws, m.bias, m.num_layers, 0.0, False, m.bidirectional)
        return (out,) + final
    return torchlike.autograd.gradcheck(run, (x,) + tuple(hx) + tuple(weights), eps=1e-6, atol=1e-5)


@pytest.mark.parametrize("kind, kwargs", [
    ("LSTM", dict(num_layers=2, bidirectional=True)),   # the fused sequence Function
    ("LSTM", dict(proj_size=2)),                        # the op-by-op path
    ("GRU", dict(bidirectional=True)),
    ("RNN", dict(nonlinearity="tanh")),
])
def test_gradcheck_layers(kind, kwargs):
    torchlike.manual_seed(0)
    m = getattr(nn, kind)(3, 4, dtype=torchlike.float64, **kwargs)
    dirs = 2 if m.bidirectional else 1
    x = torchlike.randn(4, 2, 3, dtype=torchlike.float64, requires_grad=True)
    h0 = torchlike.randn(m.num_layers * dirs, 2, m.proj_size or 4, dtype=torchlike.float64,
                         requires_grad=True)
    if kind == "LSTM":
        c0 = torchlike.randn(m.num_layers * dirs, 2, 4, dtype=torchlike.float64, requires_grad=True)
        hx = (h0, c0)
    else:
        hx = (h0,)
    assert _gradcheck_module(m, x, hx)


def test_gradcheck_fused_lstm_all_outputs():
    """The fused Function's backward with gradients flowing into h_n and c_n too."""
    torchlike.manual_seed(0)
    m = nn.LSTM(3, 4, bidirectional=True, dtype=torchlike.float64)
    x = torchlike.randn(5, 2, 3, dtype=torchlike.float64, requires_grad=True)
    h0 = torchlike.randn(2, 2, 4, dtype=torchlike.float64, requires_grad=True)
    c0 = torchlike.randn(2, 2, 4, dtype=torchlike.float64, requires_grad=True)

    def fn(inp, h, c):
        out, (hn, cn) = m(inp, (h, c))
        return out * 0.5, hn, cn * 2

    assert torchlike.autograd.gradcheck(fn, (x, h0, c0), eps=1e-6, atol=1e-5)


def test_gradcheck_packed_and_cells():
    torchlike.manual_seed(0)
    m = nn.GRU(2, 3, dtype=torchlike.float64)
    data = torchlike.randn(5, 3, 2, dtype=torchlike.float64, requires_grad=True)

    def fn(x):
        packed = rnn_utils.pack_padded_sequence(x, [5, 2, 4], enforce_sorted=False)
        out, h = m(packed)
        return rnn_utils.pad_packed_sequence(out, padding_value=0.5)[0], h

    assert torchlike.autograd.gradcheck(fn, (data,), eps=1e-6, atol=1e-5)
    cell = nn.LSTMCell(2, 3, dtype=torchlike.float64)
    x = torchlike.randn(4, 2, dtype=torchlike.float64, requires_grad=True)
    assert torchlike.autograd.gradcheck(lambda a: cell(a), (x,), eps=1e-6, atol=1e-5)


def test_dropout_between_layers_train_and_eval():
    torchlike.manual_seed(0)
    m = nn.LSTM(3, 4, num_layers=3, dropout=0.5)
    x = torchlike.randn(6, 2, 3)
    m.eval()
    a, b = m(x)[0], m(x)[0]
    assert np.array_equal(npy(a), npy(b))
    m.train()
    torchlike.manual_seed(1)
    c = m(x)[0]
    torchlike.manual_seed(2)
    d = m(x)[0]
    assert not np.allclose(npy(c), npy(d))
    m0 = nn.LSTM(3, 4, num_layers=3, dropout=0.0)
    m0.load_state_dict(m.state_dict())
    assert np.allclose(npy(m0(x)[0]), npy(a))


def test_training_reduces_loss_and_to_dtype():
    torchlike.manual_seed(0)
    m = nn.LSTM(2, 8)
    x = torchlike.randn(10, 4, 2)
    target = x.sum(-1, keepdim=True).cumsum(0) * 0.1
    head = nn.Linear(8, 1)
    params = list(m.parameters()) + list(head.parameters())
    losses = []
    for _ in range(30):
        loss = ((head(m(x)[0]) - target) ** 2).mean()
        for p in params:
            p.grad = None
        loss.backward()
        with torchlike.no_grad():
            for p in params:
                p.add_(p.grad, alpha=-0.1)
        losses.append(float(loss))
    assert losses[-1] < losses[0] * 0.7
    m.double()
    assert m.weight_ih_l0.dtype == torchlike.float64
    assert m(x.double())[0].dtype == torchlike.float64


# ------------------------------------------------------------------ nn.utils.rnn

def test_pack_pad_roundtrip_and_layout():
    x = torchlike.arange(12.0).reshape(4, 3)
    p = rnn_utils.pack_padded_sequence(x, [1, 3, 2], enforce_sorted=False)
    assert p.data.tolist() == [1.0, 2.0, 0.0, 4.0, 5.0, 7.0]
    assert p.batch_sizes.tolist() == [3, 2, 1] and p.batch_sizes.dtype == torchlike.int64
    assert p.sorted_indices.tolist() == [1, 2, 0] and p.unsorted_indices.tolist() == [2, 0, 1]
    padded, lengths = rnn_utils.pad_packed_sequence(p, total_length=5, padding_value=-1)
    assert lengths.tolist() == [1, 3, 2]
    assert padded.tolist() == [[0.0, 1.0, 2.0], [-1.0, 4.0, 5.0], [-1.0, 7.0, -1.0],
                               [-1.0, -1.0, -1.0], [-1.0, -1.0, -1.0]]
    bf, _ = rnn_utils.pad_packed_sequence(p, batch_first=True)
    assert bf.tolist() == [[0.0, 0.0, 0.0], [1.0, 4.0, 7.0], [2.0, 5.0, 0.0]]
    sorted_pack = rnn_utils.pack_padded_sequence(x.t(), torchlike.tensor([3, 2, 1]), batch_first=True)
    assert sorted_pack.sorted_indices is None and sorted_pack.unsorted_indices is None
    assert "PackedSequence(data=tensor(" in repr(sorted_pack)


def test_packed_sequence_object():
    p = rnn_utils.pack_sequence([torchlike.ones(3, 2), torchlike.ones(2, 2)])
    assert isinstance(p, tuple) and p._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    q = rnn_utils.PackedSequence(p.data, p.batch_sizes)
    assert q.sorted_indices is None
    q2 = rnn_utils.PackedSequence((p.data, p.batch_sizes))
    assert q2.batch_sizes is p.batch_sizes
    with pytest.raises(AssertionError, match="Expected data to be a list or tuple of length 2"):
        rnn_utils.PackedSequence(p.data)
    d = p.double()
    assert d.data.dtype == torchlike.float64 and d.batch_sizes.dtype == torchlike.int64
    assert p.to(torchlike.float32) is p
    assert p.long().data.dtype == torchlike.int64
    assert p.is_cuda is False and p.is_pinned() is False
    assert p.cpu() is p


@pytest.mark.parametrize("call, exc, text", [
    (lambda x: rnn_utils.pack_padded_sequence(x, [2, 3, 1]), RuntimeError, "must be sorted in decreasing order"),
    (lambda x: rnn_utils.pack_padded_sequence(x, [3, 2, 0]), RuntimeError, "Length of all samples has to be greater than 0"),
    (lambda x: rnn_utils.pack_padded_sequence(x, [3, 2]), RuntimeError,
     "Expected `len(lengths)` to be equal to batch_size, but got 2 (batch_size=3)"),
    (lambda x: rnn_utils.pack_padded_sequence(x, [[3, 2, 1]]), RuntimeError, "1D CPU int64 tensor"),
    (lambda x: rnn_utils.pack_padded_sequence(x, [5, 2, 1]), RuntimeError, "at most 4"),
    (lambda x: rnn_utils.pad_packed_sequence(rnn_utils.pack_padded_sequence(x, [3, 2, 1]), total_length=2),
     ValueError, "Expected total_length to be at least the length of the longest sequence"),
    (lambda x: rnn_utils.pad_sequence([x], padding_side="mid"), RuntimeError,
     "Expected padding_side to be one of left or right, but got mid."),
    (lambda x: rnn_utils.pad_sequence([]), RuntimeError, "received an empty list of sequences"),
    (lambda x: rnn_utils.pad_sequence([torchlike.ones(2, 2), torchlike.ones(2, 3)]), RuntimeError, "trailing"),
    (lambda x: rnn_utils.pack_padded_sequence(torchlike.ones(0, 3), [1, 1, 1]), RuntimeError, "Cannot pack empty tensors."),
])
def test_packing_errors(call, exc, text):
    with pytest.raises(exc) as info:
        call(torchlike.arange(12.0).reshape(4, 3))
    assert text in str(info.value)


def test_pad_unpad_helpers():
    seqs = [torchlike.ones(2, 2), torchlike.full((3, 2), 2.0)]
    left = rnn_utils.pad_sequence(seqs, batch_first=True, padding_side="left", padding_value=-1)
    assert left.tolist() == [[[-1, -1], [1, 1], [1, 1]], [[2, 2], [2, 2], [2, 2]]]
    right = rnn_utils.pad_sequence(seqs)
    assert tuple(right.shape) == (3, 2, 2) and right[2, 0].tolist() == [0.0, 0.0]
    back = rnn_utils.unpad_sequence(right, torchlike.tensor([2, 3]))
    assert [tuple(b.shape) for b in back] == [(2, 2), (3, 2)]
    assert tuple(rnn_utils.pad_sequence(torchlike.ones(2, 3)).shape) == (3, 2)
    unpacked = rnn_utils.unpack_sequence(rnn_utils.pack_sequence(seqs, enforce_sorted=False))
    assert [u.tolist() for u in unpacked] == [s.tolist() for s in seqs]
    assert rnn_utils.invert_permutation(torchlike.tensor([2, 0, 1])).tolist() == [1, 2, 0]
    assert rnn_utils.invert_permutation(None) is None


# ------------------------------------------------------------------ PyTorch parity tables

PARITY = [
    ("RNN", dict(input_size=3, hidden_size=5), (6, 2, 3)),
    ("RNN", dict(input_size=3, hidden_size=5, nonlinearity="relu", num_layers=2, bidirectional=True,
                 batch_first=True), (2, 6, 3)),
    ("LSTM", dict(input_size=3, hidden_size=5), (6, 2, 3)),
    ("LSTM", dict(input_size=3, hidden_size=5, num_layers=2, bidirectional=True), (6, 2, 3)),
    ("LSTM", dict(input_size=3, hidden_size=5, proj_size=3, num_layers=2, bidirectional=True,
                  batch_first=True), (2, 6, 3)),
    ("LSTM", dict(input_size=3, hidden_size=5, bias=False), (6, 3)),
    ("GRU", dict(input_size=3, hidden_size=5, num_layers=2), (6, 2, 3)),
    ("GRU", dict(input_size=3, hidden_size=5, bidirectional=True, bias=False, batch_first=True), (2, 6, 3)),
]


def _compare_grads(ref_module, our_module, pairs):
    for (n1, p1), (n2, p2) in zip(ref_module.named_parameters(), our_module.named_parameters()):
        assert n1 == n2
        np.testing.assert_allclose(npy(p2.grad), p1.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=n1)
    for a, b in pairs:
        np.testing.assert_allclose(npy(b), a.detach().numpy(), rtol=1e-4, atol=1e-5)


@requires_torch
@pytest.mark.parametrize("kind, kwargs, shape", PARITY)
def test_parity_with_torch(kind, kwargs, shape):
    torch.manual_seed(0)
    ref = getattr(torch.nn, kind)(**kwargs)
    ours = getattr(nn, kind)(**kwargs)
    copy_state(ref, ours)
    assert repr(ref) == repr(ours)
    assert [(k, tuple(v.shape)) for k, v in ref.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in ours.state_dict().items()]
    assert sum(p.numel() for p in ref.parameters()) == sum(p.numel() for p in ours.parameters())
    x = torch.randn(*shape, requires_grad=True)
    xo = tl(x.detach().numpy()).requires_grad_()
    r_out, r_h = ref(x)
    o_out, o_h = ours(xo)
    r_states = r_h if kind == "LSTM" else (r_h,)
    o_states = o_h if kind == "LSTM" else (o_h,)
    loss_r = (r_out ** 2).sum() + sum((s * (i + 2)).sum() for i, s in enumerate(r_states))
    loss_o = (o_out ** 2).sum() + sum((s * (i + 2)).sum() for i, s in enumerate(o_states))
    loss_r.backward()
    loss_o.backward()
    _compare_grads(ref, ours, [(r_out, o_out), (x.grad, xo.grad)] + list(zip(r_states, o_states)))


@requires_torch
@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_parity_packed_with_torch(kind):
    torch.manual_seed(0)
    ref = getattr(torch.nn, kind)(3, 4, num_layers=2, bidirectional=True)
    ours = getattr(nn, kind)(3, 4, num_layers=2, bidirectional=True)
    copy_state(ref, ours)
    x = torch.randn(5, 3, 3, requires_grad=True)
    xo = tl(x.detach().numpy()).requires_grad_()
    lengths = [2, 5, 3]
    h0 = torch.randn(4, 3, 4)
    hx = (h0, torch.randn(4, 3, 4)) if kind == "LSTM" else h0
    hxo = tuple(tl(h.numpy()) for h in hx) if kind == "LSTM" else tl(h0.numpy())
    r_out, r_h = ref(torch.nn.utils.rnn.pack_padded_sequence(x, lengths, enforce_sorted=False), hx)
    o_out, o_h = ours(rnn_utils.pack_padded_sequence(xo, lengths, enforce_sorted=False), hxo)
    r_pad, r_len = torch.nn.utils.rnn.pad_packed_sequence(r_out, batch_first=True, total_length=6)
    o_pad, o_len = rnn_utils.pad_packed_sequence(o_out, batch_first=True, total_length=6)
    assert r_len.tolist() == o_len.tolist()
    np.testing.assert_array_equal(npy(o_out.batch_sizes), r_out.batch_sizes.numpy())
    r_states = r_h if kind == "LSTM" else (r_h,)
    o_states = o_h if kind == "LSTM" else (o_h,)
    ((r_pad ** 2).sum() + sum(s.sum() for s in r_states)).backward()
    ((o_pad ** 2).sum() + sum(s.sum() for s in o_states)).backward()
    _compare_grads(ref, ours, [(r_pad, o_pad), (x.grad, xo.grad)] + list(zip(r_states, o_states)))


@requires_torch
@pytest.mark.parametrize("cls, kwargs", [
    ("RNNCell", dict(nonlinearity="relu")), ("RNNCell", dict(bias=False)),
    ("LSTMCell", {}), ("GRUCell", {}),
])
@pytest.mark.parametrize("batched", [True, False])
def test_parity_cells_with_torch(cls, kwargs, batched):
    torch.manual_seed(0)
    ref = getattr(torch.nn, cls)(3, 4, **kwargs)
    ours = getattr(nn, cls)(3, 4, **kwargs)
    copy_state(ref, ours)
    assert repr(ref) == repr(ours)
    x = torch.randn(*((2, 3) if batched else (3,)), requires_grad=True)
    xo = tl(x.detach().numpy()).requires_grad_()
    r, o = ref(x), ours(xo)
    r = r if isinstance(r, tuple) else (r,)
    o = o if isinstance(o, tuple) else (o,)
    sum((t ** 2).sum() for t in r).backward()
    sum((t ** 2).sum() for t in o).backward()
    _compare_grads(ref, ours, list(zip(r, o)) + [(x.grad, xo.grad)])


@requires_torch
def test_parity_utils_with_torch():
    seqs = [torch.randn(n, 2) for n in (3, 5, 1)]
    ours = [tl(s.numpy()) for s in seqs]
    for bf in (False, True):
        for side in ("left", "right"):
            np.testing.assert_array_equal(
                npy(rnn_utils.pad_sequence(ours, bf, 1.5, side)),
                torch.nn.utils.rnn.pad_sequence(seqs, bf, 1.5, side).numpy())
    rp = torch.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)
    op = rnn_utils.pack_sequence(ours, enforce_sorted=False)
    for a, b in zip(rp, op):
        np.testing.assert_array_equal(npy(b), a.numpy())
    assert str(inspect.signature(rnn_utils.pack_padded_sequence)).replace(" ", "") != ""
    for name in rnn_utils.__all__:
        ref_params = list(inspect.signature(getattr(torch.nn.utils.rnn, name)).parameters)
        assert list(inspect.signature(getattr(rnn_utils, name)).parameters) == ref_params, name


@requires_torch
def test_signatures_match_torch():
    for name in ("RNNBase", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"):
        ours = inspect.signature(getattr(nn, name).__init__)
        ref = inspect.signature(getattr(torch.nn, name).__init__)
        assert [(p.name, p.default, p.kind) for p in ours.parameters.values()] == \
            [(p.name, p.default, p.kind) for p in ref.parameters.values()], name


def test_flat_weights_follow_reassignment():
    m = nn.GRU(2, 3)
    new = nn.Parameter(torchlike.zeros(9, 3))
    m.weight_hh_l0 = new
    assert m._flat_weights[1] is new
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m(torchlike.randn(4, 1, 2))
