"""nn activations, losses, distances and pad: what the op registry cannot say
(in-place forms, inplace=, top-level torchlike.* names with integer
reductions, rrelu's generator, double backward, error paths), then parity with
PyTorch for the combinations of reduction/weight/ignore_index/label_smoothing."""
import numpy as np
import pytest

import torchlike as tl
import torchlike.nn.functional as F
from torchlike.autograd.gradcheck import gradcheck, gradgradcheck

try:
    import torch
    import torch.nn.functional as PF
except ImportError:  # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")
RNG = np.random.default_rng(1234)


def rand(*shape, low=-3, high=3):
    return RNG.uniform(low, high, size=shape)


def tl64(a, grad=False):
    t = tl.tensor(np.asarray(a, np.float64))
    return t.requires_grad_(True) if grad else t


# ---------------------------------------------------------------- activations: in-place forms

INPLACE = [("relu_", lambda x: F.relu_(x), lambda a: np.maximum(a, 0)),
           ("relu inplace", lambda x: F.relu(x, inplace=True), lambda a: np.maximum(a, 0)),
           ("relu6 inplace", lambda x: F.relu6(x, inplace=True), lambda a: np.clip(a, 0, 6)),
           ("hardtanh_", lambda x: F.hardtanh_(x, -0.5, 0.5), lambda a: np.clip(a, -0.5, 0.5)),
           ("leaky_relu_", lambda x: F.leaky_relu_(x, 0.1), lambda a: np.where(a > 0, a, 0.1 * a)),
           ("elu_", lambda x: F.elu_(x), lambda a: np.where(a > 0, a, np.expm1(a))),
           ("selu_", lambda x: tl.selu_(x), None),
           ("celu_", lambda x: F.celu_(x, 2.0), lambda a: np.where(a > 0, a, 2 * np.expm1(a / 2))),
           ("threshold_", lambda x: tl.threshold_(x, 0.5, -1.0), lambda a: np.where(a <= 0.5, -1.0, a)),
           ("silu inplace", lambda x: F.silu(x, inplace=True), lambda a: a / (1 + np.exp(-a))),
           ("hardswish inplace", lambda x: F.hardswish(x, inplace=True), lambda a: a * np.clip(a + 3, 0, 6) / 6),
           ("rrelu_ eval", lambda x: tl.rrelu_(x), lambda a: np.where(a > 0, a, a * (1 / 8 + 1 / 3) / 2))]


