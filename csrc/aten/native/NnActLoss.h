// nll_loss: the argument checks and shape plan every backend shares, and the
// per-element index math a CUDA kernel reuses.
#pragma once
#include <cstdint>
#include <optional>

#include "aten/native/Math.h"
#include "c10/Tensor.h"

namespace at::native {

// PyTorch's Reduction enum, as F.nll_loss passes it.
enum class LossReduction : int64_t { None = 0, Mean = 1, Sum = 2 };

// input (C), (N, C) or (N, C, d1, ..., dk) seen as (batch, classes, spatial);
// target () , (N) or (N, d1, ..., dk) seen as (batch, spatial).
struct NllLossPlan {
  int64_t batch = 1;
  int64_t classes = 0;
  int64_t spatial = 1;
  LossReduction reduction = LossReduction::Mean;
  DimVector target_sizes;  // the shape of a reduction='none' result
};

// Raises as PyTorch does: ValueError for a batch mismatch, RuntimeError for
// other shape/dtype problems, an unknown reduction or a short weight.
NllLossPlan nll_loss_plan(const TensorBase& self, const TensorBase& target,
                          const std::optional<TensorBase>& weight, int64_t reduction);

// Offset of element (n, class c, spatial s) in a contiguous input.
TL_HOST_DEVICE inline int64_t nll_input_offset(int64_t n, int64_t c, int64_t s, int64_t classes,
                                               int64_t spatial) {
  return (n * classes + c) * spatial + s;
}

// The weight as a kernel should see it: autograd's saved copy of an absent
// optional arrives as an undefined tensor rather than nullopt.
inline std::optional<TensorBase> nll_weight(const std::optional<TensorBase>& weight) {
  return weight && weight->defined() ? weight : std::nullopt;
}

// A class index must be ignore_index or in [0, classes): anything else would
// read or write outside the row.
[[noreturn]] void nll_target_out_of_bounds(int64_t t);

}  // namespace at::native
