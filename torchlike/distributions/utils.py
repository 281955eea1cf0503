"""Shared helpers for torchlike.distributions: argument broadcasting,
probability/logit conversions, cached properties and the packing of lower
triangles into vectors (used by LKJ/CorrCholesky)."""
import numbers

import torchlike
from torchlike import _C

__all__ = [
    "broadcast_all",
    "clamp_probs",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
    "euler_constant",
]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni, used by Gumbel/Weibull


def broadcast_all(*values):
    """Turn every argument into a tensor and broadcast them together.

    Python numbers take the dtype/device of the first tensor argument (or the
    default dtype), so `Normal(0., scale_tensor)` keeps scale's precision."""
    like = None
    for v in values:
        if isinstance(v, _C.TensorBase):
            like = v
            break
        if not isinstance(v, numbers.Number):
            raise ValueError(
                "Input arguments must all be instances of numbers.Number, "
                "torch.Tensor or objects implementing __torch_function__."
            )
    if like is None:
        dtype, device = torchlike.get_default_dtype(), None
    else:
        dtype, device = like.dtype, like.device
    as_tensors = []
    for v in values:
        if isinstance(v, _C.TensorBase):
            as_tensors.append(v)
        elif isinstance(v, numbers.Number):
            as_tensors.append(torchlike.tensor(v, dtype=dtype, device=device))
        else:
            raise ValueError(
                "Input arguments must all be instances of numbers.Number, "
                "torch.Tensor or objects implementing __torch_function__."
            )
    return torchlike.broadcast_tensors(*as_tensors)


def _standard_normal(shape, dtype, device):
    return torchlike.randn(shape, dtype=dtype, device=device)


def _sum_rightmost(value, dim):
    """Sum over the `dim` rightmost dimensions (no-op for dim == 0)."""
    if dim == 0:
        return value
    return value.reshape(value.shape[: value.dim() - dim] + (-1,)).sum(-1)


def clamp_probs(probs):
    """Keep probabilities strictly inside (0, 1) by one machine epsilon."""
    eps = torchlike.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1.0 - eps)


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return torchlike.sigmoid(logits)
    return torchlike.softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary=False):
    p = clamp_probs(probs)
    if is_binary:
        return torchlike.log(p) - torchlike.log1p(-p)
    return torchlike.log(p)


class lazy_property:
    """A non-data descriptor computing a value once per instance and storing
    it in the instance dict, where later lookups find it first."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = getattr(wrapped, "__doc__", None)
        self.__name__ = getattr(wrapped, "__name__", None)

    def __get__(self, instance, owner=None):
        if instance is None:
            return _LazyPropertyOnClass(self)
        with torchlike.enable_grad():
            computed = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = computed
        return computed


class _LazyPropertyOnClass(lazy_property, property):
    """What a lazy_property looks like on the class: a property, so that
    introspection (and our own validation code) can recognise it."""

    def __init__(self, lazy):
        self.wrapped = lazy.wrapped
        self.__doc__ = lazy.__doc__
        self.__name__ = lazy.__name__

    @property
    def __wrapped__(self):  # for inspect
        return self.wrapped


def _tril_count(n, diag):
    """How many entries tril(diag) keeps in an n x n matrix."""
    return sum(min(n, max(0, row + diag + 1)) for row in range(n))


def tril_matrix_to_vec(mat, diag=0):
    """Row-major flattening of the lower triangle (offset `diag`) of the last
    two dims; the inverse of vec_to_tril_matrix."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    keep = torchlike.ones(n, n, dtype=torchlike.bool, device=mat.device).tril(diag)
    return mat[..., keep]


def vec_to_tril_matrix(vec, diag=0):
    """Inverse of tril_matrix_to_vec: finds the n whose tril(diag) holds
    exactly vec.shape[-1] entries and scatters vec into it."""
    m = vec.shape[-1]
    n = 1
    while _tril_count(n, diag) < m:
        n += 1
    if _tril_count(n, diag) != m:
        raise ValueError(f"Incorrect size of vec: {m} entries do not fill tril({diag}) of any square matrix.")
    out = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    keep = torchlike.ones(n, n, dtype=torchlike.bool, device=vec.device).tril(diag)
    out[..., keep] = vec
    return out
