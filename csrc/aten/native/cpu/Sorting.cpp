// CPU sort, topk, kthvalue and median along a dim.
//
// Each row (the elements along `dim`) is copied into (key, index) buffers,
// keys from Sorting.h, so one code path serves every dtype and NaN placement.
// sort: an LSD radix sort over 8-bit digits, skipping digits that are equal
// across the row (small integers sort in one or two passes); short rows use
// std::stable_sort. Both are stable, so `stable=True` costs nothing extra.
// topk/kthvalue/median: std::nth_element over the keys (then a sort of the
// k selected for a sorted topk). Keys and indices travel packed (see packs()). Rows run in parallel.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <tuple>
#include <vector>

#include "../../Parallel.h"
#include "../Sorting.h"
#include "c10/Tensor.h"
#include "ops/transpose.h"

namespace at::native {
using namespace sorting;

namespace {

// The sorted dim moved last, as sizes/strides, for input and outputs alike.
struct RowView {
  int nd = 0;
  int64_t rows = 1, n = 1;
  DimVector sizes, strides;
  RowView(const TensorBase& t, int64_t dim) {
    TensorBase v = t.dim() == 0 ? t : at::_ops::transpose(t, dim, -1);
    nd = (int)v.dim();
    for (int d = 0; d < nd; ++d) {
      sizes.push_back(v.sizes()[d]);
      strides.push_back(v.strides()[d]);
    }
    if (nd == 0) {
      sizes.push_back(1);
      strides.push_back(1);
      nd = 1;
    }
    n = sizes[nd - 1];
    for (int d = 0; d < nd - 1; ++d) rows *= sizes[d];
  }
  int64_t offset(int64_t r) const { return row_offset(r, nd, sizes.data(), strides.data()); }
  int64_t step() const { return strides[nd - 1]; }
};

// LSD radix sort of keys with their indices, Bits per digit: 8 for short
// rows, 16 for long ones (half the passes; 11-bit digits measured slower).
template <int Bits, class K>
void radix_sort_digits(std::vector<K>& keys, std::vector<int64_t>& idx, std::vector<K>& tk,
                       std::vector<int64_t>& ti) {
  const int64_t n = (int64_t)keys.size();
  constexpr int kPasses = (int(sizeof(K) * 8) + Bits - 1) / Bits;
  constexpr int kBuckets = 1 << Bits;
  constexpr K kMask = K(kBuckets - 1);
  // All digit histograms in one read of the keys.
  std::vector<int64_t> hist(size_t(kPasses) * kBuckets, 0);
  for (int64_t i = 0; i < n; ++i) {
    K k = keys[i];
    for (int p = 0; p < kPasses; ++p) ++hist[size_t(p) * kBuckets + ((k >> (Bits * p)) & kMask)];
  }
  tk.resize(n);
  ti.resize(n);
  K* src_k = keys.data();
  int64_t* src_i = idx.data();
  K* dst_k = tk.data();
  int64_t* dst_i = ti.data();
  for (int p = 0; p < kPasses; ++p) {
    int64_t* h = &hist[size_t(p) * kBuckets];
    if (h[(src_k[0] >> (Bits * p)) & kMask] == n) continue;  // one bucket: this digit orders nothing
    int64_t sum = 0;
    for (int b = 0; b < kBuckets; ++b) {
      int64_t c = h[b];
      h[b] = sum;
      sum += c;
    }
    for (int64_t i = 0; i < n; ++i) {
      int64_t pos = h[(src_k[i] >> (Bits * p)) & kMask]++;
      dst_k[pos] = src_k[i];
      dst_i[pos] = src_i[i];
    }
    std::swap(src_k, dst_k);
    std::swap(src_i, dst_i);
  }
  if (src_k != keys.data()) {
    std::copy(src_k, src_k + n, keys.data());
    std::copy(src_i, src_i + n, idx.data());
  }
}

template <class K>
void radix_sort(std::vector<K>& keys, std::vector<int64_t>& idx, std::vector<K>& tk, std::vector<int64_t>& ti) {
  if (keys.size() >= (size_t(1) << 17)) radix_sort_digits<16>(keys, idx, tk, ti);
  else radix_sort_digits<8>(keys, idx, tk, ti);
}

// Sorting (key, index) pairs by key then index is a stable sort by key. For
// 32-bit keys the pair packs into one uint64 (key high, index low), which
// std::sort and std::nth_element compare directly: no indirection.
// (A row of 2^32 or more elements takes the pair path.)
template <class K>
bool packs(int64_t n) {
  return sizeof(K) == 4 && n < (int64_t(1) << 32);
}

template <class K>
void sort_row(std::vector<K>& keys, std::vector<int64_t>& idx, std::vector<K>& tk, std::vector<int64_t>& ti) {
  const size_t n = keys.size();
  if (n > 2048) {
    radix_sort(keys, idx, tk, ti);
    return;
  }
  if (packs<K>((int64_t)n)) {
    std::vector<uint64_t> packed(n);
    for (size_t i = 0; i < n; ++i) packed[i] = (uint64_t(keys[i]) << 32) | uint64_t(idx[i]);
    std::sort(packed.begin(), packed.end());
    for (size_t i = 0; i < n; ++i) {
      keys[i] = K(packed[i] >> 32);
      idx[i] = int64_t(packed[i] & 0xFFFFFFFFu);
    }
  } else {
    std::vector<std::pair<K, int64_t>> pairs(n);
    for (size_t i = 0; i < n; ++i) pairs[i] = {keys[i], idx[i]};
    std::sort(pairs.begin(), pairs.end());
    for (size_t i = 0; i < n; ++i) {
      keys[i] = pairs[i].first;
      idx[i] = pairs[i].second;
    }
  }
}

// The positions (row indices) of the `k` smallest keys (ties: lower index
// first), in order when `sorted`; or with k == 1 and `nth`, the nth smallest.
template <class K>
void select_smallest(const std::vector<K>& keys, int64_t k, bool sorted, std::vector<int64_t>& out) {
  const int64_t n = (int64_t)keys.size();
  out.resize(k);
  if (k == 0) return;
  // Few of many (topk 10 of 1M): one pass with a max-heap of the k best so
  // far; almost every element is rejected by one compare with the heap's top.
  const bool by_heap = k * 64 <= n;
  auto finish = [&](auto& v, auto make) {
    using P = typename std::decay_t<decltype(v)>::value_type;
    if (by_heap) {
      std::vector<P> heap;
      heap.reserve(k);
      for (int64_t i = 0; i < n; ++i) {
        P x = make(i);
        if ((int64_t)heap.size() < k) {
          heap.push_back(x);
          std::push_heap(heap.begin(), heap.end());
        } else if (x < heap.front()) {
          std::pop_heap(heap.begin(), heap.end());
          heap.back() = x;
          std::push_heap(heap.begin(), heap.end());
        }
      }
      if (sorted) std::sort_heap(heap.begin(), heap.end());
      else std::swap(heap[0], heap[k - 1]);  // any order, but keep the k-th smallest last (kthvalue reads it)
      v.swap(heap);
      return;
    }
    v.resize(n);
    for (int64_t i = 0; i < n; ++i) v[i] = make(i);
    std::nth_element(v.begin(), v.begin() + (k - 1), v.end());
    if (sorted && k > 1) std::sort(v.begin(), v.begin() + (k - 1));
  };
  if (packs<K>(n)) {
    std::vector<uint64_t> packed;
    finish(packed, [&](int64_t i) { return (uint64_t(keys[i]) << 32) | uint64_t(i); });
    for (int64_t j = 0; j < k; ++j) out[j] = int64_t(packed[j] & 0xFFFFFFFFu);
  } else {
    std::vector<std::pair<K, int64_t>> pairs;
    finish(pairs, [&](int64_t i) { return std::pair<K, int64_t>(keys[i], i); });
    for (int64_t j = 0; j < k; ++j) out[j] = pairs[j].second;
  }
}

// Reusable row buffers; trim() frees them after a very long row so a thread
// does not hold hundreds of MB after one huge sort.
template <class K>
struct SortBuffers {
  std::vector<K> keys, tk;
  std::vector<int64_t> idx, ti;
  void trim() {
    if (keys.capacity() > (size_t(1) << 22)) {
      std::vector<K>().swap(keys);
      std::vector<K>().swap(tk);
      std::vector<int64_t>().swap(idx);
      std::vector<int64_t>().swap(ti);
    }
  }
};


// Reads row r of `in` into keys (complemented for a descending order) and indices 0..n-1.
template <class T, class K>
void load_row(const T* base, const RowView& v, int64_t r, bool descending, std::vector<K>& keys,
              std::vector<int64_t>& idx) {
  const T* p = base + v.offset(r);
  int64_t s = v.step();
  keys.resize(v.n);
  idx.resize(v.n);
  for (int64_t j = 0; j < v.n; ++j) {
    K k = sort_key<T>(p[j * s]);
    keys[j] = descending ? K(~k) : k;
    idx[j] = j;
  }
}

}  // namespace

std::tuple<TensorBase, TensorBase> sort_stable_cpu(const TensorBase& self, std::optional<bool> stable, int64_t dim,
                                                   bool descending) {
  (void)stable;  // the sort is always stable
  dim = maybe_wrap_dim(dim, self.dim());
  TensorBase values = make_empty(self.sizes(), self.options());
  TensorBase indices = make_empty(self.sizes(), self.options().with_dtype(ScalarType::Long));
  if (self.numel() == 0) return {values, indices};
  RowView in(self, dim), vo(values, dim), io(indices, dim);
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), "sort", [&] {
    using K = typename KeyOf<scalar_t>::type;
    const scalar_t* src = self.data_ptr<scalar_t>();
    scalar_t* vdst = values.data_ptr<scalar_t>();
    int64_t* idst = indices.data_ptr<int64_t>();
    int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(in.n, 1));
    parallel_for(0, in.rows, grain, [&](int64_t b, int64_t e) {
      // Per-thread buffers kept between calls: a fresh 24 MB for a 1M-row
      // sort cost more in page faults and zero-filling than the sort itself.
      thread_local SortBuffers<K> buf;
      auto& keys = buf.keys;
      auto& idx = buf.idx;
      auto& tk = buf.tk;
      auto& ti = buf.ti;
      for (int64_t r = b; r < e; ++r) {
        load_row(src, in, r, descending, keys, idx);
        sort_row(keys, idx, tk, ti);
        const scalar_t* p = src + in.offset(r);
        scalar_t* vp = vdst + vo.offset(r);
        int64_t* ip = idst + io.offset(r);
        for (int64_t j = 0; j < in.n; ++j) {
          vp[j * vo.step()] = p[idx[j] * in.step()];
          ip[j * io.step()] = idx[j];
        }
      }
      buf.trim();
    });
  });
  return {values, indices};
}

