// Advanced indexing and the masked ops on CPU.
//
// index / index_put_: the index tensors are turned once into a table of
// element offsets into self (one per position of their broadcast shape,
// bounds-checked and wrapped), then the result is walked as
// [pre dims][index block][post dims] rows. Plain gathers and non-accumulating
// writes only move bytes, so they are dispatched on element size, not dtype.
// Masks: x[mask] over a contiguous tensor (and masked_select) skip nonzero()
// and compact in two parallel passes (count per chunk, then copy).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>

#include "../Indexing.h"
#include "Loops.h"
#include "aten/MemoryOverlap.h"
#include "aten/Parallel.h"
#include "aten/TensorIterator.h"
#include "ops/clone.h"
#include "ops/contiguous.h"
#include "ops/expand.h"
#include "ops/index.h"
#include "ops/index_put.h"
#include "ops/masked_fill.h"
#include "ops/masked_scatter.h"
#include "ops/masked_select.h"
#include "ops/nonzero.h"
#include "ops/put.h"
#include "ops/take.h"

namespace at::native {

namespace {

// Element types of each size: gathers and plain writes move bytes.
template <size_t E> struct Bytes;
template <> struct Bytes<1> { using type = uint8_t; };
template <> struct Bytes<2> { using type = uint16_t; };
template <> struct Bytes<4> { using type = uint32_t; };
template <> struct Bytes<8> { using type = uint64_t; };

template <class F>
void dispatch_elem_size(size_t size, const F& f) {
  switch (size) {
    case 1: f(Bytes<1>{}); break;
    case 2: f(Bytes<2>{}); break;
    case 4: f(Bytes<4>{}); break;
    case 8: f(Bytes<8>{}); break;
    default: TL_ERROR("indexing: unsupported element size ", size);
  }
}

// x += v in the accumulation type (float for half/bfloat16, or for bool).
template <class T>
inline void accumulate_into(T& x, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    x = x || v;
  } else if constexpr (std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>) {
    x = T(static_cast<float>(x) + static_cast<float>(v));
  } else {
    x = static_cast<T>(x + v);
  }
}

template <class T>
inline bool is_nonzero_value(T v) {
  if constexpr (std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>) return static_cast<float>(v) != 0.f;
  else return v != T(0);
}

// The first out-of-range index any thread saw (reported after the loop, so
// workers never throw mid-write).
struct BadIndex {
  std::atomic<bool> seen{false};
  std::mutex mu;
  int64_t value = 0, dim = 0, size = 0;
  void record(int64_t v, int64_t d, int64_t s) {
    std::lock_guard<std::mutex> g(mu);
    if (seen.load(std::memory_order_relaxed)) return;
    value = v;
    dim = d;
    size = s;
    seen.store(true);
  }
};

// Calls f(position, linear) for linear in [b0, b1), where position is the
// element offset of that row-major position in a strided shape.
template <class F>
void walk_strided(IntArrayRef sizes, IntArrayRef strides, int64_t b0, int64_t b1, const F& f) {
  const int64_t nd = (int64_t)sizes.size();
  DimVector idx(nd, 0);
  int64_t rem = b0, pos = 0;
  for (int64_t d = nd - 1; d >= 0; --d) {
    idx[d] = rem % sizes[d];
    rem /= sizes[d];
    pos += idx[d] * strides[d];
  }
  for (int64_t b = b0; b < b1; ++b) {
    f(pos, b);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d]) {
        pos += strides[d];
        break;
      }
      pos -= (sizes[d] - 1) * strides[d];
      idx[d] = 0;
    }
  }
}

bool is_contiguous_shape(IntArrayRef sizes, IntArrayRef strides) {
  int64_t expect = 1;
  for (int64_t d = (int64_t)sizes.size() - 1; d >= 0; --d) {
    if (sizes[d] != 1 && strides[d] != expect) return false;
    expect *= sizes[d];
  }
  return true;
}

