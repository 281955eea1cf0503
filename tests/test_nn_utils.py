"""torchlike.nn.utils: parametrize, parametrizations, hook-based weight/spectral norm,
stateless.functional_call, fusion, memory_format and skip_init.

Each behaviour is checked against exact math / NumPy; when PyTorch is installed the
same calls are also compared with it (values, state-dict keys, errors)."""
import copy
import pickle
import warnings

import numpy as np
import pytest

import torchlike
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike.nn.utils import parametrizations as PZ
from torchlike.nn.utils import parametrize as P
from torchlike.nn.utils import stateless

try:
    import torch
except ImportError:  # the parity tests below skip themselves
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")


def _np(t):
    return t.detach().numpy()


def _tl(a):
    return torchlike.from_numpy(np.array(a, copy=True))


def _to_tl_state(sd):
    return {k: _tl(v.detach().numpy()) for k, v in sd.items()}


# ---------------------------------------------------------------------------------------
# parametrize
class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).mT

    def right_inverse(self, A):
        return A.triu()


class Double(nn.Module):
    def forward(self, X):
        return 2 * X

    def right_inverse(self, X):
        return X / 2


class PlusOne(nn.Module):
    def forward(self, X):
        return X + 1


class Split(nn.Module):
    def forward(self, A, B):
        return A + B

    def right_inverse(self, X):
        return (X * 0.25, X * 0.75)


def test_register_parametrization_basics():
    m = nn.Linear(3, 3)
    w = m.weight
    before = _np(w).copy()
    assert P.register_parametrization(m, "weight", Symmetric()) is m
    assert type(m).__name__ == "ParametrizedLinear"
    assert type(m).__mro__[1] is nn.Linear
    assert P.type_before_parametrizations(m) is nn.Linear
    assert P.is_parametrized(m) and P.is_parametrized(m, "weight") and not P.is_parametrized(m, "bias")
    assert m.parametrizations.weight.original is w  # same Parameter object, data replaced
    np.testing.assert_allclose(_np(w), np.triu(before))
    np.testing.assert_allclose(_np(m.weight), np.triu(before) + np.triu(before, 1).T)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert [n for n, _ in m.named_parameters()] == ["bias", "parametrizations.weight.original"]
    assert repr(m) == ("ParametrizedLinear(\n  in_features=3, out_features=3, bias=True\n"
                       "  (parametrizations): ModuleDict(\n    (weight): ParametrizationList(\n"
                       "      (0): Symmetric()\n    )\n  )\n)")
    # Each parametrized module gets a class of its own.
    other = P.register_parametrization(nn.Linear(3, 3), "weight", Symmetric())
    assert type(other) is not type(m)
    # Gradients reach the original.
    m(torchlike.ones(1, 3)).sum().backward()
    g = _np(w.grad)
    np.testing.assert_allclose(g, np.triu(np.ones((3, 3)) * np.where(np.eye(3) > 0, 1, 2)), rtol=1e-6)


def test_assigning_runs_right_inverse_and_keeps_the_original_object():
    m = nn.Linear(2, 2)
    orig = m.weight
    P.register_parametrization(m, "weight", Double())
    m.weight = torchlike.ones(2, 2)
    assert m.parametrizations.weight.original is orig
    np.testing.assert_allclose(_np(orig), np.full((2, 2), 0.5))
    np.testing.assert_allclose(_np(m.weight), np.ones((2, 2)))
    P.register_parametrization(m, "weight", PlusOne())
    np.testing.assert_allclose(_np(m.weight), np.full((2, 2), 2.0))
    with pytest.raises(RuntimeError, match="parametrization PlusOne does not implement right_inverse."):
        m.weight = torchlike.zeros(2, 2)


def test_several_originals_and_removal():
    m = nn.Linear(3, 2)
    w0 = _np(m.weight).copy()
    P.register_parametrization(m, "weight", Split())
    plist = m.parametrizations.weight
    assert (plist.is_tensor, plist.ntensors) == (False, 2)
    assert not hasattr(plist, "original")
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    np.testing.assert_allclose(_np(m.weight), w0, rtol=1e-6)
    m.weight = torchlike.ones(2, 3)
    np.testing.assert_allclose(_np(plist.original0), 0.25)
    np.testing.assert_allclose(_np(plist.original1), 0.75)
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        P.remove_parametrizations(m, "weight", leave_parametrized=False)
    P.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and not hasattr(m, "parametrizations")
    assert isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(_np(m.weight), 1.0)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight"]


def test_remove_leave_parametrized_or_not():
    m = nn.Linear(2, 2)
    orig = m.weight
    w0 = _np(orig).copy()
    P.register_parametrization(m, "weight", Double())
    P.remove_parametrizations(m, "weight")
    assert m.weight is orig
    np.testing.assert_allclose(_np(m.weight), w0, rtol=1e-6)

    m = nn.Linear(2, 2)
    orig = m.weight
    w0 = _np(orig).copy()
    P.register_parametrization(m, "weight", Double())
    P.register_parametrization(m, "weight", PlusOne())
    P.remove_parametrizations(m, "weight", leave_parametrized=False)
    assert m.weight is orig
    np.testing.assert_allclose(_np(m.weight), w0 / 2, rtol=1e-6)


