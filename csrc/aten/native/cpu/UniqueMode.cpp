// CPU unique, unique_consecutive and mode.
//
// unique sorts through the dispatcher's stable `sort` (the radix/row sorts of
// cpu/Sorting.cpp), so equal values come out adjacent with their original
// indices in increasing order. What is left here is linear: a scan that finds
// where runs of equal values start, in two parallel passes (count the starts
// per chunk, then write values, counts and inverse indices at known offsets).
//  - unique (flattened): sort, scan. bool/uint8/int8 skip the sort: a
//    256-bucket count gives the same sorted values, counts and inverse; so do
//    wider integers whose values span at most about twice their count.
//  - unique (dim=): slices ordered lexicographically by a comparator over the
//    slice elements' sort keys (the element sort cannot order slices), scan.
//  - unique_consecutive: the scan alone, in input order.
//  - mode: needs counts, not an order: one pass per row counts each value in
//    a small open-addressing table keyed by its sort key (no sort, so
//    O(n) per row; sorting each row cost 3x PyTorch on int64). Ties go to the
//    smallest value, and the index reported is the largest index of the mode
//    value, which is the index PyTorch's CPU kernel gives for rows of up to 16
//    elements (larger rows get whatever its unstable std::sort leaves last).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../../Parallel.h"
#include "../UniqueMode.h"
#include "c10/Tensor.h"
#include "ops/contiguous.h"
#include "ops/reshape.h"
#include "ops/sort.h"

namespace at::native {
using namespace unique_mode;

using UniqueResult = std::tuple<TensorBase, TensorBase, TensorBase>;

namespace {

TensorBase empty_long(IntArrayRef sizes, const TensorBase& like) {
  return make_empty(sizes, like.options().with_dtype(ScalarType::Long));
}

TensorBase as_contiguous(const TensorBase& t) {
  return t.is_contiguous() ? t : at::_ops::contiguous(t, MemoryFormat::Contiguous);
}

// Items [0, n) split into fixed chunks, the same in both passes of a scan.
struct Chunks {
  int64_t n, count;
  Chunks(int64_t n_, int64_t work_per_item) : n(n_) {
    int64_t work = std::max<int64_t>(1, n) * std::max<int64_t>(1, work_per_item);
    count = std::clamp<int64_t>(work / kGrainSize, 1, std::max<int64_t>(1, std::min<int64_t>(n, 256)));
  }
  int64_t begin(int64_t c) const { return c * n / count; }
  int64_t end(int64_t c) const { return (c + 1) * n / count; }
};

// The second pass: for chunk c, runs numbered from base[c] (the starts before it).
template <class IsStart, class Emit>
void emit_runs(const Chunks& ch, const std::vector<int64_t>& base, const IsStart& is_start, const Emit& emit) {
  parallel_for(0, ch.count, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      // Bounds in locals: the emit stores could alias ch's fields otherwise,
      // forcing a reload and a division per item.
      const int64_t b = ch.begin(c), e = ch.end(c);
      int64_t run = base[c] - 1;
      if (b == 0 && e > 0) emit(0, ++run, true);
      for (int64_t i = std::max<int64_t>(b, 1); i < e; ++i) {
        const bool start = is_start(i);
        run += start;
        emit(i, run, start);
      }
    }
  });
}

// Both passes; `alloc(runs)` is called between them to size the outputs.
template <class IsStart, class Alloc, class Emit>
int64_t runs(const Chunks& ch, const IsStart& is_start, const Alloc& alloc, const Emit& emit) {
  std::vector<int64_t> base(ch.count + 1, 0);
  if (ch.n > 0) {
    parallel_for(0, ch.count, 1, [&](int64_t cb, int64_t ce) {
      for (int64_t c = cb; c < ce; ++c) {
        const int64_t b = std::max<int64_t>(ch.begin(c), 1), e = ch.end(c);
        int64_t starts = c == 0;
        for (int64_t i = b; i < e; ++i) starts += is_start(i);
        base[c + 1] = starts;
      }
    });
    for (int64_t c = 0; c < ch.count; ++c) base[c + 1] += base[c];
  }
  int64_t total = base[ch.count];
  alloc(total);
  if (ch.n > 0) emit_runs(ch, base, is_start, emit);
  return total;
}

// counts[g] holds where run g starts; make it the run's length (n items in all).
void starts_to_counts(int64_t* counts, int64_t runs, int64_t n) {
  for (int64_t g = 0; g < runs; ++g) counts[g] = (g + 1 < runs ? counts[g + 1] : n) - counts[g];
}

// ---- unique, flattened