@pytest.mark.parametrize("name,call,ref", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_activations_write_their_input(name, call, ref):
    a = rand(4, 5)
    x = tl64(a)
    v0 = x._version
    r = call(x)
    assert r is x and x._version > v0
    if ref is not None:
        np.testing.assert_allclose(x.numpy(), ref(a), rtol=1e-12, atol=1e-12)


def test_activation_errors():
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(tl.ones(3), approximate="bad")
    with pytest.raises(RuntimeError, match="lambda must be greater or equal to 0"):
        F.softshrink(tl.ones(3), -0.5)
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        F.glu(tl.ones(3, 5))
    with pytest.raises((RuntimeError, NotImplementedError), match="Long"):
        F.elu(tl.tensor([1, 2]))


def test_rrelu_training_draws_slopes_from_the_generator():
    x = -tl.ones(1000, dtype=tl.float64)
    tl.manual_seed(0)
    a = F.rrelu(x, 0.1, 0.3, training=True)
    tl.manual_seed(0)
    b = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = -a.numpy()
    assert np.array_equal(a.numpy(), b.numpy())
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    xp = tl64(rand(20), grad=True)
    assert gradcheck(lambda t: F.rrelu(t, 0.1, 0.3, training=False), (xp,))


def test_prelu_weight_gradient_sums_over_positions():
    x = tl64(rand(2, 3, 4), grad=True)
    w = tl64(RNG.uniform(0, 1, 3), grad=True)
    assert gradcheck(F.prelu, (x, w))
    assert gradcheck(tl.prelu, (tl64(rand(5), grad=True), tl64([0.25], grad=True)))


# ---------------------------------------------------------------- losses: top-level names and error paths

def test_top_level_losses_take_integer_reductions():
    a, b = tl64(rand(3, 4)), tl64(RNG.uniform(0.1, 0.9, (3, 4)))
    for r, s in ((0, "none"), (1, "mean"), (2, "sum")):
        np.testing.assert_allclose(tl.binary_cross_entropy_with_logits(a, b, reduction=r).numpy(),
                                   F.binary_cross_entropy_with_logits(a, b, reduction=s).numpy())
        np.testing.assert_allclose(tl.kl_div(a, b, r).numpy(), F.kl_div(a, b, reduction=s).numpy())
        np.testing.assert_allclose(tl.hinge_embedding_loss(a, b, 1.0, r).numpy(),
                                   F.hinge_embedding_loss(a, b, 1.0, reduction=s).numpy())
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        tl.kl_div(a, b, 7)


@pytest.mark.parametrize("fn,args", [
    (F.mse_loss, (tl.ones(3), tl.ones(3))), (F.l1_loss, (tl.ones(3), tl.ones(3))),
    (F.nll_loss, (tl.ones(2, 3), tl.tensor([0, 1]))), (F.cross_entropy, (tl.ones(2, 3), tl.tensor([0, 1]))),
    (F.binary_cross_entropy, (tl.full((3,), 0.5), tl.ones(3))),
    (F.smooth_l1_loss, (tl.ones(3), tl.ones(3))), (F.soft_margin_loss, (tl.ones(3), tl.ones(3)))])
def test_bad_reduction_string_raises(fn, args):
    with pytest.raises(ValueError, match="bogus is not a valid value for reduction"):
        fn(*args, reduction="bogus")


def test_nll_loss_target_checks():
    x = tl.zeros(2, 3, 4)
    with pytest.raises(IndexError, match="Target 3 is out of bounds"):
        F.cross_entropy(x, tl.tensor([[0, 1, 2, 3], [0, 0, 0, 0]]))
    with pytest.raises(IndexError, match="Target -2 is out of bounds"):
        F.nll_loss(tl.zeros(2, 3), tl.tensor([0, -2]))
    with pytest.raises(RuntimeError, match="Expected target size"):
        F.nll_loss(x, tl.zeros(2, 5, dtype=tl.int64))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte"):
        F.nll_loss(tl.zeros(2, 3), tl.tensor([0.0, 1.0]))
    # An out-of-range target is caught in backward too (never written out of bounds).
    g = tl.ones(())
    with pytest.raises(IndexError, match="out of bounds"):
        tl._C._nn.nll_loss_backward(g, tl.zeros(2, 3), tl.tensor([0, 9]), None, 1, -100, tl.ones(()))


def test_nll_loss_all_ignored_mean_is_nan_and_sum_is_zero():
    x = tl.zeros(3, 4)
    t = tl.tensor([-100, -100, -100])
    assert np.isnan(F.nll_loss(x, t).item())
    assert F.nll_loss(x, t, reduction="sum").item() == 0.0


def test_nll_loss_uint8_target_and_half_input():
    x = tl.tensor(rand(4, 3).astype(np.float32))
    t8 = tl.tensor(np.array([0, 2, 1, 2], np.uint8))
    t64 = tl.tensor(np.array([0, 2, 1, 2], np.int64))
    assert F.nll_loss(x, t8).item() == F.nll_loss(x, t64).item()
    h = F.nll_loss(tl.tensor(x, dtype=tl.float16), t64)
    assert h.dtype == tl.float16 and abs(h.item() - F.nll_loss(x, t64).item()) < 1e-2


def test_cross_entropy_double_backward():
    x = tl64(rand(4, 5), grad=True)
    t = tl.tensor([0, 4, 2, -100])
    assert gradgradcheck(lambda v: F.cross_entropy(v, t, label_smoothing=0.1), (x,))
    assert gradgradcheck(lambda v: F.nll_loss(v, t, reduction="none"), (x,))


def test_weight_is_not_differentiable_as_in_pytorch():
    x = tl64(rand(3, 4), grad=True)
    w = tl64(RNG.uniform(0.5, 1, 4), grad=True)
    loss = F.nll_loss(x, tl.tensor([0, 1, 2]), w)
    with pytest.raises(NotImplementedError, match="with respect to 'weight'"):
        loss.backward()


def test_one_hot_and_pad_errors():
    np.testing.assert_array_equal(F.one_hot(tl.tensor([2, 0])).numpy(), [[0, 0, 1], [1, 0, 0]])
    with pytest.raises(RuntimeError, match="Class values must be non-negative"):
        F.one_hot(tl.tensor([-1, 0]))
    with pytest.raises(RuntimeError, match="Can not infer total number of classes"):
        F.one_hot(tl.zeros(0, dtype=tl.int64))
    with pytest.raises(NotImplementedError, match="Only 2D, 3D, 4D, 5D padding"):
        F.pad(tl.ones(3, 4), [1, 1, 1, 1], mode="reflect")
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        F.pad(tl.ones(1, 2, 3), [4, 0], mode="circular")


# ---------------------------------------------------------------- PyTorch parity

def _both(a, dtype=np.float64):
    return tl.tensor(np.asarray(a, dtype)), torch.tensor(np.asarray(a, dtype))


def _grad_parity(tl_fn, pt_fn, arrays, rtol=1e-6, atol=1e-8):
    tl_in = [tl.tensor(a).requires_grad_(True) for a in arrays]
    pt_in = [torch.tensor(a).requires_grad_(True) for a in arrays]
    r1, r2 = tl_fn(*tl_in), pt_fn(*pt_in)
    np.testing.assert_allclose(r1.detach().numpy(), r2.detach().numpy(), rtol=rtol, atol=atol)
    g = RNG.standard_normal(tuple(r2.shape))
    r1.backward(tl.tensor(g))
    r2.backward(torch.tensor(g))
    for a, b in zip(tl_in, pt_in):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=atol)


