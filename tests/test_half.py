"""float16/bfloat16 on CPU beyond what the op-sample registry checks: exact
conversion tables, finfo, printing, NumPy interop, float32 accumulation and
the error paths. (The registry runs every floating op in both types; see
HALF_UNSUPPORTED in tests/opinfo/__init__.py for the few it leaves out.)"""
from fractions import Fraction

import numpy as np
import pytest

import torchlike as tl

try:
    import torch
except ImportError:  # PyTorch parity checks are optional
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")

# (significand bits with the implicit one, smallest normal exponent, largest finite value)
FORMATS = {
    "float16": (11, -14, Fraction(65504)),
    "bfloat16": (8, -126, Fraction((2 ** 8 - 1) * 2 ** (127 - 7))),
}


def exact_round(value, dtype):
    """The value (an int or a float, taken exactly) rounded to nearest, ties
    to even, into dtype; as a Python float (inf when it overflows)."""
    p, emin, max_finite = FORMATS[dtype]
    if isinstance(value, float) and not np.isfinite(value):
        return value
    v = Fraction(value)
    if v == 0:
        return float(value)
    sign = -1 if v < 0 else 1
    v = abs(v)
    e = v.numerator.bit_length() - v.denominator.bit_length()  # floor(log2 v) or one more
    if Fraction(2) ** e > v:
        e -= 1
    ulp = Fraction(2) ** (max(e, emin) - p + 1)
    q = v / ulp
    n = q.numerator // q.denominator
    rest = q - n
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2 == 1):
        n += 1
    r = n * ulp
    if r > max_finite:
        return sign * float("inf")
    return sign * float(r)


def values_of(t):
    """A tensor's values as float64 NumPy (bfloat16 through float32, exactly)."""
    return t.to(tl.float64).numpy()


def random_float32_bits(n, seed):
    """Float32 values from random bit patterns: every exponent, subnormals, NaNs, infinities."""
    bits = np.random.default_rng(seed).integers(0, 2 ** 32, size=n, dtype=np.uint64).astype(np.uint32)
    edge = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0x00000001, 0x007FFFFF,
                     0x00800000, 0x33000000, 0x33000001, 0x387FC000, 0x38800000, 0x477FE000, 0x477FEFFF,
                     0x477FF000, 0x7F7FFFFF, 0x3F808000, 0x3F818000, 0x3F808001, 0x3F800FFF, 0x3F801000,
                     0x3F803000, 0x7F7F8000, 0x7F7F7FFF], dtype=np.uint32)
    return np.concatenate([edge, bits]).view(np.float32)


# ---------------------------------------------------------------- conversions

def test_every_float16_bit_pattern_round_trips_through_float32():
    bits = np.arange(2 ** 16, dtype=np.uint32).astype(np.uint16)
    h = bits.view(np.float16)
    t = tl.from_numpy(h.copy())
    f = t.to(tl.float32)
    want = h.astype(np.float32)
    got = f.numpy()
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32))  # -0.0 included
    back = f.to(tl.float16).numpy().view(np.uint16)
    assert np.array_equal(back[~nan], bits[~nan])
    assert np.isnan(f.to(tl.float16).numpy()[nan]).all()
    # The strided (element-by-element) path gives the same bits.
    strided = tl.from_numpy(np.repeat(want, 2))[::2].to(tl.float16).numpy().view(np.uint16)
    assert np.array_equal(strided[~nan], bits[~nan])


@pytest.mark.parametrize("contiguous", [True, False])
def test_float32_to_float16_matches_numpy(contiguous):
    x = random_float32_bits(200_003, seed=1)
    src = tl.from_numpy(x)
    if not contiguous:  # the generic cast loop instead of the vectorised one
        src = tl.from_numpy(np.repeat(x, 2))[::2]
    with np.errstate(over="ignore", invalid="ignore"):
        want = x.astype(np.float16)
    got = src.to(tl.float16).numpy()
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan].view(np.uint16), want[~nan].view(np.uint16))


def bf16_rne_bits(x):
    """float32 -> bfloat16 bits, round to nearest even, in exact integer arithmetic."""
    u = x.view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


