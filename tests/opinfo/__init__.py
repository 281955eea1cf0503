"""All op samples, gathered from the per-area modules."""
from .core import ALL_DTYPES, FLOATING, INTEGRAL, NUMERIC, OpInfo, Sample, ErrorCase, make  # noqa: F401

OPS = []
for _mod in ("pointwise", "reductions", "views", "creation", "linalg",
              "indexing", "scatter_gather", "shape_ops", "nn_conv_pool", "nn_norm", "nn_act_loss", "special_math", "sorting", "math_composites", "search_count",
             "unique_mode", "statistics", "einsum_misc", "random_dists", "tensor_misc", "foreach"):
    try:
        _m = __import__(f"{__name__}.{_mod}", fromlist=["OPS"])
    except ModuleNotFoundError as e:  # an area not written yet
        if e.name != f"{__name__}.{_mod}":
            raise
        continue
    OPS.extend(_m.OPS)

# Half types for every floating op (issue 12): an op that runs in float32
# runs in float16 and bfloat16 too, computed in float32 and rounded once, so
# the registry adds both instead of every area listing them. HALF_UNSUPPORTED
# names the ops PyTorch's CPU backend itself refuses in half, with the reason.
_LAPACK = "PyTorch's CPU backend refuses float16/bfloat16 here (LAPACK-backed: no half routines)"
HALF_UNSUPPORTED = {
    **{n: _LAPACK for n in (
        "linalg.inv", "linalg.inv_ex", "linalg.det", "linalg.slogdet", "linalg.solve", "linalg.solve_ex",
        "linalg.solve_triangular", "linalg.cholesky", "linalg.cholesky_ex", "linalg.qr", "linalg.eigh",
        "linalg.eigvalsh", "linalg.svd", "linalg.svdvals", "linalg.lu_factor", "linalg.lu_factor_ex", "linalg.lu",
        "linalg.lu_solve", "linalg.pinv", "linalg.matrix_rank", "linalg.lstsq", "linalg.cond",
        "linalg.householder_product", "linalg.tensorinv", "linalg.tensorsolve", "linalg.eig", "linalg.eigvals",
        "linalg.ldl_factor", "linalg.ldl_factor_ex", "linalg.ldl_solve")},
    # The samples include ord=2/'nuc' (an SVD), or negative powers (an inverse),
    # which PyTorch refuses in half as well.
    "linalg.norm": "samples include ord=2/'nuc' norms, refused in half by PyTorch (SVD)",
    "linalg.matrix_norm": "samples include ord=2/'nuc' norms, refused in half by PyTorch (SVD)",
    "nuclear_norm": "an SVD: refused in half by PyTorch",
    "linalg.matrix_power": "samples include negative powers (an inverse), refused in half by PyTorch",
    # Known gaps of torchlike, PyTorch supports these in half:
    "nextafter": "torchlike gap: the pointwise functor sees only the float opmath type, "
                 "so it cannot step to the next half value",
}
HALF_ADDED = []
for _op in OPS:
    if "float32" in _op.dtypes and _op.name not in HALF_UNSUPPORTED:
        _missing = tuple(d for d in ("float16", "bfloat16") if d not in _op.dtypes)
        if _missing:
            _op.dtypes = tuple(_op.dtypes) + _missing
            HALF_ADDED.append(_op.name)