def test_buffers_can_be_parametrized():
    class Stats(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torchlike.ones(3))
            self.register_buffer("running_mean", torchlike.full((3,), 4.0))

    m = Stats()
    P.register_parametrization(m, "running_mean", Double())
    orig = m.parametrizations.running_mean.original
    assert type(orig) is torchlike.Tensor and not orig.requires_grad
    assert list(m.state_dict()) == ["weight", "parametrizations.running_mean.original"]
    assert [n for n, _ in m.named_buffers()] == ["parametrizations.running_mean.original"]
    np.testing.assert_allclose(_np(m.running_mean), 4.0)
    P.remove_parametrizations(m, "running_mean")
    assert "running_mean" in m._buffers


@pytest.mark.parametrize("bad, message", [
    (lambda X: X[0], "may not change the shape of the tensor, unless `unsafe` flag is enabled.\n"
                     "unparametrized shape: torchlike.Size([3, 3])\nparametrized shape: torchlike.Size([3])"),
    (lambda X: X.double(), "may not change the dtype of the tensor, unless `unsafe` flag is enabled.\n"
                           "unparametrized dtype: torchlike.float32\nparametrized dtype: torchlike.float64"),
    (lambda X: 3, "A parametrization must return a tensor. Got int."),
])
def test_registration_checks(bad, message):
    class Bad(nn.Module):
        def forward(self, X):
            return bad(X)

    with pytest.raises(ValueError) as info:
        P.register_parametrization(nn.Linear(3, 3), "weight", Bad())
    assert message in str(info.value)



def test_unsafe_skips_the_checks():
    class Shrink(nn.Module):
        def forward(self, X):
            return X[0]

    m = P.register_parametrization(nn.Linear(3, 3), "weight", Shrink(), unsafe=True)
    assert m.parametrizations.weight.unsafe
    assert m.weight.shape == (3,)
    # Appending to an unsafe list with unsafe=True is not checked either.
    P.register_parametrization(m, "weight", Shrink(), unsafe=True)
    assert m.weight.shape == ()


def test_registration_errors():
    class RIdtype(nn.Module):
        def forward(self, X):
            return X

        def right_inverse(self, X):
            return X.double()

    class RInot(nn.Module):
        def forward(self, X):
            return X

        def right_inverse(self, X):
            return 5

    class RIseq(nn.Module):
        def forward(self, A, B):
            return A

        def right_inverse(self, X):
            return (X, 3)

    with pytest.raises(ValueError, match="When `right_inverse` outputs one tensor, it may not change the dtype"):
        P.register_parametrization(nn.Linear(3, 3), "weight", RIdtype())
    with pytest.raises(ValueError, match=r"must return a Tensor or a Sequence of tensors \(list, tuple...\). Got int"):
        P.register_parametrization(nn.Linear(3, 3), "weight", RInot())
    with pytest.raises(ValueError, match="Got element 1 of the sequence with type int."):
        P.register_parametrization(nn.Linear(3, 3), "weight", RIseq())
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element with name "
                                         "'nope'"):
        P.register_parametrization(nn.Linear(3, 3), "nope", Double())
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        P.remove_parametrizations(nn.Linear(3, 3), "weight")
    m = P.register_parametrization(nn.Linear(3, 3), "weight", Double())
    with pytest.raises(ValueError, match="unless the `unsafe` flag is enabled.\nmodule.weight.shape"):
        P.register_parametrization(m, "weight", type("Shrink", (nn.Module,), {"forward": lambda s, X: X[0]})())
    with pytest.raises(ValueError, match="right_inverse must have the same dtype as module.weight"):
        P.register_parametrization(m, "weight", RIdtype())
    with pytest.raises(ValueError, match="right_inverse must return a tensor. Got: int"):
        P.register_parametrization(m, "weight", RInot())
    with pytest.raises(ValueError, match="ParametrizationList requires one or more modules."):
        P.ParametrizationList([], torchlike.ones(2))


def test_assignment_errors():
    class Flip(nn.Module):
        calls = 0

        def forward(self, X):
            return X

        def right_inverse(self, X):
            Flip.calls += 1
            return X if Flip.calls == 1 else X.double()

    m = P.register_parametrization(nn.Linear(3, 3), "weight", Flip())
    with pytest.raises(ValueError, match="The tensor returned by `right_inverse` has dtype torchlike.float64 while "
                                         "`original` has dtype torchlike.float32"):
        m.weight = torchlike.ones(3, 3)

    class Seq(nn.Module):
        calls = 0

        def forward(self, A, B):
            return A + B

        def right_inverse(self, X):
            Seq.calls += 1
            return (X, X) if Seq.calls == 1 else (X,)

    m = P.register_parametrization(nn.Linear(3, 3), "weight", Seq())
    with pytest.raises(ValueError, match="must return a sequence of tensors of length 2. Got a sequence of length 1."):
        m.weight = torchlike.ones(3, 3)


