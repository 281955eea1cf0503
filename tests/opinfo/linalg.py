"""Linear algebra: matrix products checked against NumPy (float64 references).

Integer references wrap around like the kernels (NumPy integer matmul wraps
too); floating references are computed in float64 and compared with the
dtype's tolerance scaled for the length of the inner sums.
"""
import numpy as np

from .core import FLOATING, INTEGRAL, NUMERIC, ErrorCase, OpInfo, Sample, make

F64 = np.float64
F32 = np.float32

# Inner sums of up to ~20 terms of values in [-5, 5): absolute error grows with
# the sum's magnitude, so float tolerances are looser than pointwise ones.
TOL = {"float16": (1e-2, 5e-2), "bfloat16": (2e-2, 0.5), "float32": (1e-5, 1e-4), "float64": (1e-10, 1e-10)}


def _ref(fn):
    """NumPy reference: float inputs in float64, integers in their own dtype
    (NumPy's integer matmul wraps around like the kernels)."""
    def ref(*args, **kw):
        conv = [a.astype(F64) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in args]
        return fn(*conv, **kw)
    return ref


def _mats(dtype, *shapes, low=-5, high=5):
    return tuple(make(s, dtype, low, high, seed=i) for i, s in enumerate(shapes))


def mm_samples(dtype):
    return [Sample(_mats(dtype, (3, 4), (4, 5)), desc="3x4 @ 4x5"),
            Sample(_mats(dtype, (1, 7), (7, 1)), desc="row @ col"),
            Sample(_mats(dtype, (6, 1), (1, 5)), desc="k=1"),
            Sample(_mats(dtype, (17, 19), (19, 13)), desc="odd sizes"),
            Sample(_mats(dtype, (2, 0), (0, 3)), desc="k=0 gives zeros"),
            Sample(_mats(dtype, (0, 4), (4, 3)), desc="m=0"),
            Sample(_mats(dtype, (3, 4), (4, 0)), desc="n=0")]


def bmm_samples(dtype):
    return [Sample(_mats(dtype, (2, 3, 4), (2, 4, 5)), desc="2x(3x4 @ 4x5)"),
            Sample(_mats(dtype, (5, 1, 6), (5, 6, 1)), desc="batched dot"),
            Sample(_mats(dtype, (3, 2, 0), (3, 0, 4)), desc="k=0"),
            Sample(_mats(dtype, (0, 2, 3), (0, 3, 4)), desc="empty batch"),
            Sample(_mats(dtype, (4, 9, 7), (4, 7, 11)), desc="4x(9x7 @ 7x11)")]


# (self shape, other shape) covering every branch of matmul
MATMUL_SHAPES = [
    ((5,), (5,)),              # dot
    ((3, 5), (5,)),            # mv
    ((5,), (5, 4)),            # vector @ matrix
    ((3, 5), (5, 4)),          # mm
    ((2, 3, 5), (5, 4)),       # batch folded into rows
    ((2, 3, 5), (5,)),         # batch @ vector
    ((5,), (2, 5, 4)),         # vector @ batch
    ((3, 5), (2, 5, 4)),       # matrix @ batch
    ((2, 3, 5), (2, 5, 4)),    # bmm
    ((2, 1, 3, 5), (4, 5, 6)),  # broadcast batch dims
    ((1, 3, 5), (2, 2, 5, 4)),  # broadcast the other way
    ((2, 2, 3, 5), (2, 5, 4)),  # 4-D @ 3-D: batch (2,) broadcast against (2, 2)
    ((0, 3, 5), (5, 4)),       # empty batch
    ((2, 3, 0), (0, 4)),       # k=0
    ((3, 0), (0,)),            # mv with k=0
]


def matmul_samples(dtype):
    return [Sample(_mats(dtype, a, b), desc=f"{a} @ {b}") for a, b in MATMUL_SHAPES]


