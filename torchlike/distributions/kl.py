"""KL divergence KL(p || q) with a registry keyed by the pair of
distribution types; `kl_divergence` dispatches to the most specific
registered pair."""
import math
import warnings

import torchlike
from torchlike.distributions.continuous import (
    Beta,
    Cauchy,
    Dirichlet,
    Exponential,
    Gamma,
    Laplace,
    Normal,
    Uniform,
)
from torchlike.distributions.continuous_bernoulli import ContinuousBernoulli
from torchlike.distributions.derived import (
    Gumbel,
    HalfNormal,
    Independent,
    LogNormal,
    Pareto,
    TransformedDistribution,
)
from torchlike.distributions.discrete import (
    Bernoulli,
    Binomial,
    Categorical,
    Geometric,
    OneHotCategorical,
    Poisson,
)
from torchlike.distributions.distribution import ExponentialFamily
from torchlike.distributions.multivariate import LowRankMultivariateNormal, MultivariateNormal
from torchlike.distributions.utils import _sum_rightmost, euler_constant

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY = {}  # (type_p, type_q) -> function
_KL_MEMOIZE = {}  # (type_p, type_q) -> function chosen for that exact pair
_F = torchlike.nn.functional


def register_kl(type_p, type_q):
    """Decorator registering a pairwise KL(p || q) implementation::

        @register_kl(Normal, Normal)
        def kl_normal_normal(p, q):
            ...

    Lookup picks the most specific registration by the subclass order of
    both arguments; when two candidates tie in opposite orders a warning
    asks you to register the exact pair."""
    for name, cls in (("type_p", type_p), ("type_q", type_q)):
        if not isinstance(cls, type):
            raise TypeError(f"Expected {name} to be a Distribution subclass but got {cls}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # a new registration can change earlier choices
        return fun

    return decorator


def _specificity(cls, base):
    """How far up cls's MRO `base` is (0 = cls itself)."""
    return cls.__mro__.index(base)


def _dispatch_kl(type_p, type_q):
    candidates = [
        (pair, fun)
        for pair, fun in _KL_REGISTRY.items()
        if issubclass(type_p, pair[0]) and issubclass(type_q, pair[1])
    ]
    if not candidates:
        return NotImplemented
    by_p = min(candidates, key=lambda c: (_specificity(type_p, c[0][0]), _specificity(type_q, c[0][1])))
    by_q = min(candidates, key=lambda c: (_specificity(type_q, c[0][1]), _specificity(type_p, c[0][0])))
    if by_p[1] is not by_q[1]:
        warnings.warn(
            f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
            f"Please register_kl({by_p[0][0].__name__}, {by_q[0][1].__name__})",
            RuntimeWarning,
        )
    return by_p[1]


def kl_divergence(p, q):
    """KL(p || q) = E_p[log p(x) - log q(x)], batched over batch_shape."""
    key = (type(p), type(q))
    try:
        fun = _KL_MEMOIZE[key]
    except KeyError:
        fun = _dispatch_kl(*key)
        _KL_MEMOIZE[key] = fun
    if fun is NotImplemented:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type {q.__class__.__name__}"
        )
    return fun(p, q)


def _inf_like(t):
    return torchlike.full_like(t, math.inf)


def _where_inf(cond, value):
    return torchlike.where(cond, _inf_like(value), value)


