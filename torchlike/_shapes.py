"""Shape arithmetic that needs no tensor: torchlike.broadcast_shapes."""
import operator

from torchlike._tensor import Size

__all__ = ["broadcast_shapes"]


def _as_shape(x):
    if isinstance(x, bool):
        raise TypeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {x}")
    try:
        return (operator.index(x),)
    except TypeError:
        pass
    try:
        return tuple(x)
    except TypeError:
        raise RuntimeError(
            f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {x}") from None


def broadcast_shapes(*shapes):
    """The shape that tensors of `shapes` broadcast to, as
    ``broadcast_tensors(*map(empty, shapes))[0].shape`` would give, without
    making tensors. Each shape is an int or a sequence of ints; None is skipped.

    Raises RuntimeError, with PyTorch's message, when two sizes of one
    dimension differ and neither is 1; ValueError for a negative size."""
    shapes = [_as_shape(s) for s in shapes if s is not None]
    if not shapes:
        return Size(())
    common = [1] * max(len(s) for s in shapes)
    for arg_idx, shape in enumerate(shapes):
        for i, size in enumerate(shape):
            if isinstance(size, bool) or not hasattr(size, "__index__"):
                raise TypeError(f"torchlike.Size() takes an iterable of 'int' (item {i} is '{type(size).__name__}')")
        for idx in range(-1, -1 - len(shape), -1):
            size = operator.index(shape[idx])
            if size == common[idx]:
                continue
            if common[idx] == 1:
                if size < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[idx] = size
            if size == 1:
                continue
            if common[idx] != size:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {size} at {idx}! Mismatching argument at "
                    f"index {arg_idx} had {tuple(shape)}; but expected shape should be broadcastable to {common}")
    return Size(common)