// off[b] = sum over indexed dims d of wrap(index_d[b]) * self.stride(d).
std::vector<int64_t> index_offsets(const TensorBase& self, const IndexPlan& plan) {
  int64_t nb = 1;
  for (int64_t s : plan.index_shape) nb *= s;
  std::vector<int64_t> off((size_t)nb, 0);
  if (nb == 0) return off;
  BadIndex bad;
  for (int64_t d = 0; d < (int64_t)plan.indices.size(); ++d) {
    const TensorBase& ix = plan.indices[d];
    if (!ix.defined()) continue;
    const int64_t size = self.sizes()[d], stride = self.strides()[d];
    const bool is_long = ix.scalar_type() == kLong;
    const char* data = static_cast<const char*>(ix.data_ptr());
    const bool contig = is_contiguous_shape(ix.sizes(), ix.strides());
    parallel_for(0, nb, kGrainSize, [&](int64_t b0, int64_t b1) {
      auto one = [&](int64_t pos, int64_t b) {
        int64_t v = is_long ? reinterpret_cast<const int64_t*>(data)[pos] : reinterpret_cast<const int32_t*>(data)[pos];
        if (!index_in_range(v, size)) {
          bad.record(v, d, size);
          return;
        }
        off[(size_t)b] += wrap_index(v, size) * stride;
      };
      if (contig) {
        for (int64_t b = b0; b < b1; ++b) one(b, b);
      } else {
        walk_strided(ix.sizes(), ix.strides(), b0, b1, one);
      }
    });
  }
  TL_CHECK_INDEX(!bad.seen.load(), "index ", bad.value, " is out of bounds for dimension ", bad.dim, " with size ",
                 bad.size);
  return off;
}

// x[mask] where the mask is the only index, covers self's leading dims with
// matching sizes, and both are contiguous: the mask, else null.
const TensorBase* leading_mask(const TensorBase& self, TensorBaseList indices) {
  if (indices.empty() || !indices[0].defined() || indices[0].scalar_type() != kBool) return nullptr;
  const TensorBase& mask = indices[0];
  if (mask.dim() < 1 || mask.dim() > self.dim() || !self.is_contiguous() || !mask.is_contiguous()) return nullptr;
  for (size_t i = 1; i < indices.size(); ++i)
    if (indices[i].defined()) return nullptr;
  if ((int64_t)indices.size() - 1 + mask.dim() > self.dim()) return nullptr;
  for (int64_t d = 0; d < mask.dim(); ++d)
    if (mask.sizes()[d] != self.sizes()[d]) return nullptr;
  return &mask;
}

// The one index tensor of a plan over a 1-D self (contiguous index), or null.
const TensorBase* sole_index_1d(const TensorBase& self, const IndexPlan& plan) {
  if (self.dim() != 1 || plan.indices.size() != 1 || !plan.indices[0].defined()) return nullptr;
  const TensorBase& ix = plan.indices[0];
  return ix.is_contiguous() ? &ix : nullptr;
}

// f(b0, b1, data) over chunks of a contiguous long or int index tensor.
template <class F>
void for_each_index(const TensorBase& ix, int64_t n, const F& f, bool parallel = true) {
  auto run = [&](auto* data) {
    if (parallel) parallel_for(0, n, kGrainSize, [&](int64_t b0, int64_t b1) { f(b0, b1, data); });
    else f(0, n, data);
  };
  if (ix.scalar_type() == kLong) run(static_cast<const int64_t*>(ix.data_ptr()));
  else run(static_cast<const int32_t*>(ix.data_ptr()));
}

int64_t product(IntArrayRef s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
}

// ------------------------------------------------------------ mask compaction

// Fixed chunking of [0, n) so the count pass and the copy pass agree.
struct Chunks {
  int64_t n, per, count;
  explicit Chunks(int64_t n_) : n(n_) {
    const int64_t target = std::max<int64_t>(1, std::min<int64_t>(get_num_threads() * 4, n_ / 16384));
    per = std::max<int64_t>(1, (n_ + target - 1) / target);
    count = n_ == 0 ? 0 : (n_ + per - 1) / per;
  }
  int64_t begin(int64_t c) const { return c * per; }
  int64_t end(int64_t c) const { return std::min(n, (c + 1) * per); }
};

