"""Property-based fuzzing (hypothesis) over the op-sample registry.

For every registry operator that broadcasts elementwise (the pointwise areas),
hypothesis draws a dtype the op supports, a shape (0-dim and 0-size
included), per-argument broadcast shapes, values in the range the op's own
samples use (zeros avoided where its samples avoid them), and a memory layout
per tensor argument: contiguous, transposed, strided (a step-2 slice of a
wider tensor) or expanded (stride 0). The result must equal the op's NumPy
reference on the plain arrays; a crash or a mismatch fails.

Profiles as in test_fuzz_core.py: `ci` (default) is deterministic and
bounded; TORCHLIKE_FUZZ=long draws 20x more examples with a random seed.
"""
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st

import torchlike as tl
from opinfo import OPS
from opinfo.core import NP_DTYPE, make, resolve, sample_seed
from test_ops import compare, expected_dtype

_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
PROFILES = {"ci": dict(max_examples=10, derandomize=True),
            "long": dict(max_examples=240, derandomize=False)}
PROFILE = PROFILES[os.environ.get("TORCHLIKE_FUZZ", "ci")]
FUZZ = settings(deadline=None, database=None, suppress_health_check=_HEALTH, print_blob=True, **PROFILE)

# Elementwise areas: every array argument broadcasts against the others.
ELEMENTWISE_AREAS = ("opinfo.pointwise", "opinfo.special_math", "opinfo.nn_act_loss_pointwise")


def _elementwise_ops():
    import importlib
    ops = []
    for mod in ELEMENTWISE_AREAS:
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError:
            continue
        ops.extend(getattr(m, "ELEMENTWISE_OPS", getattr(m, "OPS", [])))
    return ops


def _template(op, dtype):
    """The op's first sample with array arguments, and each array's value range."""
    for s in op.samples(dtype):
        arrays = [a for a in s.args if isinstance(a, np.ndarray)]
        if arrays and all(a.size for a in arrays):
            return s
    return None


FUZZ_OPS = [op for op in _elementwise_ops() if op.samples is not None]
IDS = []
for _op in FUZZ_OPS:
    _n = sum(1 for i in IDS if i.split("#")[0] == _op.name)
    IDS.append(f"{_op.name}#{_n}" if _n else _op.name)


@st.composite
def layouts(draw, ndim, can_expand):
    kinds = ["contiguous", "strided"] + (["transposed"] if ndim >= 2 else []) + (["expanded"] if can_expand else [])
    return draw(st.sampled_from(kinds))


def _values(template, shape, dtype, seed):
    """Data of `shape` in the range of the op's sample `template` (zeros kept out if it has none)."""
    if dtype == "bool" or template.dtype == np.bool_:
        return make(shape, "bool", seed=seed)
    t = template.astype(np.float64)
    finite = t[np.isfinite(t)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (-1.0, 1.0)
    rng = np.random.default_rng(sample_seed(shape, dtype, seed))
    if dtype in ("uint8", "int8", "int16", "int32", "int64"):
        v = rng.integers(int(np.floor(lo)), int(np.floor(hi)) + 1, size=shape).astype(np.float64)
    else:
        v = rng.uniform(lo, hi, size=shape) if hi > lo else np.full(shape, lo)
        specials = np.unique(t[~np.isfinite(t)])  # the sample's NaN/inf: keep some in the fuzz data
        if specials.size and v.size:
            where = rng.random(shape) < 0.2
            v[where] = rng.choice(specials, size=int(where.sum()))
    if not (t == 0).any():
        v[v == 0] = hi if hi != 0 else lo
    a = np.asarray(v.astype(NP_DTYPE[dtype]))
    if dtype == "bfloat16":
        a = np.asarray((a.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32))
    return a


def _to_tensor(arr, dtype, layout, full_shape):
    tdt = getattr(tl, dtype)
    if layout == "expanded":
        return tl.tensor(arr, dtype=tdt).expand(full_shape), np.broadcast_to(arr, full_shape)
    if layout == "transposed":
        t = tl.tensor(np.ascontiguousarray(np.swapaxes(arr, -1, -2)), dtype=tdt).transpose(-1, -2)
        return t, arr
    if layout == "strided" and arr.ndim >= 1:
        wide = np.repeat(arr, 2, axis=-1)
        return tl.tensor(wide, dtype=tdt)[..., ::2], arr
    return tl.tensor(arr, dtype=tdt), arr


@pytest.mark.parametrize("op", FUZZ_OPS, ids=IDS)
@FUZZ
@given(data=st.data())
def test_registry_op_matches_numpy_on_random_shapes_and_layouts(op, data):
    dtype = data.draw(st.sampled_from([d for d in op.dtypes if d not in op.skip]), label="dtype")
    template = _template(op, dtype)
    assume(template is not None)
    shape = tuple(data.draw(st.lists(st.integers(0, 4), min_size=0, max_size=3), label="shape"))
    args, ref_args = [], []
    for i, a in enumerate(template.args):
        if not isinstance(a, np.ndarray):
            args.append(a)
            ref_args.append(a)
            continue
        # Each array argument may broadcast: some of its dims are 1, and it may have fewer dims.
        drop = data.draw(st.integers(0, len(shape)), label=f"arg{i} dropped leading dims") if i else 0
        own = tuple(1 if data.draw(st.booleans(), label=f"arg{i} dim{d} is 1") and i else n
                    for d, n in enumerate(shape[drop:]))
        adt = "bool" if a.dtype == np.bool_ else dtype  # a condition or mask stays boolean
        arr = _values(a, own, adt, seed=data.draw(st.integers(0, 2**16), label=f"arg{i} seed"))
        layout = data.draw(layouts(len(own), own != shape[drop:] or (own and 1 in own)), label=f"arg{i} layout")
        if layout == "expanded":
            own_full = shape[drop:]
            t, ref = _to_tensor(arr, adt, layout, own_full)
        else:
            t, ref = _to_tensor(arr, adt, layout, own)
        args.append(t)
        ref_args.append(np.array(ref, copy=True))  # (ascontiguousarray makes 0-dim arrays 1-d)
    note(f"{op.name} dtype={dtype} shapes={[tuple(a.shape) for a in args if isinstance(a, tl.Tensor)]} "
         f"strides={[a.stride() for a in args if isinstance(a, tl.Tensor)]}")
    with np.errstate(all="ignore"):
        try:
            want = op.ref(*ref_args, **template.kwargs)
        except (ValueError, ZeroDivisionError, FloatingPointError, OverflowError):
            assume(False)
    got = resolve(op.name)(*args, **template.kwargs)
    if isinstance(got, tl.Tensor):
        assert got.dtype == getattr(tl, expected_dtype(op, dtype))
    compare(op, dtype, tuple(got) if isinstance(got, tuple) else got, want, f"{op.name} fuzz dtype={dtype}")
