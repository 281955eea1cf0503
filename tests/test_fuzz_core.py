"""Property-based fuzzing (hypothesis) of the tensor core against NumPy and exact math.

Covers creation (torch.tensor from nested lists, factories), chains of view ops
(geometry, values and storage sharing checked after every step, then a write
through the view), copy_/setitem/fill_ and in-place/out= pointwise ops between
strided, expanded (stride 0), overlapping and 0-size views of one small storage
(the memory-overlap errors), Python numbers stored into integer tensors
(range checks) and float16 tensor-by-Python-float arithmetic (op math in float32).

Every expectation is computed with NumPy (or plain integer/float math), so the
test means something without PyTorch; the `requires_torch` tests at the end add
parity with PyTorch where NumPy has no opinion (exact strides of size-1 dims and
0-element views, storage offsets) and check this file's own rules against it.
Where the rules here are deliberately not PyTorch's, the comments say so
(memory overlap of non-dense operands, float(2**63) into int64, float16 + float).

Profiles: the default `ci` is deterministic (derandomize) and bounded (the whole
file takes well under a minute); `TORCHLIKE_FUZZ=long` runs ~20x more examples
with a random seed (a failure prints the seed/blob to reproduce it).
"""
import math
import os
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, event, given, note, settings
from hypothesis import strategies as st

import torchlike as tl
from conftest import requires_torch

# ----------------------------------------------------------------------------
# Profiles

_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile(
    "ci", max_examples=100, deadline=None, derandomize=True, database=None,
    suppress_health_check=_HEALTH, print_blob=True,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink])
settings.register_profile(
    "long", max_examples=2000, deadline=None, derandomize=False, database=None,
    suppress_health_check=_HEALTH, print_blob=True)
PROFILE = os.environ.get("TORCHLIKE_FUZZ", "ci")
_BASE = settings.get_profile(PROFILE)


def fuzz(weight=1.0):
    """The selected profile, with `weight` times its number of examples."""
    return settings(_BASE, max_examples=max(1, int(_BASE.max_examples * weight)))


# ----------------------------------------------------------------------------
# Dtypes

DTYPES = {
    "bool": (tl.bool, np.bool_),
    "uint8": (tl.uint8, np.uint8),
    "int8": (tl.int8, np.int8),
    "int16": (tl.int16, np.int16),
    "int32": (tl.int32, np.int32),
    "int64": (tl.int64, np.int64),
    "float16": (tl.float16, np.float16),
    "float32": (tl.float32, np.float32),
    "float64": (tl.float64, np.float64),
}
ALL = list(DTYPES)
INTS = ["uint8", "int8", "int16", "int32", "int64"]
FLOATS = ["float16", "float32", "float64"]

INTERNAL = "more than one element of the written-to tensor refers to a single memory location"
PARTIAL = "some elements of the input tensor and the written-to tensor refer to a single memory location"
NOT_CONVERTIBLE = "value cannot be converted to type"


def tdt(name):
    return DTYPES[name][0]


def ndt(name):
    return DTYPES[name][1]


def npy(t):
    """A NumPy copy of a torchlike tensor."""
    return np.array(t)


def assert_same(actual, expected, msg=""):
    assert actual.shape == expected.shape, (msg, actual.shape, expected.shape)
    assert actual.dtype == expected.dtype, (msg, actual.dtype, expected.dtype)
    np.testing.assert_array_equal(actual, expected, err_msg=msg)


def prod(shape):
    return int(np.prod(shape, dtype=np.int64))


def shapes(max_dims=3, max_side=4, max_numel=64, min_dims=0, sides=None):
    """Shapes of min_dims..max_dims dims (mostly 2 or more: hypothesis would otherwise favour ())."""
    sides = st.integers(0, max_side) if sides is None else sides
    dims = sorted(range(min_dims, max_dims + 1), key=lambda n: (n < 2, -n if n < 2 else n))
    return st.sampled_from(dims).flatmap(lambda nd: st.tuples(*[sides] * nd)).filter(
        lambda s: prod(s) <= max_numel)


# operand shapes for the overlap tests: 0-size dims stay common, but most operands have elements
operand_shapes = shapes(sides=st.sampled_from([0, 1, 2, 2, 3, 3, 4]))


def small_values(name, n, rng):
    """n values of dtype `name` on which +, -, *, / and every cast are exact."""
    if name == "bool":
        return rng.integers(0, 2, n).astype(np.bool_)
    if name == "uint8":
        return rng.integers(0, 16, n).astype(np.uint8)
    if name in INTS:
        return rng.integers(-8, 9, n).astype(ndt(name))
    return (rng.integers(-16, 17, n) / 2).astype(ndt(name))


# ----------------------------------------------------------------------------
# Strided geometry, in elements, over a flat storage

def addresses(shape, strides, offset):
    """The storage index of every element of a strided view."""
    a = np.full(shape, offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(shape, strides)):
        a = a + (np.arange(n, dtype=np.int64) * s).reshape([-1 if i == d else 1 for i in range(len(shape))])
    return a


def extent(shape, strides):
    if prod(shape) == 0:
        return 0
    return sum((n - 1) * s for n, s in zip(shape, strides))


def np_view(store, shape, strides, offset):
    """A writeable NumPy view of `store` (flat, contiguous) with element strides."""
    isz = store.itemsize
    if prod(shape) == 0:
        return np.empty(shape, store.dtype)
    return np.ndarray(shape, store.dtype, buffer=store, offset=offset * isz, strides=[s * isz for s in strides])