// Exclusive prefix sums of the true mask bytes per chunk; returns the total.
int64_t count_mask(const uint8_t* mask, const Chunks& ch, std::vector<int64_t>& starts) {
  starts.assign((size_t)ch.count + 1, 0);
  parallel_for(0, ch.count, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      int64_t k = 0;
      for (int64_t i = ch.begin(c), e = ch.end(c); i < e; ++i) k += mask[i] != 0;
      starts[(size_t)c + 1] = k;
    }
  });
  for (int64_t c = 0; c < ch.count; ++c) starts[(size_t)c + 1] += starts[(size_t)c];
  return starts[(size_t)ch.count];
}

// out = the rows of src (rows x inner contiguous elements) whose mask byte is set.
void compact_rows(const char* src, const uint8_t* mask, int64_t rows, int64_t inner, size_t elem, char* out,
                  const Chunks& ch, const std::vector<int64_t>& starts) {
  dispatch_elem_size(elem, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* s = reinterpret_cast<const T*>(src);
    T* o = reinterpret_cast<T*>(out);
    parallel_for(0, ch.count, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        int64_t k = starts[(size_t)c];
        const int64_t b = ch.begin(c), e = ch.end(c);
        if (inner == 1) {
          // Branch-free into a small buffer (a write past this chunk's share
          // of `out` would race with the next chunk), then one copy.
          constexpr int64_t kBlock = 256;
          T buf[kBlock + 1];
          for (int64_t i0 = b; i0 < e; i0 += kBlock) {
            const int64_t i1 = std::min(e, i0 + kBlock);
            int64_t m = 0;
            for (int64_t i = i0; i < i1; ++i) {
              buf[m] = s[i];
              m += mask[i] != 0;
            }
            std::memcpy(o + k, buf, (size_t)m * sizeof(T));
            k += m;
          }
        } else {
          for (int64_t i = b; i < e; ++i)
            if (mask[i]) std::memcpy(o + (k++) * inner, s + i * inner, (size_t)inner * sizeof(T));
        }
      }
    });
  });
  (void)rows;
}

// rows x inner contiguous src, contiguous bool/byte mask of `rows` elements.
TensorBase masked_rows(const TensorBase& src, const TensorBase& mask, int64_t rows, IntArrayRef tail) {
  const uint8_t* m = static_cast<const uint8_t*>(mask.data_ptr());
  Chunks ch(rows);
  std::vector<int64_t> starts;
  const int64_t total = count_mask(m, ch, starts);
  DimVector sizes{total};
  for (int64_t s : tail) sizes.push_back(s);
  TensorBase out = make_empty(sizes, src.options());
  if (out.numel() == 0) return out;
  compact_rows(static_cast<const char*>(src.data_ptr()), m, rows, product(tail), src.element_size(),
               static_cast<char*>(out.data_ptr()), ch, starts);
  return out;
}

}  // namespace

// ------------------------------------------------------------ index

