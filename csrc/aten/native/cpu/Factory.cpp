// arange and linspace on CPU: each element is computed from its index alone
// (no running sums), so chunks can be filled in parallel and results do not
// drift with length.
#include "../../Parallel.h"
#include "../Factory.h"
#include "ops/arange.h"
#include "ops/linspace.h"

namespace at::native {

namespace {
// PyTorch's accumulate types on CPU: half/bfloat16 compute in float,
// float/double in double, integers in int64.
template <class T> struct arange_acc { using type = double; };
template <> struct arange_acc<c10::Half> { using type = float; };
template <> struct arange_acc<c10::BFloat16> { using type = float; };
template <> struct arange_acc<float> { using type = double; };
}  // namespace

TensorBase arange_start_step(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype,
                         std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  (void)pin_memory;
  ScalarType st = dtype.value_or(arange_default_dtype(start, end, step));
  TL_CHECK(st != ScalarType::Bool, "arange: not implemented for 'Bool'");
  int64_t n = arange_length(start, end, step, st);
  int64_t len[1] = {n};
  TensorBase out = make_empty(IntArrayRef(len, 1), factory_options(st, layout, device));
  TL_DISPATCH_NUMERIC_TYPES(st, "arange", [&] {
    scalar_t* p = static_cast<scalar_t*>(out.data_ptr());
    if constexpr (std::is_integral<scalar_t>::value) {
      int64_t s0 = start.toLong(), d = step.toLong();
      parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) p[i] = (scalar_t)(s0 + d * i);
      });
    } else {
      using acc_t = typename arange_acc<scalar_t>::type;
      acc_t s0 = (acc_t)start.toDouble(), d = (acc_t)step.toDouble();
      parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) p[i] = (scalar_t)(s0 + d * (acc_t)i);
      });
    }
  });
  return out;
}

TensorBase linspace(const Scalar& start, const Scalar& end, int64_t steps, std::optional<ScalarType> dtype,
                std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  (void)pin_memory;
  TL_CHECK(steps >= 0, "linspace: number of steps must be non-negative, got ", steps);
  ScalarType st = dtype.value_or(c10::defaultFloatType());
  int64_t len[1] = {steps};
  TensorBase out = make_empty(IntArrayRef(len, 1), factory_options(st, layout, device));
  if (steps == 0) return out;
  TL_DISPATCH_NUMERIC_TYPES(st, "linspace", [&] {
    scalar_t* p = static_cast<scalar_t*>(out.data_ptr());
    // Integers step in double; half/bfloat16/float in float; double in double.
    using step_t = std::conditional_t<std::is_same<scalar_t, double>::value || std::is_integral<scalar_t>::value,
                                      double, float>;
    // Integer endpoints are first values of the dtype (checked: 300 is no
    // uint8, -5 is 251 as in PyTorch), then the steps run between them.
    step_t a, z;
    if constexpr (std::is_integral<scalar_t>::value) {
      a = (step_t)start.to<scalar_t>();
      z = (step_t)end.to<scalar_t>();
    } else {
      a = (step_t)start.toDouble();
      z = (step_t)end.toDouble();
    }
    if (steps == 1) {
      p[0] = (scalar_t)a;
      return;
    }
    step_t d = (z - a) / (step_t)(steps - 1);
    int64_t half = steps / 2;
    // The first half counts up from start, the second half down from end, so
    // both endpoints are exact and the error is symmetric (PyTorch's scheme).
    parallel_for(0, steps, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        p[i] = i < half ? (scalar_t)(a + d * (step_t)i) : (scalar_t)(z - d * (step_t)(steps - i - 1));
    });
  });
  return out;
}

}  // namespace at::native