def addmm_samples(dtype):
    s = [Sample(_mats(dtype, (3, 5), (3, 4), (4, 5)), desc="full self"),
         Sample(_mats(dtype, (5,), (3, 4), (4, 5)), desc="row bias"),
         Sample(_mats(dtype, (3, 1), (3, 4), (4, 5)), desc="column bias"),
         Sample(_mats(dtype, (), (3, 4), (4, 5)), desc="0-dim self"),
         Sample(_mats(dtype, (2, 3), (2, 0), (0, 3)), desc="k=0 gives beta*self"),
         Sample(_mats(dtype, (3, 5), (3, 4), (4, 5)), {"beta": 2, "alpha": 3}, desc="beta=2 alpha=3"),
         Sample(_mats(dtype, (3, 5), (3, 4), (4, 5)), {"beta": 0}, desc="beta=0"),
         Sample(_mats(dtype, (2, 3), (2, 0), (0, 3)), {"beta": 3}, desc="k=0 beta=3")]
    if dtype in FLOATING:
        s.append(Sample(_mats(dtype, (3, 5), (3, 4), (4, 5)), {"beta": 0.5, "alpha": -1.5}, desc="float beta/alpha"))
    return s


def _addmm_ref(self, m1, m2, beta=1, alpha=1):
    r = alpha * np.matmul(m1, m2)
    return r if beta == 0 else r + beta * self


def dot_samples(dtype):
    return [Sample(_mats(dtype, (7,), (7,)), desc="7"),
            Sample(_mats(dtype, (1,), (1,)), desc="1"),
            Sample(_mats(dtype, (0,), (0,)), desc="empty gives 0"),
            Sample(_mats(dtype, (100,), (100,), low=-2, high=2), desc="100")]


def mv_samples(dtype):
    return [Sample(_mats(dtype, (3, 4), (4,)), desc="3x4 @ 4"),
            Sample(_mats(dtype, (1, 6), (6,)), desc="1x6 @ 6"),
            Sample(_mats(dtype, (3, 0), (0,)), desc="k=0"),
            Sample(_mats(dtype, (0, 3), (3,)), desc="m=0")]


def outer_samples(dtype):
    return [Sample(_mats(dtype, (3,), (4,)), desc="3 x 4"),
            Sample(_mats(dtype, (0,), (4,)), desc="empty")]


def _f32(*shapes):
    return tuple(np.ones(s, F32) for s in shapes)