# ---- same family ---------------------------------------------------------


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    # p log(p/q) + (1-p) log((1-p)/(1-q)) via log-sigmoids of the logits;
    # a term whose weight p or 1-p is exactly 0 contributes 0.
    on = p.probs * (_F.softplus(-q.logits) - _F.softplus(-p.logits))
    off = (1 - p.probs) * (_F.softplus(q.logits) - _F.softplus(p.logits))
    on = torchlike.where(p.probs == 0, torchlike.zeros_like(on), on)
    off = torchlike.where(p.probs == 1, torchlike.zeros_like(off), off)
    return on + off


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    a1, b1 = p.concentration1, p.concentration0
    a2, b2 = q.concentration1, q.concentration0
    s1 = a1 + b1
    log_b = lambda a, b: torchlike.lgamma(a) + torchlike.lgamma(b) - torchlike.lgamma(a + b)
    return (
        log_b(a2, b2)
        - log_b(a1, b1)
        + (a1 - a2) * torchlike.digamma(a1)
        + (b1 - b2) * torchlike.digamma(b1)
        + (a2 - a1 + b2 - b1) * torchlike.digamma(s1)
    )


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    n = p.total_count
    per_trial = _kl_bernoulli_bernoulli(p, q)
    return _where_inf(p.total_count > q.total_count, n * per_trial)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    terms = p.probs * (p.logits - q.logits)
    terms = torchlike.where(p.probs == 0, torchlike.zeros_like(terms), terms)
    terms = torchlike.where((q.probs == 0) & (p.probs > 0), _inf_like(terms), terms)
    return terms.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    a, b = p.concentration, q.concentration
    a0 = a.sum(-1)
    return (
        torchlike.lgamma(a0)
        - torchlike.lgamma(b.sum(-1))
        - (torchlike.lgamma(a) - torchlike.lgamma(b)).sum(-1)
        + ((a - b) * (torchlike.digamma(a) - torchlike.digamma(a0).unsqueeze(-1))).sum(-1)
    )


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - ratio.log() - 1


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    ap, bp, aq, bq = p.concentration, p.rate, q.concentration, q.rate
    return (
        (ap - aq) * torchlike.digamma(ap)
        - torchlike.lgamma(ap)
        + torchlike.lgamma(aq)
        + aq * (bp.log() - bq.log())
        + ap * (bq - bp) / bp
    )


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    # With r = sp/sq and d = (mp - mq)/sq:
    # KL = log(sq/sp) + d + r*gamma + exp(-d) Gamma(1 + r) - 1 - gamma
    r = p.scale / q.scale
    d = (p.loc - q.loc) / q.scale
    return -r.log() + d + r * euler_constant + torchlike.exp(torchlike.lgamma(1 + r) - d) - (1 + euler_constant)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - p.mean * torchlike.log1p(-q.probs) - q.probs.log()


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    r = p.scale / q.scale
    gap = (p.loc - q.loc).abs()
    return -r.log() + gap / q.scale + r * torchlike.exp(-gap / p.scale) - 1


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    # products, not pow(2): torchlike's pow has no fast path for small integer exponents
    ratio = p.scale / q.scale
    gap = (p.loc - q.loc) / q.scale
    var_ratio, shift = ratio * ratio, gap * gap
    return 0.5 * (var_ratio + shift - 1 - var_ratio.log())


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    num = (p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)
    return (num / (4 * p.scale * q.scale)).log()


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    kl = (p.alpha / q.alpha).log() + q.alpha * (p.scale / q.scale).log() + q.alpha / p.alpha - 1
    return _where_inf(p.scale < q.scale, kl)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return torchlike.xlogy(p.rate, p.rate) - torchlike.xlogy(p.rate, q.rate) - (p.rate - q.rate)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    kl = ((q.high - q.low) / (p.high - p.low)).log()
    return _where_inf((q.low > p.low) | (q.high < p.high), kl)


def _gaussian_kl(loc_p, L_p, loc_q, L_q, n):
    """KL between Gaussians given Cholesky factors (batch-broadcast)."""
    shape = torchlike.broadcast_shapes(tuple(L_p.shape[:-2]), tuple(L_q.shape[:-2]))
    Lq = L_q.expand(shape + (n, n))
    trace = torchlike.linalg.solve_triangular(Lq, L_p.expand(shape + (n, n)), upper=False).pow(2).sum((-2, -1))
    diff = (loc_q - loc_p)
    dshape = torchlike.broadcast_shapes(shape, tuple(diff.shape[:-1]))
    maha = torchlike.linalg.solve_triangular(
        L_q.expand(dshape + (n, n)), diff.expand(dshape + (n,)).unsqueeze(-1), upper=False
    ).pow(2).sum((-2, -1))
    half_logdet = lambda L: L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    return half_logdet(L_q) - half_logdet(L_p) + 0.5 * (trace + maha - n)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot be computed")
    return _gaussian_kl(p.loc, p._unbroadcasted_scale_tril, q.loc, q._unbroadcasted_scale_tril, p.event_shape[0])


def _scale_tril_of(d):
    if isinstance(d, MultivariateNormal):
        return d._unbroadcasted_scale_tril
    return d.scale_tril


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_gaussians(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two (Low Rank) Multivariate Normals with different event shapes cannot be computed"
        )
    return _gaussian_kl(p.loc, _scale_tril_of(p), q.loc, _scale_tril_of(q), p.event_shape[0])


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    # KL is invariant under a shared bijection.
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    extra = len(p.event_shape) - len(p.base_dist.event_shape)
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), extra)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """Bregman divergence of the log-normalizer F:
    KL = F(theta_q) - F(theta_p) - <theta_q - theta_p, grad F(theta_p)>."""
    if type(p) is not type(q):
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot \
                            be computed using Bregman divergences"
        )
    theta_p = [t.detach().requires_grad_() for t in p._natural_params]
    theta_q = q._natural_params
    F_p = p._log_normalizer(*theta_p)
    grads = torchlike.autograd.grad(F_p.sum(), theta_p, create_graph=True)
    kl = q._log_normalizer(*theta_q) - F_p
    for tp, tq, g in zip(theta_p, theta_q, grads):
        term = (tq - tp) * g
        kl = kl - _sum_rightmost(term, len(q.event_shape))
    return kl


