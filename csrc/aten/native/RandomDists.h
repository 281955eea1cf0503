// Random distributions (multinomial, normal with tensor parameters, poisson,
// binomial, exponential_, cauchy_, geometric_, log_normal_): the argument
// checks shared by the CPU and Meta kernels, and the sampling transforms.
//
// The transforms are TL_HOST_DEVICE functions of uniforms so a CUDA kernel can
// reuse them unchanged. Every sampled element draws from its own Philox
// counter(s) (see c10/Generator.h and cpu/Random.cpp), so results depend on
// (seed, offset, element index) only, never on the thread count.
#pragma once
#include <cmath>
#include <cstdint>
#include <optional>
#include "../../c10/Generator.h"
#include "../../c10/Half.h"
#include "../../c10/Tensor.h"

namespace at::native {

// ---------------------------------------------------------------- uniforms
// Open-interval uniforms: (0, 1) with no endpoint, so log(u), log(1 - u) and
// tan(pi (u - 1/2)) are always finite. Float: the top 24 bits plus half an
// ulp; double: 53 bits plus half an ulp.
TL_HOST_DEVICE inline float uniform_open_float(uint32_t x) {
  return ((float)(x >> 8) + 0.5f) * (1.0f / 16777216.0f);
}
TL_HOST_DEVICE inline double uniform_open_double(uint32_t lo, uint32_t hi) {
  return ((double)((((uint64_t)hi << 32) | lo) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

// ---------------------------------------------------------------- transforms
// Inverse-CDF transforms of one open uniform u; acc_t is float for the
// float/half/bfloat16 paths and double for float64.
template <class acc_t>
TL_HOST_DEVICE inline acc_t exponential_from_uniform(acc_t u, acc_t lambd) {
  return -std::log(u) / lambd;
}
template <class acc_t>
TL_HOST_DEVICE inline acc_t cauchy_from_uniform(acc_t u, acc_t median, acc_t sigma) {
  return median + sigma * std::tan((acc_t)M_PI * (u - (acc_t)0.5));
}
// Number of Bernoulli(p) trials up to and including the first success (>= 1).
// log1p(-p) is passed in precomputed (it is the same for every element).
TL_HOST_DEVICE inline double geometric_from_uniform(double u, double log1m_p) {
  return std::ceil(std::log(u) / log1m_p);
}
// Box-Muller: two open uniforms give two independent standard normals.
template <class acc_t>
TL_HOST_DEVICE inline void box_muller(acc_t u1, acc_t u2, acc_t& z0, acc_t& z1) {
  acc_t r = std::sqrt((acc_t)-2 * std::log(u1));
  acc_t a = (acc_t)(2 * M_PI) * u2;
  z0 = r * std::cos(a);
  z1 = r * std::sin(a);
}

// ---------------------------------------------------------------- per-element stream
// A stream of uniforms for samplers that need a data-dependent number of
// them (poisson, binomial rejection loops): element `ctr` reads round 0, 1,
// 2, ... of its own counter (the high counter word is the round), so no two
// elements ever share numbers and the result still depends only on
// (seed, ctr).
struct PhiloxStream {
  uint64_t seed, ctr, round = 0;
  uint32_t buf[4];
  int next = 4;
  TL_HOST_DEVICE PhiloxStream(uint64_t seed_, uint64_t ctr_) : seed(seed_), ctr(ctr_) {}
  TL_HOST_DEVICE uint32_t u32() {
    if (next == 4) {
      c10::Philox4x32::block(seed, round++, ctr, buf);
      next = 0;
    }
    return buf[next++];
  }
  TL_HOST_DEVICE double uniform() {
    uint32_t lo = u32();
    return uniform_open_double(lo, u32());
  }
};

// Poisson(lam) for lam >= 0 (checked by the caller). Small rates: Knuth's
// product of uniforms (about lam + 1 draws). Rates >= 10: Hormann's PTRS
// transformed rejection (Hormann 1993, the algorithm NumPy and PyTorch use),
// about 1.1 draws per sample for any rate, computed in double so large rates
// stay exact integers up to 2^53.
template <class Stream>
TL_HOST_DEVICE inline double sample_poisson(double lam, Stream& s) {
  if (!(lam > 0)) return 0.0;
  if (std::isinf(lam)) return lam;
  if (lam < 10) {
    double limit = std::exp(-lam), prod = s.uniform();
    double k = 0;
    while (prod > limit) {
      prod *= s.uniform();
      k += 1;
    }
    return k;
  }
  double slam = std::sqrt(lam), loglam = std::log(lam);
  double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    double U = s.uniform() - 0.5, V = s.uniform();
    double us = 0.5 - std::fabs(U);
    double k = std::floor((2 * a / us + b) * U + lam + 0.43);
    if (us >= 0.07 && V <= vr) return k;
    if (k < 0 || (us < 0.013 && V > us)) continue;
    if (std::log(V) + std::log(invalpha) - std::log(a / (us * us) + b) <= -lam + k * loglam - std::lgamma(k + 1))
      return k;
  }
}

// Binomial(n, p) for integer n >= 1 and 0 < p <= 1/2. Small means (n p < 10):
// inversion by geometric skips (about n p + 1 draws). Otherwise Hormann's
// BTRS transformed rejection (1993), accepting against the exact log ratio
// of the pmf at k and at the mode (lgamma instead of Stirling tails).
template <class Stream>
TL_HOST_DEVICE inline double sample_binomial_half(double n, double p, Stream& s) {
  if (n * p < 10) {
    double logq = std::log1p(-p), sum = 0, k = 0;
    for (;;) {
      sum += std::ceil(std::log(s.uniform()) / logq);
      if (sum > n) return k;
      k += 1;
    }
  }
  double spq = std::sqrt(n * p * (1 - p));
  double b = 1.15 + 2.53 * spq, a = -0.0873 + 0.0248 * b + 0.01 * p, c = n * p + 0.5;
  double alpha = (2.83 + 5.1 / b) * spq, vr = 0.92 - 4.2 / b;
  double m = std::floor((n + 1) * p), logr = std::log(p / (1 - p));
  double lf_m = std::lgamma(m + 1) + std::lgamma(n - m + 1);
  for (;;) {
    double U = s.uniform() - 0.5, V = s.uniform();
    double us = 0.5 - std::fabs(U);
    double k = std::floor((2 * a / us + b) * U + c);
    if (k < 0 || k > n) continue;
    if (us >= 0.07 && V <= vr) return k;
    double v = std::log(V * alpha / (a / (us * us) + b));
    if (v <= lf_m - std::lgamma(k + 1) - std::lgamma(n - k + 1) + (k - m) * logr) return k;
  }
}

// Binomial with PyTorch's handling of the edges (no errors: binomial does not
// validate its arguments): NaN or infinite inputs give NaN, count <= 0 or
// p <= 0 give 0, p >= 1 gives count; otherwise count is truncated to an
// integer and p > 1/2 is sampled as count - Binomial(count, 1 - p).
template <class Stream>
TL_HOST_DEVICE inline double sample_binomial(double count, double p, Stream& s) {
  if (std::isnan(count) || std::isnan(p) || std::isinf(count)) return NAN;
  if (count <= 0 || p <= 0) return 0.0;
  if (p >= 1) return count;
  double n = std::trunc(count);
  if (n < 1) return 0.0;
  if (p <= 0.5) return sample_binomial_half(n, p, s);
  return n - sample_binomial_half(n, 1 - p, s);
}

// ---------------------------------------------------------------- checks (RandomDists.cpp)
// multinomial: dtype/dim/num_samples checks; returns the result's sizes.
DimVector multinomial_check(const TensorBase& self, int64_t num_samples, bool replacement);
// normal with tensor parameters: result sizes (broadcast) and dtype (mean's,
// or std's when mean is a number), with PyTorch's dtype checks.
struct NormalPlan {
  DimVector sizes;
  ScalarType dtype;
};
NormalPlan normal_plan(const TensorBase* mean, const TensorBase* std);
void check_normal_std(double std);
// The value of a Python number the argument parser wrapped as a tensor (so
// normal(t, 2.0), which matches normal(Tensor, Tensor) first, behaves as
// normal(Tensor, float)); nullopt for a real tensor.
std::optional<double> wrapped_number_value(const TensorBase& t);
void check_exponential(const TensorBase& self, double lambd);
void check_cauchy(const TensorBase& self, double sigma);
void check_geometric(const TensorBase& self, double p);
void check_log_normal(const TensorBase& self, double std);
void check_poisson(const TensorBase& self);
DimVector binomial_check(const TensorBase& count, const TensorBase& prob);

}  // namespace at::native
