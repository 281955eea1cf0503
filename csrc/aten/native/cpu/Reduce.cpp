// CPU reduction kernels: each op is a small accumulator type plugged into the
// shared engine in Reduce.h. dtype/shape rules live in ReduceUtils so the
// Meta kernels compute the same result geometry.
#include "Reduce.h"
#include <limits>
#include <type_traits>
#include "../Copy.h"
#include "../ReduceUtils.h"
#include "ops/all.h"
#include "ops/amax.h"
#include "ops/amin.h"
#include "ops/any.h"
#include "ops/argmax.h"
#include "ops/argmin.h"
#include "ops/logsumexp.h"
#include "ops/max.h"
#include "ops/mean.h"
#include "ops/min.h"
#include "ops/norm.h"
#include "ops/prod.h"
#include "ops/std.h"
#include "ops/sum.h"
#include "ops/var.h"

namespace at::native {
namespace {

// Floats (half/bfloat16 widened) accumulate in their opmath type; bool and
// integers in int64, which wraps exactly like a narrower sum cast back.
template <class T>
using sum_acc_t = std::conditional_t<std::is_floating_point_v<c10::opmath_t<T>>, c10::opmath_t<T>, int64_t>;

template <class A, class T>
inline A to_acc(T x) {
  if constexpr (std::is_same_v<A, bool>) {
    using O = c10::opmath_t<T>;
    return static_cast<O>(x) != O(0);
  } else {
    return static_cast<A>(static_cast<c10::opmath_t<T>>(x));
  }
}

struct Identity {
  template <class A> A operator()(A x) const { return x; }
};

// ---- sum-like: sum, mean, p-norms (sum of a map of |x|)
template <class T, class A, class Map = Identity>
struct SumOp {
  using acc_t = A;
  static constexpr int64_t kRowBlock = 256;
  static constexpr bool kCascade = true;
  Map m{};
  A identity() const { return A(0); }
  void chunk(A& a, const T* p, int64_t s, int64_t n, int64_t) const {
    a += pairwise_sum<A>(p, s, n, [&](A x) { return m(x); });
  }
  void row(A* __restrict__ a, const T* __restrict__ p, int64_t w, int64_t) const {
    for (int64_t j = 0; j < w; ++j) a[j] += m(to_acc<A>(p[j]));
  }
  void combine(A& a, const A& b) const { a += b; }
};

struct Mul { template <class A> A operator()(A a, A b) const { return a * b; } };

// ---- folds with an associative binary op: prod, max/min values, any/all, inf-norms
template <class T, class A, class F, class Map = Identity>
struct FoldOp {
  using acc_t = A;
  static constexpr int64_t kRowBlock = 256;
  static constexpr bool kCascade = std::is_floating_point_v<A> && std::is_same_v<F, Mul>;
  A init;
  F f{};
  Map m{};
  A identity() const { return init; }
  void chunk(A& a, const T* p, int64_t s, int64_t n, int64_t) const {
    if (s == 1) {
      a = f(a, lane_fold<A>(p, 1, n, init, f, [&](A x) { return m(x); }));
    } else {
      a = f(a, lane_fold<A>(p, s, n, init, f, [&](A x) { return m(x); }));
    }
  }
  void row(A* __restrict__ a, const T* __restrict__ p, int64_t w, int64_t) const {
    for (int64_t j = 0; j < w; ++j) a[j] = f(a[j], m(to_acc<A>(p[j])));
  }
  void combine(A& a, const A& b) const { a = f(a, b); }
};
struct Or { bool operator()(bool a, bool b) const { return a || b; } };
struct And { bool operator()(bool a, bool b) const { return a && b; } };
// NaN wins: once the accumulator is NaN nothing replaces it.
struct MaxNan {
  template <class A> A operator()(A a, A x) const { return (x > a || x != x) ? x : a; }
};
struct MinNan {
  template <class A> A operator()(A a, A x) const { return (x < a || x != x) ? x : a; }
};
struct Abs { template <class A> A operator()(A x) const { return x < A(0) ? -x : x; } };
struct Square { template <class A> A operator()(A x) const { return x * x; } };
struct NonZero { template <class A> A operator()(A x) const { return x != A(0) ? A(1) : A(0); } };
struct AbsPow {
  double p = 1;
  template <class A> A operator()(A x) const { return (A)std::pow((double)(x < A(0) ? -x : x), p); }
};

// ---- argmax/argmin and max/min with indices
template <class V>
struct ArgAcc {
  V v;
  int64_t i;
};
template <class T, bool IsMax>
struct ArgOp {
  using V = c10::opmath_t<T>;
  using acc_t = ArgAcc<V>;
  static constexpr int64_t kRowBlock = 128;
  static constexpr bool kCascade = false;
  static bool better(V x, V cur) {
    if constexpr (IsMax) return x > cur || (x != x && cur == cur);
    else return x < cur || (x != x && cur == cur);
  }
  acc_t identity() const { return {V(0), -1}; }
  void chunk(acc_t& a, const T* p, int64_t s, int64_t n, int64_t idx0) const {
    V bv = a.v;
    int64_t bi = a.i;
    for (int64_t k = 0; k < n; ++k) {
      V x = static_cast<V>(p[k * s]);
      if (bi < 0 || better(x, bv)) {
        bv = x;
        bi = idx0 + k;
      }
    }
    a = {bv, bi};
  }
  void row(acc_t* a, const T* p, int64_t w, int64_t idx) const {
    for (int64_t j = 0; j < w; ++j) {
      V x = static_cast<V>(p[j]);
      if (a[j].i < 0 || better(x, a[j].v)) a[j] = {x, idx};
    }
  }
  void combine(acc_t& a, const acc_t& b) const {
    if (b.i >= 0 && (a.i < 0 || better(b.v, a.v))) a = b;
  }
};

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

template <class T, class O>
inline O from_acc(T v) {
  if constexpr (std::is_same_v<O, bool>) return v != T(0);
  else return static_cast<O>(v);
}

// Allocates the contiguous result and runs op over `in`.
template <class T, class O, class Op, class Proj>
Tensor run_reduce(const Tensor& in, uint64_t mask, bool keepdim, ScalarType out_dtype, const Op& op,
                  const Proj& proj, bool sort_reduced = true) {
  Tensor out = make_empty(reduced_shape(in.sizes(), mask, keepdim), in.options().with_dtype(out_dtype));
  ReducePlan P = make_reduce_plan(in, mask, sort_reduced);
  O* dst = out.data_ptr<O>();
  reduce_kernel(P, in.data_ptr<T>(), op, [&](int64_t o, const typename Op::acc_t& a) { dst[o] = proj(a); });
  return out;
}

Tensor sum_impl(const Tensor& self, uint64_t mask, bool keepdim, ScalarType out_dtype, bool mean) {
  if (!mean && out_dtype == ScalarType::Long && c10::isIntegralType(self.scalar_type(), true)) {
    // ints and bools accumulate straight into int64, no widened copy of the input
    return TL_DISPATCH_INTEGRAL_AND_BOOL_TYPES(self.scalar_type(), "sum", [&] {
      return run_reduce<scalar_t, int64_t>(self, mask, keepdim, out_dtype, SumOp<scalar_t, int64_t>(),
                                           [](int64_t a) { return a; });
    });
  }
  Tensor in = cast_to(self, out_dtype, self.device());
  const double count = (double)reduced_numel(self.sizes(), mask);
  return TL_DISPATCH_ALL_TYPES(out_dtype, mean ? "mean" : "sum", [&] {
    using A = sum_acc_t<scalar_t>;
    return run_reduce<scalar_t, scalar_t>(in, mask, keepdim, out_dtype, SumOp<scalar_t, A>(), [&](A a) {
      if constexpr (std::is_floating_point_v<A>) {
        if (mean) return from_acc<A, scalar_t>(a / (A)count);
      }
      return from_acc<A, scalar_t>(a);
    });
  });
}

Tensor prod_impl(const Tensor& self, uint64_t mask, bool keepdim, ScalarType out_dtype) {
  Tensor in = (out_dtype == ScalarType::Long && c10::isIntegralType(self.scalar_type(), true))
                  ? cast_to(self, ScalarType::Long, self.device())
                  : cast_to(self, out_dtype, self.device());
  return TL_DISPATCH_ALL_TYPES(out_dtype, "prod", [&] {
    using A = sum_acc_t<scalar_t>;
    return run_reduce<scalar_t, scalar_t>(in, mask, keepdim, out_dtype, FoldOp<scalar_t, A, Mul>{A(1)},
                                          [](A a) { return from_acc<A, scalar_t>(a); });
  });
}

template <bool IsMax>
Tensor minmax_impl(const Tensor& self, uint64_t mask, bool keepdim) {
  return TL_DISPATCH_ALL_TYPES(self.scalar_type(), IsMax ? "max" : "min", [&] {
    using A = c10::opmath_t<scalar_t>;
    A init;
    if constexpr (std::is_same_v<A, bool>) init = !IsMax;
    else if constexpr (std::numeric_limits<A>::has_infinity)
      init = IsMax ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
    else init = IsMax ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
    using F = std::conditional_t<IsMax, MaxNan, MinNan>;
    return run_reduce<scalar_t, scalar_t>(self, mask, keepdim, self.scalar_type(), FoldOp<scalar_t, A, F>{init},
                                          [](A a) { return static_cast<scalar_t>(a); });
  });
}

// Values and/or indices; `values` may be undefined (argmax).
template <bool IsMax>
void arg_impl(const Tensor& in, uint64_t mask, const Tensor& values, const Tensor& indices) {
  // The linear index handed to the op must be row-major over the reduced
  // dims, so they stay in their natural order (several dims only for the
  // flattened argmax, whose input is made contiguous by the caller).
  ReducePlan P = make_reduce_plan(in, mask, false);
  int64_t* idx = indices.data_ptr<int64_t>();
  TL_DISPATCH_ALL_TYPES(in.scalar_type(), IsMax ? "max" : "min", [&] {
    using Op = ArgOp<scalar_t, IsMax>;
    scalar_t* val = values.defined() ? values.data_ptr<scalar_t>() : nullptr;
    reduce_kernel(P, in.data_ptr<scalar_t>(), Op(), [&](int64_t o, const typename Op::acc_t& a) {
      idx[o] = a.i;
      if (val) val[o] = static_cast<scalar_t>(a.v);
    });
  });
}

}  // namespace

// ---------------------------------------------------------------- sum / mean / prod

Tensor sum_all_cpu(const Tensor& self, std::optional<ScalarType> dtype) {
  return sum_impl(self, make_dim_mask(self, std::nullopt), false, sum_result_dtype(self.scalar_type(), dtype), false);
}
Tensor sum_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  return sum_impl(self, make_dim_mask(self, dim), keepdim, sum_result_dtype(self.scalar_type(), dtype), false);
}
Tensor mean_cpu(const Tensor& self, std::optional<ScalarType> dtype) {
  return sum_impl(self, make_dim_mask(self, std::nullopt), false, mean_result_dtype(self, dtype), true);
}
Tensor mean_dim_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  ScalarType t = mean_result_dtype(self, dtype);
  return sum_impl(self, make_dim_mask(self, dim), keepdim, t, true);
}
Tensor prod_cpu(const Tensor& self, std::optional<ScalarType> dtype) {
  return prod_impl(self, make_dim_mask(self, std::nullopt), false, sum_result_dtype(self.scalar_type(), dtype));
}
Tensor prod_dim_cpu(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  return prod_impl(self, make_dim_mask(self, dim), keepdim, sum_result_dtype(self.scalar_type(), dtype));
}

