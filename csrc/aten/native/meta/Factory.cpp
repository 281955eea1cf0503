// Meta (shape-only) kernels of the creation and random ops: the same argument
// checks as the CPU kernels, no data.
#include "../Factory.h"
#include "../../TensorIterator.h"
#include "ops/arange.h"
#include "ops/bernoulli.h"
#include "ops/linspace.h"
#include "ops/normal.h"
#include "ops/random.h"
#include "ops/randperm.h"
#include "ops/uniform.h"

namespace at::native {

TensorBase arange_start_step_meta(const Scalar& start, const Scalar& end, const Scalar& step,
                              std::optional<ScalarType> dtype, std::optional<Layout> layout,
                              std::optional<Device> device, std::optional<bool>) {
  ScalarType st = dtype.value_or(arange_default_dtype(start, end, step));
  TL_CHECK(st != ScalarType::Bool, "arange: not implemented for 'Bool'");
  int64_t len[1] = {arange_length(start, end, step, st)};
  return make_empty(IntArrayRef(len, 1), factory_options(st, layout, device));
}

TensorBase linspace_meta(const Scalar&, const Scalar&, int64_t steps, std::optional<ScalarType> dtype,
                     std::optional<Layout> layout, std::optional<Device> device, std::optional<bool>) {
  TL_CHECK(steps >= 0, "linspace: number of steps must be non-negative, got ", steps);
  int64_t len[1] = {steps};
  return make_empty(IntArrayRef(len, 1), factory_options(dtype, layout, device));
}

TensorBase randperm_meta(int64_t n, const std::optional<c10::Generator>&, std::optional<ScalarType> dtype,
                     std::optional<Layout> layout, std::optional<Device> device, std::optional<bool>) {
  TL_CHECK(n >= 0, "randperm: n must be non-negative, got ", n);
  int64_t len[1] = {n};
  return make_empty(IntArrayRef(len, 1), factory_options(dtype, layout, device, ScalarType::Long));
}

TensorBase uniform_meta_(const TensorBase& self, double from, double to, const std::optional<c10::Generator>&) {
  TL_CHECK(isFloatingType(self.scalar_type()), "uniform_: not implemented for '", self.scalar_type(), "'");
  TL_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
  self.bump_version();
  return self;
}

TensorBase normal_meta_(const TensorBase& self, double, double std, const std::optional<c10::Generator>&) {
  TL_CHECK(isFloatingType(self.scalar_type()), "normal_: not implemented for '", self.scalar_type(), "'");
  TL_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  self.bump_version();
  return self;
}

TensorBase random_from_meta_(const TensorBase& self, int64_t from, std::optional<int64_t> to,
                         const std::optional<c10::Generator>&) {
  TL_CHECK(!to || from < *to, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", *to);
  self.bump_version();
  return self;
}

TensorBase bernoulli_tensor_meta_(const TensorBase& self, const TensorBase& p, const std::optional<c10::Generator>&) {
  TL_CHECK(isFloatingType(p.scalar_type()), "bernoulli_: expected a floating point tensor of probabilities, got ",
           p.scalar_type());
  DimVector s = infer_size(self.sizes(), p.sizes());
  TL_CHECK(s.ref().equals(self.sizes()), "bernoulli_: probabilities of shape ", p.sizes(),
           " cannot be broadcast to ", self.sizes());
  self.bump_version();
  return self;
}

TensorBase bernoulli_float_meta_(const TensorBase& self, double p, const std::optional<c10::Generator>&) {
  TL_CHECK(p >= 0 && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  self.bump_version();
  return self;
}

}  // namespace at::native