def test_parametrization_list_on_its_own():
    plist = P.ParametrizationList([Double()], torchlike.ones(2))
    np.testing.assert_allclose(_np(plist.original), 0.5)
    np.testing.assert_allclose(_np(plist()), 1.0)
    assert list(plist.state_dict()) == ["original"]
    assert plist.right_inverse(_tl(np.array([4.0, 6.0], dtype=np.float32))) is None
    np.testing.assert_allclose(_np(plist.original), [2.0, 3.0])
    assert type(P.ParametrizationList([Double()], nn.Parameter(torchlike.ones(2))).original) is nn.Parameter


def test_cached():
    calls = []

    class Count(nn.Module):
        def forward(self, X):
            calls.append(1)
            return X

    m = P.register_parametrization(nn.Linear(2, 2), "weight", Count())
    calls.clear()
    with P.cached():
        a = m.weight
        b = m.weight
        with P.cached():
            c = m.weight
        assert a is b is c
        assert len(calls) == 1
    m.weight
    m.weight
    assert len(calls) == 3


def test_train_mode_follows_module_and_copies():
    m = nn.Linear(3, 3)
    m.eval()
    d = Double()
    P.register_parametrization(m, "weight", d)
    assert not d.training
    m.train()
    assert d.training
    with pytest.raises(RuntimeError, match="Serialization of parametrized modules is only supported through "
                                           "state_dict"):
        pickle.dumps(m)
    clone = copy.deepcopy(m)
    assert type(clone) is type(m)
    assert clone.parametrizations.weight.original is not m.parametrizations.weight.original
    np.testing.assert_allclose(_np(clone.weight), _np(m.weight))
    m2 = P.register_parametrization(nn.Linear(3, 3), "weight", Double())
    m2.load_state_dict(m.state_dict())
    np.testing.assert_allclose(_np(m2.weight), _np(m.weight))


def test_transfer_parametrizations_and_params():
    a = P.register_parametrization(nn.Linear(2, 2), "weight", Double())
    b = nn.Linear(2, 2)
    assert P.transfer_parametrizations_and_params(a, b) is b
    assert type(b).__name__ == "ParametrizedLinear"
    assert b.parametrizations.weight.original is a.parametrizations.weight.original
    assert b.parametrizations.weight[0] is a.parametrizations.weight[0]
    np.testing.assert_allclose(_np(b.weight), _np(a.weight))

    class Empty(nn.Module):
        pass

    e = Empty()
    P.transfer_parametrizations_and_params(a, e)
    assert [n for n, _ in e.named_parameters()] == ["parametrizations.weight.original"]
    assert e.weight.shape == (2, 2)
    plain = nn.Linear(2, 2)
    assert P.transfer_parametrizations_and_params(nn.Linear(2, 2), plain) is plain
    assert type(plain) is nn.Linear


# ---------------------------------------------------------------------------------------
# new-style parametrizations
def _weight_norm_ref(v, g, dim):
    if dim is None:
        return v * (g / np.linalg.norm(v))
    axes = tuple(i for i in range(v.ndim) if i != dim)
    return v * (g / np.sqrt((v * v).sum(axis=axes, keepdims=True)))


@pytest.mark.parametrize("dim", [0, 1, None])
def test_parametrizations_weight_norm(dim):
    m = nn.Linear(4, 3)
    w0 = _np(m.weight).copy()
    PZ.weight_norm(m, dim=dim)
    keys = list(m.state_dict())
    assert keys == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    g = _np(m.parametrizations.weight.original0).copy()
    expected_g_shape = {0: (3, 1), 1: (1, 4), None: ()}[dim]
    assert g.shape == expected_g_shape
    np.testing.assert_allclose(_np(m.weight), w0, rtol=1e-5)
    with torchlike.no_grad():
        m.parametrizations.weight.original0.mul_(2)
    v = _np(m.parametrizations.weight.original1)
    np.testing.assert_allclose(_np(m.weight), _weight_norm_ref(v, g * 2, dim), rtol=1e-5)
    assert repr(m.parametrizations.weight[0]) == "_WeightNorm()"
    # Old hook-based checkpoints load through the key upgrade.
    fresh = PZ.weight_norm(nn.Linear(4, 3), dim=dim)
    sd = {"bias": m.bias.detach(), "weight_g": m.parametrizations.weight.original0.detach(),
          "weight_v": m.parametrizations.weight.original1.detach()}
    fresh.load_state_dict(sd)
    np.testing.assert_allclose(_np(fresh.weight), _np(m.weight), rtol=1e-6)


def test_weight_norm_gradcheck():
    m = PZ.weight_norm(nn.Linear(3, 2).double())
    g0 = m.parametrizations.weight.original0.detach()
    v0 = m.parametrizations.weight.original1.detach()
    x = torchlike.randn(4, 3, dtype=torchlike.float64)

    def f(g, v):
        return stateless._functional_call(m, {"parametrizations.weight.original0": g,
                                               "parametrizations.weight.original1": v}, (x,))

    assert torchlike.autograd.gradcheck(f, (g0.clone().requires_grad_(), v0.clone().requires_grad_()))


