// CPU unique, unique_consecutive and mode.
//
// Sorting goes through the dispatcher's stable `sort` (the radix/row sorts of
// cpu/Sorting.cpp), so equal values come out adjacent with their original
// indices in increasing order. What is left here is linear: a scan that finds
// where runs of equal values start, in two parallel passes (count the starts
// per chunk, then write values, counts and inverse indices at known offsets).
//  - unique (flattened): sort, scan. bool/uint8/int8 skip the sort: a
//    256-bucket count gives the same sorted values, counts and inverse.
//  - unique (dim=): slices ordered lexicographically by a comparator over the
//    slice elements' sort keys (the element sort cannot order slices), scan.
//  - unique_consecutive: the scan alone, in input order.
//  - mode: sort each row, then the longest run; ties go to the smallest value
//    (the first run), and the index reported is the largest index of the mode
//    value (the run's last element, the sort being stable), which is the index
//    PyTorch's CPU kernel gives for rows of up to 16 elements (larger rows get
//    whatever its unstable std::sort leaves last).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <tuple>
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
      int64_t run = base[c] - 1;
      for (int64_t i = ch.begin(c); i < ch.end(c); ++i) {
        bool start = i == 0 || is_start(i);
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
        int64_t starts = c == 0;
        for (int64_t i = std::max<int64_t>(ch.begin(c), 1); i < ch.end(c); ++i) starts += is_start(i);
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

template <class T>
UniqueResult unique_sorted_flat(const TensorBase& self, bool return_inverse, bool return_counts) {
  const int64_t n = self.numel();
  TensorBase flat = at::_ops::reshape(self, {-1});
  auto [sorted, perm] = at::_ops::sort(flat, std::optional<bool>(true), 0, false);
  const T* s = sorted.data_ptr<T>();
  const int64_t* p = perm.data_ptr<int64_t>();
  TensorBase values, inverse = empty_long(return_inverse ? self.sizes() : IntArrayRef({0}), self);
  TensorBase counts;
  T* vp = nullptr;
  int64_t* cp = nullptr;
  int64_t* ip = return_inverse ? inverse.data_ptr<int64_t>() : nullptr;
  Chunks ch(n, 1);
  int64_t u = runs(
      ch, [&](int64_t i) { return !same_value(s[i], s[i - 1]); },
      [&](int64_t total) {
        values = make_empty({total}, self.options());
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
UniqueResult unique_counted_flat(const TensorBase& self, bool return_inverse, bool return_counts) {
  const int64_t n = self.numel();
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
  TensorBase values = make_empty({u}, self.options());
  TensorBase counts = empty_long({return_counts ? u : 0}, self);
  T* vp = values.data_ptr<T>();
  for (int b = 0; b < 256; ++b) {
    if (group[b] < 0) continue;
    vp[group[b]] = value_of_bucket<T>(b);
    if (return_counts) counts.data_ptr<int64_t>()[group[b]] = total[b];
  }
  TensorBase inverse = empty_long(return_inverse ? self.sizes() : IntArrayRef({0}), self);
  if (return_inverse && n > 0) {
    int64_t* ip = inverse.data_ptr<int64_t>();
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) ip[i] = group[bucket_of(x[i * st])];
    });
  }
  return {values, inverse, counts};
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

TensorBase as_contiguous(const TensorBase& t) {
  return t.is_contiguous() ? t : at::_ops::contiguous(t, MemoryFormat::Contiguous);
}

}  // namespace

UniqueResult unique2_cpu(const TensorBase& self, bool sorted, bool return_inverse, bool return_counts) {
  // sorted=False may return any order; like PyTorch's CPU kernel this always sorts.
  (void)sorted;
  ScalarType st = self.scalar_type();
  switch (st) {
    case kBool: return unique_counted_flat<bool>(self, return_inverse, return_counts);
    case kByte: return unique_counted_flat<uint8_t>(self, return_inverse, return_counts);
    case kChar: return unique_counted_flat<int8_t>(self, return_inverse, return_counts);
    default: break;
  }
  return TL_DISPATCH_ALL_TYPES(st, "unique", [&] {
    return unique_sorted_flat<scalar_t>(self, return_inverse, return_counts);
  });
}

UniqueResult unique_dim_cpu(const TensorBase& self, int64_t dim, bool sorted, bool return_inverse,
                            bool return_counts) {
  (void)sorted;  // always sorted, as in PyTorch
  (void)return_inverse;
  (void)return_counts;  // PyTorch's unique_dim returns both whatever the flags say
  dim = check_unique_dim(self, dim);
  if (self.sizes()[dim] == 0) return no_slices(self);
  TensorBase x = as_contiguous(self);
  SliceGeometry g = slice_geometry(x.sizes(), dim);
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
    TensorBase flat = at::_ops::reshape(self, {-1});
    const T* x = flat.data_ptr<T>();
    const int64_t st = n > 0 ? flat.strides()[0] : 1;
    TensorBase values, counts, inverse = empty_long(return_inverse ? self.sizes() : IntArrayRef({0}), self);
    int64_t* ip = return_inverse ? inverse.data_ptr<int64_t>() : nullptr;
    int64_t* cp = nullptr;
    T* vp = nullptr;
    int64_t u = runs(
        Chunks(n, 1), [&](int64_t i) { return !same_value(x[i * st], x[(i - 1) * st]); },
        [&](int64_t total) {
          values = make_empty({total}, self.options());
          counts = empty_long({return_counts ? total : 0}, self);
          vp = values.data_ptr<T>();
          cp = return_counts ? counts.data_ptr<int64_t>() : nullptr;
        },
        [&](int64_t i, int64_t g, bool start) {
          if (start) {
            vp[g] = x[i * st];
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
  // Stable, so within a run of equal values the original indices increase.
  auto [sorted, perm] = at::_ops::sort(self, std::optional<bool>(true), dim, false);
  // The sort's outputs are fresh and contiguous in self's shape: rows are
  // (outer, n, inner) slices, and row r = (o, k) lands at r in the outputs.
  SliceGeometry g = self.dim() == 0 ? SliceGeometry{} : slice_geometry(self.sizes(), dim);
  const int64_t rows = g.outer * g.inner;
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), "mode", [&] {
    const scalar_t* s = sorted.data_ptr<scalar_t>();
    const int64_t* p = perm.data_ptr<int64_t>();
    scalar_t* vp = values.data_ptr<scalar_t>();
    int64_t* ip = indices.data_ptr<int64_t>();
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / g.n), [&](int64_t rb, int64_t re) {
      for (int64_t r = rb; r < re; ++r) {
        const int64_t o = r / g.inner, k = r - o * g.inner;
        const int64_t base = o * g.n * g.inner + k, step = g.inner;
        int64_t best = 0, pick = 0;
        for (int64_t j = 0; j < g.n;) {
          int64_t e = j + 1;
          while (e < g.n && same_value(s[base + e * step], s[base + (e - 1) * step])) ++e;
          if (e - j > best) {  // strictly longer: ties keep the smaller value
            best = e - j;
            pick = e - 1;
          }
          j = e;
        }
        vp[r] = s[base + pick * step];
        ip[r] = p[base + pick * step];
      }
    });
  });
  return {values, indices};
}

}  // namespace at::native
