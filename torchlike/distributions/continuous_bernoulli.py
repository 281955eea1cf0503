"""The continuous Bernoulli distribution (Loaiza-Ganem & Cunningham 2019):
density C(lam) lam^x (1 - lam)^(1 - x) on [0, 1]."""
import math
import numbers

import torchlike
from torchlike.distributions import constraints
from torchlike.distributions.distribution import ExponentialFamily, _finish_expand
from torchlike.distributions.utils import (
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)

__all__ = ["ContinuousBernoulli"]

_Size = torchlike.Size


class ContinuousBernoulli(ExponentialFamily):
    """Continuous Bernoulli by `probs` (lam) or `logits`.

    The closed forms divide by (1 - 2 lam), so for lam inside `lims`
    (around 1/2) they are replaced by Taylor expansions in x = lam - 1/2."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch = _Size() if isinstance(given, numbers.Number) else self._param.size()
        self._lims = lims
        super().__init__(batch, validate_args=validate_args)
        if probs is not None:
            # Validated as given; 0 and 1 make C(lam) infinite, so keep inside.
            self.probs = clamp_probs(self.probs)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        batch_shape = _Size(batch_shape)
        new._lims = self._lims
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(batch_shape))
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return _finish_expand(self, new, batch_shape)

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def _stable(self):
        """True where lam is far enough from 1/2 for the closed forms."""
        lo, hi = self._lims
        return (self.probs <= lo) | (self.probs >= hi)

    def _safe_probs(self):
        """lam with the unstable band replaced by a harmless value, so the
        unused branch of a where() stays finite (and so do its gradients)."""
        return torchlike.where(self._stable(), self.probs, torchlike.full_like(self.probs, self._lims[0]))

    def _log_normalizer_of_probs(self):
        lam = self._safe_probs()
        # C(lam) = 2 atanh(1 - 2 lam) / (1 - 2 lam) = (log(1-lam) - log(lam)) / (1 - 2 lam)
        closed = torchlike.log(torchlike.abs(torchlike.log1p(-lam) - torchlike.log(lam))) - torchlike.log(
            torchlike.abs(1 - 2 * lam)
        )
        x2 = (self.probs - 0.5).pow(2)
        series = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x2) * x2
        return torchlike.where(self._stable(), closed, series)

    @property
    def mean(self):
        lam = self._safe_probs()
        closed = lam / (2 * lam - 1) + 1 / (torchlike.log1p(-lam) - torchlike.log(lam))
        x = self.probs - 0.5
        series = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return torchlike.where(self._stable(), closed, series)

    @property
    def stddev(self):
        return torchlike.sqrt(self.variance)

    @property
    def variance(self):
        lam = self._safe_probs()
        closed = lam * (lam - 1) / (1 - 2 * lam).pow(2) + 1 / (torchlike.log1p(-lam) - torchlike.log(lam)).pow(2)
        x2 = (self.probs - 0.5).pow(2)
        series = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x2) * x2
        return torchlike.where(self._stable(), closed, series)

    def rsample(self, sample_shape=_Size()):
        shape = self._extended_shape(sample_shape)
        u = torchlike.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def sample(self, sample_shape=_Size()):
        with torchlike.no_grad():
            return self.rsample(sample_shape)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        bce = torchlike.nn.functional.binary_cross_entropy_with_logits(logits, value, reduction="none")
        return -bce + self._log_normalizer_of_probs()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lam = self._safe_probs()
        closed = (lam.pow(value) * (1 - lam).pow(1 - value) + lam - 1) / (2 * lam - 1)
        inner = torchlike.where(self._stable(), closed, value)
        return torchlike.where(value <= 0, torchlike.zeros_like(inner), torchlike.where(value >= 1, torchlike.ones_like(inner), inner))

    def icdf(self, value):
        lam = self._safe_probs()
        log_odds_span = torchlike.log(lam) - torchlike.log1p(-lam)
        closed = (torchlike.log1p(-lam + value * (2 * lam - 1)) - torchlike.log1p(-lam)) / log_odds_span
        return torchlike.where(self._stable(), closed, value)

    def entropy(self):
        # H = -E[x logit(lam) + log(1 - lam)] - log C(lam)
        log_p1 = torchlike.log(self.probs)
        log_p0 = torchlike.log1p(-self.probs)
        return self.mean * (log_p0 - log_p1) - self._log_normalizer_of_probs() - log_p0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """log C as a function of the natural parameter (the logit)."""
        lo, hi = self._lims
        near_zero = (x > math.log(lo / (1 - lo))) & (x < math.log(hi / (1 - hi)))
        safe = torchlike.where(near_zero, torchlike.full_like(x, 1.0), x)
        closed = torchlike.log(torchlike.abs(torchlike.expm1(safe))) - torchlike.log(torchlike.abs(safe))
        series = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return torchlike.where(near_zero, series, closed)
