"""Invertible (or at least deterministic) maps between constrained spaces,
with log|det J| so densities can be pushed through them."""
import math
import numbers
import weakref

import torchlike
from torchlike.distributions import constraints
from torchlike.distributions.utils import _sum_rightmost, tril_matrix_to_vec, vec_to_tril_matrix

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CatTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftplusTransform",
    "TanhTransform",
    "SoftmaxTransform",
    "StackTransform",
    "StickBreakingTransform",
    "Transform",
    "identity_transform",
]

_softplus = torchlike.nn.functional.softplus


class Transform:
    """Base class of transforms y = f(x).

    cache_size=1 remembers the last (x, y) pair, so that inverting a value
    this transform produced returns the exact x it came from (needed for
    non-invertible or numerically lossy maps such as sigmoid)."""

    bijective = False
    domain = constraints.real
    codomain = constraints.real

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._last_pair = None
        self._inv = None
        super().__init__()

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_inv"] = None  # a weakref does not pickle
        return state

    @property
    def event_dim(self):
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform, created once and held weakly so that a
        transform and its inverse do not keep each other alive."""
        existing = self._inv() if self._inv is not None else None
        if existing is None:
            existing = _InverseTransform(self)
            self._inv = weakref.ref(existing)
        return existing

    @property
    def sign(self):
        """+1 or -1 for monotone increasing / decreasing bijections."""
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x):
        if not self._cache_size:
            return self._call(x)
        if self._last_pair is not None and self._last_pair[0] is x:
            return self._last_pair[1]
        y = self._call(x)
        self._last_pair = (x, y)
        return y

    def _inv_call(self, y):
        if not self._cache_size:
            return self._inverse(y)
        if self._last_pair is not None and self._last_pair[1] is y:
            return self._last_pair[0]
        x = self._inverse(y)
        self._last_pair = (x, y)
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__ + "()"

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape


class _InverseTransform(Transform):
    """The inverse of a transform, created by `Transform.inv`."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform  # a strong reference back to the forward map

    @property
    def inv(self):
        return self._inv

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    def with_cache(self, cache_size=1):
        return self._inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self):
        return f"{type(self).__name__}({self._inv!r})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """parts[-1](...parts[1](parts[0](x))). An empty list is the identity."""

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [p.with_cache(cache_size) for p in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if not self.parts:
            return constraints.real
        # Walk backwards: each part may need more event dims from the input
        # than its own domain declares, when a later part consumes more.
        needed = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            needed = part.domain.event_dim + max(needed - part.codomain.event_dim, 0)
        first = self.parts[0].domain
        if needed > first.event_dim:
            return constraints.independent(first, needed - first.event_dim)
        return first

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if not self.parts:
            return constraints.real
        produced = self.parts[0].domain.event_dim
        for part in self.parts:
            produced = part.codomain.event_dim + max(produced - part.domain.event_dim, 0)
        last = self.parts[-1].codomain
        if produced > last.event_dim:
            return constraints.independent(last, produced - last.event_dim)
        return last

    @property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @property
    def sign(self):
        s = 1
        for p in self.parts:
            s = s * p.sign
        return s

    @property
    def inv(self):
        existing = self._inv() if self._inv is not None else None
        if existing is None:
            existing = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = weakref.ref(existing)
            existing._inv = weakref.ref(self)
        return existing

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for p in self.parts:
            x = p(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return torchlike.zeros_like(x)
        # Intermediate values; the last one is the given y (keeps caches exact).
        values = [x]
        for p in self.parts[:-1]:
            values.append(p(values[-1]))
        values.append(y)
        total = 0
        event_dim = self.domain.event_dim
        for p, a, b in zip(self.parts, values[:-1], values[1:]):
            term = p.log_abs_det_jacobian(a, b)
            total = total + _sum_rightmost(term, event_dim - p.domain.event_dim)
            event_dim += p.codomain.event_dim - p.domain.event_dim
        return total

    def forward_shape(self, shape):
        for p in self.parts:
            shape = p.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for p in reversed(self.parts):
            shape = p.inverse_shape(shape)
        return shape

    def __repr__(self):
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"{type(self).__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """Reinterprets `reinterpreted_batch_ndims` batch dims of a transform
    as event dims (its log-det is summed over them)."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshapes the rightmost `in_shape` dims to `out_shape` (volume
    preserving, so log|det J| = 0)."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = torchlike.Size(in_shape)
        self.out_shape = torchlike.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        lead = tuple(x.shape[: x.dim() - len(self.in_shape)])
        return x.reshape(lead + tuple(self.out_shape))

    def _inverse(self, y):
        lead = tuple(y.shape[: y.dim() - len(self.out_shape)])
        return y.reshape(lead + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        lead = tuple(x.shape[: x.dim() - len(self.in_shape)])
        return x.new_zeros(lead)

    def _swap_tail(self, shape, old, new):
        if len(shape) < len(old):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(old)
        if tuple(shape[cut:]) != tuple(old):
            raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {tuple(old)}")
        return tuple(shape[:cut]) + tuple(new)

    def forward_shape(self, shape):
        return self._swap_tail(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._swap_tail(shape, self.out_shape, self.in_shape)


class ExpTransform(Transform):
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """y = x ** exponent on the positive reals."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = _broadcast_params(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        if not isinstance(other, PowerTransform):
            return False
        return bool(self.exponent.eq(other.exponent).all().item())

    __hash__ = Transform.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        # dy/dx = e * x^(e-1) = e * y / x
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return torchlike.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))

    def inverse_shape(self, shape):
        return torchlike.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))


def _broadcast_params(*values):
    from torchlike.distributions.utils import broadcast_all

    return broadcast_all(*values)


def _squashed_sigmoid(x):
    """sigmoid(x) kept inside [tiny, 1 - eps] so its logit stays finite."""
    info = torchlike.finfo(x.dtype)
    return torchlike.sigmoid(x).clamp(min=info.tiny, max=1.0 - info.eps)


class SigmoidTransform(Transform):
    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return _squashed_sigmoid(x)

    def _inverse(self, y):
        info = torchlike.finfo(y.dtype)
        y = y.clamp(min=info.tiny, max=1.0 - info.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        # log(s(x) (1 - s(x))) written with softplus for stability.
        return -_softplus(-x) - _softplus(x)


class SoftplusTransform(Transform):
    """y = log(1 + exp(x)); its inverse is log(expm1(y)) = y + log(-expm1(-y))."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return _softplus(x)

    def _inverse(self, y):
        return y + torchlike.log(-torchlike.expm1(-y))

    def log_abs_det_jacobian(self, x, y):
        return -_softplus(-x)


class TanhTransform(Transform):
    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        # Not clamped on purpose: with caching, an exact y maps back to its x;
        # values at +-1 give +-inf, which is the honest answer.
        return torchlike.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) = 2 * (log 2 - x - softplus(-2x)), stable for large |x|.
        return 2.0 * (math.log(2.0) - x - _softplus(-2.0 * x))


class AbsTransform(Transform):
    """y = |x|. Not injective: the inverse picks the non-negative root."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """y = loc + scale * x, over `event_dim` rightmost dims."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    @staticmethod
    def _same(a, b):
        if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
            return a == b
        return bool((torchlike.as_tensor(a) == torchlike.as_tensor(b)).all().item())

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        return self._same(self.loc, other.loc) and self._same(self.scale, other.scale)

    __hash__ = Transform.__hash__

    @property
    def sign(self):
        s = self.scale
        if isinstance(s, numbers.Real):
            return 1 if float(s) > 0 else -1 if float(s) < 0 else 0
        return s.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        s = self.scale
        if isinstance(s, numbers.Real):
            per_elem = torchlike.full_like(x, math.log(abs(s)))
        else:
            per_elem = s.abs().log()
        if self.event_dim:
            # Sum over the event dims of the broadcast of log|scale| and x.
            per_elem = per_elem.expand(torchlike.broadcast_shapes(per_elem.shape, x.shape))
            return _sum_rightmost(per_elem, self.event_dim)
        return per_elem.expand(torchlike.broadcast_shapes(per_elem.shape, x.shape))

    def forward_shape(self, shape):
        return torchlike.broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ()))

    def inverse_shape(self, shape):
        return torchlike.broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ()))


