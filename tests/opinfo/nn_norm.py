"""nn: softmax family, normalisation, dropout (deterministic settings),
embedding, linear/bilinear and attention, checked against NumPy references
computed in float64.

Names with a dot (nn.functional.softmin) are looked up from torchlike by
attribute path (tests/test_ops.py and tests/test_gradcheck.py resolve them);
those have no Tensor method. Random behaviour (dropout statistics, Gumbel
samples) and running-stat updates are checked in tests/test_nn_norm.py."""
import math

import numpy as np

from .core import FLOATING, ErrorCase, OpInfo, Sample, make

F64 = np.float64
I64 = np.int64
ONE = np.ones((2, 3), np.float32)


def _f(x):
    return np.asarray(x, dtype=F64)


def _out(r, like):
    """A float64 reference in the sample's dtype (float32 stands in for bfloat16)."""
    return np.asarray(r).astype(like.dtype if like.dtype != np.float16 else np.float16)


# ---------------------------------------------------------------- softmax family

def np_softmax(x, dim, dtype=None):
    a = _f(x)
    if a.ndim == 0:
        return _out(np.ones(()), np.asarray(x))
    m = np.max(a, axis=dim, keepdims=True)
    e = np.exp(a - m)
    return _out(e / e.sum(axis=dim, keepdims=True), np.asarray(x))


def np_log_softmax(x, dim, dtype=None):
    a = _f(x)
    if a.ndim == 0:
        return _out(np.zeros(()), np.asarray(x))
    m = np.max(a, axis=dim, keepdims=True)
    return _out(a - m - np.log(np.exp(a - m).sum(axis=dim, keepdims=True)), np.asarray(x))


def softmax_samples(dtype):
    x = make((4, 7), dtype, seed=1)
    y = make((3, 5, 6), dtype, seed=2, low=-20, high=20)
    return [Sample((x, 1), {}, "rows"), Sample((x, 0), {}, "cols"), Sample((x, -1), {}, "dim-1"),
            Sample((y, 1), {}, "middle dim"), Sample((y, 2), {}, "last dim, wide range"),
            Sample((make((), dtype, seed=3), 0), {}, "0-dim"), Sample((make((0, 3), dtype), 1), {}, "empty"),
            Sample((make((2, 300), dtype, seed=4), 1), {}, "long rows")]


def np_softmin(x, dim=None, _stacklevel=3, dtype=None):
    return np_softmax(-_f(x).astype(np.asarray(x).dtype), dim)


# ---------------------------------------------------------------- normalisation

def np_layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    a = _f(x)
    axes = tuple(range(a.ndim - len(normalized_shape), a.ndim))
    mu = a.mean(axis=axes, keepdims=True)
    var = a.var(axis=axes, keepdims=True)
    y = (a - mu) / np.sqrt(var + eps)
    if weight is not None:
        y = y * _f(weight)
    if bias is not None:
        y = y + _f(bias)
    return _out(y, np.asarray(x))


def np_native_layer_norm(x, normalized_shape, weight, bias, eps):
    a = _f(x)
    axes = tuple(range(a.ndim - len(normalized_shape), a.ndim))
    mu = a.mean(axis=axes, keepdims=True)
    rstd = 1 / np.sqrt(a.var(axis=axes, keepdims=True) + eps)
    stat = np.float64 if np.asarray(x).dtype == np.float64 else np.float32
    return (np_layer_norm(x, normalized_shape, weight, bias, eps), mu.astype(stat), rstd.astype(stat))


def layer_norm_samples(dtype):
    x = make((4, 5, 6), dtype, seed=1)
    w, b = make((6,), dtype, seed=2), make((6,), dtype, seed=3)
    w2, b2 = make((5, 6), dtype, seed=4), make((5, 6), dtype, seed=5)
    return [Sample((x, [6], w, b), {}, "last dim affine"), Sample((x, [5, 6]), {}, "two dims plain"),
            Sample((x, [5, 6], w2, b2), {"eps": 1e-3}, "two dims affine eps"),
            Sample((x, [6], w), {}, "weight only"), Sample((x, [6], None, b), {}, "bias only"),
            Sample((make((0, 6), dtype), [6], w, b), {}, "empty"),
            Sample((make((3, 1), dtype, seed=6), [1]), {}, "one element rows")]


