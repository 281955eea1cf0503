// cat (Meta kernel and out=) and stack (composite of unsqueeze + cat). The
// CPU kernel of cat is in cpu/Cat.cpp.
#include "Cat.h"

#include <vector>

#include "aten/MemoryOverlap.h"
#include "ops/cat.h"
#include "ops/copy.h"
#include "ops/slice.h"
#include "ops/stack.h"
#include "ops/unsqueeze.h"

namespace at::native {

CatPlan cat_plan(TensorBaseList tensors, int64_t dim) {
  TL_CHECK_VALUE(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
  for (size_t i = 0; i < tensors.size(); ++i) {
    TL_CHECK(tensors[i].defined(), "torch.cat(): tensor at position ", i, " is undefined");
    TL_CHECK(tensors[i].dim() > 0, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
  }
  CatPlan plan{DimVector(), tensors[0].scalar_type(), tensors[0].device(), 0};
  for (const TensorBase& t : tensors) {
    plan.dtype = c10::promoteTypes(plan.dtype, t.scalar_type());
    TL_CHECK(t.device() == plan.device, "Expected all tensors to be on the same device, but found at least two "
             "devices, ", plan.device, " and ", t.device(), "!");
  }
  // The first input that is not skipped sets the rank and the other sizes.
  const TensorBase* ref = nullptr;
  for (const TensorBase& t : tensors)
    if (!cat_skips(t)) {
      ref = &t;
      break;
    }
  if (!ref) {  // every input is a 1-D empty tensor
    plan.dim = c10::maybe_wrap_dim(dim, 1);
    plan.sizes = DimVector{0};
    return plan;
  }
  plan.dim = c10::maybe_wrap_dim(dim, ref->dim());
  plan.sizes = DimVector(ref->sizes());
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorBase& t = tensors[i];
    if (cat_skips(t)) continue;
    TL_CHECK(t.dim() == ref->dim(), "Tensors must have same number of dimensions: got ", ref->dim(), " and ",
             t.dim());
    for (int64_t d = 0; d < t.dim(); ++d)
      TL_CHECK(d == plan.dim || t.sizes()[d] == ref->sizes()[d], "Sizes of tensors must match except in dimension ",
               plan.dim, ". Expected size ", ref->sizes()[d], " but got size ", t.sizes()[d], " for tensor number ", i,
               " in the list.");
    total += t.sizes()[plan.dim];
  }
  plan.sizes[plan.dim] = total;
  return plan;
}

void cat_copy_windows(const TensorBase& out, TensorBaseList tensors, const CatPlan& plan) {
  int64_t offset = 0;
  for (const TensorBase& t : tensors) {
    if (cat_skips(t)) continue;
    const int64_t len = t.sizes()[plan.dim];
    if (len == 0) continue;
    at::_ops::copy_(at::_ops::slice(out, plan.dim, offset, offset + len, 1), t, false);
    offset += len;
  }
}

TensorBase cat_meta(TensorBaseList tensors, int64_t dim) {
  CatPlan plan = cat_plan(tensors, dim);
  return make_empty(plan.sizes, TensorOptions(plan.dtype, plan.device));
}

TensorBase cat_out(const TensorBase& out, TensorBaseList tensors, int64_t dim) {
  CatPlan plan = cat_plan(tensors, dim);
  TL_CHECK(c10::canCast(plan.dtype, out.scalar_type()), "torch.cat(): input types can't be cast to the desired "
           "output type ", c10::toString(out.scalar_type()));
  TL_CHECK(out.device() == plan.device, "torch.cat(): all input tensors and out must be on the same device, but "
           "inputs are on ", plan.device, " and out is on ", out.device());
  // Written window by window: an input sharing memory with out would be
  // read after part of it was overwritten.
  at::assert_no_internal_overlap(out, "cat");
  for (const TensorBase& t : tensors)
    TL_CHECK(t.numel() == 0 || out.numel() == 0 || at::overlap_status(out, t) == at::MemOverlap::No,
             "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
             "memory location. Please clone() the tensor before performing the operation.");
  if (!out.sizes().equals(plan.sizes)) out.unsafeGetTensorImpl()->resize(plan.sizes);
  cat_copy_windows(out, tensors, plan);
  return out;
}

// stack: every input gets a new dimension `dim`, then they are concatenated
// along it (so autograd sees unsqueeze and cat).
static std::vector<TensorBase> stack_inputs(TensorBaseList tensors, int64_t dim) {
  TL_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  for (size_t i = 1; i < tensors.size(); ++i)
    TL_CHECK(tensors[i].sizes().equals(tensors[0].sizes()), "stack expects each tensor to be equal size, but got ",
             tensors[0].sizes(), " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
  const int64_t d = c10::maybe_wrap_dim(dim, tensors[0].dim() + 1);
  std::vector<TensorBase> r;
  r.reserve(tensors.size());
  for (const TensorBase& t : tensors) r.push_back(at::_ops::unsqueeze(t, d));
  return r;
}

TensorBase stack(TensorBaseList tensors, int64_t dim) {
  std::vector<TensorBase> parts = stack_inputs(tensors, dim);
  return at::_ops::cat(parts, c10::maybe_wrap_dim(dim, tensors[0].dim() + 1));
}

TensorBase stack_out(const TensorBase& out, TensorBaseList tensors, int64_t dim) {
  std::vector<TensorBase> parts = stack_inputs(tensors, dim);
  return at::_ops::cat_out(out, parts, c10::maybe_wrap_dim(dim, tensors[0].dim() + 1));
}

}  // namespace at::native
