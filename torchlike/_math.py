"""Python-level forms PyTorch also writes in Python: tensordot's `dims`
forms and allclose (a bool from isclose)."""
from torchlike import _C

__all__ = ["tensordot", "allclose"]

_tensordot = _C._VariableFunctions.tensordot


def tensordot(a, b, dims=2, out=None):
    """Sums products over dims of a and b: `dims` is an int (the last dims of a
    with the first of b), a pair of dim lists, or a 2-row integer tensor."""
    if hasattr(dims, "tolist") and not isinstance(dims, (list, tuple)):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    elif isinstance(dims, (list, tuple)):
        if len(dims) != 2:
            raise RuntimeError("tensordot expects dims to be a pair of dim lists")
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
    else:
        raise TypeError(f"tensordot expects dims to be an int, a pair of lists or a tensor, got {type(dims).__name__}")
    r = _tensordot(a, b, da, db)
    if out is not None:
        out.resize_(r.shape) if hasattr(out, "resize_") and tuple(out.shape) != tuple(r.shape) else None
        out.copy_(r)
        return out
    return r


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when every element of input is close to other's (see isclose)."""
    return bool(_C._VariableFunctions.isclose(input, other, rtol, atol, equal_nan).all())


def _tensor_allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return allclose(self, other, rtol, atol, equal_nan)


def _install_methods(tensor_type):
    tensor_type.allclose = _tensor_allclose
