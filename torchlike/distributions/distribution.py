"""The Distribution base class and ExponentialFamily."""
import warnings

import torchlike
from torchlike import _C
from torchlike.distributions import constraints
from torchlike.distributions.utils import lazy_property

__all__ = ["Distribution", "ExponentialFamily"]

_Size = torchlike.Size


def _describe(v):
    """How a parameter shows up in a distribution's repr: scalars by value,
    one-element tensors in full, anything larger by its shape."""
    if v.dim() == 0:
        return str(v.item())
    if v.numel() == 1:
        return repr(v)
    return repr(v.size())


class Distribution:
    """Abstract base class for probability distributions."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off for distributions built
        without an explicit `validate_args`."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=_Size(), event_shape=_Size(), validate_args=None):
        self._batch_shape = _Size(batch_shape)
        self._event_shape = _Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                specs = self.arg_constraints
            except NotImplementedError:
                specs = {}
                warnings.warn(
                    f"{self.__class__} does not define `arg_constraints`. "
                    + "Please set `arg_constraints = {}` or initialize the distribution "
                    + "with `validate_args=False` to turn off validation."
                )
            for name, constraint in specs.items():
                if constraints.is_dependent(constraint):
                    continue
                # A lazily derived parameter (probs from logits...) that was not
                # given is valid by construction: don't force its computation.
                if name not in self.__dict__ and isinstance(getattr(type(self), name, None), lazy_property):
                    continue
                value = getattr(self, name)
                ok = constraint.check(value)
                if not bool(ok.all()):
                    raise ValueError(
                        f"Expected parameter {name} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                        f"constraint {constraint!r}, but found invalid values:\n{value}"
                    )
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        """A new distribution whose batch shape is `batch_shape`, sharing
        this one's parameters as broadcast views."""
        raise NotImplementedError

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def arg_constraints(self):
        raise NotImplementedError

    @property
    def support(self):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=_Size()):
        """Draw a sample (without gradient) of shape
        sample_shape + batch_shape + event_shape."""
        with torchlike.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=_Size()):
        raise NotImplementedError

    def sample_n(self, n):
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning)
        return self.sample(_Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return torchlike.exp(self.entropy())

    def _extended_shape(self, sample_shape=_Size()):
        if not isinstance(sample_shape, _Size):
            sample_shape = _Size(sample_shape)
        return _Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value):
        """Check that `value` is a tensor that broadcasts against
        batch_shape + event_shape and lies in the support."""
        if not isinstance(value, _C.TensorBase):
            raise ValueError("The value argument to log_prob must be a Tensor")
        n_event = len(self._event_shape)
        tail = tuple(value.size())[value.dim() - n_event:] if n_event else ()
        if tail != tuple(self._event_shape):
            raise ValueError(
                f"The right-most size of value must match event_shape: {value.size()} vs {self._event_shape}."
            )
        have = tuple(value.size())
        want = tuple(self._batch_shape) + tuple(self._event_shape)
        for a, b in zip(reversed(have), reversed(want)):
            if a != 1 and b != 1 and a != b:
                raise ValueError(
                    f"Value is not broadcastable with batch_shape+event_shape: {value.size()} vs {_Size(want)}."
                )
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable "
                + "sample validation. Please initialize the distribution with "
                + "`validate_args=False` to turn off validation."
            )
            return
        if support is None:
            raise AssertionError("support must not be None")
        ok = support.check(value)
        if not bool(ok.all()):
            raise ValueError(
                "Expected value argument "
                f"({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) "
                f"of the distribution {self!r}, "
                f"but found invalid values:\n{value}"
            )

    def _get_checked_instance(self, cls, _instance=None):
        """The object `expand` fills: a bare instance of `cls`, or the
        caller's `_instance`. A subclass with its own __init__ must define its
        own expand, since copying fields cannot know its extra state."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom __init__ method "
                "must also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        shown = [k for k in self.arg_constraints if k in self.__dict__]
        body = ", ".join(f"{k}: {_describe(self.__dict__[k])}" for k in shown)
        return f"{self.__class__.__name__}({body})"


class ExponentialFamily(Distribution):
    """Distributions of the form p(x) = h(x) exp(<t(x), theta> - F(theta)).

    Subclasses give `_natural_params`, `_log_normalizer` (F) and
    `_mean_carrier_measure` (E[log h(x)]); entropy then follows from the
    Bregman divergence identity, with the gradient of F taken by autograd."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        # H = F(theta) - <theta, grad F(theta)> - E[log h(x)]
        thetas = [p.detach().requires_grad_() for p in self._natural_params]
        log_norm = self._log_normalizer(*thetas)
        grads = torchlike.autograd.grad(log_norm.sum(), thetas, create_graph=True)
        total = log_norm - self._mean_carrier_measure
        for theta, g in zip(thetas, grads):
            total = total - (theta * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return total


def _finish_expand(src, new, batch_shape, event_shape=()):
    """The common tail of Distribution.expand overrides: initialise the new
    instance's shapes without validating (its parameters were validated as
    src's) and carry src's validate_args setting over."""
    Distribution.__init__(new, batch_shape, event_shape, validate_args=False)
    new._validate_args = src._validate_args
    return new
