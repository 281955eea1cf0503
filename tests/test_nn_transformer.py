"""MultiheadAttention, F.multi_head_attention_forward and the Transformer family.

Torch-free: attention against a NumPy reference written from the formula
softmax(q k^T / sqrt(d) + mask) v, float64 gradcheck, mask handling, reprs,
errors and warnings. With PyTorch installed: table-driven parity (weights
copied from torch's state_dict; outputs, attention weights and all gradients)."""
import inspect
import math
import warnings

import numpy as np
import pytest

import torchlike
import torchlike.nn as nn
import torchlike.nn.functional as F
from conftest import requires_torch

try:
    import torch
except Exception:  # pragma: no cover
    torch = None


def tl(a):
    return torchlike.from_numpy(np.ascontiguousarray(np.asarray(a)).copy())


def npy(t):
    return t.detach().numpy()


def copy_state(src, dst):
    result = dst.load_state_dict({k: tl(v.detach().numpy()) for k, v in src.state_dict().items()})
    assert not result.missing_keys and not result.unexpected_keys


# ------------------------------------------------------------------ NumPy reference

def np_mha(q, k, v, params, heads, mask=None):
    """(L, N, E) attention with packed in_proj; returns output and head-averaged weights."""
    w_in, b_in, w_out, b_out = params
    e = q.shape[-1]
    hd = e // heads
    qp = q @ w_in[:e].T + b_in[:e]
    kp = k @ w_in[e:2 * e].T + b_in[e:2 * e]
    vp = v @ w_in[2 * e:].T + b_in[2 * e:]
    L, N, S = q.shape[0], q.shape[1], k.shape[0]
    out = np.zeros((L, N, e))
    weights = np.zeros((N, L, S))
    for n in range(N):
        for h in range(heads):
            sl = slice(h * hd, (h + 1) * hd)
            scores = qp[:, n, sl] @ kp[:, n, sl].T / math.sqrt(hd)
            if mask is not None:
                scores = scores + mask
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            attn = scores / scores.sum(-1, keepdims=True)
            out[:, n, sl] = attn @ vp[:, n, sl]
            weights[n] += attn / heads
    return out @ w_out.T + b_out, weights


# ------------------------------------------------------------------ MultiheadAttention

def test_mha_parameters_repr_and_init():
    m = nn.MultiheadAttention(8, 2)
    assert repr(m) == ("MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear("
                       "in_features=8, out_features=8, bias=True)\n)")
    assert [(k, tuple(v.shape)) for k, v in m.state_dict().items()] == [
        ("in_proj_weight", (24, 8)), ("in_proj_bias", (24,)), ("out_proj.weight", (8, 8)),
        ("out_proj.bias", (8,))]
    assert m.q_proj_weight is None and m.bias_k is None and m._qkv_same_embed_dim
    assert m.head_dim == 4 and m.batch_first is False and m.dropout == 0.0
    assert np.all(npy(m.in_proj_bias) == 0) and np.all(npy(m.out_proj.bias) == 0)
    bound = math.sqrt(6 / (24 + 8))  # xavier_uniform_ over (3E, E)
    assert np.abs(npy(m.in_proj_weight)).max() <= bound
    assert isinstance(m.out_proj, nn.Linear)
    s = nn.MultiheadAttention(8, 2, add_bias_kv=True, kdim=4, vdim=6, bias=False)
    assert [n for n, _ in s.named_parameters()] == [
        "q_proj_weight", "k_proj_weight", "v_proj_weight", "bias_k", "bias_v", "out_proj.weight"]
    assert tuple(s.k_proj_weight.shape) == (8, 4) and tuple(s.bias_k.shape) == (1, 1, 8)
    assert s.in_proj_weight is None and s.in_proj_bias is None


@pytest.mark.parametrize("call, exc, text", [
    (lambda: nn.MultiheadAttention(8, 3), AssertionError, "embed_dim must be divisible by num_heads"),
    (lambda: nn.MultiheadAttention(0, 3), ValueError,
     "embed_dim and num_heads must be greater than 0, got embed_dim=0 and num_heads=3 instead"),
])
def test_mha_constructor_errors(call, exc, text):
    with pytest.raises(exc) as info:
        call()
    assert text in str(info.value)


X = torchlike.randn(5, 2, 8)


