"""LinearCrossEntropyOptions: how F.linear_cross_entropy splits the batch when
it is asked to avoid materialising the full (N, num_classes) logits.

Chunk size, in rows of the batch:
  * batch_chunk_size, when given, wins;
  * chunking_method "aspect_ratio:K" takes K * in_features rows per chunk (a
    chunk of logits is then K times as tall as the input is wide), plain
    "aspect_ratio" means K = 1, and "auto" means "aspect_ratio:2";
  * chunking_method None processes the batch as one chunk (the logits are
    still never kept for backward, which recomputes them).
Accumulation dtype: acc_dtype when given; otherwise float16/bfloat16 inputs
accumulate in float32 unless acc_policy is "compact", and other dtypes in
their own precision."""
import dataclasses
import re

import torchlike

__all__ = ["LinearCrossEntropyOptions"]

_ACC_POLICIES = ("accurate", "balanced", "compact", "auto")
_ASPECT = re.compile(r"aspect_ratio(?::([1-9][0-9]*))?")


def _acc_dtype_choices():
    return (None, torchlike.float16, torchlike.bfloat16, torchlike.float32, torchlike.float64)


@dataclasses.dataclass
class LinearCrossEntropyOptions:
    """Chunking configuration for linear_cross_entropy (see the module docstring)."""

    allow_retain_graph: bool = False
    batch_chunk_size: "int | None" = None
    chunking_method: "str | None" = "auto"
    acc_policy: str = "auto"
    acc_dtype: "torchlike.dtype | None" = None

    def __post_init__(self):
        size = self.batch_chunk_size
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size <= 0):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        method = self.chunking_method
        if method is not None and method != "auto" and not (isinstance(method, str) and _ASPECT.fullmatch(method)):
            raise ValueError(f"invalid chunking_method: {method!r}")
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if not any(self.acc_dtype is d for d in _acc_dtype_choices()):
            names = ", ".join("None" if d is None else repr(d) for d in _acc_dtype_choices())
            raise ValueError(f"acc_dtype must be one of {{{names}}}, got {self.acc_dtype!r}. Pass acc_dtype=None "
                             "to let the op pick automatically.")

    def _rows_per_chunk(self, rows, in_features):
        """How many batch rows one chunk holds (at least 1, at most `rows`)."""
        if self.batch_chunk_size is not None:
            wanted = self.batch_chunk_size
        elif self.chunking_method is None:
            wanted = rows
        else:
            method = "aspect_ratio:2" if self.chunking_method == "auto" else self.chunking_method
            factor = _ASPECT.fullmatch(method).group(1)
            wanted = int(factor or 1) * max(in_features, 1)
        return max(1, min(wanted, max(rows, 1)))

    def _accumulation_dtype(self, dtype):
        """The dtype the chunk arithmetic runs in for inputs of `dtype`."""
        if self.acc_dtype is not None:
            return self.acc_dtype
        if dtype in (torchlike.float16, torchlike.bfloat16) and self.acc_policy != "compact":
            return torchlike.float32
        return dtype
