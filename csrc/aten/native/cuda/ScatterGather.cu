// gather, index_select, scatter_ (src and value), scatter_add_ and
// index_add_ on CUDA, over ScatterGather.h's DimIndexPlan (the same walk,
// checks and element rules as the CPU kernels).
//
// Reads through an index (gather, index_select) run one thread per walked
// position. Writes (the scatter family, index_add_) run one thread per
// position off `dim`, each walking its line along `dim` in order: distinct
// off-dim positions address distinct elements of self, so no two threads
// ever touch the same element, repeated indices are applied in index order,
// and the result is deterministic without atomics. Half types accumulate in
// float on a scratch copy, as on CPU.
#include <cstring>
#include <type_traits>

#include "aten/native/ScatterGather.h"
#include "aten/native/cuda/NnCommon.cuh"
#include "c10/Library.h"
#include "ops/_to_copy.h"
#include "ops/copy.h"
#include "ops/gather.h"
#include "ops/index_add.h"
#include "ops/index_select.h"
#include "ops/scatter.h"
#include "ops/scatter_add.h"

namespace at::native::cuda_nn {
namespace {

// Offsets (indexed, plain, index) of off-dim position `q`: its coordinates
// in the dims other than `dim`, innermost fastest.
struct LineBase {
  int64_t indexed, plain, index;
};
__device__ inline LineBase line_base(const DimIndexPlan& p, int64_t q) {
  LineBase b{0, 0, 0};
  for (int d = p.ndim - 1; d >= 0; --d) {
    if (d == p.dim) continue;
    const int64_t c = q % p.sizes[d];
    q /= p.sizes[d];
    b.indexed += c * p.indexed_strides[d];
    b.plain += c * p.plain_strides[d];
    b.index += c * p.index_strides[d];
  }
  return b;
}

// Reads: one thread per walked position (q, k): body(indexed offset, plain offset).
template <class I, class Body>
__global__ void dim_index_read_kernel(DimIndexPlan p, int64_t total, const I* index, BadIndexFlag::Slot* bad,
                                      Body body) {
  const int64_t K = p.sizes[p.dim];
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t q = e / K, k = e % K;
    const LineBase b = line_base(p, q);
    const int64_t raw = static_cast<int64_t>(index[b.index + k * p.index_strides[p.dim]]);
    const int64_t v = checked_index(raw, p.indexed_dim_size, false);
    if (v < 0) {
      record_bad_index(bad, raw);
      continue;
    }
    body(b.indexed + v * p.indexed_strides[p.dim], b.plain + k * p.plain_strides[p.dim]);
  }
}

// Writes: one thread per off-dim position, along dim in order.
template <class I, class Body>
__global__ void dim_index_write_kernel(DimIndexPlan p, int64_t lines, const I* index, BadIndexFlag::Slot* bad,
                                       Body body) {
  const int64_t K = p.sizes[p.dim];
  for (int64_t q = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; q < lines; q += int64_t(gridDim.x) * blockDim.x) {
    const LineBase b = line_base(p, q);
    for (int64_t k = 0; k < K; ++k) {
      const int64_t raw = static_cast<int64_t>(index[b.index + k * p.index_strides[p.dim]]);
      const int64_t v = checked_index(raw, p.indexed_dim_size, false);
      if (v < 0) {
        record_bad_index(bad, raw);
        continue;
      }
      body(b.indexed + v * p.indexed_strides[p.dim], b.plain + k * p.plain_strides[p.dim]);
    }
  }
}

// Element bodies. Copies move whole elements as unsigned words of the
// element's size, so one instantiation serves every dtype of that size.
template <class W>
struct ReadIntoPlain {  // gather / index_select: plain[j] = indexed[i]
  const W* indexed;
  W* plain;
  __device__ void operator()(int64_t i, int64_t j) const { plain[j] = indexed[i]; }
};
template <class W>
struct WriteFromPlain {  // scatter_.src: indexed[i] = plain[j]
  W* indexed;
  const W* plain;
  __device__ void operator()(int64_t i, int64_t j) const { indexed[i] = plain[j]; }
};
template <class W>
struct WriteValue {  // scatter_.value
  W* indexed;
  W value;
  __device__ void operator()(int64_t i, int64_t) const { indexed[i] = value; }
};
template <class T, class Acc>
struct AddFromPlain {  // scatter_add_ / index_add_: work[i] += plain[j] * alpha, in Acc
  Acc* work;
  const T* plain;
  Acc alpha;
  bool scaled;
  __device__ void operator()(int64_t i, int64_t j) const {
    Acc v = static_cast<Acc>(plain[j]);
    if (scaled) {
      if constexpr (std::is_same<Acc, bool>::value) v = v && alpha;
      else v = static_cast<Acc>(v * alpha);
    }
    scatter_combine(ScatterOp::Sum, work[i], v);
  }
};

template <class F>
void dispatch_word(int64_t itemsize, const F& f) {
  switch (itemsize) {
    case 1: f(uint8_t()); break;
    case 2: f(uint16_t()); break;
    case 4: f(uint32_t()); break;
    case 8: f(uint64_t()); break;
    default: TL_CHECK(false, "gather/scatter: unsupported element size ", itemsize);
  }
}

int64_t dim_size_1d(const TensorBase& t, int64_t d) { return t.dim() == 0 ? 1 : t.sizes()[d]; }

int64_t off_dim_lines(const DimIndexPlan& p) {
  int64_t n = 1;
  for (int d = 0; d < p.ndim; ++d)
    if (d != p.dim) n *= p.sizes[d];
  return n;
}

// Launches a read or write walk and raises the op's error for a bad index.
template <bool Write, class Body>
void run_walk(const DimIndexPlan& p, const TensorBase& index, IndexErrorStyle style, int64_t error_dim,
              const Body& body) {
  const int64_t lines = off_dim_lines(p), K = p.sizes[p.dim];
  if (lines == 0 || K == 0) return;
  cudaStream_t st = stream();
  BadIndexFlag bad(st);
  dispatch_index_type(index.scalar_type(), "gather/scatter", [&](auto itag) {
    using I = decltype(itag);
    const I* ip = static_cast<const I*>(index.data_ptr());
    if (Write) {
      dim_index_write_kernel<I, Body><<<blocks_for(lines, 128), 128, 0, st>>>(p, lines, ip, bad.dev, body);
    } else {
      dim_index_read_kernel<I, Body><<<blocks_for(lines * K, 256), 256, 0, st>>>(p, lines * K, ip, bad.dev, body);
    }
    TL_CUDA_KERNEL_LAUNCH_CHECK("gather/scatter");
  });
  if (auto v = bad.read()) raise_index_out_of_range(style, *v, error_dim, p.indexed_dim_size);
}

// ---------------------------------------------------------------- reads

TensorBase gather_cuda(const TensorBase& self, int64_t dim, const TensorBase& index, bool /*sparse_grad*/) {
  const int64_t d = gather_check(self, dim, index);
  check_same_device("gather", self, index);
  TensorBase out = make_empty(index.sizes(), self.options());
  if (index.numel() == 0) return out;
  DimIndexPlan p = make_dim_index_plan(sizes_1d(index), d, strides_1d(self), strides_1d(out), strides_1d(index),
                                       dim_size_1d(self, d));
  dispatch_word(self.itemsize(), [&](auto wtag) {
    using W = decltype(wtag);
    run_walk<false>(p, index, IndexErrorStyle::Bounds, d,
                    ReadIntoPlain<W>{static_cast<const W*>(self.data_ptr()), static_cast<W*>(out.data_ptr())});
  });
  return out;
}

TensorBase index_select_cuda(const TensorBase& self, int64_t dim, const TensorBase& index) {
  const int64_t d = index_select_check(self, dim, index);
  check_same_device("index_select", self, index);
  TensorBase out = make_empty(index_select_shape(self, d, index), self.options());
  if (out.numel() == 0) return out;
  DimVector walk = sizes_1d(out);
  DimIndexPlan p = make_dim_index_plan(walk, d, strides_1d(self), strides_1d(out),
                                       index_as_dim_strides(index, int64_t(walk.size()), d), dim_size_1d(self, d));
  dispatch_word(self.itemsize(), [&](auto wtag) {
    using W = decltype(wtag);
    run_walk<false>(p, index, IndexErrorStyle::RangeInSelf, d,
                    ReadIntoPlain<W>{static_cast<const W*>(self.data_ptr()), static_cast<W*>(out.data_ptr())});
  });
  return out;
}

// ---------------------------------------------------------------- writes

TensorBase scatter_value_cuda_(const TensorBase& self, int64_t dim, const TensorBase& index, const Scalar& value) {
  const int64_t d = scatter_check(self, dim, index, nullptr);
  check_same_device("scatter_", self, index);
  self.bump_version();
  if (index.numel() == 0) return self;
  DimVector walk = sizes_1d(index);
  DimIndexPlan p = make_dim_index_plan(walk, d, strides_1d(self), DimVector(walk.size(), 0), strides_1d(index),
                                       dim_size_1d(self, d));
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), "scatter_", [&] {
    const scalar_t v = value.to<scalar_t>();
    dispatch_word(int64_t(sizeof(scalar_t)), [&](auto wtag) {
      using W = decltype(wtag);
      W bits;
      std::memcpy(&bits, &v, sizeof(W));
      run_walk<true>(p, index, IndexErrorStyle::Bounds, d, WriteValue<W>{static_cast<W*>(self.data_ptr()), bits});
    });
  });
  return self;
}

