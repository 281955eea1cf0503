// cumsum / cumprod: inclusive scans along one dim. The input is viewed as
// (outer, n, inner) over a contiguous copy: with inner == 1 each line is a
// serial scan (parallel over lines); otherwise a block of `inner` running
// accumulators advances one slice at a time, which vectorises.
// Accumulation follows PyTorch's CPU acc_type: double for float/double,
// float for half/bfloat16, int64 for integers.
#include <type_traits>
#include "../../Parallel.h"
#include "../Copy.h"
#include "../ReduceUtils.h"
#include "ops/cumprod.h"
#include "ops/cumsum.h"

namespace at::native {
namespace {

template <class T>
using scan_acc_t = std::conditional_t<std::is_same_v<T, double> || std::is_same_v<T, float>, double,
                                      std::conditional_t<std::is_floating_point_v<c10::opmath_t<T>>, float, int64_t>>;

template <bool Prod>
TensorBase scan_impl(const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  ScalarType out_dtype = sum_result_dtype(self.scalar_type(), dtype);
  int64_t d = maybe_wrap_dim(dim, self.dim());
  TensorBase in = contiguous(cast_to(self, out_dtype, self.device()));
  TensorBase out = make_empty(self.sizes(), self.options().with_dtype(out_dtype));
  if (self.numel() == 0) return out;
  int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
  int64_t inner = 1, outer = 1;
  for (int64_t k = d + 1; k < self.dim(); ++k) inner *= self.sizes()[k];
  for (int64_t k = 0; k < d; ++k) outer *= self.sizes()[k];
  TL_DISPATCH_ALL_TYPES(out_dtype, Prod ? "cumprod" : "cumsum", [&] {
    using A = scan_acc_t<scalar_t>;
    const scalar_t* src = in.data_ptr<scalar_t>();
    scalar_t* dst = out.data_ptr<scalar_t>();
    auto cast_out = [](A a) {
      if constexpr (std::is_same_v<scalar_t, bool>) return a != A(0);
      else return static_cast<scalar_t>(a);
    };
    if (inner == 1) {
      parallel_for(0, outer, std::max<int64_t>(1, kGrainSize / n), [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) {
          const scalar_t* s = src + o * n;
          scalar_t* t = dst + o * n;
          A acc = Prod ? A(1) : A(0);
          for (int64_t i = 0; i < n; ++i) {
            A x = static_cast<A>(static_cast<c10::opmath_t<scalar_t>>(s[i]));
            acc = Prod ? acc * x : acc + x;
            t[i] = cast_out(acc);
          }
        }
      });
      return;
    }
    constexpr int64_t W = 256;
    int64_t nblk = (inner + W - 1) / W;
    parallel_for(0, outer * nblk, std::max<int64_t>(1, kGrainSize / (n * W)), [&](int64_t b, int64_t e) {
      A acc[W];
      for (int64_t task = b; task < e; ++task) {
        int64_t o = task / nblk, j0 = (task % nblk) * W, w = std::min(W, inner - j0);
        for (int64_t j = 0; j < w; ++j) acc[j] = Prod ? A(1) : A(0);
        for (int64_t i = 0; i < n; ++i) {
          const scalar_t* s = src + (o * n + i) * inner + j0;
          scalar_t* t = dst + (o * n + i) * inner + j0;
          for (int64_t j = 0; j < w; ++j) {
            A x = static_cast<A>(static_cast<c10::opmath_t<scalar_t>>(s[j]));
            acc[j] = Prod ? acc[j] * x : acc[j] + x;
            t[j] = cast_out(acc[j]);
          }
        }
      }
    });
  });
  return out;
}

}  // namespace

TensorBase cumsum_cpu(const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  return scan_impl<false>(self, dim, dtype);
}
TensorBase cumprod_cpu(const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  return scan_impl<true>(self, dim, dtype);
}

}  // namespace at::native
