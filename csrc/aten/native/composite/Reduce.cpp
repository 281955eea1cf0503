// Reductions built from other reductions: out= variants (compute, then
// resize and copy into out, so every backend with the functional kernel gets
// them), the unbiased/dim overloads of var/std, norm('fro'), in-place scans,
// max/min of two tensors, and sum_to_size (autograd's broadcast reduction).
#include "../ReduceUtils.h"
#include "ops/all.h"
#include "ops/amax.h"
#include "ops/amin.h"
#include "ops/any.h"
#include "ops/argmax.h"
#include "ops/argmin.h"
#include "ops/copy.h"
#include "ops/cumprod.h"
#include "ops/cumsum.h"
#include "ops/logsumexp.h"
#include "ops/max.h"
#include "ops/maximum.h"
#include "ops/mean.h"
#include "ops/min.h"
#include "ops/minimum.h"
#include "ops/norm.h"
#include "ops/prod.h"
#include "ops/std.h"
#include "ops/sum.h"
#include "ops/sum_to_size.h"
#include "ops/var.h"

namespace at::native {

// sum/mean/prod/cumsum with out=: without dtype=, the out tensor's dtype is
// the computation dtype (PyTorch's rule).
TensorBase sum_out(const TensorBase& out, const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim,
               std::optional<ScalarType> dtype) {
  return copy_to_out(out, at::_ops::sum(self, dim, keepdim, dtype.value_or(out.scalar_type())));
}
TensorBase mean_out(const TensorBase& out, const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim,
                std::optional<ScalarType> dtype) {
  return copy_to_out(out, at::_ops::mean(self, dim, keepdim, dtype.value_or(out.scalar_type())));
}
TensorBase prod_out(const TensorBase& out, const TensorBase& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  return copy_to_out(out, at::_ops::prod(self, dim, keepdim, dtype.value_or(out.scalar_type())));
}

static void check_same_dtype(const TensorBase& self, const TensorBase& out) {
  TL_CHECK(self.scalar_type() == out.scalar_type(),
           "Expected the dtype for input and out to match, but got ", c10::toString(self.scalar_type()),
           " for input's dtype and ", c10::toString(out.scalar_type()), " for out's dtype.");
}
TensorBase amax_out(const TensorBase& out, const TensorBase& self, IntArrayRef dim, bool keepdim) {
  check_same_dtype(self, out);
  return copy_to_out(out, at::_ops::amax(self, dim, keepdim));
}
TensorBase amin_out(const TensorBase& out, const TensorBase& self, IntArrayRef dim, bool keepdim) {
  check_same_dtype(self, out);
  return copy_to_out(out, at::_ops::amin(self, dim, keepdim));
}
// max/min over a dim with out=(values, indices): values keep self's dtype,
// indices are int64, as in PyTorch.
static std::tuple<TensorBase, TensorBase> value_index_out(const char* op, const TensorBase& values,
                                                          const TensorBase& indices, const TensorBase& self,
                                                          std::tuple<TensorBase, TensorBase> r) {
  check_same_dtype(self, values);
  check_out_dtype(op, indices, ScalarType::Long);
  copy_to_out(values, std::get<0>(r));
  copy_to_out(indices, std::get<1>(r));
  return {values, indices};
}
std::tuple<TensorBase, TensorBase> max_dim_out(const TensorBase& max, const TensorBase& max_values,
                                               const TensorBase& self, int64_t dim, bool keepdim) {
  return value_index_out("max", max, max_values, self, at::_ops::max(self, dim, keepdim));
}
std::tuple<TensorBase, TensorBase> min_dim_out(const TensorBase& min, const TensorBase& min_values,
                                               const TensorBase& self, int64_t dim, bool keepdim) {
  return value_index_out("min", min, min_values, self, at::_ops::min(self, dim, keepdim));
}
TensorBase argmax_out(const TensorBase& out, const TensorBase& self, std::optional<int64_t> dim, bool keepdim) {
  check_out_dtype("argmax", out, ScalarType::Long);
  return copy_to_out(out, at::_ops::argmax(self, dim, keepdim));
}
TensorBase argmin_out(const TensorBase& out, const TensorBase& self, std::optional<int64_t> dim, bool keepdim) {
  check_out_dtype("argmin", out, ScalarType::Long);
  return copy_to_out(out, at::_ops::argmin(self, dim, keepdim));
}

TensorBase var_unbiased(const TensorBase& self, bool unbiased) {
  return at::_ops::var(self, std::nullopt, Scalar(unbiased ? 1 : 0), false);
}
TensorBase var_dim(const TensorBase& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return at::_ops::var(self, dim, Scalar(unbiased ? 1 : 0), keepdim);
}
TensorBase var_out(const TensorBase& out, const TensorBase& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return copy_to_out(out, at::_ops::var(self, dim, Scalar(unbiased ? 1 : 0), keepdim));
}
TensorBase var_correction_out(const TensorBase& out, const TensorBase& self, std::optional<IntArrayRef> dim,
                          const std::optional<Scalar>& correction, bool keepdim) {
  return copy_to_out(out, at::_ops::var(self, dim, correction, keepdim));
}
TensorBase std_unbiased(const TensorBase& self, bool unbiased) {
  return at::_ops::std(self, std::nullopt, Scalar(unbiased ? 1 : 0), false);
}
TensorBase std_dim(const TensorBase& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return at::_ops::std(self, dim, Scalar(unbiased ? 1 : 0), keepdim);
}
TensorBase std_out(const TensorBase& out, const TensorBase& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return copy_to_out(out, at::_ops::std(self, dim, Scalar(unbiased ? 1 : 0), keepdim));
}
TensorBase std_correction_out(const TensorBase& out, const TensorBase& self, std::optional<IntArrayRef> dim,
                          const std::optional<Scalar>& correction, bool keepdim) {
  return copy_to_out(out, at::_ops::std(self, dim, correction, keepdim));
}

TensorBase norm_out(const TensorBase& out, const TensorBase& self, const std::optional<Scalar>& p, std::optional<IntArrayRef> dim,
                bool keepdim, std::optional<ScalarType> dtype) {
  return copy_to_out(out, at::_ops::norm(self, p, dim, keepdim, dtype));
}
TensorBase norm_str(const TensorBase& self, std::string_view p, std::optional<IntArrayRef> dim, bool keepdim,
                std::optional<ScalarType> dtype) {
  if (p == "fro") {
    // Frobenius norm = the 2-norm of the entries, over at most two dims.
    TL_CHECK(!dim || dim->size() <= 2, "linalg.matrix_norm: dim must be a 2-tuple. Got ", *dim);
    return at::_ops::norm(self, Scalar(2.0), dim, keepdim, dtype);
  }
  TL_CHECK_NOT_IMPLEMENTED(p != "nuc", "norm(p='nuc') needs singular values (linalg), not available yet");
  TL_ERROR("norm(): unsupported norm type '", p, "'; expected 'fro', 'nuc' or a number");
}

TensorBase any_out(const TensorBase& out, const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return copy_to_out(out, at::_ops::any(self, dim, keepdim));
}
TensorBase all_out(const TensorBase& out, const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return copy_to_out(out, at::_ops::all(self, dim, keepdim));
}

TensorBase cumsum_out(const TensorBase& out, const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  return copy_to_out(out, at::_ops::cumsum(self, dim, dtype.value_or(out.scalar_type())));
}
TensorBase cumprod_out(const TensorBase& out, const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  return copy_to_out(out, at::_ops::cumprod(self, dim, dtype.value_or(out.scalar_type())));
}
TensorBase cumsum_(const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  at::_ops::copy_(self, at::_ops::cumsum(self, dim, dtype.value_or(self.scalar_type())), false);
  return self;
}
TensorBase cumprod_(const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  at::_ops::copy_(self, at::_ops::cumprod(self, dim, dtype.value_or(self.scalar_type())), false);
  return self;
}

TensorBase logsumexp_out(const TensorBase& out, const TensorBase& self, IntArrayRef dim, bool keepdim) {
  return copy_to_out(out, at::_ops::logsumexp(self, dim, keepdim));
}

TensorBase max_other(const TensorBase& self, const TensorBase& other) { return at::_ops::maximum(self, other); }
TensorBase min_other(const TensorBase& self, const TensorBase& other) { return at::_ops::minimum(self, other); }

// Sums self down to `size` (which must broadcast to self's shape): leading
// extra dims are summed away, dims where size is 1 are summed with keepdim.
TensorBase sum_to_size(const TensorBase& self, IntArrayRef size) {
  IntArrayRef s = self.sizes();
  int64_t lead = self.dim() - (int64_t)size.size();
  bool ok = lead >= 0;
  for (int64_t i = 0; ok && i < (int64_t)size.size(); ++i)
    ok = size[i] == s[lead + i] || size[i] == 1;
  TL_CHECK(ok, "size {", size, "} is not expandable to size {", s, "}.");
  TensorBase r = self;
  if (lead > 0) {
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < lead; ++i) dims.push_back(i);
    r = at::_ops::sum(r, IntArrayRef(dims), false, std::nullopt);
  }
  std::vector<int64_t> ones;
  for (int64_t i = 0; i < (int64_t)size.size(); ++i)
    if (size[i] == 1 && r.sizes()[i] != 1) ones.push_back(i);
  if (!ones.empty()) r = at::_ops::sum(r, IntArrayRef(ones), true, std::nullopt);
  return r;
}

}  // namespace at::native
