"""nn activations, losses, distances, pad and one_hot, checked against NumPy.

Names without a dot are torchlike.<name>; "nn.functional.<name>" entries are
the functional API (opinfo.core.resolve walks the dotted path)."""
import math

import numpy as np

from .core import FLOATING, NP_DTYPE, ErrorCase, OpInfo, Sample, make

F64 = np.float64
FLOAT_ONLY = ("float32", "float64")
LOSS_REDUCTIONS = ("none", "mean", "sum")


def _f(fn):
    return lambda x, *a, **kw: fn(np.asarray(x).astype(F64), *a, **kw)


def act_samples(low=-4, high=4, extra=None):
    def samples(dtype):
        out = [Sample((make((3, 4), dtype, low, high),), desc="3x4"),
               Sample((make((), dtype, low, high, seed=1),), desc="0-dim"),
               Sample((make((0, 3), dtype),), desc="empty"),
               Sample((make((2, 3, 5), dtype, low, high, seed=2),), desc="3-d")]
        for kw in extra or ():
            out.append(Sample((make((4, 5), dtype, low, high, seed=3),), dict(kw), desc=repr(kw)))
        return out
    return samples


_INT_ERR = ErrorCase((np.ones(3, np.int64),), {}, (RuntimeError, NotImplementedError), "not implemented for 'Long'")


def act(name, ref, extra=None, method=False, inplace=False, out=False, errors=None, tol=None, dtypes=FLOATING):
    return OpInfo(name, _f(ref), act_samples(extra=extra), dtypes=dtypes, method=method, inplace=inplace, out=out,
                  errors=errors if errors is not None else [_INT_ERR], tol=tol)


def _erf(x):
    return np.vectorize(math.erf, otypes=[F64])(x)


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(x * beta > threshold, x, np.log1p(np.exp(np.minimum(x * beta, threshold))) / beta)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
_HALF_TOL = {"float16": (2e-3, 2e-2), "bfloat16": (2e-2, 1e-1)}

ACTIVATIONS = [
    OpInfo("threshold", lambda x, th, v: np.where(np.asarray(x) <= th, v, x).astype(np.asarray(x).dtype),
           lambda dt: [Sample((make((3, 4), dt), 1, -2), desc="3x4"), Sample((make((), dt, seed=1), 0, 5), desc="0-d"),
                       Sample((make((0, 2), dt), 0, 1), desc="empty")],
           dtypes=FLOATING + ("int64",), method=False, out=True,
           errors=[ErrorCase((np.ones(3, np.float32), "a", 1.0), {}, TypeError, "")]),
    act("nn.functional.hardtanh", lambda x, min_val=-1.0, max_val=1.0: np.clip(x, min_val, max_val),
        extra=[{"min_val": -2.0, "max_val": 0.5}],
        errors=[ErrorCase((np.ones(3, np.float32),), {"min_val": 2.0, "max_val": 1.0}, ValueError,
                          "min_val cannot be greater than max_val")]),
    act("nn.functional.relu6", lambda x: np.clip(x, 0, 6), errors=[
        ErrorCase((np.ones(3, np.bool_),), {}, (RuntimeError, NotImplementedError), "Bool")]),
    act("nn.functional.leaky_relu", lambda x, negative_slope=0.01: np.where(x > 0, x, x * negative_slope),
        extra=[{"negative_slope": 0.2}]),
    act("nn.functional.elu", lambda x, alpha=1.0: np.where(x > 0, x, alpha * np.expm1(x)), extra=[{"alpha": 0.5}]),
    act("selu", lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x)), inplace=True, out=True,
        tol=_HALF_TOL),
    act("celu", lambda x, alpha=1.0: np.where(x > 0, x, alpha * np.expm1(x / alpha)), extra=[{"alpha": 2.0}],
        inplace=True, out=True),
    act("nn.functional.gelu", lambda x, approximate="none": (
        0.5 * x * (1 + _erf(x / math.sqrt(2))) if approximate == "none" else
        0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
        extra=[{"approximate": "tanh"}],
        errors=[_INT_ERR, ErrorCase((np.ones(3, np.float32),), {"approximate": "fast"}, RuntimeError,
                                    "approximate argument must be either none or tanh")]),
    act("nn.functional.silu", lambda x: x * _sigmoid(x)),
    act("nn.functional.mish", lambda x: x * np.tanh(_softplus(x)), tol=_HALF_TOL),
    act("nn.functional.hardsigmoid", lambda x: np.clip(x / 6 + 0.5, 0, 1)),
    act("nn.functional.hardswish", lambda x: x * np.clip(x + 3, 0, 6) / 6),
    act("hardshrink", lambda x, lambd=0.5: np.where(np.abs(x) > lambd, x, 0), extra=[{"lambd": 1.5}],
        method=True, inplace=False, out=True),
    act("nn.functional.softshrink", lambda x, lambd=0.5: np.where(x > lambd, x - lambd,
                                                                  np.where(x < -lambd, x + lambd, 0)),
        extra=[{"lambd": 1.5}],
        errors=[ErrorCase((np.ones(3, np.float32),), {"lambd": -1.0}, RuntimeError,
                          "lambda must be greater or equal to 0")]),
    act("nn.functional.tanhshrink", lambda x: x - np.tanh(x), errors=[]),
    act("nn.functional.softplus", _softplus, extra=[{"beta": 2.0, "threshold": 3.0}], tol=_HALF_TOL),
    act("nn.functional.softsign", lambda x: x / (1 + np.abs(x)), errors=[]),
    act("nn.functional.logsigmoid", lambda x: -_softplus(-x), tol=_HALF_TOL),
]


