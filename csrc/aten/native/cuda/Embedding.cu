// embedding and its dense backward on CUDA.
//
// Forward is a row gather. The backward sums, for every weight row, the
// gradient rows of the positions that looked it up. To do that without
// atomics (whose order of additions, and so whose float result, changes from
// run to run), the positions are grouped by row first: the indices come to
// the host, a counting sort (stable, so each row's positions stay in index
// order) makes per-row segments, and one thread per (row, column) adds its
// segment in that order. The result is bit-identical on every run, and an
// out-of-range index is found on the host and raised as on CPU.
#include <cstring>
#include <vector>

#include "aten/native/NnNorm.h"
#include "aten/native/cuda/NnCommon.cuh"
#include "c10/Library.h"
#include "ops/contiguous.h"
#include "ops/copy.h"
#include "ops/embedding.h"
#include "ops/embedding_dense_backward.h"

namespace at::native::cuda_nn {
namespace {

template <class T, class I>
__global__ void embedding_forward_kernel(const T* weight, const I* idx, T* out, int64_t K, int64_t D, int64_t V,
                                         BadIndexFlag::Slot* bad) {
  const int64_t total = K * D;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t k = e / D, j = e % D;
    const int64_t row = static_cast<int64_t>(idx[k]);
    if (row < 0 || row >= V) {
      record_bad_index(bad, row);
      out[e] = T(0);
      continue;
    }
    out[e] = weight[row * D + j];
  }
}

// Raises IndexError with the CPU kernel's message.
void raise_embedding_index(int64_t i, int64_t num_weights) {
  TL_CHECK_INDEX(false, "embedding: index ", i, " out of range in self (num_embeddings ", num_weights, ")");
}

TensorBase embedding_cuda(const TensorBase& weight, const TensorBase& indices, int64_t padding_idx,
                          bool scale_grad_by_freq, bool sparse) {
  (void)padding_idx;
  (void)scale_grad_by_freq;
  TL_CHECK_NOT_IMPLEMENTED(!sparse, "embedding: sparse=True gradients are not supported (torchlike has no sparse tensors)");
  embedding_check(weight, indices);
  check_same_device("embedding", weight, indices);
  const int64_t V = weight.sizes()[0], D = weight.sizes()[1];
  DimVector sizes(indices.sizes());
  sizes.push_back(D);
  TensorBase out = make_empty(sizes, weight.options());
  if (out.numel() == 0) return out;
  TensorBase w = at::_ops::contiguous(weight), ind = at::_ops::contiguous(indices);
  cudaStream_t st = stream();
  BadIndexFlag bad(st);
  TL_DISPATCH_ALL_TYPES(w.scalar_type(), "embedding", [&] {
    dispatch_index_type(ind.scalar_type(), "embedding", [&](auto itag) {
      using I = decltype(itag);
      embedding_forward_kernel<scalar_t, I><<<blocks_for(out.numel(), 256), 256, 0, st>>>(
          static_cast<const scalar_t*>(w.data_ptr()), static_cast<const I*>(ind.data_ptr()),
          static_cast<scalar_t*>(out.data_ptr()), ind.numel(), D, V, bad.dev);
      TL_CUDA_KERNEL_LAUNCH_CHECK("embedding");
    });
  });
  if (auto i = bad.read()) raise_embedding_index(*i, V);
  return out;
}

// The positions grouped by weight row, built on the host: segment u covers
// order[start[u] .. start[u+1]) and belongs to weight row rows[u].
struct RowSegments {
  std::vector<int64_t> rows, start, order;
  std::vector<int64_t> counts;  // occurrences of each row (scale_grad_by_freq)
};

RowSegments group_by_row(const std::vector<int64_t>& idx, int64_t num_weights) {
  RowSegments s;
  s.counts.assign(size_t(num_weights), 0);
  for (int64_t i : idx) ++s.counts[size_t(i)];
  std::vector<int64_t> first(size_t(num_weights) + 1, 0);
  for (int64_t v = 0; v < num_weights; ++v) first[size_t(v) + 1] = first[size_t(v)] + s.counts[size_t(v)];
  s.order.assign(idx.size(), 0);
  std::vector<int64_t> fill(first.begin(), first.end() - 1);
  for (size_t k = 0; k < idx.size(); ++k) s.order[size_t(fill[size_t(idx[k])]++)] = int64_t(k);
  for (int64_t v = 0; v < num_weights; ++v) {
    if (!s.counts[size_t(v)]) continue;
    s.rows.push_back(v);
    s.start.push_back(first[size_t(v)]);
  }
  s.start.push_back(int64_t(idx.size()));
  return s;
}

// Host vector -> int64 tensor on `device`.
TensorBase upload(const std::vector<int64_t>& v, Device device) {
  TensorBase host = make_empty(IntArrayRef{int64_t(v.size())}, TensorOptions(ScalarType::Long));
  if (!v.empty()) std::memcpy(host.data_ptr(), v.data(), v.size() * sizeof(int64_t));
  TensorBase dev = make_empty(IntArrayRef{int64_t(v.size())}, TensorOptions(ScalarType::Long, device));
  at::_ops::copy_(dev, host, false);
  return dev;
}

template <class T>
__global__ void embedding_backward_kernel(const T* grad, T* out, const int64_t* rows, const int64_t* start,
                                          const int64_t* order, int64_t nseg, int64_t D, int64_t padding_idx,
                                          bool scale_by_count) {
  using A = opmath<T>;
  const int64_t total = nseg * D;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t u = e / D, j = e % D;
    const int64_t row = rows[u];
    if (row == padding_idx) continue;  // stays zero
    A acc = 0;
    for (int64_t p = start[u]; p < start[u + 1]; ++p) acc += static_cast<A>(grad[order[p] * D + j]);
    if (scale_by_count) acc /= A(start[u + 1] - start[u]);
    out[row * D + j] = static_cast<T>(acc);
  }
}