@pytest.mark.parametrize("contiguous", [True, False])
def test_float32_to_bfloat16_is_round_to_nearest_even(contiguous):
    x = random_float32_bits(200_003, seed=2)
    src = tl.from_numpy(x) if contiguous else tl.from_numpy(np.repeat(x, 2))[::2]
    got = src.to(tl.bfloat16).view(tl.int16).numpy().view(np.uint16)
    nan = np.isnan(x)
    assert np.array_equal(got[~nan], bf16_rne_bits(x)[~nan])
    # NaN stays NaN (a quiet one), sign kept
    assert ((got[nan] & 0x7F80) == 0x7F80).all() and ((got[nan] & 0x7F) != 0).all()
    assert np.array_equal(got[nan] >> 15, (x[nan].view(np.uint32) >> 31).astype(np.uint16))
    # and back to float32 exactly: the top 16 bits
    back = tl.from_numpy(x).to(tl.bfloat16).to(tl.float32).numpy().view(np.uint32)
    assert np.array_equal(back[~nan], bf16_rne_bits(x)[~nan].astype(np.uint32) << 16)


def double_cases(seed):
    """Doubles that sit just off a 16-bit type's half-way points (where rounding
    through float goes wrong), ties exactly, and random values over the range."""
    out = []
    for base in (1.0, 1.5, 1024.0, 2.0 ** -14, 2.0 ** -20, 2.0 ** -130, 3.0e38, 60000.0):
        for half_ulp_exp in (-11, -8):  # float16's and bfloat16's half ulp at 1.0
            step = base * 2.0 ** half_ulp_exp
            for tiny in (2.0 ** -40, -(2.0 ** -40), 2.0 ** -30, 0.0):
                out += [base + step + base * tiny, -(base + step + base * tiny), base + 3 * step + base * tiny]
    rng = np.random.default_rng(seed)
    out += list(rng.standard_normal(3000) * np.exp2(rng.integers(-30, 20, 3000)))
    out += list(rng.standard_normal(500) * np.exp2(rng.integers(-140, 128, 500)))
    out += [65519.99999999, 65520.0, 65520.00000001, 2.0 ** -25, 2.0 ** -25 * (1 + 2.0 ** -40), 1e-300, 1e300,
            float("inf"), -float("inf"), 0.0, -0.0]
    return np.array(out, dtype=np.float64)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_float64_to_half_rounds_once(dtype):
    x = double_cases(seed=3)
    want = np.array([exact_round(v, dtype) for v in x])
    assert np.array_equal(values_of(tl.from_numpy(x).to(getattr(tl, dtype))), want)
    # strided source (the generic cast loop), and tensor() from Python floats
    assert np.array_equal(values_of(tl.from_numpy(np.repeat(x, 2))[::2].to(getattr(tl, dtype))), want)
    assert np.array_equal(values_of(tl.tensor(x.tolist(), dtype=getattr(tl, dtype))), want)
    if dtype == "float16":  # NumPy converts double -> float16 directly
        with np.errstate(over="ignore"):
            assert np.array_equal(x.astype(np.float16).astype(np.float64), want)


def test_the_double_rounding_example():
    v = 1 + 2.0 ** -11 + 2.0 ** -40  # just above the half-way point between 1 and 1 + 2^-10
    assert tl.tensor([v], dtype=tl.float64).to(tl.float16).item() == float(np.float16(v)) == 1 + 2.0 ** -10
    assert tl.tensor(v, dtype=tl.float16).item() == 1 + 2.0 ** -10
    assert tl.full((3,), v, dtype=tl.float16).tolist() == [1 + 2.0 ** -10] * 3
    assert tl.zeros(2, dtype=tl.float16).fill_(v).tolist() == [1 + 2.0 ** -10] * 2
    big = 2 ** 30 + 2 ** 22 + 1  # above the bfloat16 tie, which float's rounding lands on
    assert tl.full((1,), big, dtype=tl.bfloat16).item() == 2 ** 30 + 2 ** 23
    w = 1 + 2.0 ** -8 + 2.0 ** -40
    assert tl.tensor([w], dtype=tl.float64).to(tl.bfloat16).item() == 1 + 2.0 ** -7


