// CUDA cumsum / cumprod: inclusive scans along one dim of a contiguous copy
// viewed as (outer, n, inner). Same schemas, result dtypes and checks as
// cpu/ReduceScan.cpp (ReduceUtils.h's sum_result_dtype).
#include <optional>
#include "aten/native/ReduceUtils.h"
#include "aten/native/cuda/ReduceKernel.cuh"
#include "c10/Library.h"

namespace at::native {
namespace {

template <bool Prod>
TensorBase scan_cuda(const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  ScalarType out_dtype = sum_result_dtype(self.scalar_type(), dtype);
  int64_t d = maybe_wrap_dim(dim, self.dim());
  TensorBase in = cuda_reduce::contiguous_on_device(cast_to(self, out_dtype, self.device()));
  TensorBase out = make_empty(self.sizes(), self.options().with_dtype(out_dtype));
  if (self.numel() == 0) return out;
  int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
  int64_t inner = 1, outer = 1;
  for (int64_t k = d + 1; k < self.dim(); ++k) inner *= self.sizes()[k];
  for (int64_t k = 0; k < d; ++k) outer *= self.sizes()[k];
  TL_DISPATCH_ALL_TYPES(out_dtype, Prod ? "cumprod" : "cumsum", [&] {
    cuda_reduce::launch_scan<Prod, scalar_t>(Prod ? "cumprod" : "cumsum", in, out, outer, n, inner);
  });
  return out;
}
TensorBase cumsum_cuda(const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  return scan_cuda<false>(self, dim, dtype);
}
TensorBase cumprod_cuda(const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  return scan_cuda<true>(self, dim, dtype);
}

}  // namespace

TL_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("cumsum", TL_KERNEL(cumsum_cuda));
  m.impl("cumprod", TL_KERNEL(cumprod_cuda));
}

}  // namespace at::native
