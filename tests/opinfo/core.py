"""The op-sample registry: one OpInfo per operator, consumed by tests/test_ops.py.

An OpInfo says how to call an operator (sample inputs per dtype), what NumPy
computes for the same call (the reference), which dtypes it supports, and
which bad calls must raise which exception. Area files (pointwise.py,
reductions.py, ...) each export OPS; __init__.py gathers them.

Sample arguments are NumPy arrays (turned into tensors for torchlike, passed
as-is to the reference) or plain Python values.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

ALL_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
INTEGRAL = ("uint8", "int8", "int16", "int32", "int64")
FLOATING = ("float16", "bfloat16", "float32", "float64")
NUMERIC = INTEGRAL + FLOATING

# NumPy has no bfloat16: references compute in float32 and compare with bf16 tolerance.
NP_DTYPE = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
            "int64": np.int64, "float16": np.float16, "bfloat16": np.float32, "float32": np.float32,
            "float64": np.float64}

TOL = {"float16": (1e-3, 1e-2), "bfloat16": (1e-2, 5e-2), "float32": (1e-5, 1.3e-6), "float64": (1e-7, 1e-7)}


@dataclass
class Sample:
    args: tuple
    kwargs: dict = field(default_factory=dict)
    desc: str = ""
    meta: bool = True  # False: this sample's result shape depends on values (the op's other samples check Meta)


@dataclass
class ErrorCase:
    args: tuple
    kwargs: dict
    exc: type
    match: str  # regex the message must contain


@dataclass
class OpInfo:
    name: str                                   # torchlike.<name>
    ref: Callable[..., Any]                     # NumPy reference, same call signature
    samples: Callable[[str], list]              # dtype name -> [Sample]
    dtypes: tuple = ALL_DTYPES
    method: bool = True                         # also check tensor.<name>(...)
    inplace: bool = False                       # also check tensor.<name>_(...) where the result dtype allows
    out: bool = False                           # also check out= on the function
    meta: bool = True                           # shapes/dtypes on device="meta"
    factory: bool = False                       # makes a tensor from sizes: Meta is checked through device="meta"
    meta_raises: bool = False                   # output shape depends on values: Meta raises NotImplementedError
    errors: list = field(default_factory=list)  # [ErrorCase]
    tol: dict | None = None                     # dtype -> (rtol, atol) overrides
    ref_dtype: Callable[[str], str] | None = None  # expected result dtype name, if not the input dtype
    skip: dict = field(default_factory=dict)    # dtype -> reason, documented gaps only
    grad: bool = True                           # differentiable (gradcheck in the autograd issue)

    def tolerance(self, dtype):
        t = (self.tol or {}).get(dtype) or TOL.get(dtype)
        return t if t else (0, 0)


def resolve(name):
    """The callable an OpInfo name means: torchlike.<name>, or a dotted path
    below torchlike such as "nn.functional.cross_entropy" for nn-only names."""
    import torchlike
    obj = torchlike
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def sample_seed(*key) -> int:
    """A seed that depends only on key's text: the same in every process."""
    return zlib.crc32(repr(key).encode())


def make(shape, dtype, low=-5, high=5, seed=0, positive=False, nonzero=False):
    """Deterministic sample data of a dtype, with values a NumPy reference can represent."""
    # zlib.crc32 of the arguments' text, not hash(): Python salts string hashes
    # per process (PYTHONHASHSEED), so hash() gave each run and each test
    # worker different sample data.
    rng = np.random.default_rng(sample_seed(shape, dtype, low, high, seed))
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    npdt = NP_DTYPE[dtype]
    if dtype in INTEGRAL:
        lo = 0 if dtype == "uint8" or positive else max(low, np.iinfo(npdt).min)
        a = rng.integers(lo, high + 1, size=shape).astype(npdt)
        if nonzero:
            a[a == 0] = 1
        return a
    a = rng.uniform(0.1 if positive else low, high, size=shape)
    if nonzero:
        a[np.abs(a) < 0.1] = 0.5
    a = np.asarray(a.astype(npdt))
    if dtype == "bfloat16":  # keep only values bfloat16 can hold exactly
        a = np.asarray((a.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32))
    return a


BROADCAST_SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (2, 3)), ((5,), ())]