std::tuple<TensorBase, TensorBase> sort_cpu(const TensorBase& self, int64_t dim, bool descending) {
  return sort_stable_cpu(self, false, dim, descending);
}

std::tuple<TensorBase, TensorBase> topk_cpu(const TensorBase& self, int64_t k, int64_t dim, bool largest,
                                            bool sorted) {
  dim = maybe_wrap_dim(dim, self.dim());
  int64_t n = self.dim() == 0 ? 1 : self.sizes()[dim];
  TL_CHECK_INDEX(k >= 0 && k <= n, "selected index k out of range");
  DimVector shape(self.sizes());
  if (self.dim() > 0) shape[dim] = k;
  TensorBase values = make_empty(shape, self.options());
  TensorBase indices = make_empty(shape, self.options().with_dtype(ScalarType::Long));
  if (values.numel() == 0) return {values, indices};
  RowView in(self, dim), vo(values, dim), io(indices, dim);
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), "topk", [&] {
    using K = typename KeyOf<scalar_t>::type;
    const scalar_t* src = self.data_ptr<scalar_t>();
    scalar_t* vdst = values.data_ptr<scalar_t>();
    int64_t* idst = indices.data_ptr<int64_t>();
    int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(in.n, 1));
    parallel_for(0, in.rows, grain, [&](int64_t b, int64_t e) {
      std::vector<K> keys;
      std::vector<int64_t> idx, order;
      for (int64_t r = b; r < e; ++r) {
        load_row(src, in, r, largest, keys, idx);  // largest first = ascending complemented keys
        select_smallest(keys, k, sorted, order);
        const scalar_t* p = src + in.offset(r);
        scalar_t* vp = vdst + vo.offset(r);
        int64_t* ip = idst + io.offset(r);
        for (int64_t j = 0; j < k; ++j) {
          vp[j * vo.step()] = p[order[j] * in.step()];
          ip[j * io.step()] = order[j];
        }
      }
    });
  });
  return {values, indices};
}