// The shapes of a flattened unique's values and inverse: (u,) and self's
// shape; or, for the dim form over slices of one element (`as_dim` >= 0, the
// other dims all of size 1), self's shape with u at as_dim, and (n,).
struct FlatShapes {
  DimVector inverse;
  DimVector values(const TensorBase& self, int64_t as_dim, int64_t u) const {
    if (as_dim < 0) return DimVector{u};
    DimVector shape(self.sizes());
    shape[as_dim] = u;
    return shape;
  }
  FlatShapes(const TensorBase& self, int64_t as_dim, bool return_inverse) {
    if (!return_inverse) inverse = DimVector{0};
    else if (as_dim >= 0) inverse = DimVector{self.numel()};
    else inverse = DimVector(self.sizes());
  }
};

template <class T>
UniqueResult unique_sorted_flat(const TensorBase& self, bool return_inverse, bool return_counts, int64_t as_dim) {
  const int64_t n = self.numel();
  FlatShapes shapes(self, as_dim, return_inverse);
  TensorBase flat = at::_ops::reshape(self, {-1});
  auto [sorted, perm] = at::_ops::sort(flat, std::optional<bool>(true), 0, false);
  const T* s = sorted.data_ptr<T>();
  const int64_t* p = perm.data_ptr<int64_t>();
  TensorBase values, inverse = empty_long(shapes.inverse, self);
  TensorBase counts;
  T* vp = nullptr;
  int64_t* cp = nullptr;
  int64_t* ip = return_inverse ? inverse.data_ptr<int64_t>() : nullptr;
  Chunks ch(n, 1);
  int64_t u = runs(
      ch, [&](int64_t i) { return !same_value(s[i], s[i - 1]); },
      [&](int64_t total) {
        values = make_empty(shapes.values(self, as_dim, total), self.options());
        counts = empty_long({return_counts ? total : 0}, self);
        vp = values.data_ptr<T>();
        cp = return_counts ? counts.data_ptr<int64_t>() : nullptr;
      },
      [&](int64_t i, int64_t g, bool start) {
        if (start) {
          vp[g] = s[i];
          if (cp) cp[g] = i;
        }
        if (ip) ip[p[i]] = g;
      });
  if (cp) starts_to_counts(cp, u, n);
  return {values, inverse, counts};
}

// bool, uint8 and int8: 256 buckets in value order replace the sort.
template <class T>
inline int bucket_of(T v) {
  if constexpr (std::is_same_v<T, int8_t>) return int(v) + 128;
  else return int(v);
}

template <class T>
inline T value_of_bucket(int b) {
  if constexpr (std::is_same_v<T, int8_t>) return T(b - 128);
  else if constexpr (std::is_same_v<T, bool>) return b != 0;
  else return T(b);
}

template <class T>
UniqueResult unique_counted_flat(const TensorBase& self, bool return_inverse, bool return_counts, int64_t as_dim) {
  const int64_t n = self.numel();
  FlatShapes shapes(self, as_dim, return_inverse);
  TensorBase flat = at::_ops::reshape(self, {-1});  // a view when it can be: read through its stride
  const T* x = flat.data_ptr<T>();
  const int64_t st = n > 0 ? flat.strides()[0] : 1;
  Chunks ch(n, 1);
  std::vector<int64_t> hist(size_t(ch.count) * 256, 0);
  if (n > 0) {
    parallel_for(0, ch.count, 1, [&](int64_t cb, int64_t ce) {
      for (int64_t c = cb; c < ce; ++c) {
        int64_t* h = &hist[size_t(c) * 256];
        for (int64_t i = ch.begin(c); i < ch.end(c); ++i) ++h[bucket_of(x[i * st])];
      }
    });
  }
  int64_t total[256] = {0}, group[256];
  int64_t u = 0;
  for (int b = 0; b < 256; ++b) {
    for (int64_t c = 0; c < ch.count; ++c) total[b] += hist[size_t(c) * 256 + b];
    group[b] = total[b] ? u++ : -1;
  }
  TensorBase values = make_empty(shapes.values(self, as_dim, u), self.options());
  TensorBase counts = empty_long({return_counts ? u : 0}, self);
  T* vp = values.data_ptr<T>();
  for (int b = 0; b < 256; ++b) {
    if (group[b] < 0) continue;
    vp[group[b]] = value_of_bucket<T>(b);
    if (return_counts) counts.data_ptr<int64_t>()[group[b]] = total[b];
  }
  TensorBase inverse = empty_long(shapes.inverse, self);
  if (return_inverse && n > 0) {
    int64_t* ip = inverse.data_ptr<int64_t>();
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) ip[i] = group[bucket_of(x[i * st])];
    });
  }
  return {values, inverse, counts};
}