ACT_NAMES = ["relu", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish", "hardtanh",
             "hardsigmoid", "hardswish", "hardshrink", "softshrink", "tanhshrink", "softplus", "softsign",
             "logsigmoid", "sigmoid", "tanh"]


@needs_torch
@pytest.mark.parametrize("name", ACT_NAMES)
def test_activation_parity(name):
    a = rand(3, 7)
    _grad_parity(getattr(F, name), getattr(PF, name), [a])


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_gelu_low_precision_parity(dtype):
    a = rand(1000).astype(np.float32)
    for approx in ("none", "tanh"):
        got = F.gelu(tl.tensor(a, dtype=getattr(tl, dtype)), approximate=approx)
        want = PF.gelu(torch.tensor(a).to(getattr(torch, dtype)), approximate=approx)
        np.testing.assert_allclose(tl.tensor(got, dtype=tl.float32).numpy(), want.float().numpy(),
                                   rtol={"float32": 1e-5, "float16": 2e-3, "bfloat16": 2e-2}[dtype], atol=1e-5)


@needs_torch
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 2])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.3])
def test_cross_entropy_parity(reduction, weighted, ignore_index, label_smoothing):
    x = rand(6, 5)
    t = np.array([0, 2, 4, 1, 2, 3])
    if ignore_index == -100:
        t[1] = -100
    w = RNG.uniform(0.5, 2, 5) if weighted else None

    def call(mod, Fm):
        def f(v):
            return Fm.cross_entropy(v, mod.tensor(t), None if w is None else mod.tensor(w),
                                    ignore_index=ignore_index, reduction=reduction, label_smoothing=label_smoothing)
        return f
    _grad_parity(call(tl, F), call(torch, PF), [x])