// kthvalue and median: the k-th smallest (0-based) of each row; `median_nan`
// makes a row holding NaN answer NaN (its first NaN), as torch.median does,
// and `ignore_nan` picks the median of the non-NaN values (nanmedian).
static std::tuple<TensorBase, TensorBase> select_kth(const TensorBase& self, int64_t k0, int64_t dim, bool keepdim,
                                                     int mode /*0 kth, 1 median, 2 nanmedian*/) {
  int64_t n = self.dim() == 0 ? 1 : self.sizes()[dim];
  DimVector shape(self.sizes());
  if (self.dim() > 0) {
    if (keepdim) shape[dim] = 1;
    else shape.erase((size_t)dim);
  }
  TensorBase values = make_empty(shape, self.options());
  TensorBase indices = make_empty(shape, self.options().with_dtype(ScalarType::Long));
  if (values.numel() == 0) return {values, indices};
  // Outputs viewed with the reduced dim (size 1) last, like the input's rows.
  TensorBase vk = values, ik = indices;
  if (self.dim() > 0 && !keepdim) {
    DimVector ks(self.sizes());
    ks[dim] = 1;
    vk = make_empty(ks, self.options());
    ik = make_empty(ks, self.options().with_dtype(ScalarType::Long));
  }
  RowView in(self, dim), vo(vk, dim), io(ik, dim);
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), "kthvalue", [&] {
    using K = typename KeyOf<scalar_t>::type;
    const scalar_t* src = self.data_ptr<scalar_t>();
    scalar_t* vdst = vk.data_ptr<scalar_t>();
    int64_t* idst = ik.data_ptr<int64_t>();
    constexpr K kNan = K(~K(0));
    constexpr bool kFloating = !std::is_integral_v<scalar_t>;
    int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(in.n, 1));
    parallel_for(0, in.rows, grain, [&](int64_t b, int64_t e) {
      std::vector<K> keys;
      std::vector<int64_t> idx, order;
      for (int64_t r = b; r < e; ++r) {
        load_row(src, in, r, false, keys, idx);
        int64_t pick = -1;
        int64_t kk = k0;
        if (kFloating && mode != 0) {
          int64_t nans = 0, first_nan = -1;
          for (int64_t j = 0; j < in.n; ++j)
            if (keys[j] == kNan) {
              ++nans;
              if (first_nan < 0) first_nan = j;
            }
          if (mode == 1 && nans) pick = first_nan;
          else if (mode == 2) {
            if (nans == in.n) pick = first_nan;
            else kk = (in.n - nans - 1) / 2;
          }
        }
        if (pick < 0) {
          select_smallest(keys, kk + 1, false, order);
          pick = order[kk];
        }
        vdst[vo.offset(r)] = src[in.offset(r) + pick * in.step()];
        idst[io.offset(r)] = pick;
      }
    });
  });
  if (vk.unsafeGetTensorImpl() != values.unsafeGetTensorImpl()) {
    // Drop the kept size-1 dim: same data, the reduced shape.
    std::memcpy(values.data_ptr(), vk.data_ptr(), values.numel() * c10::elementSize(values.scalar_type()));
    std::memcpy(indices.data_ptr(), ik.data_ptr(), indices.numel() * sizeof(int64_t));
  }
  (void)n;
  return {values, indices};
}

