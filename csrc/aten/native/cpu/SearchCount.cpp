// CPU searchsorted, bincount, histc and cummax/cummin.
//
// searchsorted compares as PyTorch's does (`!(seq >= v)` moves right for the
// lower bound, `!(seq > v)` for the upper), so a NaN value lands past the end.
// cummax/cummin keep the latest index among equal values and let a NaN, once
// seen, win for the rest of the row, as PyTorch does.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "../../Parallel.h"
#include "../Copy.h"
#include "../Sorting.h"
#include "c10/Tensor.h"
#include "ops/transpose.h"

namespace at::native {

namespace {

bool search_right(bool right, std::optional<std::string_view> side) {
  if (side) {
    TL_CHECK(*side == "left" || *side == "right", "torch.searchsorted(): side can only be 'left' or 'right' but got ",
             *side);
    TL_CHECK(!(right && *side == "left"), "torch.searchsorted(): side and right can't be set to opposites, got side "
             "of left while right was True");
    return *side == "right";
  }
  return right;
}

template <class T>
int64_t bound(const T* seq, int64_t stride, const int64_t* sorter, int64_t n, T v, bool right) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    T m = seq[(sorter ? sorter[mid] : mid) * stride];
    bool go_right = right ? !(m > v) : !(m >= v);
    if (go_right) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

}  // namespace

TensorBase searchsorted_cpu(const TensorBase& sorted_sequence, const TensorBase& self, bool out_int32, bool right,
                            std::optional<std::string_view> side, const std::optional<TensorBase>& sorter) {
  bool r = search_right(right, side);
  TL_CHECK(sorted_sequence.dim() >= 1, "torch.searchsorted(): boundaries tensor should have positive dimension, but ",
           "got 0 dimension");
  TL_CHECK(sorted_sequence.scalar_type() == self.scalar_type(), "torch.searchsorted(): input value tensor and ",
           "boundaries tensor should have same dtype, but got ", c10::toString(self.scalar_type()), " and ",
           c10::toString(sorted_sequence.scalar_type()));
  const bool one_d = sorted_sequence.dim() == 1;
  if (!one_d) {
    TL_CHECK(self.dim() == sorted_sequence.dim() &&
                 std::equal(self.sizes().begin(), self.sizes().end() - 1, sorted_sequence.sizes().begin()),
             "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of ",
             "boundaries tensor and input value tensor must match, but we got boundaries tensor ",
             sorted_sequence.sizes(), " and input value tensor ", self.sizes());
  }
  TensorBase sorter_c;
  if (sorter && sorter->defined()) {
    TL_CHECK(sorter->scalar_type() == ScalarType::Long, "torch.searchsorted(): sorter must be a tensor of long ",
             "dtype but got dtype ", c10::toString(sorter->scalar_type()));
    TL_CHECK(sorter->sizes() == sorted_sequence.sizes(), "torch.searchsorted(): boundary and sorter must have the ",
             "same size, but got boundary tensor ", sorted_sequence.sizes(), " and got sorter tensor ",
             sorter->sizes());
    sorter_c = contiguous(*sorter);
  }
  TensorBase seq = contiguous(sorted_sequence), vals = contiguous(self);
  TensorBase out = make_empty(self.sizes(), self.options().with_dtype(out_int32 ? ScalarType::Int : ScalarType::Long));
  const int64_t n = seq.sizes()[seq.dim() - 1];
  const int64_t inner = self.dim() == 0 ? 1 : self.sizes()[self.dim() - 1];
  const int64_t total = self.numel();
  if (sorter_c.defined()) {
    const int64_t* s = sorter_c.data_ptr<int64_t>();
    for (int64_t i = 0; i < sorter_c.numel(); ++i)
      TL_CHECK_INDEX(s[i] >= 0 && s[i] < n, "torch.searchsorted(): sorter index out of range");
  }
  TL_DISPATCH_NUMERIC_TYPES(self.scalar_type(), "searchsorted", [&] {
    const scalar_t* sp = seq.data_ptr<scalar_t>();
    const scalar_t* vp = vals.data_ptr<scalar_t>();
    const int64_t* so = sorter_c.defined() ? sorter_c.data_ptr<int64_t>() : nullptr;
    parallel_for(0, total, 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        int64_t row = one_d ? 0 : i / std::max<int64_t>(inner, 1);
        const int64_t* rs = so ? so + row * n : nullptr;
        int64_t pos = bound(sp + row * n, 1, rs, n, vp[i], r);
        if (out_int32) out.data_ptr<int32_t>()[i] = (int32_t)pos;
        else out.data_ptr<int64_t>()[i] = pos;
      }
    });
  });
  return out;
}