TensorBase index_cpu(const TensorBase& self, TensorBaseList indices) {
  // x[mask] with mask over self's leading dims, both contiguous: compact
  // directly instead of materialising the mask's nonzero() indices.
  if (const TensorBase* mask = leading_mask(self, indices))
    return masked_rows(self, *mask, mask->numel(), self.sizes().slice(mask->dim()));
  IndexPlan plan = make_index_plan(self, expand_index_masks(self, indices, "index"));
  if (const TensorBase* only = sole_index_1d(self, plan)) {
    // x[idx] on a 1-D tensor: bounds check, wrap and gather in one pass.
    TensorBase out = make_empty(plan.result_sizes, self.options());
    const int64_t n = only->numel(), size = self.sizes()[0], stride = self.strides()[0];
    BadIndex bad;
    dispatch_elem_size(self.element_size(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = static_cast<const T*>(self.data_ptr());
      T* o = static_cast<T*>(out.data_ptr());
      for_each_index(*only, n, [&](int64_t b0, int64_t b1, auto ip) {
        for (int64_t b = b0; b < b1; ++b) {
          const int64_t v = ip[b];
          if (!index_in_range(v, size)) {
            bad.record(v, 0, size);
            o[b] = T(0);
            continue;
          }
          o[b] = src[wrap_index(v, size) * stride];
        }
      });
    });
    TL_CHECK_INDEX(!bad.seen.load(), "index ", bad.value, " is out of bounds for dimension 0 with size ", bad.size);
    return out;
  }
  std::vector<int64_t> off = index_offsets(self, plan);
  TensorBase out = make_empty(plan.result_sizes, self.options());
  if (out.numel() == 0) return out;
  const int64_t nb = (int64_t)off.size();
  const int64_t P = product(plan.pre_sizes), Q = product(plan.post_sizes);
  std::vector<int64_t> pre = strided_offsets(plan.pre_sizes, plan.pre_strides);
  std::vector<int64_t> post = strided_offsets(plan.post_sizes, plan.post_strides);
  const bool post_contig = is_contiguous_shape(plan.post_sizes, plan.post_strides);
  dispatch_elem_size(self.element_size(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* base = static_cast<const T*>(self.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    if (P == 1 && Q == 1) {
      const T* src = base + pre[0] + post[0];
      parallel_for(0, nb, kGrainSize, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) o[b] = src[off[(size_t)b]];
      });
      return;
    }
    parallel_for(0, P * nb, std::max<int64_t>(1, kGrainSize / Q), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* src = base + pre[(size_t)(r / nb)] + off[(size_t)(r % nb)];
        T* dst = o + r * Q;
        if (post_contig) std::memcpy(dst, src, (size_t)Q * sizeof(T));
        else
          for (int64_t q = 0; q < Q; ++q) dst[q] = src[post[(size_t)q]];
      }
    });
  });
  return out;
}

// ------------------------------------------------------------ index_put_