@pytest.mark.parametrize("kwargs, exc, text", [
    (dict(attn_mask=torchlike.ones(4, 5, dtype=torchlike.bool)), RuntimeError,
     "The shape of the 2D attn_mask is torchlike.Size([4, 5]), but should be (5, 5)."),
    (dict(attn_mask=torchlike.ones(5, 5, dtype=torchlike.int64)), AssertionError,
     "only bool and floating types of attn_mask are supported"),
    (dict(attn_mask=torchlike.ones(1, 5, 5)), RuntimeError, "but should be (4, 5, 5)."),
    (dict(attn_mask=torchlike.ones(5, 5, 5, 5)), AssertionError,
     "expected `attn_mask` to be `None`, 2-D or 3-D but found 4-D tensor instead"),
    (dict(key_padding_mask=torchlike.ones(2, 4, dtype=torchlike.bool)), AssertionError,
     "Expected key_padded_mask.shape[1] to be 5, but got 4"),
    (dict(key_padding_mask=torchlike.ones(2, 5, dtype=torchlike.int32)), AssertionError,
     "only bool and floating types of key_padding_mask are supported"),
    (dict(is_causal=True), RuntimeError, "Need attn_mask if specifying the is_causal hint."),
])
def test_mha_forward_errors(kwargs, exc, text):
    m = nn.MultiheadAttention(8, 2)
    with pytest.raises(exc) as info:
        m(X, X, X, **kwargs)
    assert text in str(info.value)


def test_mha_shape_errors():
    m = nn.MultiheadAttention(8, 2)
    with pytest.raises(AssertionError, match="key shape .* does not match value shape"):
        m(X, X[:, :, :4], X)
    with pytest.raises(AssertionError, match="For unbatched \\(2-D\\) `query`, expected `key` and `value` to be 2-D"):
        m(torchlike.randn(5, 8), X, X)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 8, but got 7"):
        m(torchlike.randn(5, 7), torchlike.randn(4, 8), torchlike.randn(4, 8))
    with pytest.raises(AssertionError, match="query should be unbatched 2D or batched 3D tensor"):
        m(torchlike.randn(8), torchlike.randn(8), torchlike.randn(8))


def test_mha_mixed_mask_types_warn():
    m = nn.MultiheadAttention(8, 2)
    with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
        m(X, X, X, key_padding_mask=torchlike.zeros(2, 5, dtype=torchlike.bool),
          attn_mask=torchlike.zeros(5, 5))


def test_mha_matches_numpy_and_mask_forms():
    torchlike.manual_seed(0)
    m = nn.MultiheadAttention(8, 2, dtype=torchlike.float64)
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((4, 3, 8)), rng.standard_normal((6, 3, 8))
    params = [npy(p) for p in (m.in_proj_weight, m.in_proj_bias, m.out_proj.weight, m.out_proj.bias)]
    mask_bool = np.zeros((4, 6), dtype=bool)
    mask_bool[:, 4:] = True
    mask_float = np.where(mask_bool, -np.inf, 0.0)
    want, want_w = np_mha(q, k, k, params, 2, mask_float)
    for mask in (tl(mask_bool), tl(mask_float)):
        out, w = m(tl(q), tl(k), tl(k), attn_mask=mask)
        np.testing.assert_allclose(npy(out), want, atol=1e-12)
        np.testing.assert_allclose(npy(w), want_w, atol=1e-12)
        fast, none = m(tl(q), tl(k), tl(k), attn_mask=mask, need_weights=False)
        assert none is None
        np.testing.assert_allclose(npy(fast), want, atol=1e-12)
    # The same masking expressed as a key padding mask, per batch entry.
    kpm = np.zeros((3, 6), dtype=bool)
    kpm[:, 4:] = True
    out, w = m(tl(q), tl(k), tl(k), key_padding_mask=tl(kpm), average_attn_weights=False)
    np.testing.assert_allclose(npy(out), want, atol=1e-12)
    assert tuple(w.shape) == (3, 2, 4, 6)
    np.testing.assert_allclose(npy(w.mean(1)), want_w, atol=1e-12)
    # Unbatched input gives the batched result for that entry.
    single, single_w = m(tl(q[:, 1]), tl(k[:, 1]), tl(k[:, 1]), attn_mask=tl(mask_bool))
    np.testing.assert_allclose(npy(single), want[:, 1], atol=1e-12)
    np.testing.assert_allclose(npy(single_w), want_w[1], atol=1e-12)


