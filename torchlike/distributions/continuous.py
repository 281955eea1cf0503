"""Continuous univariate distributions with their own densities, and the
Dirichlet/Beta pair."""
import math
import numbers

import torchlike
from torchlike import _C
from torchlike.distributions import constraints
from torchlike.distributions._sampling import standard_gamma, von_mises_draw
from torchlike.distributions.distribution import Distribution, ExponentialFamily, _finish_expand
from torchlike.distributions.utils import broadcast_all, lazy_property

__all__ = [
    "Beta",
    "Cauchy",
    "Chi2",
    "Dirichlet",
    "Exponential",
    "FisherSnedecor",
    "Gamma",
    "GeneralizedPareto",
    "Laplace",
    "Normal",
    "StudentT",
    "Uniform",
    "VonMises",
]

_Size = torchlike.Size
_LOG_2PI = math.log(2 * math.pi)


def _shape_of(*params):
    """batch shape for broadcast parameters: () when every one was a number."""
    return _Size() if all(isinstance(p, numbers.Number) for p in params) else None


def _expand_params(src, dst, names, batch_shape):
    for name in names:
        setattr(dst, name, getattr(src, name).expand(batch_shape))


def _uniform_like(shape, like, low=0.0):
    """U(low, 1) in like's dtype, never returning exactly `low`."""
    u = torchlike.rand(shape, dtype=like.dtype, device=like.device)
    if low:
        u = low + (1 - low) * u
    return u


def _nan_like(shape, like):
    return torchlike.full(shape, math.nan, dtype=like.dtype, device=like.device)


class _LocScale(Distribution):
    """Shared construction and expand for (loc, scale) families."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch = _shape_of(loc, scale)
        super().__init__(self.loc.size() if batch is None else batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(type(self), _instance)
        batch_shape = _Size(batch_shape)
        _expand_params(self, new, ("loc", "scale"), batch_shape)
        return _finish_expand(self, new, batch_shape)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc


class Normal(ExponentialFamily, _LocScale):
    """Gaussian N(loc, scale^2)."""

    _mean_carrier_measure = 0

    def __init__(self, loc, scale, validate_args=None):
        _LocScale.__init__(self, loc, scale, validate_args=validate_args)

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale * self.scale

    def sample(self, sample_shape=_Size()):
        with torchlike.no_grad():
            shape = self._extended_shape(sample_shape)
            return torchlike.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=_Size()):
        shape = self._extended_shape(sample_shape)
        noise = torchlike.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + noise * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        log_scale = self.scale.log() if isinstance(self.scale, _C.TensorBase) else math.log(self.scale)
        return -0.5 * z * z - log_scale - 0.5 * _LOG_2PI

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + torchlike.erf((value - self.loc) / (self.scale * math.sqrt(2))))

    def icdf(self, value):
        return self.loc + self.scale * math.sqrt(2) * torchlike.erfinv(2 * value - 1)

    def entropy(self):
        return 0.5 + 0.5 * _LOG_2PI + torchlike.log(self.scale)

    @property
    def _natural_params(self):
        precision = self.scale.pow(-2)
        return (self.loc * precision, -0.5 * precision)

    def _log_normalizer(self, eta1, eta2):
        return -0.25 * eta1.pow(2) / eta2 + 0.5 * torchlike.log(-math.pi / eta2)


class Laplace(_LocScale):
    """Laplace (double exponential) with density exp(-|x - loc| / scale) / (2 scale)."""

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape=_Size()):
        shape = self._extended_shape(sample_shape)
        eps = torchlike.finfo(self.loc.dtype).eps
        # u in (-1, 1): its sign picks the side, |u| the exponential quantile.
        u = _uniform_like(shape, self.loc) * (2 - eps) - (1 - eps)
        return self.loc - self.scale * u.sign() * torchlike.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -torchlike.log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * torchlike.expm1(-d.abs() / self.scale)

    def icdf(self, value):
        centred = value - 0.5
        return self.loc - self.scale * centred.sign() * torchlike.log1p(-2 * centred.abs())

    def entropy(self):
        return 1 + torchlike.log(2 * self.scale)


class Cauchy(_LocScale):
    """Cauchy (Lorentz); mean and variance do not exist (nan / inf)."""

    @property
    def mean(self):
        return _nan_like(self._extended_shape(), self.loc)

    @property
    def variance(self):
        return torchlike.full(self._extended_shape(), math.inf, dtype=self.loc.dtype, device=self.loc.device)

    def rsample(self, sample_shape=_Size()):
        shape = self._extended_shape(sample_shape)
        std = torchlike.empty(shape, dtype=self.loc.dtype, device=self.loc.device).cauchy_()
        return self.loc + std * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - torchlike.log1p(z * z)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return torchlike.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return self.loc + self.scale * torchlike.tan(math.pi * (value - 0.5))

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()


class Uniform(Distribution):
    """Uniform on [low, high)."""

    has_rsample = True

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def arg_constraints(self):
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        batch = _shape_of(low, high)
        super().__init__(self.low.size() if batch is None else batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Uniform, _instance)
        batch_shape = _Size(batch_shape)
        _expand_params(self, new, ("low", "high"), batch_shape)
        return _finish_expand(self, new, batch_shape)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.low + self.high) / 2

    @property
    def mode(self):
        return self.high * math.nan

    @property
    def stddev(self):
        return (self.high - self.low) / math.sqrt(12)

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=_Size()):
        shape = self._extended_shape(sample_shape)
        return self.low + (self.high - self.low) * _uniform_like(shape, self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        inside = (self.low <= value) & (value < self.high)
        return torchlike.log(inside.to(self.low.dtype)) - torchlike.log(self.high - self.low)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return self.low + value * (self.high - self.low)

    def entropy(self):
        return torchlike.log(self.high - self.low)


class Exponential(ExponentialFamily):
    """Exponential with density rate * exp(-rate x) on x >= 0."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch = _Size() if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Exponential, _instance)
        batch_shape = _Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        return _finish_expand(self, new, batch_shape)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return torchlike.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=_Size()):
        shape = self._extended_shape(sample_shape)
        unit = torchlike.empty(shape, dtype=self.rate.dtype, device=self.rate.device).exponential_()
        return unit / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -torchlike.expm1(-self.rate * value)

    def icdf(self, value):
        return -torchlike.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - torchlike.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, eta):
        return -torchlike.log(-eta)