TensorBase index_put_cpu_(const TensorBase& self, TensorBaseList indices, const TensorBase& values, bool accumulate) {
  TL_CHECK(self.scalar_type() == values.scalar_type(), "Index put requires the source and destination dtypes match, got ",
           c10::toString(self.scalar_type()), " for the destination and ", c10::toString(values.scalar_type()),
           " for the source.");
  TL_CHECK(values.device() == self.device(), "index_put_(): values must be on ", self.device().str(), ", got ",
           values.device().str());
  at::assert_no_internal_overlap(self, "index_put_");
  if (const TensorBase* mask = leading_mask(self, indices); mask && values.dim() == 0) {
    // x[mask] = scalar: one pass over the mask, no nonzero() indices.
    const uint8_t* m = static_cast<const uint8_t*>(mask->data_ptr());
    const int64_t rows = mask->numel(), inner = product(self.sizes().slice(mask->dim()));
    TL_DISPATCH_ALL_TYPES(self.scalar_type(), "index_put_", [&] {
      const scalar_t val = *static_cast<const scalar_t*>(values.data_ptr());
      scalar_t* dst = static_cast<scalar_t*>(self.data_ptr());
      parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, inner)), [&](int64_t r0, int64_t r1) {
        if (inner == 1 && !accumulate) {
          for (int64_t i = r0; i < r1; ++i) dst[i] = m[i] ? val : dst[i];  // a select, vectorised
          return;
        }
        for (int64_t i = r0; i < r1; ++i) {
          if (!m[i]) continue;
          scalar_t* row = dst + i * inner;
          for (int64_t j = 0; j < inner; ++j) {
            if (accumulate) accumulate_into(row[j], val);
            else row[j] = val;
          }
        }
      });
    });
    self.bump_version();
    return self;
  }
  IndexPlan plan = make_index_plan(self, expand_index_masks(self, indices, "index_put_"));
  check_index_put_values(plan, values);
  // Values that share memory with self are read before any write lands.
  if (const TensorBase* only = sole_index_1d(self, plan)) {
    TensorBase v = values;
    if (at::overlap_status(self, values) != MemOverlap::No) v = at::_ops::clone(values);
    v = at::_ops::expand(v, plan.result_sizes);
    const int64_t n = only->numel(), size = self.sizes()[0], stride = self.strides()[0], vs = v.strides()[0];
    // Every index is checked before anything is written.
    BadIndex bad;
    for_each_index(*only, n, [&](int64_t b0, int64_t b1, auto ip) {
      bool ok = true;
      for (int64_t b = b0; b < b1; ++b) ok &= index_in_range(ip[b], size);
      if (!ok)
        for (int64_t b = b0; b < b1; ++b)
          if (!index_in_range(ip[b], size)) bad.record(ip[b], 0, size);
    });
    TL_CHECK_INDEX(!bad.seen.load(), "index ", bad.value, " is out of bounds for dimension 0 with size ", bad.size);
    TL_DISPATCH_ALL_TYPES(self.scalar_type(), "index_put_", [&] {
      scalar_t* dst = static_cast<scalar_t*>(self.data_ptr());
      const scalar_t* vals = static_cast<const scalar_t*>(v.data_ptr());
      // Repeated indices add up in order (accumulate), or the writes race
      // with no defined winner, as in PyTorch (so they may run in parallel).
      for_each_index(*only, n, [&](int64_t b0, int64_t b1, auto ip) {
        if (accumulate) {
          for (int64_t b = b0; b < b1; ++b) accumulate_into(dst[wrap_index(ip[b], size) * stride], vals[b * vs]);
        } else {
          for (int64_t b = b0; b < b1; ++b) dst[wrap_index(ip[b], size) * stride] = vals[b * vs];
        }
      }, /*parallel=*/!accumulate);
    });
    self.bump_version();
    return self;
  }
  std::vector<int64_t> off = index_offsets(self, plan);
  TensorBase v = values;
  if (at::overlap_status(self, values) != MemOverlap::No) v = at::_ops::clone(values);
  v = at::_ops::expand(v, plan.result_sizes);
  const int64_t total = product(plan.result_sizes);
  if (total == 0) {
    self.bump_version();
    return self;
  }
  const int64_t nb = (int64_t)off.size();
  const int64_t P = product(plan.pre_sizes), Q = product(plan.post_sizes);
  std::vector<int64_t> pre = strided_offsets(plan.pre_sizes, plan.pre_strides);
  std::vector<int64_t> post = strided_offsets(plan.post_sizes, plan.post_strides);
  // Offsets of values in result space: contiguous, or walked per part.
  const bool v_contig = v.is_contiguous();
  const int64_t bp = plan.block_pos, bn = (int64_t)plan.index_shape.size();
  std::vector<int64_t> vpre, vblk, vpost;
  if (!v_contig) {
    IntArrayRef vs = v.strides();
    vpre = strided_offsets(plan.pre_sizes, vs.slice(0, bp));
    vblk = strided_offsets(plan.index_shape, vs.slice(bp, bn));
    vpost = strided_offsets(plan.post_sizes, vs.slice(bp + bn));
  }
  auto voff = [&](int64_t p, int64_t b, int64_t q) -> int64_t {
    return v_contig ? (p * nb + b) * Q + q : vpre[(size_t)p] + vblk[(size_t)b] + vpost[(size_t)q];
  };
  if (!accumulate) {
    dispatch_elem_size(self.element_size(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* base = static_cast<T*>(self.data_ptr());
      const T* vals = static_cast<const T*>(v.data_ptr());
      parallel_for(0, P * nb, std::max<int64_t>(1, kGrainSize / Q), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t p = r / nb, b = r % nb;
          T* dst = base + pre[(size_t)p] + off[(size_t)b];
          for (int64_t q = 0; q < Q; ++q) dst[post[(size_t)q]] = vals[voff(p, b, q)];
        }
      });
    });
  } else {
    // Duplicate indices add up: positions of the index block may hit the same
    // element, so they run in order; distinct pre/post positions never do.
    TL_DISPATCH_ALL_TYPES(self.scalar_type(), "index_put_", [&] {
      scalar_t* base = static_cast<scalar_t*>(self.data_ptr());
      const scalar_t* vals = static_cast<const scalar_t*>(v.data_ptr());
      if (P == 1 && Q == 1 && v_contig) {
        scalar_t* dst = base + pre[0] + post[0];
        for (int64_t b = 0; b < nb; ++b) accumulate_into(dst[off[(size_t)b]], vals[b]);
      } else if (P > 1) {
        parallel_for(0, P, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, nb * Q)), [&](int64_t p0, int64_t p1) {
          for (int64_t p = p0; p < p1; ++p)
            for (int64_t b = 0; b < nb; ++b) {
              scalar_t* dst = base + pre[(size_t)p] + off[(size_t)b];
              for (int64_t q = 0; q < Q; ++q) accumulate_into(dst[post[(size_t)q]], vals[voff(p, b, q)]);
            }
        });
      } else {
        parallel_for(0, Q, kGrainSize, [&](int64_t q0, int64_t q1) {
          for (int64_t b = 0; b < nb; ++b) {
            scalar_t* dst = base + pre[0] + off[(size_t)b];
            for (int64_t q = q0; q < q1; ++q) accumulate_into(dst[post[(size_t)q]], vals[voff(0, b, q)]);
          }
        });
      }
    });
  }
  self.bump_version();
  return self;
}

