"""Discrete distributions: Bernoulli, Categorical and its one-hot forms,
Binomial, Multinomial, Poisson, Geometric, NegativeBinomial."""
import math
import numbers

import torchlike
from torchlike.distributions import constraints
from torchlike.distributions.distribution import Distribution, ExponentialFamily, _finish_expand
from torchlike.distributions.utils import (
    broadcast_all,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)

__all__ = [
    "Bernoulli",
    "Binomial",
    "Categorical",
    "Geometric",
    "Multinomial",
    "NegativeBinomial",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Poisson",
]

_Size = torchlike.Size
_F = torchlike.nn.functional


def _one_of(probs, logits):
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def _copy_given(src, dst, names, shape):
    """Expand onto `dst` whichever of the parameters `src` was given (or has
    computed): absent lazy ones stay absent so they are derived again."""
    for name in names:
        if name in src.__dict__:
            setattr(dst, name, src.__dict__[name].expand(shape))


class _BinaryParams:
    """probs/logits handling shared by the Bernoulli-like families."""

    def _set_binary(self, probs, logits):
        _one_of(probs, logits)
        given = probs if probs is not None else logits
        scalar = isinstance(given, numbers.Number)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        return _Size() if scalar else self._param.size()

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()


class Bernoulli(_BinaryParams, ExponentialFamily):
    """Bernoulli over {0, 1}, by `probs` or `logits`."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        batch = self._set_binary(probs, logits)
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = _Size(batch_shape)
        _copy_given(self, new, ("probs", "logits"), batch_shape)
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return _finish_expand(self, new, batch_shape)

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        m = (self.probs >= 0.5).to(self.probs.dtype)
        return torchlike.where(self.probs == 0.5, torchlike.full_like(m, math.nan), m)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=_Size()):
        shape = self._extended_shape(sample_shape)
        with torchlike.no_grad():
            return torchlike.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = torchlike.broadcast_tensors(self.logits, value)
        return -_F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return _F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        vals = torchlike.arange(2, dtype=self._param.dtype, device=self._param.device)
        vals = vals.reshape((-1,) + (1,) * len(self._batch_shape))
        return vals.expand((-1,) + tuple(self._batch_shape)) if expand else vals

    @property
    def _natural_params(self):
        return (torchlike.logit(self.probs),)

    def _log_normalizer(self, x):
        return torchlike.log1p(torchlike.exp(x))


class Categorical(Distribution):
    """Categorical over {0, ..., K-1}; probs are normalised along the last
    dim, logits are normalised to log-probabilities."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch = self._param.size()[:-1] if self._param.dim() > 1 else _Size()
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = _Size(batch_shape)
        full = batch_shape + _Size((self._num_events,))
        _copy_given(self, new, ("probs", "logits"), full)
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        new._num_events = self._num_events
        return _finish_expand(self, new, batch_shape)

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return torchlike.full(self._extended_shape(), math.nan, dtype=self.probs.dtype, device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(-1)

    @property
    def variance(self):
        return torchlike.full(self._extended_shape(), math.nan, dtype=self.probs.dtype, device=self.probs.device)

    def sample(self, sample_shape=_Size()):
        if not isinstance(sample_shape, _Size):
            sample_shape = _Size(sample_shape)
        n = sample_shape.numel()
        table = self.probs.reshape(-1, self._num_events)
        with torchlike.no_grad():
            drawn = torchlike.multinomial(table, n, True)  # (rows, n)
        return drawn.T.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        index = value.long().unsqueeze(-1)
        index, table = torchlike.broadcast_tensors(index, self.logits)
        return table.gather(-1, index[..., :1]).squeeze(-1)

    def entropy(self):
        # 0 * log 0 = 0: clamp -inf logits to the lowest finite value first.
        floor = torchlike.finfo(self.logits.dtype).min
        return -(self.logits.clamp(min=floor) * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        vals = torchlike.arange(self._num_events, dtype=torchlike.long, device=self._param.device)
        vals = vals.reshape((-1,) + (1,) * len(self._batch_shape))
        return vals.expand((-1,) + tuple(self._batch_shape)) if expand else vals


class OneHotCategorical(Distribution):
    """Categorical whose samples are one-hot vectors of length K."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        batch = self._categorical.batch_shape
        event = self._categorical.param_shape[-1:]
        super().__init__(batch, event, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = _Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        return _finish_expand(self, new, batch_shape, self.event_shape)

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        p = self._categorical.probs
        return _F.one_hot(p.argmax(-1), p.shape[-1]).to(p.dtype)

    @property
    def variance(self):
        p = self._categorical.probs
        return p * (1 - p)

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=_Size()):
        idx = self._categorical.sample(sample_shape)
        p = self._categorical.probs
        return _F.one_hot(idx, p.shape[-1]).to(p.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        k = self.event_shape[0]
        eye = torchlike.eye(k, dtype=self._param.dtype, device=self._param.device)
        vals = eye.reshape((k,) + (1,) * len(self.batch_shape) + (k,))
        return vals.expand((k,) + tuple(self.batch_shape) + (k,)) if expand else vals


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """One-hot samples whose gradient is that of the probabilities
    (straight-through estimator, Bengio et al. 2013)."""

    has_rsample = True

    def rsample(self, sample_shape=_Size()):
        hard = self.sample(sample_shape)
        p = self._categorical.probs
        return hard + (p - p.detach())


class _CountAndProbs:
    """total_count beside probs or logits (Binomial, NegativeBinomial): both are
    broadcast together, total_count takes the parameter's dtype, and expand
    carries whichever of probs/logits was given."""

    def _init_count_and_param(self, total_count, probs, logits):
        _one_of(probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits

    def _expand_count_and_param(self, cls, batch_shape, _instance):
        new = self._get_checked_instance(cls, _instance)
        batch_shape = _Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        _copy_given(self, new, ("probs", "logits"), batch_shape)
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return _finish_expand(self, new, batch_shape)

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)


class Binomial(_CountAndProbs, Distribution):
    """Number of successes in `total_count` Bernoulli(probs) trials."""

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        self._init_count_and_param(total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_count_and_param(Binomial, batch_shape, _instance)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=_Size()):
        shape = self._extended_shape(sample_shape)
        with torchlike.no_grad():
            return torchlike.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n, k, eta = self.total_count, value, self.logits
        log_choose = torchlike.lgamma(n + 1) - torchlike.lgamma(k + 1) - torchlike.lgamma(n - k + 1)
        # k*eta - n*softplus(eta) is k log p + (n - k) log(1 - p); splitting
        # softplus as max(eta, 0) + log1p(exp(-|eta|)) keeps it exact when
        # p is 0 or 1 (eta -> -+inf) and the matching k is 0 or n.
        lead = torchlike.where(eta > 0, (k - n) * eta, k * eta)
        lead = torchlike.where((k == n) & (eta == math.inf), torchlike.zeros_like(lead), lead)
        lead = torchlike.where((k == 0) & (eta == -math.inf), torchlike.zeros_like(lead), lead)
        return log_choose + lead - n * torchlike.log1p(torchlike.exp(-eta.abs()))

    def entropy(self):
        n = int(self.total_count.max())
        if not bool((self.total_count == n).all()):
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        support = self.enumerate_support(expand=False)
        lp = self.log_prob(support)
        return -(torchlike.exp(lp) * lp).sum(0)

    def enumerate_support(self, expand=True):
        n = int(self.total_count.max())
        if not bool((self.total_count == n).all()):
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        vals = torchlike.arange(1 + n, dtype=self._param.dtype, device=self._param.device)
        vals = vals.reshape((-1,) + (1,) * len(self._batch_shape))
        return vals.expand((-1,) + tuple(self._batch_shape)) if expand else vals


class Multinomial(Distribution):
    """Counts over K categories after `total_count` categorical draws."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, numbers.Number):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch = self._categorical.batch_shape
        event = self._categorical.param_shape[-1:]
        super().__init__(batch, event, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = _Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = Binomial(total_count=self.total_count, probs=new._categorical.probs)
        return _finish_expand(self, new, batch_shape, self.event_shape)

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=_Size()):
        sample_shape = _Size(sample_shape)
        draws = self._categorical.sample(_Size((self.total_count,)) + sample_shape)
        # draws: (total_count, *sample, *batch) category indices; count them.
        draws = draws.movedim(0, -1)
        counts = torchlike.zeros(tuple(draws.shape[:-1]) + (self._categorical._num_events,),
                                 dtype=self.probs.dtype, device=self.probs.device)
        return counts.scatter_add_(-1, draws, torchlike.ones_like(draws, dtype=counts.dtype))

    def entropy(self):
        n = torchlike.tensor(float(self.total_count), dtype=self.probs.dtype)
        cat_entropy = self._categorical.entropy()
        # H = -log n! - n sum p log p + sum_i E[log x_i!], x_i ~ Binomial(n, p_i)
        ks = self._binomial.enumerate_support(expand=False)[1:]  # 1..n
        binom_lp = self._binomial.log_prob(ks)
        expected = (torchlike.exp(binom_lp) * torchlike.lgamma(ks + 1)).sum(0)
        return n * cat_entropy - torchlike.lgamma(n + 1) + expected.sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = torchlike.broadcast_tensors(self.logits, value)
        # A category that is impossible (logit -inf) and not observed adds 0.
        unused = (value == 0) & (logits == -math.inf)
        logits = torchlike.where(unused, torchlike.zeros_like(logits), logits)
        log_coeff = torchlike.lgamma(value.sum(-1) + 1) - torchlike.lgamma(value + 1).sum(-1)
        return log_coeff + (logits * value).sum(-1)


class Poisson(ExponentialFamily):
    """Poisson with the given `rate`."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch = _Size() if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Poisson, _instance)
        batch_shape = _Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        return _finish_expand(self, new, batch_shape)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=_Size()):
        shape = self._extended_shape(sample_shape)
        with torchlike.no_grad():
            return torchlike.poisson(self.rate.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return torchlike.xlogy(value, rate) - rate - torchlike.lgamma(value + 1)

    @property
    def _natural_params(self):
        return (torchlike.log(self.rate),)

    def _log_normalizer(self, x):
        return torchlike.exp(x)


class Geometric(_BinaryParams, Distribution):
    """Number of failures before the first success, success prob `probs`."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        batch = self._set_binary(probs, logits)
        super().__init__(batch, validate_args=validate_args)
        if self._validate_args and probs is not None:
            # Probability 0 never succeeds: reject it although the interval admits it.
            p = self.probs
            positive = p > 0
            if not bool(positive.all()):
                raise ValueError(
                    f"Expected parameter probs ({type(p).__name__} of shape {tuple(p.shape)}) of distribution "
                    f"{self!r} to be positive but found invalid values:\n{p[~positive]}"
                )

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Geometric, _instance)
        batch_shape = _Size(batch_shape)
        _copy_given(self, new, ("probs", "logits"), batch_shape)
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return _finish_expand(self, new, batch_shape)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return torchlike.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=_Size()):
        shape = self._extended_shape(sample_shape)
        tiny = torchlike.finfo(self.probs.dtype).tiny
        with torchlike.no_grad():
            u = torchlike.rand(shape, dtype=self.probs.dtype, device=self.probs.device).clamp(min=tiny)
            return (u.log() / torchlike.log1p(-self.probs)).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, p = broadcast_all(value, self.probs)
        # p == 1 with zero failures is certain: avoid 0 * log(0) = nan.
        failures = torchlike.where((p == 1) & (value == 0), torchlike.zeros_like(value), value * torchlike.log1p(-p))
        return failures + torchlike.log(p)

    def entropy(self):
        return _F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs


class NegativeBinomial(_CountAndProbs, Distribution):
    """Number of successful Bernoulli(probs) trials before `total_count`
    failures (total_count may be fractional: a Gamma-Poisson mixture)."""

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        self._init_count_and_param(total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_count_and_param(NegativeBinomial, batch_shape, _instance)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return self.total_count * torchlike.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / torchlike.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        # Gamma-Poisson mixture: rate ~ Gamma(r, (1 - p) / p)
        from torchlike.distributions.continuous import Gamma

        return Gamma(self.total_count, torchlike.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=_Size()):
        with torchlike.no_grad():
            return torchlike.poisson(self._gamma.sample(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        r, k, eta = self.total_count, value, self.logits
        unnorm = r * _F.logsigmoid(-eta) + k * _F.logsigmoid(eta)
        log_norm = torchlike.lgamma(r + k) - torchlike.lgamma(1.0 + k) - torchlike.lgamma(r)
        # r == 0 is the point mass at 0: lgamma(0) terms cancel there.
        log_norm = torchlike.where(r + k == 0, torchlike.zeros_like(log_norm), log_norm)
        return unnorm + log_norm