class Gamma(ExponentialFamily):
    """Gamma(concentration, rate) with density
    rate^a x^(a-1) exp(-rate x) / Gamma(a)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        batch = _shape_of(concentration, rate)
        super().__init__(self.concentration.size() if batch is None else batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = _Size(batch_shape)
        _expand_params(self, new, ("concentration", "rate"), batch_shape)
        return _finish_expand(self, new, batch_shape)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=_Size()):
        shape = self._extended_shape(sample_shape)
        unit = standard_gamma(self.concentration.expand(shape))
        out = unit / self.rate.expand(shape)
        # Keep samples strictly positive so log_prob stays finite.
        return out.clamp(min=torchlike.finfo(out.dtype).tiny)

    def log_prob(self, value):
        value = torchlike.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        a, b = self.concentration, self.rate
        return torchlike.xlogy(a, b) + torchlike.xlogy(a - 1, value) - b * value - torchlike.lgamma(a)

    def entropy(self):
        a = self.concentration
        return a - torchlike.log(self.rate) + torchlike.lgamma(a) + (1.0 - a) * torchlike.digamma(a)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return torchlike.special.gammainc(self.concentration, self.rate * value)

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, eta1, eta2):
        return torchlike.lgamma(eta1 + 1) + (eta1 + 1) * torchlike.log(-eta2.reciprocal())


class Chi2(Gamma):
    """Chi-squared with `df` degrees of freedom = Gamma(df / 2, 1 / 2)."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        (df,) = broadcast_all(df)
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self):
        return self.concentration * 2


