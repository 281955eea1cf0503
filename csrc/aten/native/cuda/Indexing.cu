// Advanced indexing on CUDA: index.Tensor (x[i0, i1, ...]) and index_put_
// (x[i0, ...] = v, or += with accumulate=True), over Indexing.h's IndexPlan:
// the result is [pre dims][index block][post dims], and element (p, b, q)
// of it is self's element pre(p) + off[b] + post(q).
//
// off[b] (the index block's offset into self) is built by one launch per
// indexed dim, each checking its indices. Masks become long indices through
// nonzero on the host (expand_index_masks), and index tensors on the CPU are
// moved to self's device, as PyTorch accepts both.
//
// index_put_ with accumulate=True must add repeated indices together.
// Instead of atomics (whose float sums change from run to run) the block
// positions are grouped by their offset on the host (a stable sort, so each
// group keeps index order) and one thread per (p, group, q) adds its group's
// values in that order: deterministic whatever torchlike's
// use_deterministic_algorithms says, so nothing needs to alert.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "aten/MemoryOverlap.h"
#include "aten/native/Indexing.h"
#include "aten/native/ScatterGather.h"
#include "aten/native/cuda/NnCommon.cuh"
#include "c10/Library.h"
#include "ops/_to_copy.h"
#include "ops/clone.h"
#include "ops/contiguous.h"
#include "ops/copy.h"
#include "ops/expand.h"
#include "ops/index.h"
#include "ops/index_put.h"

namespace at::native::cuda_nn {
namespace {

constexpr int kMaxIndexDims = 25;

// A strided shape for device-side decoding (Indexing.h's linear_to_offset).
struct Strided {
  int64_t ndim = 0;
  int64_t sizes[kMaxIndexDims] = {};
  int64_t strides[kMaxIndexDims] = {};
};
Strided strided_of(IntArrayRef sizes, IntArrayRef strides) {
  TL_CHECK(int64_t(sizes.size()) <= kMaxIndexDims, "index: at most ", kMaxIndexDims, " dims are supported on CUDA");
  Strided s;
  s.ndim = int64_t(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) {
    s.sizes[d] = sizes[d];
    s.strides[d] = strides[d];
  }
  return s;
}
__device__ inline int64_t offset_of(const Strided& s, int64_t linear) {
  return s.ndim == 0 ? 0 : linear_to_offset(linear, s.sizes, s.strides, s.ndim);
}

int64_t product(IntArrayRef s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
}

// off[b] += wrap(index[b]) * stride for one indexed dim; a bad index is
// recorded and contributes nothing.
__global__ void add_dim_offsets_kernel(const int64_t* index, int64_t nb, int64_t size, int64_t stride, int64_t* off,
                                       BadIndexFlag::Slot* bad) {
  for (int64_t b = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; b < nb; b += int64_t(gridDim.x) * blockDim.x) {
    const int64_t v = index[b];
    if (!index_in_range(v, size)) {
      record_bad_index(bad, v);
      continue;
    }
    off[b] += wrap_index(v, size) * stride;
  }
}

// The index block's offsets into self, on self's device (nb of them), every
// index checked: IndexError "index v is out of bounds for dimension d with size s".
TensorBase block_offsets(const TensorBase& self, const IndexPlan& plan) {
  const int64_t nb = product(plan.index_shape);
  TensorBase off = make_empty(IntArrayRef{nb}, self.options().with_dtype(ScalarType::Long));
  if (nb == 0) return off;
  cudaStream_t st = stream();
  TL_CUDA_CHECK(cudaMemsetAsync(off.data_ptr(), 0, size_t(nb) * sizeof(int64_t), st));
  for (int64_t d = 0; d < int64_t(plan.indices.size()); ++d) {
    const TensorBase& ix = plan.indices[d];
    if (!ix.defined()) continue;
    // Materialised as contiguous int64 in the block's shape on self's device.
    TensorBase idx = ix.scalar_type() == ScalarType::Long ? ix : at::_ops::_to_copy(ix, ScalarType::Long);
    if (idx.device() != self.device()) idx = at::_ops::_to_copy(idx, std::nullopt, std::nullopt, self.device());
    idx = at::_ops::contiguous(at::_ops::expand(idx, plan.index_shape));
    const int64_t size = self.sizes()[d];
    BadIndexFlag bad(st);
    add_dim_offsets_kernel<<<blocks_for(nb, 256), 256, 0, st>>>(static_cast<const int64_t*>(idx.data_ptr()), nb, size,
                                                               self.strides()[d],
                                                               static_cast<int64_t*>(off.data_ptr()), bad.dev);
    TL_CUDA_KERNEL_LAUNCH_CHECK("index");
    if (auto v = bad.read())
      TL_CHECK_INDEX(false, "index ", *v, " is out of bounds for dimension ", d, " with size ", size);
  }
  return off;
}

// Masks expand through nonzero, run on the host: a mask (on the CPU or on
// self's device) goes to the CPU, and expand_index_masks checks it against a
// CPU stand-in with self's shape (it reads sizes only; stride 0, so it holds
// one element). The long indices it makes move to the device with the rest.
IndexPlan plan_for(const TensorBase& self, TensorBaseList indices, const char* op) {
  bool any_mask = false;
  for (const TensorBase& t : indices)
    any_mask = any_mask || (t.defined() && (t.scalar_type() == ScalarType::Bool || t.scalar_type() == ScalarType::Byte));
  if (!any_mask) return make_index_plan(self, expand_index_masks(self, indices, op));
  std::vector<TensorBase> host(indices.begin(), indices.end());
  for (TensorBase& t : host) {
    const bool mask = t.defined() && (t.scalar_type() == ScalarType::Bool || t.scalar_type() == ScalarType::Byte);
    if (!mask) continue;
    TL_CHECK(t.is_cpu() || t.device() == self.device(), op,
             "(): indices should be on the same device as the indexed tensor (", self.device().str(), ") or on the CPU, got ",
             t.device().str());
    if (!t.is_cpu()) t = at::_ops::_to_copy(t, std::nullopt, std::nullopt, Device(DeviceType::CPU));
  }
  const DimVector zero_strides(self.sizes().size(), 0);
  const TensorBase stand_in = make_empty_strided(self.sizes(), zero_strides, TensorOptions(self.scalar_type()));
  return make_index_plan(self, expand_index_masks(stand_in, TensorBaseList(host.data(), host.size()), op));
}

// ---------------------------------------------------------------- index

template <class W>
__global__ void index_gather_kernel(const W* self, W* out, const int64_t* off, int64_t nb, int64_t Q, Strided pre,
                                    Strided post, int64_t total) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t q = e % Q, pb = e / Q, b = pb % nb, p = pb / nb;
    out[e] = self[offset_of(pre, p) + off[b] + offset_of(post, q)];
  }
}

