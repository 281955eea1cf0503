// The CPU loop of _amp_foreach_non_finite_check_and_unscale_: one pass over a
// gradient that both multiplies it by 1/scale and notices inf/NaN, so
// GradScaler.unscale_ reads each gradient once.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <type_traits>

#include "../Amp.h"
#include "../HalfConvert.h"
#include "Loops.h"
#include "aten/Parallel.h"
#include "aten/TensorIterator.h"
#include "c10/ScalarType.h"

namespace at::native {
namespace {

// x * inv over n elements `stride` elements apart, in the op-math type
// (float for float16/bfloat16). Returns whether any input element was not
// finite. The finiteness test is a comparison (|x| <= max is false for inf
// and NaN) folded into an OR-reduction, so the contiguous loop vectorises.
template <class scalar_t>
bool unscale_run(scalar_t* p, int64_t stride, int64_t n, float inv) {
  using acc_t = c10::opmath_t<scalar_t>;
  const acc_t k = static_cast<acc_t>(inv);
  constexpr acc_t kMax = std::numeric_limits<acc_t>::max();
  int nonfinite = 0;
  if (stride == 1) {
#pragma omp simd reduction(| : nonfinite)
    for (int64_t i = 0; i < n; ++i) {
      const acc_t x = static_cast<acc_t>(p[i]);
      nonfinite |= !(std::abs(x) <= kMax);
      p[i] = static_cast<scalar_t>(x * k);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      scalar_t* e = p + i * stride;
      const acc_t x = static_cast<acc_t>(*e);
      nonfinite |= !(std::abs(x) <= kMax);
      *e = static_cast<scalar_t>(x * k);
    }
  }
  return nonfinite != 0;
}

// A contiguous float16/bfloat16 run, through a float buffer a block at a
// time: the vectorised block conversions are many times faster than
// converting element by element inside the loop.
template <class scalar_t>
bool unscale_half_run(scalar_t* p, int64_t n, float inv) {
  constexpr int64_t kBlock = 1024;
  float buf[kBlock];
  bool nonfinite = false;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    if constexpr (std::is_same<scalar_t, c10::Half>::value) {
      half_convert::half_to_float_n(buf, p + b, m);
    } else {
      half_convert::bfloat16_to_float_n(buf, p + b, m);
    }
    nonfinite |= unscale_run(buf, 1, m, inv);
    if constexpr (std::is_same<scalar_t, c10::Half>::value) {
      half_convert::float_to_half_n(p + b, buf, m);
    } else {
      half_convert::float_to_bfloat16_n(p + b, buf, m);
    }
  }
  return nonfinite;
}

template <class scalar_t>
bool unscale_tensor(const TensorBase& grad, float inv) {
  std::atomic<bool> seen{false};
  if constexpr (half_convert::is_half_type_v<scalar_t>) {
    if (grad.is_contiguous()) {
      scalar_t* base = grad.data_ptr<scalar_t>();
      parallel_for(0, grad.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
        if (unscale_half_run(base + begin, end - begin, inv)) seen.store(true, std::memory_order_relaxed);
      });
      return seen.load();
    }
  }
  if (grad.is_contiguous()) {
    scalar_t* base = grad.data_ptr<scalar_t>();
    parallel_for(0, grad.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
      if (unscale_run(base + begin, 1, end - begin, inv)) seen.store(true, std::memory_order_relaxed);
    });
    return seen.load();
  }
  // Any other layout: TensorIterator coalesces the dims into the fewest
  // strided runs, and refuses a gradient whose elements share memory
  // (an expanded tensor), as every in-place op does.
  TensorIterator iter = TensorIteratorConfig("_amp_foreach_non_finite_check_and_unscale_")
                            .add_output(grad)
                            .resize_outputs(false)
                            .build();
  cpu_for_each(iter, [&](char** data, const int64_t* strides, int64_t n) {
    const int64_t step = strides[0] / static_cast<int64_t>(sizeof(scalar_t));
    if (unscale_run(reinterpret_cast<scalar_t*>(data[0]), step, n, inv)) seen.store(true, std::memory_order_relaxed);
  });
  return seen.load();
}

}  // namespace

bool amp_unscale_and_check_cpu(const TensorBase& grad, float inv_scale) {
  if (grad.numel() == 0) return false;
  return TL_DISPATCH_FLOATING_TYPES(grad.scalar_type(), "_amp_foreach_non_finite_check_and_unscale_cpu",
                                    [&] { return unscale_tensor<scalar_t>(grad, inv_scale); });
}

}  // namespace at::native