def np_batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled=False):
    a = _f(x)
    axes = (0,) + tuple(range(2, a.ndim))
    shape = (1, -1) + (1,) * (a.ndim - 2)
    if training:
        mu, var = a.mean(axis=axes), a.var(axis=axes)
    else:
        mu, var = _f(running_mean), _f(running_var)
    y = (a - mu.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    if weight is not None:
        y = y * _f(weight).reshape(shape)
    if bias is not None:
        y = y + _f(bias).reshape(shape)
    return _out(y, np.asarray(x))


def batch_norm_samples(dtype):
    x = make((4, 3, 5), dtype, seed=1)
    x4 = make((2, 3, 2, 3), dtype, seed=2)
    w, b = make((3,), dtype, seed=3), make((3,), dtype, seed=4)
    # Running stats in float32 (float64 samples included): torchlike, as
    # PyTorch, takes them in any floating dtype, and gradcheck must not treat
    # them as differentiable inputs (native_batch_norm has no gradient for them).
    rm = make((3,), "float32", seed=5)
    rv = make((3,), "float32", seed=6, positive=True)
    return [Sample((x, w, b, rm.copy(), rv.copy(), True, 0.1, 1e-5, False), {}, "train 3-D"),
            Sample((x4, w, b, None, None, True, 0.1, 1e-5, False), {}, "train 4-D no running stats"),
            Sample((x4, None, None, rm.copy(), rv.copy(), True, 0.3, 1e-3, False), {}, "train no affine"),
            Sample((x, w, b, rm.copy(), rv.copy(), False, 0.1, 1e-5, False), {}, "eval"),
            Sample((make((2, 3), dtype, seed=7), w, None, rm.copy(), rv.copy(), False, 0.1, 1e-5, False), {},
                   "eval 2-D weight only")]


def np_group_norm(x, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    a = _f(x)
    n, c = a.shape[:2]
    g = a.reshape(n, num_groups, -1)
    y = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps)).reshape(a.shape)
    shape = (1, c) + (1,) * (a.ndim - 2)
    if weight is not None:
        y = y * _f(weight).reshape(shape)
    if bias is not None:
        y = y + _f(bias).reshape(shape)
    return _out(y, np.asarray(x))


def group_norm_samples(dtype):
    x = make((2, 6, 5), dtype, seed=1)
    w, b = make((6,), dtype, seed=2), make((6,), dtype, seed=3)
    return [Sample((x, 3, w, b), {}, "3 groups affine"), Sample((x, 1), {}, "1 group"),
            Sample((x, 6, w), {"eps": 1e-3}, "per channel"), Sample((make((2, 4, 2, 3), dtype, seed=4), 2), {}, "4-D")]


