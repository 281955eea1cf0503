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