template <class F>
void dispatch_word_size(int64_t itemsize, const F& f) {
  switch (itemsize) {
    case 1: f(uint8_t()); break;
    case 2: f(uint16_t()); break;
    case 4: f(uint32_t()); break;
    case 8: f(uint64_t()); break;
    default: TL_CHECK(false, "index: unsupported element size ", itemsize);
  }
}

TensorBase index_cuda(const TensorBase& self, TensorBaseList indices) {
  IndexPlan plan = plan_for(self, indices, "index");
  TensorBase off = block_offsets(self, plan);
  TensorBase out = make_empty(plan.result_sizes, self.options());
  const int64_t total = out.numel();
  if (total == 0) return out;
  const int64_t nb = off.numel(), Q = product(plan.post_sizes);
  const Strided pre = strided_of(plan.pre_sizes, plan.pre_strides), post = strided_of(plan.post_sizes, plan.post_strides);
  cudaStream_t st = stream();
  dispatch_word_size(self.itemsize(), [&](auto tag) {
    using W = decltype(tag);
    index_gather_kernel<W><<<blocks_for(total, 256), 256, 0, st>>>(
        static_cast<const W*>(self.data_ptr()), static_cast<W*>(out.data_ptr()),
        static_cast<const int64_t*>(off.data_ptr()), nb, Q, pre, post, total);
    TL_CUDA_KERNEL_LAUNCH_CHECK("index");
  });
  return out;
}

// ---------------------------------------------------------------- index_put_

template <class W>
__global__ void index_assign_kernel(W* self, const W* values, Strided vshape, const int64_t* off, int64_t nb,
                                    int64_t Q, Strided pre, Strided post, int64_t total) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t q = e % Q, pb = e / Q, b = pb % nb, p = pb / nb;
    self[offset_of(pre, p) + off[b] + offset_of(post, q)] = values[offset_of(vshape, e)];
  }
}

// One thread per (p, group, q): self += the group's values in index order.
template <class T>
__global__ void index_accumulate_kernel(T* self, const T* values, Strided vshape, const int64_t* group_off,
                                        const int64_t* group_start, const int64_t* order, int64_t ngroups,
                                        int64_t nb, int64_t Q, Strided pre, Strided post, int64_t total) {
  using Acc = scatter_acc_t<T>;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t q = e % Q, pg = e / Q, g = pg % ngroups, p = pg / ngroups;
    T* dst = self + offset_of(pre, p) + group_off[g] + offset_of(post, q);
    Acc acc = static_cast<Acc>(*dst);
    for (int64_t k = group_start[g]; k < group_start[g + 1]; ++k) {
      const int64_t b = order[k];
      scatter_combine(ScatterOp::Sum, acc, static_cast<Acc>(values[offset_of(vshape, (p * nb + b) * Q + q)]));
    }
    *dst = static_cast<T>(acc);
  }
}