TensorBase scatter_src_cuda_(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& src) {
  if (src.unsafeGetTensorImpl()->is_wrapped_number()) return scatter_value_cuda_(self, dim, index, c10::item(src));
  const int64_t d = scatter_check(self, dim, index, &src);
  check_same_device("scatter_", self, index);
  check_same_device("scatter_", self, src);
  self.bump_version();
  if (index.numel() == 0) return self;
  DimIndexPlan p = make_dim_index_plan(sizes_1d(index), d, strides_1d(self), strides_1d(src), strides_1d(index),
                                       dim_size_1d(self, d));
  dispatch_word(self.itemsize(), [&](auto wtag) {
    using W = decltype(wtag);
    run_walk<true>(p, index, IndexErrorStyle::Bounds, d,
                   WriteFromPlain<W>{static_cast<W*>(self.data_ptr()), static_cast<const W*>(src.data_ptr())});
  });
  return self;
}

// self (+)= src * alpha through the plan; `walk`/index strides as the op lays
// them out. Half types go through a float copy of self, written back once.
void add_walk(const char* op, const TensorBase& self, IntArrayRef walk, int64_t d, IntArrayRef src_strides,
              IntArrayRef index_strides, const TensorBase& index, const TensorBase& src, const Scalar* alpha) {
  int64_t n = 1;
  for (int64_t s : walk) n *= s;
  if (n == 0 || self.numel() == 0) return;
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), op, [&] {
    using Acc = scatter_acc_t<scalar_t>;
    const bool widen = !std::is_same<Acc, scalar_t>::value;
    TensorBase work = widen ? at::_ops::_to_copy(self, c10::CppTypeToScalarType<Acc>::value) : self;
    DimIndexPlan p = make_dim_index_plan(walk, d, strides_1d(work), src_strides, index_strides, dim_size_1d(self, d));
    const bool scaled = alpha && !(alpha->toDouble() == 1.0);
    Acc a = Acc(1);
    if (scaled) {
      if constexpr (std::is_floating_point<Acc>::value) a = static_cast<Acc>(alpha->toDouble());
      else a = static_cast<Acc>(alpha->to<scalar_t>());
    }
    run_walk<true>(p, index, IndexErrorStyle::Bounds, d,
                   AddFromPlain<scalar_t, Acc>{static_cast<Acc*>(work.data_ptr()),
                                               static_cast<const scalar_t*>(src.data_ptr()), a, scaled});
    if (widen) at::_ops::copy_(self, work, false);
  });
}

