// CPU sort, topk, kthvalue and median along a dim.
//
// Values are compared through unsigned keys (Sorting.h), so one code path
// serves every dtype and PyTorch's NaN placement; a descending order or a
// largest-first selection uses the complemented key.
//
// sort: a row's keys are taken above the row's minimum key, so only the bits
// the row's range needs are sorted (an int64 row spanning 2^32 sorts 32 bits,
// not 64). When that range and the position fit in 64 bits, key and position
// travel packed in one uint64 (Sorting.h pack_key_index): ordering the words
// is a stable order by key, and a radix pass moves 8 bytes, not 16. Long rows
// take a stable LSD radix sort whose passes split across the threads when there
// are fewer rows than threads; short rows std::sort the packed words. Every
// path is stable, so `stable=True` costs nothing extra.
//
// topk/kthvalue/median: few of many (k <= n / 16: topk 1000 of 1M, 10 of 256)
// keep a max-heap of the k best, behind a filter that rejects a block of 16
// keys with one compare against the heap's top; otherwise nth_element over
// all items (packed as in sort where they fit). Then a sort of the k
// selected. Ties go to the lower position.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../Parallel.h"
#include "../Sorting.h"
#include "c10/Tensor.h"
#include "ops/transpose.h"

namespace at::native {
using namespace sorting;

namespace {

template <class T>
using KeyT = typename KeyOf<T>::type;

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

// One row of the input: n values `step` apart.
template <class T>
struct Row {
  const T* p;
  int64_t step, n;
  KeyT<T> flip;  // all ones for descending / largest-first, else 0
  KeyT<T> key(int64_t j) const { return KeyT<T>(sort_key<T>(p[j * step]) ^ flip); }
};

// A key and position for rows whose key range and positions do not pack
// into 64 bits (float64 and wide int64 rows, or 32-bit keys in rows of 2^32+).
struct WideItem {
  uint64_t key;
  int64_t index;
  bool operator<(const WideItem& o) const { return key < o.key || (key == o.key && index < o.index); }
};

// Row buffers reused between rows and calls, one set per thread: allocating
// a fresh 16 MB for a 1M-element sort cost more in page faults and zero-fill
// than the sort itself. trim() frees them after a very long row so a thread
// does not keep hundreds of MB after one huge sort.
struct RowBuffers {
  std::vector<uint64_t> packed, packed_tmp;
  std::vector<WideItem> wide, wide_tmp;
  std::vector<int64_t> hist, order;
  void trim() {
    constexpr size_t kKeep = size_t(1) << 22;
    if (packed.capacity() > kKeep) {
      std::vector<uint64_t>().swap(packed);
      std::vector<uint64_t>().swap(packed_tmp);
    }
    if (wide.capacity() > kKeep) {
      std::vector<WideItem>().swap(wide);
      std::vector<WideItem>().swap(wide_tmp);
    }
    if (order.capacity() > kKeep) std::vector<int64_t>().swap(order);
  }
};

RowBuffers& thread_buffers() {
  thread_local RowBuffers buffers;
  return buffers;
}

// Splitting one row's work over threads pays from this many elements a part.
constexpr int64_t kSplitRowMin = int64_t(1) << 16;

// The per-row driver shared by sort, topk and kthvalue/median: calls
// row_fn(r, parts, buffers) for every row. Rows run in parallel across the
// threads. With `split_rows`, when there are fewer rows than threads and the
// rows are long, rows run one at a time with each row's work split into
// `parts` chunks across the threads (sort: the radix passes). Selection does
// not split: one pass over a row is already cheap (topk 1000 of 1M takes a
// few hundred microseconds), and waiting on a second thread at each
// barrier cost more than it saved on a loaded machine.
template <class F>
void for_each_row(const RowView& in, bool split_rows, const F& row_fn) {
  const int threads = get_num_threads();
  if (split_rows && in.rows < threads && in.n >= 2 * kSplitRowMin && !in_parallel_region()) {
    // Capped at 64: the per-part arrays (key_range) are on the stack.
    const int parts = (int)std::min<int64_t>({threads, in.n / kSplitRowMin, 64});
    RowBuffers& buf = thread_buffers();
    for (int64_t r = 0; r < in.rows; ++r) row_fn(r, parts, buf);
    buf.trim();
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(in.n, 1));
  parallel_for(0, in.rows, grain, [&](int64_t b, int64_t e) {
    RowBuffers& buf = thread_buffers();
    for (int64_t r = b; r < e; ++r) row_fn(r, 1, buf);
    buf.trim();
  });
}

// Part t of n elements split into `parts` near-equal chunks: [begin(t), begin(t + 1)).
inline int64_t part_begin(int64_t n, int parts, int t) {
  return (n / parts) * t + std::min<int64_t>(t, n % parts);
}

// Calls f(t, begin, end) for each part, in parallel when there are several.
template <class F>
void for_each_part(int64_t n, int parts, const F& f) {
  if (parts <= 1) {
    f(0, int64_t(0), n);
    return;
  }
  parallel_for(0, parts, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) f((int)t, part_begin(n, parts, (int)t), part_begin(n, parts, (int)t + 1));
  });
}

