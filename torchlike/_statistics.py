"""The statistics functions whose Python signatures the generated parser
cannot express: ``histogram`` with ``bins=int`` and ``range=(min, max)``,
``histogramdd`` (bins as an int, ints or tensors, range as 2N floats) and
``gradient`` (spacing as a scalar, a list of scalars or a list of coordinate
tensors). The counting is done by the C++ kernels (_histogram_bin_ct,
_histogramdd_*); ``gradient`` is a composite of differentiable tensor ops,
as in PyTorch, so autograd differentiates it."""
import collections
import numbers

import torchlike as _tl
from torchlike import _C
from torchlike._tensor import Tensor

__all__ = ["histogram", "histogramdd", "gradient"]

_VF = _C._VariableFunctions

# torch.return_types.histogram / histogramdd: both forms of a call return one type.
_Histogram = collections.namedtuple("histogram", ["hist", "bin_edges"])
_HistogramDD = collections.namedtuple("histogramdd", ["hist", "bin_edges"])
for _t in (_Histogram, _HistogramDD):
    _t.__module__ = "torchlike.return_types"


def _range_pair(range, what):
    if range is None:
        return None, None
    r = [float(v) for v in range]
    if len(r) != 2:
        raise RuntimeError(f"torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, "
                           f"but got {len(r)}")
    return r[0], r[1]


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """Histogram of input's values (flattened): bins is a number of equal-width
    bins over `range` (default: the data's min and max) or a 1-D tensor of
    increasing edges. Every bin is [left, right) except the last, which also
    holds its right edge. Returns (hist, bin_edges)."""
    if isinstance(bins, Tensor):
        if range is not None:
            raise TypeError("histogram(): range= only applies when bins is an int")
        hist, edges = _VF.histogram(input, bins, weight=weight, density=density)
    else:
        if isinstance(bins, bool) or not isinstance(bins, numbers.Integral):
            raise TypeError(f"histogram(): argument 'bins' must be int or Tensor, not {type(bins).__name__}")
        lo, hi = _range_pair(range, "range")
        hist, edges = _VF._histogram_bin_ct(input, int(bins), range_min=lo, range_max=hi, weight=weight,
                                            density=density)
    if out is not None:
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError("histogram(): out must be a tuple of two tensors (hist, bin_edges)")
        for o, r, name in zip(out, (hist, edges), ("hist", "bin_edges")):
            if o.dtype != r.dtype:
                raise RuntimeError(f"torch.histogram: expected out tensor '{name}' to have dtype {r.dtype}, "
                                   f"but got {o.dtype}")
            # cat's out= resizes and copies in C++ (hist and bin_edges are 1-D).
            _VF.cat([r], 0, out=o)
        return _Histogram(out[0], out[1])
    return _Histogram(hist, edges)


def _tensor_histogram(self, bins=100, *, range=None, weight=None, density=False):
    return histogram(self, bins, range=range, weight=weight, density=density)


def histogramdd(input, bins=10, *, range=None, weight=None, density=False):
    """N-dimensional histogram of the points in input (shape (..., N)): bins is
    an int (the same count for every dim), N ints, or N 1-D edge tensors;
    range holds (min, max) for each dim, 2N floats. Returns (hist, bin_edges)
    with bin_edges a tuple of N tensors."""
    if not isinstance(input, Tensor):
        raise TypeError(f"histogramdd(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dim() < 2:
        raise RuntimeError(f"torch.histogramdd: input tensor should have at least 2 dimensions, but got {input.dim()}")
    n = input.shape[-1]
    if isinstance(bins, numbers.Integral) and not isinstance(bins, bool):
        bins = [int(bins)] * n
    if isinstance(bins, Tensor):
        bins = list(bins.unbind(0)) if bins.dim() > 1 else [bins]
    bins = list(bins)
    if bins and all(isinstance(b, Tensor) for b in bins):
        if range is not None:
            raise TypeError("histogramdd(): range= only applies when bins are ints")
        hist = _VF._histogramdd_from_bin_tensors(input, bins, weight=weight, density=density)
        return _HistogramDD(hist, tuple(bins))
    if not all(isinstance(b, numbers.Integral) and not isinstance(b, bool) for b in bins):
        raise TypeError("histogramdd(): argument 'bins' must be an int, a sequence of ints or a sequence of Tensors")
    bins = [int(b) for b in bins]
    rng = None
    if range is not None:
        rng = _tl.tensor([float(v) for v in range], dtype=_tl.float64)
    edges = _VF._histogramdd_bin_edges(input, bins, range=rng)
    hist = _VF._histogramdd_from_bin_cts(input, bins, range=rng, weight=weight, density=density)
    return _HistogramDD(hist, tuple(edges))


# ---------------------------------------------------------------- gradient

def _is_scalar(v):
    return isinstance(v, numbers.Number) and not isinstance(v, bool) or (isinstance(v, Tensor) and v.dim() == 0)


def _scalar(v):
    return v.item() if isinstance(v, Tensor) else v


def _dims(input, dim):
    if dim is None:
        return list(range(input.dim()))
    dims = [dim] if isinstance(dim, numbers.Integral) else list(dim)
    wrapped = []
    for d in dims:
        if not -max(input.dim(), 1) <= d < max(input.dim(), 1):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(input.dim(), 1)}, "
                             f"{max(input.dim(), 1) - 1}], but got {d})")
        w = d % input.dim()
        if w in wrapped:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        wrapped.append(w)
    return wrapped


