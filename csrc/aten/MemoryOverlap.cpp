#include "MemoryOverlap.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <vector>

namespace at {

namespace {

// Listing elements costs O(n log n); past this many the answer is TooHard.
constexpr int64_t kMaxListed = int64_t(1) << 20;

struct Span {
  intptr_t lo, hi;  // [lo, hi) in bytes
};

Span byte_span(const TensorBase& t) {
  intptr_t base = reinterpret_cast<intptr_t>(t.data_ptr());
  int64_t isz = (int64_t)t.itemsize();
  int64_t lo = 0, hi = 0;
  for (int64_t d = 0; d < t.dim(); ++d) {
    int64_t reach = (t.sizes()[d] - 1) * t.strides()[d];
    if (reach < 0) lo += reach;
    else hi += reach;
  }
  return {base + (intptr_t)(lo * isz), base + (intptr_t)((hi + 1) * isz)};
}

// Byte addresses of every element of t, sorted.
std::vector<intptr_t> element_addresses(const TensorBase& t) {
  std::vector<intptr_t> out;
  out.reserve((size_t)t.numel());
  out.push_back(reinterpret_cast<intptr_t>(t.data_ptr()));
  int64_t isz = (int64_t)t.itemsize();
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    int64_t n = t.sizes()[d], step = t.strides()[d] * isz;
    if (n == 1) continue;
    size_t m = out.size();
    for (int64_t i = 1; i < n; ++i)
      for (size_t j = 0; j < m; ++j) out.push_back(out[j] + (intptr_t)(i * step));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// (size, stride) of the dims that move, for comparing layouts.
DimVector moving_layout(const TensorBase& t) {
  DimVector v;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.sizes()[d] != 1) {
      v.push_back(t.sizes()[d]);
      v.push_back(t.strides()[d]);
    }
  return v;
}

bool has_memory(const TensorBase& t) { return t.defined() && !t.is_meta() && t.numel() > 0 && t.data_ptr(); }

}  // namespace

MemOverlap internal_overlap(const TensorBase& t) {
  if (!has_memory(t) || t.numel() == 1) return MemOverlap::No;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.strides()[d] == 0 && t.sizes()[d] > 1) return MemOverlap::Partial;
  if (t.unsafeGetTensorImpl()->is_non_overlapping_and_dense()) return MemOverlap::No;
  // Sufficient for no overlap: with dims sorted by stride, each stride steps
  // past everything the faster dims reach.
  std::vector<std::pair<int64_t, int64_t>> dims;  // (|stride|, size)
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.sizes()[d] > 1) dims.emplace_back(std::llabs(t.strides()[d]), t.sizes()[d]);
  std::sort(dims.begin(), dims.end());
  int64_t reach = 0;
  bool separated = true;
  for (auto& [stride, size] : dims) {
    if (stride <= reach) separated = false;
    reach += (size - 1) * stride;
  }
  if (separated) return MemOverlap::No;
  if (t.numel() > kMaxListed) return MemOverlap::TooHard;
  std::vector<intptr_t> addr = element_addresses(t);
  return std::adjacent_find(addr.begin(), addr.end()) != addr.end() ? MemOverlap::Partial : MemOverlap::No;
}

MemOverlap overlap_status(const TensorBase& a, const TensorBase& b) {
  if (!has_memory(a) || !has_memory(b)) return MemOverlap::No;
  if (a.is_same(b)) return MemOverlap::Full;
  Span sa = byte_span(a), sb = byte_span(b);
  if (sa.hi <= sb.lo || sb.hi <= sa.lo) return MemOverlap::No;
  if (a.data_ptr() == b.data_ptr() && a.itemsize() == b.itemsize() && moving_layout(a).ref().equals(moving_layout(b)))
    return MemOverlap::Full;
  // Dense tensors cover every element of their span, so the spans meeting
  // means elements meet.
  if (a.unsafeGetTensorImpl()->is_non_overlapping_and_dense() && b.unsafeGetTensorImpl()->is_non_overlapping_and_dense())
    return MemOverlap::Partial;
  // Every element of a starts at a0 + k*g and every one of b at b0 + k*g,
  // g the gcd of all byte strides. They meet only if some difference
  // a - b = (a0 - b0) mod g + k*g lies in (-itemsize(a), itemsize(b)).
  int64_t isa = (int64_t)a.itemsize(), isb = (int64_t)b.itemsize();
  int64_t g = 0;
  for (const TensorBase* t : {&a, &b})
    for (int64_t d = 0; d < t->dim(); ++d)
      if (t->sizes()[d] > 1) g = std::gcd(g, std::llabs(t->strides()[d]) * (int64_t)t->itemsize());
  if (g > 0) {
    int64_t diff = (int64_t)(reinterpret_cast<intptr_t>(a.data_ptr()) - reinterpret_cast<intptr_t>(b.data_ptr()));
    int64_t r = ((diff % g) + g) % g;  // smallest non-negative difference; r - g the largest negative one
    if (!(r < isb) && !(r - g > -isa)) return MemOverlap::No;
  }
  if (a.numel() + b.numel() > kMaxListed) return MemOverlap::TooHard;
  std::vector<intptr_t> addr = element_addresses(a);
  for (intptr_t p : element_addresses(b)) {
    // Some element of a starts in (p - isa, p + isb)?
    auto it = std::upper_bound(addr.begin(), addr.end(), p - isa);
    if (it != addr.end() && *it < p + isb) return MemOverlap::Partial;
  }
  return MemOverlap::No;
}

void assert_no_internal_overlap(const TensorBase& t, const char* op) {
  TL_CHECK(internal_overlap(t) != MemOverlap::Partial,
           "unsupported operation: more than one element of the written-to tensor refers to a single memory "
           "location. Please clone() the tensor before performing the operation. (in ", op, ")");
}

MemOverlap assert_no_partial_overlap(const TensorBase& out, const TensorBase& in, const char* op) {
  MemOverlap st = overlap_status(out, in);
  TL_CHECK(st != MemOverlap::Partial,
           "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
           "memory location. Please clone() the tensor before performing the operation. (in ", op, ")");
  return st;
}

}  // namespace at