@needs_torch
@pytest.mark.parametrize("label_smoothing", [0.0, 0.2])
def test_cross_entropy_spatial_and_probability_parity(label_smoothing):
    x = rand(2, 4, 3, 5)
    t = RNG.integers(0, 4, (2, 3, 5))
    t[0, 0, 0] = -100
    w = RNG.uniform(0.5, 2, 4)
    _grad_parity(lambda v: F.cross_entropy(v, tl.tensor(t), tl.tensor(w), label_smoothing=label_smoothing),
                 lambda v: PF.cross_entropy(v, torch.tensor(t), torch.tensor(w), label_smoothing=label_smoothing), [x])
    p = RNG.uniform(0, 1, (2, 4, 3, 5))
    p /= p.sum(1, keepdims=True)
    _grad_parity(lambda v: F.cross_entropy(v, tl.tensor(p), tl.tensor(w), label_smoothing=label_smoothing),
                 lambda v: PF.cross_entropy(v, torch.tensor(p), torch.tensor(w), label_smoothing=label_smoothing),
                 [x])


@needs_torch
def test_loss_parity():
    a, b = rand(4, 5), rand(4, 5)
    pr, tg = RNG.uniform(0.05, 0.95, (4, 5)), RNG.uniform(0, 1, (4, 5))
    pm = np.where(RNG.integers(0, 2, (4, 5)) > 0, 1.0, -1.0)
    cases = [("mse_loss", [a, b], {}), ("l1_loss", [a, b], {}), ("smooth_l1_loss", [a, b], {"beta": 0.5}),
             ("huber_loss", [a, b], {"delta": 0.7}), ("binary_cross_entropy", [pr, tg], {}),
             ("soft_margin_loss", [a, pm], {}), ("hinge_embedding_loss", [a, pm], {"margin": 0.5}),
             ("kl_div", [np.log(pr), tg], {"reduction": "batchmean"}),
             ("poisson_nll_loss", [a, np.abs(b)], {"full": True}),
             ("gaussian_nll_loss", [a, b, np.abs(b) + 0.1], {"full": True}),
             ("cosine_embedding_loss", [a, b, pm[:, 0]], {"margin": 0.2}),
             ("margin_ranking_loss", [a[:, 0], b[:, 0], pm[:, 0]], {"margin": 0.1}),
             ("triplet_margin_loss", [a, b, rand(4, 5)], {"swap": True}),
             ("multilabel_soft_margin_loss", [a, (pm > 0).astype(np.float64)], {})]
    for name, arrays, kw in cases:
        n_diff = 2 if name in ("soft_margin_loss", "hinge_embedding_loss", "cosine_embedding_loss",
                               "margin_ranking_loss", "multilabel_soft_margin_loss") else len(arrays)
        diff, fixed = arrays[:n_diff], arrays[n_diff:]
        if name in ("soft_margin_loss", "hinge_embedding_loss", "multilabel_soft_margin_loss"):
            diff, fixed = arrays[:1], arrays[1:]

        def mk(mod, Fm):
            return lambda *v: getattr(Fm, name)(*v, *[mod.tensor(f) for f in fixed], **kw)
        _grad_parity(mk(tl, F), mk(torch, PF), diff)
    pw = RNG.uniform(0.5, 2, 5)
    _grad_parity(lambda v: F.binary_cross_entropy_with_logits(v, tl.tensor(tg), pos_weight=tl.tensor(pw)),
                 lambda v: PF.binary_cross_entropy_with_logits(v, torch.tensor(tg), pos_weight=torch.tensor(pw)),
                 [a])
    t = np.array([1, 0, 4, 2])
    _grad_parity(lambda v: F.multi_margin_loss(v, tl.tensor(t), p=2, margin=0.7),
                 lambda v: PF.multi_margin_loss(v, torch.tensor(t), p=2, margin=0.7), [a])
    mt = np.array([[3, 0, -1, 1, 1], [1, 2, 3, 0, 4], [-1, 1, 0, 0, 0], [4, -1, 2, 2, 2]])
    _grad_parity(lambda v: F.multilabel_margin_loss(v, tl.tensor(mt)),
                 lambda v: PF.multilabel_margin_loss(v, torch.tensor(mt)), [a])