def test_mha_causal_hint_and_batch_first():
    torchlike.manual_seed(0)
    m = nn.MultiheadAttention(8, 4, batch_first=True)
    x = torchlike.randn(2, 5, 8)
    causal = nn.Transformer.generate_square_subsequent_mask(5)
    a = m(x, x, x, attn_mask=causal)[0]
    b = m(x, x, x, attn_mask=causal, is_causal=True, need_weights=False)[0]
    np.testing.assert_allclose(npy(a), npy(b), atol=1e-6)
    m2 = nn.MultiheadAttention(8, 4)
    m2.load_state_dict(m.state_dict())
    c = m2(x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1), attn_mask=causal)[0]
    np.testing.assert_allclose(npy(c.transpose(0, 1)), npy(a), atol=1e-6)


def test_mha_bias_kv_zero_attn_and_static_kv():
    torchlike.manual_seed(0)
    m = nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True)
    out, w = m(X, X, X, key_padding_mask=torchlike.zeros(2, 5, dtype=torchlike.bool))
    assert tuple(out.shape) == (5, 2, 8) and tuple(w.shape) == (2, 5, 7)
    np.testing.assert_allclose(npy(w.sum(-1)), 1.0, atol=1e-6)
    # static_k/static_v replace the projected keys and values.
    sk = torchlike.randn(4, 3, 4)
    sv = torchlike.randn(4, 3, 4)
    p = nn.MultiheadAttention(8, 2)
    out, w = F.multi_head_attention_forward(
        X, X, X, 8, 2, p.in_proj_weight, p.in_proj_bias, None, None, False, 0.0,
        p.out_proj.weight, p.out_proj.bias, static_k=sk, static_v=sv)
    assert tuple(w.shape) == (2, 5, 3)
    with pytest.raises(AssertionError, match="expecting static_k.size\\(0\\) of 4"):
        F.multi_head_attention_forward(
            X, X, X, 8, 2, p.in_proj_weight, p.in_proj_bias, None, None, False, 0.0,
            p.out_proj.weight, p.out_proj.bias, static_k=sk[:3], static_v=sv)


def test_mha_dropout_train_eval():
    torchlike.manual_seed(0)
    m = nn.MultiheadAttention(8, 2, dropout=0.5)
    m.eval()
    a, b = m(X, X, X)[1], m(X, X, X)[1]
    assert np.array_equal(npy(a), npy(b))
    m.train()
    torchlike.manual_seed(3)
    c = m(X, X, X)[1]
    assert not np.allclose(npy(c), npy(a))


def test_mha_gradcheck():
    torchlike.manual_seed(0)
    m = nn.MultiheadAttention(4, 2, kdim=3, vdim=5, add_bias_kv=True, dtype=torchlike.float64)
    q = torchlike.randn(3, 2, 4, dtype=torchlike.float64, requires_grad=True)
    k = torchlike.randn(4, 2, 3, dtype=torchlike.float64, requires_grad=True)
    v = torchlike.randn(4, 2, 5, dtype=torchlike.float64, requires_grad=True)
    mask = torchlike.tensor([[False, False, True, False]] * 3)  # 4 keys, bias_kv adds a 5th
    assert torchlike.autograd.gradcheck(lambda a, b, c: m(a, b, c, attn_mask=mask), (q, k, v),
                                        eps=1e-6, atol=1e-5)
    s = nn.MultiheadAttention(4, 2, dtype=torchlike.float64)
    assert torchlike.autograd.gradcheck(lambda a: s(a, a, a, need_weights=False)[0], (q,),
                                        eps=1e-6, atol=1e-5)


def test_functional_signature():
    params = list(inspect.signature(F.multi_head_attention_forward).parameters)
    assert params[:13] == ["query", "key", "value", "embed_dim_to_check", "num_heads",
                           "in_proj_weight", "in_proj_bias", "bias_k", "bias_v", "add_zero_attn",
                           "dropout_p", "out_proj_weight", "out_proj_bias"]
    assert params[-2:] == ["average_attn_weights", "is_causal"]


# ------------------------------------------------------------------ Transformer family

def test_square_subsequent_mask():
    m = nn.Transformer.generate_square_subsequent_mask(3)
    assert m.dtype == torchlike.float32
    assert npy(m).tolist() == [[0.0, -math.inf, -math.inf], [0.0, 0.0, -math.inf], [0.0, 0.0, 0.0]]
    assert nn.Transformer.generate_square_subsequent_mask(2, dtype=torchlike.float64).dtype == torchlike.float64


