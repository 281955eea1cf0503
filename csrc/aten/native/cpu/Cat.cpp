// cat on CPU: inputs already in the output's dtype and contiguous are copied
// as blocks (one memcpy per input per outer index); anything else goes
// through copy_, which converts dtypes and walks strides.
#include <algorithm>
#include <cstring>

#include "../Cat.h"
#include "aten/Parallel.h"
#include "ops/cat.h"

namespace at::native {

TensorBase cat_cpu(TensorBaseList tensors, int64_t dim) {
  CatPlan plan = cat_plan(tensors, dim);
  TensorBase out = make_empty(plan.sizes, TensorOptions(plan.dtype, plan.device));
  if (out.numel() == 0) return out;
  bool blocks = true;
  for (const TensorBase& t : tensors)
    blocks = blocks && (cat_skips(t) || (t.scalar_type() == plan.dtype && t.is_contiguous()));
  if (!blocks) {
    cat_copy_windows(out, tensors, plan);
    return out;
  }
  // Contiguous: out is `outer` rows of `row` bytes; input t fills bytes
  // [offset, offset + its row) of each.
  const size_t elem = c10::elementSize(plan.dtype);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < plan.dim; ++d) outer *= plan.sizes[d];
  for (int64_t d = plan.dim + 1; d < (int64_t)plan.sizes.size(); ++d) inner *= plan.sizes[d];
  const size_t row = (size_t)(plan.sizes[plan.dim] * inner) * elem;
  char* dst = static_cast<char*>(out.data_ptr());
  size_t offset = 0;
  for (const TensorBase& t : tensors) {
    if (cat_skips(t) || t.numel() == 0) continue;
    const size_t len = (size_t)(t.sizes()[plan.dim] * inner) * elem;
    const char* src = static_cast<const char*>(t.data_ptr());
    at::parallel_for(0, outer, std::max<int64_t>(1, (int64_t)(65536 / len)), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) std::memcpy(dst + o * row + offset, src + o * len, len);
    });
    offset += len;
  }
  return out;
}

}  // namespace at::native
