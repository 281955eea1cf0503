// Softmax family, layer/batch norm and embedding: the argument checks and
// result shapes every backend shares (CPU kernels in cpu/NnNorm.cpp, Meta in
// meta/NnNorm.cpp), and the CPU backward kernels the autograd helpers call.
#pragma once
#include <array>
#include <optional>
#include <tuple>
#include <utility>
#include "c10/Tensor.h"

namespace at::native {

// softmax/log_softmax(self, dim, dtype): the wrapped dim and the result dtype.
// Only floating dtypes have a kernel (PyTorch raises for integers too).
struct SoftmaxPlan {
  int64_t dim;
  ScalarType dtype;
};
SoftmaxPlan softmax_plan(const char* op, const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype);

// A tensor seen as (outer, size, inner) around `dim`: rows of `size` elements
// `inner` apart. TL_HOST_DEVICE-free plain arithmetic, reused by any backend.
struct RowGeometry {
  int64_t outer = 1, size = 1, inner = 1;
};
RowGeometry row_geometry(IntArrayRef sizes, int64_t dim);

// layer_norm: checks normalized_shape against the input's trailing dims and the
// weight/bias shapes; returns (M rows, N elements per row).
std::pair<int64_t, int64_t> layer_norm_plan(const TensorBase& input, IntArrayRef normalized_shape,
                                            const std::optional<TensorBase>& weight,
                                            const std::optional<TensorBase>& bias);
// The shape of layer_norm's saved mean/rstd: the input's leading dims, 1 for each normalized dim.
DimVector layer_norm_stat_shape(const TensorBase& input, int64_t normalized_ndim);

// batch_norm: input (N, C, *) with per-channel weight/bias/running stats of C elements.
int64_t batch_norm_check(const TensorBase& input, const std::optional<TensorBase>& weight,
                         const std::optional<TensorBase>& bias, const std::optional<TensorBase>& running_mean,
                         const std::optional<TensorBase>& running_var, bool training);

// embedding: 2-D weight, Long/Int indices.
void embedding_check(const TensorBase& weight, const TensorBase& indices);

// _sdpa_fused: query (N, L, E), key (N, S, E), value (N, S, Ev), mask (N, L, S) or absent.
void sdpa_check(const TensorBase& q, const TensorBase& k, const TensorBase& v, const std::optional<TensorBase>& mask);

// The dtype statistics (mean, rstd) are kept in: float for the half types.
inline ScalarType stat_dtype(ScalarType t) {
  return (t == ScalarType::Half || t == ScalarType::BFloat16) ? ScalarType::Float : t;
}

// CPU backward kernels (fused; `mask` picks which of input/weight/bias
// gradients to compute, the others come back undefined).
std::tuple<TensorBase, TensorBase, TensorBase> layer_norm_backward_cpu(
    const TensorBase& grad_out, const TensorBase& input, IntArrayRef normalized_shape, const TensorBase& mean,
    const TensorBase& rstd, const TensorBase& weight, std::array<bool, 3> mask);
std::tuple<TensorBase, TensorBase, TensorBase> batch_norm_backward_cpu(
    const TensorBase& grad_out, const TensorBase& input, const TensorBase& weight, const TensorBase& running_mean,
    const TensorBase& running_var, const TensorBase& save_mean, const TensorBase& save_invstd, bool training,
    double eps, std::array<bool, 3> mask);

}  // namespace at::native