def _spectral_ref(w, u, v, steps, eps=1e-12):
    mat = w.reshape(w.shape[0], -1)
    for _ in range(steps):
        v = mat.T @ u
        v = v / max(np.linalg.norm(v), eps)
        u = mat @ v
        u = u / max(np.linalg.norm(u), eps)
    return w / (u @ mat @ v), u, v


def test_parametrizations_spectral_norm_power_iteration():
    m = nn.Linear(5, 3)
    PZ.spectral_norm(m, n_power_iterations=2)
    sn = m.parametrizations.weight[0]
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original", "parametrizations.weight.0._u",
                                    "parametrizations.weight.0._v"]
    assert repr(sn) == "_SpectralNorm()"
    # The 15 warm-up iterations already give sigma to float precision.
    w = _np(m.parametrizations.weight.original)
    sigma = np.linalg.svd(w, compute_uv=False)[0]
    np.testing.assert_allclose(_np(m.weight), w / sigma, rtol=1e-4)
    u, v = _np(sn._u).copy(), _np(sn._v).copy()
    out = _np(m.weight)
    ref, u2, v2 = _spectral_ref(w, u, v, 2)
    np.testing.assert_allclose(out, ref, rtol=1e-5)
    np.testing.assert_allclose(_np(sn._u), u2, rtol=1e-5, atol=1e-6)
    # eval: the stored vectors, no update.
    m.eval()
    u_before = _np(sn._u).copy()
    m.weight
    np.testing.assert_array_equal(_np(sn._u), u_before)
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive, but got n_power_iterations=0"):
        PZ.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'nope'"):
        PZ.spectral_norm(nn.Linear(2, 2), name="nope")


def test_spectral_norm_of_a_vector_and_dims():
    class Vec(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(_tl(np.array([3.0, 4.0], dtype=np.float32)))

    m = PZ.spectral_norm(Vec())
    np.testing.assert_allclose(_np(m.weight), [0.6, 0.8], rtol=1e-6)

    class W3(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torchlike.randn(2, 5, 3))

    m = PZ.spectral_norm(W3(), dim=1)
    assert m.parametrizations.weight[0]._u.shape == (5,)
    assert m.parametrizations.weight[0]._v.shape == (6,)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4)])
@pytest.mark.parametrize("orth_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("triv", [True, False])
def test_orthogonal(shape, orth_map, triv):
    m = nn.Linear(shape[1], shape[0], bias=False)
    w0 = _np(m.weight).copy()
    PZ.orthogonal(m, orthogonal_map=orth_map, use_trivialization=triv)
    w = _np(m.weight)
    k = min(shape)
    gram = w.T @ w if shape[0] >= shape[1] else w @ w.T
    np.testing.assert_allclose(gram, np.eye(k), atol=1e-5)
    keys = ["parametrizations.weight.original"] + (["parametrizations.weight.0.base"] if triv else [])
    assert list(m.state_dict()) == keys
    if triv or orth_map == "householder":
        # The start is the QR orthogonalisation of the initial weight (R with a
        # non-negative diagonal).
        tall = w0 if shape[0] >= shape[1] else w0.T
        q, r = np.linalg.qr(tall)
        q = q * np.sign(np.diag(r))
        np.testing.assert_allclose(w, q if shape[0] >= shape[1] else q.T, atol=1e-5)
        target, _ = np.linalg.qr(np.random.RandomState(0).randn(max(shape), k))
        target = (target if shape[0] >= shape[1] else target.T).astype(np.float32)
        m.weight = _tl(target)
        np.testing.assert_allclose(_np(m.weight), target, atol=1e-5)
    else:
        with pytest.raises(NotImplementedError, match="not possible to assign to the matrix exponential or the "
                                                      "Cayley parametrizations when use_trivialization=False"):
            m.weight = torchlike.eye(*shape)
    # Gradients flow to the stored tensor.
    m(torchlike.ones(1, shape[1])).sum().backward()
    assert m.parametrizations.weight.original.grad is not None


def test_orthogonal_defaults_and_errors():
    m = PZ.orthogonal(nn.Linear(4, 3))
    assert m.parametrizations.weight[0].orthogonal_map.name == "householder"
    assert PZ.orthogonal(nn.Linear(3, 3)).parametrizations.weight[0].orthogonal_map.name == "matrix_exp"
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                                         "Got: foo"):
        PZ.orthogonal(nn.Linear(4, 3), orthogonal_map="foo")
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'nope'"):
        PZ.orthogonal(nn.Linear(4, 3), name="nope")

    class Vec(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torchlike.randn(3))

    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a tensor of 1 dimensions."):
        PZ.orthogonal(Vec())