class CorrCholeskyTransform(Transform):
    """Unconstrained vector of length n(n-1)/2 -> Cholesky factor of an
    n x n correlation matrix.

    tanh maps each entry to a partial correlation z in (-1, 1), placed
    row-major in the strict lower triangle. Row i is then built by stick
    breaking: L[i, j] = z[i, j] * w[i, j] with w[i, j] = prod_{k<j}
    sqrt(1 - z[i, k]^2) the norm still unused, and L[i, i] = w[i, i], so
    every row has unit norm."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def __eq__(self, other):
        return isinstance(other, CorrCholeskyTransform)

    __hash__ = Transform.__hash__

    @staticmethod
    def _remaining_norms(z):
        """w[i, j] = prod_{k<j} sqrt(1 - z[i, k]^2) (exclusive cumprod)."""
        keep = (1 - z.pow(2)).clamp(min=0).sqrt()
        ones = torchlike.ones_like(keep[..., :1])
        return torchlike.cat([ones, keep[..., :-1]], -1).cumprod(-1)

    def _call(self, x):
        z = vec_to_tril_matrix(torchlike.tanh(x), diag=-1)
        n = z.shape[-1]
        eye = torchlike.eye(n, dtype=x.dtype, device=x.device)
        return ((z + eye) * self._remaining_norms(z)).tril()

    def _inverse(self, y):
        # Squared norm used so far in row i before column j.
        used = torchlike.cat([torchlike.zeros_like(y[..., :1]), y.pow(2)[..., :-1]], -1).cumsum(-1)
        left = (1 - used).clamp(min=torchlike.finfo(y.dtype).tiny).sqrt()
        z = tril_matrix_to_vec(y / left, diag=-1)
        eps = torchlike.finfo(y.dtype).eps
        return torchlike.atanh(z.clamp(min=-1 + eps, max=1 - eps))

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        # x -> z: dz/dx = 1 - z^2. z -> strict-lower L: triangular with
        # diagonal w[i, j]. So log|J| = sum log(1 - z^2) + sum log w.
        z = torchlike.tanh(x)
        one_minus_z2 = (1 - z.pow(2)).clamp(min=torchlike.finfo(x.dtype).tiny)
        zmat = vec_to_tril_matrix(z, diag=-1)
        log_keep = 0.5 * (1 - zmat.pow(2)).clamp(min=torchlike.finfo(x.dtype).tiny).log()
        # log w[i, j] = sum_{k<j} log_keep[i, k], for the strict lower entries.
        log_w = torchlike.cat([torchlike.zeros_like(log_keep[..., :1]), log_keep[..., :-1]], -1).cumsum(-1)
        return one_minus_z2.log().sum(-1) + tril_matrix_to_vec(log_w, diag=-1).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        m = shape[-1]
        n = round((0.25 + 2 * m) ** 0.5 + 0.5)
        if n * (n - 1) // 2 != m:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return tuple(shape[:-1]) + (n, n)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        if shape[-2] != n:
            raise ValueError("Input is not square")
        return tuple(shape[:-2]) + (n * (n - 1) // 2,)


class SoftmaxTransform(Transform):
    """x -> softmax(x) over the last dim. Not bijective (adding a constant to
    x gives the same y); the inverse returns log(y)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        shifted = (x - x.max(-1, keepdim=True)[0]).exp()
        return shifted / shifted.sum(-1, keepdim=True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape


class StickBreakingTransform(Transform):
    """R^(K-1) -> the K-simplex by stick breaking.

    Piece i takes the fraction z_i = sigmoid(x_i - log(K-1-i)) of what is left.
    The shift makes x = 0 map to the uniform point of the simplex."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    __hash__ = Transform.__hash__

    @staticmethod
    def _log_shift(k, like):
        # log(K-1), log(K-2), ..., log(1) for k = K-1 free coordinates
        return torchlike.arange(k, 0, -1, dtype=like.dtype, device=like.device).log()

    def _call(self, x):
        z = _squashed_sigmoid(x - self._log_shift(x.shape[-1], x))
        left = (1 - z).cumprod(-1)  # stick left after each break
        ones = torchlike.ones_like(x[..., :1])
        before = torchlike.cat([ones, left], -1)  # stick available before piece i
        return torchlike.cat([z, ones], -1) * before

    def _inverse(self, y):
        head = y[..., :-1]
        k = head.shape[-1]
        before = 1 - torchlike.cat([torchlike.zeros_like(head[..., :1]), head[..., :-1]], -1).cumsum(-1)
        tiny = torchlike.finfo(y.dtype).tiny
        # logit(z) with z = head / before is log(head) - log(before - head)
        return head.clamp(min=tiny).log() - (before - head).clamp(min=tiny).log() + self._log_shift(k, y)

    def log_abs_det_jacobian(self, x, y):
        # Triangular Jacobian with diagonal z_i (1 - z_i) * stick_i
        # = y_i (1 - z_i); log(1 - z_i) = -softplus(x_i - shift_i).
        shifted = x - self._log_shift(x.shape[-1], x)
        return (-_softplus(shifted) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """Square matrix -> lower triangular with a positive diagonal: keeps the
    strict lower part and exponentiates the diagonal (upper part dropped)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Square matrix -> L L^T with L from LowerCholeskyTransform."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        chol = LowerCholeskyTransform()(x)
        return chol @ chol.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(torchlike.linalg.cholesky(y))


class CatTransform(Transform):
    """Applies tseq[i] to the i-th chunk (of length lengths[i]) along dim."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("CatTransform expects a sequence of Transform objects")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError("CatTransform: lengths and tseq must have the same length")
        self.dim = dim

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _pieces(self, v):
        if not -v.dim() <= self.dim < v.dim():
            raise AssertionError(f"CatTransform: dim {self.dim} out of range for a {v.dim()}-d input")
        if v.size(self.dim) != self.length:
            raise AssertionError(f"CatTransform: expected size {self.length} along dim {self.dim}, got {v.size(self.dim)}")
        start = 0
        for t, n in zip(self.transforms, self.lengths):
            yield t, v.narrow(self.dim, start, n)
            start += n

    def _call(self, x):
        return torchlike.cat([t(piece) for t, piece in self._pieces(x)], dim=self.dim)

    def _inverse(self, y):
        return torchlike.cat([t.inv(piece) for t, piece in self._pieces(y)], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        terms = []
        for (t, xp), (_, yp) in zip(self._pieces(x), self._pieces(y)):
            ldj = t.log_abs_det_jacobian(xp, yp)
            if t.event_dim < self.event_dim:
                ldj = _sum_rightmost(ldj, self.event_dim - t.event_dim)
            terms.append(ldj)
        # Chunks along an event dim are summed; along a batch dim, concatenated.
        cat_dim = self.dim if self.dim < 0 else self.dim - x.dim()
        if -cat_dim <= self.event_dim:
            return sum(terms)
        return torchlike.cat(terms, dim=cat_dim + self.event_dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Applies tseq[i] to the i-th slice along dim."""

    def __init__(self, tseq, dim=0, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("StackTransform expects a sequence of Transform objects")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, v):
        if not -v.dim() <= self.dim < v.dim():
            raise AssertionError(f"StackTransform: dim {self.dim} out of range for a {v.dim()}-d input")
        if v.size(self.dim) != len(self.transforms):
            raise AssertionError(
                f"StackTransform: expected size {len(self.transforms)} along dim {self.dim}, got {v.size(self.dim)}"
            )
        return [v.select(self.dim, i) for i in range(v.size(self.dim))]

    def _call(self, x):
        return torchlike.stack([t(s) for t, s in zip(self.transforms, self._slices(x))], dim=self.dim)

    def _inverse(self, y):
        return torchlike.stack([t.inv(s) for t, s in zip(self.transforms, self._slices(y))], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        parts = [
            t.log_abs_det_jacobian(xs, ys)
            for t, xs, ys in zip(self.transforms, self._slices(x), self._slices(y))
        ]
        return torchlike.stack(parts, dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """x -> distribution.cdf(x), onto the unit interval; its derivative is
    the density, so log|det J| = log_prob(x)."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return type(self)(self.distribution, cache_size=cache_size)