def np_instance_norm(x, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    a = _f(x)
    axes = tuple(range(2, a.ndim))
    shape = (1, -1) + (1,) * (a.ndim - 2)
    if use_input_stats:
        mu, var = a.mean(axis=axes, keepdims=True), a.var(axis=axes, keepdims=True)
    else:
        mu, var = _f(running_mean).reshape(shape), _f(running_var).reshape(shape)
    y = (a - mu) / np.sqrt(var + eps)
    if weight is not None:
        y = y * _f(weight).reshape(shape)
    if bias is not None:
        y = y + _f(bias).reshape(shape)
    return _out(y, np.asarray(x))


def instance_norm_samples(dtype):
    x = make((2, 3, 5), dtype, seed=1)
    w, b = make((3,), dtype, seed=2), make((3,), dtype, seed=3)
    rm, rv = make((3,), "float32", seed=4), make((3,), "float32", seed=5, positive=True)
    return [Sample((x, w, b, None, None, True, 0.1, 1e-5, False), {}, "input stats"),
            Sample((x, None, None, rm.copy(), rv.copy(), True, 0.1, 1e-5, False), {}, "input stats, running"),
            Sample((x, w, b, rm.copy(), rv.copy(), False, 0.1, 1e-5, False), {}, "running stats")]


def np_rms_norm(x, normalized_shape, weight=None, eps=None):
    a = _f(x)
    if eps is None:
        eps = float(np.finfo(np.asarray(x).dtype).eps)
    axes = tuple(range(a.ndim - len(normalized_shape), a.ndim))
    y = a / np.sqrt((a * a).mean(axis=axes, keepdims=True) + eps)
    if weight is not None:
        y = y * _f(weight)
    return _out(y, np.asarray(x))


def rms_norm_samples(dtype):
    x = make((3, 4, 5), dtype, seed=1)
    # eps given explicitly: the default is the dtype's epsilon, and NumPy's
    # float32 stands in for bfloat16 here.
    return [Sample((x, [5], make((5,), dtype, seed=2)), {"eps": 1e-6}, "last dim weight"),
            Sample((x, [4, 5]), {"eps": 1e-5}, "two dims")]


def np_local_response_norm(x, size, alpha=1e-4, beta=0.75, k=1.0):
    a = _f(x)
    c = a.shape[1]
    sq = a * a
    out = np.empty_like(a)
    for i in range(c):
        lo, hi = i - size // 2, i + (size - 1) // 2
        s = sq[:, max(lo, 0):min(hi, c - 1) + 1].sum(axis=1)
        out[:, i] = a[:, i] / (k + alpha / size * s) ** beta
    return _out(out, np.asarray(x))


def np_normalize(x, p=2.0, dim=1, eps=1e-12, out=None):
    a = _f(x)
    if p == math.inf:
        n = np.abs(a).max(axis=dim, keepdims=True)
    else:
        n = (np.abs(a) ** p).sum(axis=dim, keepdims=True) ** (1 / p)
    return _out(a / np.maximum(n, eps), np.asarray(x))


# ---------------------------------------------------------------- dropout (identity settings)

def np_identity_dropout(x, p=0.5, train=False, inplace=False, training=None):
    return np.asarray(x)


def np_dropout_p1(x, p, train):
    return np.zeros_like(np.asarray(x))


# ---------------------------------------------------------------- embedding

def np_embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return np.asarray(weight)[np.asarray(indices)]


def embedding_samples(dtype):
    w = make((10, 4), dtype, seed=1)
    return [Sample((w, np.array([1, 3, 3, 9], I64)), {}, "1-D"),
            Sample((w, np.array([[0, 2], [5, 5]], np.int32)), {}, "2-D int32"),
            Sample((w, np.zeros((0,), I64)), {}, "no indices")] + (
        # padding_idx rows get no gradient and scale_grad_by_freq rescales it, by
        # design (both checked in test_nn_norm.py), which
        # finite differences would contradict: forward values only, outside float64.
        [Sample((w, np.array([1, 0, 1], I64), 1), {}, "padding_idx"),
         Sample((w, np.array([2, 2, 7], I64)), {"scale_grad_by_freq": True}, "scale_grad_by_freq")]
        if dtype != "float64" else [])


def np_f_embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                   sparse=False):
    w = _f(weight).copy()
    idx = np.asarray(input)
    if max_norm is not None:
        for i in np.unique(idx):
            n = (np.abs(w[i]) ** norm_type).sum() ** (1 / norm_type)
            if n > max_norm:
                w[i] *= max_norm / (n + 1e-7)
    return _out(w[idx], np.asarray(weight))


def f_embedding_samples(dtype):
    w = make((8, 3), dtype, seed=1)
    # padding_idx and max_norm change what the gradient is (by design): forward only, outside float64.
    return [Sample((np.array([[1, 2], [7, 1]], I64), w), {}, "plain")] + (
        [Sample((np.array([1, 5, 5], I64), w), {"padding_idx": -3}, "negative padding_idx"),
         Sample((np.array([0, 4], I64), w), {"max_norm": 1.0}, "max_norm")] if dtype != "float64" else [])