def test_orthogonal_matrix_exp_formula_without_trivialization():
    m = nn.Linear(3, 3, bias=False)
    x = _np(m.weight).astype(np.float64)
    PZ.orthogonal(m, orthogonal_map="matrix_exp", use_trivialization=False)
    low = np.tril(x)
    skew = low - low.T
    # exp of a skew matrix by its eigendecomposition (skew = i * Hermitian).
    vals, vecs = np.linalg.eigh(1j * skew)
    expected = (vecs @ np.diag(np.exp(-1j * vals)) @ vecs.conj().T).real
    np.testing.assert_allclose(_np(m.weight), expected, atol=1e-5)


# ---------------------------------------------------------------------------------------
# hook-based weight_norm / spectral_norm
@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_old_weight_norm(dim):
    m = nn.Linear(4, 3)
    w0 = _np(m.weight).copy()
    with pytest.warns(FutureWarning, match="`torch.nn.utils.weight_norm` is deprecated in favor of "
                                           "`torch.nn.utils.parametrizations.weight_norm`."):
        nn.utils.weight_norm(m, dim=dim)
    shapes = {k: tuple(v.shape) for k, v in m.state_dict().items()}
    g_shape = {0: (3, 1), 1: (1, 4), None: (), -1: ()}[dim]
    assert shapes == {"bias": (3,), "weight_g": g_shape, "weight_v": (3, 4)}
    assert not isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(_np(m.weight), w0, rtol=1e-5)
    with torchlike.no_grad():
        m.weight_g.mul_(3)
    y = m(torchlike.ones(1, 4))
    ref_dim = None if dim in (None, -1) else dim
    expected_w = _weight_norm_ref(_np(m.weight_v), _np(m.weight_g), ref_dim)
    np.testing.assert_allclose(_np(y), expected_w.sum(1)[None] + _np(m.bias), rtol=1e-5)
    y.sum().backward()
    assert m.weight_g.grad is not None and m.weight_v.grad is not None
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks on the same parameter weight"):
        warnings.simplefilter("ignore")
        nn.utils.weight_norm(m, dim=dim)
    nn.utils.remove_weight_norm(m)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight"]
    np.testing.assert_allclose(_np(m.weight), expected_w, rtol=1e-5)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in Linear"):
        nn.utils.remove_weight_norm(m)


def test_old_spectral_norm():
    m = nn.Linear(5, 3)
    w0 = _np(m.weight).copy()
    nn.utils.spectral_norm(m, n_power_iterations=3)
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert m.state_dict()._metadata[""]["spectral_norm"] == {"weight.version": 1}
    np.testing.assert_array_equal(_np(m.weight), w0)  # unnormalised until the first forward
    u, v = _np(m.weight_u).copy(), _np(m.weight_v).copy()
    m(torchlike.ones(1, 5))
    ref, u2, v2 = _spectral_ref(w0, u, v, 3)
    np.testing.assert_allclose(_np(m.weight), ref, rtol=1e-5)
    np.testing.assert_allclose(_np(m.weight_u), u2, rtol=1e-5, atol=1e-6)
    m.eval()
    m(torchlike.ones(1, 5))
    np.testing.assert_allclose(_np(m.weight_u), u2, rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks on the same parameter weight"):
        nn.utils.spectral_norm(m)
    fresh = nn.utils.spectral_norm(nn.Linear(5, 3), n_power_iterations=3)
    fresh.load_state_dict(m.state_dict())
    fresh.eval()
    fresh(torchlike.ones(1, 5))
    np.testing.assert_allclose(_np(fresh.weight), _np(m.weight), rtol=1e-6)
    nn.utils.remove_spectral_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"]
    assert not m._state_dict_hooks and not m._load_state_dict_pre_hooks
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in Linear"):
        nn.utils.remove_spectral_norm(m)
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
        nn.utils.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)


# ---------------------------------------------------------------------------------------
# stateless.functional_call
class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(2, 2)
        self.register_buffer("z", torchlike.zeros(1))

    def forward(self, x):
        return self.l(x) + self.z


def test_functional_call_replaces_and_restores():
    m = TwoLayer()
    w_before = m.l.weight
    w = torchlike.zeros(2, 2, requires_grad=True)
    with pytest.warns(FutureWarning, match="stateless.functional_call` is deprecated"):
        out = stateless.functional_call(m, {"l.weight": w, "z": torchlike.ones(1)}, (torchlike.ones(1, 2),))
    np.testing.assert_allclose(_np(out), _np(m.l.bias)[None] + 1, rtol=1e-6)
    assert m.l.weight is w_before and float(m.z[0]) == 0.0
    out.sum().backward()
    np.testing.assert_allclose(_np(w.grad), np.ones((2, 2)))
    assert m.l.weight.grad is None

    seen = {}

    class Spy(nn.Module):
        def __init__(self):
            super().__init__()
            self.l = nn.Linear(2, 2)

        def forward(self, x):
            seen["type"] = type(self.l.weight)
            seen["names"] = [n for n, _ in self.named_parameters()]
            return x

    stateless._functional_call(Spy(), {"l.weight": torchlike.zeros(2, 2)}, (torchlike.ones(1, 2),))
    assert seen == {"type": torchlike.Tensor, "names": ["l.weight", "l.bias"]}

    class Boom(TwoLayer):
        def forward(self, x):
            raise ValueError("boom")

    b = Boom()
    orig = b.l.weight
    with pytest.raises(ValueError, match="boom"):
        stateless._functional_call(b, {"l.weight": torchlike.zeros(2, 2)}, (torchlike.ones(1, 2),))
    assert b.l.weight is orig