// Smallest and largest key of a row.
template <class T>
std::pair<uint64_t, uint64_t> key_range(const Row<T>& row, int parts) {
  using K = KeyT<T>;
  K lo[64], hi[64];  // parts <= 64 (for_each_row)
  for_each_part(row.n, parts, [&](int t, int64_t b, int64_t e) {
    K mn = std::numeric_limits<K>::max(), mx = 0;
    for (int64_t j = b; j < e; ++j) {
      K k = row.key(j);
      mn = std::min(mn, k);
      mx = std::max(mx, k);
    }
    lo[t] = mn;
    hi[t] = mx;
  });
  K mn = lo[0], mx = hi[0];
  for (int t = 1; t < parts; ++t) {
    mn = std::min(mn, lo[t]);
    mx = std::max(mx, hi[t]);
  }
  return {mn, mx};
}

// Radix digits of at most this many bits: 2048 buckets keep each thread's
// counters cache-resident and its write streams within L2. Measured on 1M
// int64 (32-bit range, one thread): 8-bit digits (4 passes) 23.3 ms, 11-bit
// (3 passes) 21.6 ms, 16-bit (2 passes over 65536 streams) 26.0 ms.
constexpr int kDigitBits = 11;

// Stable LSD radix sort of n items on bits [lo, lo + bits) of key_of(item)
// (bits above lo + bits are zero), each pass split over `parts` threads:
// every part counts its digits, a prefix sum over (digit, part) gives each
// part its output slots, and the parts scatter in input order, so equal
// digits keep their order. A digit shared by the whole row is skipped.
// Returns the buffer that holds the result (src or tmp).
template <class Item, class KeyFn>
Item* radix_sort(Item* src, Item* tmp, int64_t n, int lo, int bits, int parts, std::vector<int64_t>& hist,
                 KeyFn key_of) {
  if (bits <= 0) return src;
  const int passes = (bits + kDigitBits - 1) / kDigitBits;
  const int width = (bits + passes - 1) / passes;  // equal digits: 32 bits = 3 x 11, 20 bits = 2 x 10
  const int64_t buckets = int64_t(1) << width;
  const uint64_t mask = uint64_t(buckets - 1);
  // One thread: a digit's counts over the whole row do not depend on the
  // order, so one read counts every pass's digits. Several: each pass counts
  // per part, as the parts' contents change from pass to pass.
  const bool count_once = parts == 1;
  hist.assign(size_t(count_once ? passes : parts) * size_t(buckets), 0);
  if (count_once) {
    for (int64_t j = 0; j < n; ++j) {
      const uint64_t key = key_of(src[j]);
      for (int pass = 0; pass < passes; ++pass) ++hist[pass * buckets + ((key >> (lo + pass * width)) & mask)];
    }
  }
  for (int pass = 0; pass < passes; ++pass) {
    const int shift = lo + pass * width;
    int64_t* counts = hist.data() + (count_once ? pass * buckets : 0);  // part t's counts at [t * buckets]
    if (!count_once) {
      std::fill(hist.begin(), hist.end(), 0);
      for_each_part(n, parts, [&](int t, int64_t b, int64_t e) {
        int64_t* h = counts + t * buckets;
        for (int64_t j = b; j < e; ++j) ++h[(key_of(src[j]) >> shift) & mask];
      });
    }
    const uint64_t first = (key_of(src[0]) >> shift) & mask;
    int64_t same = 0;
    for (int t = 0; t < parts; ++t) same += counts[t * buckets + first];
    if (same == n) continue;  // a digit shared by the whole row orders nothing
    int64_t sum = 0;
    for (int64_t d = 0; d < buckets; ++d)
      for (int t = 0; t < parts; ++t) {
        int64_t c = counts[t * buckets + d];
        counts[t * buckets + d] = sum;
        sum += c;
      }
    for_each_part(n, parts, [&](int t, int64_t b, int64_t e) {
      int64_t* h = counts + t * buckets;
      for (int64_t j = b; j < e; ++j) {
        const Item x = src[j];
        tmp[h[(key_of(x) >> shift) & mask]++] = x;
      }
    });
    std::swap(src, tmp);
  }
  return src;
}