// ------------------------------------------------------------ nonzero

TensorBase nonzero_cpu(const TensorBase& self) {
  TensorBase c = at::_ops::contiguous(self);
  const int64_t n = c.numel(), nd = c.dim();
  // One flag byte per element, so counting and writing share one pass shape.
  Chunks ch(n);
  std::vector<int64_t> starts((size_t)ch.count + 1, 0);
  TL_DISPATCH_ALL_TYPES(c.scalar_type(), "nonzero", [&] {
    const scalar_t* p = static_cast<const scalar_t*>(c.data_ptr());
    parallel_for(0, ch.count, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t k = c0; k < c1; ++k) {
        int64_t cnt = 0;
        for (int64_t i = ch.begin(k), e = ch.end(k); i < e; ++i) cnt += is_nonzero_value(p[i]);
        starts[(size_t)k + 1] = cnt;
      }
    });
  });
  for (int64_t k = 0; k < ch.count; ++k) starts[(size_t)k + 1] += starts[(size_t)k];
  const int64_t total = starts[(size_t)ch.count];
  TensorBase out = make_empty({total, nd}, TensorOptions(kLong, self.device()));
  if (total == 0 || nd == 0) return out;
  int64_t* o = static_cast<int64_t*>(out.data_ptr());
  IntArrayRef sizes = c.sizes();
  TL_DISPATCH_ALL_TYPES(c.scalar_type(), "nonzero", [&] {
    const scalar_t* p = static_cast<const scalar_t*>(c.data_ptr());
    parallel_for(0, ch.count, 1, [&](int64_t c0, int64_t c1) {
      // Rows are written branch-free into a block buffer (every element's
      // coordinates, kept only when it is nonzero: a random mask defeats the
      // branch predictor), then copied out.
      constexpr int64_t kBlock = 256;
      std::vector<int64_t> buf((size_t)((kBlock + 1) * nd));
      DimVector idx(nd, 0);
      for (int64_t k = c0; k < c1; ++k) {
        const int64_t b = ch.begin(k), e = ch.end(k);
        int64_t rem = b;
        for (int64_t d = nd - 1; d >= 0; --d) {
          idx[d] = rem % sizes[d];
          rem /= sizes[d];
        }
        int64_t* row = o + starts[(size_t)k] * nd;
        const int64_t last = sizes[nd - 1];
        if (nd == 1) {
          // The common 1-d case with plain locals (the generic loop's stores
          // into buf may alias idx, so the compiler reloads it every element).
          for (int64_t i0 = b; i0 < e; i0 += kBlock) {
            const int64_t i1 = std::min(e, i0 + kBlock);
            int64_t m = 0;
            int64_t* bp = buf.data();
            for (int64_t i = i0; i < i1; ++i) {
              bp[m] = i;
              m += is_nonzero_value(p[i]);
            }
            std::memcpy(row, bp, (size_t)m * sizeof(int64_t));
            row += m;
          }
          continue;
        }
        for (int64_t i0 = b; i0 < e; i0 += kBlock) {
          const int64_t i1 = std::min(e, i0 + kBlock);
          int64_t m = 0;
          for (int64_t i = i0; i < i1; ++i) {
            int64_t* r = buf.data() + m * nd;
            for (int64_t d = 0; d < nd - 1; ++d) r[d] = idx[d];
            r[nd - 1] = idx[nd - 1];
            m += is_nonzero_value(p[i]);
            if (++idx[nd - 1] == last) {
              idx[nd - 1] = 0;
              for (int64_t d = nd - 2; d >= 0; --d) {
                if (++idx[d] < sizes[d]) break;
                idx[d] = 0;
              }
            }
          }
          std::memcpy(row, buf.data(), (size_t)(m * nd) * sizeof(int64_t));
          row += m * nd;
        }
      }
    });
  });
  return out;
}