TensorBase bincount_cpu(const TensorBase& self, const std::optional<TensorBase>& weights, int64_t minlength) {
  TL_CHECK(minlength >= 0, "minlength should be >= 0");
  TL_CHECK(self.dim() == 1 && c10::isIntegralType(self.scalar_type(), false),
           "bincount only supports 1-d non-negative integral inputs.");
  const bool has_w = weights && weights->defined();
  if (has_w)
    TL_CHECK(weights->dim() == 1 && weights->sizes()[0] == self.sizes()[0],
             "weights should be 1-d and have the same length as input");
  TensorBase x = contiguous(self);
  std::vector<int64_t> v(x.numel());
  TL_DISPATCH_INTEGRAL_TYPES(x.scalar_type(), "bincount", [&] {
    const scalar_t* p = x.data_ptr<scalar_t>();
    for (int64_t i = 0; i < x.numel(); ++i) v[i] = (int64_t)p[i];
  });
  int64_t mx = -1;
  for (int64_t a : v) {
    TL_CHECK(a >= 0, "bincount only supports 1-d non-negative integral inputs.");
    mx = std::max(mx, a);
  }
  int64_t len = std::max(mx + 1, minlength);
  if (!has_w) {
    TensorBase out = make_empty({len}, self.options().with_dtype(ScalarType::Long));
    int64_t* o = out.data_ptr<int64_t>();
    std::fill(o, o + len, 0);
    for (int64_t a : v) ++o[a];
    return out;
  }
  ScalarType wt = weights->scalar_type() == ScalarType::Float ? ScalarType::Float : ScalarType::Double;
  TensorBase w = contiguous(*weights);
  std::vector<double> acc(len, 0.0);
  TL_DISPATCH_ALL_TYPES(w.scalar_type(), "bincount", [&] {
    const scalar_t* p = w.data_ptr<scalar_t>();
    for (size_t i = 0; i < v.size(); ++i) acc[v[i]] += static_cast<double>(p[i]);
  });
  TensorBase out = make_empty({len}, self.options().with_dtype(wt));
  if (wt == ScalarType::Float) {
    float* o = out.data_ptr<float>();
    for (int64_t i = 0; i < len; ++i) o[i] = (float)acc[i];
  } else {
    double* o = out.data_ptr<double>();
    for (int64_t i = 0; i < len; ++i) o[i] = acc[i];
  }
  return out;
}

TensorBase histc_cpu(const TensorBase& self, int64_t bins, const Scalar& min, const Scalar& max) {
  TL_CHECK(bins > 0, "torch.histc(): bins must be > 0, but got ", bins, " for bins");
  TL_CHECK(c10::isFloatingType(self.scalar_type()), "torch.histc(): input tensor must be a floating point tensor, "
           "but got ", c10::toString(self.scalar_type()));
  TensorBase x = contiguous(self);
  double lo = min.toDouble(), hi = max.toDouble();
  TL_CHECK(!(std::isinf(lo) || std::isinf(hi) || std::isnan(lo) || std::isnan(hi)), "torch.histc(): range of [", lo,
           ", ", hi, "] is not finite");
  std::vector<double> vals(x.numel());
  TL_DISPATCH_FLOATING_TYPES(x.scalar_type(), "histc", [&] {
    const scalar_t* p = x.data_ptr<scalar_t>();
    for (int64_t i = 0; i < x.numel(); ++i) vals[i] = static_cast<double>(p[i]);
  });
  if (lo == hi && !vals.empty()) {
    lo = *std::min_element(vals.begin(), vals.end());
    hi = *std::max_element(vals.begin(), vals.end());
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  TL_CHECK(lo < hi, "torch.histc(): max must be larger than min");
  std::vector<double> counts(bins, 0.0);
  for (double v : vals) {
    if (!(v >= lo && v <= hi)) continue;  // outside, or NaN
    int64_t b = (int64_t)((v - lo) * (double)bins / (hi - lo));
    if (b == bins) b = bins - 1;
    counts[b] += 1;
  }
  TensorBase out = make_empty({bins}, self.options());
  TL_DISPATCH_FLOATING_TYPES(x.scalar_type(), "histc", [&] {
    scalar_t* o = out.data_ptr<scalar_t>();
    for (int64_t i = 0; i < bins; ++i) o[i] = static_cast<scalar_t>(counts[i]);
  });
  return out;
}

template <bool IsMax>
static std::tuple<TensorBase, TensorBase> cum_extreme(const TensorBase& self, int64_t dim) {
  dim = maybe_wrap_dim(dim, self.dim());
  TensorBase values = make_empty(self.sizes(), self.options());
  TensorBase indices = make_empty(self.sizes(), self.options().with_dtype(ScalarType::Long));
  if (self.numel() == 0) return {values, indices};
  TensorBase x = self.dim() == 0 ? self : at::_ops::transpose(self, dim, -1);
  TensorBase xc = contiguous(x);
  const int64_t n = self.dim() == 0 ? 1 : self.sizes()[dim];
  const int64_t rows = self.numel() / n;
  // Results computed with the dim last, then written through transposed views.
  TensorBase vt = make_empty(xc.sizes(), self.options());
  TensorBase it = make_empty(xc.sizes(), self.options().with_dtype(ScalarType::Long));
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), IsMax ? "cummax" : "cummin", [&] {
    const scalar_t* p = xc.data_ptr<scalar_t>();
    scalar_t* vo = vt.data_ptr<scalar_t>();
    int64_t* io = it.data_ptr<int64_t>();
    parallel_for(0, rows, std::max<int64_t>(1, 16384 / n), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const scalar_t* row = p + r * n;
        auto best = static_cast<c10::opmath_t<scalar_t>>(row[0]);
        int64_t bi = 0;
        for (int64_t j = 0; j < n; ++j) {
          auto v = static_cast<c10::opmath_t<scalar_t>>(row[j]);
          bool is_nan = v != v, best_nan = best != best;
          bool take = !best_nan && (is_nan || (IsMax ? v >= best : v <= best));
          if (take) {
            best = v;
            bi = j;
          }
          vo[r * n + j] = static_cast<scalar_t>(best);
          io[r * n + j] = bi;
        }
      }
    });
  });
  TensorBase vdst = self.dim() == 0 ? values : at::_ops::transpose(values, dim, -1);
  TensorBase idst = self.dim() == 0 ? indices : at::_ops::transpose(indices, dim, -1);
  copy_into(vdst, vt);
  copy_into(idst, it);
  return {values, indices};
}

std::tuple<TensorBase, TensorBase> cummax_cpu(const TensorBase& self, int64_t dim) { return cum_extreme<true>(self, dim); }
std::tuple<TensorBase, TensorBase> cummin_cpu(const TensorBase& self, int64_t dim) { return cum_extreme<false>(self, dim); }

}  // namespace at::native