// Rows up to this long sort with std::sort on packed words / wide items.
constexpr int64_t kRadixMinRow = 2048;

// Sorts one row into values vp (step vs) and positions ip (step is).
template <class T>
void sort_row(const Row<T>& row, T* vp, int64_t vs, int64_t* ip, int64_t is, int parts, RowBuffers& buf) {
  using K = KeyT<T>;
  const int64_t n = row.n;
  const std::pair<uint64_t, uint64_t> range = key_range(row, parts);
  const uint64_t kmin = range.first, kmax = range.second;  // (not a structured binding: C++17 lambdas cannot capture one)
  if (kmin == kmax) {  // all keys equal: the stable order is the input order
    for_each_part(n, parts, [&](int, int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) {
        vp[j * vs] = row.p[j * row.step];
        ip[j * is] = j;
      }
    });
    return;
  }
  const int key_bits = bit_width(kmax - kmin);
  const int index_bits = std::max(1, bit_width(uint64_t(n - 1)));
  // Writes output slot j from the key above the minimum and the position:
  // integers are rebuilt from the key (no gather from the input); floating
  // values are read back (the key merges -0.0/0.0 and NaN payloads).
  auto emit = [&](int64_t j, uint64_t key_above_min, int64_t index) {
    ip[j * is] = index;
    if constexpr (std::is_integral_v<T>) {
      vp[j * vs] = integer_from_key<T>(K(K(kmin + key_above_min) ^ row.flip));
    } else {
      (void)key_above_min;
      vp[j * vs] = row.p[index * row.step];
    }
  };
  if (key_bits + index_bits <= 64) {
    if ((int64_t)buf.packed.size() < n) buf.packed.resize(n);
    uint64_t* a = buf.packed.data();
    for_each_part(n, parts, [&](int, int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) a[j] = pack_key_index(uint64_t(row.key(j)) - kmin, j, index_bits);
    });
    uint64_t* sorted = a;
    if (n < kRadixMinRow) {
      std::sort(a, a + n);
    } else {
      if ((int64_t)buf.packed_tmp.size() < n) buf.packed_tmp.resize(n);
      sorted = radix_sort(a, buf.packed_tmp.data(), n, index_bits, key_bits, parts, buf.hist,
                          [](uint64_t x) { return x; });
    }
    for_each_part(n, parts, [&](int, int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j)
        emit(j, packed_key_above_min(sorted[j], index_bits), packed_index(sorted[j], index_bits));
    });
    return;
  }
  if ((int64_t)buf.wide.size() < n) buf.wide.resize(n);
  WideItem* a = buf.wide.data();
  for_each_part(n, parts, [&](int, int64_t b, int64_t e) {
    for (int64_t j = b; j < e; ++j) a[j] = {uint64_t(row.key(j)) - kmin, j};
  });
  WideItem* sorted = a;
  if (n < kRadixMinRow) {
    std::sort(a, a + n);
  } else {
    if ((int64_t)buf.wide_tmp.size() < n) buf.wide_tmp.resize(n);
    sorted = radix_sort(a, buf.wide_tmp.data(), n, 0, key_bits, parts, buf.hist,
                        [](const WideItem& x) { return x.key; });
  }
  for_each_part(n, parts, [&](int, int64_t b, int64_t e) {
    for (int64_t j = b; j < e; ++j) emit(j, sorted[j].key, sorted[j].index);
  });
}

