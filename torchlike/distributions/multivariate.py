"""Matrix-parameterised distributions: MultivariateNormal,
LowRankMultivariateNormal, Wishart and LKJCholesky."""
import math
import warnings

import torchlike
from torchlike.distributions import constraints
from torchlike.distributions._sampling import standard_gamma
from torchlike.distributions.distribution import Distribution, ExponentialFamily, _finish_expand
from torchlike.distributions.utils import lazy_property

__all__ = ["LKJCholesky", "LowRankMultivariateNormal", "MultivariateNormal", "Wishart"]

_Size = torchlike.Size
_LOG_2PI = math.log(2 * math.pi)


def _mahalanobis_sq(L, diff):
    """|L^-1 diff|^2 for lower-triangular L (..., n, n) and diff (..., n).

    diff may carry more leading (sample) dims than L's batch; those are
    folded into the right-hand-side columns, so one triangular solve per
    batch matrix handles all samples, instead of expanding L to every
    sample."""
    n = L.shape[-1]
    full = tuple(torchlike.broadcast_shapes(tuple(L.shape[:-2]), tuple(diff.shape[:-1])))
    n_batch = L.dim() - 2
    extra, batch = full[: len(full) - n_batch], full[len(full) - n_batch:]
    count = 1
    for size in extra:
        count *= size
    rhs = diff.expand(full + (n,)).reshape((count,) + batch + (n,)).movedim(0, -1)  # (batch, n, count)
    solved = torchlike.linalg.solve_triangular(L.expand(batch + (n, n)), rhs, upper=False)
    return (solved * solved).sum(-2).movedim(-1, 0).reshape(extra + batch)


def _half_log_det(L):
    return L.diagonal(dim1=-2, dim2=-1).log().sum(-1)


def _precision_to_scale_tril(P):
    # Cholesky of the inverse; cholesky_inverse-free and plenty accurate
    # for the well-conditioned matrices a precision parameter must be.
    return torchlike.linalg.cholesky(torchlike.linalg.inv(P))


