// sort (stable) and topk on CUDA.
//
// Values are compared through Sorting.h's unsigned sort keys (PyTorch's
// order: NaN largest, -0.0 == 0.0), complemented for a descending sort, and
// ties broken by position: (key, position) is a strict total order, so the
// bitonic network (CudaNnPlan.h's bitonic_exchange) yields exactly the stable
// sort the CPU kernel produces. The sorted dim is moved last and made
// contiguous; each row is padded to a power of two with slots that sort
// after every element.
//
// Rows of up to kSharedSlots padded slots are sorted by one block in shared
// memory, the whole network between __syncthreads. Longer rows keep their
// slots in global memory and run one launch per network stage over all rows
// (O(n log^2 n) work, every stage coalesced).
#include <tuple>

#include "aten/native/Sorting.h"
#include "aten/native/cuda/NnCommon.cuh"
#include "c10/Library.h"
#include "ops/contiguous.h"
#include "ops/copy.h"
#include "ops/sort.h"
#include "ops/topk.h"
#include "ops/transpose.h"

namespace at::native::cuda_nn {
namespace {

constexpr int64_t kSharedSlots = 2048;

template <class T>
using SortKey = typename sorting::KeyOf<T>::type;

template <class T>
__device__ inline SortKey<T> key_of(T v, bool descending) {
  const SortKey<T> k = sorting::sort_key<T>(v);
  return descending ? SortKey<T>(~k) : k;
}

// Writes the first `keep` slots of a sorted row: values read back from the
// input (the key merges NaN payloads and zeros' signs), positions as int64.
template <class T>
__device__ inline void write_row(const T* x, const int64_t* idx, int64_t keep, T* values, int64_t* indices,
                                 int64_t stride_thread, int64_t first) {
  for (int64_t p = first; p < keep; p += stride_thread) {
    values[p] = x[idx[p]];
    indices[p] = idx[p];
  }
}

template <class T>
__global__ void sort_rows_shared_kernel(const T* in, T* values, int64_t* indices, int64_t rows, int64_t n,
                                        int64_t len, int64_t keep, bool descending) {
  using K = SortKey<T>;
  __shared__ K key[kSharedSlots];
  __shared__ int64_t idx[kSharedSlots];
  __shared__ bool pad[kSharedSlots];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* x = in + r * n;
    for (int64_t i = threadIdx.x; i < len; i += blockDim.x) {
      pad[i] = i >= n;
      idx[i] = i;
      key[i] = i < n ? key_of(x[i], descending) : K(0);
    }
    __syncthreads();
    for (int64_t k = 2; k <= len; k <<= 1) {
      for (int64_t j = k >> 1; j > 0; j >>= 1) {
        for (int64_t i = threadIdx.x; i < len; i += blockDim.x) bitonic_exchange(key, idx, pad, i, j, k, false);
        __syncthreads();
      }
    }
    write_row(x, idx, keep, values + r * keep, indices + r * keep, blockDim.x, threadIdx.x);
    __syncthreads();  // the next row reuses the shared arrays
  }
}

template <class T>
__global__ void sort_init_global_kernel(const T* in, SortKey<T>* key, int64_t* idx, bool* pad, int64_t rows,
                                        int64_t n, int64_t len, bool descending) {
  const int64_t total = rows * len;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = e / len, i = e % len;
    pad[e] = i >= n;
    idx[e] = i;
    key[e] = i < n ? key_of(in[r * n + i], descending) : SortKey<T>(0);
  }
}

template <class K>
__global__ void sort_stage_global_kernel(K* key, int64_t* idx, bool* pad, int64_t rows, int64_t len, int64_t j,
                                         int64_t k) {
  const int64_t total = rows * len;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = e / len, i = e % len;
    bitonic_exchange(key + r * len, idx + r * len, pad + r * len, i, j, k, false);
  }
}

template <class T>
__global__ void sort_write_global_kernel(const T* in, const int64_t* idx, T* values, int64_t* indices, int64_t rows,
                                         int64_t n, int64_t len, int64_t keep) {
  const int64_t total = rows * keep;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = e / keep, p = e % keep;
    const int64_t src = idx[r * len + p];
    values[e] = in[r * n + src];
    indices[e] = src;
  }
}

