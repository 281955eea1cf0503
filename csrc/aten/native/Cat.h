// cat and stack: the checks and output shape every backend shares.
#pragma once
#include "c10/Tensor.h"

namespace at::native {

// What cat(tensors, dim) produces, after PyTorch's checks (non-empty list, no
// 0-dim input, matching ranks and sizes off `dim`, one device). A 1-D empty
// tensor is skipped, as PyTorch's legacy rule has it, whatever its rank.
struct CatPlan {
  DimVector sizes;   // the output's sizes
  ScalarType dtype;  // the inputs' promoted dtype
  Device device;
  int64_t dim = 0;   // wrapped
};
CatPlan cat_plan(TensorBaseList tensors, int64_t dim);

inline bool cat_skips(const TensorBase& t) { return t.dim() == 1 && t.sizes()[0] == 0; }

// Copies each input into its window of `out` (which has the plan's sizes)
// through the dispatcher's copy_, so any backend with a copy_ kernel works.
void cat_copy_windows(const TensorBase& out, TensorBaseList tensors, const CatPlan& plan);

}  // namespace at::native