// int16/int32/int64 whose values span a range no wider than about twice their
// count (labels, indices): counting over [min, max] replaces the sort, as for
// 8-bit types. Returns false (nothing done) for wider ranges.
template <class T>
bool unique_dense_flat(const TensorBase& self, bool return_inverse, bool return_counts, int64_t as_dim,
                       UniqueResult& out) {
  const int64_t n = self.numel();
  if (n == 0) return false;
  TensorBase flat = as_contiguous(at::_ops::reshape(self, {-1}));
  const T* x = flat.data_ptr<T>();
  T lo = x[0], hi = x[0];
  for (int64_t i = 1; i < n; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  const uint64_t span = uint64_t(int64_t(hi)) - uint64_t(int64_t(lo));  // no signed overflow
  if (span >= uint64_t(2 * n + 256)) return false;
  const int64_t range = int64_t(span) + 1;
  std::vector<int64_t> count(range, 0), group(range);
  for (int64_t i = 0; i < n; ++i) ++count[int64_t(x[i]) - int64_t(lo)];
  int64_t u = 0;
  for (int64_t b = 0; b < range; ++b) group[b] = count[b] ? u++ : -1;
  FlatShapes shapes(self, as_dim, return_inverse);
  TensorBase values = make_empty(shapes.values(self, as_dim, u), self.options());
  TensorBase counts = empty_long({return_counts ? u : 0}, self);
  T* vp = values.data_ptr<T>();
  int64_t* cp = return_counts ? counts.data_ptr<int64_t>() : nullptr;
  for (int64_t b = 0; b < range; ++b) {
    if (group[b] < 0) continue;
    vp[group[b]] = T(int64_t(lo) + b);
    if (cp) cp[group[b]] = count[b];
  }
  TensorBase inverse = empty_long(shapes.inverse, self);
  if (return_inverse) {
    int64_t* ip = inverse.data_ptr<int64_t>();
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) ip[i] = group[int64_t(x[i]) - int64_t(lo)];
    });
  }
  out = UniqueResult{values, inverse, counts};
  return true;
}

// ---- dim forms: slices of a contiguous input

// Copies slice `src` of x (geometry g) into slice `dst` of out (u slices).
template <class T>
void copy_slice(const T* x, const SliceGeometry& g, int64_t src, T* out, int64_t u, int64_t dst) {
  for (int64_t o = 0; o < g.outer; ++o) {
    const T* p = x + (o * g.n + src) * g.inner;
    T* q = out + (o * u + dst) * g.inner;
    std::copy(p, p + g.inner, q);
  }
}

// Runs of equal slices in the order `order` (nullptr: input order). Writes one
// slice per run into values (sizes with size u at dim), the run of each input
// slice into inverse, the run lengths into counts.
template <class T>
UniqueResult unique_slices(const TensorBase& x, int64_t dim, const int64_t* order, bool want_inverse, bool want_counts) {
  SliceGeometry g = slice_geometry(x.sizes(), dim);
  const T* xp = x.data_ptr<T>();
  auto slice = [&](int64_t i) { return order ? order[i] : i; };
  TensorBase values, counts;
  TensorBase inverse = empty_long({want_inverse ? g.n : 0}, x);
  int64_t* ip = want_inverse ? inverse.data_ptr<int64_t>() : nullptr;
  int64_t* cp = nullptr;
  T* vp = nullptr;
  int64_t u_total = 0;
  Chunks ch(g.n, g.slice_numel());
  int64_t u = runs(
      ch, [&](int64_t i) { return !same_slice(xp, g, slice(i), slice(i - 1)); },
      [&](int64_t total) {
        DimVector shape(x.sizes());
        shape[dim] = total;
        u_total = total;
        values = make_empty(shape, x.options());
        counts = empty_long({want_counts ? total : 0}, x);
        vp = values.data_ptr<T>();
        cp = want_counts ? counts.data_ptr<int64_t>() : nullptr;
      },
      [&](int64_t i, int64_t run, bool start) {
        if (start) {
          copy_slice(xp, g, slice(i), vp, u_total, run);
          if (cp) cp[run] = i;
        }
        if (ip) ip[slice(i)] = run;
      });
  if (cp) starts_to_counts(cp, u, g.n);
  return {values, inverse, counts};
}

// The dim forms' answer for a size-0 dim: no slices (shape kept, nothing to count).
UniqueResult no_slices(const TensorBase& self) {
  return {make_empty(self.sizes(), self.options()), empty_long({0}, self), empty_long({0}, self)};
}