// Sorts every row of `x` (contiguous, the sorted dim last, n per row) and
// writes the first `keep` of each into values/indices (rows x keep).
template <class T>
void sort_rows(const TensorBase& x, int64_t n, int64_t keep, bool descending, const TensorBase& values,
               const TensorBase& indices) {
  const int64_t rows = n == 0 ? 0 : x.numel() / n;
  if (rows == 0 || keep == 0) return;
  const int64_t len = bitonic_length(n);
  cudaStream_t st = stream();
  const T* in = static_cast<const T*>(x.data_ptr());
  T* vp = static_cast<T*>(values.data_ptr());
  int64_t* ip = static_cast<int64_t*>(indices.data_ptr());
  if (len <= kSharedSlots) {
    const int threads = int(len < 1024 ? (len < 32 ? 32 : len) : 1024);
    sort_rows_shared_kernel<T><<<blocks_for(rows, 1), threads, 0, st>>>(in, vp, ip, rows, n, len, keep, descending);
    TL_CUDA_KERNEL_LAUNCH_CHECK("sort");
    return;
  }
  using K = SortKey<T>;
  const TensorOptions dev = x.options();
  TensorBase key = make_empty(IntArrayRef{rows * len}, dev.with_dtype(c10::CppTypeToScalarType<
                                                           std::conditional_t<sizeof(K) == 8, int64_t, int32_t>>::value));
  TensorBase idx = make_empty(IntArrayRef{rows * len}, dev.with_dtype(ScalarType::Long));
  TensorBase pad = make_empty(IntArrayRef{rows * len}, dev.with_dtype(ScalarType::Bool));
  K* kp = static_cast<K*>(key.data_ptr());
  int64_t* xp = static_cast<int64_t*>(idx.data_ptr());
  bool* pp = static_cast<bool*>(pad.data_ptr());
  const unsigned grid = blocks_for(rows * len, 256);
  sort_init_global_kernel<T><<<grid, 256, 0, st>>>(in, kp, xp, pp, rows, n, len, descending);
  TL_CUDA_KERNEL_LAUNCH_CHECK("sort");
  for (int64_t k = 2; k <= len; k <<= 1) {
    for (int64_t j = k >> 1; j > 0; j >>= 1) {
      sort_stage_global_kernel<K><<<grid, 256, 0, st>>>(kp, xp, pp, rows, len, j, k);
      TL_CUDA_KERNEL_LAUNCH_CHECK("sort");
    }
  }
  sort_write_global_kernel<T><<<blocks_for(rows * keep, 256), 256, 0, st>>>(in, xp, vp, ip, rows, n, len, keep);
  TL_CUDA_KERNEL_LAUNCH_CHECK("sort");
}

// The shared driver of sort and topk: keep = n for sort, k for topk.
std::tuple<TensorBase, TensorBase> sorted_prefix(const char* op, const TensorBase& self, int64_t dim, int64_t keep,
                                                 bool descending) {
  const int64_t nd = self.dim();
  DimVector out_shape(self.sizes());
  if (nd > 0) out_shape[dim] = keep;
  TensorBase values = make_empty(out_shape, self.options());
  TensorBase indices = make_empty(out_shape, self.options().with_dtype(ScalarType::Long));
  if (values.numel() == 0) return {values, indices};
  const int64_t last = nd > 0 ? nd - 1 : 0;
  // The sorted dim last and contiguous; results come back in that layout and
  // are copied into self's shape.
  TensorBase x = nd > 0 ? at::_ops::contiguous(at::_ops::transpose(self, dim, last)) : at::_ops::contiguous(self);
  const int64_t n = nd > 0 ? self.sizes()[dim] : 1;
  TensorBase v_rows = values, i_rows = indices;
  if (nd > 0 && dim != last) {
    DimVector moved(x.sizes());
    moved[last] = keep;
    v_rows = make_empty(moved, values.options());
    i_rows = make_empty(moved, indices.options());
  }
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), op, [&] { sort_rows<scalar_t>(x, n, keep, descending, v_rows, i_rows); });
  if (!v_rows.is_same(values)) {
    at::_ops::copy_(values, at::_ops::transpose(v_rows, dim, last), false);
    at::_ops::copy_(indices, at::_ops::transpose(i_rows, dim, last), false);
  }
  return {values, indices};
}

std::tuple<TensorBase, TensorBase> sort_stable_cuda(const TensorBase& self, std::optional<bool> stable, int64_t dim,
                                                    bool descending) {
  (void)stable;  // always stable, as on CPU
  dim = maybe_wrap_dim(dim, self.dim());
  return sorted_prefix("sort", self, dim, self.dim() == 0 ? 1 : self.sizes()[dim], descending);
}

std::tuple<TensorBase, TensorBase> sort_cuda(const TensorBase& self, int64_t dim, bool descending) {
  return sort_stable_cuda(self, false, dim, descending);
}

// topk: the first k of the stable sort, largest first or smallest first.
// sorted=False may return them in any order; this returns them sorted.
std::tuple<TensorBase, TensorBase> topk_cuda(const TensorBase& self, int64_t k, int64_t dim, bool largest,
                                             bool sorted) {
  (void)sorted;
  dim = maybe_wrap_dim(dim, self.dim());
  const int64_t n = self.dim() == 0 ? 1 : self.sizes()[dim];
  TL_CHECK_INDEX(k >= 0 && k <= n, "selected index k out of range");
  return sorted_prefix("topk", self, dim, k, largest);
}

}  // namespace
}  // namespace at::native::cuda_nn

TL_LIBRARY_IMPL(aten, CUDA, m) {
  using namespace at::native::cuda_nn;
  m.impl("sort", TL_KERNEL(sort_cuda));
  m.impl("sort.stable", TL_KERNEL(sort_stable_cuda));
  m.impl("topk", TL_KERNEL(topk_cuda));
}