// ------------------------------------------------------------ masked ops

TensorBase masked_select_cpu(const TensorBase& self, const TensorBase& mask) {
  TL_CHECK(mask.scalar_type() == kBool, "masked_select: expected BoolTensor for mask");
  DimVector shape = masked_broadcast_shape(self, mask);
  TensorBase s = at::_ops::contiguous(at::_ops::expand(self, shape));
  TensorBase m = at::_ops::contiguous(at::_ops::expand(mask, shape));
  return masked_rows(s, m, m.numel(), {});
}

static void check_mask_fits(const TensorBase& self, const TensorBase& mask) {
  DimVector shape = masked_broadcast_shape(self, mask);
  TL_CHECK(IntArrayRef(shape) == self.sizes(), "output with shape ", self.sizes(), " doesn't match the broadcast shape ",
           IntArrayRef(shape));
}

static void masked_fill_impl(const TensorBase& self, const TensorBase& mask, const Scalar& value) {
  check_bool_mask(mask, "masked_fill_");
  check_mask_fits(self, mask);
  at::assert_no_internal_overlap(self, "masked_fill_");
  TensorIterator iter = TensorIteratorConfig("masked_fill_").add_output(self).add_input(at::_ops::expand(mask, self.sizes()))
                            .promote_inputs_to_common_dtype(false).output_dtype(self.scalar_type())
                            .resize_outputs(false).check_mem_overlap(false).build();
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), "masked_fill_", [&] {
    const scalar_t v = value.to<scalar_t>();
    cpu_for_each(iter, [&](char** data, const int64_t* s, int64_t n) {
      char* o = data[0];
      const char* m = data[1];
      for (int64_t i = 0; i < n; ++i)
        if (*reinterpret_cast<const bool*>(m + i * s[1])) *reinterpret_cast<scalar_t*>(o + i * s[0]) = v;
    });
  });
  self.bump_version();
}

TensorBase masked_fill_cpu_(const TensorBase& self, const TensorBase& mask, const Scalar& value) {
  masked_fill_impl(self, mask, value);
  return self;
}

TensorBase masked_fill_tensor_cpu_(const TensorBase& self, const TensorBase& mask, const TensorBase& value) {
  TL_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ", value.dim(),
           " dimension(s).");
  masked_fill_impl(self, mask, c10::item(value));
  return self;
}

TensorBase masked_scatter_cpu_(const TensorBase& self, const TensorBase& mask, const TensorBase& source) {
  check_bool_mask(mask, "masked_scatter_");
  TL_CHECK(self.scalar_type() == source.scalar_type(), "masked_scatter_: expected self and source to have same dtypes but got ",
           c10::toString(self.scalar_type()), " and ", c10::toString(source.scalar_type()));
  check_mask_fits(self, mask);
  at::assert_no_internal_overlap(self, "masked_scatter_");
  TensorBase m = at::_ops::contiguous(at::_ops::expand(mask, self.sizes()));
  TensorBase src = at::_ops::contiguous(source);
  if (at::overlap_status(self, src) != MemOverlap::No) src = at::_ops::clone(src);
  const uint8_t* mp = static_cast<const uint8_t*>(m.data_ptr());
  const int64_t n = m.numel();
  Chunks ch(n);
  std::vector<int64_t> starts;
  const int64_t total = count_mask(mp, ch, starts);
  TL_CHECK(total <= src.numel(), "Number of elements of source < number of ones in mask");
  IntArrayRef sizes = self.sizes(), strides = self.strides();
  dispatch_elem_size(self.element_size(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* base = static_cast<T*>(self.data_ptr());
    const T* sp = static_cast<const T*>(src.data_ptr());
    parallel_for(0, ch.count, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t k = c0; k < c1; ++k) {
        int64_t j = starts[(size_t)k];
        walk_strided(sizes, strides, ch.begin(k), ch.end(k), [&](int64_t pos, int64_t i) {
          if (mp[i]) base[pos] = sp[j++];
        });
      }
    });
  });
  self.bump_version();
  return self;
}