def np_embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                     mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    w = _f(weight)
    idx = np.asarray(input)
    psw = None if per_sample_weights is None else _f(per_sample_weights)
    if idx.ndim == 2:
        bags = [(k * idx.shape[1], (k + 1) * idx.shape[1]) for k in range(idx.shape[0])]
        idx = idx.reshape(-1)
        psw = None if psw is None else psw.reshape(-1)
    else:
        off = list(np.asarray(offsets))
        ends = off[1:] if include_last_offset else off[1:] + [len(idx)]
        bags = list(zip(off, ends))
    if padding_idx is not None and padding_idx < 0:
        padding_idx += w.shape[0]
    out = []
    for s, e in bags:
        pos = [i for i in range(s, e) if idx[i] != padding_idx]
        rows = np.stack([w[idx[i]] * (1 if psw is None else psw[i]) for i in pos]) if pos else None
        if rows is None:
            out.append(np.zeros(w.shape[1]))
        elif mode == "sum":
            out.append(rows.sum(0))
        elif mode == "mean":
            out.append(rows.mean(0))
        else:
            out.append(rows.max(0))
    return _out(np.stack(out), np.asarray(weight))


def embedding_bag_samples(dtype):
    w = make((10, 3), dtype, seed=1)
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9], I64)
    off = np.array([0, 4, 4], I64)
    return [Sample((idx, w, off), {}, "mean with an empty bag"),
            Sample((idx, w, off), {"mode": "sum"}, "sum"),
            Sample((idx, w, off), {"mode": "max"}, "max"),
            Sample((idx.reshape(2, 4), w), {"mode": "sum"}, "2-D input"),
            Sample((idx, w, np.array([0, 3, 8], I64)), {"include_last_offset": True}, "include_last_offset"),
            Sample((idx, w, off, None, 2, False, "sum", False, make((8,), dtype, seed=2)), {}, "per_sample_weights"),
            Sample((idx, w, off), {"padding_idx": 4}, "padding_idx")]


# ---------------------------------------------------------------- linear, bilinear, attention

def np_linear(input, weight, bias=None):
    y = _f(input) @ _f(weight).T
    if bias is not None:
        y = y + _f(bias)
    return _out(y, np.asarray(input))


def np_bilinear(input1, input2, weight, bias=None):
    y = np.einsum("...i,oij,...j->...o", _f(input1), _f(weight), _f(input2))
    if bias is not None:
        y = y + _f(bias)
    return _out(y, np.asarray(input1))


def bilinear_samples(dtype):
    return [Sample((make((4, 3), dtype, seed=1), make((4, 2), dtype, seed=2), make((5, 3, 2), dtype, seed=3),
                    make((5,), dtype, seed=4)), {}, "with bias"),
            Sample((make((2, 4, 3), dtype, seed=5), make((2, 4, 2), dtype, seed=6), make((1, 3, 2), dtype, seed=7)),
                   {}, "batched, no bias")]


