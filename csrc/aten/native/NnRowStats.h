// Per-row reductions of the norm/softmax kernels (layer_norm statistics and
// its backward's two dot products, softmax's max and sums), written once as
// TL_HOST_DEVICE templates so a device backend reuses the same index math and
// reduction tree.
//
// Why lanes: a row of a few thousand elements sits in L1, so a single
// running sum is bound by the add latency (one dependent add per vector, ~4
// cycles), not by loads. kLanes independent partial sums (four vectors of 8
// floats) keep four adds in flight; the lanes are then folded pairwise. The
// order is fixed by the row length alone, so results do not depend on the
// thread count or on which rows share a task.
#pragma once
#include <cstdint>

#include "../../c10/Half.h"

namespace at::native::row_stats {

// Partial sums per row: 32 floats or 16 doubles (four 32-byte vectors).
template <class A>
constexpr int kLanes = static_cast<int>(128 / sizeof(A));

// Folds the lanes pairwise (a fixed tree: lane t takes lane t + w).
template <class A, int L>
TL_HOST_DEVICE inline A fold_lanes(A (&acc)[L]) {
  for (int w = L / 2; w > 0; w /= 2)
    for (int t = 0; t < w; ++t) acc[t] += acc[t + w];
  return acc[0];
}

// sum over i < n of term(i), in kLanes partial sums (the tail elements go to
// the first lanes).
template <class A, class Term>
TL_HOST_DEVICE inline A lane_sum(int64_t n, const Term& term) {
  constexpr int L = kLanes<A>;
  A acc[L];
  for (int t = 0; t < L; ++t) acc[t] = A(0);
  int64_t i = 0;
  for (; i + L <= n; i += L) {
#pragma omp simd
    for (int t = 0; t < L; ++t) acc[t] += term(i + t);
  }
  for (int t = 0; i + t < n; ++t) acc[t] += term(i + t);
  return fold_lanes<A, L>(acc);
}

// Two sums over the same elements in one pass: term(i, s0, s1) adds its two
// terms to s0 and s1 (so shared subexpressions are computed once).
template <class A, class Term>
TL_HOST_DEVICE inline void lane_sum2(int64_t n, const Term& term, A& out0, A& out1) {
  constexpr int L = kLanes<A>;
  A a0[L], a1[L];
  for (int t = 0; t < L; ++t) a0[t] = a1[t] = A(0);
  int64_t i = 0;
  for (; i + L <= n; i += L) {
#pragma omp simd
    for (int t = 0; t < L; ++t) term(i + t, a0[t], a1[t]);
  }
  for (int t = 0; i + t < n; ++t) term(i + t, a0[t], a1[t]);
  out0 = fold_lanes<A, L>(a0);
  out1 = fold_lanes<A, L>(a1);
}

// max over i < n of x[i] (opmath), -inf for an empty row. A NaN element never
// wins a comparison, so it does not propagate here; callers that must return
// NaN for such rows get it from the sum of exp(x - max) that follows.
template <class A, class T>
TL_HOST_DEVICE inline A lane_max(const T* x, int64_t n, A lowest) {
  constexpr int L = kLanes<A>;
  A acc[L];
  for (int t = 0; t < L; ++t) acc[t] = lowest;
  int64_t i = 0;
  for (; i + L <= n; i += L) {
#pragma omp simd
    for (int t = 0; t < L; ++t) {
      const A v = static_cast<A>(x[i + t]);
      acc[t] = v > acc[t] ? v : acc[t];
    }
  }
  for (int t = 0; i + t < n; ++t) {
    const A v = static_cast<A>(x[i + t]);
    acc[t] = v > acc[t] ? v : acc[t];
  }
  for (int w = L / 2; w > 0; w /= 2)
    for (int t = 0; t < w; ++t) acc[t] = acc[t + w] > acc[t] ? acc[t + w] : acc[t];
  return acc[0];
}

// layer_norm's row statistics: mean and the mean squared deviation from it
// (two passes, so a row with a large mean does not lose the variance to
// cancellation as a one-pass sum of squares would).
template <class A, class T>
TL_HOST_DEVICE inline void mean_var(const T* x, int64_t n, A& mean, A& var) {
  const A mu = lane_sum<A>(n, [&](int64_t i) { return static_cast<A>(x[i]); }) / static_cast<A>(n);
  const A q = lane_sum<A>(n, [&](int64_t i) {
    const A d = static_cast<A>(x[i]) - mu;
    return d * d;
  });
  mean = mu;
  var = q / static_cast<A>(n);
}

}  // namespace at::native::row_stats
