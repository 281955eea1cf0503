"""torch-namespace names PyTorch writes in Python or on top of nn.functional:
einsum's call forms (the C++ op takes the equation and a list), nuclear_norm,
unravel_index, the integer-coded grid_sampler / affine_grid_generator entry
points, and the native-style embedding_bag with its four outputs."""
import builtins as _builtins
import operator as _operator
from itertools import accumulate as _accumulate

import torchlike as _tl
from torchlike import _C
from torchlike._creation import _with_requires_grad

__all__ = ["einsum", "nuclear_norm", "unravel_index", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d",
           "affine_grid_generator", "embedding_bag", "empty_permuted"]

_einsum = _C._VariableFunctions.einsum

# PyTorch's factories take requires_grad=, which is not part of the schema.
empty_permuted = _with_requires_grad("empty_permuted")


def _sublist_label(n):
    if n is Ellipsis:
        return "..."
    if isinstance(n, int) and 0 <= n < 26:
        return chr(ord("A") + n)
    if isinstance(n, int) and 26 <= n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def einsum(*args):
    """einsum(equation, *operands), einsum(equation, [operands]) or the sublist
    form einsum(op0, sub0, op1, sub1, ..., [out_sub]); subscripts in sublists
    are ints in [0, 52) (0-25 -> A-Z, 26-51 -> a-z) or Ellipsis."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], _tl.Tensor):
        equation = ",".join("".join(_sublist_label(s) for s in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(_sublist_label(s) for s in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        return einsum(equation, *operands[0])
    return _einsum(equation, list(operands))


def nuclear_norm(input, dim=None, keepdim=False):
    """The sum of singular values over the matrices in dims `dim` (the last
    two by default); torch.nuclear_norm(input, keepdim) and (input, dim, keepdim)."""
    if isinstance(dim, _builtins.bool):  # nuclear_norm(input, keepdim) positionally
        dim, keepdim = None, dim
    if dim is None:
        dim = (-2, -1)
    dim = tuple(dim)
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
    return _tl.linalg.matrix_norm(input, "nuc", dim, keepdim)


def unravel_index(indices, shape):
    """Flat indices -> one coordinate tensor per dim of `shape` (int64, each
    the shape of indices), as PyTorch computes them (no range check: values
    wrap modulo the dim sizes)."""
    if indices.is_floating_point() or indices.dtype == _tl.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, int) and not isinstance(shape, _builtins.bool):
        shape = (shape,)
    elif isinstance(shape, (list, tuple)):
        for d in shape:
            if not isinstance(d, int) or isinstance(d, _builtins.bool):
                raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(d)}")
        shape = tuple(shape)
    else:
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if any(d < 0 for d in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if any(d == 0 for d in shape):
        raise RuntimeError("ZeroDivisionError")
    # coefs[i]: the flat stride of dim i in a contiguous tensor of `shape`.
    coefs = list(reversed(list(_accumulate(reversed(shape[1:] + (1,)), func=_operator.mul))))
    flat = indices.unsqueeze(-1)
    coords = _tl.floor_divide(flat, _tl.tensor(coefs, dtype=_tl.int64, device=indices.device)) % \
        _tl.tensor(shape, dtype=_tl.int64, device=indices.device)
    return coords.unbind(-1)


# ---------------------------------------------------------------- grid sampling, integer-coded

_INTERPOLATION = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_PADDING = {0: "zeros", 1: "border", 2: "reflection"}


def _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners, want_dim):
    from torchlike.nn import functional as F
    if want_dim is not None and (input.dim() != want_dim or grid.dim() != want_dim):
        raise RuntimeError(f"grid_sampler(): expected {want_dim}D input and grid with same number of dimensions, "
                           f"but got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if interpolation_mode not in _INTERPOLATION:
        raise RuntimeError(f"grid_sampler(): expected interpolation_mode 0 (bilinear), 1 (nearest) or "
                           f"2 (bicubic), but got {interpolation_mode}")
    if padding_mode not in _PADDING:
        raise RuntimeError(f"grid_sampler(): expected padding_mode 0 (zeros), 1 (border) or 2 (reflection), "
                           f"but got {padding_mode}")
    return F.grid_sample(input, grid, _INTERPOLATION[interpolation_mode], _PADDING[padding_mode],
                         _builtins.bool(align_corners))


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """grid_sample with PyTorch's integer codes: interpolation 0 bilinear,
    1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection."""
    return _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners, None)


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    return _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners, 4)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    if interpolation_mode == 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    return _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners, 5)


def affine_grid_generator(theta, size, align_corners):
    """affine_grid without its warnings: theta (N, 2, 3) for a 4-d size,
    (N, 3, 4) for a 5-d one."""
    import warnings
    from torchlike.nn import functional as F
    size = list(size)
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    nd = len(size) - 2
    if theta.dim() != 3 or theta.shape[0] != size[0] or theta.shape[1] != nd or theta.shape[2] != nd + 1:
        raise RuntimeError(f"affine_grid_generator: expected theta of shape [{size[0]}, {nd}, {nd + 1}] for size "
                           f"{size}, but got {list(theta.shape)}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return F.affine_grid(theta, size, _builtins.bool(align_corners))


# ---------------------------------------------------------------- embedding_bag, native form

_BAG_MODES = {0: "sum", 1: "mean", 2: "max"}


def _check_dtype(t, allowed, arg, name):
    if t.dtype not in allowed:
        names = {_tl.int64: "Long", _tl.int32: "Int", _tl.float16: "Half", _tl.bfloat16: "BFloat16",
                 _tl.float32: "Float", _tl.float64: "Double"}
        raise RuntimeError(f"Expected tensor for argument #{arg} '{name}' to have one of the following scalar "
                           f"types: {', '.join(names[a] for a in allowed)}; but got {t.dtype} instead "
                           "(while checking arguments for embedding_bag)")


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Reduces bags of embedding rows (mode 0 sum, 1 mean, 2 max) and returns
    PyTorch's four outputs: (output, offset2bag, bag_size, max_indices).
    offset2bag is each index's bag (empty where PyTorch's CPU fast path
    skips it: sum, no padding_idx, float32/16-bit weight); bag_size counts each bag's non-padding entries
    (zeros for sum); max_indices is the arg-max row per bag and column for
    max, bag_size for mean and zeros for sum. Indices equal to padding_idx are
    left out; an empty bag gives zeros. The gradient reaches weight through
    embedding() (so scale_grad_by_freq and padding_idx act as there) and
    per_sample_weights through the product. With include_last_offset the
    last offset ends the last bag (PyTorch's documented CSR contract, where it
    equals len(indices); PyTorch's kernels disagree with each other when it
    is smaller)."""
    if weight.dim() != 2:
        raise RuntimeError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    _check_dtype(indices, (_tl.int64, _tl.int32), 1, "indices")
    _check_dtype(offsets, (_tl.int64, _tl.int32), 1, "indices")
    _check_dtype(weight, (_tl.float16, _tl.bfloat16, _tl.float32, _tl.float64), 1, "weight")
    if offsets.dim() != 1:
        raise RuntimeError(f"offsets has to be a 1D Tensor, but got Tensor of dimension {offsets.dim()}")
    if mode not in _BAG_MODES:
        raise RuntimeError("`mode` must be sum, mean, or max.")
    num_weights, d = weight.shape
    pad = -1
    if padding_idx is not None:
        if not -num_weights <= padding_idx < num_weights:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num_weights} through "
                               f"{num_weights - 1}, but got {padding_idx}")
        pad = padding_idx % num_weights
    if per_sample_weights is not None:
        if mode != 0:
            raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
        if per_sample_weights.numel() != indices.numel():
            raise RuntimeError(f"embedding_bag: expected per_sample_weights to have one entry per index "
                               f"({indices.numel()}), but got {per_sample_weights.numel()}")
    index_t = _tl.promote_types(indices.dtype, offsets.dtype)
    idx = indices.reshape(-1).to(_tl.int64)
    offs = offsets.to(_tl.int64)
    n = idx.shape[0]
    nbags = offs.shape[0] - (1 if include_last_offset and offs.shape[0] > 0 else 0)
    dev = weight.device
    if dev.type != "meta":  # value checks (a Meta call has no values; its shapes don't depend on them)
        if offs.shape[0] > 0:
            first, last = int(offs[0]), int(offs[-1])
            if first != 0:
                raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                                   f"from position 0. However, got {first}")
            if last > n:
                raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] "
                                   f"of {last}")
            if offs.shape[0] > 1 and bool((offs[1:] < offs[:-1]).any()):
                raise RuntimeError(f"embedding_bag: offsets must be non-decreasing, but got {offs.tolist()}")
        if n > 0:
            bad = (idx < 0) | (idx >= num_weights)
            if bool(bad.any()):
                pos = int(bad.nonzero()[0, 0])
                raise RuntimeError(f"Index {pos} of input takes value {int(idx[pos])} which is not in the valid "
                                   f"range [0, {num_weights})")
    positions = _tl.arange(n, device=dev)
    # bag_of[i]: the bag index i falls in (the last offset at or before i).
    bag_of = _tl.searchsorted(offs[:nbags].contiguous(), positions, right=True) - 1
    end = offs[nbags] if include_last_offset and offs.shape[0] > 0 else None
    keep = positions < end if end is not None else _tl.ones(n, dtype=_tl.bool, device=dev)
    if pad >= 0:
        keep = keep & (idx != pad)
    bag_index = bag_of.clamp(min=0)
    rows = _tl.embedding(weight, idx, pad, scale_grad_by_freq, sparse)  # (n, d)
    keep_col = keep.unsqueeze(1)
    counts = _tl.zeros(nbags, dtype=_tl.int64, device=dev).index_add(0, bag_index, keep.to(_tl.int64))
    # (sum mode's placeholder bag_size / max_indices have one entry per
    # offset, as PyTorch's, include_last_offset's extra one included)
    zeros_bags = _tl.zeros(offs.shape[0], dtype=index_t, device=dev)
    if mode == 2:
        output, max_rows = _bag_max(rows, idx, keep_col, bag_index, nbags, n, d)
        max_indices = max_rows.to(index_t)
    else:
        if per_sample_weights is not None:
            rows = rows * per_sample_weights.reshape(-1, 1).to(rows.dtype)
        contrib = _tl.where(keep_col, rows, _tl.zeros((), dtype=rows.dtype, device=dev))
        output = _tl.zeros((nbags, d), dtype=weight.dtype, device=dev).index_add(0, bag_index, contrib)
        if mode == 1:
            output = output / counts.clamp(min=1).unsqueeze(1).to(output.dtype)
            max_indices = counts.to(index_t)
        else:
            max_indices = zeros_bags
    bag_size = zeros_bags if mode == 0 else counts.to(index_t)
    # PyTorch's CPU "fast path" (sum without padding_idx over a float32 /
    # float16 / bfloat16 weight with unit-stride rows) never fills offset2bag.
    if mode == 0 and pad < 0 and weight.dtype in (_tl.float32, _tl.float16, _tl.bfloat16) and \
            (d <= 1 or weight.stride(1) == 1):
        offset2bag = _tl.zeros(0, dtype=index_t, device=dev)
    else:
        offset2bag = bag_of.to(index_t)
    return output, offset2bag, bag_size, max_indices


