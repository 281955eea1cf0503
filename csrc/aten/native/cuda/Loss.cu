// nll_loss forward and backward on CUDA (cross_entropy is log_softmax and
// this). The reduced forward is one block: each thread sums a fixed stride of
// positions and the block folds the partial (loss, weight) pairs in a fixed
// tree, so the loss is the same on every run. The backward zero-fills the
// gradient and writes each position's one non-zero entry.
#include <optional>
#include <tuple>

#include "aten/native/NnActLoss.h"
#include "aten/native/cuda/NnCommon.cuh"
#include "c10/Library.h"
#include "ops/contiguous.h"
#include "ops/nll_loss_backward.h"
#include "ops/nll_loss_forward.h"

namespace at::native::cuda_nn {
namespace {

struct NllGeometry {
  int64_t positions, classes, spatial;
};

// The loss term of position i and its weight, or (0, 0) for an ignored or
// out-of-range target (the latter recorded in `bad`).
template <class T, class Tgt>
__device__ inline Pair<opmath<T>> nll_term(const T* x, const Tgt* tgt, const T* w, int64_t i, NllGeometry g,
                                           int64_t ignore_index, BadIndexFlag::Slot* bad) {
  using A = opmath<T>;
  const int64_t t = static_cast<int64_t>(tgt[i]);
  if (t == ignore_index) return Pair<A>{A(0), A(0)};
  if (t < 0 || t >= g.classes) {
    record_bad_index(bad, t);
    return Pair<A>{A(0), A(0)};
  }
  const int64_t n = i / g.spatial, s = i % g.spatial;
  const A wt = w ? static_cast<A>(w[t]) : A(1);
  return Pair<A>{-wt * static_cast<A>(x[nll_input_offset(n, t, s, g.classes, g.spatial)]), wt};
}

template <class T, class Tgt>
__global__ void nll_forward_none_kernel(const T* x, const Tgt* tgt, const T* w, T* out, NllGeometry g,
                                        int64_t ignore_index, BadIndexFlag::Slot* bad) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < g.positions;
       i += int64_t(gridDim.x) * blockDim.x)
    out[i] = static_cast<T>(nll_term(x, tgt, w, i, g, ignore_index, bad).a);
}

template <class T, class Tgt>
__global__ void nll_forward_reduce_kernel(const T* x, const Tgt* tgt, const T* w, T* out, T* total_weight,
                                          NllGeometry g, int64_t ignore_index, bool mean, BadIndexFlag::Slot* bad) {
  using A = opmath<T>;
  __shared__ Pair<A> shared[32];
  Pair<A> acc{A(0), A(0)};
  for (int64_t i = threadIdx.x; i < g.positions; i += blockDim.x) {
    const Pair<A> term = nll_term(x, tgt, w, i, g, ignore_index, bad);
    acc.a += term.a;
    acc.b += term.b;
  }
  acc = block_allreduce(acc, Pair<A>{A(0), A(0)}, shared, PairSumOp());
  if (threadIdx.x == 0) {
    *total_weight = static_cast<T>(acc.b);
    // mean over an all-ignored batch is 0/0 = nan, as in PyTorch.
    *out = static_cast<T>(mean ? acc.a / acc.b : acc.a);
  }
}

template <class F>
void dispatch_target(const TensorBase& target, const F& f) {
  if (target.scalar_type() == ScalarType::Byte) f(uint8_t());
  else f(int64_t());
}

std::tuple<TensorBase, TensorBase> nll_loss_forward_cuda(const TensorBase& self, const TensorBase& target,
                                                         const std::optional<TensorBase>& weight_arg,
                                                         int64_t reduction, int64_t ignore_index) {
  const std::optional<TensorBase> weight = nll_weight(weight_arg);
  NllLossPlan p = nll_loss_plan(self, target, weight, reduction);
  check_same_device("nll_loss_forward", self, target);
  if (weight) check_same_device("nll_loss_forward", self, *weight);
  TensorBase x = at::_ops::contiguous(self, MemoryFormat::Contiguous);
  TensorBase t = at::_ops::contiguous(target, MemoryFormat::Contiguous);
  TensorBase w = weight ? at::_ops::contiguous(*weight, MemoryFormat::Contiguous) : TensorBase();
  const bool none = p.reduction == LossReduction::None;
  TensorBase out = none ? make_empty(p.target_sizes, self.options()) : make_empty({}, self.options());
  TensorBase total_weight = make_empty({}, self.options());
  const NllGeometry g{p.batch * p.spatial, p.classes, p.spatial};
  cudaStream_t st = stream();
  BadIndexFlag bad(st);
  TL_DISPATCH_FLOATING_TYPES(self.scalar_type(), "nll_loss_forward", [&] {
    using T = scalar_t;
    const T* wp = w.defined() ? static_cast<const T*>(w.data_ptr()) : nullptr;
    dispatch_target(t, [&](auto ttag) {
      using Tgt = decltype(ttag);
      const Tgt* tp = static_cast<const Tgt*>(t.data_ptr());
      if (none) {
        TL_CUDA_CHECK(cudaMemsetAsync(total_weight.data_ptr(), 0, sizeof(T), st));
        if (g.positions > 0)
          nll_forward_none_kernel<T, Tgt><<<blocks_for(g.positions, 256), 256, 0, st>>>(
              static_cast<const T*>(x.data_ptr()), tp, wp, static_cast<T*>(out.data_ptr()), g, ignore_index,
              bad.dev);
      } else {
        nll_forward_reduce_kernel<T, Tgt><<<1, 1024, 0, st>>>(
            static_cast<const T*>(x.data_ptr()), tp, wp, static_cast<T*>(out.data_ptr()),
            static_cast<T*>(total_weight.data_ptr()), g, ignore_index, p.reduction == LossReduction::Mean, bad.dev);
      }
      TL_CUDA_KERNEL_LAUNCH_CHECK("nll_loss_forward");
    });
  });
  if (auto bad_target = bad.read()) nll_target_out_of_bounds(*bad_target);
  return {out, total_weight};
}

