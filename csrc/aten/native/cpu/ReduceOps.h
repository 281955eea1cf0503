// Accumulator ops shared by the CPU reduction kernels (ReduceSum.cpp,
// ReduceNorm.cpp, ReduceMinMax.cpp, ReduceStats.cpp), plus run_reduce which
// allocates the result and drives the engine in Reduce.h. Everything here is a
// template or an empty functor: a non-template inline function would
// instantiate its engine code in every TU including this header, and the point
// of the split is that each family only pays for its own instantiations.
#pragma once
#include "Reduce.h"
#include <limits>
#include <type_traits>
#include "../ReduceUtils.h"

namespace at::native::reduce_ops {

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
    // lane_fold specialises the contiguous case itself; a second call site
    // here would only instantiate it twice.
    a = f(a, lane_fold<A>(p, s, n, init, f, m));
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

template <class T, class O>
inline O from_acc(T v) {
  if constexpr (std::is_same_v<O, bool>) return v != T(0);
  else return static_cast<O>(v);
}

// Allocates the contiguous result and runs op over `in`.
template <class T, class O, class Op, class Proj>
TensorBase run_reduce(const TensorBase& in, uint64_t mask, bool keepdim, ScalarType out_dtype, const Op& op,
                  const Proj& proj, bool sort_reduced = true) {
  TensorBase out = make_empty(reduced_shape(in.sizes(), mask, keepdim), in.options().with_dtype(out_dtype));
  ReducePlan P = make_reduce_plan(in, mask, sort_reduced);
  O* dst = out.data_ptr<O>();
  reduce_kernel(P, in.data_ptr<T>(), op, [&](int64_t o, const typename Op::acc_t& a) { dst[o] = proj(a); });
  return out;
}

}  // namespace at::native::reduce_ops
