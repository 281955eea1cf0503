// CPU loops of the statistics ops: logcumsumexp (a running max/sum scan) and
// histogram/histogramdd (per-thread partial histograms, summed at the end).
// The per-element math is the host/device code in ../Statistics.h.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../../Parallel.h"
#include "../Copy.h"
#include "../Statistics.h"
#include "c10/Tensor.h"
#include "ops/reshape.h"

namespace at::native {

// ================================================================ logcumsumexp

namespace {
// float and double accumulate in double (PyTorch's CPU acc_type), half types in float.
template <class T>
using lcse_acc_t = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, double, float>;
}  // namespace

TensorBase logcumsumexp_cpu(const TensorBase& self, int64_t dim) {
  const int64_t d = maybe_wrap_dim(dim, self.dim());
  TensorBase in = contiguous(self);
  TensorBase out = make_empty(self.sizes(), self.options());
  TL_DISPATCH_FLOATING_TYPES(self.scalar_type(), "logcumsumexp", [&] {
    if (self.numel() == 0) return;
    const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
    int64_t inner = 1, outer = 1;
    for (int64_t k = d + 1; k < self.dim(); ++k) inner *= self.sizes()[k];
    for (int64_t k = 0; k < d; ++k) outer *= self.sizes()[k];
    using A = lcse_acc_t<scalar_t>;
    const scalar_t* src = in.data_ptr<scalar_t>();
    scalar_t* dst = out.data_ptr<scalar_t>();
    if (inner == 1) {  // each line is contiguous: one serial scan per line
      parallel_for(0, outer, std::max<int64_t>(1, 4096 / n), [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) {
          statistics::LogCumSumExp<A> acc;
          const scalar_t* s = src + o * n;
          scalar_t* t = dst + o * n;
          for (int64_t i = 0; i < n; ++i) t[i] = static_cast<scalar_t>(acc.push(static_cast<A>(s[i])));
        }
      });
      return;
    }
    // The scanned dim is strided: a block of `inner` accumulators advances one
    // slice at a time, reading and writing contiguous runs.
    constexpr int64_t W = 128;
    const int64_t nblk = (inner + W - 1) / W;
    parallel_for(0, outer * nblk, std::max<int64_t>(1, 4096 / (n * W)), [&](int64_t b, int64_t e) {
      statistics::LogCumSumExp<A> acc[W];
      for (int64_t task = b; task < e; ++task) {
        const int64_t o = task / nblk, j0 = (task % nblk) * W, w = std::min(W, inner - j0);
        for (int64_t j = 0; j < w; ++j) acc[j] = statistics::LogCumSumExp<A>();
        for (int64_t i = 0; i < n; ++i) {
          const scalar_t* s = src + (o * n + i) * inner + j0;
          scalar_t* t = dst + (o * n + i) * inner + j0;
          for (int64_t j = 0; j < w; ++j) t[j] = static_cast<scalar_t>(acc[j].push(static_cast<A>(s[j])));
        }
      }
    });
  });
  return out;
}

// ================================================================ histogram

std::vector<TensorBase> histogramdd_linear_edges_cpu(const TensorBase& self2d, IntArrayRef bins,
                                                     const std::vector<double>& lo, const std::vector<double>& hi) {
  std::vector<TensorBase> edges;
  for (size_t d = 0; d < bins.size(); ++d) {
    const int64_t steps = bins[d] + 1;
    TensorBase e = make_empty({steps}, self2d.options());
    TL_DISPATCH_FLOATING_TYPES(self2d.scalar_type(), "histogramdd", [&] {
      using Op = c10::opmath_t<scalar_t>;
      // The ends are rounded to the dtype first, as linspace(lo, hi) rounds its Scalars.
      const Op a = static_cast<Op>(static_cast<scalar_t>(lo[d])), b = static_cast<Op>(static_cast<scalar_t>(hi[d]));
      scalar_t* p = e.data_ptr<scalar_t>();
      for (int64_t k = 0; k < steps; ++k) p[k] = static_cast<scalar_t>(statistics::linspace_edge<Op>(a, b, steps, k));
    });
    edges.push_back(e);
  }
  return edges;
}

