"""torchlike.broadcast_shapes: values against NumPy's broadcast_shapes and
against broadcasting real tensors; PyTorch's error types and messages."""
import numpy as np
import pytest

import torchlike as tl

CASES = [((2, 1), (3,)), ((2,), (3, 1), (1, 1, 1)), ((0,), (1,)), ((1, 0), (3, 1)), ((), (3,)),
         ((5, 1, 4), (1, 7, 1)), ((1,), ()), ((4, 1), [1, 5])]


@pytest.mark.parametrize("shapes", CASES)
def test_values_match_numpy_and_tensor_broadcasting(shapes):
    got = tl.broadcast_shapes(*shapes)
    assert isinstance(got, tl.Size)
    assert tuple(got) == np.broadcast_shapes(*[tuple(s) for s in shapes])
    a, b = tl.zeros(tuple(shapes[0])), tl.zeros(tuple(shapes[1]))
    assert tuple(got) == tuple((a + b).shape) or len(shapes) > 2


def test_ints_none_and_sizes():
    assert tl.broadcast_shapes() == tl.Size(())
    assert tuple(tl.broadcast_shapes(2, (1, 2))) == (1, 2)
    assert tuple(tl.broadcast_shapes(None, (2,))) == (2,)
    assert tuple(tl.broadcast_shapes(tl.Size([3, 1]), tl.ones(4).shape)) == (3, 4)
    assert tuple(tl.broadcast_shapes(5)) == (5,)


def test_errors():
    with pytest.raises(RuntimeError, match=r"Attempting to broadcast a dimension of length 3 at -1! Mismatching "
                                           r"argument at index 1 had \(3,\); but expected shape should be "
                                           r"broadcastable to \[2\]"):
        tl.broadcast_shapes((2,), (3,))
    with pytest.raises(ValueError, match="negative length"):
        tl.broadcast_shapes((-1,), (2,))
    with pytest.raises(TypeError):
        tl.broadcast_shapes((2.0,), (2,))
    with pytest.raises(RuntimeError, match="Input shapes should be of type ints"):
        tl.broadcast_shapes(object())


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    for shapes in CASES + [(2, (1, 2)), (None, (3,))]:
        assert list(tl.broadcast_shapes(*shapes)) == list(torch.broadcast_shapes(*shapes))
    for bad in [((2,), (3,)), ((2,), (4, 3, 3)), ((-1,), (2,))]:
        with pytest.raises(Exception) as theirs:
            torch.broadcast_shapes(*bad)
        with pytest.raises(type(theirs.value), match=None) as ours:
            tl.broadcast_shapes(*bad)
        assert str(ours.value) == str(theirs.value)
