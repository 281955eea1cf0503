// The CPU inner loop every pointwise kernel instantiates. Operands arrive in
// the computation dtype (TensorIterator converted them); half/bfloat16 values
// are widened to float around the functor. Contiguous runs and runs with
// scalar (stride-0) inputs get straight-line loops the compiler vectorises.
#pragma once
#include <tuple>
#include <type_traits>
#include <utility>
#include "../../TensorIterator.h"

namespace at::native {

template <class F> struct functor_traits : functor_traits<decltype(&F::operator())> {};
template <class C, class R, class... A> struct functor_traits<R (C::*)(A...) const> {
  static constexpr int arity = sizeof...(A);
  using result = R;
};

template <class out_t, class in_t, class F, size_t... I>
inline void loop_generic(char** data, const int64_t* s, int64_t n, const F& f, std::index_sequence<I...>) {
  using C = c10::opmath_t<in_t>;
  char* out = data[0];
  char* in[sizeof...(I) + 1] = {data[1 + I]...};
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<out_t*>(out + i * s[0]) =
        static_cast<out_t>(f(static_cast<C>(*reinterpret_cast<const in_t*>(in[I] + i * s[1 + I]))...));
  }
}

template <class out_t, class in_t, class F, size_t... I>
inline void loop_contiguous(char** data, int64_t n, const F& f, std::index_sequence<I...>) {
  using C = c10::opmath_t<in_t>;
  out_t* __restrict__ out = reinterpret_cast<out_t*>(data[0]);
  const in_t* __restrict__ in[sizeof...(I) + 1] = {reinterpret_cast<const in_t*>(data[1 + I])...};
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<out_t>(f(static_cast<C>(in[I][i])...));
}

// Binary op where the second input is a broadcast scalar (x + 1).
template <class out_t, class in_t, class F>
inline void loop_contiguous_scalar2(char** data, int64_t n, const F& f) {
  using C = c10::opmath_t<in_t>;
  out_t* __restrict__ out = reinterpret_cast<out_t*>(data[0]);
  const in_t* __restrict__ a = reinterpret_cast<const in_t*>(data[1]);
  const C b = static_cast<C>(*reinterpret_cast<const in_t*>(data[2]));
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<out_t>(f(static_cast<C>(a[i]), b));
}

// Half/bfloat16 loop where some inputs (bits of `mask`) are 0-dim operands
// already held as float (TensorIterator::opmath_inputs).
template <class out_t, class in_t, class F, size_t... I>
inline void loop_opmath_scalars(char** data, const int64_t* s, int64_t n, const F& f, unsigned mask,
                                std::index_sequence<I...>) {
  using C = c10::opmath_t<in_t>;
  char* out = data[0];
  auto load = [&](size_t k, int64_t i) -> C {
    const char* p = data[1 + k] + i * s[1 + k];
    return (mask >> k) & 1u ? *reinterpret_cast<const C*>(p) : static_cast<C>(*reinterpret_cast<const in_t*>(p));
  };
  for (int64_t i = 0; i < n; ++i) *reinterpret_cast<out_t*>(out + i * s[0]) = static_cast<out_t>(f(load(I, i)...));
}

template <class out_t, class in_t, class F>
void cpu_kernel(TensorIterator& iter, const F& f) {
  constexpr int N = functor_traits<F>::arity;
  if (iter.is_meta()) return;
  if constexpr (!std::is_same<c10::opmath_t<in_t>, in_t>::value) {
    if (unsigned mask = iter.opmath_inputs()) {
      iter.for_each([&](char** data, const int64_t* s, int64_t n) {
        loop_opmath_scalars<out_t, in_t>(data, s, n, f, mask, std::make_index_sequence<N>());
      });
      return;
    }
  }
  iter.for_each([&](char** data, const int64_t* s, int64_t n) {
    bool contiguous = s[0] == sizeof(out_t);
    for (int k = 1; k <= N; ++k) contiguous = contiguous && s[k] == sizeof(in_t);
    if (contiguous) {
      loop_contiguous<out_t, in_t>(data, n, f, std::make_index_sequence<N>());
      return;
    }
    if constexpr (N == 2) {
      if (s[0] == sizeof(out_t) && s[1] == sizeof(in_t) && s[2] == 0) {
        loop_contiguous_scalar2<out_t, in_t>(data, n, f);
        return;
      }
    }
    loop_generic<out_t, in_t>(data, s, n, f, std::make_index_sequence<N>());
  });
}

// Raises Python's ZeroDivisionError text when an integer kernel divided by zero.
void check_zero_division(const char* op);

}  // namespace at::native