// Host vector -> int64 tensor on `device`.
TensorBase upload(const std::vector<int64_t>& v, Device device) {
  TensorBase host = make_empty(IntArrayRef{int64_t(v.size())}, TensorOptions(ScalarType::Long));
  if (!v.empty()) std::memcpy(host.data_ptr(), v.data(), v.size() * sizeof(int64_t));
  TensorBase dev = make_empty(IntArrayRef{int64_t(v.size())}, TensorOptions(ScalarType::Long, device));
  at::_ops::copy_(dev, host, false);
  return dev;
}

TensorBase index_put_cuda_(const TensorBase& self, TensorBaseList indices, const TensorBase& values, bool accumulate) {
  TL_CHECK(self.scalar_type() == values.scalar_type(), "Index put requires the source and destination dtypes match, got ",
           c10::toString(self.scalar_type()), " for the destination and ", c10::toString(values.scalar_type()),
           " for the source.");
  TL_CHECK(values.device() == self.device(), "index_put_(): values must be on ", self.device().str(), ", got ",
           values.device().str());
  at::assert_no_internal_overlap(self, "index_put_");
  IndexPlan plan = plan_for(self, indices, "index_put_");
  check_index_put_values(plan, values);
  TensorBase off = block_offsets(self, plan);  // every index checked before anything is written
  TensorBase v = values;
  if (at::overlap_status(self, values) != MemOverlap::No) v = at::_ops::clone(values);
  v = at::_ops::expand(v, plan.result_sizes);
  const int64_t total = product(plan.result_sizes);
  self.bump_version();
  if (total == 0) return self;
  const int64_t nb = off.numel(), P = product(plan.pre_sizes), Q = product(plan.post_sizes);
  const Strided pre = strided_of(plan.pre_sizes, plan.pre_strides), post = strided_of(plan.post_sizes, plan.post_strides);
  const Strided vshape = strided_of(v.sizes(), v.strides());
  cudaStream_t st = stream();
  if (!accumulate) {
    // Repeated indices race with no defined winner, as in PyTorch.
    dispatch_word_size(self.itemsize(), [&](auto tag) {
      using W = decltype(tag);
      index_assign_kernel<W><<<blocks_for(total, 256), 256, 0, st>>>(
          static_cast<W*>(self.data_ptr()), static_cast<const W*>(v.data_ptr()), vshape,
          static_cast<const int64_t*>(off.data_ptr()), nb, Q, pre, post, total);
      TL_CUDA_KERNEL_LAUNCH_CHECK("index_put_");
    });
    return self;
  }
  // Group the block positions by offset on the host (stable: index order kept).
  TensorBase off_host = make_empty(IntArrayRef{nb}, TensorOptions(ScalarType::Long));
  at::_ops::copy_(off_host, off, false);
  const int64_t* oh = static_cast<const int64_t*>(off_host.data_ptr());
  std::vector<int64_t> order(static_cast<size_t>(nb));
  std::iota(order.begin(), order.end(), int64_t(0));
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return oh[a] < oh[b]; });
  std::vector<int64_t> group_off, group_start;
  for (int64_t k = 0; k < nb; ++k) {
    if (k == 0 || oh[order[size_t(k)]] != oh[order[size_t(k - 1)]]) {
      group_off.push_back(oh[order[size_t(k)]]);
      group_start.push_back(k);
    }
  }
  group_start.push_back(nb);
  const int64_t ngroups = int64_t(group_off.size());
  TensorBase g_off = upload(group_off, self.device()), g_start = upload(group_start, self.device()),
             g_order = upload(order, self.device());
  const int64_t work = P * ngroups * Q;
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), "index_put_", [&] {
    index_accumulate_kernel<scalar_t><<<blocks_for(work, 256), 256, 0, st>>>(
        static_cast<scalar_t*>(self.data_ptr()), static_cast<const scalar_t*>(v.data_ptr()), vshape,
        static_cast<const int64_t*>(g_off.data_ptr()), static_cast<const int64_t*>(g_start.data_ptr()),
        static_cast<const int64_t*>(g_order.data_ptr()), ngroups, nb, Q, pre, post, work);
    TL_CUDA_KERNEL_LAUNCH_CHECK("index_put_");
  });
  return self;
}

}  // namespace
}  // namespace at::native::cuda_nn

TL_LIBRARY_IMPL(aten, CUDA, m) {
  using namespace at::native::cuda_nn;
  m.impl("index.Tensor", TL_KERNEL(index_cuda));
  m.impl("index_put_", TL_KERNEL(index_put_cuda_));
}