// Selection of the k smallest items of a row into `out` (positions), with the
// k-th smallest at out[k - 1] and, when `sorted`, all k in order. Item is a
// packed uint64 (32-bit key high, position low) or a WideItem; both order by
// key, then position.
template <class Item, class T, class Make, class KeyOfItem, class IndexOf>
void select_items(const Row<T>& row, int64_t k, bool sorted, std::vector<Item>& items, std::vector<int64_t>& out,
                  Make make, KeyOfItem key_of, IndexOf index_of) {
  using K = KeyT<T>;
  const int64_t n = row.n;
  out.resize(k);
  if (k == 0) return;
  int64_t m = 0;  // candidates in items[0, m)
  if (k * 16 <= n) {
    // Few of many: a max-heap of the k best so far; a block of 16 keys all
    // >= the heap's top is rejected with one compare. A later key equal to
    // the top loses the tie (higher position), so `key < top key` decides
    // admission exactly.
    if ((int64_t)items.size() < k) items.resize(k);
    Item* heap = items.data();
    int64_t j = 0;
    for (; j < k; ++j) heap[j] = make(row.key(j), j);
    std::make_heap(heap, heap + k);
    K top = key_of(heap[0]);
    auto admit = [&](K key, int64_t pos) {
      std::pop_heap(heap, heap + k);
      heap[k - 1] = make(key, pos);
      std::push_heap(heap, heap + k);
      top = key_of(heap[0]);
    };
    constexpr int kBlock = 16;
    for (; j + kBlock <= n; j += kBlock) {
      K keys[kBlock];
      K low = std::numeric_limits<K>::max();
      for (int u = 0; u < kBlock; ++u) {
        keys[u] = row.key(j + u);
        low = std::min(low, keys[u]);
      }
      if (low >= top) continue;
      for (int u = 0; u < kBlock; ++u)
        if (keys[u] < top) admit(keys[u], j + u);
    }
    for (; j < n; ++j) {
      K key = row.key(j);
      if (key < top) admit(key, j);
    }
    m = k;
  } else {
    if ((int64_t)items.size() < n) items.resize(n);
    for (int64_t j = 0; j < n; ++j) items[j] = make(row.key(j), j);
    m = n;
  }
  std::nth_element(items.begin(), items.begin() + (k - 1), items.begin() + m);
  if (sorted && k > 1) std::sort(items.begin(), items.begin() + (k - 1));
  for (int64_t j = 0; j < k; ++j) out[j] = index_of(items[j]);
}