// ------------------------------------------------------------ take / put_

TensorBase take_cpu(const TensorBase& self, const TensorBase& index) {
  check_long_index(index, "take");
  TensorBase ix = at::_ops::contiguous(index);
  TensorBase out = make_empty(index.sizes(), self.options());
  const int64_t n = ix.numel(), numel = self.numel();
  if (n == 0) return out;
  TL_CHECK_INDEX(numel > 0, "take(): tried to take from an empty tensor");
  const int64_t* ip = static_cast<const int64_t*>(ix.data_ptr());
  const bool contig = self.is_contiguous();
  IntArrayRef sizes = self.sizes(), strides = self.strides();
  BadIndex bad;
  dispatch_elem_size(self.element_size(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* sp = static_cast<const T*>(self.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        int64_t v = ip[i];
        if (!index_in_range(v, numel)) {
          bad.record(v, 0, numel);
          o[i] = T(0);
          continue;
        }
        v = wrap_index(v, numel);
        o[i] = sp[contig ? v : linear_to_offset(v, sizes.data(), strides.data(), (int64_t)sizes.size())];
      }
    });
  });
  TL_CHECK_INDEX(!bad.seen.load(), "out of range: tried to access index ", bad.value, " on a tensor of ", bad.size,
                 " elements.");
  return out;
}

TensorBase put_cpu_(const TensorBase& self, const TensorBase& index, const TensorBase& source, bool accumulate) {
  check_long_index(index, "put_");
  check_same_dtype(self, source, "put_");
  TL_CHECK(index.numel() == source.numel(), "put_(): Expected source and index to have the same number of elements, but got source.numel() = ",
           source.numel(), ", index.numel() = ", index.numel());
  at::assert_no_internal_overlap(self, "put_");
  TensorBase ix = at::_ops::contiguous(index);
  TensorBase src = at::_ops::contiguous(source);
  if (at::overlap_status(self, src) != MemOverlap::No) src = at::_ops::clone(src);
  const int64_t n = ix.numel(), numel = self.numel();
  const int64_t* ip = static_cast<const int64_t*>(ix.data_ptr());
  // Check every index before writing any, so a bad call leaves self as it was.
  BadIndex bad;
  parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      if (!index_in_range(ip[i], numel)) bad.record(ip[i], 0, numel);
  });
  TL_CHECK_INDEX(!bad.seen.load(), "out of range: tried to access index ", bad.value, " on a tensor of ", bad.size,
                 " elements.");
  const bool contig = self.is_contiguous();
  IntArrayRef sizes = self.sizes(), strides = self.strides();
  auto where = [&](int64_t i) {
    int64_t v = wrap_index(ip[i], numel);
    return contig ? v : linear_to_offset(v, sizes.data(), strides.data(), (int64_t)sizes.size());
  };
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), "put_", [&] {
    scalar_t* base = static_cast<scalar_t*>(self.data_ptr());
    const scalar_t* sp = static_cast<const scalar_t*>(src.data_ptr());
    // Duplicates: in order, so the last write wins (or all of them add up).
    for (int64_t i = 0; i < n; ++i) {
      if (accumulate) accumulate_into(base[where(i)], sp[i]);
      else base[where(i)] = sp[i];
    }
  });
  self.bump_version();
  return self;
}

}  // namespace at::native
