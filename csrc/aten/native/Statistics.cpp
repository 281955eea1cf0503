// Statistics ops, the device-independent half: quantile/nanquantile as
// composites (PyTorch's construction over sort, gather and lerp, so autograd
// differentiates them and Meta runs them), the out= forms, the histogram
// checks shared by the CPU and Meta kernels, and the Meta kernels.
#include "Statistics.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <tuple>
#include <vector>

#include "Copy.h"
#include "ReduceUtils.h"
#include "ops/_to_copy.h"
#include "ops/any.h"
#include "ops/broadcast_tensors.h"
#include "ops/ceil.h"
#include "ops/copy.h"
#include "ops/flatten.h"
#include "ops/floor.h"
#include "ops/full_like.h"
#include "ops/gather.h"
#include "ops/histogram.h"
#include "ops/isnan.h"
#include "ops/lerp.h"
#include "ops/logcumsumexp.h"
#include "ops/logical_not.h"
#include "ops/lt.h"
#include "ops/masked_fill.h"
#include "ops/mul.h"
#include "ops/nanquantile.h"
#include "ops/quantile.h"
#include "ops/reshape.h"
#include "ops/round.h"
#include "ops/sort.h"
#include "ops/squeeze.h"
#include "ops/sub.h"
#include "ops/sum.h"
#include "ops/transpose.h"
#include "ops/unsqueeze.h"