void histogramdd_outer_edges(const char* op, const TensorBase& self2d, const std::vector<double>& range,
                             std::vector<double>& lo, std::vector<double>& hi) {
  const int64_t n_dims = self2d.sizes().back();
  lo.assign(n_dims, 0.0);  // NumPy's default range for no data
  hi.assign(n_dims, 1.0);
  if (!range.empty()) {
    for (int64_t d = 0; d < n_dims; ++d) {
      lo[d] = range[2 * d];
      hi[d] = range[2 * d + 1];
    }
  } else if (self2d.numel() > 0) {
    TensorBase x = contiguous(self2d);
    const int64_t m = x.numel() / n_dims;
    TL_DISPATCH_FLOATING_TYPES(x.scalar_type(), "histogramdd", [&] {
      const scalar_t* p = x.data_ptr<scalar_t>();
      for (int64_t d = 0; d < n_dims; ++d) {
        double mn = INFINITY, mx = -INFINITY;
        bool nan = false;
        for (int64_t i = 0; i < m; ++i) {
          double v = static_cast<double>(p[i * n_dims + d]);
          nan |= v != v;
          mn = std::min(mn, v);
          mx = std::max(mx, v);
        }
        lo[d] = nan ? NAN : mn;  // a NaN makes the range non-finite, as aminmax would
        hi[d] = nan ? NAN : mx;
      }
    });
  }
  for (int64_t d = 0; d < n_dims; ++d) {
    TL_CHECK(std::isfinite(lo[d]) && std::isfinite(hi[d]), op, ": dimension ", d, "'s range [", lo[d], ", ", hi[d],
             "] is not finite");
    TL_CHECK(lo[d] <= hi[d], op, ": min should not exceed max, but got min ", lo[d], " max ", hi[d],
             " for dimension ", d);
    if (lo[d] == hi[d]) {  // an empty range widens, as in NumPy (and avoids 0-width bins)
      lo[d] -= 0.5;
      hi[d] += 0.5;
    }
  }
}

TensorBase histogramdd_count_cpu(const TensorBase& self2d, const std::vector<TensorBase>& edges,
                                 const std::optional<TensorBase>& weight, bool density, bool uniform) {
  const int64_t n_dims = self2d.sizes().back();
  std::vector<int64_t> shape;
  int64_t total_bins = 1;
  for (const TensorBase& e : edges) {
    shape.push_back(e.numel() - 1);
    total_bins *= e.numel() - 1;
  }
  TensorBase hist = make_empty(IntArrayRef(shape), self2d.options());
  TensorBase x = contiguous(self2d);
  const int64_t m = n_dims == 0 ? 0 : x.numel() / n_dims;
  TensorBase w = weight && weight->defined() ? contiguous(*weight) : TensorBase();
  std::vector<TensorBase> ec;
  for (const TensorBase& e : edges) ec.push_back(contiguous(e));
  TL_DISPATCH_FLOATING_TYPES(x.scalar_type(), "histogramdd", [&] {
    using Op = c10::opmath_t<scalar_t>;
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const scalar_t* wp = w.defined() ? w.data_ptr<scalar_t>() : nullptr;
    std::vector<const scalar_t*> ep(n_dims);
    std::vector<int64_t> ne(n_dims);
    for (int64_t d = 0; d < n_dims; ++d) {
      ep[d] = ec[d].data_ptr<scalar_t>();
      ne[d] = ec[d].numel();
    }
    // One partial histogram per chunk of points, summed after: no atomics,
    // and the same sums whatever the thread count for a given chunk count.
    constexpr int64_t kChunk = 1 << 16;
    const int64_t n_chunks = total_bins == 0 ? 0 : std::min<int64_t>((m + kChunk - 1) / kChunk,
                                                                     std::max(1, get_num_threads()));
    std::vector<double> partial(static_cast<size_t>(std::max<int64_t>(n_chunks, 1)) * total_bins, 0.0);
    parallel_for(0, n_chunks, 1, [&](int64_t cb, int64_t ce) {
      for (int64_t c = cb; c < ce; ++c) {
        double* h = partial.data() + c * total_bins;
        const int64_t i0 = m * c / n_chunks, i1 = m * (c + 1) / n_chunks;
        for (int64_t i = i0; i < i1; ++i) {
          int64_t flat = 0;
          bool inside = true;
          for (int64_t d = 0; d < n_dims && inside; ++d) {
            int64_t pos = statistics::histogram_bin<scalar_t, Op>(xp[i * n_dims + d], ep[d], ne[d], uniform);
            inside = pos >= 0;
            flat = flat * (ne[d] - 1) + pos;
          }
          if (inside) h[flat] += wp ? static_cast<double>(wp[i]) : 1.0;
        }
      }
    });
    for (int64_t c = 1; c < n_chunks; ++c)
      for (int64_t k = 0; k < total_bins; ++k) partial[k] += partial[c * total_bins + k];
    if (density) {
      // Divide by the total, then by each bin's volume (the product of its widths).
      double sum = 0;
      for (int64_t k = 0; k < total_bins; ++k) sum += partial[k];
      for (int64_t k = 0; k < total_bins; ++k) {
        double vol = 1;
        int64_t rest = k;
        for (int64_t d = n_dims - 1; d >= 0; --d) {
          const int64_t nb = ne[d] - 1, b = rest % nb;
          rest /= nb;
          vol *= static_cast<double>(ep[d][b + 1]) - static_cast<double>(ep[d][b]);
        }
        partial[k] = partial[k] / sum / vol;
      }
    }
    scalar_t* hp = hist.data_ptr<scalar_t>();
    for (int64_t k = 0; k < total_bins; ++k) hp[k] = static_cast<scalar_t>(partial[k]);
  });
  return hist;
}

