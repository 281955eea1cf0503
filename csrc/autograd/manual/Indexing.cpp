// Backward helpers for the Indexing area. Each is written with dispatcher ops,
// so under create_graph the backward itself records a graph (double backward).
#include "autograd/manual/Indexing.h"

#include "ops/cat.h"
#include "ops/index.h"
#include "ops/index_put.h"
#include "ops/logical_not.h"
#include "ops/masked_fill.h"
#include "ops/masked_scatter.h"
#include "ops/masked_select.h"
#include "ops/put.h"
#include "ops/reshape.h"
#include "ops/sum.h"
#include "ops/take.h"
#include "ops/zeros.h"
#include "ops/zeros_like.h"

namespace torchlike::autograd::generated {

static at::TensorBase zeros_for(at::IntArrayRef sizes, const at::TensorBase& like) {
  return at::_ops::zeros(sizes, like.scalar_type(), std::nullopt, like.device(), std::nullopt);
}

at::TensorBase index_backward(const at::TensorBase& grad, at::IntArrayRef self_sizes,
                              const std::vector<at::TensorBase>& indices) {
  // In place on a fresh buffer (no clone); still recorded under create_graph.
  return at::_ops::index_put_(zeros_for(self_sizes, grad), indices, grad, /*accumulate=*/true);
}

at::TensorBase index_put_self_backward(const at::TensorBase& grad, const std::vector<at::TensorBase>& indices,
                                       bool accumulate) {
  if (accumulate) return grad;
  // Overwritten positions contributed nothing to the result.
  return at::_ops::index_put(grad, indices, zeros_for({}, grad), false);
}

at::TensorBase index_put_values_backward(const at::TensorBase& grad, const std::vector<at::TensorBase>& indices) {
  return at::_ops::index(grad, indices);
}

at::TensorBase masked_fill_value_backward(const at::TensorBase& grad, const at::TensorBase& mask) {
  return at::_ops::sum(at::_ops::masked_fill(grad, at::_ops::logical_not(mask), c10::Scalar(0)));
}

at::TensorBase masked_select_backward(const at::TensorBase& grad, const at::TensorBase& self, const at::TensorBase& mask) {
  // Scattered into the broadcast shape; the engine sums it down to self's.
  at::TensorBase z = at::_ops::zeros_like(at::_ops::masked_fill(self, mask, c10::Scalar(0)), grad.scalar_type());
  return at::_ops::masked_scatter(z, mask, grad);
}

at::TensorBase masked_scatter_source_backward(const at::TensorBase& grad, const at::TensorBase& mask,
                                              at::IntArrayRef source_sizes) {
  int64_t numel = 1;
  for (int64_t s : source_sizes) numel *= s;
  at::TensorBase used = at::_ops::masked_select(grad, mask);
  const int64_t rest = numel - used.numel();
  if (rest > 0) {
    std::vector<at::TensorBase> parts{used, zeros_for(at::DimVector{rest}, grad)};
    used = at::_ops::cat(parts, 0);
  }
  return at::_ops::reshape(used, source_sizes);
}

at::TensorBase take_backward(const at::TensorBase& grad, at::IntArrayRef self_sizes, const at::TensorBase& index) {
  return at::_ops::put_(zeros_for(self_sizes, grad), index, grad, /*accumulate=*/true);
}

at::TensorBase put_self_backward(const at::TensorBase& grad, const at::TensorBase& index, bool accumulate) {
  if (accumulate) return grad;
  return at::_ops::put(grad, index, zeros_for(index.sizes(), grad), false);
}

at::TensorBase put_source_backward(const at::TensorBase& grad, const at::TensorBase& index,
                                   at::IntArrayRef source_sizes) {
  return at::_ops::reshape(at::_ops::take(grad, index), source_sizes);
}

}  // namespace torchlike::autograd::generated