# ---- cross family --------------------------------------------------------


def _infinite(p, q):
    """p puts mass where q has none."""
    return torchlike.full(tuple(p.batch_shape), math.inf, dtype=torchlike.get_default_dtype())


for _pq in [
    (Normal, Exponential), (Normal, Gamma), (Normal, Beta), (Normal, Uniform), (Normal, Pareto),
    (Laplace, Exponential), (Laplace, Gamma), (Laplace, Beta), (Laplace, Uniform), (Laplace, Pareto),
    (Cauchy, Exponential), (Cauchy, Gamma), (Cauchy, Uniform), (Cauchy, Normal), (Cauchy, Laplace),
    (Exponential, Beta), (Exponential, Uniform), (Exponential, Pareto),
    (Gamma, Beta), (Gamma, Uniform), (Gamma, Pareto),
    (Gumbel, Exponential), (Gumbel, Gamma), (Gumbel, Beta), (Gumbel, Uniform), (Gumbel, Pareto),
    (Beta, Pareto), (Pareto, Beta), (Pareto, Uniform), (Poisson, Bernoulli), (Poisson, Binomial),
    (ContinuousBernoulli, Pareto),
    (Normal, ContinuousBernoulli), (Laplace, ContinuousBernoulli), (Gumbel, ContinuousBernoulli),
    (Exponential, ContinuousBernoulli), (Gamma, ContinuousBernoulli), (Pareto, ContinuousBernoulli),
]:
    register_kl(*_pq)(_infinite)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    # Exponential(r) is Gamma(1, r)
    rp, aq, bq = p.rate, q.concentration, q.rate
    return (
        torchlike.lgamma(aq) - aq * bq.log() - 1 + rp.log() + bq / rp
        - (aq - 1) * (-euler_constant - rp.log())
    )


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    # E_p[x] = 1/r, E_p[x^2] = 2/r^2, H(p) = 1 - log r
    r = p.rate
    var_q = q.scale.pow(2)
    expected_sq = 2 / r.pow(2) - 2 * q.loc / r + q.loc.pow(2)
    return -(1 - r.log()) + 0.5 * (2 * math.pi * var_q).log() + expected_sq / (2 * var_q)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    var_q = q.scale.pow(2)
    second = p.variance + p.mean.pow(2)
    expected_sq = second - 2 * q.loc * p.mean + q.loc.pow(2)
    return -p.entropy() + 0.5 * (2 * math.pi * var_q).log() + expected_sq / (2 * var_q)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    # E_p[(x - mu)^2] for x ~ U(low, high)
    second = ((p.high - q.loc).pow(3) - (p.low - q.loc).pow(3)) / (3 * width)
    return -width.log() + 0.5 * (2 * math.pi * q.scale.pow(2)).log() + second / (2 * q.scale.pow(2))


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    kl = -(p.high - p.low).log() - q.rate.log() + q.rate * (p.high + p.low) / 2
    return _where_inf(p.low < 0, kl)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    a, b = q.concentration, q.rate
    width = p.high - p.low
    # E_p[log x] over [low, high] = (h log h - l log l)/(h - l) - 1
    mean_log = (torchlike.xlogy(p.high, p.high) - torchlike.xlogy(p.low, p.low)) / width - 1
    kl = -width.log() + torchlike.lgamma(a) - a * b.log() - (a - 1) * mean_log + b * (p.high + p.low) / 2
    return _where_inf(p.low < 0, kl)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    kl = -p.entropy() + (q.high - q.low).log()
    return _where_inf((q.low > 0) | (q.high < 1), kl)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    # E|x - m| for x ~ N(mu, s): s sqrt(2/pi) exp(-d^2/2s^2) + d erf(d / (s sqrt 2))
    d = p.loc - q.loc
    s = p.scale
    mean_abs = s * math.sqrt(2 / math.pi) * torchlike.exp(-0.5 * (d / s).pow(2)) + d * torchlike.erf(
        d / (s * math.sqrt(2))
    )
    return -p.entropy() + (2 * q.scale).log() + mean_abs / q.scale


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    # E_p[(x - m)/b] and E_p[exp(-(x - m)/b)] from the Gaussian mgf
    z_mean = (p.loc - q.loc) / q.scale
    s_ratio = p.scale / q.scale
    return -p.entropy() + q.scale.log() + z_mean + torchlike.exp(-z_mean + 0.5 * s_ratio.pow(2))


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