TensorBase embedding_dense_backward_cuda(const TensorBase& grad_output, const TensorBase& indices,
                                         int64_t num_weights, int64_t padding_idx, bool scale_grad_by_freq) {
  TL_CHECK(indices.scalar_type() == ScalarType::Long || indices.scalar_type() == ScalarType::Int,
           "embedding_dense_backward: indices must be int64 or int32, got ", indices.scalar_type());
  TL_CHECK(grad_output.dim() >= 1, "embedding_dense_backward: grad_output must have at least one dim");
  check_same_device("embedding_dense_backward", grad_output, indices);
  const int64_t D = grad_output.sizes()[grad_output.dim() - 1];
  TL_CHECK(grad_output.numel() == indices.numel() * D, "embedding_dense_backward: grad_output has ",
           grad_output.numel(), " elements, expected ", indices.numel(), " x ", D);
  TensorBase g = at::_ops::contiguous(grad_output);
  TensorBase out = make_empty(IntArrayRef{num_weights, D}, g.options());
  cudaStream_t st = stream();
  if (out.numel() > 0)
    TL_CUDA_CHECK(cudaMemsetAsync(out.data_ptr(), 0, size_t(out.numel()) * out.itemsize(), st));
  if (indices.numel() == 0 || D == 0) return out;
  // The indices on the host as int64, range-checked there.
  TensorBase host_idx = make_empty(indices.sizes(), TensorOptions(indices.scalar_type()));
  at::_ops::copy_(host_idx, indices, false);
  std::vector<int64_t> idx(size_t(indices.numel()));
  if (host_idx.scalar_type() == ScalarType::Long) {
    std::memcpy(idx.data(), host_idx.data_ptr(), idx.size() * sizeof(int64_t));
  } else {
    const int32_t* p = static_cast<const int32_t*>(host_idx.data_ptr());
    for (size_t k = 0; k < idx.size(); ++k) idx[k] = p[k];
  }
  for (int64_t i : idx)
    if (i < 0 || i >= num_weights) raise_embedding_index(i, num_weights);
  RowSegments seg = group_by_row(idx, num_weights);
  TensorBase rows = upload(seg.rows, g.device()), start = upload(seg.start, g.device()),
             order = upload(seg.order, g.device());
  const int64_t nseg = int64_t(seg.rows.size());
  dispatch_floating(g.scalar_type(), "embedding_dense_backward", [&](auto tag) {
    using T = decltype(tag);
    embedding_backward_kernel<T><<<blocks_for(nseg * D, 256), 256, 0, st>>>(
        static_cast<const T*>(g.data_ptr()), static_cast<T*>(out.data_ptr()),
        static_cast<const int64_t*>(rows.data_ptr()), static_cast<const int64_t*>(start.data_ptr()),
        static_cast<const int64_t*>(order.data_ptr()), nseg, D, padding_idx, scale_grad_by_freq);
    TL_CUDA_KERNEL_LAUNCH_CHECK("embedding_dense_backward");
  });
  return out;
}

}  // namespace
}  // namespace at::native::cuda_nn

TL_LIBRARY_IMPL(aten, CUDA, m) {
  using namespace at::native::cuda_nn;
  m.impl("embedding", TL_KERNEL(embedding_cuda));
  m.impl("embedding_dense_backward", TL_KERNEL(embedding_dense_backward_cuda));
}