namespace at::native {

// ================================================================ quantile

namespace {

enum class QuantileMode { Linear, Lower, Higher, Midpoint, Nearest };

QuantileMode quantile_mode(const char* op, std::string_view s) {
  if (s == "linear") return QuantileMode::Linear;
  if (s == "lower") return QuantileMode::Lower;
  if (s == "higher") return QuantileMode::Higher;
  if (s == "midpoint") return QuantileMode::Midpoint;
  if (s == "nearest") return QuantileMode::Nearest;
  TL_ERROR(op, "() interpolation must be one of linear, lower, higher, midpoint or nearest. Got ", s);
}

// A Python-number-like operand: takes part in type promotion by category only.
TensorBase number(double v) {
  TensorBase t = c10::scalar_to_tensor(Scalar(v), ScalarType::Double);
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}
TensorBase number(int64_t v) {
  TensorBase t = c10::scalar_to_tensor(Scalar(v), ScalarType::Long);
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

bool is_quantile_dtype(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half || t == ScalarType::BFloat16;
}

void quantile_checks(const char* op, const TensorBase& self, const TensorBase& q) {
  TL_CHECK(self.numel() > 0, op, "() input tensor must be non-empty");
  TL_CHECK(q.dim() <= 1, op, "() q must be a scalar or 1D tensor");
  TL_CHECK(is_quantile_dtype(self.scalar_type()), op,
           "() input tensor must be a floating point tensor (float16, bfloat16, float or double), but got ",
           c10::toString(self.scalar_type()));
  TL_CHECK(self.scalar_type() == q.scalar_type(), op, "() q tensor must be same dtype as the input tensor, but got ",
           c10::toString(q.scalar_type()), " for q and ", c10::toString(self.scalar_type()), " for the input");
  TL_CHECK(self.device() == q.device(), op, "() q tensor must be on the same device as the input tensor");
  // Values are only readable on the CPU; elsewhere (Meta) the check is skipped, as PyTorch skips it off the CPU.
  if (q.device().type == DeviceType::CPU) {
    TensorBase qc = contiguous(q);
    bool ok = true;
    TL_DISPATCH_FLOATING_TYPES(qc.scalar_type(), op, [&] {
      const scalar_t* p = qc.data_ptr<scalar_t>();
      for (int64_t i = 0; i < qc.numel() && ok; ++i) {
        double v = static_cast<double>(p[i]);
        ok = v >= 0 && v <= 1;
      }
    });
    TL_CHECK(ok, op, "() q values must be in the range [0, 1]");
  }
}

// Result shape: q's length (if q is 1-D), then self's shape with `dim`
// reduced (all dims when dim is None).
std::vector<int64_t> quantile_output_shape(const TensorBase& self, const TensorBase& q, std::optional<int64_t> dim,
                                           bool keepdim, int64_t wrapped_dim) {
  std::vector<int64_t> shape;
  if (dim && self.dim() > 0) {
    shape.assign(self.sizes().begin(), self.sizes().end());
    if (keepdim) shape[wrapped_dim] = 1;
    else shape.erase(shape.begin() + wrapped_dim);
  } else if (keepdim) {
    shape.assign(self.dim(), 1);
  }
  if (q.dim() > 0) shape.insert(shape.begin(), q.numel());
  return shape;
}

TensorBase quantile_impl(const char* op, const TensorBase& self, const TensorBase& q, std::optional<int64_t> dim,
                         bool keepdim, std::string_view interpolation, bool ignore_nan) {
  quantile_checks(op, self, q);
  const QuantileMode mode = quantile_mode(op, interpolation);
  const int64_t wrapped_dim = dim ? maybe_wrap_dim(*dim, self.dim()) : 0;
  if (self.scalar_type() == ScalarType::Half || self.scalar_type() == ScalarType::BFloat16) {
    // Ranks and interpolation weights need float32 resolution: half cannot
    // even hold the rank of element 2049. Compute in float, round once.
    TensorBase r = quantile_impl(op, at::_ops::_to_copy(self, ScalarType::Float), at::_ops::_to_copy(q, ScalarType::Float),
                                 dim, keepdim, interpolation, ignore_nan);
    return at::_ops::_to_copy(r, self.scalar_type());
  }
  std::vector<int64_t> out_shape = quantile_output_shape(self, q, dim, keepdim, wrapped_dim);

  // The reduced dim last, sorted (NaN sorts last).
  TensorBase sorted;
  if (!dim) sorted = std::get<0>(at::_ops::sort(at::_ops::flatten(self, 0, -1), -1, false));
  else if (wrapped_dim == self.dim() - 1) sorted = std::get<0>(at::_ops::sort(self, -1, false));
  else sorted = std::get<0>(at::_ops::sort(at::_ops::transpose(at::_ops::unsqueeze(self, -1), wrapped_dim, -1), -1, false));

  // View as (output dims without q..., n).
  if (q.dim() == 0) out_shape.insert(out_shape.begin(), q.numel());
  std::vector<int64_t> in_shape(out_shape.begin() + 1, out_shape.end());
  in_shape.push_back(sorted.sizes().back());
  sorted = at::_ops::reshape(sorted, IntArrayRef(in_shape));
  const int64_t n = sorted.sizes().back();
  // Ranks are computed in floating point: beyond 2^24 float32 cannot hold every index.
  TL_CHECK(n <= (int64_t(1) << 24), op, "() input tensor is too large");

  // q in [0, 1] -> a fractional rank in [0, n).
  TensorBase ranks;
  if (ignore_nan) {
    // Ranks among the non-NaN values; an all-NaN row gets rank 0, whose value is NaN.
    TensorBase count = at::_ops::sum(at::_ops::logical_not(at::_ops::isnan(sorted)), IntArrayRef{-1}, true, std::nullopt);
    ranks = at::_ops::mul(q, at::_ops::sub(count, number(int64_t(1)), Scalar(1)));
    ranks = at::_ops::masked_fill(ranks, at::_ops::lt(ranks, number(0.0)), Scalar(0));
  } else {
    // A row holding a NaN answers NaN: its rank is the last index, where sort put the NaN.
    std::vector<TensorBase> both = at::_ops::broadcast_tensors(
        {at::_ops::mul(q, number(n - 1)), at::_ops::any(at::_ops::isnan(sorted), IntArrayRef{-1}, true)});
    ranks = at::_ops::masked_fill(both[0], both[1], Scalar(n - 1));
  }
  if (mode == QuantileMode::Lower) ranks = at::_ops::floor(ranks);
  else if (mode == QuantileMode::Higher) ranks = at::_ops::ceil(ranks);
  else if (mode == QuantileMode::Nearest) ranks = at::_ops::round(ranks);  // half to even, as PyTorch and NumPy

  TensorBase ranks_below = at::_ops::_to_copy(ranks, ScalarType::Long);
  TensorBase result = at::_ops::gather(sorted, -1, ranks_below, false);
  if (mode == QuantileMode::Linear || mode == QuantileMode::Midpoint) {
    TensorBase weights = mode == QuantileMode::Midpoint ? at::_ops::full_like(ranks, Scalar(0.5))
                                                        : at::_ops::sub(ranks, ranks_below, Scalar(1));
    TensorBase ranks_above = at::_ops::_to_copy(at::_ops::ceil(ranks), ScalarType::Long);
    TensorBase above = at::_ops::gather(sorted, -1, ranks_above, false);
    result = at::_ops::lerp(result, above, weights);
  }
  if (q.dim() == 0) return at::_ops::squeeze(result, int64_t(-1));
  // Quantiles to the front.
  return at::_ops::squeeze(at::_ops::transpose(at::_ops::unsqueeze(result, 0), 0, -1), int64_t(-1));
}

TensorBase scalar_q(const char* op, const TensorBase& self, double q) {
  TL_CHECK(q >= 0 && q <= 1, op, "() q must be in the range [0, 1] but got ", q);
  return c10::scalar_to_tensor(Scalar(q), self.scalar_type(), self.device());
}

TensorBase quantile_to_out(const char* op, const TensorBase& out, const TensorBase& self, const TensorBase& r) {
  TL_CHECK(out.scalar_type() == self.scalar_type(), op, "() out tensor must be same dtype as the input tensor, but got ",
           c10::toString(out.scalar_type()), " for out and ", c10::toString(self.scalar_type()), " for the input");
  return copy_to_out(out, r);
}

// The Python binding converts a number passed for `q` into a wrapped-number
// tensor when it tries the Tensor overload first: such a q means the float
// overload (PyTorch's quantile.scalar), with its range message and self's dtype.
TensorBase q_tensor(const char* op, const TensorBase& self, const TensorBase& q) {
  if (!q.unsafeGetTensorImpl()->is_wrapped_number() || q.device().type != DeviceType::CPU) return q;
  double v = 0;
  TL_DISPATCH_ALL_TYPES(q.scalar_type(), op, [&] { v = static_cast<double>(*q.data_ptr<scalar_t>()); });
  return scalar_q(op, self, v);
}

}  // namespace

TensorBase quantile(const TensorBase& self, const TensorBase& q, std::optional<int64_t> dim, bool keepdim,
                    std::string_view interpolation) {
  return quantile_impl("quantile", self, q_tensor("quantile", self, q), dim, keepdim, interpolation, false);
}
TensorBase quantile_scalar(const TensorBase& self, double q, std::optional<int64_t> dim, bool keepdim,
                           std::string_view interpolation) {
  return quantile_impl("quantile", self, scalar_q("quantile", self, q), dim, keepdim, interpolation, false);
}
TensorBase nanquantile(const TensorBase& self, const TensorBase& q, std::optional<int64_t> dim, bool keepdim,
                       std::string_view interpolation) {
  return quantile_impl("nanquantile", self, q_tensor("nanquantile", self, q), dim, keepdim, interpolation, true);
}
TensorBase nanquantile_scalar(const TensorBase& self, double q, std::optional<int64_t> dim, bool keepdim,
                              std::string_view interpolation) {
  return quantile_impl("nanquantile", self, scalar_q("nanquantile", self, q), dim, keepdim, interpolation, true);
}

TensorBase quantile_out(const TensorBase& out, const TensorBase& self, const TensorBase& q, std::optional<int64_t> dim,
                        bool keepdim, std::string_view interpolation) {
  return quantile_to_out("quantile", out, self, at::_ops::quantile(self, q, dim, keepdim, interpolation));
}
TensorBase quantile_scalar_out(const TensorBase& out, const TensorBase& self, double q, std::optional<int64_t> dim,
                               bool keepdim, std::string_view interpolation) {
  return quantile_to_out("quantile", out, self, at::_ops::quantile(self, q, dim, keepdim, interpolation));
}
TensorBase nanquantile_out(const TensorBase& out, const TensorBase& self, const TensorBase& q,
                           std::optional<int64_t> dim, bool keepdim, std::string_view interpolation) {
  return quantile_to_out("nanquantile", out, self, at::_ops::nanquantile(self, q, dim, keepdim, interpolation));
}
TensorBase nanquantile_scalar_out(const TensorBase& out, const TensorBase& self, double q, std::optional<int64_t> dim,
                                  bool keepdim, std::string_view interpolation) {
  return quantile_to_out("nanquantile", out, self, at::_ops::nanquantile(self, q, dim, keepdim, interpolation));
}

// ================================================================ logcumsumexp

TensorBase logcumsumexp_meta(const TensorBase& self, int64_t dim) {
  maybe_wrap_dim(dim, self.dim());
  TL_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(self.scalar_type()), "\"logcumsumexp\" not implemented for '",
                           c10::toString(self.scalar_type()), "'");
  return make_empty(self.sizes(), self.options());
}

TensorBase logcumsumexp_out(const TensorBase& out, const TensorBase& self, int64_t dim) {
  TL_CHECK(out.scalar_type() == self.scalar_type(), "logcumsumexp: expected out tensor to have dtype ",
           c10::toString(self.scalar_type()), ", but got ", c10::toString(out.scalar_type()), " instead");
  return copy_to_out(out, at::_ops::logcumsumexp(self, dim));
}

// ================================================================ histogram checks

void histogramdd_check_input(const char* op, const TensorBase& self2d, const std::optional<TensorBase>& weight) {
  TL_CHECK(self2d.dim() >= 2, op, ": input tensor should have at least 2 dimensions, but got ", self2d.dim());
  TL_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(self2d.scalar_type()), "\"histogramdd\" not implemented for '",
                           c10::toString(self2d.scalar_type()), "'");
  if (weight && weight->defined()) {
    TL_CHECK(weight->scalar_type() == self2d.scalar_type(), op, ": if weight tensor is provided, input tensor and ",
             "weight tensor should have the same dtype, but got input(", c10::toString(self2d.scalar_type()),
             "), and weight(", c10::toString(weight->scalar_type()), ")");
    IntArrayRef lead(self2d.sizes().data(), self2d.dim() - 1);
    TL_CHECK(weight->sizes() == lead, op, ": if weight tensor is provided it should have the same shape as the ",
             "input tensor excluding its innermost dimension, but got input with shape ", self2d.sizes(),
             " and weight with shape ", weight->sizes());
    TL_CHECK(weight->device() == self2d.device(), op, ": weight tensor must be on the input's device");
  }
}