def np_sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    q, k, v = _f(query), _f(key), _f(value)
    if enable_gqa:
        k = np.repeat(k, q.shape[-3] // k.shape[-3], axis=-3)
        v = np.repeat(v, q.shape[-3] // v.shape[-3], axis=-3)
    s = scale if scale is not None else 1 / math.sqrt(q.shape[-1])
    sc = q @ np.swapaxes(k, -1, -2) * s
    L, S = q.shape[-2], k.shape[-2]
    if is_causal:
        attn_mask = np.tril(np.ones((L, S), bool))
    if attn_mask is not None:
        m = np.asarray(attn_mask)
        sc = np.where(m, sc, -np.inf) if m.dtype == np.bool_ else sc + _f(m)
    sc = sc - sc.max(-1, keepdims=True)
    e = np.exp(sc)
    return _out((e / e.sum(-1, keepdims=True)) @ v, np.asarray(query))


def sdpa_samples(dtype):
    q = make((2, 3, 4, 5), dtype, seed=1, low=-1, high=1)
    k = make((2, 3, 6, 5), dtype, seed=2, low=-1, high=1)
    v = make((2, 3, 6, 7), dtype, seed=3, low=-1, high=1)
    bmask = np.random.default_rng(0).integers(0, 2, (4, 6)).astype(bool)
    bmask[:, 0] = True  # every query keeps one key (an all-masked row is NaN, as in PyTorch)
    fmask = make((3, 1, 6), dtype, seed=4, low=-1, high=1)
    kg = make((2, 1, 6, 5), dtype, seed=5, low=-1, high=1)
    vg = make((2, 1, 6, 7), dtype, seed=6, low=-1, high=1)
    return [Sample((q, k, v), {}, "plain"), Sample((q, k, v), {"is_causal": True}, "causal"),
            Sample((q, k, v, bmask), {}, "bool mask broadcast"),
            Sample((q, k, v, fmask), {"scale": 0.3}, "float mask, scale"),
            Sample((q, kg, vg), {"enable_gqa": True}, "gqa"),
            Sample((q[0, 0], k[0, 0], v[0, 0]), {}, "2-D")]


def _err(args, kwargs, exc, match):
    return ErrorCase(args, kwargs, exc, match)


OPS = [
    OpInfo("softmax", np_softmax, softmax_samples, dtypes=FLOATING,
           errors=[_err((np.ones(3, I64), 0), {}, NotImplementedError, "not implemented for"),
                   _err((ONE, 2), {}, IndexError, "out of range")]),
    OpInfo("log_softmax", np_log_softmax, softmax_samples, dtypes=FLOATING,
           errors=[_err((np.ones(3, I64), 0), {}, NotImplementedError, "not implemented for"),
                   _err((ONE, -3), {}, IndexError, "out of range")]),
    OpInfo("nn.functional.softmin", np_softmin, lambda dt: softmax_samples(dt)[:5], dtypes=FLOATING, method=False,
           errors=[_err((ONE, 5), {}, IndexError, "out of range")]),
    OpInfo("layer_norm", np_layer_norm, layer_norm_samples, dtypes=FLOATING, method=False,
           tol={"float16": (5e-3, 1e-2), "float32": (1e-5, 1e-5)},
           errors=[_err((ONE, [4]), {}, RuntimeError, "expected input with shape"),
                   _err((ONE, [3], np.ones(2, np.float32)), {}, RuntimeError, "weight"),
                   _err((ONE, []), {}, RuntimeError, "at least 1-dimensional")]),
    OpInfo("native_layer_norm", np_native_layer_norm,
           lambda dt: [Sample((make((3, 4), dt, seed=1), [4], make((4,), dt, seed=2), None, 1e-5), {}, "rows")],
           dtypes=("float32", "float64"), method=False, grad=False, tol={"float32": (1e-5, 1e-5)},
           errors=[_err((ONE, [2], None, None, 1e-5), {}, RuntimeError, "normalized_shape")]),
    OpInfo("batch_norm", np_batch_norm, batch_norm_samples, dtypes=FLOATING, method=False,
           tol={"float16": (5e-3, 1e-2), "float32": (1e-5, 1e-5)},
           errors=[_err((np.ones(3, np.float32), None, None, None, None, True, 0.1, 1e-5, False), {}, RuntimeError,
                        "at least 2 dims"),
                   _err((ONE, np.ones(2, np.float32), None, None, None, True, 0.1, 1e-5, False), {}, RuntimeError,
                        "weight should contain 3 elements"),
                   _err((ONE, None, None, None, None, False, 0.1, 1e-5, False), {}, RuntimeError,
                        "must be defined in evaluation mode")]),
    OpInfo("native_batch_norm", lambda *a: (np_batch_norm(*a), np.zeros(0, np.asarray(a[0]).dtype),
                                          np.zeros(0, np.asarray(a[0]).dtype)),
           lambda dt: [Sample((make((4, 3), dt, seed=1), None, None, np.zeros(3, np.float32),
                               np.ones(3, np.float32), False, 0.1, 1e-5), {}, "eval")],
           dtypes=("float32", "float64"), method=False, grad=False, meta=True,
           errors=[_err((ONE, None, None, None, None, False, 0.1, 1e-5), {}, RuntimeError, "evaluation mode")]),
    OpInfo("group_norm", np_group_norm, group_norm_samples, dtypes=FLOATING, method=False,
           tol={"float16": (5e-3, 1e-2), "float32": (1e-5, 1e-5)},
           errors=[_err((make((2, 6, 5), "float32"), 4), {}, RuntimeError, "divisible by num_groups")]),
    OpInfo("instance_norm", np_instance_norm, instance_norm_samples, dtypes=FLOATING, method=False,
           tol={"float16": (5e-3, 1e-2), "float32": (1e-5, 1e-5)},
           errors=[_err((np.ones(3, np.float32), None, None, None, None, True, 0.1, 1e-5, False), {}, RuntimeError,
                        "at least 2-D")]),
    OpInfo("rms_norm", np_rms_norm, rms_norm_samples, dtypes=FLOATING, method=False,
           tol={"float16": (5e-3, 1e-2), "float32": (1e-5, 1e-5)},
           errors=[_err((ONE, [4]), {}, RuntimeError, "expected input with shape")]),
    OpInfo("nn.functional.local_response_norm", np_local_response_norm,
           lambda dt: [Sample((make((2, 5, 3), dt, seed=1), 3), {}, "size 3"),
                       Sample((make((2, 6, 2, 2), dt, seed=2), 2), {"alpha": 0.1, "beta": 0.5, "k": 2.0},
                              "size 2 params")],
           dtypes=FLOATING, method=False, tol={"float16": (5e-3, 1e-2), "bfloat16": (2e-2, 5e-2),
                                               "float32": (1e-5, 1e-5)},
           errors=[_err((ONE, 2), {}, ValueError, "Expected 3D or higher")]),
    OpInfo("nn.functional.normalize", np_normalize,
           lambda dt: [Sample((make((3, 4), dt, seed=1),), {}, "default"),
                       Sample((make((3, 4), dt, seed=2),), {"p": 1.0, "dim": 0}, "p=1 dim 0"),
                       # eps=1e-12 is 0 in float16, so zeros give NaN there (as in PyTorch);
                       # not in float64 either: gradcheck cannot difference across the kink at 0.
                       ] + ([Sample((make((2, 3), dt, seed=3) * 0,), {}, "zeros (eps)")]
                            if dt in ("float32", "bfloat16") else []),
           dtypes=FLOATING, method=False, tol={"float32": (1e-5, 1e-5)},
           errors=[_err((ONE,), {"dim": 3}, IndexError, "out of range")]),
    OpInfo("dropout", np_identity_dropout,
           lambda dt: [Sample((make((3, 4), dt, seed=1), 0.5, False), {}, "eval"),
                       Sample((make((3, 4), dt, seed=1), 0.0, True), {}, "p=0")],
           dtypes=FLOATING, method=False, errors=[_err((ONE, 1.5, True), {}, ValueError, "between 0 and 1")]),
    OpInfo("dropout", np_dropout_p1, lambda dt: [Sample((make((3, 4), dt, seed=1), 1.0, True), {}, "p=1")],
           dtypes=FLOATING, method=False, errors=[_err((ONE, -0.1, True), {}, ValueError, "between 0 and 1")]),
    OpInfo("alpha_dropout", np_identity_dropout,
           lambda dt: [Sample((make((3, 4), dt, seed=1), 0.5, False), {}, "eval")],
           dtypes=FLOATING, method=False, errors=[_err((ONE, 2.0, True), {}, ValueError, "between 0 and 1")]),
    OpInfo("feature_alpha_dropout", np_identity_dropout,
           lambda dt: [Sample((make((2, 3, 4), dt, seed=1), 0.0, True), {}, "p=0")],
           dtypes=FLOATING, method=False, errors=[_err((ONE, 2.0, True), {}, ValueError, "between 0 and 1")]),
    OpInfo("feature_dropout", np_identity_dropout,
           lambda dt: [Sample((make((2, 3, 4), dt, seed=1), 0.3, False), {}, "eval")],
           dtypes=FLOATING, method=False,
           errors=[_err((np.ones(3, np.float32), 0.5, True), {}, RuntimeError, "at least 2 dimensions")]),
    OpInfo("nn.functional.dropout1d", np_identity_dropout,
           lambda dt: [Sample((make((2, 3, 4), dt, seed=1),), {"training": False}, "eval")],
           dtypes=FLOATING, method=False,
           errors=[_err((np.ones((1, 2, 3, 4), np.float32),), {}, RuntimeError, "Expected 2D or 3D input")]),
    OpInfo("nn.functional.dropout2d", np_identity_dropout,
           lambda dt: [Sample((make((2, 3, 4, 2), dt, seed=1),), {"p": 0.0}, "p=0")],
           dtypes=FLOATING, method=False,
           errors=[_err((ONE,), {}, RuntimeError, "Expected 3D or 4D input")]),
    OpInfo("nn.functional.dropout3d", np_identity_dropout,
           lambda dt: [Sample((make((2, 3, 2, 2, 2), dt, seed=1),), {"training": False}, "eval")],
           dtypes=FLOATING, method=False,
           errors=[_err((ONE,), {}, RuntimeError, "Expected 4D or 5D input")]),
    OpInfo("embedding", np_embedding, embedding_samples, dtypes=FLOATING, method=False,
           errors=[_err((np.ones((3, 2), np.float32), np.array([3], I64)), {}, IndexError, "out of range"),
                   _err((np.ones((3, 2), np.float32), np.array([-1], I64)), {}, IndexError, "out of range"),
                   _err((np.ones((3, 2), np.float32), np.array([1.0], np.float32)), {}, RuntimeError,
                        "Long, Int"),
                   _err((np.ones(3, np.float32), np.array([1], I64)), {}, RuntimeError, "must be 2-D")]),
    OpInfo("nn.functional.embedding", np_f_embedding, f_embedding_samples, dtypes=FLOATING, method=False,
           tol={"float32": (1e-5, 1e-6)},
           errors=[_err((np.array([1], I64), np.ones((3, 2), np.float32)), {"padding_idx": 3}, AssertionError,
                        "Padding_idx must be within num_embeddings")]),
    OpInfo("nn.functional.embedding_bag", np_embedding_bag, embedding_bag_samples, dtypes=FLOATING, method=False,
           tol={"float16": (5e-3, 1e-2), "float32": (1e-5, 1e-5)},
           errors=[_err((np.array([1, 2], I64), np.ones((3, 2), np.float32)), {}, ValueError, "offsets"),
                   _err((np.array([1, 2], I64), np.ones((3, 2), np.float32), np.array([0], I64), None, 2, False,
                         "mean", False, np.ones(2, np.float32)), {}, NotImplementedError,
                        "only supported for mode='sum'")]),
    OpInfo("nn.functional.linear", np_linear,
           lambda dt: [Sample((make((4, 3), dt, seed=1), make((5, 3), dt, seed=2), make((5,), dt, seed=3)), {},
                              "bias"),
                       Sample((make((2, 4, 3), dt, seed=4), make((5, 3), dt, seed=5)), {}, "batched no bias")],
           dtypes=FLOATING, method=False, tol={"float16": (5e-3, 1e-2), "float32": (1e-5, 1e-5)},
           errors=[_err((ONE, np.ones((4, 2), np.float32)), {}, RuntimeError, "cannot be multiplied")]),
    OpInfo("bilinear", np_bilinear, bilinear_samples, dtypes=FLOATING, method=False,
           tol={"float16": (5e-3, 2e-2), "bfloat16": (2e-2, 1e-1), "float32": (1e-5, 1e-5)},
           errors=[_err((ONE, ONE, np.ones((2, 4, 3), np.float32)), {}, RuntimeError, "input1 size")]),
    OpInfo("nn.functional.scaled_dot_product_attention", np_sdpa, sdpa_samples, dtypes=FLOATING, method=False,
           tol={"float16": (5e-3, 1e-2), "bfloat16": (2e-2, 5e-2), "float32": (1e-5, 1e-5)},
           errors=[_err((ONE, ONE, ONE, np.ones((2, 2), bool)), {"is_causal": True}, RuntimeError,
                        "Explicit attn_mask should not be set"),
                   _err((ONE, np.ones((2, 4), np.float32), ONE), {}, RuntimeError, "same embedding size")]),
]