// ---------------------------------------------------------------- max / min / amax / amin

Tensor max_cpu(const Tensor& self) {
  check_nonempty_reduction("max", self, 0, true, false);
  return minmax_impl<true>(self, make_dim_mask(self, std::nullopt), false);
}
Tensor min_cpu(const Tensor& self) {
  check_nonempty_reduction("min", self, 0, true, false);
  return minmax_impl<false>(self, make_dim_mask(self, std::nullopt), false);
}
Tensor amax_cpu(const Tensor& self, IntArrayRef dim, bool keepdim) {
  uint64_t mask = make_dim_mask(self, dim);
  check_nonempty_reduction("amax", self, mask, false, false);
  return minmax_impl<true>(self, mask, keepdim);
}
Tensor amin_cpu(const Tensor& self, IntArrayRef dim, bool keepdim) {
  uint64_t mask = make_dim_mask(self, dim);
  check_nonempty_reduction("amin", self, mask, false, false);
  return minmax_impl<false>(self, mask, keepdim);
}

template <bool IsMax>
static std::tuple<Tensor, Tensor> minmax_dim(const Tensor& self, int64_t dim, bool keepdim) {
  const char* name = IsMax ? "max" : "min";
  uint64_t mask = make_dim_mask(self, dim);
  check_nonempty_reduction(name, self, mask, false, false);
  DimVector shape = reduced_shape(self.sizes(), mask, keepdim);
  Tensor values = make_empty(shape, self.options());
  Tensor indices = make_empty(shape, self.options().with_dtype(ScalarType::Long));
  arg_impl<IsMax>(self, mask, values, indices);
  return {values, indices};
}
std::tuple<Tensor, Tensor> max_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) {
  return minmax_dim<true>(self, dim, keepdim);
}
std::tuple<Tensor, Tensor> min_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) {
  return minmax_dim<false>(self, dim, keepdim);
}