def _kl_to_normal_by_moments(p, q):
    """KL(p || N(m, s^2)) = -H(p) + log(s sqrt(2 pi)) + (Var p + (E p - m)^2) / (2 s^2)
    for any p with known entropy, mean and variance (inf when Var p is)."""
    var_q = q.scale.pow(2)
    spread = p.variance + (p.mean - q.loc).pow(2)
    return -p.entropy() + 0.5 * (2 * math.pi * var_q).log() + spread / (2 * var_q)


for _p in (Beta, ContinuousBernoulli, Gumbel, Laplace, Pareto):
    register_kl(_p, Normal)(_kl_to_normal_by_moments)


def _kl_to_gumbel(p, q, mean_exp_neg):
    """KL(p || Gumbel(m, b)) = -H(p) + log b + E[z] + E[exp(-z)], z = (x - m) / b;
    `mean_exp_neg` is E[exp(-x / b)] under p."""
    b = q.scale
    return -p.entropy() + b.log() + (p.mean - q.loc) / b + (q.loc / b).exp() * mean_exp_neg


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    b = q.scale
    span = p.high - p.low
    return _kl_to_gumbel(p, q, b / span * ((-p.low / b).exp() - (-p.high / b).exp()))


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    return _kl_to_gumbel(p, q, p.rate / (p.rate + q.scale.reciprocal()))


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    ratio = p.rate / (p.rate + q.scale.reciprocal())
    return _kl_to_gumbel(p, q, ratio.pow(p.concentration))


def _kl_to_exponential(p, q):
    """-H(p) - log(rate) + rate E[x], for p on the non-negative reals."""
    return -p.entropy() - q.rate.log() + q.rate * p.mean


def _kl_to_gamma(p, q, mean_log):
    """-H(p) - E[log q(x)] with log q = a log b - lgamma(a) + (a-1) log x - b x."""
    a, b = q.concentration, q.rate
    return -p.entropy() - a * b.log() + torchlike.lgamma(a) - (a - 1) * mean_log + b * p.mean


for _p in (Beta, ContinuousBernoulli, Pareto):
    register_kl(_p, Exponential)(_kl_to_exponential)


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    a, b = p.concentration1, p.concentration0
    return _kl_to_gamma(p, q, torchlike.digamma(a) - torchlike.digamma(a + b))


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    kl = _kl_to_gamma(p, q, p.scale.log() + p.alpha.reciprocal())
    return _where_inf(p.alpha <= 1, kl)


def _uniform_mean_log(low, high):
    """E[log x] for x ~ U(low, high), 0 <= low < high."""
    return (torchlike.xlogy(high, high) - torchlike.xlogy(low, low)) / (high - low) - 1


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    a, b = q.concentration1, q.concentration0
    log_norm = torchlike.lgamma(a) + torchlike.lgamma(b) - torchlike.lgamma(a + b)
    low, high = p.low.clamp(0, 1), p.high.clamp(0, 1)
    mean_log_x = _uniform_mean_log(low, high)
    mean_log_1mx = _uniform_mean_log(1 - high, 1 - low)
    kl = -p.entropy() + log_norm - (a - 1) * mean_log_x - (b - 1) * mean_log_1mx
    return _where_inf((p.low < 0) | (p.high > 1), kl)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    s, alpha = q.scale, q.alpha
    low = torchlike.maximum(p.low, s)
    kl = -p.entropy() - alpha.log() - alpha * s.log() + (alpha + 1) * _uniform_mean_log(low, p.high)
    return _where_inf(p.low < s, kl)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    # E_p[log q(x)] over x in {0, 1} = p log(rate) - rate
    return -p.entropy() + q.rate - p.probs * q.rate.log()


def _kl_to_continuous_bernoulli(p, q):
    """-H(p) - E[x logit(lam) + log(1 - lam) + log C(lam)] for p on [0, 1]."""
    return -p.entropy() - p.mean * q.logits - torchlike.log1p(-q.probs) - q._log_normalizer_of_probs()


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return _kl_to_continuous_bernoulli(p, q)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    return _where_inf((p.low < 0) | (p.high > 1), _kl_to_continuous_bernoulli(p, q))


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    kl = -p.entropy() + (q.high - q.low).log()
    return _where_inf((q.low > 0) | (q.high < 1), kl)
