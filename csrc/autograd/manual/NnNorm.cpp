// Backward helpers of the NnNorm area (declared in NnNorm.h), called by the
// generated autograd nodes of softmax/log_softmax's backward ops,
// native_layer_norm and native_batch_norm.
#include "NnNorm.h"

#include <array>
#include "aten/native/NnNorm.h"
#include <cmath>
#include <limits>
#include <optional>
#include "ops/_native_batch_norm_backward.h"
#include "ops/_native_layer_norm_backward.h"
#include "ops/_softmax_backward_data.h"
#include "ops/bmm.h"
#include "ops/exp.h"
#include "ops/softmax.h"
#include "ops/sum.h"
#include "ops/transpose.h"
#include "ops/where.h"

namespace torchlike::autograd::generated {

namespace {

// One fused backward kernel yields the input, weight and bias gradients
// together, but the generated node asks for them through three separate
// formulas (one per input). The first formula of a node's apply() runs the
// kernel for every gradient the node needs and parks the ones it did not
// return here; the following formulas of the same apply() (same thread, same
// grad tensor) take theirs. A request that finds nothing parked for it (a
// different grad, another node) recomputes, so the cache is an optimisation
// only, never a source of a wrong answer. The key tensors are held, not just
// their addresses, so a parked entry can never match a new tensor that
// happens to reuse a freed one's address.
struct PartCache {
  at::TensorBase grad, input;
  std::array<at::TensorBase, 3> parts;
  std::array<bool, 3> pending{false, false, false};
  void clear() {
    grad = input = at::TensorBase();
    parts = {};
    pending = {false, false, false};
  }
};
thread_local PartCache cache;

template <class F>
at::TensorBase take_part(int which, const at::TensorBase& grad, const at::TensorBase& input,
                         std::array<bool, 3> mask, const F& run) {
  if (!grad.defined()) return at::TensorBase();
  if (cache.pending[which] && cache.grad.is_same(grad) && cache.input.is_same(input)) {
    at::TensorBase r = cache.parts[which];
    cache.parts[which] = at::TensorBase();
    cache.pending[which] = false;
    if (!cache.pending[0] && !cache.pending[1] && !cache.pending[2]) cache.clear();
    return r;
  }
  cache.clear();
  auto [a, b, c] = run(mask);
  std::array<at::TensorBase, 3> all{a, b, c};
  cache.grad = grad;
  cache.input = input;
  for (int i = 0; i < 3; ++i) {
    if (i != which && mask[i]) {
      cache.parts[i] = all[i];
      cache.pending[i] = true;
    }
  }
  if (!cache.pending[0] && !cache.pending[1] && !cache.pending[2]) cache.clear();
  return all[which];
}

std::optional<at::TensorBase> opt_tensor(const at::TensorBase& t) {
  return t.defined() ? std::optional<at::TensorBase>(t) : std::nullopt;
}

}  // namespace

at::TensorBase layer_norm_backward_part(int which, const at::TensorBase& grad, const at::TensorBase& input,
                                        at::IntArrayRef normalized_shape, const at::TensorBase& mean,
                                        const at::TensorBase& rstd, const at::TensorBase& weight, bool need_input,
                                        bool need_weight, bool need_bias) {
  return take_part(which, grad, input, {need_input, need_weight, need_bias}, [&](std::array<bool, 3> mask) {
    if (!input.is_cpu())  // another device's kernel, through the dispatcher
      return at::_ops::_native_layer_norm_backward(grad, input, normalized_shape, mean, rstd, opt_tensor(weight),
                                                   std::nullopt, mask[0], mask[1], mask[2]);
    return at::native::layer_norm_backward_cpu(grad, input, normalized_shape, mean, rstd, weight, mask);
  });
}

at::TensorBase batch_norm_backward_part(int which, const at::TensorBase& grad, const at::TensorBase& input,
                                        const at::TensorBase& weight, const at::TensorBase& running_mean,
                                        const at::TensorBase& running_var, const at::TensorBase& save_mean,
                                        const at::TensorBase& save_invstd, bool training, double eps,
                                        bool need_input, bool need_weight, bool need_bias) {
  return take_part(which, grad, input, {need_input, need_weight, need_bias}, [&](std::array<bool, 3> mask) {
    if (!input.is_cpu())
      return at::_ops::_native_batch_norm_backward(grad, input, opt_tensor(weight), opt_tensor(running_mean),
                                                   opt_tensor(running_var), opt_tensor(save_mean),
                                                   opt_tensor(save_invstd), training, eps, mask[0], mask[1], mask[2]);
    return at::native::batch_norm_backward_cpu(grad, input, weight, running_mean, running_var, save_mean,
                                               save_invstd, training, eps, mask);
  });
}

// _sdpa_fused's backward, by recomputing the attention probabilities with
// differentiable ops (so create_graph works): P = softmax(scale Q K^T + mask),
// dV = P^T dO, dS = softmax_backward(dO V^T, P), dQ = scale dS K, dK = scale dS^T Q.
at::TensorBase sdpa_backward_part(int which, const at::TensorBase& grad, const at::TensorBase& query,
                                  const at::TensorBase& key, const at::TensorBase& value,
                                  const at::TensorBase& attn_mask, bool is_causal, double scale, bool need_query,
                                  bool need_key, bool need_value) {
  return take_part(which, grad, query, {need_query, need_key, need_value}, [&](std::array<bool, 3> mask) {
    at::TensorBase scores = at::_ops::bmm(query * scale, at::_ops::transpose(key, 1, 2));
    const double ninf = -std::numeric_limits<double>::infinity();
    at::TensorBase neg = c10::scalar_to_tensor(ninf, scores.scalar_type(), scores.device());
    if (is_causal) {
      const int64_t L = query.sizes()[1], S = key.sizes()[1];
      int64_t sz[2] = {L, S};
      at::TensorBase keep = c10::make_empty(at::IntArrayRef(sz, 2), at::TensorOptions(at::kBool, query.device()));
      bool* p = keep.data_ptr<bool>();
      for (int64_t i = 0; i < L; ++i)
        for (int64_t j = 0; j < S; ++j) p[i * S + j] = j <= i;
      scores = at::_ops::where(keep, scores, neg);
    } else if (attn_mask.defined()) {
      scores = attn_mask.scalar_type() == at::kBool ? at::_ops::where(attn_mask, scores, neg) : scores + attn_mask;
    }
    at::TensorBase probs = at::_ops::softmax(scores, -1, std::nullopt);
    at::TensorBase dq, dk, dv;
    if (mask[2]) dv = at::_ops::bmm(at::_ops::transpose(probs, 1, 2), grad);
    if (mask[0] || mask[1]) {
      at::TensorBase dp = at::_ops::bmm(grad, at::_ops::transpose(value, 1, 2));
      at::TensorBase ds = at::_ops::_softmax_backward_data(dp, probs, -1, probs.scalar_type());
      if (mask[0]) dq = at::_ops::bmm(ds, key) * scale;
      if (mask[1]) dk = at::_ops::bmm(at::_ops::transpose(ds, 1, 2), query) * scale;
    }
    return std::make_tuple(dq, dk, dv);
  });
}

// Second derivatives of the softmax backward ops (gi = y * (g - sum(g*y)) and
// gi = g - exp(y) * sum(g)), with respect to their grad_output and output.
at::TensorBase softmax_double_backward_output(const at::TensorBase& grad, const at::TensorBase& grad_output,
                                              const at::TensorBase& output, int64_t dim) {
  int64_t d[1] = {dim};
  at::TensorBase s = at::_ops::sum(grad_output * output, at::IntArrayRef(d, 1), true, std::nullopt);
  at::TensorBase t = at::_ops::sum(grad * output, at::IntArrayRef(d, 1), true, std::nullopt);
  return grad * (grad_output - s) - grad_output * t;
}

at::TensorBase log_softmax_double_backward_grad(const at::TensorBase& grad, const at::TensorBase& output,
                                                int64_t dim) {
  int64_t d[1] = {dim};
  return grad - at::_ops::sum(grad * at::_ops::exp(output), at::IntArrayRef(d, 1), true, std::nullopt);
}

at::TensorBase log_softmax_double_backward_output(const at::TensorBase& grad, const at::TensorBase& grad_output,
                                                  const at::TensorBase& output, int64_t dim) {
  int64_t d[1] = {dim};
  return -(grad * at::_ops::exp(output) * at::_ops::sum(grad_output, at::IntArrayRef(d, 1), true, std::nullopt));
}

}  // namespace torchlike::autograd::generated
