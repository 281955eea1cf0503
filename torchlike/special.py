"""torchlike.special: PyTorch's torch.special namespace.

Functions PyTorch keeps only here (Bessel functions, orthogonal polynomials,
erfcx, ndtri, zeta, ...) are generated operators bound in torchlike._C._special;
the rest are the torchlike functions of the same meaning, as torch.special's
are torch's (torch.special.expit is torch.sigmoid, gammaln is lgamma).
"""
import torchlike as _tl
from torchlike import _C

__all__ = [
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma", "entr", "erf",
    "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln",
    "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
    "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "modified_bessel_i0",
    "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri",
    "polygamma", "psi", "round", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "sinc", "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta",
]

_S = _C._special

# ---- generated here only (aten's special_* operators)
airy_ai = _S.special_airy_ai
bessel_j0 = _S.special_bessel_j0
bessel_j1 = _S.special_bessel_j1
bessel_y0 = _S.special_bessel_y0
bessel_y1 = _S.special_bessel_y1
modified_bessel_i0 = _S.special_modified_bessel_i0
modified_bessel_i1 = _S.special_modified_bessel_i1
modified_bessel_k0 = _S.special_modified_bessel_k0
modified_bessel_k1 = _S.special_modified_bessel_k1
scaled_modified_bessel_k0 = _S.special_scaled_modified_bessel_k0
scaled_modified_bessel_k1 = _S.special_scaled_modified_bessel_k1
spherical_bessel_j0 = _S.special_spherical_bessel_j0
chebyshev_polynomial_t = _S.special_chebyshev_polynomial_t
chebyshev_polynomial_u = _S.special_chebyshev_polynomial_u
chebyshev_polynomial_v = _S.special_chebyshev_polynomial_v
chebyshev_polynomial_w = _S.special_chebyshev_polynomial_w
shifted_chebyshev_polynomial_t = _S.special_shifted_chebyshev_polynomial_t
shifted_chebyshev_polynomial_u = _S.special_shifted_chebyshev_polynomial_u
shifted_chebyshev_polynomial_v = _S.special_shifted_chebyshev_polynomial_v
shifted_chebyshev_polynomial_w = _S.special_shifted_chebyshev_polynomial_w
hermite_polynomial_h = _S.special_hermite_polynomial_h
hermite_polynomial_he = _S.special_hermite_polynomial_he
laguerre_polynomial_l = _S.special_laguerre_polynomial_l
legendre_polynomial_p = _S.special_legendre_polynomial_p
entr = _S.special_entr
erfcx = _S.special_erfcx
i0e = _S.special_i0e
i1 = _S.special_i1
i1e = _S.special_i1e
log_ndtr = _S.special_log_ndtr
ndtr = _S.special_ndtr
ndtri = _S.special_ndtri
xlog1py = _S.special_xlog1py
zeta = _S.special_zeta

# ---- the torchlike functions of the same meaning
digamma = psi = _tl.digamma
erf = _tl.erf
erfc = _tl.erfc
erfinv = _tl.erfinv
exp2 = _tl.exp2
expit = _tl.sigmoid
expm1 = _tl.expm1
gammainc = _tl.igamma
gammaincc = _tl.igammac
gammaln = _tl.lgamma
i0 = _tl.i0
log1p = _tl.log1p
logit = _tl.logit
logsumexp = _tl.logsumexp
multigammaln = _tl.mvlgamma
polygamma = _tl.polygamma
sinc = _tl.sinc
xlogy = _tl.xlogy


def round(input, *, decimals=0, out=None):
    """torch.special.round: torchlike.round with decimals keyword-only."""
    if out is None:
        return _tl.round(input, decimals=decimals)
    return _tl.round(input, decimals=decimals, out=out)


def softmax(input, dim, *, dtype=None):
    """torch.special.softmax: torchlike.softmax."""
    return _tl.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """torch.special.log_softmax: torchlike.log_softmax."""
    return _tl.log_softmax(input, dim, dtype=dtype)