template <bool IsMax>
static Tensor arg_reduce(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  const char* name = IsMax ? "argmax" : "argmin";
  TL_CHECK(self.scalar_type() != ScalarType::Bool, name, "(): does not support bool input");
  uint64_t mask = dim ? make_dim_mask(self, *dim) : make_dim_mask(self, std::nullopt);
  check_nonempty_reduction(name, self, mask, !dim, true);
  DimVector shape = dim ? reduced_shape(self.sizes(), mask, keepdim)
                        : (keepdim ? reduced_shape(self.sizes(), mask, true) : DimVector());
  Tensor indices = make_empty(shape, self.options().with_dtype(ScalarType::Long));
  arg_impl<IsMax>(dim ? self : contiguous(self), mask, Tensor(), indices);
  return indices;
}
Tensor argmax_cpu(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_reduce<true>(self, dim, keepdim);
}
Tensor argmin_cpu(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_reduce<false>(self, dim, keepdim);
}

// ---------------------------------------------------------------- var / std

template <bool Std>
static Tensor var_impl(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                       bool keepdim) {
  check_var_dtype(self);
  uint64_t mask = make_dim_mask(self, dim);
  const double corr = correction ? correction->toDouble() : 1.0;
  return TL_DISPATCH_FLOATING_TYPES(self.scalar_type(), Std ? "std" : "var", [&] {
    return run_reduce<scalar_t, scalar_t>(self, mask, keepdim, self.scalar_type(), WelfordOp<scalar_t>(),
                                          [corr](const Moments& m) {
                                            double v = m.m2 / std::max(0.0, (double)m.n - corr);
                                            if (m.n == 0) v = std::numeric_limits<double>::quiet_NaN();
                                            return static_cast<scalar_t>(Std ? std::sqrt(v) : v);
                                          });
  });
}
Tensor var_correction_cpu(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                          bool keepdim) {
  return var_impl<false>(self, dim, correction, keepdim);
}
Tensor std_correction_cpu(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                          bool keepdim) {
  return var_impl<true>(self, dim, correction, keepdim);
}

