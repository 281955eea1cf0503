"""Every operator in tests/opinfo, checked the same way: values against NumPy
for each supported dtype and broadcast shape, the method form, in-place and
out= variants, Meta shapes/dtypes, and the table of bad calls."""
import numpy as np
import pytest

import torchlike as tl
from opinfo import OPS
from opinfo.core import NP_DTYPE, resolve

CASES = [(op, dt) for op in OPS for dt in op.dtypes]


def to_tl(x, dtype):
    if isinstance(x, np.ndarray):
        d = getattr(tl, dtype) if dtype == "bfloat16" and x.dtype == np.float32 else None
        return tl.tensor(x, dtype=d)
    if isinstance(x, (list, tuple)) and x and all(isinstance(e, np.ndarray) for e in x):
        return type(x)(to_tl(e, dtype) for e in x)
    return x


def to_meta(x):
    if isinstance(x, tl.Tensor):
        return tl.empty(tuple(x.shape), dtype=x.dtype, device="meta")
    if isinstance(x, (list, tuple)) and x and all(isinstance(e, tl.Tensor) for e in x):
        return type(x)(to_meta(e) for e in x)
    return x


def as_numpy(t):
    if isinstance(t, tl.Tensor):
        if t.dtype == tl.bfloat16:
            t = tl.tensor(t, dtype=tl.float32)
        return np.asarray(t)
    return np.asarray(t)


def expected_dtype(op, dtype):
    return op.ref_dtype(dtype) if op.ref_dtype else dtype


def compare(op, dtype, got, want, desc):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), desc
        for g, w in zip(got, want):
            compare(op, dtype, g, w, desc)
        return
    g = as_numpy(got)
    w = np.asarray(want)
    assert g.shape == w.shape, f"{desc}: shape {g.shape} != reference {w.shape}"
    rtol, atol = op.tolerance(expected_dtype(op, dtype) if isinstance(got, tl.Tensor) else dtype)
    if g.dtype == np.bool_ or w.dtype == np.bool_ or (rtol == 0 and atol == 0):
        np.testing.assert_array_equal(g, w.astype(g.dtype) if w.dtype != g.dtype else w, err_msg=desc)
    else:
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=desc)


def _flat(r):
    """The tensors of a result, nested tuples (histogramdd's bin_edges) included."""
    return [t for e in r for t in _flat(e)] if isinstance(r, (tuple, list)) else [r]


def run(op, args, kwargs):
    return resolve(op.name)(*args, **kwargs)


@pytest.mark.parametrize("op,dtype", CASES, ids=[f"{op.name}-{dt}" for op, dt in CASES])
def test_forward_matches_numpy(op, dtype):
    if dtype in op.skip:
        pytest.skip(op.skip[dtype])
    for s in op.samples(dtype):
        desc = f"{op.name}({s.desc or ''}) dtype={dtype}"
        args = tuple(to_tl(a, dtype) for a in s.args)
        # Taken before the call: an in-place op (transpose_, resize_ ...) changes its input's shape.
        meta_args = tuple(to_meta(a) for a in args) if op.meta and s.meta else None
        got = run(op, args, s.kwargs)
        with np.errstate(all="ignore"):  # references at domain edges (log(0)) are still the answer
            want = op.ref(*s.args, **s.kwargs)
        if isinstance(got, tl.Tensor):
            assert got.dtype == getattr(tl, expected_dtype(op, dtype)), f"{desc}: dtype {got.dtype}"
        compare(op, dtype, tuple(got) if isinstance(got, tuple) else got, want, desc)

        if op.method and args and isinstance(args[0], tl.Tensor):
            m = getattr(args[0], op.name)(*args[1:], **s.kwargs)
            compare(op, dtype, tuple(m) if isinstance(m, tuple) else m, want, desc + " [method]")

        if op.inplace and isinstance(got, tl.Tensor) and args and isinstance(args[0], tl.Tensor) \
                and got.dtype == args[0].dtype and tuple(got.shape) == tuple(args[0].shape):
            target = args[0].clone()
            v0 = target._version
            r = getattr(target, op.name + "_")(*args[1:], **s.kwargs)
            assert r is target, f"{desc}: in-place must return self"
            assert target._version > v0, f"{desc}: in-place must bump the version counter"
            compare(op, dtype, target, want, desc + " [inplace]")

        if op.out and isinstance(got, tl.Tensor):
            out = tl.empty(tuple(got.shape), dtype=got.dtype)
            r = resolve(op.name)(*args, **s.kwargs, out=out)
            assert r is out, f"{desc}: out= must return out"
            compare(op, dtype, out, want, desc + " [out=]")

        if op.meta and s.meta and isinstance(got, (tl.Tensor, tuple)):
            mgot = run(op, meta_args, s.kwargs)
            for g, m in zip(_flat(got), _flat(mgot)):
                assert m.device.type == "meta", desc
                assert tuple(m.shape) == tuple(g.shape) and m.dtype == g.dtype, f"{desc} [meta]"


META_RAISES = [op for op in OPS if op.meta_raises]


@pytest.mark.parametrize("op", META_RAISES, ids=[op.name for op in META_RAISES])
def test_value_dependent_shapes_raise_on_meta(op):
    """nonzero, masked_select, equal...: Meta tensors have no values, so (as
    in PyTorch) these raise NotImplementedError rather than guess a shape."""
    dtype = "float32" if "float32" in op.dtypes else op.dtypes[0]
    s = op.samples(dtype)[0]
    args = tuple(to_meta(to_tl(a, dtype)) for a in s.args)
    with pytest.raises(NotImplementedError):
        run(op, args, s.kwargs)


FACTORY_CASES = [(op, dt) for op in OPS if op.factory for dt in op.dtypes]


@pytest.mark.parametrize("op,dtype", FACTORY_CASES, ids=[f"{op.name}-{dt}" for op, dt in FACTORY_CASES])
def test_factory_on_meta_matches_cpu(op, dtype):
    """A factory called with device="meta" gives the CPU result's shape and dtype, and no data."""
    for s in op.samples(dtype):
        got = run(op, s.args, s.kwargs)
        m = run(op, s.args, {**s.kwargs, "device": "meta"})
        assert m.device.type == "meta" and tuple(m.shape) == tuple(got.shape) and m.dtype == got.dtype, s.desc


ERROR_CASES = [(op, e) for op in OPS for e in op.errors]


@pytest.mark.parametrize("op,err", ERROR_CASES, ids=[f"{op.name}-{i}" for i, (op, _) in enumerate(ERROR_CASES)])
def test_bad_calls_raise(op, err):
    args = tuple(to_tl(a, str(a.dtype) if isinstance(a, np.ndarray) else "float32") for a in err.args)
    with pytest.raises(err.exc, match=err.match):
        run(op, args, err.kwargs)