// ---- mode: per-row counts in an open-addressing table keyed by sort key
// (one pass over the row, no sort: equal values share a key, -0.0 with 0.0).

template <class K>
struct CountTable {
  std::vector<K> keys;
  std::vector<int64_t> count, last, used;
  std::vector<uint32_t> stamp;  // slot is taken in this row when stamp == gen: no clearing per row
  uint32_t gen = 0;

  // Sizes the table for a row of n (load factor <= 1/2) and starts a new row.
  int bits_for(int64_t n) {
    int bits = 4;
    while ((int64_t(1) << bits) < 2 * n) ++bits;
    size_t cap = size_t(1) << bits;
    if (stamp.size() < cap) {
      keys.resize(cap);
      count.resize(cap);
      last.resize(cap);
      stamp.assign(cap, 0);
      gen = 0;
    }
    if (++gen == 0) {  // wrapped: old stamps could read as current
      std::fill(stamp.begin(), stamp.end(), 0);
      gen = 1;
    }
    used.clear();
    return bits;
  }
  void trim() {
    if (stamp.size() > (size_t(1) << 22)) *this = CountTable();
  }
};

// The index mode reports for one row (n elements, `step` apart): the most
// frequent value, the smallest on ties, at its largest index. Every NaN is a
// value of its own (count 1, ordered last), so a NaN is the mode only of a row
// of NaN, where it is the first one, as in a stable sort.
template <class T, class K>
int64_t mode_of_row(const T* row, int64_t n, int64_t step, CountTable<K>& t) {
  const int bits = t.bits_for(n);
  const uint64_t mask = (uint64_t(1) << bits) - 1;
  int64_t first_nan = -1;
  for (int64_t j = 0; j < n; ++j) {
    const T v = row[j * step];
    if constexpr (!std::is_integral_v<T>) {
      if (!same_value(v, v)) {
        if (first_nan < 0) first_nan = j;
        continue;
      }
    }
    const K key = sorting::sort_key<T>(v);
    // Fibonacci hashing: the top bits of key * 2^64/phi spread runs of keys.
    uint64_t h = (uint64_t(key) * 0x9E3779B97F4A7C15ull) >> (64 - bits);
    while (true) {
      if (t.stamp[h] != t.gen) {
        t.stamp[h] = t.gen;
        t.keys[h] = key;
        t.count[h] = 1;
        t.last[h] = j;
        t.used.push_back(int64_t(h));
        break;
      }
      if (t.keys[h] == key) {
        ++t.count[h];
        t.last[h] = j;
        break;
      }
      h = (h + 1) & mask;
    }
  }
  if (t.used.empty()) return first_nan;
  int64_t best = t.used[0];
  for (int64_t h : t.used)
    if (t.count[h] > t.count[best] || (t.count[h] == t.count[best] && t.keys[h] < t.keys[best])) best = h;
  return t.last[best];
}

}  // namespace

// Flattened unique; with as_dim >= 0, the dim form for one-element slices.
static UniqueResult unique_flat(const TensorBase& self, bool return_inverse, bool return_counts, int64_t as_dim) {
  ScalarType st = self.scalar_type();
  switch (st) {
    case kBool: return unique_counted_flat<bool>(self, return_inverse, return_counts, as_dim);
    case kByte: return unique_counted_flat<uint8_t>(self, return_inverse, return_counts, as_dim);
    case kChar: return unique_counted_flat<int8_t>(self, return_inverse, return_counts, as_dim);
    default: break;
  }
  UniqueResult dense;
  if ((st == kShort && unique_dense_flat<int16_t>(self, return_inverse, return_counts, as_dim, dense)) ||
      (st == kInt && unique_dense_flat<int>(self, return_inverse, return_counts, as_dim, dense)) ||
      (st == kLong && unique_dense_flat<int64_t>(self, return_inverse, return_counts, as_dim, dense)))
    return dense;
  return TL_DISPATCH_ALL_TYPES(st, "unique", [&] {
    return unique_sorted_flat<scalar_t>(self, return_inverse, return_counts, as_dim);
  });
}

UniqueResult unique2_cpu(const TensorBase& self, bool sorted, bool return_inverse, bool return_counts) {
  // sorted=False may return any order; like PyTorch's CPU kernel this always sorts.
  (void)sorted;
  return unique_flat(self, return_inverse, return_counts, -1);
}