OPS = [
    OpInfo("mm", _ref(np.matmul), mm_samples, dtypes=NUMERIC, tol=TOL,
           errors=[ErrorCase(_f32((2, 3), (4, 5)), {}, RuntimeError,
                             r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"),
                   ErrorCase((np.ones((2, 3), F32), np.ones((3, 5), F64)), {}, RuntimeError,
                             "expected m1 and m2 to have the same dtype, but got: float != double"),
                   ErrorCase((np.ones((2, 3), np.int32), np.ones((3, 5), np.int64)), {}, RuntimeError,
                             "expected m1 and m2 to have the same dtype, but got: int != long int"),
                   ErrorCase(_f32((3,), (3, 5)), {}, RuntimeError, "self must be a matrix"),
                   ErrorCase(_f32((2, 3), (3,)), {}, RuntimeError, "mat2 must be a matrix"),
                   ErrorCase((np.ones((2, 3), np.bool_), np.ones((3, 5), np.bool_)), {}, RuntimeError,
                             "not implemented for 'Bool'")]),
    OpInfo("bmm", _ref(np.matmul), bmm_samples, dtypes=NUMERIC, tol=TOL,
           errors=[ErrorCase(_f32((2, 3), (2, 3, 4)), {}, RuntimeError, "batch1 must be a 3D tensor"),
                   ErrorCase(_f32((2, 2, 3), (2, 4, 5)), {}, RuntimeError,
                             r"Expected size for first two dimensions of batch2 tensor to be: \[2, 3\] but got: "
                             r"\[2, 4\]"),
                   ErrorCase((np.ones((2, 2, 3), np.int32), np.ones((2, 3, 5), F32)), {}, RuntimeError,
                             "expected scalar type Int but found Float")]),
    OpInfo("matmul", _ref(np.matmul), matmul_samples, dtypes=NUMERIC, tol=TOL,
           errors=[ErrorCase((np.array(1.0, F32), np.ones(3, F32)), {}, RuntimeError,
                             "both arguments to matmul need to be at least 1D, but they are 0D and 1D"),
                   ErrorCase(_f32((2, 3), (4, 5)), {}, RuntimeError,
                             r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"),
                   ErrorCase(_f32((3,), (4, 5)), {}, RuntimeError,
                             r"mat1 and mat2 shapes cannot be multiplied \(1x3 and 4x5\)"),
                   ErrorCase(_f32((2, 2, 3), (3, 3, 5)), {}, RuntimeError,
                             r"The size of tensor a \(2\) must match the size of tensor b \(3\) at non-singleton "
                             "dimension 0"),
                   ErrorCase((np.ones((2, 3), F32), np.ones((3, 5), F64)), {}, RuntimeError,
                             "expected m1 and m2 to have the same dtype, but got: float != double"),
                   ErrorCase(_f32((3,), (4,)), {}, RuntimeError, "inconsistent tensor size"),
                   ErrorCase(_f32((2, 3), (4,)), {}, RuntimeError,
                             r"size mismatch, got input \(2\), mat \(2x3\), vec \(4\)")]),
    OpInfo("addmm", _ref(_addmm_ref), addmm_samples, dtypes=NUMERIC, tol=TOL,
           errors=[ErrorCase(_f32((2, 3), (2, 3), (4, 5)), {}, RuntimeError,
                             r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"),
                   ErrorCase(_f32((4, 3), (2, 3), (3, 5)), {}, RuntimeError,
                             r"The expanded size of the tensor \(5\) must match the existing size \(3\) at "
                             r"non-singleton dimension 1.  Target sizes: \[2, 5\].  Tensor sizes: \[4, 3\]"),
                   ErrorCase((np.ones((2, 5), F64), np.ones((2, 3), F32), np.ones((3, 5), F32)), {}, RuntimeError,
                             "self and mat2 must have the same dtype, but got Double and Float")]),
    OpInfo("dot", _ref(np.dot), dot_samples, dtypes=NUMERIC, tol=TOL,
           errors=[ErrorCase(_f32((2, 3), (3,)), {}, RuntimeError, "1D tensors expected, but got 2D and 1D tensors"),
                   ErrorCase(_f32((3,), (4,)), {}, RuntimeError,
                             r"inconsistent tensor size, expected tensor \[3\] and src \[4\]"),
                   ErrorCase((np.ones(3, F32), np.ones(3, F64)), {}, RuntimeError,
                             "dot : expected both vectors to have same dtype, but found Float and Double")]),
    OpInfo("mv", _ref(np.matmul), mv_samples, dtypes=NUMERIC, tol=TOL,
           errors=[ErrorCase(_f32((2, 3), (4,)), {}, RuntimeError,
                             r"size mismatch, got input \(2\), mat \(2x3\), vec \(4\)"),
                   ErrorCase(_f32((2, 3), (3, 1)), {}, RuntimeError, "vector \\+ matrix @ vector expected, got 1, 2, 2"),
                   ErrorCase((np.ones((2, 3), F32), np.ones(3, F64)), {}, RuntimeError,
                             "addmv input tensors must have the same dtype")]),
    OpInfo("outer", _ref(np.outer), outer_samples, dtypes=NUMERIC, tol=TOL,
           errors=[ErrorCase(_f32((2, 3), (3,)), {}, RuntimeError, "outer: Expected 1-D argument self, but got 2-D")]),
]