def test_functional_call_args_kwargs_strict_and_ties():
    m = TwoLayer()
    x = torchlike.ones(1, 2)
    np.testing.assert_allclose(_np(stateless._functional_call(m, {}, x)), _np(m(x)))
    np.testing.assert_allclose(_np(stateless._functional_call(m, {}, (), {"x": x})), _np(m(x)))
    with pytest.raises(RuntimeError, match="Error\\(s\\) in reparametrizing for TwoLayer:\n\tUnexpected key\\(s\\): "
                                           "'foo'.\n\tMissing key\\(s\\): 'l.bias', 'z'."):
        stateless._functional_call(m, {"l.weight": torchlike.zeros(2, 2), "foo": torchlike.ones(1)}, x, strict=True)
    with pytest.raises(AttributeError, match="Linear has no attribute `nope`"):
        stateless._functional_call(nn.Linear(2, 2), {"nope.x": torchlike.zeros(2)}, x)
    plain = nn.Linear(2, 2)
    stateless._functional_call(plain, {"extra": torchlike.zeros(2)}, x)
    assert not hasattr(plain, "extra")

    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2)
            self.b = nn.Linear(2, 2)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(x)

    t = Tied()
    zero = torchlike.zeros(2, 2)
    out = stateless._functional_call(t, {"a.weight": zero}, x)
    np.testing.assert_allclose(_np(out), _np(t.b.bias)[None], rtol=1e-6)
    out = stateless._functional_call(t, {"a.weight": zero}, x, tie_weights=False)
    np.testing.assert_allclose(_np(out), _np(t(x)), rtol=1e-6)
    with pytest.raises(ValueError, match="functional_call got multiple values for keys \\['a.weight', 'b.weight'\\], "
                                         "which are tied. Consider using tie_weights=False"):
        stateless._functional_call(t, {"a.weight": zero, "b.weight": torchlike.ones(2, 2)}, x)
    stateless._functional_call(t, {"a.weight": zero, "b.weight": zero}, x)
    with pytest.raises(ValueError, match="\\['weight'\\] appeared in multiple dictionaries"):
        stateless._functional_call(plain, ({"weight": zero}, {"weight": zero}), x)
    out = stateless._functional_call(plain, ({"weight": zero}, {"bias": torchlike.ones(2)}), x)
    np.testing.assert_allclose(_np(out), [[1.0, 1.0]])


def test_functional_call_on_parametrized_modules():
    m = P.register_parametrization(nn.Linear(2, 2), "weight", Double())
    x = torchlike.ones(1, 2)
    out = stateless._functional_call(m, {"parametrizations.weight.original": torchlike.ones(2, 2)}, x)
    np.testing.assert_allclose(_np(out), 4 + _np(m.bias)[None], rtol=1e-6)
    out = stateless._functional_call(m, {"weight": torchlike.ones(2, 2)}, x)
    np.testing.assert_allclose(_np(out), 2 + _np(m.bias)[None], rtol=1e-6)
    assert not P._overrides


# ---------------------------------------------------------------------------------------
# fusion
class FakeBN(nn.Module):
    def __init__(self, n, affine=True):
        super().__init__()
        self.num_features = n
        self.eps = 1e-5
        self.weight = nn.Parameter(torchlike.rand(n) + 0.5) if affine else None
        self.bias = nn.Parameter(torchlike.randn(n)) if affine else None
        self.register_buffer("running_mean", torchlike.randn(n))
        self.register_buffer("running_var", torchlike.rand(n) + 0.5)


class FakeConv(nn.Module):
    def __init__(self, cin, cout, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torchlike.randn(cout, cin, 3, 3))
        self.bias = nn.Parameter(torchlike.randn(cout)) if bias else None

    def forward(self, x):
        return F.conv2d(x, self.weight, self.bias)


def _bn_eval(y, bn, channel_dim=1):
    shape = [1] * y.ndim
    shape[channel_dim] = -1
    w = _np(bn.weight) if bn.weight is not None else 1.0
    b = _np(bn.bias) if bn.bias is not None else 0.0
    rm, rv = _np(bn.running_mean), _np(bn.running_var)
    return (y - rm.reshape(shape)) / np.sqrt(rv.reshape(shape) + bn.eps) * np.reshape(w, shape if np.ndim(w) else ()) \
        + np.reshape(b, shape if np.ndim(b) else ())


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_fuse_conv_bn(bias, affine):
    conv, bn = FakeConv(2, 3, bias).eval(), FakeBN(3, affine).eval()
    x = torchlike.randn(2, 2, 5, 5)
    fused = nn.utils.fuse_conv_bn_eval(conv, bn)
    assert fused is not conv and isinstance(fused.weight, nn.Parameter) and isinstance(fused.bias, nn.Parameter)
    np.testing.assert_allclose(_np(fused(x)), _bn_eval(_np(conv(x)), bn), rtol=1e-4, atol=1e-5)
    assert conv.bias is None or conv.bias is not fused.bias
    assert fused.weight.requires_grad and fused.bias.requires_grad == bias
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        nn.utils.fuse_conv_bn_eval(conv.train(), bn)


