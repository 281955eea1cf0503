"""In-place Tensor methods generated for pointwise ops (x.elu_(), x.special_erfcx_(), ...)
and the in-place torch-level forms (dropout_, ...): each equals its
out-of-place op's result, returns self, and bumps the version counter."""
import numpy as np
import pytest

import torchlike as tl
import torchlike.nn.functional as F

X = np.linspace(0.1, 2.5, 12).reshape(3, 4)
OTHER = np.linspace(1.5, 3.0, 12).reshape(3, 4)


def _out_of_place(name):
    base = name[:-1]
    if base.startswith("special_"):
        return getattr(tl.special, base[len("special_"):])
    if base == "signbit":
        return lambda x: tl.signbit(x).to(x.dtype)
    if base == "log_sigmoid":  # PyTorch spells the functional F.logsigmoid
        return F.logsigmoid
    for ns in (tl, F, tl.special):
        if hasattr(ns, base):
            return getattr(ns, base)
    raise AttributeError(base)


def _extra_args(name):
    if "polynomial" in name:
        return (tl.tensor(np.full((3, 4), 3.0)),)
    if name in ("special_zeta_", "special_xlog1py_", "logaddexp_", "logaddexp2_"):
        return (tl.tensor(OTHER),)
    if name == "threshold_":
        return (1.0, -1.0)
    if name == "mvlgamma_":
        return (2,)
    return ()


# Listed literally so tools/op_coverage.py sees every name called.
NAMES = ["angle_", "celu_", "elu_", "hardshrink_", "hardsigmoid_", "hardswish_", "hardtanh_", "leaky_relu_",
         "log_sigmoid_", "logaddexp2_", "logaddexp_", "mish_", "mvlgamma_", "selu_", "signbit_", "silu_",
         "softplus_", "softshrink_", "special_airy_ai_", "special_bessel_j0_", "special_bessel_j1_",
         "special_bessel_y0_", "special_bessel_y1_", "special_chebyshev_polynomial_t_",
         "special_chebyshev_polynomial_u_", "special_chebyshev_polynomial_v_", "special_chebyshev_polynomial_w_",
         "special_entr_", "special_erfcx_", "special_hermite_polynomial_h_", "special_hermite_polynomial_he_",
         "special_i0e_", "special_i1_", "special_i1e_", "special_laguerre_polynomial_l_",
         "special_legendre_polynomial_p_", "special_log_ndtr_", "special_modified_bessel_i0_",
         "special_modified_bessel_i1_", "special_modified_bessel_k0_", "special_modified_bessel_k1_",
         "special_ndtr_", "special_ndtri_", "special_scaled_modified_bessel_k0_",
         "special_scaled_modified_bessel_k1_", "special_shifted_chebyshev_polynomial_t_",
         "special_shifted_chebyshev_polynomial_u_", "special_shifted_chebyshev_polynomial_v_",
         "special_shifted_chebyshev_polynomial_w_", "special_spherical_bessel_j0_", "special_xlog1py_",
         "special_zeta_", "threshold_"]


@pytest.mark.parametrize("name", NAMES)
def test_inplace_method_matches_out_of_place(name):
    args = _extra_args(name)
    want = _out_of_place(name)(tl.tensor(X), *args)
    x = tl.tensor(X)
    v = x._version
    r = getattr(x, name)(*args)
    assert r is x and x._version > v
    np.testing.assert_allclose(np.asarray(x), np.asarray(want), rtol=1e-12, atol=1e-12, equal_nan=True)


def test_signbit_inplace_keeps_dtype_rules():
    x = tl.tensor([-1.0, 0.0, 2.0])
    with pytest.raises(RuntimeError, match="can't be cast"):
        tl.tensor([1, -2], dtype=tl.int64).angle_()  # a float result cannot go into an integer tensor
    np.testing.assert_array_equal(np.asarray(tl.signbit(x)), [True, False, False])


def test_torch_level_inplace_dropout_and_padding():
    tl.manual_seed(0)
    x = tl.ones(1000)
    r = tl.dropout_(x, 0.5, True)
    assert r is x
    kept = np.asarray(x)
    assert set(np.unique(kept).tolist()) <= {0.0, 2.0} and 350 < (kept == 0).sum() < 650
    for fn in (tl.alpha_dropout_, tl.feature_dropout_, tl.feature_alpha_dropout_):
        y = tl.ones(8, 4, 3)
        assert fn(y, 0.0, True) is y and np.asarray(y).tolist() == np.ones((8, 4, 3)).tolist()
        z = tl.ones(8, 4, 3)
        assert fn(z, 0.5, False) is z and (np.asarray(z) == 1).all()  # not training: unchanged
    p = tl.constant_pad_nd(tl.ones(2, 2), [1, 0, 0, 1], 5.0)
    np.testing.assert_array_equal(np.asarray(p), np.pad(np.ones((2, 2)), ((0, 1), (1, 0)), constant_values=5.0))


def test_embedding_helpers_and_allclose():
    w = tl.tensor(np.arange(12.0).reshape(4, 3))
    idx = tl.tensor([0, 2, 2])
    g = tl.embedding_dense_backward(tl.ones(3, 3), idx, 4, -1, False)
    np.testing.assert_array_equal(np.asarray(g), [[1, 1, 1], [0, 0, 0], [2, 2, 2], [0, 0, 0]])
    w2 = w.clone()
    tl.embedding_renorm_(w2, idx, 1.0, 2.0)
    norms = np.linalg.norm(np.asarray(w2), axis=1)
    assert norms[0] <= 1.0 + 1e-6 and abs(norms[2] - 1.0) < 1e-6 and norms[1] == np.linalg.norm([3, 4, 5])
    a = tl.tensor([1.0, 2.0])
    assert tl.allclose(a, a + 1e-9) and not tl.allclose(a, a + 1e-3)
    assert a.allclose(a + 1e-9) and not a.allclose(tl.tensor([1.0, float("nan")]))
    assert tl.tensor([1.0, float("nan")]).allclose(tl.tensor([1.0, float("nan")]), equal_nan=True)
