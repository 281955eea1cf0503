"""Probability distributions, transforms and KL divergences, with the API
of torch.distributions (parameterisable distributions with sampling,
log-densities and moments)."""
from torchlike.distributions import constraints, transforms
from torchlike.distributions.constraint_registry import biject_to, transform_to
from torchlike.distributions.continuous import (
    Beta,
    Cauchy,
    Chi2,
    Dirichlet,
    Exponential,
    FisherSnedecor,
    Gamma,
    GeneralizedPareto,
    Laplace,
    Normal,
    StudentT,
    Uniform,
    VonMises,
)
from torchlike.distributions.continuous_bernoulli import ContinuousBernoulli
from torchlike.distributions.derived import (
    ExpRelaxedCategorical,
    Gumbel,
    HalfCauchy,
    HalfNormal,
    Independent,
    InverseGamma,
    Kumaraswamy,
    LogisticNormal,
    LogitRelaxedBernoulli,
    LogNormal,
    MixtureSameFamily,
    Pareto,
    RelaxedBernoulli,
    RelaxedOneHotCategorical,
    TransformedDistribution,
    Weibull,
)
from torchlike.distributions.discrete import (
    Bernoulli,
    Binomial,
    Categorical,
    Geometric,
    Multinomial,
    NegativeBinomial,
    OneHotCategorical,
    OneHotCategoricalStraightThrough,
    Poisson,
)
from torchlike.distributions.distribution import Distribution, ExponentialFamily
from torchlike.distributions.kl import kl_divergence, register_kl
from torchlike.distributions.multivariate import (
    LKJCholesky,
    LowRankMultivariateNormal,
    MultivariateNormal,
    Wishart,
)
from torchlike.distributions.transforms import (
    AbsTransform,
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)

__all__ = [
    "AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "CatTransform", "Categorical",
    "Cauchy", "Chi2", "ComposeTransform", "ContinuousBernoulli", "CorrCholeskyTransform",
    "CumulativeDistributionTransform", "Dirichlet", "Distribution", "ExpTransform", "Exponential",
    "ExponentialFamily", "FisherSnedecor", "Gamma", "GeneralizedPareto", "Geometric", "Gumbel",
    "HalfCauchy", "HalfNormal", "Independent", "IndependentTransform", "InverseGamma", "Kumaraswamy",
    "LKJCholesky", "Laplace", "LogNormal", "LogisticNormal", "LowRankMultivariateNormal",
    "LowerCholeskyTransform", "MixtureSameFamily", "Multinomial", "MultivariateNormal",
    "NegativeBinomial", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Pareto",
    "Poisson", "PositiveDefiniteTransform", "PowerTransform", "RelaxedBernoulli",
    "RelaxedOneHotCategorical", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform",
    "SoftplusTransform", "StackTransform", "StickBreakingTransform", "StudentT", "TanhTransform",
    "Transform", "TransformedDistribution", "Uniform", "VonMises", "Weibull", "Wishart", "biject_to",
    "identity_transform", "kl_divergence", "register_kl", "transform_to",
]


def _install_submodule_aliases():
    """PyTorch keeps one module per distribution (torch.distributions.normal,
    ...) and programs import from them; here the classes live in a few
    larger modules, so register light modules under PyTorch's names."""
    import importlib.machinery
    import sys
    import types

    layout = {
        "bernoulli": ["Bernoulli"], "beta": ["Beta"], "binomial": ["Binomial"], "categorical": ["Categorical"],
        "cauchy": ["Cauchy"], "chi2": ["Chi2"], "continuous_bernoulli": None, "dirichlet": ["Dirichlet"],
        "exp_family": ["ExponentialFamily"], "exponential": ["Exponential"], "fishersnedecor": ["FisherSnedecor"],
        "gamma": ["Gamma"], "generalized_pareto": ["GeneralizedPareto"], "geometric": ["Geometric"],
        "gumbel": ["Gumbel"], "half_cauchy": ["HalfCauchy"], "half_normal": ["HalfNormal"],
        "independent": ["Independent"], "inverse_gamma": ["InverseGamma"], "kumaraswamy": ["Kumaraswamy"],
        "laplace": ["Laplace"], "lkj_cholesky": ["LKJCholesky"], "log_normal": ["LogNormal"],
        "logistic_normal": ["LogisticNormal"], "lowrank_multivariate_normal": ["LowRankMultivariateNormal"],
        "mixture_same_family": ["MixtureSameFamily"], "multinomial": ["Multinomial"],
        "multivariate_normal": ["MultivariateNormal"], "negative_binomial": ["NegativeBinomial"],
        "normal": ["Normal"], "one_hot_categorical": ["OneHotCategorical", "OneHotCategoricalStraightThrough"],
        "pareto": ["Pareto"], "poisson": ["Poisson"], "relaxed_bernoulli": ["LogitRelaxedBernoulli", "RelaxedBernoulli"],
        "relaxed_categorical": ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"], "studentT": ["StudentT"],
        "transformed_distribution": ["TransformedDistribution"], "uniform": ["Uniform"], "von_mises": ["VonMises"],
        "weibull": ["Weibull"], "wishart": ["Wishart"],
    }
    package = sys.modules[__name__]
    for short, names in layout.items():
        full = f"{__name__}.{short}"
        if names is None or full in sys.modules:
            continue  # a real module of that name exists
        module = types.ModuleType(full, f"{', '.join(names)} (defined elsewhere in {__name__})")
        for name in names:
            setattr(module, name, globals()[name])
        module.__all__ = list(names)
        # a spec, so importlib.util.find_spec (import hooks) sees a module
        module.__spec__ = importlib.machinery.ModuleSpec(full, None)
        module.__package__ = __name__
        sys.modules[full] = module
        setattr(package, short, module)


_install_submodule_aliases()
del _install_submodule_aliases
