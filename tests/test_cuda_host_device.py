"""The CUDA elementwise loop's index math (aten/native/ElementwiseIndex.h),
run on the CPU through torchlike._C test hooks: the same host/device code the
kernels use, checked against the tensors' own strides for broadcast, strided,
transposed and offset layouts. No GPU needed."""
import itertools
import random

import pytest

import torchlike
from torchlike import _C


def _expected_triples(out, a, b):
    """(out, a, b) element offsets of every element of the broadcast shape,
    from the tensors' sizes and strides (broadcast dims contribute 0)."""
    shape = tuple(out.shape)

    def offset(t, idx):
        lead = len(shape) - t.dim()
        return sum(i * (s if n != 1 else 0) for i, n, s in zip(idx[lead:], t.shape, t.stride()))

    return sorted((offset(out, idx), offset(a, idx), offset(b, idx))
                  for idx in itertools.product(*(range(n) for n in shape)))


def _check(out, a, b):
    want = _expected_triples(out, a, b)
    for wide in (False, True):
        got = _C._cuda_index_math_offsets(out, a, b, wide)
        assert len(got) == out.numel()
        # The loop order is the iterator's (dims reordered and coalesced), so
        # compare as a set of triples; every output element appears once.
        assert len({g[0] for g in got}) == out.numel()
        assert sorted(got) == want


def test_contiguous_same_shape():
    a, b = torchlike.randn(3, 4, 5), torchlike.randn(3, 4, 5)
    _check(torchlike.empty(3, 4, 5), a, b)


@pytest.mark.parametrize("ashape,bshape", [((4, 1), (1, 5)), ((2, 3, 1, 7), (3, 6, 1)), ((), (2, 3)), ((5, 1, 3), (3,))])
def test_broadcast(ashape, bshape):
    a, b = torchlike.randn(ashape), torchlike.randn(bshape)
    shape = torchlike.broadcast_shapes(a.shape, b.shape)
    _check(torchlike.empty(*shape), a, b)


def test_transposed_and_permuted():
    a = torchlike.randn(6, 5).t()                                # (5, 6), strides (1, 5)
    b = torchlike.randn(6, 2, 5).permute(2, 0, 1)[:, :, 1]       # (5, 6), strides (1, 10)
    _check(torchlike.empty(5, 6), a, b)
    # Output transposed too: the iterator orders dims by the output's strides.
    out = torchlike.empty(6, 5).t()
    _check(out, a, torchlike.randn(5, 6))
    x = torchlike.randn(2, 3, 4, 5).permute(3, 1, 0, 2)          # (5, 3, 2, 4)
    y = torchlike.randn(4, 2, 1, 5).permute(3, 2, 1, 0)          # (5, 1, 2, 4)
    _check(torchlike.empty(4, 2, 3, 5).permute(3, 2, 1, 0), x, y)


def test_sliced_strided_with_storage_offset():
    base = torchlike.randn(9, 12, 7)
    a = base[1::2, 2:11:3, ::2]
    b = torchlike.randn(7, 4)[::2, 1:2]
    out = torchlike.empty(10, 8, 8)[2:6, 1:8:2, :4]
    assert tuple(a.shape) == (4, 3, 4) and tuple(out.shape) == (4, 4, 4)
    _check(torchlike.empty(4, 3, 4).transpose(0, 2), a.transpose(0, 2), b.reshape(4, 1, 1))
    _check(out, base[1:5, 0:4, 0:4], b.reshape(1, 4, 1))


def test_random_layouts():
    rng = random.Random(1234)
    for _ in range(40):
        nd = rng.randint(1, 5)
        shape = [rng.randint(1, 4) for _ in range(nd)]
        # a: a strided view of a bigger tensor, dims permuted
        steps = [rng.randint(1, 3) for _ in range(nd)]
        big = torchlike.randn(*[n * s for n, s in zip(shape, steps)])
        a = big[tuple(slice(None, None, s) for s in steps)]
        perm = list(range(nd))
        rng.shuffle(perm)
        a = a.permute(*perm).contiguous().permute(*[perm.index(i) for i in range(nd)])
        # b: some dims broadcast
        bshape = [1 if rng.random() < 0.4 else n for n in shape]
        b = torchlike.randn(*bshape)
        _check(torchlike.empty(*shape), a, b)


def test_dtypes_element_offsets():
    # Offsets are in bytes inside the calculator; the hook divides by each
    # operand's own element size, so mixed-width operands land on the same elements.
    a = torchlike.arange(12, dtype=torchlike.float64).reshape(3, 4).t()
    b = torchlike.arange(4, dtype=torchlike.float64).reshape(4, 1)
    _check(torchlike.empty(4, 3, dtype=torchlike.float64), a, b)
    a16 = torchlike.zeros(4, 6, dtype=torchlike.float16)[:, ::2]
    b16 = torchlike.zeros(3, dtype=torchlike.float16)
    _check(torchlike.empty(4, 3, dtype=torchlike.float16), a16, b16)


@pytest.mark.parametrize("d", [1, 2, 3, 5, 7, 10, 64, 100, 641, 1000003, 2**16 + 1, 2**31 - 1, 2**31, 2**31 + 1, 2**32 - 1])
def test_divider32_matches_integer_division(d):
    rng = random.Random(d)
    ns = [0, 1, d - 1, d, d + 1, 2**31 - 1, 2**31, 2**32 - 1, 2**32 - 2]
    ns += [rng.randrange(2**32) for _ in range(2000)] + [rng.randrange(4 * d) % 2**32 for _ in range(200)]
    ns = [n for n in ns if 0 <= n < 2**32]
    got = _C._cuda_index_math_divmod(d, ns)
    assert got == [(n // d, n % d) for n in ns]


def test_divider32_rejects_bad_divisor():
    with pytest.raises(ValueError, match="divisor"):
        _C._cuda_index_math_divmod(0, [1])
    with pytest.raises(ValueError, match="32 bits"):
        _C._cuda_index_math_divmod(3, [2**32])


def test_cuda_unavailable_without_driver_is_quiet():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        avail = torchlike.cuda.is_available()
    if avail:
        pytest.skip("a CUDA device is present")
    assert torchlike.cuda.device_count() == 0