def _prelu_ref(x, w):
    x = np.asarray(x, F64)
    w = np.asarray(w, F64)
    if w.size > 1 and x.ndim >= 2:
        w = w.reshape((-1,) + (1,) * (x.ndim - 2))
    return np.where(x > 0, x, w * x)


def _prelu_samples(dtype):
    return [Sample((make((2, 3, 4), dtype), make((3,), dtype, 0, 1, seed=5)), desc="per-channel"),
            Sample((make((2, 3), dtype, seed=1), make((1,), dtype, 0, 1, seed=6)), desc="shared"),
            Sample((make((3,), dtype, seed=2), make((3,), dtype, 0, 1, seed=7)), desc="1-d")]


def _glu_ref(x, dim=-1):
    a, b = np.split(np.asarray(x, F64), 2, axis=dim)
    return a * _sigmoid(b)


ACTIVATIONS += [
    OpInfo("prelu", _prelu_ref, _prelu_samples, dtypes=FLOATING, method=False,
           errors=[ErrorCase((np.ones((2, 3), np.float32), np.ones(4, np.float32)), {}, RuntimeError,
                             "mismatch of parameter numbers and input channel size")]),
    OpInfo("nn.functional.glu", _glu_ref,
           lambda dt: [Sample((make((3, 4), dt),), desc="last"), Sample((make((4, 3), dt, seed=1), 0), desc="dim0")],
           dtypes=FLOATING, method=False,
           errors=[ErrorCase((np.ones((3, 5), np.float32),), {}, RuntimeError, "Halving dimension must be even")]),
    OpInfo("nn.functional.rrelu", lambda x, **kw: np.where(x > 0, x, x * (1 / 8 + 1 / 3) / 2).astype(F64),
           act_samples(), dtypes=FLOATING, method=False,
           errors=[ErrorCase((np.ones(3, np.int64),), {}, (RuntimeError, NotImplementedError), "Long")]),
]


# ---------------------------------------------------------------- losses

def _reduce(loss, reduction):
    return loss if reduction == "none" else (loss.mean() if reduction == "mean" else loss.sum())


def _log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def _nll_ref(x, t, weight=None, ignore_index=-100, reduction="mean"):
    x = np.asarray(x, F64)
    t = np.asarray(t)
    if x.ndim == 1:
        x, t = x[None], t.reshape(1)
        squeeze = True
    else:
        squeeze = False
    C = x.shape[1]
    w = np.ones(C) if weight is None else np.asarray(weight, F64)
    keep = t != ignore_index
    ts = np.where(keep, t, 0)
    picked = np.take_along_axis(x, ts[:, None], axis=1)[:, 0]
    wt = np.where(keep, w[ts], 0.0)
    loss = -wt * picked
    if reduction == "none":
        return loss[0] if squeeze else loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / wt.sum()


def _targets(shape, C, seed, ignore=None):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, C, size=shape).astype(np.int64)
    if ignore is not None and t.size:
        t.reshape(-1)[::3] = ignore
    return t


def _nll_samples(dtype):
    x = make((5, 4), dtype)
    out = [Sample((x, _targets((5,), 4, 1)), {"reduction": r}, desc=r) for r in LOSS_REDUCTIONS]
    out += [Sample((x, _targets((5,), 4, 2, ignore=2)), {"ignore_index": 2}, desc="ignore_index"),
            Sample((make((2, 3, 4, 2), dtype, seed=5), _targets((2, 4, 2), 3, 6, ignore=-100)),
                   {"reduction": "mean"}, desc="spatial"),
            Sample((make((2, 3, 4), dtype, seed=8), _targets((2, 4), 3, 9)), {"reduction": "none"},
                   desc="spatial none"),
            Sample((make((4,), dtype, seed=10), np.array(2, np.int64)), {}, desc="1-d input")]
    if dtype != "float64":  # weight is not differentiable (as in PyTorch): keep it out of gradcheck
        out += [Sample((x, _targets((5,), 4, 3), make((4,), dtype, 0.5, 2, seed=4)), desc="weight"),
                Sample((make((2, 3, 4, 2), dtype, seed=5), _targets((2, 4, 2), 3, 6, ignore=-100),
                        make((3,), dtype, 0.5, 2, seed=7)), {"reduction": "sum"}, desc="spatial weight")]
    return out