def test_layer_structure_repr_and_keys():
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    text = repr(layer)
    assert "(linear1): Linear(in_features=8, out_features=16, bias=True)" in text
    assert "(dropout): Dropout(p=0.1, inplace=False)" in text
    assert "(norm2): LayerNorm((8,), eps=1e-05, elementwise_affine=True, bias=True)" in text
    assert "(activation)" not in text and layer.activation_relu_or_gelu == 1
    assert nn.TransformerEncoderLayer(8, 2, activation="gelu").activation_relu_or_gelu == 2
    with_module = nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU())
    assert with_module.activation_relu_or_gelu == 2
    assert repr(with_module).endswith("(activation): GELU(approximate='none')\n)")
    assert nn.TransformerEncoderLayer(8, 2, activation=torchlike.tanh).activation_relu_or_gelu == 0
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")
    dec = nn.TransformerDecoderLayer(8, 2, 16)
    assert list(dec.state_dict())[:4] == ["self_attn.in_proj_weight", "self_attn.in_proj_bias",
                                          "self_attn.out_proj.weight", "self_attn.out_proj.bias"]
    assert list(dec.state_dict())[-2:] == ["norm3.weight", "norm3.bias"]
    t = nn.Transformer(8, 2, 2, 1, 16)
    keys = list(t.state_dict())
    assert keys[0] == "encoder.layers.0.self_attn.in_proj_weight"
    assert "encoder.norm.weight" in keys and keys[-1] == "decoder.norm.bias"
    assert t.d_model == 8 and t.nhead == 2 and t.batch_first is False
    assert len(t.encoder.layers) == 2 and len(t.decoder.layers) == 1
    assert t.encoder.layers[0] is not t.encoder.layers[1]
    # xavier_uniform_ on every matrix: linear1 (16, 8) bound sqrt(6 / 24)
    assert np.abs(npy(t.encoder.layers[0].linear1.weight)).max() <= math.sqrt(6 / 24)


def test_nested_tensor_warnings():
    with pytest.warns(UserWarning, match="encoder_layer.self_attn.batch_first was not True"):
        enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2)
    assert enc.use_nested_tensor is False and enc.enable_nested_tensor is True
    with pytest.warns(UserWarning, match="encoder_layer.norm_first was True"):
        nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=True), 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1)
        nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1, enable_nested_tensor=False)
    assert quiet.use_nested_tensor is True


def test_transformer_errors():
    t = nn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        t(torchlike.randn(4, 2, 8), torchlike.randn(3, 3, 8))
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
        t(torchlike.randn(4, 2, 8), torchlike.randn(3, 2, 6))
    assert tuple(t(torchlike.randn(4, 8), torchlike.randn(3, 8)).shape) == (3, 8)


def _np_layer_norm(x, w, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def test_encoder_layer_matches_numpy():
    torchlike.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, dtype=torchlike.float64)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 2, 8))
    p = {k: npy(v) for k, v in layer.named_parameters()}
    sa, _ = np_mha(x, x, x, (p["self_attn.in_proj_weight"], p["self_attn.in_proj_bias"],
                             p["self_attn.out_proj.weight"], p["self_attn.out_proj.bias"]), 2)
    h = _np_layer_norm(x + sa, p["norm1.weight"], p["norm1.bias"])
    ff = np.maximum(h @ p["linear1.weight"].T + p["linear1.bias"], 0) @ p["linear2.weight"].T + p["linear2.bias"]
    want = _np_layer_norm(h + ff, p["norm2.weight"], p["norm2.bias"])
    np.testing.assert_allclose(npy(layer(tl(x))), want, atol=1e-10)


def test_causal_detection_and_mask_kinds_agree():
    torchlike.manual_seed(0)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2,
                                enable_nested_tensor=False)
    x = torchlike.randn(5, 2, 8)
    float_mask = nn.Transformer.generate_square_subsequent_mask(5)
    bool_mask = torchlike.ones(5, 5, dtype=torchlike.bool).triu(1)
    a = enc(x, mask=float_mask)
    b = enc(x, mask=bool_mask)
    c = enc(x, mask=float_mask, is_causal=False)
    for other in (b, c):
        np.testing.assert_allclose(npy(other), npy(a), atol=1e-5)
    # Causality: changing the last position does not change the earlier outputs.
    y = x.clone()
    y[4] = 10.0
    np.testing.assert_allclose(npy(enc(y, mask=float_mask)[:4]), npy(a[:4]), atol=1e-5)


