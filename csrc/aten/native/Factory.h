// Shared pieces of the creation ops: option defaults and the range-length
// formulas, used by both the CPU kernels and the Meta shape functions so the
// two can never disagree on a result's shape.
#pragma once
#include <cmath>
#include <limits>
#include <optional>
#include "c10/Generator.h"
#include "c10/Tensor.h"

namespace at::native {

// dtype/device of a factory result: the defaults PyTorch uses (default float
// dtype, CPU) unless given. Only the strided layout exists.
inline TensorOptions factory_options(std::optional<ScalarType> dtype, std::optional<Layout> layout,
                                     std::optional<Device> device, ScalarType default_dtype) {
  TL_CHECK(!layout || *layout == Layout::Strided, "only the strided layout is supported");
  return TensorOptions(dtype.value_or(default_dtype), device.value_or(Device(DeviceType::CPU)));
}
inline TensorOptions factory_options(std::optional<ScalarType> dtype, std::optional<Layout> layout,
                                     std::optional<Device> device) {
  return factory_options(dtype, layout, device, c10::defaultFloatType());
}

// The dtype a Python number gives a tensor: bool -> bool, int -> int64,
// float -> the default float dtype (torch.full((2,), 3) is int64).
inline ScalarType dtype_of_scalar(const Scalar& s) {
  if (s.isBoolean()) return ScalarType::Bool;
  if (s.isIntegral(false)) return ScalarType::Long;
  return c10::defaultFloatType();
}

// Number of elements of arange(start, end, step) in `dtype`, with PyTorch's
// checks and formula: int64 results use exact integer arithmetic, every other
// dtype ceil((end - start) / step) in double.
inline int64_t arange_length(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dtype) {
  double xs = start.toDouble(), xe = end.toDouble(), xst = step.toDouble();
  TL_CHECK(xst > 0 || xst < 0, "arange: step must be nonzero");
  TL_CHECK(std::isfinite(xs) && std::isfinite(xe), "arange: unsupported range: ", xs, " -> ", xe);
  TL_CHECK((xst > 0 && xe >= xs) || (xst < 0 && xe <= xs),
           "arange: upper bound and larger bound inconsistent with step sign");
  double size_d;
  if (dtype == ScalarType::Long) {
    // accscalar_t for int64 is int64: the bounds are truncated first.
    int64_t s = start.toLong(), e = end.toLong(), st = step.toLong();
    TL_CHECK(st != 0, "arange: step must be nonzero");
    int64_t sgn = (st > 0) - (st < 0);
    // Truncating integer division of (e - s + st - sgn) is the exact ceil;
    // 128-bit so that int64 extremes cannot overflow.
    __int128 num = (__int128)e - s + st - sgn;
    __int128 q = num / st;
    size_d = (double)q;
  } else {
    size_d = std::ceil((xe - xs) / xst);
  }
  TL_CHECK(size_d >= 0 && size_d <= (double)std::numeric_limits<int64_t>::max(),
           "arange: invalid size, possible overflow? (start=", start, ", end=", end, ", step=", step, ")");
  return (int64_t)size_d;
}

inline ScalarType arange_default_dtype(const Scalar& a, const Scalar& b, const Scalar& c) {
  bool all_int = a.isIntegral(true) && b.isIntegral(true) && c.isIntegral(true);
  return all_int ? ScalarType::Long : c10::defaultFloatType();
}

inline c10::GeneratorImpl* generator_or_default(const std::optional<c10::Generator>& g) {
  if (g && g->get()) return g->get();
  return c10::defaultGenerator(c10::Device(DeviceType::CPU)).get();
}

}  // namespace at::native