void histogramdd_check_bin_tensors(const TensorBase& self2d, TensorBaseList bins) {
  const int64_t n = self2d.sizes().back();
  TL_CHECK((int64_t)bins.size() == n, "torch.histogramdd: expected ", n, " sequences of bin edges for a ", n,
           "-dimensional histogram but got ", bins.size());
  for (int64_t d = 0; d < n; ++d) {
    const TensorBase& b = bins[d];
    TL_CHECK(b.scalar_type() == self2d.scalar_type(), "torch.histogramdd: input tensor and bins tensors should have ",
             "the same dtype, but got input with dtype ", c10::toString(self2d.scalar_type()),
             " and bins for dimension ", d, " with dtype ", c10::toString(b.scalar_type()));
    TL_CHECK(b.dim() == 1, "torch.histogramdd: bins tensor should have one dimension, but got ", b.dim(),
             " dimensions in the bins tensor for dimension ", d);
    TL_CHECK(b.numel() > 0, "torch.histogramdd: bins tensor should have at least 1 element, but got ", b.numel(),
             " elements in the bins tensor for dimension ", d);
    TL_CHECK(b.device() == self2d.device(), "torch.histogramdd: bins tensor for dimension ", d,
             " must be on the input's device");
  }
}

void histogramdd_check_bin_cts(const char* op, const TensorBase& self2d, IntArrayRef bins) {
  const int64_t n = self2d.sizes().back();
  TL_CHECK((int64_t)bins.size() == n, "histogramdd: The size of bins must be equal to the innermost dimension of ",
           "the input.");
  for (int64_t d = 0; d < n; ++d)
    TL_CHECK(bins[d] > 0, op, "(): bins must be > 0, but got ", bins[d], " for dimension ", d);
}

