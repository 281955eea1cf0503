"""Distributions built from others: TransformedDistribution and the
families defined as transforms of a simpler base, Independent and
MixtureSameFamily."""
import math
import numbers

import torchlike
from torchlike.distributions import constraints
from torchlike.distributions.continuous import Cauchy, Exponential, Gamma, Normal, Uniform
from torchlike.distributions.discrete import Categorical, _BinaryParams
from torchlike.distributions.distribution import Distribution, _finish_expand
from torchlike.distributions.transforms import (
    AbsTransform,
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    PowerTransform,
    SigmoidTransform,
    StickBreakingTransform,
    Transform,
)
from torchlike.distributions.utils import (
    _sum_rightmost,
    broadcast_all,
    clamp_probs,
    euler_constant,
)

__all__ = [
    "ExpRelaxedCategorical",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "Independent",
    "InverseGamma",
    "Kumaraswamy",
    "LogNormal",
    "LogisticNormal",
    "LogitRelaxedBernoulli",
    "MixtureSameFamily",
    "Pareto",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "TransformedDistribution",
    "Weibull",
]

_Size = torchlike.Size
_F = torchlike.nn.functional


class Independent(Distribution):
    """Reinterprets the rightmost `reinterpreted_batch_ndims` batch dims of
    a distribution as event dims (log_prob sums over them)."""

    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        n_batch = len(base_distribution.batch_shape)
        if reinterpreted_batch_ndims > n_batch:
            raise ValueError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {reinterpreted_batch_ndims} vs {n_batch}"
            )
        full = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        cut = n_batch - reinterpreted_batch_ndims
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(_Size(full[:cut]), _Size(full[cut:]), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = _Size(batch_shape)
        moved = self.event_shape[: self.reinterpreted_batch_ndims]
        new.base_dist = self.base_dist.expand(batch_shape + moved)
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        return _finish_expand(self, new, batch_shape, self.event_shape)

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):
        if self.reinterpreted_batch_ndims > 0:
            return False
        return self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self):
        s = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            s = constraints.independent(s, self.reinterpreted_batch_ndims)
        return s

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=_Size()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=_Size()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"


class TransformedDistribution(Distribution):
    """The distribution of transforms[-1](...transforms[0](X)) for X drawn
    from `base_distribution`; densities by the change-of-variables formula."""

    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        base_event_dim = len(base_distribution.event_shape)
        chain = ComposeTransform(self.transforms)
        if len(base_shape) < chain.domain.event_dim:
            raise ValueError(
                f"base_distribution needs to have shape with size at least {chain.domain.event_dim}, "
                f"but got {base_shape}."
            )
        out_shape = tuple(chain.forward_shape(base_shape))
        needed_base = tuple(chain.inverse_shape(out_shape))
        if needed_base != base_shape:
            # Parameters of the transforms broadcast the base's batch shape.
            keep = len(needed_base) - base_event_dim
            base_distribution = base_distribution.expand(_Size(needed_base[:keep]))
        extra = chain.domain.event_dim - len(base_distribution.event_shape)
        if extra > 0:
            base_distribution = Independent(base_distribution, extra)
        self.base_dist = base_distribution
        event_dim = chain.codomain.event_dim + max(base_event_dim - chain.domain.event_dim, 0)
        cut = len(out_shape) - event_dim
        super().__init__(_Size(out_shape[:cut]), _Size(out_shape[cut:]), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(TransformedDistribution, _instance)
        batch_shape = _Size(batch_shape)
        out_shape = batch_shape + self.event_shape
        for t in reversed(self.transforms):
            out_shape = t.inverse_shape(out_shape)
        keep = len(out_shape) - len(self.base_dist.event_shape)
        new.base_dist = self.base_dist.expand(_Size(tuple(out_shape)[:keep]))
        new.transforms = self.transforms
        return _finish_expand(self, new, batch_shape, self.event_shape)

    @constraints.dependent_property(is_discrete=False)
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        last = self.transforms[-1].codomain
        if len(self.event_shape) > last.event_dim:
            return constraints.independent(last, len(self.event_shape) - last.event_dim)
        return last

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    def sample(self, sample_shape=_Size()):
        with torchlike.no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape=_Size()):
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        total = 0.0
        y = value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            total = total - _sum_rightmost(t.log_abs_det_jacobian(x, y), event_dim - t.domain.event_dim)
            y = x
        base_lp = self.base_dist.log_prob(y)
        return total + _sum_rightmost(base_lp, event_dim - len(self.base_dist.event_shape))

    def _overall_sign(self):
        s = 1
        for t in self.transforms:
            s = s * t.sign
        return s

    def _orient(self, p):
        """cdf of Y from that of X: flipped where the chain is decreasing."""
        s = self._overall_sign()
        if isinstance(s, numbers.Number) and s == 1:
            return p
        return s * (p - 0.5) + 0.5

    def cdf(self, value):
        for t in reversed(self.transforms):
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._orient(self.base_dist.cdf(value))

    def icdf(self, value):
        x = self.base_dist.icdf(self._orient(value))
        for t in self.transforms:
            x = t(x)
        return x


