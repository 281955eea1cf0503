// Checks and shapes shared by the CPU and Meta kernels of the softmax family,
// layer_norm, batch_norm and embedding (declared in NnNorm.h).
#include "NnNorm.h"

namespace at::native {

SoftmaxPlan softmax_plan(const char* op, const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  int64_t d = maybe_wrap_dim(dim, self.dim());
  ScalarType t = dtype.value_or(self.scalar_type());
  TL_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(t), "\"", op, "\" not implemented for '", c10::toString(t),
                           "' (pass a floating dtype= to convert the input)");
  return {d, t};
}

RowGeometry row_geometry(IntArrayRef sizes, int64_t dim) {
  RowGeometry g;
  const int64_t nd = (int64_t)sizes.size();
  if (nd == 0) return g;
  for (int64_t i = 0; i < dim; ++i) g.outer *= sizes[i];
  g.size = sizes[dim];
  for (int64_t i = dim + 1; i < nd; ++i) g.inner *= sizes[i];
  return g;
}

std::pair<int64_t, int64_t> layer_norm_plan(const TensorBase& input, IntArrayRef normalized_shape,
                                            const std::optional<TensorBase>& weight,
                                            const std::optional<TensorBase>& bias) {
  const int64_t k = (int64_t)normalized_shape.size(), nd = input.dim();
  TL_CHECK(k >= 1, "layer_norm: Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
           "element, but got normalized_shape = ", normalized_shape);
  TL_CHECK(c10::isFloatingType(input.scalar_type()), "layer_norm: expected a floating point input, got ",
           input.scalar_type());
  auto shape_ok = nd >= k && input.sizes().slice(nd - k) == normalized_shape;
  TL_CHECK(shape_ok, "layer_norm: Given normalized_shape=", normalized_shape, ", expected input with shape [*, ",
           normalized_shape, "], but got input of size", input.sizes());
  if (weight && weight->defined())
    TL_CHECK(weight->sizes() == normalized_shape, "layer_norm: Expected weight to be of same shape as "
             "normalized_shape, but got weight of shape ", weight->sizes(), " and normalized_shape = ", normalized_shape);
  if (bias && bias->defined())
    TL_CHECK(bias->sizes() == normalized_shape, "layer_norm: Expected bias to be of same shape as normalized_shape, "
             "but got bias of shape ", bias->sizes(), " and normalized_shape = ", normalized_shape);
  int64_t M = 1, N = 1;
  for (int64_t i = 0; i < nd - k; ++i) M *= input.sizes()[i];
  for (int64_t i = nd - k; i < nd; ++i) N *= input.sizes()[i];
  return {M, N};
}

DimVector layer_norm_stat_shape(const TensorBase& input, int64_t normalized_ndim) {
  DimVector s(input.sizes());
  for (int64_t i = input.dim() - normalized_ndim; i < input.dim(); ++i) s[i] = 1;
  return s;
}

int64_t batch_norm_check(const TensorBase& input, const std::optional<TensorBase>& weight,
                         const std::optional<TensorBase>& bias, const std::optional<TensorBase>& running_mean,
                         const std::optional<TensorBase>& running_var, bool training) {
  TL_CHECK(input.dim() >= 2, "batch_norm: expected input with at least 2 dims (N, C, ...), got ", input.dim(), "D");
  TL_CHECK(c10::isFloatingType(input.scalar_type()), "batch_norm: expected a floating point input, got ",
           input.scalar_type());
  const int64_t C = input.sizes()[1];
  auto check = [&](const std::optional<TensorBase>& t, const char* name) {
    if (!t || !t->defined()) return;
    TL_CHECK(t->numel() == C && t->dim() == 1, "batch_norm: ", name, " should contain ", C, " elements not ",
             t->numel());
    TL_CHECK(c10::isFloatingType(t->scalar_type()), "batch_norm: ", name, " must be floating point, got ",
             t->scalar_type());
  };
  check(weight, "weight");
  check(bias, "bias");
  check(running_mean, "running_mean");
  check(running_var, "running_var");
  if (!training) {
    TL_CHECK(running_mean && running_mean->defined() && running_var && running_var->defined(),
             "batch_norm: running_mean and running_var must be defined in evaluation mode");
  }
  return C;
}

void embedding_check(const TensorBase& weight, const TensorBase& indices) {
  TL_CHECK(weight.dim() == 2, "embedding: 'weight' must be 2-D, got ", weight.dim(), "-D");
  TL_CHECK(indices.scalar_type() == ScalarType::Long || indices.scalar_type() == ScalarType::Int,
           "embedding: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
           "Int; but got ", indices.scalar_type(), " instead");
}

void sdpa_check(const TensorBase& q, const TensorBase& k, const TensorBase& v, const std::optional<TensorBase>& mask) {
  TL_CHECK(q.dim() == 3 && k.dim() == 3 && v.dim() == 3, "_sdpa_fused: expected 3-D query, key and value, got ",
           q.dim(), "-D, ", k.dim(), "-D and ", v.dim(), "-D");
  TL_CHECK(q.scalar_type() == k.scalar_type() && q.scalar_type() == v.scalar_type(),
           "Expected query, key, and value to have the same dtype, but got query.dtype: ", q.scalar_type(),
           " key.dtype: ", k.scalar_type(), " and value.dtype: ", v.scalar_type(), " instead.");
  TL_CHECK(c10::isFloatingType(q.scalar_type()), "_sdpa_fused: expected floating point inputs, got ", q.scalar_type());
  const int64_t n = q.sizes()[0];
  TL_CHECK(k.sizes()[0] == n && v.sizes()[0] == n, "_sdpa_fused: batch sizes differ: ", q.sizes(), ", ", k.sizes(),
           ", ", v.sizes());
  TL_CHECK(k.sizes()[2] == q.sizes()[2], "_sdpa_fused: query and key must have the same embedding size, got ",
           q.sizes()[2], " and ", k.sizes()[2]);
  TL_CHECK(v.sizes()[1] == k.sizes()[1], "_sdpa_fused: key and value must have the same sequence length, got ",
           k.sizes()[1], " and ", v.sizes()[1]);
  if (mask && mask->defined()) {
    TL_CHECK(mask->dim() == 3 && mask->sizes()[0] == n && mask->sizes()[1] == q.sizes()[1] &&
                 mask->sizes()[2] == k.sizes()[1],
             "_sdpa_fused: attn_mask must have shape (", n, ", ", q.sizes()[1], ", ", k.sizes()[1], "), got ",
             mask->sizes());
    TL_CHECK(mask->scalar_type() == ScalarType::Bool || mask->scalar_type() == q.scalar_type(),
             "_sdpa_fused: Expected attn_mask dtype to be bool or to match query dtype, but got attn_mask.dtype: ",
             mask->scalar_type(), " and  query.dtype: ", q.scalar_type(), " instead.");
  }
}

}  // namespace at::native
