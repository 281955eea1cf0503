// Random distributions: argument checks shared by every backend, the Meta
// (shape-only) kernels, and the compositions that need no kernel of their
// own (out= variants, normal(float, float, size)).
#include "RandomDists.h"
#include <cmath>
#include "../TensorIterator.h"
#include "Copy.h"
#include "Factory.h"
#include "ops/binomial.h"
#include "ops/cauchy.h"
#include "ops/copy.h"
#include "ops/empty.h"
#include "ops/exponential.h"
#include "ops/geometric.h"
#include "ops/log_normal.h"
#include "ops/multinomial.h"
#include "ops/normal.h"
#include "ops/poisson.h"

namespace at::native {

// ---------------------------------------------------------------- checks

DimVector multinomial_check(const TensorBase& self, int64_t num_samples, bool replacement) {
  TL_CHECK(isFloatingType(self.scalar_type()), "multinomial only supports floating-point dtypes for input, got: ",
           self.scalar_type());
  TL_CHECK(self.dim() == 1 || self.dim() == 2, "prob_dist must be 1 or 2 dim");
  TL_CHECK(num_samples > 0, "cannot sample n_sample <= 0 samples");
  int64_t n_categories = self.sizes()[self.dim() - 1];
  TL_CHECK(replacement || num_samples <= n_categories,
           "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  // PyTorch's limit (its CUDA kernel samples in float); kept so code that
  // runs here runs there.
  TL_CHECK(n_categories <= ((int64_t)1 << 24), "number of categories cannot exceed 2^24");
  TL_CHECK(n_categories > 0, "multinomial: cannot sample from a distribution with 0 categories");
  DimVector sizes;
  if (self.dim() == 2) sizes.push_back(self.sizes()[0]);
  sizes.push_back(num_samples);
  return sizes;
}

std::optional<double> wrapped_number_value(const TensorBase& t) {
  if (!t.defined() || !t.unsafeGetTensorImpl()->is_wrapped_number()) return std::nullopt;
  TensorBase d = make_empty(IntArrayRef(), TensorOptions(ScalarType::Double));
  copy_into(d, t);
  return *static_cast<const double*>(d.data_ptr());
}

NormalPlan normal_plan(const TensorBase* mean, const TensorBase* std) {
  const TensorBase& first = mean ? *mean : *std;
  // The result takes mean's dtype (std's when mean is a number), as in PyTorch.
  ScalarType st = first.scalar_type();
  TL_CHECK_NOT_IMPLEMENTED(isFloatingType(st), "\"normal\" not implemented for '", st, "'");
  NormalPlan plan{DimVector(first.sizes()), st};
  if (mean && std) {
    TL_CHECK(mean->device() == std->device(), "normal: expected mean and std on the same device, got ",
             mean->device(), " and ", std->device());
    plan.sizes = infer_size(mean->sizes(), std->sizes());
  }
  return plan;
}

void check_normal_std(double std) { TL_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std); }

void check_exponential(const TensorBase& self, double lambd) {
  TL_CHECK(isFloatingType(self.scalar_type()),
           "Exponential distribution is a continuous probability distribution. dtype must be a floating point but "
           "you specified ", self.scalar_type());
  TL_CHECK(lambd > 0.0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
}

void check_cauchy(const TensorBase& self, double sigma) {
  TL_CHECK(isFloatingType(self.scalar_type()),
           "Cauchy distribution is a continuous probability distribution. dtype must be a floating point but you "
           "specified ", self.scalar_type());
  TL_CHECK(sigma > 0.0, "cauchy_ expects sigma > 0.0, but found sigma=", sigma);
}

void check_geometric(const TensorBase& self, double p) {
  TL_CHECK_NOT_IMPLEMENTED(self.scalar_type() != ScalarType::Bool, "\"geometric_\" not implemented for 'Bool'");
  TL_CHECK(p > 0 && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
}

void check_log_normal(const TensorBase& self, double std) {
  TL_CHECK_NOT_IMPLEMENTED(isFloatingType(self.scalar_type()), "\"log_normal_\" not implemented for '",
                           self.scalar_type(), "'");
  TL_CHECK(std > 0.0, "log_normal_ expects std > 0.0, but found std=", std);
}

void check_poisson(const TensorBase& self) {
  TL_CHECK_NOT_IMPLEMENTED(isFloatingType(self.scalar_type()), "\"poisson\" not implemented for '",
                           self.scalar_type(), "'");
}

DimVector binomial_check(const TensorBase& count, const TensorBase& prob) {
  // A ValueError in PyTorch too.
  TL_CHECK_VALUE(isFloatingType(count.scalar_type()), "binomial only supports floating-point dtypes for count, got: ",
                 count.scalar_type());
  TL_CHECK(prob.scalar_type() == count.scalar_type(), "binomial: found dtype ", prob.scalar_type(),
           " for prob but expected ", count.scalar_type(), " (the dtype of count)");
  TL_CHECK(count.device() == prob.device(), "binomial: expected count and prob on the same device, got ",
           count.device(), " and ", prob.device());
  return infer_size(count.sizes(), prob.sizes());
}

// ---------------------------------------------------------------- Meta kernels

TensorBase multinomial_meta(const TensorBase& self, int64_t num_samples, bool replacement,
                            const std::optional<c10::Generator>&) {
  DimVector sizes = multinomial_check(self, num_samples, replacement);
  return make_empty(sizes, TensorOptions(ScalarType::Long, self.device()));
}

TensorBase normal_tensor_float_meta(const TensorBase& mean, double std, const std::optional<c10::Generator>&) {
  check_normal_std(std);
  NormalPlan plan = normal_plan(&mean, nullptr);
  return make_empty(plan.sizes, TensorOptions(plan.dtype, mean.device()));
}

TensorBase normal_float_tensor_meta(double, const TensorBase& std, const std::optional<c10::Generator>&) {
  NormalPlan plan = normal_plan(nullptr, &std);
  return make_empty(plan.sizes, TensorOptions(plan.dtype, std.device()));
}

TensorBase normal_tensor_tensor_meta(const TensorBase& mean, const TensorBase& std,
                                     const std::optional<c10::Generator>& generator) {
  if (auto v = wrapped_number_value(std)) return normal_tensor_float_meta(mean, *v, generator);
  NormalPlan plan = normal_plan(&mean, &std);
  return make_empty(plan.sizes, TensorOptions(plan.dtype, mean.device()));
}

TensorBase poisson_meta(const TensorBase& self, const std::optional<c10::Generator>&) {
  check_poisson(self);
  return make_empty(self.sizes(), TensorOptions(self.scalar_type(), self.device()));
}

TensorBase binomial_meta(const TensorBase& count, const TensorBase& prob, const std::optional<c10::Generator>&) {
  DimVector sizes = binomial_check(count, prob);
  return make_empty(sizes, TensorOptions(count.scalar_type(), count.device()));
}

TensorBase exponential_meta_(const TensorBase& self, double lambd, const std::optional<c10::Generator>&) {
  check_exponential(self, lambd);
  self.bump_version();
  return self;
}

TensorBase cauchy_meta_(const TensorBase& self, double, double sigma, const std::optional<c10::Generator>&) {
  check_cauchy(self, sigma);
  self.bump_version();
  return self;
}

TensorBase geometric_meta_(const TensorBase& self, double p, const std::optional<c10::Generator>&) {
  check_geometric(self, p);
  self.bump_version();
  return self;
}

TensorBase log_normal_meta_(const TensorBase& self, double, double std, const std::optional<c10::Generator>&) {
  check_log_normal(self, std);
  self.bump_version();
  return self;
}

// ---------------------------------------------------------------- compositions

namespace {
// out= of the tensor-parameter samplers: like PyTorch, out must already have
// the result's shape (it is not resized) and a floating dtype; the sample is
// drawn in the result dtype and cast into out.
TensorBase copy_sample_into(const TensorBase& out, const TensorBase& sample, const char* op) {
  TL_CHECK_NOT_IMPLEMENTED(isFloatingType(out.scalar_type()), "\"", op, "\" not implemented for '",
                           out.scalar_type(), "'");
  TL_CHECK(out.sizes().equals(sample.sizes()), op, ": out has shape ", out.sizes(), " but the result has shape ",
           sample.sizes());
  return at::_ops::copy_(out, sample, false);
}
}  // namespace

TensorBase multinomial_out(const TensorBase& out, const TensorBase& self, int64_t num_samples, bool replacement,
                           const std::optional<c10::Generator>& generator) {
  TL_CHECK(out.scalar_type() == ScalarType::Long, "multinomial expects Long tensor out, got: ", out.scalar_type());
  TensorBase r = at::_ops::multinomial(self, num_samples, replacement, generator);
  if (!out.sizes().equals(r.sizes())) out.unsafeGetTensorImpl()->resize(r.sizes());
  return at::_ops::copy_(out, r, false);
}

TensorBase normal_tensor_float_out(const TensorBase& out, const TensorBase& mean, double std,
                                   const std::optional<c10::Generator>& generator) {
  return copy_sample_into(out, at::_ops::normal(mean, std, generator), "normal");
}

TensorBase normal_float_tensor_out(const TensorBase& out, double mean, const TensorBase& std,
                                   const std::optional<c10::Generator>& generator) {
  return copy_sample_into(out, at::_ops::normal(mean, std, generator), "normal");
}

TensorBase normal_tensor_tensor_out(const TensorBase& out, const TensorBase& mean, const TensorBase& std,
                                    const std::optional<c10::Generator>& generator) {
  return copy_sample_into(out, at::_ops::normal(mean, std, generator), "normal");
}

TensorBase normal_float_float(double mean, double std, IntArrayRef size, const std::optional<c10::Generator>& generator,
                              std::optional<ScalarType> dtype, std::optional<Layout> layout,
                              std::optional<Device> device, std::optional<bool> pin_memory) {
  check_normal_std(std);
  TensorBase t = at::_ops::empty(size, dtype, layout, device, pin_memory, std::nullopt);
  return at::_ops::normal_(t, mean, std, generator);
}

TensorBase normal_float_float_out(const TensorBase& out, double mean, double std, IntArrayRef size,
                                  const std::optional<c10::Generator>& generator) {
  check_normal_std(std);
  if (!out.sizes().equals(size)) out.unsafeGetTensorImpl()->resize(size);
  return at::_ops::normal_(out, mean, std, generator);
}

}  // namespace at::native