namespace {

// (M, N) points and (M,) weights of a histogramdd input of any rank >= 2.
std::pair<TensorBase, std::optional<TensorBase>> dd_points(const TensorBase& self, const std::optional<TensorBase>& weight) {
  const int64_t n = self.sizes().back();
  TensorBase pts = at::_ops::reshape(self, IntArrayRef{-1, n});
  std::optional<TensorBase> w;
  if (weight && weight->defined()) w = at::_ops::reshape(*weight, IntArrayRef{-1});
  return {pts, w};
}

// histogram's 1-D input as (M, 1) points; weight must match the input's shape.
std::pair<TensorBase, std::optional<TensorBase>> histogram_points(const TensorBase& self,
                                                                  const std::optional<TensorBase>& weight) {
  std::optional<TensorBase> w;
  if (weight && weight->defined()) {
    TL_CHECK(weight->sizes() == self.sizes(), "torch.histogram: if weight tensor is provided, it should have the ",
             "same shape as the input tensor, but got input ", self.sizes(), " and weight ", weight->sizes());
    w = at::_ops::reshape(*weight, IntArrayRef{-1});
  }
  TensorBase pts = at::_ops::reshape(self, IntArrayRef{-1, 1});
  histogramdd_check_input("torch.histogram", pts, w);
  return {pts, w};
}

}  // namespace

std::tuple<TensorBase, TensorBase> histogram_bins_tensor_cpu(const TensorBase& self, const TensorBase& bins,
                                                             const std::optional<TensorBase>& weight, bool density) {
  auto [pts, w] = histogram_points(self, weight);
  TensorBase bl[1] = {bins};
  histogramdd_check_bin_tensors(pts, TensorBaseList(bl, 1));
  TensorBase edges = make_empty({bins.numel()}, bins.options());
  copy_into(edges, bins);
  return {histogramdd_count_cpu(pts, {edges}, w, density, false), edges};
}

std::tuple<TensorBase, TensorBase> histogram_bin_ct_cpu(const TensorBase& self, int64_t bins,
                                                        std::optional<double> range_min, std::optional<double> range_max,
                                                        const std::optional<TensorBase>& weight, bool density) {
  auto [pts, w] = histogram_points(self, weight);
  TL_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  TL_CHECK(range_min.has_value() == range_max.has_value(), "torch.histogram: range needs both a min and a max");
  std::vector<double> range;
  if (range_min) range = {*range_min, *range_max};
  std::vector<double> lo, hi;
  histogramdd_outer_edges("torch.histogramdd", pts, range, lo, hi);
  int64_t b[1] = {bins};
  std::vector<TensorBase> edges = histogramdd_linear_edges_cpu(pts, IntArrayRef(b, 1), lo, hi);
  return {histogramdd_count_cpu(pts, edges, w, density, true), edges[0]};
}

std::vector<TensorBase> histogramdd_bin_edges_cpu(const TensorBase& self, IntArrayRef bins,
                                                  const std::optional<TensorBase>& range) {
  histogramdd_check_input("torch.histogramdd", self, std::nullopt);
  histogramdd_check_bin_cts("torch.histogramdd", self, bins);
  auto pts = dd_points(self, std::nullopt).first;
  std::vector<double> lo, hi;
  histogramdd_outer_edges("torch.histogramdd", pts, histogramdd_range_values("torch.histogramdd", range, pts.sizes()[1]),
                          lo, hi);
  return histogramdd_linear_edges_cpu(pts, bins, lo, hi);
}

TensorBase histogramdd_from_bin_cts_cpu(const TensorBase& self, IntArrayRef bins, const std::optional<TensorBase>& range,
                                        const std::optional<TensorBase>& weight, bool density) {
  histogramdd_check_input("torch.histogramdd", self, weight);
  histogramdd_check_bin_cts("torch.histogramdd", self, bins);
  auto [pts, w] = dd_points(self, weight);
  std::vector<double> lo, hi;
  histogramdd_outer_edges("torch.histogramdd", pts, histogramdd_range_values("torch.histogramdd", range, pts.sizes()[1]),
                          lo, hi);
  return histogramdd_count_cpu(pts, histogramdd_linear_edges_cpu(pts, bins, lo, hi), w, density, true);
}

TensorBase histogramdd_from_bin_tensors_cpu(const TensorBase& self, TensorBaseList bins,
                                            const std::optional<TensorBase>& weight, bool density) {
  histogramdd_check_input("torch.histogramdd", self, weight);
  histogramdd_check_bin_tensors(self, bins);
  auto [pts, w] = dd_points(self, weight);
  return histogramdd_count_cpu(pts, std::vector<TensorBase>(bins.begin(), bins.end()), w, density, false);
}

}  // namespace at::native