TensorBase scatter_add_cuda_(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& src) {
  const int64_t d = scatter_check(self, dim, index, &src);
  check_same_device("scatter_add_", self, index);
  check_same_device("scatter_add_", self, src);
  self.bump_version();
  if (index.numel() == 0) return self;
  add_walk("scatter_add", self, sizes_1d(index), d, strides_1d(src), strides_1d(index), index, src, nullptr);
  return self;
}

TensorBase index_add_cuda_(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source,
                           const Scalar& alpha) {
  const int64_t d = index_add_check("index_add", self, dim, index, source);
  check_same_device("index_add_", self, index);
  check_same_device("index_add_", self, source);
  self.bump_version();
  DimVector walk = sizes_1d(self);
  walk[d] = index.numel();
  add_walk("index_add", self, walk, d, strides_1d(source), index_as_dim_strides(index, int64_t(walk.size()), d),
           index, source, &alpha);
  return self;
}

}  // namespace
}  // namespace at::native::cuda_nn

TL_LIBRARY_IMPL(aten, CUDA, m) {
  using namespace at::native::cuda_nn;
  m.impl("gather", TL_KERNEL(gather_cuda));
  m.impl("index_select", TL_KERNEL(index_select_cuda));
  m.impl("scatter_.src", TL_KERNEL(scatter_src_cuda_));
  m.impl("scatter_.value", TL_KERNEL(scatter_value_cuda_));
  m.impl("scatter_add_", TL_KERNEL(scatter_add_cuda_));
  m.impl("index_add_", TL_KERNEL(index_add_cuda_));
}
