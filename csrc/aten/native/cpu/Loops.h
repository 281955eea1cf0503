// The CPU inner loop every pointwise kernel instantiates. Operands arrive in
// the computation dtype (TensorIterator converted them); half/bfloat16 values
// are widened to float around the functor. Contiguous runs and runs with
// scalar (stride-0) inputs get straight-line loops the compiler vectorises.
#pragma once
#include <tuple>
#include <type_traits>
#include <utility>
#include "../../Parallel.h"
#include "../../TensorIterator.h"
#include "../Math.h"

namespace at::native {

// ------------------------------------------------------------ the CPU loop driver

// Runs loop(data, strides, n) over the inner rows of elements [begin, end) of
// the iterator's loop space (dim 0 fastest), on this thread.
template <class Loop>
void cpu_serial_for_each(const TensorIterator& iter, const Loop& loop, int64_t begin, int64_t end) {
  const int nt = iter.ntensors();
  const int nd = iter.ndim();
  IntArrayRef shape = iter.shape();
  char* ptrs[16];
  int64_t inner_strides[16];
  for (int k = 0; k < nt; ++k) inner_strides[k] = iter.strides(k)[0];
  if (nd == 1) {
    for (int k = 0; k < nt; ++k) ptrs[k] = iter.data_ptr(k) + begin * inner_strides[k];
    loop(ptrs, inner_strides, end - begin);
    return;
  }
  // Multi-index of `begin`. Loop dims are coalesced and never of size 1, so
  // there are fewer than 64 of them.
  int64_t idx[64];
  int64_t rem = begin;
  for (int d = 0; d < nd; ++d) {
    idx[d] = rem % shape[d];
    rem /= shape[d];
  }
  int64_t pos = begin;
  while (pos < end) {
    for (int k = 0; k < nt; ++k) {
      char* p = iter.data_ptr(k);
      const int64_t* st = iter.strides(k).data();
      for (int d = 0; d < nd; ++d) p += idx[d] * st[d];
      ptrs[k] = p;
    }
    int64_t n = std::min(shape[0] - idx[0], end - pos);
    loop(ptrs, inner_strides, n);
    pos += n;
    idx[0] += n;
    for (int d = 0; d < nd - 1 && idx[d] >= shape[d]; ++d) {
      idx[d] = 0;
      ++idx[d + 1];
    }
  }
}

// The same over the whole loop space, in parallel chunks.
template <class Loop>
void cpu_for_each(const TensorIterator& iter, const Loop& loop, int64_t grain = kGrainSize) {
  if (iter.numel() == 0) return;
  parallel_for(0, iter.numel(), grain, [&](int64_t b, int64_t e) { cpu_serial_for_each(iter, loop, b, e); });
}

// Points tl_math's division-by-zero report at one kernel call's flag for the
// life of a chunk (restoring the previous target: loops may nest).
class ZeroDivisionScope {
 public:
  explicit ZeroDivisionScope(std::atomic<int>* flag) : prev_(tl_math::zero_division_slot()) {
    tl_math::zero_division_slot() = flag;
  }
  ~ZeroDivisionScope() { tl_math::zero_division_slot() = prev_; }
  ZeroDivisionScope(const ZeroDivisionScope&) = delete;
  ZeroDivisionScope& operator=(const ZeroDivisionScope&) = delete;

 private:
  std::atomic<int>* prev_;
};

// ------------------------------------------------------------ pointwise kernels

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
void cpu_kernel_loop(TensorIterator& iter, const F& f, std::atomic<int>* zero_division) {
  constexpr int N = functor_traits<F>::arity;
  if constexpr (!std::is_same<c10::opmath_t<in_t>, in_t>::value) {
    if (unsigned mask = iter.opmath_inputs()) {
      cpu_for_each(iter, [&](char** data, const int64_t* s, int64_t n) {
        loop_opmath_scalars<out_t, in_t>(data, s, n, f, mask, std::make_index_sequence<N>());
      });
      return;
    }
  }
  cpu_for_each(iter, [&](char** data, const int64_t* s, int64_t n) {
    ZeroDivisionScope scope(zero_division);
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

// Runs functor f over the iterator. An integer division by zero anywhere in
// the loop raises ZeroDivisionError here, for this call only.
template <class out_t, class in_t, class F>
void cpu_kernel(TensorIterator& iter, const F& f) {
  if (iter.is_meta()) return;
  std::atomic<int> zero_division{0};
  cpu_kernel_loop<out_t, in_t>(iter, f, &zero_division);
  TL_CHECK(!zero_division.load(std::memory_order_relaxed), "ZeroDivisionError (in ", iter.name(), ")");
}

}  // namespace at::native