std::vector<double> histogramdd_range_values(const char* op, const std::optional<TensorBase>& range, int64_t n_dims) {
  std::vector<double> r;
  if (!range || !range->defined()) return r;
  TL_CHECK(range->dim() == 1 && range->device().type == DeviceType::CPU &&
               range->scalar_type() == ScalarType::Double,
           op, ": range must be a sequence of floats");
  TL_CHECK(range->numel() == 2 * n_dims, "torch.histogramdd: for a ", n_dims, "-dimensional histogram range should ",
           "have ", 2 * n_dims, " elements, but got ", range->numel());
  TensorBase rc = contiguous(*range);
  r.assign(rc.data_ptr<double>(), rc.data_ptr<double>() + rc.numel());
  return r;
}

// ================================================================ Meta kernels

namespace {
std::vector<int64_t> hist_shape_from_cts(IntArrayRef bins) { return std::vector<int64_t>(bins.begin(), bins.end()); }
}  // namespace

std::tuple<TensorBase, TensorBase> histogram_bins_tensor_meta(const TensorBase& self, const TensorBase& bins,
                                                              const std::optional<TensorBase>& weight, bool density) {
  (void)density;
  TensorBase flat = at::_ops::reshape(self, IntArrayRef{-1, 1});
  std::optional<TensorBase> w;
  if (weight && weight->defined()) {
    TL_CHECK(weight->sizes() == self.sizes(), "torch.histogram: if weight tensor is provided, it should have the ",
             "same shape as the input tensor, but got input ", self.sizes(), " and weight ", weight->sizes());
    w = at::_ops::reshape(*weight, IntArrayRef{-1});
  }
  histogramdd_check_input("torch.histogram", flat, w);
  TensorBase bl[1] = {bins};
  histogramdd_check_bin_tensors(flat, TensorBaseList(bl, 1));
  return {make_empty({bins.numel() - 1}, self.options()), make_empty({bins.numel()}, self.options())};
}