def test_transformer_gradcheck_and_train_eval():
    torchlike.manual_seed(0)
    t = nn.Transformer(4, 2, 1, 1, 6, dropout=0.0, dtype=torchlike.float64)
    src = torchlike.randn(3, 2, 4, dtype=torchlike.float64, requires_grad=True)
    tgt = torchlike.randn(2, 2, 4, dtype=torchlike.float64, requires_grad=True)
    mask = nn.Transformer.generate_square_subsequent_mask(2, dtype=torchlike.float64)
    assert torchlike.autograd.gradcheck(lambda s, g: t(s, g, tgt_mask=mask), (src, tgt),
                                        eps=1e-6, atol=1e-5)
    d = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = torchlike.randn(5, 2, 8)
    d.eval()
    assert np.array_equal(npy(d(x)), npy(d(x)))
    d.train()
    assert not np.allclose(npy(d(x)), npy(d(x)))


# ------------------------------------------------------------------ PyTorch parity

MHA_PARITY = [
    (dict(embed_dim=8, num_heads=2), {}, "self"),
    (dict(embed_dim=8, num_heads=2, add_bias_kv=True, add_zero_attn=True), {}, "self"),
    (dict(embed_dim=8, num_heads=2, kdim=4, vdim=6, batch_first=True), {}, "cross"),
    (dict(embed_dim=8, num_heads=4, bias=False), dict(need_weights=False), "self"),
    (dict(embed_dim=8, num_heads=2), dict(attn_mask="causal_bool"), "self"),
    (dict(embed_dim=8, num_heads=2), dict(attn_mask="causal_bool", need_weights=False, is_causal=True), "self"),
    (dict(embed_dim=8, num_heads=2), dict(key_padding_mask="kpm", average_attn_weights=False), "self"),
    (dict(embed_dim=8, num_heads=2), dict(key_padding_mask="kpm", need_weights=False), "self"),
    (dict(embed_dim=8, num_heads=2), dict(attn_mask="float3"), "self"),
    (dict(embed_dim=8, num_heads=2), dict(attn_mask="causal_bool"), "unbatched"),
    (dict(embed_dim=8, num_heads=2), dict(attn_mask="causal_bool"), "kv"),
]


def _compare(ref_module, our_module, pairs):
    for (n1, p1), (n2, p2) in zip(ref_module.named_parameters(), our_module.named_parameters()):
        assert n1 == n2
        np.testing.assert_allclose(npy(p2.grad), p1.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=n1)
    for a, b in pairs:
        np.testing.assert_allclose(npy(b), a.detach().numpy(), rtol=1e-4, atol=1e-5)


@requires_torch
@pytest.mark.parametrize("ctor, call_kwargs, kind", MHA_PARITY)
def test_mha_parity_with_torch(ctor, call_kwargs, kind):
    torch.manual_seed(0)
    ref = torch.nn.MultiheadAttention(**ctor)
    ours = nn.MultiheadAttention(**ctor)
    copy_state(ref, ours)
    assert repr(ref) == repr(ours)
    L, N = 5, 3
    if kind == "unbatched":
        q = torch.randn(L, 8, requires_grad=True)
        k = v = q
    else:
        shape = (N, L, 8) if ctor.get("batch_first") else (L, N, 8)
        q = torch.randn(*shape, requires_grad=True)
        if kind == "self":
            k = v = q
        elif kind == "kv":
            k = v = torch.randn(*shape, requires_grad=True)
        else:
            k = torch.randn(*shape[:2], ctor["kdim"], requires_grad=True)
            v = torch.randn(*shape[:2], ctor["vdim"], requires_grad=True)
    ref_kwargs, our_kwargs = {}, {}
    for name, value in call_kwargs.items():
        if value == "causal_bool":
            mask = torch.ones(L, L, dtype=torch.bool).triu(1)
        elif value == "kpm":
            mask = torch.zeros(N, L, dtype=torch.bool)
            mask[1, 3:] = True
        elif value == "float3":
            mask = torch.randn(N * ctor["num_heads"], L, L)
        else:
            ref_kwargs[name] = our_kwargs[name] = value
            continue
        ref_kwargs[name] = mask
        our_kwargs[name] = tl(mask.numpy())
    qo = tl(q.detach().numpy()).requires_grad_()
    ko = qo if k is q else tl(k.detach().numpy()).requires_grad_()
    vo = ko if v is k else tl(v.detach().numpy()).requires_grad_()
    r_out, r_w = ref(q, k, v, **ref_kwargs)
    o_out, o_w = ours(qo, ko, vo, **our_kwargs)
    (r_out ** 2).sum().backward()
    (o_out ** 2).sum().backward()
    pairs = [(r_out, o_out), (q.grad, qo.grad)]
    if r_w is None:
        assert o_w is None
    else:
        pairs.append((r_w, o_w))
    if k is not q:
        pairs.append((k.grad, ko.grad))
    _compare(ref, ours, pairs)