class Dirichlet(ExponentialFamily):
    """Dirichlet on the simplex, parameterised by a concentration vector."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = _Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        return _finish_expand(self, new, batch_shape, self.event_shape)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        g = standard_gamma(self.concentration.expand(shape))
        out = g / g.sum(-1, keepdim=True)
        info = torchlike.finfo(out.dtype)
        return out.clamp(min=info.tiny, max=1 - info.eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return (
            torchlike.xlogy(c - 1.0, value).sum(-1)
            + torchlike.lgamma(c.sum(-1))
            - torchlike.lgamma(c).sum(-1)
        )

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        # Interior mode (c - 1) / (c0 - k) when every c > 1; components with
        # c <= 1 sit at the boundary (0). If all are <= 1, mass piles up on
        # the largest concentration's vertex.
        excess = (self.concentration - 1).clamp(min=0)
        total = excess.sum(-1, keepdim=True)
        interior = excess / total
        vertex = torchlike.nn.functional.one_hot(
            self.concentration.argmax(-1), self.concentration.shape[-1]
        ).to(interior.dtype)
        return torchlike.where(total > 0, interior, vertex)

    @property
    def variance(self):
        c0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (c0 - self.concentration) / (c0.pow(2) * (c0 + 1))

    def entropy(self):
        c = self.concentration
        k = c.size(-1)
        c0 = c.sum(-1)
        log_beta = torchlike.lgamma(c).sum(-1) - torchlike.lgamma(c0)
        return log_beta + (c0 - k) * torchlike.digamma(c0) - ((c - 1.0) * torchlike.digamma(c)).sum(-1)

    @property
    def _natural_params(self):
        return (self.concentration,)

    @property
    def _mean_carrier_measure(self):
        # With natural parameter c the base measure is h(x) = 1 / prod(x_i),
        # and E[log x_i] = digamma(c_i) - digamma(c0).
        c = self.concentration
        return -(torchlike.digamma(c) - torchlike.digamma(c.sum(-1, keepdim=True))).sum(-1)

    def _log_normalizer(self, c):
        return torchlike.lgamma(c).sum(-1) - torchlike.lgamma(c.sum(-1))


class Beta(ExponentialFamily):
    """Beta(concentration1, concentration0) on [0, 1], as a two-component
    Dirichlet over (x, 1 - x)."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, numbers.Real) and isinstance(concentration0, numbers.Real):
            pair = torchlike.tensor([float(concentration1), float(concentration0)])
        else:
            c1, c0 = broadcast_all(concentration1, concentration0)
            pair = torchlike.stack([c1, c0], -1)
        self._dirichlet = Dirichlet(pair, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = _Size(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        return _finish_expand(self, new, batch_shape)

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        both = torchlike.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(both)

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    @property
    def _mean_carrier_measure(self):
        return self._dirichlet._mean_carrier_measure

    def _log_normalizer(self, a, b):
        return torchlike.lgamma(a) + torchlike.lgamma(b) - torchlike.lgamma(a + b)


class StudentT(Distribution):
    """Student's t with `df` degrees of freedom, location and scale."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = _Size(batch_shape)
        _expand_params(self, new, ("df", "loc", "scale"), batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        return _finish_expand(self, new, batch_shape)

    @property
    def mean(self):
        return torchlike.where(self.df > 1, self.loc, _nan_like(self.loc.shape, self.loc))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        finite = self.scale.pow(2) * df / (df - 2)
        inf = torchlike.full_like(finite, math.inf)
        nan = torchlike.full_like(finite, math.nan)
        return torchlike.where(df > 2, finite, torchlike.where(df > 1, inf, nan))

    def rsample(self, sample_shape=_Size()):
        # t = Z / sqrt(V / df) with Z ~ N(0, 1), V ~ chi2(df)
        shape = self._extended_shape(sample_shape)
        z = torchlike.randn(shape, dtype=self.df.dtype, device=self.df.device)
        v = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * z * torchlike.rsqrt(v / self.df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        half_df = 0.5 * self.df
        log_norm = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + torchlike.lgamma(half_df)
            - torchlike.lgamma(half_df + 0.5)
        )
        return -(half_df + 0.5) * torchlike.log1p(y * y / self.df) - log_norm

    def entropy(self):
        half = 0.5 * self.df
        log_beta = torchlike.lgamma(half) + math.lgamma(0.5) - torchlike.lgamma(half + 0.5)
        return (
            self.scale.log()
            + (half + 0.5) * (torchlike.digamma(half + 0.5) - torchlike.digamma(half))
            + 0.5 * self.df.log()
            + log_beta
        )


class FisherSnedecor(Distribution):
    """F distribution with (df1, df2) degrees of freedom."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        # chi2(d) / d == Gamma(d / 2, d / 2)
        self._num = Gamma(self.df1 * 0.5, self.df1 * 0.5)
        self._den = Gamma(self.df2 * 0.5, self.df2 * 0.5)
        batch = _shape_of(df1, df2)
        super().__init__(self.df1.size() if batch is None else batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(FisherSnedecor, _instance)
        batch_shape = _Size(batch_shape)
        _expand_params(self, new, ("df1", "df2"), batch_shape)
        new._num = self._num.expand(batch_shape)
        new._den = self._den.expand(batch_shape)
        return _finish_expand(self, new, batch_shape)

    @property
    def mean(self):
        d2 = self.df2
        return torchlike.where(d2 > 2, d2 / (d2 - 2), torchlike.full_like(d2, math.nan))

    @property
    def mode(self):
        d1, d2 = self.df1, self.df2
        m = (d1 - 2) / d1 * d2 / (d2 + 2)
        return torchlike.where(d1 > 2, m, torchlike.full_like(m, math.nan))

    @property
    def variance(self):
        d1, d2 = self.df1, self.df2
        v = 2 * d2.pow(2) * (d1 + d2 - 2) / (d1 * (d2 - 2).pow(2) * (d2 - 4))
        return torchlike.where(d2 > 4, v, torchlike.full_like(v, math.nan))

    def rsample(self, sample_shape=_Size()):
        ratio = self._num.rsample(sample_shape) / self._den.rsample(sample_shape)
        return ratio.clamp(min=torchlike.finfo(ratio.dtype).tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        h1, h2 = 0.5 * self.df1, 0.5 * self.df2
        ratio = self.df1 / self.df2
        log_norm = torchlike.lgamma(h1 + h2) - torchlike.lgamma(h1) - torchlike.lgamma(h2)
        return log_norm + h1 * ratio.log() + (h1 - 1) * value.log() - (h1 + h2) * torchlike.log1p(ratio * value)


def _log_i0(k):
    return torchlike.log(torchlike.special.i0e(k)) + k


class VonMises(Distribution):
    """Circular normal distribution on [-pi, pi)."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(VonMises, _instance)
        batch_shape = _Size(batch_shape)
        _expand_params(self, new, ("loc", "concentration"), batch_shape)
        return _finish_expand(self, new, batch_shape)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        k = self.concentration
        return k * torchlike.cos(value - self.loc) - _LOG_2PI - _log_i0(k)

    def sample(self, sample_shape=_Size()):
        with torchlike.no_grad():
            return von_mises_draw(self.loc, self.concentration, self._extended_shape(sample_shape))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        # circular variance 1 - I1(k) / I0(k); the exponential scalings cancel
        k = self.concentration
        return 1 - torchlike.special.i1e(k) / torchlike.special.i0e(k)


class GeneralizedPareto(Distribution):
    """Generalised Pareto with location, scale and shape `concentration`
    (xi); xi = 0 is the shifted exponential, xi < 0 has bounded support."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        batch = _shape_of(loc, scale, concentration)
        super().__init__(self.loc.size() if batch is None else batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = _Size(batch_shape)
        _expand_params(self, new, ("loc", "scale", "concentration"), batch_shape)
        return _finish_expand(self, new, batch_shape)

    def _xi_zero(self):
        return self.concentration == 0

    def _safe_xi(self):
        return torchlike.where(self._xi_zero(), torchlike.ones_like(self.concentration), self.concentration)

    def rsample(self, sample_shape=_Size()):
        shape = self._extended_shape(sample_shape)
        return self.icdf(_uniform_like(shape, self.loc))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        xi = self._safe_xi()
        shaped = -(1 + 1 / xi) * torchlike.log1p(xi * z)
        inside = torchlike.where(self._xi_zero(), -z, shaped)
        out = inside - self.scale.log()
        beyond = (z < 0) | ((self.concentration < 0) & (z > -1 / xi))
        return torchlike.where(beyond, torchlike.full_like(out, -math.inf), out)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = ((value - self.loc) / self.scale).clamp(min=0)
        xi = self._safe_xi()
        tail = torchlike.where(self._xi_zero(), -z, -torchlike.log1p(xi * z) / xi)
        c = -torchlike.expm1(tail)
        return torchlike.where(self.concentration < 0, torchlike.where(z >= -1 / xi, torchlike.ones_like(c), c), c)

    def icdf(self, value):
        xi = self._safe_xi()
        log_tail = torchlike.log1p(-value)
        z = torchlike.where(self._xi_zero(), -log_tail, torchlike.expm1(-xi * log_tail) / xi)
        return self.loc + self.scale * z

    @property
    def mean(self):
        xi = self.concentration
        m = self.loc + self.scale / (1 - xi)
        return torchlike.where(xi < 1, m, torchlike.full_like(m, math.nan))

    @property
    def variance(self):
        xi = self.concentration
        v = self.scale.pow(2) / ((1 - xi).pow(2) * (1 - 2 * xi))
        return torchlike.where(xi < 0.5, v, torchlike.full_like(v, math.nan))

    @property
    def mode(self):
        return self.loc

    def entropy(self):
        return self.scale.log() + self.concentration + 1

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        xi = self.concentration
        upper = torchlike.where(xi < 0, self.loc - self.scale / self._safe_xi(), torchlike.full_like(self.loc, math.inf))
        if self.loc.dim() == 0:
            return constraints.interval(self.loc.item(), upper.item())
        return constraints.interval(self.loc, upper)
