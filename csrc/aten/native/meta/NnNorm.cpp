// Meta kernels of the softmax family, layer/batch norm and embedding: the
// CPU kernels' checks (NnNorm.h) and result shapes/dtypes, no data.
#include "../NnNorm.h"
#include "ops/_log_softmax_backward_data.h"
#include "ops/_sdpa_fused.h"
#include "ops/_softmax_backward_data.h"
#include "ops/embedding.h"
#include "ops/embedding_dense_backward.h"
#include "ops/embedding_renorm.h"
#include "ops/log_softmax.h"
#include "ops/native_batch_norm.h"
#include "ops/native_layer_norm.h"
#include "ops/softmax.h"

namespace at::native {

TensorBase softmax_meta(const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  SoftmaxPlan plan = softmax_plan("softmax", self, dim, dtype);
  return make_empty(self.sizes(), self.options().with_dtype(plan.dtype));
}

TensorBase softmax_backward_data_meta(const TensorBase& grad_output, const TensorBase& output, int64_t dim,
                                      ScalarType input_dtype) {
  TL_CHECK(grad_output.sizes() == output.sizes(), "_softmax_backward_data: grad_output and output must have the same "
           "shape, got ", grad_output.sizes(), " and ", output.sizes());
  (void)maybe_wrap_dim(dim, output.dim());
  return make_empty(output.sizes(), output.options().with_dtype(input_dtype));
}

std::tuple<TensorBase, TensorBase, TensorBase> native_layer_norm_meta(const TensorBase& input,
                                                                      IntArrayRef normalized_shape,
                                                                      const std::optional<TensorBase>& weight,
                                                                      const std::optional<TensorBase>& bias,
                                                                      double eps) {
  (void)eps;
  layer_norm_plan(input, normalized_shape, weight, bias);
  DimVector ss = layer_norm_stat_shape(input, (int64_t)normalized_shape.size());
  TensorOptions so = input.options().with_dtype(stat_dtype(input.scalar_type()));
  return {make_empty(input.sizes(), input.options()), make_empty(ss, so), make_empty(ss, so)};
}

std::tuple<TensorBase, TensorBase, TensorBase> native_batch_norm_meta(
    const TensorBase& input, const std::optional<TensorBase>& weight, const std::optional<TensorBase>& bias,
    const std::optional<TensorBase>& running_mean, const std::optional<TensorBase>& running_var, bool training,
    double momentum, double eps) {
  (void)momentum;
  (void)eps;
  const int64_t C = batch_norm_check(input, weight, bias, running_mean, running_var, training);
  TensorOptions so = input.options().with_dtype(stat_dtype(input.scalar_type()));
  return {make_empty(input.sizes(), input.options()), make_empty(IntArrayRef{training ? C : 0}, so),
          make_empty(IntArrayRef{training ? C : 0}, so)};
}

TensorBase embedding_meta(const TensorBase& weight, const TensorBase& indices, int64_t padding_idx,
                          bool scale_grad_by_freq, bool sparse) {
  (void)padding_idx;
  (void)scale_grad_by_freq;
  (void)sparse;
  embedding_check(weight, indices);
  DimVector sizes(indices.sizes());
  sizes.push_back(weight.sizes()[1]);
  return make_empty(sizes, weight.options());
}

TensorBase embedding_dense_backward_meta(const TensorBase& grad_output, const TensorBase& indices,
                                         int64_t num_weights, int64_t padding_idx, bool scale_grad_by_freq) {
  (void)indices;
  (void)padding_idx;
  (void)scale_grad_by_freq;
  TL_CHECK(grad_output.dim() >= 1, "embedding_dense_backward: grad_output must have at least one dim");
  return make_empty(IntArrayRef{num_weights, grad_output.sizes()[grad_output.dim() - 1]}, grad_output.options());
}

TensorBase embedding_renorm_meta_(const TensorBase& self, const TensorBase& indices, double max_norm,
                                  double norm_type) {
  (void)max_norm;
  (void)norm_type;
  embedding_check(self, indices);
  self.bump_version();
  return self;
}

TensorBase sdpa_fused_meta(const TensorBase& query, const TensorBase& key, const TensorBase& value,
                           const std::optional<TensorBase>& attn_mask, bool is_causal, double scale) {
  (void)is_causal;
  (void)scale;
  sdpa_check(query, key, value, attn_mask);
  int64_t sz[3] = {query.sizes()[0], query.sizes()[1], value.sizes()[2]};
  return make_empty(IntArrayRef(sz, 3), query.options());
}

}  // namespace at::native
