// Statistics ops (issue 10): quantile/nanquantile, histogram/histogramdd,
// logcumsumexp. The per-element math every backend shares lives here as
// host/device code (a CUDA kernel reuses it unchanged); the checks and
// shapes shared by the CPU and Meta kernels are declared below.
#pragma once
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "c10/Half.h"
#include "c10/Tensor.h"

namespace at::native {

namespace statistics {

// ---- logcumsumexp: a running (max, scaled sum) pair.
// The prefix log(sum exp(x_i)) is kept as m + log(s) with m the largest value
// seen and s = sum exp(x_i - m) in [1, n], so no exp overflows and no small
// term underflows against a large one. Infinities follow PyTorch: a +inf
// prefix stays +inf, an all -inf prefix is -inf; a NaN poisons the rest.
template <class Acc>
struct LogCumSumExp {
  Acc m = -INFINITY;
  Acc s = 0;

  TL_HOST_DEVICE Acc push(Acc x) {
    if (x != x || m != m) {
      m = x != x ? x : m;  // sticky NaN
      return m;
    }
    if (x == m) {
      s += Acc(1);  // also +inf after +inf and -inf after -inf, where x - m is NaN
    } else if (x < m) {
      s += std::exp(x - m);
    } else {
      s = s * std::exp(m - x) + Acc(1);
      m = x;
    }
    return m + std::log(s);
  }
};

// ---- histogram: which bin a value falls in.
// Bins are [e_k, e_{k+1}) except the last, which is closed. Returns -1 for a
// value outside [e_0, e_last] (NaN included). With `uniform` edges (made by
// linspace from an int bin count), a linear guess is corrected by walking to
// the neighbouring edges, so the answer always agrees with the stored edges;
// otherwise a binary search over the edges.
template <class T, class Op>
TL_HOST_DEVICE inline int64_t histogram_bin(T x, const T* edges, int64_t n_edges, bool uniform) {
  const Op v = static_cast<Op>(x);
  const Op lo = static_cast<Op>(edges[0]), hi = static_cast<Op>(edges[n_edges - 1]);
  if (!(v >= lo && v <= hi)) return -1;
  const int64_t n_bins = n_edges - 1;
  int64_t pos;
  if (uniform && hi > lo) {
    pos = static_cast<int64_t>((v - lo) * static_cast<Op>(n_bins) / (hi - lo));
    if (pos > n_bins) pos = n_bins;
    if (pos < 0) pos = 0;
    while (pos > 0 && v < static_cast<Op>(edges[pos])) --pos;
    while (pos < n_bins && v >= static_cast<Op>(edges[pos + 1])) ++pos;
  } else {
    // The last edge <= v (edges[0] <= v holds here): a branch-free halving
    // search, since which half a random value falls in is unpredictable.
    int64_t a = 0, len = n_edges;
    while (len > 1) {
      const int64_t half = len / 2;
      a = static_cast<Op>(edges[a + half]) <= v ? a + half : a;
      len -= half;
    }
    pos = a;
  }
  return pos >= n_bins ? n_bins - 1 : pos;  // v == last edge: the closed last bin
}

// The k-th of `steps` equal-width edges from lo to hi, computed from both ends
// as PyTorch's linspace does, so the edges match torch.histogram's bit for bit.
template <class Op>
TL_HOST_DEVICE inline Op linspace_edge(Op lo, Op hi, int64_t steps, int64_t k) {
  if (steps == 1) return lo;
  const Op step = (hi - lo) / static_cast<Op>(steps - 1);
  const int64_t half = steps / 2;
  return k < half ? lo + step * static_cast<Op>(k) : hi - step * static_cast<Op>(steps - k - 1);
}

}  // namespace statistics

// ---- shared checks and shapes (Statistics.cpp)

// histogramdd's argument checks: input is (M, N) floating, weight (M,) of the
// same dtype, bins one per dim. `op` names the Python function in messages.
void histogramdd_check_input(const char* op, const TensorBase& self2d, const std::optional<TensorBase>& weight);
void histogramdd_check_bin_tensors(const TensorBase& self2d, TensorBaseList bins);
void histogramdd_check_bin_cts(const char* op, const TensorBase& self2d, IntArrayRef bins);

// The outer edges (min, max) per dim of an int-bins histogram: the range when
// given, else the data's min and max (0 and 1 for no data), widened by 0.5 on
// each side when equal, as PyTorch and NumPy do. Checks finiteness and order.
// `range` holds 2N doubles (min, max per dim) or nothing.
void histogramdd_outer_edges(const char* op, const TensorBase& self2d, const std::vector<double>& range,
                             std::vector<double>& lo, std::vector<double>& hi);
std::vector<double> histogramdd_range_values(const char* op, const std::optional<TensorBase>& range, int64_t n_dims);

// The CPU counting loop (cpu/Statistics.cpp): hist (shape bins' sizes, dtype
// of self) from points self2d (M, N) and per-dim edge tensors.
TensorBase histogramdd_count_cpu(const TensorBase& self2d, const std::vector<TensorBase>& edges,
                                 const std::optional<TensorBase>& weight, bool density, bool uniform);
// Equal-width edges lo..hi per dim on self's device and dtype.
std::vector<TensorBase> histogramdd_linear_edges_cpu(const TensorBase& self2d, IntArrayRef bins,
                                                     const std::vector<double>& lo, const std::vector<double>& hi);

}  // namespace at::native