def test_fuse_conv_bn_weights_transposed_and_linear():
    w = torchlike.randn(2, 3, 3, 3)  # ConvTranspose2d layout: (in, out, k, k)
    bn = FakeBN(3)
    fw, fb = nn.utils.fuse_conv_bn_weights(w, None, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
                                           transpose=True)
    scale = _np(bn.weight) / np.sqrt(_np(bn.running_var) + bn.eps)
    np.testing.assert_allclose(_np(fw), _np(w) * scale.reshape(1, 3, 1, 1), rtol=1e-5)
    np.testing.assert_allclose(_np(fb), _np(bn.bias) - _np(bn.running_mean) * scale, rtol=1e-5, atol=1e-6)
    assert not fb.requires_grad

    lin, bn1 = nn.Linear(3, 4).eval(), FakeBN(4).eval()
    x = torchlike.randn(5, 3)
    fused = nn.utils.fuse_linear_bn_eval(lin, bn1)
    np.testing.assert_allclose(_np(fused(x)), _bn_eval(_np(lin(x)), bn1), rtol=1e-4, atol=1e-5)
    shared = nn.utils.fuse_linear_bn_eval(lin, FakeBN(1).eval())
    assert shared.weight.shape == (4, 3)
    with pytest.raises(AssertionError, match="To fuse, linear.out_features == bn.num_features or bn.num_features "
                                             "== 1, got linear.out_features=4 and bn.num_features=5"):
        nn.utils.fuse_linear_bn_eval(lin, FakeBN(5).eval())
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        nn.utils.fuse_linear_bn_eval(nn.Linear(3, 4), bn1)