template <class T>
void select_smallest(const Row<T>& row, int64_t k, bool sorted, RowBuffers& buf, std::vector<int64_t>& out) {
  using K = KeyT<T>;
  // Packed items when the key (above the row minimum, for 64-bit keys) and
  // the position fit in 64 bits: 8-byte items and integer compares.
  uint64_t kmin = 0;
  int key_bits = 32;
  if (sizeof(K) == 8) {
    const std::pair<uint64_t, uint64_t> range = key_range(row, 1);
    kmin = range.first;
    key_bits = bit_width(range.second - range.first);
  }
  const int index_bits = sizeof(K) == 8 ? std::max(1, bit_width(uint64_t(row.n - 1))) : 32;
  if (key_bits + index_bits <= 64 && (sizeof(K) == 8 || row.n <= (int64_t(1) << 32))) {
    select_items<uint64_t>(
        row, k, sorted, buf.packed, out,
        [=](K key, int64_t j) { return pack_key_index(uint64_t(key) - kmin, j, index_bits); },
        [=](uint64_t x) { return K(kmin + packed_key_above_min(x, index_bits)); },
        [=](uint64_t x) { return packed_index(x, index_bits); });
  } else {
    select_items<WideItem>(
        row, k, sorted, buf.wide, out, [](K key, int64_t j) { return WideItem{uint64_t(key), j}; },
        [](const WideItem& x) { return K(x.key); }, [](const WideItem& x) { return x.index; });
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
    using K = KeyT<scalar_t>;
    const scalar_t* src = self.data_ptr<scalar_t>();
    scalar_t* vdst = values.data_ptr<scalar_t>();
    int64_t* idst = indices.data_ptr<int64_t>();
    const K flip = descending ? K(~K(0)) : K(0);
    for_each_row(in, /*split_rows=*/true, [&](int64_t r, int parts, RowBuffers& buf) {
      Row<scalar_t> row{src + in.offset(r), in.step(), in.n, flip};
      sort_row(row, vdst + vo.offset(r), vo.step(), idst + io.offset(r), io.step(), parts, buf);
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
    using K = KeyT<scalar_t>;
    const scalar_t* src = self.data_ptr<scalar_t>();
    scalar_t* vdst = values.data_ptr<scalar_t>();
    int64_t* idst = indices.data_ptr<int64_t>();
    const K flip = largest ? K(~K(0)) : K(0);  // largest first = smallest complemented keys
    for_each_row(in, /*split_rows=*/false, [&](int64_t r, int, RowBuffers& buf) {
      Row<scalar_t> row{src + in.offset(r), in.step(), in.n, flip};
      select_smallest(row, k, sorted, buf, buf.order);
      scalar_t* vp = vdst + vo.offset(r);
      int64_t* ip = idst + io.offset(r);
      for (int64_t j = 0; j < k; ++j) {
        vp[j * vo.step()] = row.p[buf.order[j] * row.step];
        ip[j * io.step()] = buf.order[j];
      }
    });
  });
  return {values, indices};
}

// kthvalue and median: the k-th smallest (0-based) of each row; mode 1
// (median) makes a row holding NaN answer NaN (its first NaN), as
// torch.median does, and mode 2 (nanmedian) picks the median of the non-NaN
// values.
static std::tuple<TensorBase, TensorBase> select_kth(const TensorBase& self, int64_t k0, int64_t dim, bool keepdim,
                                                     int mode /*0 kth, 1 median, 2 nanmedian*/) {
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
    using K = KeyT<scalar_t>;
    const scalar_t* src = self.data_ptr<scalar_t>();
    scalar_t* vdst = vk.data_ptr<scalar_t>();
    int64_t* idst = ik.data_ptr<int64_t>();
    constexpr bool kFloating = !std::is_integral_v<scalar_t>;
    for_each_row(in, /*split_rows=*/false, [&](int64_t r, int, RowBuffers& buf) {
      Row<scalar_t> row{src + in.offset(r), in.step(), in.n, K(0)};
      int64_t pick = -1;
      int64_t kk = k0;
      if (kFloating && mode != 0) {
        int64_t nans = 0, first_nan = -1;
        using Wide = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
        for (int64_t j = 0; j < row.n; ++j)
          if (const Wide v = static_cast<Wide>(row.p[j * row.step]); v != v) {
            ++nans;
            if (first_nan < 0) first_nan = j;
          }
        if (mode == 1 && nans) pick = first_nan;
        else if (mode == 2) {
          if (nans == row.n) pick = first_nan;
          else kk = (row.n - nans - 1) / 2;
        }
      }
      if (pick < 0) {
        select_smallest(row, kk + 1, false, buf, buf.order);
        pick = buf.order[kk];
      }
      vdst[vo.offset(r)] = row.p[pick * row.step];
      idst[io.offset(r)] = pick;
    });
  });
  if (vk.unsafeGetTensorImpl() != values.unsafeGetTensorImpl()) {
    // Drop the kept size-1 dim: same data, the reduced shape.
    std::memcpy(values.data_ptr(), vk.data_ptr(), values.numel() * c10::elementSize(values.scalar_type()));
    std::memcpy(indices.data_ptr(), ik.data_ptr(), indices.numel() * sizeof(int64_t));
  }
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