def _bag_max(rows, idx, keep_col, bag_index, nbags, n, d):
    """Per bag and column, the first kept row holding the maximum: the output
    (gathered from rows, so the gradient goes to exactly that row) and its
    weight-row index (0 for an empty bag, whose output is 0)."""
    dev = rows.device
    if n == 0:
        return (_tl.zeros((nbags, d), dtype=rows.dtype, device=dev),
                _tl.zeros((nbags, d), dtype=_tl.int64, device=dev))
    bag_cols = bag_index.unsqueeze(1).expand(n, d)
    with _tl.no_grad():
        vals = _tl.where(keep_col, rows.detach().float() if rows.dtype in (_tl.float16, _tl.bfloat16)
                         else rows.detach(), float("-inf"))
        best = _tl.full((nbags, d), float("-inf"), dtype=vals.dtype, device=dev).scatter_reduce(
            0, bag_cols, vals, "amax", include_self=True)
        is_best = (vals == best.gather(0, bag_cols)) & keep_col
        pos = _tl.where(is_best, _tl.arange(n, device=dev).unsqueeze(1).expand(n, d), n)
        first = _tl.full((nbags, d), n, dtype=_tl.int64, device=dev).scatter_reduce(
            0, bag_cols, pos, "amin", include_self=True)
        found = first < n
        first = first.clamp(max=n - 1)
    gathered = rows.gather(0, first)
    output = _tl.where(found, gathered, _tl.zeros((), dtype=rows.dtype, device=dev))
    max_rows = _tl.where(found, idx[first], _tl.zeros((), dtype=_tl.int64, device=dev))
    return output, max_rows
