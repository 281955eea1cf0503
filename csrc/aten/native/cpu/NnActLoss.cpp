// nll_loss forward and backward on CPU. cross_entropy is log_softmax followed
// by this, so it is the fused gather + weight + reduction step: one pass over
// the targets forward, one zero-fill + scatter pass backward.
#include <cstring>
#include <optional>
#include <tuple>

#include "../NnActLoss.h"
#include "aten/Parallel.h"
#include "c10/Exception.h"
#include "ops/contiguous.h"

namespace at::native {
namespace {

template <class scalar_t, class target_t>
void nll_forward_loop(const NllLossPlan& p, const scalar_t* x, const target_t* tgt, const scalar_t* w,
                      int64_t ignore_index, scalar_t* out_none, scalar_t* out_red, scalar_t* total_weight) {
  using acc_t = c10::opmath_t<scalar_t>;
  const int64_t positions = p.batch * p.spatial;
  if (p.reduction == LossReduction::None) {
    at::parallel_for(0, positions, 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const int64_t t = static_cast<int64_t>(tgt[i]);
        if (t == ignore_index) {
          out_none[i] = scalar_t(0);
          continue;
        }
        if (t < 0 || t >= p.classes) nll_target_out_of_bounds(t);
        const int64_t n = i / p.spatial, s = i % p.spatial;
        const acc_t wt = w ? static_cast<acc_t>(w[t]) : acc_t(1);
        out_none[i] = static_cast<scalar_t>(-wt * static_cast<acc_t>(x[nll_input_offset(n, t, s, p.classes, p.spatial)]));
      }
    });
    *total_weight = scalar_t(0);
    return;
  }
  // Sums in the op-math type, blocked so a long run of float32 terms does not
  // lose precision against one running total.
  acc_t loss = 0, weight_sum = 0;
  constexpr int64_t kBlock = 256;
  for (int64_t b = 0; b < positions; b += kBlock) {
    acc_t block_loss = 0, block_weight = 0;
    const int64_t e = b + kBlock < positions ? b + kBlock : positions;
    for (int64_t i = b; i < e; ++i) {
      const int64_t t = static_cast<int64_t>(tgt[i]);
      if (t == ignore_index) continue;
      if (t < 0 || t >= p.classes) nll_target_out_of_bounds(t);
      const int64_t n = i / p.spatial, s = i % p.spatial;
      const acc_t wt = w ? static_cast<acc_t>(w[t]) : acc_t(1);
      block_loss -= wt * static_cast<acc_t>(x[nll_input_offset(n, t, s, p.classes, p.spatial)]);
      block_weight += wt;
    }
    loss += block_loss;
    weight_sum += block_weight;
  }
  *total_weight = static_cast<scalar_t>(weight_sum);
  // mean over an all-ignored batch is 0/0 = nan, as in PyTorch.
  *out_red = static_cast<scalar_t>(p.reduction == LossReduction::Mean ? loss / weight_sum : loss);
}

template <class scalar_t, class target_t>
void nll_backward_loop(const NllLossPlan& p, const scalar_t* grad, bool grad_is_scalar, const target_t* tgt,
                       const scalar_t* w, int64_t ignore_index, scalar_t total_weight, scalar_t* gi) {
  using acc_t = c10::opmath_t<scalar_t>;
  const acc_t scale = p.reduction == LossReduction::Mean ? acc_t(1) / static_cast<acc_t>(total_weight) : acc_t(1);
  const int64_t row = p.classes * p.spatial;
  // One batch row at a time: zero it, then write its targets, so each row is
  // touched by one thread while it is in cache.
  at::parallel_for(0, p.batch, 16, [&](int64_t b, int64_t e) {
    std::memset(gi + b * row, 0, sizeof(scalar_t) * (size_t)((e - b) * row));
    for (int64_t n = b; n < e; ++n) {
      for (int64_t s = 0; s < p.spatial; ++s) {
        const int64_t i = n * p.spatial + s;
        const int64_t t = static_cast<int64_t>(tgt[i]);
        if (t == ignore_index) continue;
        if (t < 0 || t >= p.classes) nll_target_out_of_bounds(t);
        const acc_t wt = w ? static_cast<acc_t>(w[t]) : acc_t(1);
        const acc_t g = static_cast<acc_t>(grad[grad_is_scalar ? 0 : i]);
        gi[nll_input_offset(n, t, s, p.classes, p.spatial)] = static_cast<scalar_t>(-wt * g * scale);
      }
    }
  });
}