@pytest.mark.skipif(not all(hasattr(nn, n) for n in ("Conv2d", "BatchNorm2d")), reason="nn.Conv2d/BatchNorm2d missing")
def test_fuse_real_conv_bn_modules():
    conv, bn = nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4)
    bn.train()
    bn(conv(torchlike.randn(8, 2, 6, 6)))  # give the running stats real values
    conv.eval(), bn.eval()
    x = torchlike.randn(2, 2, 6, 6)
    fused = nn.utils.fuse_conv_bn_eval(conv, bn)
    np.testing.assert_allclose(_np(fused(x)), _np(bn(conv(x))), rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------------------
# memory_format and skip_init
def test_convert_weight_memory_format_leaves_other_layers():
    model = nn.Sequential(nn.Linear(2, 2))
    before = model[0].weight
    assert nn.utils.convert_conv2d_weight_memory_format(model, torchlike.contiguous_format) is model
    assert nn.utils.convert_conv3d_weight_memory_format(model, torchlike.contiguous_format) is model
    assert model[0].weight is before


@pytest.mark.skipif(not hasattr(nn, "Conv2d"), reason="nn.Conv2d missing")
def test_convert_conv2d_weight_memory_format():
    conv = nn.Conv2d(2, 3, 3)
    with torchlike.no_grad():
        conv.weight.data = conv.weight.detach().permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    assert not conv.weight.is_contiguous()
    values = _np(conv.weight).copy()
    param = conv.weight
    nn.utils.convert_conv2d_weight_memory_format(nn.Sequential(conv), torchlike.contiguous_format)
    assert conv.weight is param and conv.weight.is_contiguous()
    np.testing.assert_array_equal(_np(conv.weight), values)


def test_skip_init():
    m = nn.utils.skip_init(nn.Linear, 3, 4, bias=False)
    assert type(m) is nn.Linear and m.weight.shape == (4, 3) and m.weight.device.type == "cpu"
    assert m.bias is None
    meta = nn.utils.skip_init(nn.Linear, 3, 4, device="meta")
    assert meta.weight.device.type == "meta"

    class NoDevice(nn.Module):
        def __init__(self, a):
            super().__init__()

    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
        nn.utils.skip_init(NoDevice, 3)
    with pytest.raises(RuntimeError, match="Expected a Module; got <class 'int'>"):
        nn.utils.skip_init(int, 3)


# ---------------------------------------------------------------------------------------
# PyTorch parity
@needs_torch
def test_parity_weight_and_spectral_norms():
    torch.manual_seed(0)
    import torch.nn.utils.parametrizations as TPZ
    warnings.simplefilter("ignore", FutureWarning)
    cases = [
        ("old weight_norm", lambda m, lib: lib.nn.utils.weight_norm(m, dim=1)),
        ("new weight_norm", lambda m, lib: (TPZ if lib is torch else PZ).weight_norm(m, dim=0)),
        ("old spectral_norm", lambda m, lib: lib.nn.utils.spectral_norm(m, n_power_iterations=2)),
        ("new spectral_norm", lambda m, lib: (TPZ if lib is torch else PZ).spectral_norm(m, n_power_iterations=2)),
        ("orthogonal householder", lambda m, lib: (TPZ if lib is torch else PZ).orthogonal(m)),
        ("orthogonal cayley", lambda m, lib: (TPZ if lib is torch else PZ).orthogonal(m, orthogonal_map="cayley")),
        ("orthogonal exp plain", lambda m, lib: (TPZ if lib is torch else PZ).orthogonal(
            m, orthogonal_map="matrix_exp", use_trivialization=False)),
    ]
    for name, apply in cases:
        ref = torch.nn.Linear(5, 3)
        ours = nn.Linear(5, 3)
        ours.load_state_dict(_to_tl_state(ref.state_dict()))
        apply(ref, torch)
        apply(ours, torchlike)
        assert list(ref.state_dict()) == list(ours.state_dict()), name
        ours.load_state_dict(_to_tl_state(ref.state_dict()))
        for _ in range(2):
            x = torch.randn(4, 5)
            y_ref, y = ref(x), ours(_tl(x.numpy()))
            np.testing.assert_allclose(_np(y), y_ref.detach().numpy(), rtol=1e-4, atol=1e-5, err_msg=name)
        y_ref.sum().backward()
        y.sum().backward()
        ref_grads = {n: p.grad for n, p in ref.named_parameters()}
        for n, p in ours.named_parameters():
            np.testing.assert_allclose(_np(p.grad), ref_grads[n].numpy(), rtol=1e-3, atol=1e-4, err_msg=f"{name} {n}")


@needs_torch
def test_parity_parametrize_errors_and_reprs():
    import torch.nn.utils.parametrize as TP

    def both(build):
        out = []
        for lib, PP in ((torch, TP), (torchlike, P)):
            try:
                out.append(("ok", str(build(lib, PP))))
            except Exception as e:  # noqa: BLE001 - the type and text are what is compared
                out.append((type(e).__name__, str(e).replace("torchlike", "torch")))
        return out

    class TDouble(torch.nn.Module):
        def forward(self, X):
            return 2 * X

    class TShrink(torch.nn.Module):
        def forward(self, X):
            return X[0]

    class LShrink(nn.Module):
        def forward(self, X):
            return X[0]

    def registered(lib, PP):
        m = lib.nn.Linear(3, 3)
        PP.register_parametrization(m, "weight", TDouble() if lib is torch else Double())
        return m

    def repr_case(lib, PP):
        return repr(registered(lib, PP)).replace("Double", "D").replace("TD", "D")

    def shrink(lib, PP):
        return PP.register_parametrization(lib.nn.Linear(3, 3), "weight", TShrink() if lib is torch else LShrink())

    def chain_shrink(lib, PP):
        return PP.register_parametrization(registered(lib, PP), "weight", TShrink() if lib is torch else LShrink())

    def remove_missing(lib, PP):
        return PP.remove_parametrizations(lib.nn.Linear(3, 3), "weight")

    def missing_name(lib, PP):
        return PP.register_parametrization(lib.nn.Linear(3, 3), "nope", TDouble() if lib is torch else Double())

    for case in (repr_case, shrink, chain_shrink, remove_missing, missing_name):
        ref, ours = both(case)
        assert ref == ours, case.__name__


@needs_torch
def test_parity_functional_call_and_fusion():
    ref = torch.nn.Linear(3, 2)
    ours = nn.Linear(3, 2)
    ours.load_state_dict(_to_tl_state(ref.state_dict()))
    w = torch.randn(2, 3)
    x = torch.randn(4, 3)
    y_ref = torch.func.functional_call(ref, {"weight": w}, (x,)).detach()
    y = stateless._functional_call(ours, {"weight": _tl(w.numpy())}, (_tl(x.numpy()),))
    np.testing.assert_allclose(_np(y), y_ref.numpy(), rtol=1e-5, atol=1e-6)

    from torch.nn.utils import fusion as TF
    tbn = torch.nn.BatchNorm1d(2).eval()
    with torch.no_grad():
        tbn.running_mean.uniform_(-1, 1)
        tbn.running_var.uniform_(0.5, 2)
        tbn.weight.uniform_(0.5, 2)
        tbn.bias.uniform_(-1, 1)
    fake = FakeBN(2)
    for name in ("running_mean", "running_var", "weight", "bias"):
        with torchlike.no_grad():
            getattr(fake, name).copy_(_tl(getattr(tbn, name).detach().numpy()))
    fused_ref = TF.fuse_linear_bn_eval(ref.eval(), tbn)
    fused = nn.utils.fuse_linear_bn_eval(ours.eval(), fake.eval())
    np.testing.assert_allclose(_np(fused.weight), fused_ref.weight.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(_np(fused.bias), fused_ref.bias.detach().numpy(), rtol=1e-5, atol=1e-6)