class MultivariateNormal(Distribution):
    """Gaussian over R^n, given exactly one of covariance_matrix,
    precision_matrix or scale_tril (lower Cholesky factor)."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        name = ("covariance_matrix", "precision_matrix", "scale_tril")[given.index(True)]
        matrix = (covariance_matrix, precision_matrix, scale_tril)[given.index(True)]
        if matrix.dim() < 2:
            raise ValueError(f"{name} must be at least two-dimensional, with optional leading batch dimensions")
        batch = torchlike.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        setattr(self, name, matrix.expand(batch + tuple(matrix.shape[-2:])))
        self.loc = loc.expand(batch + (-1,))
        super().__init__(_Size(batch), self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = torchlike.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = _Size(batch_shape)
        mat_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(batch_shape + self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(mat_shape))
        return _finish_expand(self, new, batch_shape, self.event_shape)

    def _full(self, mat):
        return mat.expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._full(self._unbroadcasted_scale_tril)

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return self._full(L @ L.mT)

    @lazy_property
    def precision_matrix(self):
        return self._full(torchlike.cholesky_inverse(self._unbroadcasted_scale_tril))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        diag = self._unbroadcasted_scale_tril.pow(2).sum(-1)
        return diag.expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=_Size()):
        shape = self._extended_shape(sample_shape)
        eps = torchlike.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        L = self._unbroadcasted_scale_tril
        m = _mahalanobis_sq(L, value - self.loc)
        return -0.5 * (self._event_shape[0] * _LOG_2PI + m) - _half_log_det(L)

    def entropy(self):
        n = self._event_shape[0]
        h = 0.5 * n * (1.0 + _LOG_2PI) + _half_log_det(self._unbroadcasted_scale_tril)
        return h.expand(self._batch_shape) if len(self._batch_shape) else h


class LowRankMultivariateNormal(Distribution):
    """Gaussian with covariance cov_factor @ cov_factor.T + diag(cov_diag);
    densities go through the m x m capacitance matrix (Woodbury)."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        n = loc.shape[-1]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if cov_factor.shape[-2] != n:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {n} x m")
        if cov_diag.dim() < 1 or tuple(cov_diag.shape[-1:]) != (n,):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {loc.shape[-1:]}")
        try:
            batch = torchlike.broadcast_shapes(
                tuple(loc.shape[:-1]), tuple(cov_factor.shape[:-2]), tuple(cov_diag.shape[:-1])
            )
        except RuntimeError as err:
            raise ValueError(
                f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, cov_diag {cov_diag.shape}"
            ) from err
        self.loc = loc.expand(batch + (n,))
        self.cov_factor = cov_factor.expand(batch + tuple(cov_factor.shape[-2:]))
        self.cov_diag = cov_diag.expand(batch + (n,))
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = self._capacitance(cov_factor, cov_diag)
        super().__init__(_Size(batch), _Size((n,)), validate_args=validate_args)

    @staticmethod
    def _capacitance(W, D):
        # chol(I + W^T D^-1 W)
        scaled = W / D.sqrt().unsqueeze(-1)
        k = W.shape[-1]
        cap = scaled.mT @ scaled + torchlike.eye(k, dtype=W.dtype, device=W.device)
        return torchlike.linalg.cholesky(cap)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = _Size(batch_shape)
        n = self._event_shape[0]
        new.loc = self.loc.expand(batch_shape + (n,))
        new.cov_diag = self.cov_diag.expand(batch_shape + (n,))
        new.cov_factor = self.cov_factor.expand(batch_shape + tuple(self.cov_factor.shape[-2:]))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        return _finish_expand(self, new, batch_shape, self.event_shape)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        v = self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
        return v.expand(self._batch_shape + self._event_shape)

    def _dense_cov(self):
        W = self._unbroadcasted_cov_factor
        return W @ W.mT + torchlike.diag_embed(self._unbroadcasted_cov_diag)

    @lazy_property
    def scale_tril(self):
        return torchlike.linalg.cholesky(self._dense_cov()).expand(
            self._batch_shape + self._event_shape + self._event_shape
        )

    @lazy_property
    def covariance_matrix(self):
        return self._dense_cov().expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        # Woodbury: D^-1 - D^-1 W C^-1 W^T D^-1 with C = capacitance
        W = self._unbroadcasted_cov_factor
        d_inv = self._unbroadcasted_cov_diag.reciprocal()
        A = torchlike.linalg.solve_triangular(self._capacitance_tril, (W * d_inv.unsqueeze(-1)).mT, upper=False)
        P = torchlike.diag_embed(d_inv) - A.mT @ A
        return P.expand(self._batch_shape + self._event_shape + self._event_shape)

    def rsample(self, sample_shape=_Size()):
        shape = self._extended_shape(sample_shape)
        k = self.cov_factor.shape[-1]
        eps_w = torchlike.randn(tuple(shape[:-1]) + (k,), dtype=self.loc.dtype, device=self.loc.device)
        eps_d = torchlike.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        W = self._unbroadcasted_cov_factor
        return self.loc + (W @ eps_w.unsqueeze(-1)).squeeze(-1) + self._unbroadcasted_cov_diag.sqrt() * eps_d

    def _log_det(self):
        return 2 * _half_log_det(self._capacitance_tril) + self._unbroadcasted_cov_diag.log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        d = self._unbroadcasted_cov_diag
        W = self._unbroadcasted_cov_factor
        proj = (W.mT @ (diff / d).unsqueeze(-1)).squeeze(-1)  # W^T D^-1 diff
        m = (diff * diff / d).sum(-1) - _mahalanobis_sq(self._capacitance_tril, proj)
        return -0.5 * (self._event_shape[0] * _LOG_2PI + self._log_det() + m)

    def entropy(self):
        h = 0.5 * (self._event_shape[0] * (1.0 + _LOG_2PI) + self._log_det())
        return h.expand(self._batch_shape) if len(self._batch_shape) else h


def _mv_digamma(a, p):
    """sum_{i<p} digamma(a - i/2)"""
    offsets = torchlike.arange(p, dtype=a.dtype, device=a.device) / 2
    return torchlike.digamma(a.unsqueeze(-1) - offsets).sum(-1)