def np_geometry(arr, store):
    """(strides, offset) in elements of a NumPy view of `store`."""
    isz = store.itemsize
    off = (arr.__array_interface__["data"][0] - store.__array_interface__["data"][0]) // isz
    return tuple(s // isz for s in arr.strides), off


def internal_overlap(addr):
    return np.unique(addr).size < addr.size


def expected_overlap_error(out_base, out_addr, inputs):
    """The memory-overlap rule (PyTorch's errors), decided exactly from element addresses.

    out_addr: addresses of the written-to tensor; inputs: (base, addr) of every
    tensor read, addr broadcastable to out_addr. A 0-element tensor overlaps
    nothing; a written-to tensor whose elements share memory raises INTERNAL;
    an input that shares some memory with it raises PARTIAL unless it is the
    very same elements in the same order (a.add_(a), add(a, b, out=a)).

    Stricter than PyTorch 2.13, which only raises when it can tell cheaply: it
    lets non-dense operands through ("too hard": as_strided self-overlap without
    a 0 stride, x.sub_(x[:, :1]), an expanded input over the output) and then
    answers in loop order. torchlike decides these exactly (MemoryOverlap.cpp),
    and so does this test.
    """
    if out_addr.size == 0:
        return None
    if internal_overlap(out_addr):
        return INTERNAL
    for base, addr in inputs:
        if base != out_base or addr.size == 0:
            continue
        if np.array_equal(np.broadcast_to(addr, out_addr.shape), out_addr):
            continue
        if np.intersect1d(addr, out_addr).size:
            return PARTIAL
    return None


class Operand:
    """A view (shape, strides, offset) of storage `base` (0 = the shared one)."""

    def __init__(self, base, shape, strides, offset):
        self.base, self.shape, self.strides, self.offset = base, tuple(shape), tuple(strides), offset
        self.addr = addresses(self.shape, self.strides, self.offset)

    def __repr__(self):
        return f"Operand(base={self.base}, shape={self.shape}, strides={self.strides}, offset={self.offset})"


def fit(shape, strides, nstore):
    strides = list(strides)
    while extent(shape, strides) > nstore - 1:
        d = max((d for d in range(len(shape)) if shape[d] > 1), key=lambda d: strides[d])
        strides[d] -= 1
    return strides


def contiguous_strides(shape):
    strides, s = [0] * len(shape), 1
    for d in reversed(range(len(shape))):
        strides[d] = s
        s *= max(shape[d], 1)
    return strides


def draw_operand(data, shape, prior, nshared, bases, rel=None):
    """Draw a view of `shape`: on the shared storage (related to an earlier
    operand in `prior` so that identical, shifted, transposed, broadcast-row
    and random overlaps all come up) or on a private storage."""
    shape = tuple(shape)
    nd = len(shape)
    same_shape = [p for p in prior if p.base == 0 and p.shape == shape and prod(shape) > 0]
    parents = [p for p in prior if p.base == 0 and prod(p.shape) > 0 and len(p.shape) >= nd
               and all(a in (1, b) for a, b in zip(shape, p.shape[len(p.shape) - nd:]))]
    if rel is None:  # (the related views first: hypothesis favours the front of a sampled_from)
        choices = []
        if any(p.base == 0 and prod(p.shape) > 0 for p in prior):
            choices += ["near"]
        if parents:
            choices += ["sub"]
        if same_shape:
            choices += ["shift", "perm", "same"]
        choices += ["random", "contiguous", "private"]
        rel = data.draw(st.sampled_from(choices), label="relation")
    if rel == "same" and same_shape:
        p = data.draw(st.sampled_from(same_shape))
        return Operand(0, shape, p.strides, p.offset)
    if rel == "shift" and same_shape:
        p = data.draw(st.sampled_from(same_shape))
        ext = extent(shape, p.strides)
        offs = [o for o in range(p.offset - 3, p.offset + 4) if o != p.offset and 0 <= o <= nshared - 1 - ext]
        if offs:
            return Operand(0, shape, p.strides, data.draw(st.sampled_from(offs)))
    if rel == "perm" and same_shape:
        p = data.draw(st.sampled_from(same_shape))
        perm = data.draw(st.permutations(range(nd)))
        if all(shape[i] == shape[j] for i, j in enumerate(perm)):
            return Operand(0, shape, [p.strides[j] for j in perm], p.offset)
        return Operand(0, shape, p.strides[::-1] if len(set(shape)) <= 1 else p.strides, p.offset)
    if rel == "sub" and parents:
        p = data.draw(st.sampled_from(parents))
        lead = len(p.shape) - nd
        strides, off = list(p.strides[lead:]), p.offset
        for i in range(lead):  # pick one row along the dims the input does not have
            off += data.draw(st.integers(0, p.shape[i] - 1)) * p.strides[i]
        for i in range(nd):
            if shape[i] == 1 and p.shape[lead + i] > 1:
                off += data.draw(st.integers(0, p.shape[lead + i] - 1)) * p.strides[lead + i]
        return Operand(0, shape, strides, off)
    if rel == "near":  # random strides, starting inside (or just before) an earlier operand
        p = data.draw(st.sampled_from([p for p in prior if p.base == 0 and prod(p.shape) > 0]))
        strides = fit(shape, data.draw(st.lists(st.integers(0, 4), min_size=nd, max_size=nd)), nshared)
        ext = extent(shape, strides)
        lo, hi = max(0, p.offset - ext), min(nshared - 1 - ext, p.offset + extent(p.shape, p.strides))
        if lo <= p.offset <= hi:
            return Operand(0, shape, strides, p.offset + data.draw(st.integers(lo - p.offset, hi - p.offset)))
        rel = "random"
    if rel == "private":
        bid = len(bases) + 1
        while bid in bases:
            bid += 1
        strides = contiguous_strides(shape)
        if nd >= 2 and data.draw(st.booleans()):
            perm = data.draw(st.permutations(range(nd)))
            strides = [0] * nd
            s = 1
            for d in reversed(perm):
                strides[d] = s
                s *= max(shape[d], 1)
        nstore = extent(shape, strides) + 1 + data.draw(st.integers(0, 2))
        bases[bid] = nstore
        off = data.draw(st.integers(0, nstore - 1 - extent(shape, strides)))
        return Operand(bid, shape, strides, off)
    if rel == "contiguous":
        strides = contiguous_strides(shape)
        gap = data.draw(st.sampled_from([1, 1, 2]))
        strides = fit(shape, [s * gap for s in strides], nshared)
    else:
        strides = fit(shape, data.draw(st.lists(st.integers(0, 4), min_size=nd, max_size=nd)), nshared)
    off = data.draw(st.integers(0, nshared - 1 - extent(shape, strides)))
    return Operand(0, shape, strides, off)


def broadcast_source_shape(data, shape):
    """A shape that broadcasts to `shape` (leading dims dropped, some dims 1)."""
    nd = len(shape)
    keep = nd - data.draw(st.integers(0, nd))
    return tuple(1 if data.draw(st.integers(0, 3)) == 3 else n for n in shape[nd - keep:])


class Storages:
    """The NumPy and torchlike copies of every storage of one example."""

    def __init__(self, sizes, dtypes, rng):
        self.np = {b: small_values(dtypes[b], n, rng) for b, n in sizes.items()}
        self.tl = {b: tl.tensor(a) for b, a in self.np.items()}
        self.dtypes = dtypes

    def np_of(self, op):
        return np_view(self.np[op.base], op.shape, op.strides, op.offset)

    def tl_of(self, op):
        t = self.tl[op.base].as_strided(op.shape, op.strides, op.offset)
        assert tuple(t.stride()) == op.strides and t.storage_offset() == op.offset, (op, t.stride(), t.storage_offset())
        return t

    def check(self, msg=""):
        for b, a in self.np.items():
            assert_same(npy(self.tl[b]), a, f"storage {b} {msg}")


def expect(err, fn, storages):
    """Run fn; when err is set it must raise that RuntimeError and write nothing."""
    if err is None:
        fn()
    else:
        before = {b: a.copy() for b, a in storages.np.items()}
        with pytest.raises(RuntimeError, match=re.escape(err)):
            fn()
        for b, a in before.items():
            assert_same(npy(storages.tl[b]), a, f"storage {b} changed by a refused write")


# ----------------------------------------------------------------------------
# 1. Creation

def nest(flat, shape):
    if not shape:
        return flat[0]
    if shape[0] == 0:
        return []
    n = len(flat) // shape[0] if shape[0] else 0
    return [nest(flat[i * n:(i + 1) * n], shape[1:]) for i in range(shape[0])]


def elements(name):
    if name == "bool":
        return st.booleans()
    if name in INTS:
        info = np.iinfo(ndt(name))
        return st.integers(int(info.min), int(info.max))
    if name == "float16":
        # float32-representable values (double -> float16 directly and through float32 agree)
        return st.one_of(st.floats(-65504, 65504, width=32), st.sampled_from([math.inf, -math.inf, math.nan]),
                         st.integers(-2048, 2048))
    if name == "float32":
        return st.one_of(st.floats(width=32), st.integers(-2**24, 2**24))
    return st.one_of(st.floats(), st.integers(-2**53, 2**53))


@fuzz(1)
@given(data=st.data())
def test_tensor_from_nested_lists(data):
    shape = data.draw(shapes(max_dims=4, max_numel=48), label="shape")
    name = data.draw(st.sampled_from([None] + ALL), label="dtype")
    n = prod(shape)
    if name is None:
        kind = data.draw(st.sampled_from(["bool", "int", "float", "int+bool", "float+int"]))
        elem = {"bool": st.booleans(), "int": st.integers(-2**63, 2**63 - 1),
                "float": st.floats(width=32), "int+bool": st.one_of(st.booleans(), st.integers(-100, 100)),
                "float+int": st.one_of(st.floats(width=32), st.integers(-2**24, 2**24))}[kind]
    else:
        elem = elements(name)
    flat = data.draw(st.lists(elem, min_size=n, max_size=n), label="values")
    lst = nest(flat, shape)
    if name is None:
        if any(isinstance(v, float) for v in flat) or not flat:
            exp_name = "float32"
        elif all(isinstance(v, bool) for v in flat):
            exp_name = "bool"
        else:
            exp_name = "int64"
        t = tl.tensor(lst)
    else:
        exp_name = name
        t = tl.tensor(lst, dtype=tdt(name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = np.array(lst, dtype=ndt(exp_name))
    assert t.dtype == tdt(exp_name)
    assert tuple(t.shape) == expected.shape
    assert t.is_contiguous()
    assert_same(npy(t), expected)


@fuzz(1)
@given(data=st.data())
def test_factories(data):
    kind = data.draw(st.sampled_from(["zeros", "ones", "full", "empty_strided", "arange", "eye", "new_full"]),
                     label="factory")
    name = data.draw(st.sampled_from([None] + ALL), label="dtype")
    kw = {} if name is None else {"dtype": tdt(name)}
    shape = data.draw(shapes(max_dims=4, max_numel=48), label="shape")

    def value(dname):
        if dname == "bool":
            return data.draw(st.booleans(), label="value")
        if dname in INTS:
            info = np.iinfo(ndt(dname))
            return data.draw(st.integers(int(info.min), int(info.max)), label="value")
        halves = st.floats(-2048, 2048).map(lambda v: float(np.float16(v)))  # exact in every float dtype
        return data.draw(st.one_of(st.integers(-2048, 2048), halves), label="value")

    if kind in ("zeros", "ones"):
        fn = getattr(tl, kind)
        t = fn(*shape, **kw) if shape and data.draw(st.booleans()) else fn(shape, **kw)
        expected = getattr(np, kind)(shape, ndt(name or "float32"))
    elif kind == "full":
        v = value(name or data.draw(st.sampled_from(["bool", "int64", "float32"])))
        inferred = "bool" if isinstance(v, bool) else "int64" if isinstance(v, int) else "float32"
        t = tl.full(shape, v, **kw)
        expected = np.full(shape, v, ndt(name or inferred))
    elif kind == "new_full":
        src = data.draw(st.sampled_from(ALL))
        v = value(src)
        t = tl.zeros(2, dtype=tdt(src)).new_full(shape, v)
        expected = np.full(shape, v, ndt(src))
    elif kind == "empty_strided":
        strides = tuple(data.draw(st.integers(0, 6)) for _ in shape)
        dname = name or "float32"
        v = value(dname)
        t = tl.empty_strided(shape, strides, **kw)
        assert tuple(t.stride()) == strides and t.storage_offset() == 0
        assert tuple(t.shape) == shape
        # fill_ writes one value, so it is defined (and allowed) on overlapping elements too
        t.fill_(v)
        expected = np.full(shape, v, ndt(dname))
    elif kind == "eye":
        n = data.draw(st.integers(0, 6))
        m = data.draw(st.one_of(st.none(), st.integers(0, 6)))
        t = tl.eye(n, **kw) if m is None else tl.eye(n, m, **kw)
        expected = np.eye(n, m, dtype=ndt(name or "float32"))
    else:  # arange, with exact values: integers, or multiples of 0.5
        if name == "bool":
            name, kw = None, {}
        floaty = name not in INTS and data.draw(st.booleans())
        num = st.integers(-16, 16).map(lambda k: k / 2) if floaty else st.integers(0 if name == "uint8" else -8, 8)
        start, end = data.draw(num, label="start"), data.draw(num, label="end")
        step = data.draw(num.filter(lambda s: s != 0), label="step")
        args = data.draw(st.sampled_from([(end,), (start, end), (start, end, step)]), label="args")
        a_start, a_end, a_step = {1: (0, end, 1), 2: (start, end, 1), 3: (start, end, step)}[len(args)]
        dname = name or ("float32" if floaty else "int64")
        if (a_step > 0 and a_end < a_start) or (a_step < 0 and a_end > a_start):
            # PyTorch refuses a range that runs away from `end` (NumPy gives an empty array)
            with pytest.raises(RuntimeError):
                tl.arange(*args, **kw)
            return
        t = tl.arange(*args, **kw)
        assert t.dtype == tdt(dname)
        expected = np.arange(a_start, a_end, a_step, dtype=np.float64).astype(ndt(dname))
    assert tuple(t.shape) == expected.shape
    assert t.is_contiguous() or kind == "empty_strided"
    assert_same(npy(t), expected)


# ----------------------------------------------------------------------------
# 2. Chains of view ops

def wrap(d, nd):
    return d % nd if nd else 0


def np_index(arr, idx):
    """arr[idx] as a view (NumPy returns a scalar when ints index every dim; a trailing Ellipsis does not)."""
    idx = idx if isinstance(idx, tuple) else (idx,)
    return arr[idx if Ellipsis in idx else idx + (Ellipsis,)]


def draw_index(data, shape):
    """A basic index (ints, slices with steps, None, Ellipsis) valid for shape."""
    nd = len(shape)

    def item(n):
        choices = [st.builds(slice, st.one_of(st.none(), st.integers(-6, 6)), st.one_of(st.none(), st.integers(-6, 6)),
                             st.sampled_from([None, 1, 1, 2, 3]))]
        if n > 0:
            choices.append(st.integers(-n, n - 1))
        return data.draw(st.one_of(*choices))

    use_ellipsis = data.draw(st.booleans())
    front = data.draw(st.integers(0, nd))
    back = data.draw(st.integers(0, nd - front)) if use_ellipsis else 0
    items = [item(shape[d]) for d in range(front)]
    tail = [item(shape[nd - back + d]) for d in range(back)]
    if use_ellipsis:
        items = items + [Ellipsis] + tail
    for _ in range(data.draw(st.integers(0, 2))):
        items.insert(data.draw(st.integers(0, len(items))), None)
    if len(items) == 1 and data.draw(st.booleans()):
        return items[0]
    return tuple(items)


def draw_shape_like(data, numel, allow_neg1=True, allow_scalar=True):
    """A shape with `numel` elements, possibly with one -1."""
    if numel == 0:
        shape = list(data.draw(st.lists(st.integers(0, 4), min_size=0, max_size=3)))
        shape.insert(data.draw(st.integers(0, len(shape))), 0)
        return tuple(shape)
    factors, n, p = [], numel, 2
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    factors = data.draw(st.permutations(factors)) if factors else []
    nd = data.draw(st.integers(1, 4))
    shape = [1] * nd
    for f in factors:
        shape[data.draw(st.integers(0, nd - 1))] *= f
    if allow_neg1 and data.draw(st.booleans()):
        shape[data.draw(st.integers(0, nd - 1))] = -1
    if allow_scalar and nd == 1 and shape == [1] and data.draw(st.booleans()):
        return ()
    return tuple(shape)


def draw_view_op(data, shape, nstore, cur_offset):
    """A view op valid for `shape`; cur_offset: the view's storage offset when known."""
    nd = len(shape)
    n = prod(shape)
    kinds = ["getitem", "unsqueeze", "expand", "broadcast_to", "view", "reshape", "flatten", "as_strided", "detach"]
    if nd >= 1:
        kinds += ["select", "narrow", "transpose", "permute", "movedim", "squeeze", "unfold", "split", "unbind",
                  "unflatten", "swapaxes"]
    if nd >= 2:
        kinds += ["diagonal", "mT"]
    if nd <= 2:
        kinds += ["t"]
    kind = data.draw(st.sampled_from(kinds), label="op")
    dim = st.integers(-nd, nd - 1) if nd else st.just(0)
    if kind == "getitem":
        return ("getitem", draw_index(data, shape))
    if kind == "select":
        dims = [d for d in range(nd) if shape[d] > 0]
        if not dims:
            return ("detach",)
        d = data.draw(st.sampled_from(dims))
        return ("select", d - nd * data.draw(st.integers(0, 1)), data.draw(st.integers(-shape[d], shape[d] - 1)))
    if kind == "unbind":
        d = data.draw(dim)
        if shape[wrap(d, nd)] == 0:
            return ("detach",)
        return ("unbind", d, data.draw(st.integers(0, shape[wrap(d, nd)] - 1)))
    if kind == "narrow":
        d = data.draw(dim)
        size = shape[wrap(d, nd)]
        start = data.draw(st.integers(-size, size))
        ps = start + size if start < 0 else start
        return ("narrow", d, start, data.draw(st.integers(0, size - ps)))
    if kind in ("transpose", "swapaxes"):
        return (kind, data.draw(dim), data.draw(dim))
    if kind == "permute":
        perm = data.draw(st.permutations(range(nd)))
        return ("permute", tuple(p - nd * data.draw(st.integers(0, 1)) for p in perm))
    if kind == "movedim":
        return ("movedim", data.draw(dim), data.draw(dim))
    if kind == "squeeze":
        form = data.draw(st.sampled_from(["all", "dim", "dims"]))
        if form == "all":
            return ("squeeze", None)
        if form == "dim":
            return ("squeeze", data.draw(dim))
        return ("squeeze", tuple(data.draw(st.lists(st.integers(0, nd - 1), max_size=nd, unique=True))))
    if kind == "unsqueeze":
        return ("unsqueeze", data.draw(st.integers(-nd - 1, nd)))
    if kind in ("expand", "broadcast_to"):
        new = [data.draw(st.integers(0, 3)) for _ in range(data.draw(st.integers(0, 2)))]
        old = [data.draw(st.sampled_from([-1, 0, 1, 2, 3])) if s == 1 else data.draw(st.sampled_from([-1, s]))
               for s in shape]
        sizes = tuple(new + old)
        final = tuple(new) + tuple(s if o == -1 else o for s, o in zip(shape, old))
        if prod(final) > 256:
            return ("detach",)
        return (kind, sizes)
    if kind in ("view", "reshape"):
        return (kind, draw_shape_like(data, n))
    if kind == "flatten":
        if nd == 0:
            return ("flatten", 0, -1)
        a, b = sorted([data.draw(st.integers(0, nd - 1)), data.draw(st.integers(0, nd - 1))])
        return ("flatten", a, b - nd * data.draw(st.integers(0, 1)))
    if kind == "unflatten":
        d = data.draw(dim)
        return ("unflatten", d, draw_shape_like(data, shape[wrap(d, nd)], allow_neg1=shape[wrap(d, nd)] > 0,
                                                 allow_scalar=False))
    if kind == "as_strided":
        size = data.draw(shapes(max_dims=3, max_side=4), label="as_strided size")
        strides = [data.draw(st.integers(0, 5)) for _ in size]
        if nstore == 0:
            size = (0,) + size[1:] if size else (0,)
            strides = strides or [1]
        if cur_offset is not None and data.draw(st.booleans()):  # keep the current storage offset
            return ("as_strided", tuple(size), tuple(fit(size, strides, max(nstore - cur_offset, 1))), None)
        strides = fit(size, strides, max(nstore, 1))
        ext = extent(size, strides)
        return ("as_strided", tuple(size), tuple(strides), data.draw(st.integers(0, max(nstore - 1 - ext, 0))))
    if kind == "diagonal":
        d1 = data.draw(dim)
        d2 = data.draw(dim.filter(lambda d: wrap(d, nd) != wrap(d1, nd)))
        return ("diagonal", data.draw(st.integers(-4, 4)), d1, d2)
    if kind == "unfold":
        d = data.draw(dim)
        return ("unfold", d, data.draw(st.integers(0, shape[wrap(d, nd)])), data.draw(st.integers(1, 3)))
    if kind == "split":
        d = data.draw(dim)
        k = data.draw(st.integers(1, 4))
        chunks = max(1, -(-shape[wrap(d, nd)] // k))
        return ("split", k, d, data.draw(st.integers(0, chunks - 1)))
    return (kind,)


def apply_op(t, op, lib):
    """Apply a view op to a torchlike (lib=tl) or torch (lib=torch) tensor."""
    k = op[0]
    if k == "getitem":
        return t[op[1]]
    if k == "select":
        return t.select(op[1], op[2])
    if k == "unbind":
        return t.unbind(op[1])[op[2]]
    if k == "narrow":
        return t.narrow(op[1], op[2], op[3])
    if k == "transpose":
        return t.transpose(op[1], op[2])
    if k == "swapaxes":
        return t.swapaxes(op[1], op[2])
    if k == "permute":
        return t.permute(*op[1])
    if k == "movedim":
        return t.movedim(op[1], op[2])
    if k == "squeeze":
        return t.squeeze() if op[1] is None else t.squeeze(op[1])
    if k == "unsqueeze":
        return t.unsqueeze(op[1])
    if k == "expand":
        return t.expand(*op[1]) if op[1] else t.expand(op[1])
    if k == "broadcast_to":
        return lib.broadcast_to(t, op[1])
    if k == "view":
        return t.view(*op[1]) if op[1] else t.view(())
    if k == "reshape":
        return t.reshape(op[1])
    if k == "flatten":
        return t.flatten(op[1], op[2])
    if k == "unflatten":
        return t.unflatten(op[1], op[2])
    if k == "as_strided":
        return t.as_strided(op[1], op[2]) if op[3] is None else t.as_strided(op[1], op[2], op[3])
    if k == "diagonal":
        return t.diagonal(op[1], op[2], op[3])
    if k == "unfold":
        return t.unfold(op[1], op[2], op[3])
    if k == "split":
        return t.split(op[1], op[2])[op[3]]
    if k == "t":
        return t.t()
    if k == "mT":
        return t.mT
    assert k == "detach"
    return t.detach()


def np_apply(a, op, store, cur_offset):
    """The NumPy mirror of a view op: ("view", arr), ("copy", arr) or ("error", None)."""
    k, nd = op[0], a.ndim

    def at(d, idx):  # (a trailing Ellipsis keeps NumPy from returning a scalar instead of a 0-d view)
        return a[(slice(None),) * wrap(d, nd) + (idx, Ellipsis)]

    def reshape(shape):
        try:
            return "view", np.reshape(a, shape, copy=False)
        except ValueError:
            return "copy", np.reshape(a, shape, copy=True)

    if k == "getitem":
        return "view", np_index(a, op[1])
    if k in ("select", "unbind"):
        return "view", at(op[1], op[2])
    if k == "narrow":
        size = a.shape[wrap(op[1], nd)]
        s = op[2] + size if op[2] < 0 else op[2]
        return "view", at(op[1], slice(s, s + op[3]))
    if k in ("transpose", "swapaxes"):
        return "view", np.swapaxes(a, op[1], op[2]) if nd else a
    if k == "permute":
        return "view", np.transpose(a, [wrap(p, nd) for p in op[1]])
    if k == "movedim":
        return "view", np.moveaxis(a, op[1], op[2]) if nd else a
    if k == "squeeze":
        if op[1] is None:
            return "view", np.squeeze(a)
        dims = op[1] if isinstance(op[1], tuple) else (op[1],)
        dims = tuple(wrap(d, nd) for d in dims if nd and a.shape[wrap(d, nd)] == 1)
        return "view", np.squeeze(a, dims) if dims else a
    if k == "unsqueeze":
        return "view", np.expand_dims(a, op[1])
    if k in ("expand", "broadcast_to"):
        sizes = op[1]
        lead = len(sizes) - nd
        final = tuple(sizes[:lead]) + tuple(s if o == -1 else o for s, o in zip(a.shape, sizes[lead:]))
        return "view", np.broadcast_to(a, final)
    if k == "view":
        if a.size == 0 and -1 in op[1]:
            return "error", None
        kind, r = reshape(op[1])
        return ("view", r) if kind == "view" else ("error", None)
    if k == "reshape":
        if a.size == 0 and -1 in op[1]:
            return "error", None
        return reshape(op[1])
    if k == "flatten":
        if nd == 0:
            return "view", a.reshape(1)
        s, e = wrap(op[1], nd), wrap(op[2], nd)
        if s == e:
            return "view", a
        return reshape(a.shape[:s] + (prod(a.shape[s:e + 1]),) + a.shape[e + 1:])
    if k == "unflatten":
        d = wrap(op[1], nd)
        sizes = list(op[2])
        if -1 in sizes:
            sizes[sizes.index(-1)] = a.shape[d] // prod([x for x in sizes if x != -1])
        return "view", np.reshape(a, a.shape[:d] + tuple(sizes) + a.shape[d + 1:], copy=False)
    if k == "as_strided":
        off = cur_offset if op[3] is None else op[3]
        return "view", np_view(store, op[1], op[2], off)
    if k == "diagonal":
        return "view", np.diagonal(a, op[1], op[2], op[3])
    if k == "unfold":
        d = wrap(op[1], nd)
        w = np.lib.stride_tricks.sliding_window_view(a, op[2], axis=d)
        return "view", w[(slice(None),) * d + (slice(None, None, op[3]),)]
    if k == "split":
        size, d, i = op[1], op[2], op[3]
        return "view", at(d, slice(i * size, (i + 1) * size))
    if k == "t":
        return "view", a.T
    if k == "mT":
        return "view", np.swapaxes(a, -1, -2)
    return "view", a


@fuzz(3)
@given(data=st.data())
def test_view_chain(data):
    name = data.draw(st.sampled_from(["float32", "float64", "int64", "int16", "uint8", "bool", "float16"]),
                     label="dtype")
    npdt = ndt(name)
    shape0 = data.draw(shapes(max_dims=4, max_numel=48), label="shape0")
    lo, hi = data.draw(st.integers(0, 4), label="pad_lo"), data.draw(st.integers(0, 4), label="pad_hi")
    n0 = prod(shape0)
    store = (np.arange(lo + n0 + hi) % 3 == 1) if name == "bool" else np.arange(lo + n0 + hi).astype(npdt)
    tbase = tl.tensor(store)
    isz = store.itemsize
    a = store[lo:lo + n0].reshape(shape0)
    t = tbase[lo:lo + n0].view(shape0)
    chain = []
    for _ in range(data.draw(st.integers(1, 6), label="length")):
        off = np_geometry(a, store)[1] if a.size else None  # a 0-element `a` is not tied to `store`
        op = draw_view_op(data, a.shape, store.size, off)
        chain.append(op)
        note(f"chain: {chain}")
        kind, r = np_apply(a, op, store, off)
        if kind == "error":
            with pytest.raises(RuntimeError):
                apply_op(t, op, tl)
            continue
        t = apply_op(t, op, tl)
        # (locals only in asserts: a failing assert must not repr a tensor with a corrupt geometry)
        got_shape, got_strides, got_offset = tuple(t.shape), tuple(t.stride()), t.storage_offset()
        assert got_shape == r.shape, (op, got_shape, r.shape)
        got_dtype = t.dtype
        assert got_dtype == tdt(name)
        assert_same(npy(t), np.array(r), f"values after {op}")
        got_contiguous = t.is_contiguous()
        assert got_contiguous == r.flags.c_contiguous, (op, got_strides)
        if kind == "copy":  # reshape/flatten of a non-viewable layout: a new contiguous tensor
            assert got_offset == 0
            if r.size:
                p, b = t.data_ptr(), tbase.data_ptr()
                assert not b <= p < b + store.size * isz, "reshape copy aliases its input"
            store = np.array(r).reshape(-1)
            tbase = t
            a = store.reshape(r.shape)
            continue
        if r.size == 0:
            a = np.empty(r.shape, npdt)
            continue
        rs, roff = np_geometry(r, store)
        assert got_offset == roff, (op, got_offset, roff)
        for d in range(r.ndim):
            if r.shape[d] > 1:
                assert got_strides[d] == rs[d], (op, got_strides, rs)
        p, b = t.data_ptr(), tbase.data_ptr()
        assert p == b + roff * isz, "not a view of the same storage"
        a = np_view(store, r.shape, rs, roff)
    if a.size == 0:
        return
    # Write through the view; the base must change exactly like NumPy's.
    rs, roff = np_geometry(a, store)
    overlapping = internal_overlap(addresses(a.shape, rs, roff))
    how = data.draw(st.sampled_from(["fill_", "copy_", "setitem", "add_"]), label="write")
    if how == "add_" and name == "bool":
        how = "fill_"
    src = np.arange(a.size).reshape(a.shape)
    src = (src % 2 == 0) if name == "bool" else (src + 100).astype(npdt)
    note(f"write: {how}, overlapping={overlapping}")
    if how == "fill_":
        v = True if name == "bool" else 77
        t.fill_(v)
        a[...] = v
    elif overlapping:
        with pytest.raises(RuntimeError, match=INTERNAL):
            {"copy_": lambda: t.copy_(tl.tensor(src)), "setitem": lambda: t.__setitem__(Ellipsis, tl.tensor(src)),
             "add_": lambda: t.add_(1)}[how]()
    elif how == "copy_":
        t.copy_(tl.tensor(src))
        a[...] = src
    elif how == "setitem":
        t[...] = tl.tensor(src)
        a[...] = src
    else:
        t.add_(1)
        a += npdt(1)
    assert_same(npy(tbase).reshape(-1), store, "base after writing through the view")


# ----------------------------------------------------------------------------
# 3. copy_, setitem and fill_ between views of one storage

NSHARED = 36


@fuzz(3)
@given(data=st.data())
def test_copy_setitem_fill(data):
    dname = data.draw(st.sampled_from(ALL), label="dst dtype")
    form = data.draw(st.sampled_from(["copy_", "copy_", "setitem", "setitem", "setitem_scalar", "fill_"]), label="form")
    bases = {0: NSHARED}
    if form == "copy_":
        dst = draw_operand(data, data.draw(operand_shapes, label="dst shape"), [], NSHARED, bases)
        written, idx = dst, None
    else:
        parent = draw_operand(data, data.draw(operand_shapes, label="parent shape"), [], NSHARED, bases)
        dst = parent
        idx = draw_index(data, parent.shape) if form != "fill_" else None
        if idx is not None:
            sub = np_index(addresses(parent.shape, parent.strides, parent.offset), idx)
            probe = np_index(np_view(np.zeros(NSHARED + 64, np.int8), parent.shape, parent.strides, parent.offset), idx)
            strides = tuple(probe.strides) if sub.size else (0,) * sub.ndim
            written = Operand(parent.base, sub.shape, strides, int(sub.flat[0]) if sub.size else 0)
            assert np.array_equal(written.addr, sub)
        else:
            written = parent
    src = None
    sname = dname
    if form in ("copy_", "setitem"):
        sshape = broadcast_source_shape(data, written.shape)
        src = draw_operand(data, sshape, [written] + ([dst] if dst is not written else []), NSHARED, bases)
        if src.base != 0 and data.draw(st.booleans()):
            sname = data.draw(st.sampled_from(ALL), label="src dtype")
    dtypes = {b: (sname if b == (src.base if src is not None else -1) and b != 0 else dname) for b in bases}
    note(f"form={form} dst={dst} idx={idx!r} written={written} src={src} dtypes={dtypes}")
    S = Storages(bases, dtypes, np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed")))
    td = S.tl_of(dst)
    nd = S.np_of(dst)
    scalar = None
    if form in ("setitem_scalar", "fill_"):
        scalar = (data.draw(st.booleans()) if dname == "bool" else
                  data.draw(st.integers(0, 15)) if dname in INTS else data.draw(st.integers(-8, 8)) / 2)
    if form == "fill_":
        # fill_ stores one value: defined (and allowed, as in PyTorch) on overlapping elements
        err = None
    else:
        err = expected_overlap_error(written.base, written.addr, [(src.base, src.addr)] if src is not None else [])
    note(f"expected error: {err}")
    event(f"{form}: {'ok' if err is None else err[:20]}")
    if form == "copy_":
        ts = S.tl_of(src)
        expect(err, lambda: td.copy_(ts), S)
    elif form == "setitem":
        ts = S.tl_of(src)
        expect(err, lambda: td.__setitem__(idx, ts), S)
    elif form == "setitem_scalar":
        expect(err, lambda: td.__setitem__(idx, scalar), S)
    else:
        td.fill_(scalar)
    if err is None:
        target = nd if idx is None else np_index(nd, idx)
        if src is not None:
            value = S.np_of(src).copy()
        else:
            value = np.array(scalar, dtype=ndt(dname))
        if target.size:
            np.copyto(target, value, casting="unsafe")
        S.check(f"after {form}")


# ----------------------------------------------------------------------------
# 4. In-place pointwise ops and out= between views of one storage

BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide, "maximum": np.maximum}


def np_pointwise(name, dname, x, y=None, alpha=None, lo=None, hi=None):
    npdt = ndt(dname)
    comp = np.float32 if dname == "float16" else npdt  # float16 computes in float32 (op math), then rounds
    x = np.asarray(x).astype(comp)
    if y is not None:
        y = np.asarray(y).astype(comp) if isinstance(y, np.ndarray) else comp(y)
    with np.errstate(all="ignore"):
        if name == "neg":
            r = np.negative(x)
        elif name == "clamp":
            r = np.minimum(np.maximum(x, comp(lo)), comp(hi))
        else:
            if alpha is not None:
                y = y * comp(alpha)
            r = BINARY[name](x, y)
    return np.asarray(r).astype(npdt)


@fuzz(3)
@given(data=st.data())
def test_pointwise_inplace_and_out(data):
    dname = data.draw(st.sampled_from(["int8", "uint8", "int16", "int32", "int64", "float16", "float32", "float64"]),
                      label="dtype")
    ops = ["add", "sub", "mul", "neg", "clamp"] + (["div"] if dname in FLOATS else [])
    opname = data.draw(st.sampled_from(ops), label="op")
    forms = ["inplace", "out"] + ([] if opname in ("neg", "clamp") else ["inplace", "maximum_out"])
    form = data.draw(st.sampled_from(forms), label="form")
    if form == "maximum_out":
        opname, form = "maximum", "out"
    unary = opname in ("neg", "clamp")
    other_kind = "none" if unary else data.draw(st.sampled_from(["tensor", "self", "tensor", "scalar", "tensor"]),
                                                label="other")
    if opname == "maximum" and other_kind == "scalar":
        other_kind = "tensor"
    alpha = None
    if opname in ("add", "sub") and other_kind != "scalar" and data.draw(st.booleans()):
        alpha = data.draw(st.integers(0 if dname == "uint8" else -3, 3))
    bases = {0: NSHARED}
    shape = data.draw(operand_shapes, label="shape")
    if form == "inplace":
        out = draw_operand(data, shape, [], NSHARED, bases)
        a = out
        bshape = broadcast_source_shape(data, shape)
    else:
        ashape = broadcast_source_shape(data, shape) if data.draw(st.booleans()) else shape
        bshape = broadcast_source_shape(data, shape)
        oshape = np.broadcast_shapes(ashape, bshape) if other_kind == "tensor" else ashape
        out = draw_operand(data, oshape, [], NSHARED, bases)
        a = draw_operand(data, ashape, [out], NSHARED, bases)
    b = None
    if other_kind == "tensor":
        b = draw_operand(data, bshape, [out, a], NSHARED, bases)
    elif other_kind == "self":
        b = a
    scalar = lo = hi = None
    if other_kind == "scalar":
        scalar = data.draw(st.integers(0, 15) if dname == "uint8" else st.integers(-8, 8))
        if dname in FLOATS:
            scalar = scalar / 2
    if opname == "clamp":
        r = st.integers(0, 15) if dname == "uint8" else st.integers(-8, 8)
        lo, hi = data.draw(r), data.draw(r)
        if dname in FLOATS:
            lo, hi = lo / 2, hi / 2
    note(f"{form} {opname} out={out} a={a} b={b} other={other_kind} scalar={scalar} alpha={alpha} lo={lo} hi={hi}")
    S = Storages(bases, {k: dname for k in bases},
                 np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed")))
    ta = S.tl_of(a)
    to = ta if form == "inplace" else S.tl_of(out)
    tb = ta if other_kind == "self" else S.tl_of(b) if b is not None else scalar
    kw = {} if alpha is None else {"alpha": alpha}
    inputs = [(a.base, a.addr)] + ([(b.base, b.addr)] if b is not None else [])
    err = expected_overlap_error(out.base, out.addr, inputs)
    note(f"expected error: {err}")
    event(f"{form}: {'ok' if err is None else err[:20]}")
    if err is None and any(base == out.base and np.intersect1d(addr, out.addr).size
                           for base, addr in inputs[form == "inplace":]):
        event(f"{form}: ok, the written-to tensor is also read through another view")
    # expected values, from copies of the inputs
    xa = S.np_of(a).copy()
    xb = S.np_of(b).copy() if b is not None else scalar
    if opname == "neg":
        expected = np_pointwise("neg", dname, xa)
    elif opname == "clamp":
        expected = np_pointwise("clamp", dname, xa, lo=lo, hi=hi)
    else:
        expected = np_pointwise(opname, dname, xa, xb, alpha=alpha)

    def run():
        if form == "inplace":
            if opname == "neg":
                return ta.neg_()
            if opname == "clamp":
                return ta.clamp_(lo, hi)
            return getattr(ta, opname + "_")(tb, **kw)
        if opname == "neg":
            return tl.neg(ta, out=to)
        if opname == "clamp":
            return tl.clamp(ta, lo, hi, out=to)
        return getattr(tl, opname)(ta, tb, out=to, **kw)

    expect(err, run, S)
    if err is None:
        target = S.np_of(out)
        if target.size:
            target[...] = expected
        S.check(f"after {form} {opname}")


# ----------------------------------------------------------------------------
# 5. Python numbers stored into integer tensors

def int_conversion(v, dname):
    """The stored value, or None when PyTorch refuses the number.

    ints: in range for the dtype (uint8 also takes -255..-1, wrapping like
    two's complement, as PyTorch does); floats: finite, within [min, max] of the
    dtype (uint8: [0, 255]), truncated toward zero; bools: 0/1."""
    info = np.iinfo(ndt(dname))
    lo, hi = int(info.min), int(info.max)
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        if dname == "uint8":
            return v % 256 if -255 <= v <= 255 else None
        return v if lo <= v <= hi else None
    if math.isnan(v) or math.isinf(v) or v < lo or v > hi:
        return None
    return int(v)


def store_number(path, v, t_dtype, lib):
    """Store Python number v into a tensor of dtype t_dtype along one path; returns the stored value."""
    if path == "tensor":
        return lib.tensor([v], dtype=t_dtype)[0].item()
    if path == "tensor_0d":
        return lib.tensor(v, dtype=t_dtype).item()
    if path == "full":
        return lib.full((2,), v, dtype=t_dtype)[1].item()
    if path == "fill_":
        return lib.zeros(2, dtype=t_dtype).fill_(v)[1].item()
    if path == "setitem_int":
        x = lib.zeros(3, dtype=t_dtype)
        x[1] = v
        return x[1].item()
    assert path == "setitem_slice"
    x = lib.zeros(3, dtype=t_dtype)
    x[1:] = v
    return x[2].item()


NUMBER_PATHS = ["tensor", "tensor_0d", "full", "fill_", "setitem_int", "setitem_slice"]


def numbers(dname):
    info = np.iinfo(ndt(dname))
    lo, hi = int(info.min), int(info.max)
    edges = [lo - 1, lo, hi, hi + 1, -hi, -hi - 1, -hi - 2, 2 * hi + 1, -1, 0]
    ints = st.one_of(st.sampled_from([e for e in edges if -2**63 <= e < 2**63]),
                     st.integers(lo - 300, hi + 300).filter(lambda x: -2**63 <= x < 2**63),
                     st.integers(-2**63, 2**63 - 1))
    fedges = [lo - 1.0, lo - 0.5, float(lo), hi + 0.0, hi + 0.5, hi + 1.0, -0.5, 0.5, -1.0, -255.0, -256.0,
              math.nan, math.inf, -math.inf]
    floats = st.one_of(st.sampled_from(fedges + [2.0**63, -2.0**63]), st.floats(lo - 300.0, hi + 300.0),
                       st.floats(allow_nan=True))
    return st.one_of(ints, floats, st.booleans())


@fuzz(2)
@given(data=st.data())
def test_python_number_into_integer_tensor(data):
    dname = data.draw(st.sampled_from(INTS), label="dtype")
    v = data.draw(numbers(dname), label="value")
    path = data.draw(st.sampled_from(NUMBER_PATHS), label="path")
    expected = int_conversion(v, dname)
    if expected is None:
        with pytest.raises(RuntimeError, match=NOT_CONVERTIBLE):
            store_number(path, v, tdt(dname), tl)
    else:
        got = store_number(path, v, tdt(dname), tl)
        assert got == expected and type(got) is int, (path, v, got, expected)


@pytest.mark.parametrize("dname", INTS)
@pytest.mark.parametrize("v", [2**63, -2**63 - 1, 2**64, 10**30])
def test_python_int_beyond_int64_refused(dname, v):
    for path in NUMBER_PATHS:
        with pytest.raises((RuntimeError, OverflowError, ValueError)):
            store_number(path, v, tdt(dname), tl)


# ----------------------------------------------------------------------------
# 6. float16 tensor (op) Python float: computed in float32 (the float kept as a
#    float32, not rounded to float16 first), rounded to float16 once. (PyTorch 2.13
#    does this for mul/div; for add/sub it rounds the float to float16 first.)

HALF_OPS = {
    "mul": (lambda t, s: t * s, np.multiply, False), "rmul": (lambda t, s: s * t, np.multiply, False),
    "add": (lambda t, s: t + s, np.add, False), "radd": (lambda t, s: s + t, np.add, False),
    "sub": (lambda t, s: t - s, np.subtract, False), "div": (lambda t, s: t / s, np.true_divide, False),
    "mul_": (lambda t, s: t.mul_(s), np.multiply, True), "add_": (lambda t, s: t.add_(s), np.add, True),
    "sub_": (lambda t, s: t.sub_(s), np.subtract, True), "div_": (lambda t, s: t.div_(s), np.true_divide, True),
    "torch.mul": (lambda t, s: tl.mul(t, s), np.multiply, False),
    "torch.div": (lambda t, s: tl.div(t, s), np.true_divide, False),
}

half_arrays = st.lists(st.integers(0, 2**16 - 1), min_size=0, max_size=12).map(
    lambda bits: np.array(bits, dtype=np.uint16).view(np.float16))
half_scalars = st.one_of(st.floats(-1e5, 1e5), st.floats(-1, 1), st.floats(allow_nan=True),
                         st.integers(-3, 3).map(float))


@fuzz(2)
@given(x=half_arrays, s=half_scalars, op=st.sampled_from(sorted(HALF_OPS)))
def test_half_tensor_python_float(x, s, op):
    fn, npfn, inplace = HALF_OPS[op]
    with np.errstate(all="ignore"):
        expected = npfn(x.astype(np.float32), np.float32(s)).astype(np.float16)
    t = tl.tensor(x)
    r = fn(t, s)
    assert r.dtype == tl.float16
    if inplace:
        assert r is t or r.data_ptr() == t.data_ptr()
    assert_same(npy(r), expected, f"{op} {s!r}")


# ----------------------------------------------------------------------------
# 7. Parity with PyTorch where NumPy has no opinion

@requires_torch
@fuzz(1.5)
@given(data=st.data())
def test_view_chain_geometry_torch_parity(data):
    """Exact sizes, strides (size-1 dims and 0-element views included), storage
    offsets and contiguity of every step of a view chain, against PyTorch."""
    import torch

    shape0 = data.draw(shapes(max_dims=4, max_numel=48), label="shape0")
    lo, hi = data.draw(st.integers(0, 4)), data.draw(st.integers(0, 4))
    n = lo + prod(shape0) + hi
    th = torch.arange(n, dtype=torch.float32)[lo:lo + prod(shape0)].view(shape0)
    t = tl.arange(n, dtype=tl.float32)[lo:lo + prod(shape0)].view(shape0)
    chain = []
    for _ in range(data.draw(st.integers(1, 6))):
        op = draw_view_op(data, tuple(th.shape), th.untyped_storage().nbytes() // 4,
                          th.storage_offset() if th.numel() else None)
        chain.append(op)
        note(f"chain: {chain}")
        try:
            rh = apply_op(th, op, torch)
        except RuntimeError:
            with pytest.raises(RuntimeError):
                apply_op(t, op, tl)
            continue
        r = apply_op(t, op, tl)
        got = (tuple(r.shape), tuple(r.stride()), r.storage_offset(), r.is_contiguous())
        want = (tuple(rh.shape), tuple(rh.stride()), rh.storage_offset(), rh.is_contiguous())
        assert got == want, (op, "(shape, strides, storage offset, contiguous)", got, want)
        np.testing.assert_array_equal(npy(r), rh.numpy())
        th, t = rh, r


@requires_torch
@fuzz(1)
@given(data=st.data())
def test_python_number_into_integer_tensor_torch_parity(data):
    import torch

    dname = data.draw(st.sampled_from(INTS), label="dtype")
    # float(2**63) is out of int64's range, but PyTorch's check (f > double(INT64_MAX)) lets it through
    v = data.draw(numbers(dname).filter(lambda f: f != 2.0**63), label="value")
    path = data.draw(st.sampled_from(NUMBER_PATHS), label="path")
    try:
        want = store_number(path, v, getattr(torch, dname), torch)
    except RuntimeError:
        want = None
    assert want == int_conversion(v, dname), "the NumPy-side rule disagrees with PyTorch"
    if want is None:
        with pytest.raises(RuntimeError, match=NOT_CONVERTIBLE):
            store_number(path, v, tdt(dname), tl)
    else:
        assert store_number(path, v, tdt(dname), tl) == want


# PyTorch 2.13 itself follows the float32 rule only for mul and div: for add/sub it
# rounds the Python float to float16 first (x + float16(s), computed in float32).
HALF_OPS_LIKE_TORCH = sorted(op for op in HALF_OPS if "mul" in op or "div" in op)


@requires_torch
@fuzz(1)
@given(x=half_arrays, s=half_scalars, op=st.sampled_from(HALF_OPS_LIKE_TORCH))
def test_half_tensor_python_float_torch_parity(x, s, op):
    import torch

    fn = HALF_OPS[op][0]
    th = torch.from_numpy(x.copy())
    if op.startswith("torch."):
        want = {"torch.mul": torch.mul, "torch.div": torch.div}[op](th, s)
    else:
        want = fn(th, s)
    got = fn(tl.tensor(x), s)
    np.testing.assert_array_equal(npy(got), want.numpy())