std::tuple<TensorBase, TensorBase> histogram_bin_ct_meta(const TensorBase& self, int64_t bins,
                                                         std::optional<double>, std::optional<double>,
                                                         const std::optional<TensorBase>& weight, bool) {
  TensorBase flat = at::_ops::reshape(self, IntArrayRef{-1, 1});
  std::optional<TensorBase> w;
  if (weight && weight->defined()) {
    TL_CHECK(weight->sizes() == self.sizes(), "torch.histogram: if weight tensor is provided, it should have the ",
             "same shape as the input tensor, but got input ", self.sizes(), " and weight ", weight->sizes());
    w = at::_ops::reshape(*weight, IntArrayRef{-1});
  }
  histogramdd_check_input("torch.histogram", flat, w);
  TL_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  return {make_empty({bins}, self.options()), make_empty({bins + 1}, self.options())};
}

std::vector<TensorBase> histogramdd_bin_edges_meta(const TensorBase& self, IntArrayRef bins,
                                                   const std::optional<TensorBase>& range) {
  histogramdd_check_input("torch.histogramdd", self, std::nullopt);
  histogramdd_check_bin_cts("torch.histogramdd", self, bins);
  histogramdd_range_values("torch.histogramdd", range, self.sizes().back());
  std::vector<TensorBase> edges;
  for (int64_t b : bins) edges.push_back(make_empty({b + 1}, self.options()));
  return edges;
}

TensorBase histogramdd_from_bin_cts_meta(const TensorBase& self, IntArrayRef bins, const std::optional<TensorBase>& range,
                                         const std::optional<TensorBase>& weight, bool) {
  histogramdd_check_input("torch.histogramdd", self, weight);
  histogramdd_check_bin_cts("torch.histogramdd", self, bins);
  histogramdd_range_values("torch.histogramdd", range, self.sizes().back());
  return make_empty(IntArrayRef(hist_shape_from_cts(bins)), self.options());
}

TensorBase histogramdd_from_bin_tensors_meta(const TensorBase& self, TensorBaseList bins,
                                             const std::optional<TensorBase>& weight, bool) {
  histogramdd_check_input("torch.histogramdd", self, weight);
  histogramdd_check_bin_tensors(self, bins);
  std::vector<int64_t> shape;
  for (const TensorBase& b : bins) shape.push_back(b.numel() - 1);
  return make_empty(IntArrayRef(shape), self.options());
}

std::tuple<TensorBase, TensorBase> histogram_bins_tensor_out(const TensorBase& hist, const TensorBase& bin_edges,
                                                             const TensorBase& self, const TensorBase& bins,
                                                             const std::optional<TensorBase>& weight, bool density) {
  auto r = at::_ops::histogram(self, bins, weight, density);
  TL_CHECK(hist.scalar_type() == self.scalar_type() && bin_edges.scalar_type() == self.scalar_type(),
           "torch.histogram: the out tensors must have the input's dtype ", c10::toString(self.scalar_type()));
  copy_to_out(hist, std::get<0>(r));
  copy_to_out(bin_edges, std::get<1>(r));
  return {hist, bin_edges};
}

}  // namespace at::native
