// CPU var/std/logsumexp/any/all kernels (engine in Reduce.h).
#include "ReduceOps.h"
#include "../Copy.h"
#include "ops/all.h"
#include "ops/any.h"
#include "ops/logsumexp.h"
#include "ops/std.h"
#include "ops/var.h"

namespace at::native {
using namespace reduce_ops;
namespace {

// ---- variance: per-chunk two-pass moments merged with Chan's formula, in double
struct Moments {
  double mean = 0, m2 = 0;
  int64_t n = 0;
};
template <class T>
struct WelfordOp {
  using acc_t = Moments;
  static constexpr int64_t kRowBlock = 128;
  static constexpr bool kCascade = true;
  acc_t identity() const { return {}; }
  static void merge(Moments& a, const Moments& b) {
    if (b.n == 0) return;
    if (a.n == 0) {
      a = b;
      return;
    }
    int64_t n = a.n + b.n;
    double d = b.mean - a.mean;
    a.mean += d * (double)b.n / (double)n;
    a.m2 += b.m2 + d * d * (double)a.n * (double)b.n / (double)n;
    a.n = n;
  }
  void chunk(acc_t& a, const T* p, int64_t s, int64_t n, int64_t) const {
    constexpr int64_t kBlock = 4096;
    for (int64_t b = 0; b < n; b += kBlock) {
      int64_t m = std::min(kBlock, n - b);
      const T* q = p + b * s;
      Moments c;
      c.n = m;
      c.mean = lane_sum<double>(q, s, m, Identity()) / (double)m;
      const double mu = c.mean;
      c.m2 = lane_sum<double>(q, s, m, [mu](double x) { return (x - mu) * (x - mu); });
      merge(a, c);
    }
  }
  void row(acc_t* a, const T* p, int64_t w, int64_t) const {
    for (int64_t j = 0; j < w; ++j) {
      double x = to_acc<double>(p[j]);
      int64_t n = a[j].n + 1;
      double d = x - a[j].mean;
      a[j].mean += d / (double)n;
      a[j].m2 += d * (x - a[j].mean);
      a[j].n = n;
    }
  }
  void combine(acc_t& a, const acc_t& b) const { merge(a, b); }
};

// ---- logsumexp: running (max, sum of exp(x - max)), so one pass is stable
template <class V>
struct LseAcc {
  V m, s;
};
template <class T>
struct LseOp {
  using V = c10::opmath_t<T>;
  using acc_t = LseAcc<V>;
  static constexpr int64_t kRowBlock = 128;
  static constexpr bool kCascade = true;
  acc_t identity() const { return {-std::numeric_limits<V>::infinity(), V(0)}; }
  static void add(acc_t& a, V x) {
    if (x > a.m) {
      a.s = a.s * std::exp(a.m - x) + V(1);
      a.m = x;
    } else if (x == a.m) {
      a.s += V(1);  // also -inf == -inf, where exp(x - m) would be NaN
    } else {
      a.s += std::exp(x - a.m);  // NaN x or NaN m makes s NaN
    }
  }
  void chunk(acc_t& a, const T* p, int64_t s, int64_t n, int64_t) const {
    for (int64_t k = 0; k < n; ++k) add(a, static_cast<V>(p[k * s]));
  }
  void row(acc_t* a, const T* p, int64_t w, int64_t) const {
    for (int64_t j = 0; j < w; ++j) add(a[j], static_cast<V>(p[j]));
  }
  void combine(acc_t& a, const acc_t& b) const {
    if (b.m > a.m) {
      a.s = a.s * std::exp(a.m - b.m) + b.s;
      a.m = b.m;
    } else if (b.m == a.m) {
      a.s += b.s;
    } else if (b.m < a.m) {
      a.s += b.s * std::exp(b.m - a.m);
    } else {
      a.s = a.m = std::numeric_limits<V>::quiet_NaN();
    }
  }
  static V finish(const acc_t& a) {
    if (std::isinf(a.m) && !std::isnan(a.s)) return a.m;
    return a.m + std::log(a.s);
  }
};

}  // namespace

// ---------------------------------------------------------------- var / std

// std is a runtime flag, not a template parameter: var and std then share
// one engine instantiation per dtype.
static TensorBase var_impl(bool is_std, const TensorBase& self, std::optional<IntArrayRef> dim,
                       const std::optional<Scalar>& correction, bool keepdim) {
  check_var_dtype(self);
  uint64_t mask = make_dim_mask(self, dim);
  const double corr = correction ? correction->toDouble() : 1.0;
  return TL_DISPATCH_FLOATING_TYPES(self.scalar_type(), is_std ? "std" : "var", [&] {
    return run_reduce<scalar_t, scalar_t>(self, mask, keepdim, self.scalar_type(), WelfordOp<scalar_t>(),
                                          [corr, is_std](const Moments& m) {
                                            double v = m.m2 / std::max(0.0, (double)m.n - corr);
                                            if (m.n == 0) v = std::numeric_limits<double>::quiet_NaN();
                                            return static_cast<scalar_t>(is_std ? std::sqrt(v) : v);
                                          });
  });
}
TensorBase var_correction_cpu(const TensorBase& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                          bool keepdim) {
  return var_impl(false, self, dim, correction, keepdim);
}
TensorBase std_correction_cpu(const TensorBase& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                          bool keepdim) {
  return var_impl(true, self, dim, correction, keepdim);
}

// ---------------------------------------------------------------- any / all

// any/all only ask "is x nonzero", which for bool and integers is a question
// about the bits alone: read them as the unsigned integer of the same width,
// so bool/uint8/int8 (and the signed/unsigned pairs) share one instantiation.
// Floats keep their own type: -0.0 is zero and NaN is not.
template <class T>
using anyall_storage_t =
    std::conditional_t<std::is_floating_point_v<c10::opmath_t<T>>, T,
                       std::conditional_t<sizeof(T) == 1, uint8_t,
                                          std::conditional_t<sizeof(T) == 2, uint16_t,
                                                             std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>>;

template <bool Any>
static TensorBase anyall_impl(const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim) {
  uint64_t mask = make_dim_mask(self, dim, /*empty_means_all=*/false);
  ScalarType out_dtype = self.scalar_type() == ScalarType::Byte ? ScalarType::Byte : ScalarType::Bool;
  return TL_DISPATCH_ALL_TYPES(self.scalar_type(), Any ? "any" : "all", [&] {
    using F = std::conditional_t<Any, Or, And>;
    using S = anyall_storage_t<scalar_t>;
    static_assert(sizeof(S) == sizeof(scalar_t));
    // Bool and Byte results are both one byte holding 0 or 1, so one writer serves both.
    return run_reduce<S, uint8_t>(self, mask, keepdim, out_dtype, FoldOp<S, bool, F>{!Any},
                                  [](bool a) { return (uint8_t)a; });
  });
}
TensorBase any_cpu(const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return anyall_impl<true>(self, dim, keepdim);
}
TensorBase all_cpu(const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return anyall_impl<false>(self, dim, keepdim);
}

// ---------------------------------------------------------------- logsumexp

TensorBase logsumexp_cpu(const TensorBase& self, IntArrayRef dim, bool keepdim) {
  ScalarType t = float_result_dtype(self.scalar_type());
  TensorBase in = cast_to(self, t, self.device());
  uint64_t mask = make_dim_mask(self, dim);
  return TL_DISPATCH_FLOATING_TYPES(t, "logsumexp", [&] {
    using Op = LseOp<scalar_t>;
    return run_reduce<scalar_t, scalar_t>(in, mask, keepdim, t, Op(), [](const typename Op::acc_t& a) {
      return static_cast<scalar_t>(Op::finish(a));
    });
  });
}

}  // namespace at::native
