// CPU kernels of flip and tril/triu. Both only move elements, so they work on
// raw element-sized words and serve every dtype (float16/bfloat16 included)
// without a dtype switch; zero is the all-zero bit pattern in every dtype.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "../ShapeOps.h"
#include "aten/Parallel.h"
#include "c10/TensorImpl.h"
#include "ops/contiguous.h"
#include "ops/copy.h"
#include "ops/flip.h"
#include "ops/tril.h"
#include "ops/triu.h"

namespace at::native {

namespace {

// The walk order: out's dims from outermost to innermost in memory, so the
// writes are sequential and, since out has self's layout when self is dense,
// so are the reads (up to the flipped direction).
struct FlipWalk {
  std::vector<int64_t> sizes, in_strides;
  std::unique_ptr<bool[]> flipped;
};

FlipWalk flip_walk(const TensorBase& self, const TensorBase& out, const std::vector<bool>& mask) {
  const int64_t ndim = self.dim();
  std::vector<int64_t> order(ndim);
  for (int64_t d = 0; d < ndim; ++d) order[d] = d;
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return out.strides()[a] > out.strides()[b]; });
  FlipWalk w;
  w.flipped.reset(new bool[ndim]);
  for (int64_t k = 0; k < ndim; ++k) {
    w.sizes.push_back(self.sizes()[order[k]]);
    w.in_strides.push_back(self.strides()[order[k]]);
    w.flipped[k] = mask[order[k]];
  }
  return w;
}

template <class Word>
void flip_rows(const TensorBase& self, const TensorBase& out, const std::vector<bool>& mask) {
  const int64_t ndim = self.dim();
  FlipWalk w = flip_walk(self, out, mask);
  const int64_t inner = w.sizes[ndim - 1], rows = out.numel() / inner;
  // Walking the innermost dim, the source steps by +stride, or -stride when flipped.
  const int64_t step = w.flipped[ndim - 1] ? -w.in_strides[ndim - 1] : w.in_strides[ndim - 1];
  const Word* src = static_cast<const Word*>(self.data_ptr());
  Word* dst = static_cast<Word*>(out.data_ptr());
  at::parallel_for(0, rows, std::max<int64_t>(1, 32768 / inner), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const Word* s = src + flip_source_offset(r * inner, ndim, w.sizes.data(), w.in_strides.data(), w.flipped.get());
      Word* o = dst + r * inner;
      if (step == 1) {
        std::memcpy(o, s, inner * sizeof(Word));
      } else if (step == -1) {
        // A reversed contiguous row: a constant step lets the compiler vectorise (load + shuffle).
        for (int64_t j = 0; j < inner; ++j) o[j] = s[-j];
      } else {
        for (int64_t j = 0; j < inner; ++j) o[j] = s[j * step];
      }
    }
  });
}

// out (contiguous) = the triangle of c (contiguous, same shape) or, when
// out and c are the same tensor, zero the other triangle in place.
void triangle_copy(const TensorBase& c, const TensorBase& out, bool lower, int64_t k) {
  const int64_t rows = c.sizes()[c.dim() - 2], cols = c.sizes()[c.dim() - 1];
  if (c.numel() == 0) return;
  const int64_t batch = c.numel() / (rows * cols);
  const size_t elem = c.itemsize();
  const char* src = static_cast<const char*>(c.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  const bool same = src == dst;
  at::parallel_for(0, batch * rows, std::max<int64_t>(1, 32768 / cols), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      int64_t lo, hi;
      triangle_kept_columns(lower, r % rows, cols, k, &lo, &hi);
      const size_t row = (size_t)r * cols * elem;
      if (!same && hi > lo) std::memcpy(dst + row + lo * elem, src + row + lo * elem, (hi - lo) * elem);
      std::memset(dst + row, 0, lo * elem);
      std::memset(dst + row + hi * elem, 0, (cols - hi) * elem);
    }
  });
}

TensorBase triangle(const TensorBase& self, int64_t k, bool lower) {
  check_triangle_input(self, lower ? "tril" : "triu");
  TensorBase c = at::_ops::contiguous(self, MemoryFormat::Contiguous);
  TensorBase out = make_empty(self.sizes(), self.options());
  triangle_copy(c, out, lower, k);
  return out;
}

TensorBase triangle_(const TensorBase& self, int64_t k, bool lower) {
  check_triangle_input(self, lower ? "tril" : "triu");
  if (self.is_contiguous()) {
    triangle_copy(self, self, lower, k);
    self.bump_version();
  } else {
    // Strided self: compute the triangle densely, then write it back.
    TensorBase tmp = triangle(self, k, lower);
    at::_ops::copy_(self, tmp, false);  // bumps self's version
  }
  return self;
}

}  // namespace

TensorBase flip_cpu(const TensorBase& self, IntArrayRef dims) {
  std::vector<bool> mask = flip_dims_mask(self, dims);
  // A dense input keeps its layout (a transposed matrix flips into a
  // transposed matrix), as PyTorch's flip does; anything else becomes contiguous.
  TensorBase out = self.unsafeGetTensorImpl()->is_non_overlapping_and_dense()
                       ? make_empty_strided(self.sizes(), self.strides(), self.options())
                       : make_empty(self.sizes(), self.options());
  if (out.numel() == 0) return out;
  if (self.dim() == 0) {
    std::memcpy(out.data_ptr(), self.data_ptr(), self.itemsize());
    return out;
  }
  switch (self.itemsize()) {
    case 1: flip_rows<uint8_t>(self, out, mask); break;
    case 2: flip_rows<uint16_t>(self, out, mask); break;
    case 4: flip_rows<uint32_t>(self, out, mask); break;
    case 8: flip_rows<uint64_t>(self, out, mask); break;
    default: TL_CHECK(false, "flip: unsupported element size ", self.itemsize());
  }
  return out;
}

TensorBase tril_cpu(const TensorBase& self, int64_t diagonal) { return triangle(self, diagonal, true); }
TensorBase triu_cpu(const TensorBase& self, int64_t diagonal) { return triangle(self, diagonal, false); }
TensorBase tril__cpu(const TensorBase& self, int64_t diagonal) { return triangle_(self, diagonal, true); }
TensorBase triu__cpu(const TensorBase& self, int64_t diagonal) { return triangle_(self, diagonal, false); }

}  // namespace at::native