template <class T, class Tgt>
__global__ void nll_backward_kernel(const T* grad, bool grad_is_scalar, const Tgt* tgt, const T* w,
                                    const T* total_weight, bool mean, T* gi, NllGeometry g, int64_t ignore_index,
                                    BadIndexFlag::Slot* bad) {
  using A = opmath<T>;
  const A scale = mean ? A(1) / static_cast<A>(*total_weight) : A(1);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < g.positions;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t t = static_cast<int64_t>(tgt[i]);
    if (t == ignore_index) continue;
    if (t < 0 || t >= g.classes) {
      record_bad_index(bad, t);
      continue;
    }
    const int64_t n = i / g.spatial, s = i % g.spatial;
    const A wt = w ? static_cast<A>(w[t]) : A(1);
    const A gv = static_cast<A>(grad[grad_is_scalar ? 0 : i]);
    gi[nll_input_offset(n, t, s, g.classes, g.spatial)] = static_cast<T>(-wt * gv * scale);
  }
}

TensorBase nll_loss_backward_cuda(const TensorBase& grad_output, const TensorBase& self, const TensorBase& target,
                                  const std::optional<TensorBase>& weight_arg, int64_t reduction, int64_t ignore_index,
                                  const TensorBase& total_weight) {
  const std::optional<TensorBase> weight = nll_weight(weight_arg);
  NllLossPlan p = nll_loss_plan(self, target, weight, reduction);
  const bool scalar_grad = p.reduction != LossReduction::None;
  TL_CHECK(scalar_grad ? grad_output.numel() == 1 : grad_output.numel() == target.numel(),
           "nll_loss_backward: grad_output has ", grad_output.numel(), " elements, expected ",
           scalar_grad ? int64_t(1) : target.numel());
  TL_CHECK(grad_output.scalar_type() == self.scalar_type() && total_weight.scalar_type() == self.scalar_type(),
           "nll_loss_backward: grad_output and total_weight must have the input's dtype");
  check_same_device("nll_loss_backward", self, grad_output);
  check_same_device("nll_loss_backward", self, target);
  check_same_device("nll_loss_backward", self, total_weight);
  TensorBase gr = at::_ops::contiguous(grad_output, MemoryFormat::Contiguous);
  TensorBase t = at::_ops::contiguous(target, MemoryFormat::Contiguous);
  TensorBase w = weight ? at::_ops::contiguous(*weight, MemoryFormat::Contiguous) : TensorBase();
  TensorBase gi = make_empty(self.sizes(), self.options());
  if (gi.numel() == 0) return gi;
  cudaStream_t st = stream();
  TL_CUDA_CHECK(cudaMemsetAsync(gi.data_ptr(), 0, size_t(gi.numel()) * gi.itemsize(), st));
  const NllGeometry g{p.batch * p.spatial, p.classes, p.spatial};
  if (g.positions == 0) return gi;
  BadIndexFlag bad(st);
  TL_DISPATCH_FLOATING_TYPES(self.scalar_type(), "nll_loss_backward", [&] {
    using T = scalar_t;
    dispatch_target(t, [&](auto ttag) {
      using Tgt = decltype(ttag);
      nll_backward_kernel<T, Tgt><<<blocks_for(g.positions, 256), 256, 0, st>>>(
          static_cast<const T*>(gr.data_ptr()), scalar_grad, static_cast<const Tgt*>(t.data_ptr()),
          w.defined() ? static_cast<const T*>(w.data_ptr()) : nullptr,
          static_cast<const T*>(total_weight.data_ptr()), p.reduction == LossReduction::Mean,
          static_cast<T*>(gi.data_ptr()), g, ignore_index, bad.dev);
      TL_CUDA_KERNEL_LAUNCH_CHECK("nll_loss_backward");
    });
  });
  if (auto bad_target = bad.read()) nll_target_out_of_bounds(*bad_target);
  return gi;
}

}  // namespace
}  // namespace at::native::cuda_nn

TL_LIBRARY_IMPL(aten, CUDA, m) {
  using namespace at::native::cuda_nn;
  m.impl("nll_loss_forward", TL_KERNEL(nll_loss_forward_cuda));
  m.impl("nll_loss_backward", TL_KERNEL(nll_loss_backward_cuda));
}