// ---------------------------------------------------------------- norm

Tensor norm_cpu(const Tensor& self, const std::optional<Scalar>& p, std::optional<IntArrayRef> dim, bool keepdim,
                std::optional<ScalarType> dtype) {
  check_norm_dtype(self, dtype);
  ScalarType out_dtype = dtype.value_or(self.scalar_type());
  Tensor in = cast_to(self, out_dtype, self.device());
  uint64_t mask = make_dim_mask(self, dim);
  const double pv = p ? p->toDouble() : 2.0;
  if (std::isinf(pv) && self.numel() == 0) {
    for (int64_t d = 0; d < self.dim(); ++d)
      TL_CHECK(!(mask & (1ull << d)) || self.sizes()[d] != 0, "linalg.vector_norm cannot compute the ",
               pv > 0 ? "inf" : "-inf", " norm on the dimension ", d,
               "because this dimension is empty and the operation does not have an identity");
  }
  return TL_DISPATCH_FLOATING_TYPES(out_dtype, "norm", [&] {
    using A = c10::opmath_t<scalar_t>;
    auto cast = [](A a) { return static_cast<scalar_t>(a); };
    if (pv == 2) {
      return run_reduce<scalar_t, scalar_t>(in, mask, keepdim, out_dtype, SumOp<scalar_t, A, Square>(),
                                            [](A a) { return static_cast<scalar_t>(std::sqrt(a)); });
    }
    if (pv == 1) return run_reduce<scalar_t, scalar_t>(in, mask, keepdim, out_dtype, SumOp<scalar_t, A, Abs>(), cast);
    if (pv == 0)
      return run_reduce<scalar_t, scalar_t>(in, mask, keepdim, out_dtype, SumOp<scalar_t, A, NonZero>(), cast);
    if (std::isinf(pv)) {
      if (pv > 0)
        return run_reduce<scalar_t, scalar_t>(in, mask, keepdim, out_dtype, FoldOp<scalar_t, A, MaxNan, Abs>{A(0)},
                                              cast);
      return run_reduce<scalar_t, scalar_t>(in, mask, keepdim, out_dtype,
                                            FoldOp<scalar_t, A, MinNan, Abs>{std::numeric_limits<A>::infinity()}, cast);
    }
    SumOp<scalar_t, A, AbsPow> op;
    op.m.p = pv;
    return run_reduce<scalar_t, scalar_t>(in, mask, keepdim, out_dtype, op, [pv](A a) {
      return static_cast<scalar_t>(std::pow((double)a, 1.0 / pv));
    });
  });
}