class Wishart(ExponentialFamily):
    """Wishart over p x p positive definite matrices with `df` degrees of
    freedom and scale given as covariance, precision or its Cholesky factor."""

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self._event_shape[-1] - 1),
        }

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        name = ("covariance_matrix", "precision_matrix", "scale_tril")[given.index(True)]
        matrix = (covariance_matrix, precision_matrix, scale_tril)[given.index(True)]
        if matrix.dim() < 2:
            raise ValueError(f"{name} must be at least two-dimensional, with optional leading batch dimensions")
        p = matrix.shape[-1]
        if not isinstance(df, torchlike.Tensor):
            df = torchlike.tensor(df, dtype=matrix.dtype, device=matrix.device)
        batch = torchlike.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(df.shape))
        self.df = df.expand(batch)
        setattr(self, name, matrix.expand(batch + (p, p)))
        event = _Size((p, p))
        if bool((self.df <= p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        super().__init__(_Size(batch), event, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = torchlike.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        # Bartlett decomposition: diag(A)^2 ~ chi2(df - i), i = 0..p-1
        self._df_shift = torchlike.arange(p, dtype=self.df.dtype, device=self.df.device)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = _Size(batch_shape)
        mat_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        new.df = self.df.expand(batch_shape)
        new._df_shift = self._df_shift
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(mat_shape))
        return _finish_expand(self, new, batch_shape, self.event_shape)

    def _full(self, mat):
        return mat.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._full(self._unbroadcasted_scale_tril)

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return self._full(L @ L.mT)

    @lazy_property
    def precision_matrix(self):
        return self._full(torchlike.cholesky_inverse(self._unbroadcasted_scale_tril))

    @property
    def mean(self):
        return self.df.reshape(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        p = self._event_shape[-1]
        factor = (self.df - p - 1).reshape(tuple(self._batch_shape) + (1, 1))
        m = factor * self.covariance_matrix
        return torchlike.where(factor > 0, m, torchlike.full_like(m, math.nan))

    @property
    def variance(self):
        V = self.covariance_matrix
        diag = V.diagonal(dim1=-2, dim2=-1)
        outer = diag.unsqueeze(-1) * diag.unsqueeze(-2)
        return self.df.reshape(tuple(self._batch_shape) + (1, 1)) * (V.pow(2) + outer)

    def _bartlett(self, sample_shape):
        p = self._event_shape[-1]
        shape = _Size(sample_shape) + self._batch_shape
        dfs = (self.df.unsqueeze(-1) - self._df_shift).expand(shape + (p,))
        diag = (2 * standard_gamma(0.5 * dfs)).sqrt()
        noise = torchlike.randn(shape + (p, p), dtype=self.df.dtype, device=self.df.device).tril(-1)
        return noise + torchlike.diag_embed(diag)

    def rsample(self, sample_shape=_Size(), max_try_correction=None):
        """Bartlett decomposition: L A A^T L^T with A lower triangular.

        In low precision a draw can round to a singular matrix; such draws
        are redrawn up to `max_try_correction` times (default 3 when
        validating), warning each time, as PyTorch does."""
        tries = (3 if self._validate_args else 0) if max_try_correction is None else max_try_correction
        LA = self._unbroadcasted_scale_tril @ self._bartlett(sample_shape)
        out = LA @ LA.mT
        for _ in range(tries):
            singular = torchlike.linalg.cholesky_ex(out.detach()).info != 0
            if not bool(singular.any()):
                break
            warnings.warn("Singular sample detected.")
            LA = self._unbroadcasted_scale_tril @ self._bartlett(sample_shape)
            redrawn = LA @ LA.mT
            out = torchlike.where(singular.reshape(tuple(singular.shape) + (1, 1)), redrawn, out)
        return out

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        p = self._event_shape[-1]
        nu = self.df
        L = self._unbroadcasted_scale_tril
        logdet_x = torchlike.linalg.slogdet(value)[1]
        # tr(Sigma^-1 X) = |L^-1 C|_F^2 with C = chol(X)
        Lx = torchlike.linalg.cholesky(value)
        shape = torchlike.broadcast_shapes(tuple(L.shape[:-2]), tuple(Lx.shape[:-2]))
        solved = torchlike.linalg.solve_triangular(L.expand(shape + (p, p)), Lx.expand(shape + (p, p)), upper=False)
        trace = solved.pow(2).sum((-2, -1))
        return (
            0.5 * (nu - p - 1) * logdet_x
            - 0.5 * trace
            - 0.5 * nu * p * math.log(2)
            - nu * _half_log_det(L)
            - torchlike.mvlgamma(0.5 * nu, p)
        )

    def entropy(self):
        p = self._event_shape[-1]
        nu = self.df
        return (
            (p + 1) * _half_log_det(self._unbroadcasted_scale_tril)
            + 0.5 * p * (p + 1) * math.log(2)
            + torchlike.mvlgamma(0.5 * nu, p)
            - 0.5 * (nu - p - 1) * _mv_digamma(0.5 * nu, p)
            + 0.5 * nu * p
        )

    @property
    def _natural_params(self):
        return (-0.5 * self.precision_matrix, 0.5 * (self.df - self._event_shape[-1] - 1))

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        nu = 2 * y + p + 1
        return nu * (-torchlike.linalg.slogdet(-2 * x)[1] / 2 + math.log(2) * p / 2) + torchlike.mvlgamma(nu / 2, p)


class LKJCholesky(Distribution):
    """LKJ distribution over Cholesky factors of dim x dim correlation
    matrices, density proportional to det(L L^T)^(concentration - 1).

    Sampled by the onion method: row i (1 <= i < dim) is sqrt(y) u with
    u uniform on the unit sphere in R^i and y ~ Beta(i/2, c + (dim-1-i)/2),
    and L[i, i] = sqrt(1 - y)."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        from torchlike.distributions.continuous import Beta
        from torchlike.distributions.utils import broadcast_all

        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch = self.concentration.size()
        rows = torchlike.arange(1, dim, dtype=self.concentration.dtype, device=self.concentration.device)
        self._beta_a = rows / 2
        self._beta_b = self.concentration.unsqueeze(-1) + (dim - 1 - rows) / 2
        self._beta = Beta(self._beta_a.expand(tuple(batch) + (dim - 1,)), self._beta_b)
        super().__init__(batch, _Size((dim, dim)), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = _Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta_a = self._beta_a
        new._beta_b = self._beta_b.expand(batch_shape + (self.dim - 1,))
        new._beta = self._beta.expand(batch_shape + (self.dim - 1,))
        return _finish_expand(self, new, batch_shape, self.event_shape)

    def sample(self, sample_shape=_Size()):
        with torchlike.no_grad():
            y = self._beta.sample(sample_shape)  # (..., dim-1), row i -> y[i-1]
            shape = self._extended_shape(sample_shape)
            u = torchlike.randn(shape, dtype=y.dtype, device=y.device).tril(-1)
            norms = torchlike.linalg.norm(u, dim=-1, keepdim=True)
            # Row 0 has no strict-lower entries; its norm is 0.
            u = u / torchlike.where(norms > 0, norms, torchlike.ones_like(norms))
            y_rows = torchlike.cat([torchlike.zeros_like(y[..., :1]), y], -1)
            L = u * y_rows.sqrt().unsqueeze(-1)
            diag = (1 - y_rows).clamp(min=torchlike.finfo(y.dtype).tiny).sqrt()
            return L + torchlike.diag_embed(diag)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # Density w.r.t. the strict-lower entries, row by row (see class doc):
        # row i contributes L_ii^(2 b_i - 2) * Gamma(i/2) / (pi^(i/2) B(i/2, b_i)).
        d = self.dim
        log_diag = value.diagonal(dim1=-2, dim2=-1)[..., 1:].log()
        a, b = self._beta_a, self._beta_b
        log_beta_fn = torchlike.lgamma(a) + torchlike.lgamma(b) - torchlike.lgamma(a + b)
        log_const = torchlike.lgamma(a) - a * math.log(math.pi) - log_beta_fn
        return ((2 * b - 2) * log_diag).sum(-1) + log_const.sum(-1)
