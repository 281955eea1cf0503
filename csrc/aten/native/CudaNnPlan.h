// Host/device building blocks of the CUDA nn kernels (cuda/Softmax.cu,
// Norm.cu, Dropout.cu, Sort.cu): the Philox draw a dropout mask is made of,
// the online max/sum combine of softmax, the Welford combine of the norms'
// statistics and the compare-exchange rule of the bitonic sort. They are plain
// TL_HOST_DEVICE functions so python/CudaNnTesting.cpp can run the very same
// code on the CPU and tests/test_cuda_nn_host.py can check it against NumPy
// and against the CPU kernels on machines without a GPU.
#pragma once
#include <cmath>
#include <cstdint>

#include "../../c10/Half.h"

namespace at::native::cuda_nn {

// ---------------------------------------------------------------- Philox

// Philox4x32 with 10 rounds, the generator c10/Generator.h runs on the host
// (c10::Philox4x32::block is host-only): counter (ctr_lo, ctr_hi) under key
// `seed` gives four 32-bit words. Must stay bit-identical to the host one;
// the test hook compares them.
TL_HOST_DEVICE inline void philox_words(uint64_t seed, uint64_t ctr_hi, uint64_t ctr_lo, uint32_t out[4]) {
  uint32_t x0 = uint32_t(ctr_lo), x1 = uint32_t(ctr_lo >> 32), x2 = uint32_t(ctr_hi), x3 = uint32_t(ctr_hi >> 32);
  uint32_t key_a = uint32_t(seed), key_b = uint32_t(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t prod_a = uint64_t(0xD2511F53u) * x0;
    const uint64_t prod_b = uint64_t(0xCD9E8D57u) * x2;
    const uint32_t y0 = uint32_t(prod_b >> 32) ^ x1 ^ key_a;
    const uint32_t y2 = uint32_t(prod_a >> 32) ^ x3 ^ key_b;
    x1 = uint32_t(prod_b);
    x3 = uint32_t(prod_a);
    x0 = y0;
    x2 = y2;
    key_a += 0x9E3779B9u;
    key_b += 0xBB67AE85u;
  }
  out[0] = x0;
  out[1] = x1;
  out[2] = x2;
  out[3] = x3;
}

// The CPU bernoulli_ kernel (cpu/Random.cpp) gives element i of the logical
// (row-major) order the 53-bit uniform made of words (0,1) or (2,3) of
// counter base + i/2: two elements per counter. A CUDA kernel that draws
// element i the same way makes the same mask for the same seed and offset.
constexpr int64_t kBernoulliPerCounter = 2;
TL_HOST_DEVICE inline uint64_t bernoulli_counters(int64_t numel) {
  return uint64_t((numel + kBernoulliPerCounter - 1) / kBernoulliPerCounter);
}
TL_HOST_DEVICE inline double uniform53(uint32_t lo, uint32_t hi) {
  return double(((uint64_t(hi) << 32) | lo) >> 11) * (1.0 / 9007199254740992.0);
}
// 1 with probability p for element i of a fill that reserved counters from `base`.
TL_HOST_DEVICE inline bool bernoulli_draw(uint64_t seed, uint64_t base, int64_t i, double p) {
  uint32_t w[4];
  philox_words(seed, 0, base + uint64_t(i / kBernoulliPerCounter), w);
  const int half = int(i % kBernoulliPerCounter);
  return uniform53(w[2 * half], w[2 * half + 1]) < p;
}

// ---------------------------------------------------------------- online softmax

// Running (max, sum of exp(x - max)) of a stretch of a row. Two stretches
// combine in any grouping to the same result up to rounding, so each thread
// folds its own elements in one pass and the block then merges the threads'
// pairs in a tree: one read of the row for both statistics.
template <class A>
struct MaxSum {
  A max;
  A sum;
};
TL_HOST_DEVICE inline float acc_exp(float x) { return expf(x); }
TL_HOST_DEVICE inline double acc_exp(double x) { return exp(x); }
template <class A>
TL_HOST_DEVICE inline MaxSum<A> maxsum_empty() {
  return MaxSum<A>{A(-INFINITY), A(0)};
}
template <class A>
TL_HOST_DEVICE inline MaxSum<A> maxsum_combine(MaxSum<A> a, MaxSum<A> b) {
  // An empty side (max -inf, sum 0: nothing but -inf seen) contributes
  // nothing; testing it first keeps exp(-inf - -inf) = NaN out of the result.
  // A side that saw only NaN has max -inf but a NaN sum, and passes it on.
  if (a.max == A(-INFINITY) && a.sum == A(0)) return b;
  if (b.max == A(-INFINITY) && b.sum == A(0)) return a;
  // NaN in either max makes the row NaN, as the CPU kernel's sum of exp does.
  if (a.max != a.max || b.max != b.max) return MaxSum<A>{A(NAN), A(NAN)};
  const A m = a.max > b.max ? a.max : b.max;
  return MaxSum<A>{m, a.sum * acc_exp(a.max - m) + b.sum * acc_exp(b.max - m)};
}
// Adds one element with a single exp: a larger x rescales the sum to the new
// max, any other x adds exp(x - max). -inf adds nothing; NaN makes the sum
// NaN (and so the row), as in the CPU kernel.
template <class A>
TL_HOST_DEVICE inline MaxSum<A> maxsum_add(MaxSum<A> a, A x) {
  if (x > a.max) return MaxSum<A>{x, a.max == A(-INFINITY) ? A(1) : a.sum * acc_exp(a.max - x) + A(1)};
  if (x == A(-INFINITY)) return a;
  return MaxSum<A>{a.max, a.sum + acc_exp(x - a.max)};
}

// ---------------------------------------------------------------- Welford

// Count, mean and sum of squared deviations of a set of values (Chan et al.'s
// pairwise combine): numerically stable for rows with a large mean, one pass.
template <class A>
struct Welford {
  int64_t count;  // an integer: a float count stops growing at 2^24
  A mean;
  A m2;
};
template <class A>
TL_HOST_DEVICE inline Welford<A> welford_empty() {
  return Welford<A>{0, A(0), A(0)};
}
template <class A>
TL_HOST_DEVICE inline Welford<A> welford_add(Welford<A> a, A x) {
  const int64_t n = a.count + 1;
  const A d = x - a.mean;
  const A mean = a.mean + d / A(n);
  return Welford<A>{n, mean, a.m2 + d * (x - mean)};
}
template <class A>
TL_HOST_DEVICE inline Welford<A> welford_combine(Welford<A> a, Welford<A> b) {
  if (a.count == 0) return b;
  if (b.count == 0) return a;
  const int64_t n = a.count + b.count;
  const A d = b.mean - a.mean;
  const A wb = A(b.count) / A(n);
  return Welford<A>{n, a.mean + d * wb, a.m2 + b.m2 + d * d * A(a.count) * wb};
}
// Population variance (what layer_norm and batch_norm normalise with).
template <class A>
TL_HOST_DEVICE inline A welford_var(Welford<A> w) {
  return w.count > 0 ? w.m2 / A(w.count) : A(0);
}

// ---------------------------------------------------------------- sort order

// The order sort() produces, as the CPU kernel's: NaN after every number
// ascending and before every number descending (NaN counts as the largest),
// ties kept in index order either way (stable). Keys are compared in their
// own type, widened to double (exact for every dtype but int64 beyond 2^53,
// which callers compare as int64 through the integer overload).
template <class K>
TL_HOST_DEVICE inline bool sort_key_isnan(K v) {
  return !(v == v);
}
template <class K>
TL_HOST_DEVICE inline bool sort_goes_before(K a, int64_t ia, K b, int64_t ib, bool descending) {
  const bool na = sort_key_isnan(a), nb = sort_key_isnan(b);
  if (na || nb) {
    if (na && nb) return ia < ib;
    return descending ? na : nb;  // NaN is the largest
  }
  if (a == b) return ia < ib;
  return descending ? (b < a) : (a < b);
}

// A row is sorted by the bitonic network over its length padded to a power
// of two; the padding slots sort after every real element in either
// direction, so the first n slots end up holding the row.
TL_HOST_DEVICE inline int64_t bitonic_length(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}
template <class K>
TL_HOST_DEVICE inline bool sort_slot_before(K a, int64_t ia, bool pad_a, K b, int64_t ib, bool pad_b,
                                            bool descending) {
  if (pad_a || pad_b) return pad_a == pad_b ? ia < ib : pad_b;
  return sort_goes_before(a, ia, b, ib, descending);
}

// One compare-exchange of the network's stage (k, j) for slot i: slot i
// pairs with i ^ j; the lower slot of the pair handles it, putting the pair
// in sort order when (i & k) == 0 and in reverse order otherwise. After all
// stages (k = 2, 4, ..., len; j = k/2, ..., 1) the slots are in sort order.
// As (key, index) with distinct indices is a strict total order, the result
// is unique: exactly the stable sort, whatever the network's shape.
template <class K>
TL_HOST_DEVICE inline void bitonic_exchange(K* key, int64_t* idx, bool* pad, int64_t i, int64_t j, int64_t k,
                                            bool descending) {
  const int64_t partner = i ^ j;
  if (partner <= i) return;
  const bool ascending_pair = (i & k) == 0;
  const bool partner_first = sort_slot_before(key[partner], idx[partner], pad[partner], key[i], idx[i], pad[i],
                                              descending);
  if (partner_first == ascending_pair) {
    const K tk = key[i];
    key[i] = key[partner];
    key[partner] = tk;
    const int64_t ti = idx[i];
    idx[i] = idx[partner];
    idx[partner] = ti;
    const bool tp = pad[i];
    pad[i] = pad[partner];
    pad[partner] = tp;
  }
}

// ---------------------------------------------------------------- launch plans

// Threads for a block that reduces one row of n elements: a multiple of 32
// from 32 to 1024, about one element per thread for short rows and 4+ per
// thread for long ones (so the loads of a thread overlap).
TL_HOST_DEVICE inline int row_block_threads(int64_t n) {
  int t = 32;
  while (t < 1024 && int64_t(t) * 4 < n) t <<= 1;
  return t;
}

}  // namespace at::native::cuda_nn