def _build(lib, kind, kwargs):
    if kind == "enc":
        return lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16, **kwargs), 2,
                                         norm=lib.nn.LayerNorm(8))
    if kind == "dec":
        return lib.nn.TransformerDecoder(lib.nn.TransformerDecoderLayer(8, 2, 16, **kwargs), 2)
    return lib.nn.Transformer(8, 2, 2, 1, 16, **kwargs)


TRANSFORMER_PARITY = [
    ("enc", dict(dropout=0.0)),
    ("enc", dict(dropout=0.0, norm_first=True, activation="gelu", batch_first=True)),
    ("dec", dict(dropout=0.0)),
    ("dec", dict(dropout=0.0, norm_first=True, batch_first=True, layer_norm_eps=1e-3)),
    ("full", dict(dropout=0.0)),
    ("full", dict(dropout=0.0, batch_first=True, norm_first=True, bias=False)),
]


@requires_torch
@pytest.mark.parametrize("kind, kwargs", TRANSFORMER_PARITY)
def test_transformer_parity_with_torch(kind, kwargs):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _build(torch, kind, kwargs)
        ours = _build(torchlike, kind, kwargs)
    copy_state(ref, ours)
    assert repr(ref) == repr(ours)
    assert sum(p.numel() for p in ref.parameters()) == sum(p.numel() for p in ours.parameters())
    shape = (3, 5, 8) if kwargs.get("batch_first") else (5, 3, 8)
    src = torch.randn(*shape, requires_grad=True)
    tgt = torch.randn(*shape)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(5)
    kpm = torch.zeros(3, 5, dtype=torch.bool)
    kpm[1, 4:] = True
    srco = tl(src.detach().numpy()).requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "enc":
            r = ref(src, mask=mask, src_key_padding_mask=kpm)
            o = ours(srco, mask=tl(mask.numpy()), src_key_padding_mask=tl(kpm.numpy()))
        elif kind == "dec":
            r = ref(tgt, src, tgt_mask=mask, memory_key_padding_mask=kpm)
            o = ours(tl(tgt.numpy()), srco, tgt_mask=tl(mask.numpy()),
                     memory_key_padding_mask=tl(kpm.numpy()))
        else:
            r = ref(src, tgt, tgt_mask=mask, src_key_padding_mask=kpm)
            o = ours(srco, tl(tgt.numpy()), tgt_mask=tl(mask.numpy()),
                     src_key_padding_mask=tl(kpm.numpy()))
    (r ** 2).sum().backward()
    (o ** 2).sum().backward()
    _compare(ref, ours, [(r, o), (src.grad, srco.grad)])


@requires_torch
def test_signatures_match_torch():
    names = ["MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder",
             "TransformerEncoderLayer", "TransformerDecoderLayer"]
    for name in names:
        for attr in ("__init__", "forward"):
            ours = inspect.signature(getattr(getattr(nn, name), attr))
            ref = inspect.signature(getattr(getattr(torch.nn, name), attr))
            assert list(ours.parameters) == list(ref.parameters), (name, attr)
            for p in ours.parameters.values():
                q = ref.parameters[p.name]
                if p.default is not inspect.Parameter.empty and not callable(p.default):
                    assert p.default == q.default, (name, attr, p.name)
    ours = inspect.signature(F.multi_head_attention_forward)
    ref = inspect.signature(torch.nn.functional.multi_head_attention_forward)
    assert [(p.name, p.default) for p in ours.parameters.values()] == \
        [(p.name, p.default) for p in ref.parameters.values()]