std::tuple<TensorBase, TensorBase> kthvalue_cpu(const TensorBase& self, int64_t k, int64_t dim, bool keepdim) {
  dim = maybe_wrap_dim(dim, self.dim());
  int64_t n = self.dim() == 0 ? 1 : self.sizes()[dim];
  TL_CHECK_INDEX(k >= 1 && k <= n, "kthvalue(): selected number k out of range for dimension ", dim);
  return select_kth(self, k - 1, dim, keepdim, 0);
}

std::tuple<TensorBase, TensorBase> median_dim_cpu(const TensorBase& self, int64_t dim, bool keepdim) {
  dim = maybe_wrap_dim(dim, self.dim());
  int64_t n = self.dim() == 0 ? 1 : self.sizes()[dim];
  TL_CHECK_INDEX(n > 0, "median(): Expected reduction dim ", dim, " to have non-zero size.");
  return select_kth(self, (n - 1) / 2, dim, keepdim, 1);
}

std::tuple<TensorBase, TensorBase> nanmedian_dim_cpu(const TensorBase& self, int64_t dim, bool keepdim) {
  dim = maybe_wrap_dim(dim, self.dim());
  int64_t n = self.dim() == 0 ? 1 : self.sizes()[dim];
  TL_CHECK_INDEX(n > 0, "nanmedian(): Expected reduction dim ", dim, " to have non-zero size.");
  return select_kth(self, (n - 1) / 2, dim, keepdim, 2);
}

}  // namespace at::native
