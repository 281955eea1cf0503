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
Tensor sum_out(const Tensor& out, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
               std::optional<ScalarType> dtype) {
  return copy_to_out(out, at::sum(self, dim, keepdim, dtype.value_or(out.scalar_type())));
}
Tensor mean_out(const Tensor& out, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                std::optional<ScalarType> dtype) {
  return copy_to_out(out, at::mean(self, dim, keepdim, dtype.value_or(out.scalar_type())));
}
Tensor prod_out(const Tensor& out, const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  return copy_to_out(out, at::prod(self, dim, keepdim, dtype.value_or(out.scalar_type())));
}

static void check_same_dtype(const Tensor& self, const Tensor& out) {
  TL_CHECK(self.scalar_type() == out.scalar_type(),
           "Expected the dtype for input and out to match, but got ", c10::toString(self.scalar_type()),
           " for input's dtype and ", c10::toString(out.scalar_type()), " for out's dtype.");
}
Tensor amax_out(const Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim) {
  check_same_dtype(self, out);
  return copy_to_out(out, at::amax(self, dim, keepdim));
}
Tensor amin_out(const Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim) {
  check_same_dtype(self, out);
  return copy_to_out(out, at::amin(self, dim, keepdim));
}
Tensor argmax_out(const Tensor& out, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  check_out_dtype("argmax", out, ScalarType::Long);
  return copy_to_out(out, at::argmax(self, dim, keepdim));
}
Tensor argmin_out(const Tensor& out, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  check_out_dtype("argmin", out, ScalarType::Long);
  return copy_to_out(out, at::argmin(self, dim, keepdim));
}

Tensor var_unbiased(const Tensor& self, bool unbiased) {
  return at::var(self, std::nullopt, Scalar(unbiased ? 1 : 0), false);
}
Tensor var_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return at::var(self, dim, Scalar(unbiased ? 1 : 0), keepdim);
}
Tensor var_out(const Tensor& out, const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return copy_to_out(out, at::var(self, dim, Scalar(unbiased ? 1 : 0), keepdim));
}
Tensor var_correction_out(const Tensor& out, const Tensor& self, std::optional<IntArrayRef> dim,
                          const std::optional<Scalar>& correction, bool keepdim) {
  return copy_to_out(out, at::var(self, dim, correction, keepdim));
}
Tensor std_unbiased(const Tensor& self, bool unbiased) {
  return at::std(self, std::nullopt, Scalar(unbiased ? 1 : 0), false);
}
Tensor std_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return at::std(self, dim, Scalar(unbiased ? 1 : 0), keepdim);
}
Tensor std_out(const Tensor& out, const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return copy_to_out(out, at::std(self, dim, Scalar(unbiased ? 1 : 0), keepdim));
}
Tensor std_correction_out(const Tensor& out, const Tensor& self, std::optional<IntArrayRef> dim,
                          const std::optional<Scalar>& correction, bool keepdim) {
  return copy_to_out(out, at::std(self, dim, correction, keepdim));
}

Tensor norm_out(const Tensor& out, const Tensor& self, const std::optional<Scalar>& p, std::optional<IntArrayRef> dim,
                bool keepdim, std::optional<ScalarType> dtype) {
  return copy_to_out(out, at::norm(self, p, dim, keepdim, dtype));
}
Tensor norm_str(const Tensor& self, std::string_view p, std::optional<IntArrayRef> dim, bool keepdim,
                std::optional<ScalarType> dtype) {
  if (p == "fro") {
    // Frobenius norm = the 2-norm of the entries, over at most two dims.
    TL_CHECK(!dim || dim->size() <= 2, "linalg.matrix_norm: dim must be a 2-tuple. Got ", *dim);
    return at::norm(self, Scalar(2.0), dim, keepdim, dtype);
  }
  TL_CHECK_NOT_IMPLEMENTED(p != "nuc", "norm(p='nuc') needs singular values (linalg), not available yet");
  TL_ERROR("norm(): unsupported norm type '", p, "'; expected 'fro', 'nuc' or a number");
}

Tensor any_out(const Tensor& out, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return copy_to_out(out, at::any(self, dim, keepdim));
}
Tensor all_out(const Tensor& out, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return copy_to_out(out, at::all(self, dim, keepdim));
}

Tensor cumsum_out(const Tensor& out, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return copy_to_out(out, at::cumsum(self, dim, dtype.value_or(out.scalar_type())));
}
Tensor cumprod_out(const Tensor& out, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return copy_to_out(out, at::cumprod(self, dim, dtype.value_or(out.scalar_type())));
}
Tensor cumsum_(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  at::copy_(self, at::cumsum(self, dim, dtype.value_or(self.scalar_type())), false);
  return self;
}
Tensor cumprod_(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  at::copy_(self, at::cumprod(self, dim, dtype.value_or(self.scalar_type())), false);
  return self;
}

Tensor logsumexp_out(const Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim) {
  return copy_to_out(out, at::logsumexp(self, dim, keepdim));
}

Tensor max_other(const Tensor& self, const Tensor& other) { return at::maximum(self, other); }
Tensor min_other(const Tensor& self, const Tensor& other) { return at::minimum(self, other); }

// Sums self down to `size` (which must broadcast to self's shape): leading
// extra dims are summed away, dims where size is 1 are summed with keepdim.
Tensor sum_to_size(const Tensor& self, IntArrayRef size) {
  IntArrayRef s = self.sizes();
  int64_t lead = self.dim() - (int64_t)size.size();
  bool ok = lead >= 0;
  for (int64_t i = 0; ok && i < (int64_t)size.size(); ++i)
    ok = size[i] == s[lead + i] || size[i] == 1;
  TL_CHECK(ok, "size {", size, "} is not expandable to size {", s, "}.");
  Tensor r = self;
  if (lead > 0) {
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < lead; ++i) dims.push_back(i);
    r = at::sum(r, IntArrayRef(dims), false, std::nullopt);
  }
  std::vector<int64_t> ones;
  for (int64_t i = 0; i < (int64_t)size.size(); ++i)
    if (size[i] == 1 && r.sizes()[i] != 1) ones.push_back(i);
  if (!ones.empty()) r = at::sum(r, IntArrayRef(ones), true, std::nullopt);
  return r;
}

}  // namespace at::native
