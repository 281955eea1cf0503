// Index math of the CUDA elementwise loop: a flat element number of a
// TensorIterator's loop (dim 0 fastest) -> each operand's byte offset.
// Host/device code, so the CPU test binding (python/CudaIndexMathTesting.cpp)
// checks the exact code the GPU runs, on machines without one.
#pragma once
#include <cstdint>
#include <type_traits>
#include "../../c10/Half.h"

namespace at::native::elementwise {

// The most loop dims one kernel launch handles; TensorIterator coalesces
// contiguous dims first, so this bounds only truly scattered layouts.
constexpr int kMaxLoopDims = 16;

// n / d and n % d for 32-bit n by multiply-and-shift: an integer division is
// tens of cycles on a GPU and the offset loop does one per dim per element.
// With s = ceil(log2 d) and m = floor(2^32 (2^s - d) / d) + 1,
// n / d = (hi32(n m) + n) >> s, exact for every 32-bit n when the sum is
// formed in 64 bits.
struct Divider32 {
  uint32_t divisor = 1;
  uint32_t magic = 0;
  uint32_t shift = 0;
  Divider32() = default;
  explicit Divider32(uint32_t d) : divisor(d) {
    uint32_t s = 0;
    while (s < 32 && (uint64_t(1) << s) < d) ++s;
    shift = s;
    magic = uint32_t(((uint64_t(1) << 32) * ((uint64_t(1) << s) - d)) / d + 1);
  }
  TL_HOST_DEVICE uint32_t div(uint32_t n) const {
#ifdef __CUDA_ARCH__
    uint32_t hi = __umulhi(n, magic);
#else
    uint32_t hi = uint32_t((uint64_t(n) * magic) >> 32);
#endif
    return uint32_t((uint64_t(hi) + n) >> shift);
  }
  TL_HOST_DEVICE uint32_t mod(uint32_t n, uint32_t q) const { return n - q * divisor; }
};

// 64-bit counterpart for loops past 2^31 elements or bytes: plain division.
struct Divider64 {
  uint64_t divisor = 1;
  Divider64() = default;
  explicit Divider64(uint64_t d) : divisor(d) {}
  TL_HOST_DEVICE uint64_t div(uint64_t n) const { return n / divisor; }
  TL_HOST_DEVICE uint64_t mod(uint64_t n, uint64_t q) const { return n - q * divisor; }
};

template <class Index> struct DividerFor;
template <> struct DividerFor<uint32_t> { using type = Divider32; };
template <> struct DividerFor<uint64_t> { using type = Divider64; };

// Byte offsets of the NARGS operands of one element.
template <int NARGS, class Offset>
struct OperandOffsets {
  Offset at[NARGS];
};

// Sizes and byte strides of a loop (dim 0 fastest), passed to a kernel by
// value. Index: uint32_t when the element count and every byte offset fit in
// 31 bits (can_use_32bit_indexing), else uint64_t.
template <int NARGS, class Index>
struct StridedOffsetCalculator {
  using Offset = typename std::conditional<sizeof(Index) == 4, int32_t, int64_t>::type;
  using Divider = typename DividerFor<Index>::type;
  int ndim = 0;
  Divider sizes[kMaxLoopDims];
  Offset strides[kMaxLoopDims][NARGS];

  // sizes_in/strides_in[arg][dim] as TensorIterator holds them; ndim <= kMaxLoopDims.
  StridedOffsetCalculator(int nd, const int64_t* sizes_in, const int64_t* const* strides_in) : ndim(nd) {
    for (int d = 0; d < nd; ++d) {
      sizes[d] = Divider(Index(sizes_in[d]));
      for (int a = 0; a < NARGS; ++a) strides[d][a] = Offset(strides_in[a][d]);
    }
  }

  TL_HOST_DEVICE OperandOffsets<NARGS, Offset> get(Index linear) const {
    OperandOffsets<NARGS, Offset> out;
    for (int a = 0; a < NARGS; ++a) out.at[a] = 0;
    // Peel dims off the flat number, fastest first; the loop has a constant
    // bound so the compiler unrolls it and keeps the strides in registers.
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int d = 0; d < kMaxLoopDims; ++d) {
      if (d == ndim) break;
      Index q = sizes[d].div(linear);
      Index r = sizes[d].mod(linear, q);
      for (int a = 0; a < NARGS; ++a) out.at[a] += Offset(r) * strides[d][a];
      linear = q;
    }
    return out;
  }
};

// True when a loop of `numel` elements whose operands reach at most
// `max_byte_extent` bytes from their start can use 32-bit index math.
inline bool fits_32bit_indexing(int64_t numel, int64_t max_byte_extent) {
  constexpr int64_t kLimit = (int64_t(1) << 31) - 1;
  return numel <= kLimit && max_byte_extent <= kLimit;
}

}  // namespace at::native::elementwise