def _expand_transformed(self, cls, batch_shape, _instance):
    new = self._get_checked_instance(cls, _instance)
    return TransformedDistribution.expand(self, batch_shape, _instance=new)


class LogNormal(TransformedDistribution):
    """exp(X) for X ~ Normal(loc, scale)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_transformed(self, LogNormal, batch_shape, _instance)

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.pow(2)).exp()

    @property
    def variance(self):
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc


class _FoldedAtZero(TransformedDistribution):
    """|X| for X symmetric about 0 with a `scale` (HalfNormal, HalfCauchy): the
    density doubles on [0, inf), so log_prob adds log 2, cdf is 2F - 1 and the
    entropy loses log 2."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return torchlike.zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = torchlike.as_tensor(value, dtype=self.scale.dtype, device=self.scale.device)
        lp = self.base_dist.log_prob(value) + math.log(2)
        return torchlike.where(value >= 0, lp, torchlike.full_like(lp, -math.inf))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_FoldedAtZero):
    """|X| for X ~ Normal(0, scale)."""

    def __init__(self, scale, validate_args=None):
        super().__init__(Normal(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_transformed(self, HalfNormal, batch_shape, _instance)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)


class HalfCauchy(_FoldedAtZero):
    """|X| for X ~ Cauchy(0, scale)."""

    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_transformed(self, HalfCauchy, batch_shape, _instance)

    @property
    def mean(self):
        return torchlike.full(self._extended_shape(), math.inf, dtype=self.scale.dtype, device=self.scale.device)

    @property
    def variance(self):
        return self.base_dist.variance


class Gumbel(TransformedDistribution):
    """Gumbel (type-I extreme value): loc - scale * log(-log U)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        info = torchlike.finfo(self.loc.dtype)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            base = Uniform(info.tiny, 1 - info.eps, validate_args=validate_args)
        else:
            base = Uniform(
                torchlike.full_like(self.loc, info.tiny),
                torchlike.full_like(self.loc, 1 - info.eps),
                validate_args=validate_args,
            )
        chain = [ExpTransform().inv, AffineTransform(0, -torchlike.ones_like(self.scale)),
                 ExpTransform().inv, AffineTransform(self.loc, -self.scale)]
        super().__init__(base, chain, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return TransformedDistribution.expand(self, batch_shape, _instance=new)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (self.loc - value) / self.scale
        return (z - z.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * euler_constant

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + euler_constant)


class Pareto(TransformedDistribution):
    """Pareto type I with minimum `scale` and tail index `alpha`."""

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        chain = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, chain, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Pareto, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.alpha = self.alpha.expand(batch_shape)
        return TransformedDistribution.expand(self, batch_shape, _instance=new)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)
        return torchlike.where(self.alpha > 1, a * self.scale / (a - 1), torchlike.full_like(a, math.inf))

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)
        v = self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))
        return torchlike.where(self.alpha > 2, v, torchlike.full_like(v, math.inf))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


class Weibull(TransformedDistribution):
    """Weibull with `scale` (lambda) and shape `concentration` (k)."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(torchlike.ones_like(self.scale), validate_args=validate_args)
        chain = [PowerTransform(exponent=self.concentration_reciprocal), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, chain, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Weibull, _instance)
        batch_shape = _Size(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        base = self.base_dist.expand(batch_shape)
        chain = [PowerTransform(exponent=new.concentration_reciprocal), AffineTransform(loc=0, scale=new.scale)]
        TransformedDistribution.__init__(new, base, chain, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.scale * torchlike.exp(torchlike.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        k = self.concentration
        interior = self.scale * ((k - 1) / k).clamp(min=0).pow(self.concentration_reciprocal)
        return torchlike.where(k > 1, interior, torchlike.zeros_like(interior))

    @property
    def variance(self):
        g1 = torchlike.exp(torchlike.lgamma(1 + self.concentration_reciprocal))
        g2 = torchlike.exp(torchlike.lgamma(1 + 2 * self.concentration_reciprocal))
        return self.scale.pow(2) * (g2 - g1.pow(2))

    def entropy(self):
        return (
            euler_constant * (1 - self.concentration_reciprocal)
            + torchlike.log(self.scale * self.concentration_reciprocal)
            + 1
        )


def _kumaraswamy_moment(a, b, n):
    """E[X^n] = b B(1 + n/a, b)"""
    t = 1 + n / a
    return b * torchlike.exp(torchlike.lgamma(t) + torchlike.lgamma(b) - torchlike.lgamma(t + b))


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy(a, b) on (0, 1): (1 - U^(1/b))^(1/a)."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        info = torchlike.finfo(self.concentration0.dtype)
        base = Uniform(
            torchlike.full_like(self.concentration0, 0),
            torchlike.full_like(self.concentration0, 1),
            validate_args=validate_args,
        )
        chain = [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base, chain, validate_args=validate_args)
        self._eps = info.eps

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        new._eps = self._eps
        return TransformedDistribution.expand(self, batch_shape, _instance=new)

    @property
    def mean(self):
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        m = ((a - 1) / (a * b - 1)).pow(a.reciprocal())
        return torchlike.where((a < 1) | (b < 1), torchlike.full_like(m, math.nan), m)

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        return _kumaraswamy_moment(a, b, 2) - _kumaraswamy_moment(a, b, 1).pow(2)

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        harmonic_b = torchlike.digamma(b + 1) + euler_constant
        return (1 - 1 / b) + (1 - 1 / a) * harmonic_b - torchlike.log(a * b)


class InverseGamma(TransformedDistribution):
    """1 / X for X ~ Gamma(concentration, rate)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        minus_one = -base.rate.new_ones(())
        super().__init__(base, PowerTransform(minus_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_transformed(self, InverseGamma, batch_shape, _instance)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        a, b = self.concentration, self.rate
        m = b / (a - 1)
        return torchlike.where(a > 1, m, torchlike.full_like(m, math.inf))

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        a, b = self.concentration, self.rate
        v = b.pow(2) / ((a - 1).pow(2) * (a - 2))
        return torchlike.where(a > 2, v, torchlike.full_like(v, math.inf))

    def entropy(self):
        a = self.concentration
        return a + self.rate.log() + torchlike.lgamma(a) - (1 + a) * torchlike.digamma(a)


class LogisticNormal(TransformedDistribution):
    """StickBreakingTransform of a Normal over R^(K-1): a distribution on
    the K-simplex."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_transformed(self, LogisticNormal, batch_shape, _instance)

    @property
    def loc(self):
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale


class LogitRelaxedBernoulli(_BinaryParams, Distribution):
    """Logit of a RelaxedBernoulli sample (the Binary Concrete of
    Maddison et al. 2017, in logit space)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        batch = self._set_binary(probs, logits)
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        batch_shape = _Size(batch_shape)
        new.temperature = self.temperature
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(batch_shape))
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return _finish_expand(self, new, batch_shape)

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    has_rsample = True

    def rsample(self, sample_shape=_Size()):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(torchlike.rand(shape, dtype=probs.dtype, device=probs.device))
        logistic_noise = u.log() - (-u).log1p()
        return (probs.log() - (-probs).log1p() + logistic_noise) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        shifted = logits - value * self.temperature
        return self.temperature.log() + shifted - 2 * _F.softplus(shifted)


class RelaxedBernoulli(TransformedDistribution):
    """Binary Concrete / Gumbel-sigmoid relaxation of Bernoulli on (0, 1)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_transformed(self, RelaxedBernoulli, batch_shape, _instance)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


class ExpRelaxedCategorical(Distribution):
    """Log of a RelaxedOneHotCategorical sample (ExpConcrete, Maddison et
    al. 2017): samples are log-probability vectors."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch = self._categorical.batch_shape
        event = self._categorical.param_shape[-1:]
        super().__init__(batch, event, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = _Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        return _finish_expand(self, new, batch_shape, self.event_shape)

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    def rsample(self, sample_shape=_Size()):
        shape = self._extended_shape(sample_shape)
        u = clamp_probs(torchlike.rand(shape, dtype=self.logits.dtype, device=self.logits.device))
        gumbel = -(-u.log()).log()
        scores = (self.logits + gumbel) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        t = self.temperature
        t = t if isinstance(t, torchlike.Tensor) else torchlike.tensor(float(t), dtype=logits.dtype)
        # log Gamma(K) + (K-1) log t + sum(a - t y) - K logsumexp(a - t y)
        score = logits - value * t
        log_norm = math.lgamma(k) + (k - 1) * t.log()
        return (score - score.logsumexp(-1, keepdim=True)).sum(-1) + log_norm


class RelaxedOneHotCategorical(TransformedDistribution):
    """Concrete / Gumbel-softmax relaxation of OneHotCategorical."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_transformed(self, RelaxedOneHotCategorical, batch_shape, _instance)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


class MixtureSameFamily(Distribution):
    """Mixture whose components are the rightmost batch dim of one
    distribution, weighted by a Categorical."""

    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of torch.distributions.Distribution")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        mix_batch = mixture_distribution.batch_shape
        comp_batch = component_distribution.batch_shape[:-1]
        for a, b in zip(reversed(tuple(mix_batch)), reversed(tuple(comp_batch))):
            if a != 1 and b != 1 and a != b:
                raise ValueError(
                    f"`mixture_distribution.batch_shape` ({mix_batch}) is not compatible with "
                    f"`component_distribution.batch_shape`({comp_batch})"
                )
        k_mix = mixture_distribution.logits.shape[-1]
        k_comp = component_distribution.batch_shape[-1]
        if k_mix != k_comp:
            raise ValueError(
                f"`mixture_distribution component` ({k_mix}) does not equal "
                f"`component_distribution.batch_shape[-1]` ({k_comp})"
            )
        self._num_component = k_mix
        event = component_distribution.event_shape
        self._event_ndims = len(event)
        super().__init__(comp_batch, event, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        batch_shape = _Size(batch_shape)
        new._component_distribution = self._component_distribution.expand(batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        return _finish_expand(self, new, batch_shape, self.event_shape)

    @constraints.dependent_property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    def _weights(self):
        """Mixture probabilities shaped to broadcast against component
        statistics: (..., K) + (1,) * event_ndims."""
        p = self._mixture_distribution.probs
        return p.reshape(tuple(p.shape) + (1,) * self._event_ndims)

    def _component_axis(self):
        return -1 - self._event_ndims

    @property
    def mean(self):
        return (self._weights() * self._component_distribution.mean).sum(self._component_axis())

    @property
    def variance(self):
        w = self._weights()
        axis = self._component_axis()
        comp_mean = self._component_distribution.mean
        within = (w * self._component_distribution.variance).sum(axis)
        between = (w * (comp_mean - self.mean.unsqueeze(axis)).pow(2)).sum(axis)
        return within + between

    def _pad(self, x):
        return x.unsqueeze(self._component_axis())

    def cdf(self, x):
        per_component = self._component_distribution.cdf(self._pad(x))
        return (per_component * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        per_component = self._component_distribution.log_prob(self._pad(x))
        log_w = torchlike.log_softmax(self._mixture_distribution.logits, dim=-1)
        return torchlike.logsumexp(per_component + log_w, dim=-1)

    def sample(self, sample_shape=_Size()):
        with torchlike.no_grad():
            sample_shape = _Size(sample_shape)
            which = self._mixture_distribution.sample(sample_shape)  # (*s, *b)
            draws = self._component_distribution.sample(sample_shape)  # (*s, *b, K, *e)
            index = which.reshape(tuple(which.shape) + (1,) + (1,) * self._event_ndims)
            index = index.expand(tuple(which.shape) + (1,) + tuple(self.event_shape))
            return draws.gather(self._component_axis(), index).squeeze(self._component_axis())

    def __repr__(self):
        return (
            f"{type(self).__name__}(\n  {self._mixture_distribution},\n  {self._component_distribution})"
        )