template <class F>
void dispatch_target(const TensorBase& target, const F& f) {
  if (target.scalar_type() == ScalarType::Byte) f(static_cast<const uint8_t*>(target.data_ptr()));
  else f(static_cast<const int64_t*>(target.data_ptr()));
}

}  // namespace

std::tuple<TensorBase, TensorBase> nll_loss_forward_cpu(const TensorBase& self, const TensorBase& target,
                                                        const std::optional<TensorBase>& weight_arg, int64_t reduction,
                                                        int64_t ignore_index) {
  const std::optional<TensorBase> weight = nll_weight(weight_arg);
  NllLossPlan p = nll_loss_plan(self, target, weight, reduction);
  TensorBase x = at::_ops::contiguous(self, MemoryFormat::Contiguous);
  TensorBase t = at::_ops::contiguous(target, MemoryFormat::Contiguous);
  std::optional<TensorBase> w;
  if (weight) w = at::_ops::contiguous(*weight, MemoryFormat::Contiguous);
  TensorBase out = p.reduction == LossReduction::None ? make_empty(p.target_sizes, self.options())
                                                      : make_empty({}, self.options());
  TensorBase total_weight = make_empty({}, self.options());
  TL_DISPATCH_FLOATING_TYPES(self.scalar_type(), "nll_loss_forward", [&] {
    dispatch_target(t, [&](auto* tgt) {
      nll_forward_loop<scalar_t>(p, x.data_ptr<scalar_t>(), tgt, w ? w->data_ptr<scalar_t>() : nullptr,
                                 ignore_index, p.reduction == LossReduction::None ? out.data_ptr<scalar_t>() : nullptr,
                                 out.data_ptr<scalar_t>(), total_weight.data_ptr<scalar_t>());
    });
  });
  return {out, total_weight};
}

TensorBase nll_loss_backward_cpu(const TensorBase& grad_output, const TensorBase& self, const TensorBase& target,
                                 const std::optional<TensorBase>& weight_arg, int64_t reduction, int64_t ignore_index,
                                 const TensorBase& total_weight) {
  const std::optional<TensorBase> weight = nll_weight(weight_arg);
  NllLossPlan p = nll_loss_plan(self, target, weight, reduction);
  const bool scalar_grad = p.reduction != LossReduction::None;
  TL_CHECK(scalar_grad ? grad_output.numel() == 1 : grad_output.numel() == target.numel(),
           "nll_loss_backward: grad_output has ", grad_output.numel(), " elements, expected ",
           scalar_grad ? (int64_t)1 : target.numel());
  TL_CHECK(grad_output.scalar_type() == self.scalar_type() && total_weight.scalar_type() == self.scalar_type(),
           "nll_loss_backward: grad_output and total_weight must have the input's dtype");
  TensorBase g = at::_ops::contiguous(grad_output, MemoryFormat::Contiguous);
  TensorBase t = at::_ops::contiguous(target, MemoryFormat::Contiguous);
  std::optional<TensorBase> w;
  if (weight) w = at::_ops::contiguous(*weight, MemoryFormat::Contiguous);
  TensorBase gi = make_empty(self.sizes(), self.options());
  if (gi.numel() == 0) return gi;
  TL_DISPATCH_FLOATING_TYPES(self.scalar_type(), "nll_loss_backward", [&] {
    const scalar_t tw = *static_cast<const scalar_t*>(total_weight.data_ptr());
    dispatch_target(t, [&](auto* tgt) {
      nll_backward_loop<scalar_t>(p, g.data_ptr<scalar_t>(), scalar_grad, tgt, w ? w->data_ptr<scalar_t>() : nullptr,
                                  ignore_index, tw, gi.data_ptr<scalar_t>());
    });
  });
  return gi;
}

}  // namespace at::native