def _cat_edges(prepend, center, append, d):
    return _tl.cat([prepend, center, append], d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimates the derivative of a sampled function along each dim (or the
    given dims): central differences inside, one-sided differences of first
    or second order (edge_order) at the ends. spacing is one step for all
    dims, a step per dim, or a coordinate tensor per dim (unevenly spaced
    samples). Returns a tuple with one tensor per dim, like numpy.gradient."""
    if not isinstance(input, Tensor):
        raise TypeError(f"gradient(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dtype == _tl.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    dim_given = dim is not None
    dims = _dims(input, dim)
    if _is_scalar(spacing):
        spacing = [spacing] * len(dims)
    elif isinstance(spacing, (list, tuple)):
        spacing = list(spacing)
        if not dim_given and len(spacing) != input.dim():
            raise RuntimeError(
                f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal to "
                f"'self.dim() = {input.dim()}', since dim argument was not given, but got a list of length "
                f"{len(spacing)}")
        if dim_given and len(spacing) != len(dims):
            raise RuntimeError(
                f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments to "
                f"have the same length, but got a spacing argument of length {len(spacing)} and a dim argument of "
                f"length {len(dims)}.")
    else:
        raise TypeError(f"gradient(): argument 'spacing' must be a number, a list of numbers or a list of Tensors, "
                        f"not {type(spacing).__name__}")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    coords = [isinstance(s, Tensor) and s.dim() > 0 for s in spacing]
    if any(coords) and not all(coords):
        raise TypeError("gradient(): spacing must be all numbers or all coordinate tensors")
    out = []
    for d, h in zip(dims, spacing):
        out.append(_gradient_coords(input, d, h, edge_order) if isinstance(h, Tensor) and h.dim() > 0
                   else _gradient_uniform(input, d, _scalar(h), edge_order))
    return tuple(out)


def _gradient_uniform(f, d, h, edge_order):
    def s(a, b=None):  # f[a:b] along d
        n = f.shape[d]
        a = a + n if a < 0 else a
        b = n if b is None else (b + n if b < 0 else b)
        return f.narrow(d, a, b - a)
    center = (s(2) - s(0, -2)) / h / 2
    if edge_order == 1:
        first = (s(1, 2) - s(0, 1)) / h
        last = (s(-1) - s(-2, -1)) / h
    else:
        first = (-1.5 * s(0, 1) + 2 * s(1, 2) - 0.5 * s(2, 3)) / h
        last = (0.5 * s(-3, -2) - 2 * s(-2, -1) + 1.5 * s(-1)) / h
    return _cat_edges(first, center, last, d)


def _gradient_coords(f, d, x, edge_order):
    if x.device != f.device:
        raise RuntimeError(f"torch.gradient expected each tensor to be on the same device, but got devices "
                           f"{f.device} and {x.device}!")
    if x.dim() != 1 or x.shape[0] != f.shape[d]:
        raise RuntimeError(f"torch.gradient expected each coordinate tensor to be 1-D with as many entries as "
                           f"dimension {d} of the input ({f.shape[d]}), but got shape {tuple(x.shape)}")
    n = f.shape[d]

    def s(a, b=None):
        a = a + n if a < 0 else a
        b = n if b is None else (b + n if b < 0 else b)
        return f.narrow(d, a, b - a)
    shape = [1] * f.dim()
    shape[d] = -1
    dx = x.diff(1, 0)
    dx1, dx2 = dx[:-1], dx[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * s(0, -2) + b * s(1, -1) + c * s(2)
    if edge_order == 1:
        first = (s(1, 2) - s(0, 1)) / dx[0]
        last = (s(-1) - s(-2, -1)) / dx[-1]
    else:
        a = -(2.0 * dx[0] + dx[1]) / (dx[0] * (dx[0] + dx[1]))
        b = (dx[0] + dx[1]) / (dx[0] * dx[1])
        c = -dx[0] / (dx[1] * (dx[0] + dx[1]))
        first = a * s(0, 1) + b * s(1, 2) + c * s(2, 3)
        a = dx[-1] / (dx[-2] * (dx[-1] + dx[-2]))
        b = -(dx[-1] + dx[-2]) / (dx[-1] * dx[-2])
        c = (2 * dx[-1] + dx[-2]) / (dx[-1] * (dx[-1] + dx[-2]))
        last = a * s(-3, -2) + b * s(-2, -1) + c * s(-1)
    return _cat_edges(first, center, last, d)


Tensor.histogram = _tensor_histogram