// ---------------------------------------------------------------- any / all

template <bool Any>
static Tensor anyall_impl(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  uint64_t mask = make_dim_mask(self, dim, /*empty_means_all=*/false);
  ScalarType out_dtype = self.scalar_type() == ScalarType::Byte ? ScalarType::Byte : ScalarType::Bool;
  return TL_DISPATCH_ALL_TYPES(self.scalar_type(), Any ? "any" : "all", [&] {
    using F = std::conditional_t<Any, Or, And>;
    if (out_dtype == ScalarType::Byte)
      return run_reduce<scalar_t, uint8_t>(self, mask, keepdim, out_dtype, FoldOp<scalar_t, bool, F>{!Any},
                                           [](bool a) { return (uint8_t)a; });
    return run_reduce<scalar_t, bool>(self, mask, keepdim, out_dtype, FoldOp<scalar_t, bool, F>{!Any},
                                      [](bool a) { return a; });
  });
}
Tensor any_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return anyall_impl<true>(self, dim, keepdim);
}
Tensor all_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return anyall_impl<false>(self, dim, keepdim);
}

// ---------------------------------------------------------------- logsumexp

Tensor logsumexp_cpu(const Tensor& self, IntArrayRef dim, bool keepdim) {
  ScalarType t = float_result_dtype(self.scalar_type());
  Tensor in = cast_to(self, t, self.device());
  uint64_t mask = make_dim_mask(self, dim);
  return TL_DISPATCH_FLOATING_TYPES(t, "logsumexp", [&] {
    using Op = LseOp<scalar_t>;
    return run_reduce<scalar_t, scalar_t>(in, mask, keepdim, t, Op(), [](const typename Op::acc_t& a) {
      return static_cast<scalar_t>(Op::finish(a));
    });
  });
}

}  // namespace at::native