UniqueResult unique_dim_cpu(const TensorBase& self, int64_t dim, bool sorted, bool return_inverse,
                            bool return_counts) {
  (void)sorted;  // always sorted, as in PyTorch
  (void)return_inverse;
  (void)return_counts;  // PyTorch's unique_dim returns both whatever the flags say
  dim = check_unique_dim(self, dim);
  if (self.sizes()[dim] == 0) return no_slices(self);
  SliceGeometry g = slice_geometry(self.sizes(), dim);
  // One element per slice (a 1-d input, or size-1 other dims): the slices
  // order as their elements do, so the radix-sorted flattened path applies.
  if (g.slice_numel() == 1) return unique_flat(self, true, true, dim);
  TensorBase x = as_contiguous(self);
  std::vector<int64_t> order(g.n);
  std::iota(order.begin(), order.end(), int64_t(0));
  return TL_DISPATCH_ALL_TYPES(self.scalar_type(), "unique_dim", [&] {
    const scalar_t* xp = x.data_ptr<scalar_t>();
    // Stable: equal slices keep input order, so each run starts at the first occurrence.
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return compare_slices(xp, g, a, b) < 0; });
    return unique_slices<scalar_t>(x, dim, order.data(), true, true);
  });
}

UniqueResult unique_consecutive_cpu(const TensorBase& self, bool return_inverse, bool return_counts,
                                    std::optional<int64_t> dim) {
  if (dim) {
    int64_t d = check_unique_dim(self, *dim);
    if (self.sizes()[d] == 0) return no_slices(self);
    TensorBase x = as_contiguous(self);
    return TL_DISPATCH_ALL_TYPES(self.scalar_type(), "unique_consecutive", [&] {
      return unique_slices<scalar_t>(x, d, nullptr, return_inverse, return_counts);
    });
  }
  return TL_DISPATCH_ALL_TYPES(self.scalar_type(), "unique_consecutive", [&] {
    using T = scalar_t;
    const int64_t n = self.numel();
    // Contiguous, so the compare loop of the first pass vectorizes.
    TensorBase flat = as_contiguous(at::_ops::reshape(self, {-1}));
    const T* x = flat.data_ptr<T>();
    TensorBase values, counts, inverse = empty_long(return_inverse ? self.sizes() : IntArrayRef({0}), self);
    int64_t* ip = return_inverse ? inverse.data_ptr<int64_t>() : nullptr;
    int64_t* cp = nullptr;
    T* vp = nullptr;
    int64_t u = runs(
        Chunks(n, 1), [&](int64_t i) { return !same_value(x[i], x[i - 1]); },
        [&](int64_t total) {
          values = make_empty({total}, self.options());
          counts = empty_long({return_counts ? total : 0}, self);
          vp = values.data_ptr<T>();
          cp = return_counts ? counts.data_ptr<int64_t>() : nullptr;
        },
        [&](int64_t i, int64_t g, bool start) {
          if (start) {
            vp[g] = x[i];
            if (cp) cp[g] = i;
          }
          if (ip) ip[i] = g;
        });
    if (cp) starts_to_counts(cp, u, n);
    return UniqueResult{values, inverse, counts};
  });
}

std::tuple<TensorBase, TensorBase> mode_cpu(const TensorBase& self, int64_t dim, bool keepdim) {
  dim = check_mode_dim(self, dim);
  DimVector shape = mode_result_shape(self, dim, keepdim);
  TensorBase values = make_empty(shape, self.options());
  TensorBase indices = empty_long(shape, self);
  if (values.numel() == 0) return {values, indices};
  // Rows are (outer, n, inner) slices of the contiguous input; row r = (o, k)
  // lands at r in the (contiguous) outputs, keepdim or not.
  TensorBase x = as_contiguous(self);
  SliceGeometry g = self.dim() == 0 ? SliceGeometry{} : slice_geometry(self.sizes(), dim);
  const int64_t rows = g.outer * g.inner;
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), "mode", [&] {
    using K = typename sorting::KeyOf<scalar_t>::type;
    const scalar_t* xp = x.data_ptr<scalar_t>();
    scalar_t* vp = values.data_ptr<scalar_t>();
    int64_t* ip = indices.data_ptr<int64_t>();
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / g.n), [&](int64_t rb, int64_t re) {
      thread_local CountTable<K> table;
      for (int64_t r = rb; r < re; ++r) {
        const int64_t o = r / g.inner, k = r - o * g.inner;
        const scalar_t* row = xp + o * g.n * g.inner + k;
        int64_t pick = mode_of_row(row, g.n, g.inner, table);
        vp[r] = row[pick * g.inner];
        ip[r] = pick;
      }
      table.trim();
    });
  });
  return {values, indices};
}

}  // namespace at::native