@needs_torch
def test_ctc_loss_parity():
    T, N, C = 8, 3, 5
    lp = np.log(RNG.dirichlet(np.ones(C), size=(T, N)))
    targets = np.array([[1, 2, 2, 3], [4, 1, 0, 0], [2, 0, 0, 0]])
    il, tl_ = [8, 7, 5], [4, 2, 1]
    # PyTorch's ctc backward returns the gradient as it is after a log_softmax
    # (Graves' eq. 16), not d loss / d log_probs; compare through log_softmax.
    logits = rand(T, N, C)
    for red in ("none", "mean", "sum"):
        _grad_parity(lambda v: F.ctc_loss(v - tl.logsumexp(v, 2, keepdim=True), tl.tensor(targets), il, tl_,
                                          reduction=red),
                     lambda v: PF.ctc_loss(PF.log_softmax(v, 2), torch.tensor(targets), il, tl_, reduction=red),
                     [logits], rtol=1e-5)
    # 1-D concatenated targets and an impossible alignment (zero_infinity).
    flat = np.array([1, 2, 2, 3, 4, 1, 2])
    r1 = F.ctc_loss(tl.tensor(lp), tl.tensor(flat), il, tl_, reduction="none")
    r2 = PF.ctc_loss(torch.tensor(lp), torch.tensor(flat), il, tl_, reduction="none")
    np.testing.assert_allclose(r1.numpy(), r2.numpy(), rtol=1e-6)
    bad = np.array([[1, 1, 1, 1]])
    for zi in (False, True):
        r1 = F.ctc_loss(tl.tensor(lp[:3, :1]), tl.tensor(bad), [3], [4], reduction="sum", zero_infinity=zi)
        r2 = PF.ctc_loss(torch.tensor(lp[:3, :1]), torch.tensor(bad), [3], [4], reduction="sum", zero_infinity=zi)
        assert r1.item() == r2.item()


@needs_torch
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_parity_with_backward(mode):
    for shape, pad in [((2, 3, 6), (2, 1)), ((1, 2, 4, 5), (1, 2, 3, 1)), ((1, 1, 3, 4, 5), (1, 0, 2, 1, 0, 2)),
                       ((3, 6), (-1, 2))]:
        if mode != "constant" and pad[0] < 0:
            continue
        a = rand(*shape)
        kw = {"value": 0.5} if mode == "constant" else {}
        _grad_parity(lambda v: F.pad(v, pad, mode=mode, **kw), lambda v: PF.pad(v, pad, mode=mode, **kw), [a])


@needs_torch
def test_distance_parity():
    a, b = rand(5, 4), rand(7, 4)
    for p in (1.0, 2.0, 3.0):
        _grad_parity(lambda u, v: F.cdist(u, v, p), lambda u, v: torch.cdist(u, v, p), [a, b])
        _grad_parity(lambda u: F.pdist(u, p), lambda u: PF.pdist(u, p), [a])
        _grad_parity(lambda u, v: F.pairwise_distance(u, v, p), lambda u, v: PF.pairwise_distance(u, v, p),
                     [a, rand(5, 4)])
    big1, big2 = rand(30, 4), rand(40, 4)
    for mode in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
        np.testing.assert_allclose(tl.cdist(tl.tensor(big1), tl.tensor(big2), compute_mode=mode).numpy(),
                                   torch.cdist(torch.tensor(big1), torch.tensor(big2), compute_mode=mode).numpy(),
                                   rtol=1e-6, atol=1e-9)
    _grad_parity(lambda u, v: F.cosine_similarity(u, v, dim=-1), lambda u, v: PF.cosine_similarity(u, v, dim=-1),
                 [a, rand(4)])
    x = rand(2, 8, 3, 4)
    _grad_parity(lambda v: F.pixel_shuffle(v, 2), lambda v: PF.pixel_shuffle(v, 2), [x])
    _grad_parity(lambda v: F.pixel_unshuffle(v, 2), lambda v: PF.pixel_unshuffle(v, 2), [rand(2, 3, 4, 6)])


def test_one_hot_on_meta():
    idx = tl.tensor([[0, 1], [2, 0]]).to("meta")
    r = tl.nn.functional.one_hot(idx, 5)
    assert r.device.type == "meta" and tuple(r.shape) == (2, 2, 5) and r.dtype == tl.int64
    with pytest.raises(RuntimeError, match="num_classes"):
        tl.nn.functional.one_hot(idx)