def _ce_ref(x, t, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    x = np.asarray(x, F64)
    cdim = 0 if x.ndim == 1 else 1
    logp = _log_softmax(x, cdim)
    C = x.shape[cdim]
    w = np.ones(C) if weight is None else np.asarray(weight, F64)
    wshape = (C,) + (1,) * (x.ndim - cdim - 1)
    if np.asarray(t).dtype.kind == "f":
        tt = np.asarray(t, F64) * (1 - label_smoothing) + label_smoothing / C
        loss = -(logp * tt * w.reshape(wshape)).sum(cdim)
        return loss if reduction == "none" else (loss.sum() if reduction == "sum" else loss.sum() / loss.size)
    # class indices: move classes last and flatten positions
    lp = np.moveaxis(logp, cdim, -1).reshape(-1, C)
    tf = np.asarray(t).reshape(-1)
    keep = tf != ignore_index
    ts = np.where(keep, tf, 0)
    wt = np.where(keep, w[ts], 0.0)
    nll = -wt * lp[np.arange(len(ts)), ts]
    smooth = np.where(keep, -(lp * w).sum(1), 0.0)
    eps = label_smoothing
    if reduction == "none":
        loss = (1 - eps) * nll + eps / C * smooth
        return loss.reshape(np.asarray(t).shape)
    if reduction == "sum":
        return (1 - eps) * nll.sum() + eps / C * smooth.sum()
    return (1 - eps) * nll.sum() / wt.sum() + eps / C * smooth.sum() / wt.sum()


def _ce_samples(dtype):
    x = make((6, 5), dtype, -3, 3)
    t = _targets((6,), 5, 11, ignore=-100)
    w = make((5,), dtype, 0.5, 2, seed=12)
    probs = np.abs(make((6, 5), dtype, 0, 1, seed=13)) + 0.1
    probs = (probs / probs.sum(1, keepdims=True)).astype(probs.dtype)
    # weight is not differentiable (as in PyTorch): float64 samples, which gradcheck uses, go without it.
    wa = () if dtype == "float64" else (w,)
    out = [Sample((x, t) + wa, {"reduction": r, "label_smoothing": ls}, desc=f"{r} ls={ls}")
           for r in LOSS_REDUCTIONS for ls in (0.0, 0.2)]
    out += [Sample((x, probs), {"reduction": r, "label_smoothing": 0.1}, desc=f"probs {r}") for r in LOSS_REDUCTIONS]
    out += [Sample((make((2, 4, 3, 2), dtype, -3, 3, seed=14), _targets((2, 3, 2), 4, 15)), {}, desc="spatial"),
            Sample((make((5,), dtype, seed=16), np.array(1, np.int64)), {}, desc="1-d")]
    return out


_BAD_T = np.array([0, 1, 7], np.int64)
_X34 = np.ones((3, 4), np.float32)

LOSS_ERRORS = [
    ErrorCase((_X34, _BAD_T), {}, IndexError, "Target 7 is out of bounds"),
    ErrorCase((_X34, np.array([0, 1, 2, 3], np.int64)), {}, ValueError,
              r"Expected input batch_size \(3\) to match target batch_size \(4\)"),
    ErrorCase((_X34, np.array([0, 1, 2], np.int64)), {"reduction": "avg"}, ValueError,
              "avg is not a valid value for reduction"),
    ErrorCase((_X34, np.array([0, 1, 2], np.int64), np.ones(3, np.float32)), {}, RuntimeError,
              "weight tensor should be defined either for all 4 classes"),
    ErrorCase((_X34, np.array([0, 1, 2], np.int32)), {}, RuntimeError, "expected target dtype to be Long"),
]


def _pointwise_loss_samples(dtype, pos_target=False, extra=()):
    out = []
    for r in LOSS_REDUCTIONS:
        out.append(Sample((make((3, 4), dtype, -2, 2), make((3, 4), dtype, -2, 2, seed=1, positive=pos_target)),
                          {"reduction": r}, desc=r))
    out.append(Sample((make((2, 3), dtype, seed=2), make((3,), dtype, seed=3)), {}, desc="broadcast target"))
    for kw in extra:
        out.append(Sample((make((3, 4), dtype, -2, 2, seed=4), make((3, 4), dtype, -2, 2, seed=5)), dict(kw),
                          desc=repr(kw)))
    return out


def _prob(shape, dtype, seed):
    return make(shape, dtype, 0.05, 0.95, seed=seed, positive=True)


def _bce_samples(dtype):
    out = [Sample((_prob((3, 4), dtype, 1), _prob((3, 4), dtype, 2)), {"reduction": r}, desc=r)
           for r in LOSS_REDUCTIONS]
    out.append(Sample((_prob((3, 4), dtype, 3), _prob((3, 4), dtype, 4), _prob((4,), dtype, 5)), desc="weight"))
    return out


def _bce_ref(x, t, weight=None, reduction="mean"):
    x, t = np.asarray(x, F64), np.asarray(t, F64)
    loss = -(t * np.maximum(np.log(x), -100) + (1 - t) * np.maximum(np.log(1 - x), -100))
    return _reduce(loss * (1 if weight is None else weight), reduction)


def _bcel_samples(dtype):
    out = [Sample((make((3, 4), dtype), _prob((3, 4), dtype, 1)), {"reduction": r}, desc=r)
           for r in LOSS_REDUCTIONS]
    out.append(Sample((make((3, 4), dtype, seed=2), _prob((3, 4), dtype, 3), _prob((4,), dtype, 4), None, None,
                       "mean", make((4,), dtype, 0.5, 3, seed=5)), desc="weight+pos_weight"))
    return out


def _bcel_ref(x, t, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
    x, t = np.asarray(x, F64), np.asarray(t, F64)
    lw = 1 if pos_weight is None else (np.asarray(pos_weight, F64) - 1) * t + 1
    loss = (1 - t) * x + lw * _softplus(-x)
    return _reduce(loss * (1 if weight is None else weight), reduction)


def _smooth_l1_ref(x, y, reduction="mean", beta=1.0):
    d = np.abs(np.asarray(x, F64) - y)
    return _reduce(np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


def _huber_ref(x, y, reduction="mean", delta=1.0):
    d = np.abs(np.asarray(x, F64) - y)
    return _reduce(np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction)


def _kl_ref(x, t, reduction="mean", log_target=False):
    x, t = np.asarray(x, F64), np.asarray(t, F64)
    loss = np.exp(t) * (t - x) if log_target else np.where(t == 0, 0, t * np.log(np.where(t == 0, 1, t))) - t * x
    if reduction == "batchmean":
        return loss.sum() / x.shape[0]
    return _reduce(loss, reduction)


def _kl_samples(dtype):
    x = np.log(_prob((3, 4), dtype, 1)).astype(NP_DTYPE[dtype])
    t = _prob((3, 4), dtype, 2)
    return [Sample((x, t), {"reduction": r}, desc=r) for r in LOSS_REDUCTIONS + ("batchmean",)] + \
           [Sample((x, np.log(t)), {"log_target": True, "reduction": "sum"}, desc="log_target")]


def _poisson_ref(x, t, log_input=True, full=False, eps=1e-8, reduction="mean"):
    x, t = np.asarray(x, F64), np.asarray(t, F64)
    loss = np.exp(x) - t * x if log_input else x - t * np.log(x + eps)
    if full:
        st = t * np.log(np.where(t > 1, t, 1)) - t + 0.5 * np.log(2 * np.pi * np.where(t > 1, t, 1))
        loss = loss + np.where(t > 1, st, 0)
    return _reduce(loss, reduction)


def _poisson_samples(dtype):
    return [Sample((make((3, 4), dtype, -1, 1), make((3, 4), dtype, 0, 4, seed=1, positive=True)),
                   {"reduction": r}, desc=r) for r in LOSS_REDUCTIONS] + \
           [Sample((make((3, 4), dtype, 0.5, 2, seed=2, positive=True), make((3, 4), dtype, 0, 4, seed=3,
                                                                             positive=True)),
                   {"log_input": False, "full": True}, desc="full")]


def _gnll_ref(x, t, var, full=False, eps=1e-6, reduction="mean"):
    x, t, var = np.asarray(x, F64), np.asarray(t, F64), np.asarray(var, F64)
    if var.shape != x.shape and var.shape == x.shape[:-1]:
        var = var[..., None]
    var = np.maximum(var, eps)
    loss = 0.5 * (np.log(var) + (x - t) ** 2 / var) + (0.5 * np.log(2 * np.pi) if full else 0)
    return _reduce(loss, reduction)


def _gnll_samples(dtype):
    return [Sample((make((3, 4), dtype), make((3, 4), dtype, seed=1), make((3, 4), dtype, 0.5, 2, seed=2,
                                                                            positive=True)),
                   {"reduction": r}, desc=r) for r in LOSS_REDUCTIONS] + \
           [Sample((make((3, 4), dtype), make((3, 4), dtype, seed=1), make((3,), dtype, 0.5, 2, seed=3,
                                                                           positive=True)),
                   {"full": True}, desc="var per row")]


def _pm1(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    return np.where(rng.integers(0, 2, size=shape) > 0, 1.0, -1.0).astype(NP_DTYPE[dtype])


def _hinge_ref(x, t, margin=1.0, reduction="mean"):
    x = np.asarray(x, F64)
    return _reduce(np.where(t == 1, x, np.maximum(0, margin - x)), reduction)


def _mrl_ref(a, b, t, margin=0.0, reduction="mean"):
    return _reduce(np.maximum(0, -np.asarray(t, F64) * (np.asarray(a, F64) - b) + margin), reduction)


def _soft_margin_ref(x, t, reduction="mean"):
    return _reduce(np.log1p(np.exp(-np.asarray(t, F64) * x)), reduction)


def _mlsm_ref(x, t, weight=None, reduction="mean"):
    x, t = np.asarray(x, F64), np.asarray(t, F64)
    loss = -(t * -_softplus(-x) + (1 - t) * -_softplus(x))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss.mean(-1), reduction)


def _multi_margin_ref(x, t, p=1, margin=1.0, weight=None, reduction="mean"):
    x = np.asarray(x, F64)
    N, C = x.shape
    out = np.zeros(N)
    for n in range(N):
        y = t[n]
        for i in range(C):
            if i != y:
                z = max(0.0, margin - x[n, y] + x[n, i]) ** p
                out[n] += z * (1 if weight is None else weight[y])
    return _reduce(out / C, reduction)


def _mlm_ref(x, t, reduction="mean"):
    x = np.asarray(x, F64)
    N, C = x.shape
    out = np.zeros(N)
    for n in range(N):
        ys = []
        for v in t[n]:
            if v < 0:
                break
            ys.append(int(v))
        for y in ys:
            for i in range(C):
                if i not in ys:
                    out[n] += max(0.0, 1 - (x[n, y] - x[n, i]))
    return _reduce(out / C, reduction)


def _mlm_samples(dtype):
    t = np.array([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 1, 0, 0]], np.int64)
    return [Sample((make((3, 4), dtype, -1, 1), t), {"reduction": r}, desc=r) for r in LOSS_REDUCTIONS]


def _cos_emb_ref(a, b, t, margin=0.0, reduction="mean"):
    a, b = np.asarray(a, F64), np.asarray(b, F64)
    cos = (a * b).sum(-1) / np.sqrt(((a * a).sum(-1) + 1e-12) * ((b * b).sum(-1) + 1e-12))
    return _reduce(np.where(t == 1, 1 - cos, np.maximum(0, cos - margin)), reduction)


def _pdist_ref(a, b, p=2.0, eps=1e-6):
    d = np.asarray(a, F64) - b + eps
    return np.linalg.norm(d, ord=p, axis=-1) if p != 0 else (d != 0).sum(-1).astype(F64)


def _triplet_ref(a, p_, n, margin=1.0, p=2, eps=1e-6, swap=False, reduction="mean"):
    dp, dn = _pdist_ref(a, p_, p, eps), _pdist_ref(a, n, p, eps)
    if swap:
        dn = np.minimum(dn, _pdist_ref(p_, n, p, eps))
    return _reduce(np.maximum(0, margin + dp - dn), reduction)


def _triplet_samples(dtype):
    a, p, n = (make((4, 5), dtype, seed=s) for s in (1, 2, 3))
    return [Sample((a, p, n), {"reduction": r}, desc=r) for r in LOSS_REDUCTIONS] + \
           [Sample((a, p, n), {"swap": True, "p": 1, "margin": 2.0}, desc="swap p=1")]


def _ctc_ref(lp, targets, in_len, tg_len, blank=0, reduction="mean", zero_infinity=False):
    lp = np.asarray(lp, F64)
    T, N, C = lp.shape
    losses = []
    offsets = np.concatenate([[0], np.cumsum(tg_len)])
    for n in range(N):
        labels = list(targets[n, :tg_len[n]]) if targets.ndim == 2 else list(targets[offsets[n]:offsets[n + 1]])
        ext = [blank]
        for l in labels:
            ext += [l, blank]
        S = len(ext)
        alpha = np.full(S, -np.inf)
        alpha[0] = lp[0, n, ext[0]]
        if S > 1:
            alpha[1] = lp[0, n, ext[1]]
        for t in range(1, in_len[n]):
            new = np.full(S, -np.inf)
            for s in range(S):
                terms = [alpha[s]] + ([alpha[s - 1]] if s >= 1 else []) + \
                        ([alpha[s - 2]] if s >= 2 and ext[s] != blank and ext[s] != ext[s - 2] else [])
                m = max(terms)
                new[s] = (m + np.log(sum(np.exp(v - m) for v in terms)) if m > -np.inf else -np.inf) + lp[t, n, ext[s]]
            alpha = new
        tail = alpha[-2:] if S >= 2 else alpha
        m = tail.max()
        loss = -(m + np.log(np.exp(tail - m).sum())) if m > -np.inf else np.inf
        losses.append(0.0 if zero_infinity and np.isinf(loss) else loss)
    losses = np.array(losses)
    if reduction == "mean":
        return (losses / np.maximum(np.asarray(tg_len), 1)).mean()
    return losses.sum() if reduction == "sum" else losses


def _ctc_samples(dtype):
    x = make((6, 2, 4), dtype, -2, 2)
    lp = _log_softmax(x.astype(F64), 2).astype(x.dtype)
    targets = np.array([[1, 2, 2], [3, 1, 0]], np.int64)
    out = [Sample((lp, targets, [6, 5], [3, 2]), {"reduction": r}, desc=r) for r in LOSS_REDUCTIONS]
    # 1-D concatenated int32 targets, an empty target, and blank=3.
    out.append(Sample((lp, np.array([1, 2, 0], np.int32), [6, 4], [3, 0]), {"blank": 3, "reduction": "none"},
                      desc="concatenated"))
    # A target too long for its input: the loss is inf, or 0 with zero_infinity.
    x3 = make((3, 2, 4), dtype, -2, 2, seed=3)
    lp3 = _log_softmax(x3.astype(F64), 2).astype(x3.dtype)
    out.append(Sample((lp3, np.array([[1, 1, 2], [2, 3, 0]], np.int64), [3, 3], [3, 2]),
                      {"reduction": "sum", "zero_infinity": True}, desc="zero_infinity"))
    return out


def loss(name, ref, samples, dtypes=FLOAT_ONLY, errors=None, tol=None):
    return OpInfo(name, ref, samples, dtypes=dtypes, method=False, errors=errors or [
        ErrorCase((np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)), {"reduction": "avg"}, ValueError,
                  "not a valid value for reduction")], tol=tol)


_SHAPE_ERR = ErrorCase((np.ones((2, 3), np.float32), np.ones((2, 5), np.float32)), {}, RuntimeError,
                       "must match the size")

LOSSES = [
    OpInfo("nn.functional.nll_loss", _nll_ref, _nll_samples, dtypes=FLOATING, method=False, errors=LOSS_ERRORS,
           tol={"float16": (1e-2, 1e-2), "bfloat16": (2e-2, 5e-2)}),
    OpInfo("nn.functional.cross_entropy", _ce_ref, _ce_samples, dtypes=FLOAT_ONLY, method=False,
           errors=LOSS_ERRORS + [ErrorCase((_X34, np.array([0, 1, 2], np.int64)), {"label_smoothing": 1.5},
                                           RuntimeError, "label_smoothing must be between 0.0 and 1.0")]),
    loss("nn.functional.mse_loss", lambda x, y, reduction="mean": _reduce((np.asarray(x, F64) - y) ** 2, reduction),
         lambda dt: _pointwise_loss_samples(dt), dtypes=FLOATING, errors=[_SHAPE_ERR]),
    loss("nn.functional.l1_loss", lambda x, y, reduction="mean": _reduce(np.abs(np.asarray(x, F64) - y), reduction),
         lambda dt: _pointwise_loss_samples(dt), errors=[_SHAPE_ERR]),
    loss("nn.functional.smooth_l1_loss", _smooth_l1_ref,
         lambda dt: _pointwise_loss_samples(dt, extra=[{"beta": 0.5}]),
         errors=[ErrorCase((np.ones(3, np.float32), np.ones(3, np.float32)), {"beta": -1.0}, RuntimeError,
                           "negative values for beta")]),
    loss("nn.functional.huber_loss", _huber_ref, lambda dt: _pointwise_loss_samples(dt, extra=[{"delta": 0.7}]),
         errors=[ErrorCase((np.ones(3, np.float32), np.ones(3, np.float32)), {"delta": 0.0}, RuntimeError,
                           "non-positive values for delta")]),
    loss("nn.functional.binary_cross_entropy", _bce_ref, _bce_samples,
         errors=[ErrorCase((np.full((2, 3), 0.5, np.float32), np.ones((3,), np.float32)), {}, ValueError,
                           "different to the input size")]),
    loss("nn.functional.binary_cross_entropy_with_logits", _bcel_ref, _bcel_samples,
         errors=[ErrorCase((np.ones((2, 3), np.float32), np.ones((3,), np.float32)), {}, ValueError,
                           r"must be the same as input size")]),
    loss("nn.functional.kl_div", _kl_ref, _kl_samples, errors=[_SHAPE_ERR]),
    loss("nn.functional.poisson_nll_loss", _poisson_ref, _poisson_samples),
    loss("nn.functional.gaussian_nll_loss", _gnll_ref, _gnll_samples,
         errors=[ErrorCase((np.ones((2, 3), np.float32), np.ones((2, 3), np.float32), np.ones((4,), np.float32)),
                           {}, ValueError, "var is of incorrect size"),
                 ErrorCase((np.ones(3, np.float32), np.ones(3, np.float32), -np.ones(3, np.float32)), {},
                           ValueError, "var has negative entry")]),
    loss("nn.functional.hinge_embedding_loss", _hinge_ref,
         lambda dt: [Sample((make((3, 4), dt), _pm1((3, 4), dt, 1)), {"reduction": r, "margin": 1.5}, desc=r)
                     for r in LOSS_REDUCTIONS]),
    loss("nn.functional.margin_ranking_loss", _mrl_ref,
         lambda dt: [Sample((make((5,), dt), make((5,), dt, seed=1), _pm1((5,), dt, 2)),
                            {"reduction": r, "margin": 0.3}, desc=r) for r in LOSS_REDUCTIONS],
         errors=[ErrorCase((np.ones(3, np.float32), np.ones(3, np.float32), np.ones((1, 3), np.float32)), {},
                           RuntimeError, "All input tensors should have same dimension")]),
    loss("nn.functional.soft_margin_loss", _soft_margin_ref,
         lambda dt: [Sample((make((3, 4), dt), _pm1((3, 4), dt, 1)), {"reduction": r}, desc=r)
                     for r in LOSS_REDUCTIONS]),
    loss("nn.functional.multilabel_soft_margin_loss", _mlsm_ref,
         lambda dt: [Sample((make((3, 4), dt), (_pm1((3, 4), dt, 1) > 0).astype(make((1,), dt).dtype)),
                            {"reduction": r}, desc=r) for r in LOSS_REDUCTIONS] +
                    [Sample((make((3, 4), dt), (_pm1((3, 4), dt, 2) > 0).astype(make((1,), dt).dtype),
                             _prob((4,), dt, 3)), desc="weight")]),
    loss("nn.functional.multi_margin_loss", _multi_margin_ref,
         lambda dt: [Sample((make((4, 5), dt, -1, 1), _targets((4,), 5, 1)), {"reduction": r}, desc=r)
                     for r in LOSS_REDUCTIONS] +
                    [Sample((make((4, 5), dt, -1, 1), _targets((4,), 5, 2), 2, 0.5, _prob((5,), dt, 3)),
                            desc="p=2 weight")],
         errors=[ErrorCase((np.ones((2, 3), np.float32), np.array([0, 5], np.int64)), {}, IndexError,
                           "target out of range")]),
    loss("nn.functional.multilabel_margin_loss", _mlm_ref, _mlm_samples,
         errors=[ErrorCase((np.ones((2, 3), np.float32), np.array([[0, 5, -1], [0, 1, 2]], np.int64)), {},
                           IndexError, "target out of range")]),
    loss("nn.functional.cosine_embedding_loss", _cos_emb_ref,
         lambda dt: [Sample((make((4, 5), dt), make((4, 5), dt, seed=1), _pm1((4,), dt, 2)),
                            {"reduction": r, "margin": 0.1}, desc=r) for r in LOSS_REDUCTIONS],
         errors=[ErrorCase((np.ones((2, 3), np.float32), np.ones((2, 4), np.float32), np.ones(2, np.float32)), {},
                           RuntimeError, "must have the same shape")]),
    loss("nn.functional.triplet_margin_loss", _triplet_ref, _triplet_samples,
         errors=[ErrorCase((np.ones((2, 3), np.float32), np.ones((2, 3), np.float32), np.ones(3, np.float32)), {},
                           RuntimeError, "same number of dimensions")]),
    loss("nn.functional.triplet_margin_with_distance_loss",
         lambda a, p, n, margin=1.0, swap=False, reduction="mean": _triplet_ref(a, p, n, margin, 2, 1e-6, swap,
                                                                                reduction),
         lambda dt: [Sample(s.args, {k: v for k, v in s.kwargs.items() if k in ("reduction",)}, desc=s.desc)
                     for s in _triplet_samples(dt)[:3]],
         errors=[ErrorCase((np.ones((2, 3), np.float32),) * 3, {"margin": 0.0}, ValueError,
                           "expected margin to be greater than 0")]),
    OpInfo("nn.functional.ctc_loss", _ctc_ref, _ctc_samples, dtypes=FLOATING, method=False,
         tol={"float32": (1e-4, 1e-5), "float16": (2e-3, 1e-2), "bfloat16": (2e-2, 5e-2)},
         errors=[ErrorCase((np.zeros((6, 2, 4), np.float32), np.array([[1, 2], [1, 1]], np.int64), [7, 5], [2, 2]),
                           {}, RuntimeError, "Expected input_lengths to have value at most 6"),
                 ErrorCase((np.zeros((6, 2, 4), np.float32), np.array([[1, 4], [1, 1]], np.int64), [6, 5], [2, 2]),
                           {}, RuntimeError, "target label 4 is out of range"),
                 ErrorCase((np.zeros((6, 2, 4), np.float32), np.array([[1, 2], [1, 1]], np.int64), [6], [2, 2]),
                           {}, RuntimeError, "input_lengths must be of size batch_size"),
                 ErrorCase((np.zeros((6, 2, 4), np.float32), np.array([[1, 2], [1, 1]], np.int64), [6, 5], [2, 2]),
                           {"blank": 4}, RuntimeError, "blank must be in label range"),
                 ErrorCase((np.zeros((6, 2, 4), np.float32), np.array([[1, 2], [1, 1]], np.int64), [6, 5], [3, 2]),
                           {}, RuntimeError, "Expected tensor to have size at least 3")]),
]


# ---------------------------------------------------------------- distances, shapes, pad

def _cos_sim_ref(a, b, dim=1, eps=1e-8):
    a, b = np.broadcast_arrays(np.asarray(a, F64), np.asarray(b, F64))
    return (a * b).sum(dim) / np.sqrt(np.maximum((a * a).sum(dim) * (b * b).sum(dim), eps * eps))


def _cdist_ref(a, b, p=2.0, compute_mode=None):
    d = np.asarray(a, F64)[..., :, None, :] - np.asarray(b, F64)[..., None, :, :]
    if p == 0:
        return (d != 0).sum(-1).astype(F64)
    if np.isinf(p):
        return np.abs(d).max(-1)
    return (np.abs(d) ** p).sum(-1) ** (1 / p)


def _pdist_rows_ref(x, p=2.0):
    x = np.asarray(x, F64)
    N = x.shape[0]
    return np.array([_cdist_ref(x[i:i + 1], x[j:j + 1], p)[0, 0] for i in range(N) for j in range(i + 1, N)])


def _pixel_shuffle_ref(x, r):
    *b, c, h, w = x.shape
    y = x.reshape(*b, c // (r * r), r, r, h, w)
    nb = len(b)
    y = y.transpose(*range(nb), nb, nb + 3, nb + 1, nb + 4, nb + 2)
    return y.reshape(*b, c // (r * r), h * r, w * r)


def _pixel_unshuffle_ref(x, r):
    *b, c, h, w = x.shape
    nb = len(b)
    y = x.reshape(*b, c, h // r, r, w // r, r).transpose(*range(nb), nb, nb + 2, nb + 4, nb + 1, nb + 3)
    return y.reshape(*b, c * r * r, h // r, w // r)


def _one_hot_ref(t, num_classes=-1):
    n = int(t.max()) + 1 if num_classes == -1 else num_classes
    return (np.asarray(t)[..., None] == np.arange(n)).astype(np.int64)


_NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _pad_ref(x, pad, mode="constant", value=None):
    x = np.asarray(x)
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    neg = [(max(-l, 0), max(-r, 0)) for l, r in widths]
    sl = tuple(slice(a, x.shape[d] - b) for d, (a, b) in enumerate(neg))
    x = x[sl]
    widths = [(max(l, 0), max(r, 0)) for l, r in widths]
    if mode == "constant":
        return np.pad(x, widths, mode="constant", constant_values=0 if value is None else value)
    return np.pad(x, widths, mode=_NP_MODE[mode])


def _pad_samples(dtype):
    out = [Sample((make((2, 3), dtype), [1, 2]), {}, desc="const 1d"),
           Sample((make((2, 3, 4), dtype, seed=1), [1, 0, 2, 1, 0, 1]), {"value": 1.5 if dtype != "int64" else 2},
                  desc="const 3 dims value"),
           Sample((make((2, 3, 4), dtype, seed=2), [-1, 1]), {}, desc="negative crops")]
    for mode in ("reflect", "replicate", "circular"):
        out += [Sample((make((2, 5), dtype, seed=3), [2, 1]), {"mode": mode}, desc=f"{mode} 1d unbatched"),
                Sample((make((1, 2, 4, 5), dtype, seed=4), [1, 2, 3, 1]), {"mode": mode}, desc=f"{mode} 2d"),
                Sample((make((1, 1, 3, 3, 4), dtype, seed=5), [1, 1, 2, 0, 1, 2]), {"mode": mode},
                       desc=f"{mode} 3d")]
    return out


SHAPES = [
    OpInfo("cosine_similarity", _cos_sim_ref,
           lambda dt: [Sample((make((3, 4), dt), make((3, 4), dt, seed=1)), desc="dim1"),
                       Sample((make((2, 3, 4), dt), make((3, 4), dt, seed=2)), {"dim": -1}, desc="broadcast"),
                       Sample((make((4, 3), dt), make((4, 3), dt, seed=3)), {"dim": 0, "eps": 1e-3}, desc="dim0")],
           dtypes=FLOAT_ONLY, method=False,
           errors=[ErrorCase((np.ones((2, 3), np.float32), np.ones((4, 3), np.float32)), {}, RuntimeError,
                             "")]),
    OpInfo("pairwise_distance", lambda a, b, p=2.0, eps=1e-6, keepdim=False: (
        np.expand_dims(_pdist_ref(a, b, p, eps), -1) if keepdim else _pdist_ref(a, b, p, eps)),
           lambda dt: [Sample((make((3, 4), dt), make((3, 4), dt, seed=1)), desc="p=2"),
                       Sample((make((3, 4), dt), make((4,), dt, seed=2)), {"p": 1.0, "keepdim": True},
                              desc="p=1 broadcast keepdim"),
                       Sample((make((3, 4), dt), make((3, 4), dt, seed=3)), {"p": 3.0}, desc="p=3")],
           dtypes=FLOAT_ONLY, method=False,
           errors=[ErrorCase((np.ones((2, 3), np.float32), np.ones((2, 4), np.float32)), {}, RuntimeError, "")]),
    OpInfo("pdist", _pdist_rows_ref,
           lambda dt: [Sample((make((5, 3), dt),), desc="p=2"), Sample((make((4, 3), dt, seed=1), 1.0), desc="p=1")],
           dtypes=FLOAT_ONLY, method=False,
           errors=[ErrorCase((np.ones(3, np.float32),), {}, RuntimeError, "pdist only supports 2D tensors")]),
    OpInfo("cdist", _cdist_ref,
           lambda dt: [Sample((make((3, 4), dt), make((5, 4), dt, seed=1)), desc="p=2"),
                       Sample((make((2, 3, 4), dt, seed=2), make((2, 5, 4), dt, seed=3)), {"p": 1.0}, desc="batched p=1"),
                       Sample((make((3, 4), dt, seed=4), make((2, 4), dt, seed=5)),
                              {"compute_mode": "use_mm_for_euclid_dist"}, desc="mm"),
                       Sample((make((3, 4), dt, seed=6), make((2, 4), dt, seed=7)), {"p": float("inf")}, desc="inf")],
           dtypes=FLOAT_ONLY, method=False, tol={"float32": (1e-4, 1e-5)},
           errors=[ErrorCase((np.ones((2, 3), np.float32), np.ones((2, 4), np.float32)), {}, RuntimeError,
                             "must have the same number of columns")]),
    OpInfo("pixel_shuffle", _pixel_shuffle_ref,
           lambda dt: [Sample((make((1, 8, 2, 3), dt), 2), desc="r=2"), Sample((make((9, 2, 2), dt, seed=1), 3),
                                                                              desc="unbatched r=3")],
           dtypes=FLOATING + ("int64",), method=False,
           errors=[ErrorCase((np.ones((1, 3, 2, 2), np.float32), 2), {}, RuntimeError, "divisible by the square")]),
    OpInfo("pixel_unshuffle", _pixel_unshuffle_ref,
           lambda dt: [Sample((make((1, 2, 4, 6), dt), 2), desc="r=2")],
           dtypes=FLOATING + ("int64",), method=False,
           errors=[ErrorCase((np.ones((1, 3, 3, 2), np.float32), 2), {}, RuntimeError, "divisible by downscale")]),
    OpInfo("nn.functional.one_hot", _one_hot_ref,
           lambda dt: [Sample((np.array([0, 3, 1, 2], np.int64),), desc="infer", meta=False),
                       Sample((np.array([[0, 1], [2, 0]], np.int64), 5), desc="num_classes")],
           dtypes=("int64",), method=False, grad=False,
           errors=[ErrorCase((np.array([0, 4], np.int64), 3), {}, RuntimeError, "smaller than num_classes"),
                   ErrorCase((np.array([0.0, 1.0], np.float32),), {}, RuntimeError, "LongTensor")]),
    OpInfo("nn.functional.pad", _pad_ref, _pad_samples, dtypes=FLOAT_ONLY + ("int64",), method=False,
           errors=[ErrorCase((np.ones((2, 3), np.float32), [1]), {}, RuntimeError, "divisible by 2"),
                   ErrorCase((np.ones((1, 2, 3), np.float32), [3, 0]), {"mode": "reflect"}, RuntimeError,
                             "Padding size should be less than"),
                   ErrorCase((np.ones((2, 3), np.float32), [1, 1]), {"mode": "wrap"}, NotImplementedError,
                             "Unrecognised padding mode")]),
]

OPS = ACTIVATIONS + LOSSES + SHAPES


# ---- one bad call for the Python-composite activations without one (as PyTorch: not a tensor).
for _op in OPS:
    if not _op.errors and _op.name == "nn.functional.softsign":
        _op.errors = [ErrorCase(("x",), {}, AttributeError, "has no attribute 'abs'")]
    if not _op.errors and _op.name == "nn.functional.tanhshrink":
        _op.errors = [ErrorCase(("x",), {}, TypeError, "must be Tensor, not str")]