@pytest.mark.parametrize("src", ["int64", "int32"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_integers_to_half_round_once(src, dtype):
    rng = np.random.default_rng(4)
    hi = 2 ** 62 if src == "int64" else 2 ** 31 - 1
    vals = list(rng.integers(-hi, hi, size=2000))
    for e in range(11, 62 if src == "int64" else 31):  # just past a tie at each magnitude
        for off in (2 ** (e - 8), 2 ** (e - 11)):
            vals += [2 ** e + off + 1, 2 ** e + off, -(2 ** e + off + 1), 2 ** e + 3 * off]
    vals += [0, 1, -1, 2048, 2049, 65519, 65520, 65536, 257, 258, 259]
    x = np.array(vals, dtype=np.int64).astype(src)
    want = np.array([exact_round(int(v), dtype) for v in x])
    got = values_of(tl.from_numpy(x).to(getattr(tl, dtype)))
    assert np.array_equal(got, want)
    assert np.array_equal(values_of(tl.tensor([int(v) for v in x], dtype=getattr(tl, dtype))), want)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_small_types_and_bool_convert_exactly(dtype):
    for src in (np.bool_, np.uint8, np.int8, np.int16):
        info = np.iinfo(src) if src is not np.bool_ else None
        x = (np.array([0, 1]) if info is None else np.arange(info.min, info.max + 1)).astype(src)
        want = np.array([exact_round(int(v), dtype) for v in x])
        assert np.array_equal(values_of(tl.from_numpy(x).to(getattr(tl, dtype))), want)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_to_integers_and_bool_truncates_like_numpy(dtype):
    x = np.array([0.0, -0.0, 0.5, -0.5, 1.75, -1.75, 100.5, -100.5, 127.0, 255.0, 1000.0], np.float32)
    t = tl.from_numpy(x).to(getattr(tl, dtype))
    vals = values_of(t)
    for name, npdt in (("int64", np.int64), ("int32", np.int32), ("int16", np.int16)):
        assert np.array_equal(t.to(getattr(tl, name)).numpy(), vals.astype(npdt))
    assert np.array_equal(t.to(tl.bool).numpy(), vals != 0)
    assert np.array_equal(t.to(tl.float64).numpy(), vals)


# ---------------------------------------------------------------- finfo, printing, NumPy

FINFO_FIELDS = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_finfo_values(dtype):
    fi = tl.finfo(getattr(tl, dtype))
    p, emin, max_finite = FORMATS[dtype]
    assert fi.bits == 16
    assert fi.eps == 2.0 ** (1 - p)
    assert fi.max == float(max_finite) == -fi.min
    assert fi.tiny == fi.smallest_normal == 2.0 ** emin
    assert fi.dtype == dtype
    if dtype == "float16":
        nf = np.finfo(np.float16)
        assert (fi.eps, fi.max, fi.min, fi.tiny) == (float(nf.eps), float(nf.max), float(nf.min), float(nf.tiny))
        assert fi.resolution == 10.0 ** -nf.precision  # NumPy stores it as a float16, PyTorch as a float


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_finfo_matches_torch(dtype):
    a, b = tl.finfo(getattr(tl, dtype)), torch.finfo(getattr(torch, dtype))
    for f in FINFO_FIELDS:
        assert getattr(a, f) == getattr(b, f), f
    assert repr(a) == repr(b)


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_printing_matches_torch(dtype):
    rng = np.random.default_rng(5)
    cases = [rng.standard_normal((3, 4)), rng.standard_normal(6) * 1e4, [1e-5, 2e-6, 3.0], [0.0, -0.0, 1.0, 2.0],
             [65504.0, -65504.0], rng.standard_normal((2, 2, 3)) * 100, [float("nan"), float("inf"), 1.5],
             [6.1e-5, 5.96e-8], 0.1, rng.standard_normal(1200)]
    for c in cases:
        x = np.asarray(c, np.float32)
        a = tl.tensor(x).to(getattr(tl, dtype))
        b = torch.tensor(x).to(getattr(torch, dtype))
        assert repr(a).replace("torchlike.", "torch.") == repr(b)
        assert str(a).replace("torchlike.", "torch.") == str(b)


def test_numpy_float16_interop():
    a = np.array([[1.0, -2.5, 65504.0], [6.1e-5, np.inf, -0.0]], dtype=np.float16)
    t = tl.tensor(a)
    assert t.dtype == tl.float16 and t.shape == (2, 3)
    assert np.array_equal(t.numpy().view(np.uint16), a.view(np.uint16))
    shared = tl.from_numpy(a)
    assert shared.dtype == tl.float16
    a[0, 0] = 7.0  # from_numpy shares memory both ways
    assert shared[0, 0].item() == 7.0
    n = shared.numpy()
    assert n.dtype == np.float16
    n[1, 0] = 3.0
    assert a[1, 0] == 3.0
    assert tl.as_tensor(a).dtype == tl.float16
    assert np.asarray(tl.ones(2, dtype=tl.float16)).dtype == np.float16
    # a float32 array asked for in half
    assert np.array_equal(tl.tensor(np.float32([1.1, 2.2]), dtype=tl.float16).numpy(),
                          np.float32([1.1, 2.2]).astype(np.float16))


def test_bfloat16_has_no_numpy_dtype():
    with pytest.raises(TypeError, match="BFloat16"):
        tl.ones(2, dtype=tl.bfloat16).numpy()


# ---------------------------------------------------------------- float32 accumulation

@pytest.mark.parametrize("dtype,n", [("float16", 10_000), ("bfloat16", 1_000)])
def test_reductions_accumulate_in_float32(dtype, n):
    # n ones: half accumulation would stop growing at 2048 (float16) / 256 (bfloat16)
    dt = getattr(tl, dtype)
    ones = tl.ones(n, dtype=dt)
    assert ones.sum().item() == n
    assert ones.reshape(10, -1).sum(1).tolist() == [n // 10] * 10
    assert ones.reshape(-1, 10).sum(0).tolist() == [n // 10] * 10
    assert ones.nansum().item() == n
    assert ones.mean().item() == 1.0
    assert ones.cumsum(0)[-1].item() == n
    assert tl.dot(ones, ones).item() == n
    assert ones.norm().item() == exact_round(float(np.sqrt(n)), dtype)
    assert tl.softmax(tl.zeros(n, dtype=dt), 0).to(tl.float32).sum().item() == pytest.approx(1.0, rel=1e-2)
    # variance of values far from zero: a half-precision running sum of squares loses it
    x = (tl.arange(n) % 7).to(dt) + (1000 if dtype == "float16" else 100)
    ref = np.var(values_of(x), ddof=1)
    assert x.var().item() == pytest.approx(ref, rel=1e-2)
    assert x.std().item() == pytest.approx(np.sqrt(ref), rel=1e-2)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_products_accumulate_in_float32(dtype):
    dt = getattr(tl, dtype)
    k = 4096
    rng = np.random.default_rng(6)
    a = tl.tensor(rng.uniform(0.5, 1.5, (8, k)).astype(np.float32)).to(dt)
    b = tl.tensor(rng.uniform(0.5, 1.5, (k, 5)).astype(np.float32)).to(dt)
    exact = values_of(a) @ values_of(b)  # float64 product of the half-precision inputs
    want = np.array([[exact_round(float(v), dtype) for v in row] for row in exact])
    # float32 accumulation over k terms: a few float32 ulps, far below one half ulp,
    # so the result is the exact product rounded (or, rarely, its neighbour).
    ulp = 2.0 ** (1 - FORMATS[dtype][0])
    for got in (a @ b, tl.mm(a, b), tl.bmm(a[None], b[None])[0], tl.addmm(tl.zeros(8, 5, dtype=dt), a, b),
                tl.nn.functional.linear(a, b.t())):
        assert got.dtype == dt
        assert np.all(np.abs(values_of(got) - want) <= ulp * np.abs(want))
    ones = tl.ones(1, k, dtype=dt)
    assert (ones @ ones.t()).item() == k  # half accumulation would give 2048 / 256
    conv = tl.nn.functional.conv1d(ones[None], ones[None])
    assert conv.dtype == dt and conv.item() == k


# ---------------------------------------------------------------- error paths

@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_lapack_ops_refuse_half_like_pytorch(dtype):
    a = tl.eye(3, dtype=getattr(tl, dtype))
    name = "Half" if dtype == "float16" else "BFloat16"
    for fn, op in ((tl.linalg.inv, "linalg.inv"), (tl.linalg.det, "linalg.det"),
                   (tl.linalg.cholesky, "linalg.cholesky")):
        with pytest.raises(RuntimeError, match=f"{op}: Low precision dtypes not supported. Got {name}"):
            fn(a)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_linalg_without_lapack_runs_in_half(dtype):
    dt = getattr(tl, dtype)
    a = tl.tensor(np.random.default_rng(7).uniform(-1, 1, (2, 4, 4)).astype(np.float32)).to(dt)
    a32 = a.to(tl.float32)
    for ord_ in ("fro", 1, -1, float("inf"), -float("inf")):
        got = tl.linalg.matrix_norm(a, ord_)
        assert got.dtype == dt
        want = tl.linalg.matrix_norm(a32, ord_).to(dt)  # the float32 result rounded once
        np.testing.assert_allclose(values_of(got), values_of(want), rtol=2.0 ** (1 - FORMATS[dtype][0]))
    got = tl.linalg.matrix_exp(a)
    assert got.dtype == dt
    assert np.array_equal(values_of(got), values_of(tl.linalg.matrix_exp(a32).to(dt)))
    name = "Half" if dtype == "float16" else "BFloat16"
    for ord_ in (2, -2, "nuc"):  # these need an SVD
        with pytest.raises(RuntimeError, match=f"linalg.matrix_norm: Low precision dtypes not supported. Got {name}"):
            tl.linalg.matrix_norm(a, ord_)
