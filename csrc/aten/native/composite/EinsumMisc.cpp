// torch-namespace leftovers built from other ops (issue 10): the deprecated
// frobenius_norm / norm_except_dim, channel_shuffle, empty_permuted,
// as_strided_scatter, and SyncBatchNorm's statistics pieces. All go through
// the dispatcher, so autograd differentiates them and Meta runs them.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "ops/add.h"
#include "ops/as_strided.h"
#include "ops/as_strided_scatter.h"
#include "ops/batch_norm_backward_elemt.h"
#include "ops/batch_norm_backward_reduce.h"
#include "ops/batch_norm_elemt.h"
#include "ops/batch_norm_gather_stats.h"
#include "ops/batch_norm_gather_stats_with_counts.h"
#include "ops/batch_norm_stats.h"
#include "ops/batch_norm_update_stats.h"
#include "ops/channel_shuffle.h"
#include "ops/clone.h"
#include "ops/copy.h"
#include "ops/detach.h"
#include "ops/div.h"
#include "ops/empty_permuted.h"
#include "ops/empty_strided.h"
#include "ops/frobenius_norm.h"
#include "ops/full.h"
#include "ops/mul.h"
#include "ops/norm.h"
#include "ops/norm_except_dim.h"
#include "ops/reciprocal.h"
#include "ops/reshape.h"
#include "ops/rsqrt.h"
#include "ops/sub.h"
#include "ops/sum.h"
#include "ops/to.h"
#include "ops/transpose.h"
#include "ops/var_mean.h"

namespace at::native {
namespace {

// A Python-number-like operand: joins type promotion by category only, and
// (living on the CPU as a wrapped number) mixes with tensors on any device.
TensorBase number(double v) {
  TensorBase t = c10::scalar_to_tensor(Scalar(v), ScalarType::Double);
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

bool is_float16ish(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }

// The dims batch norm reduces over: all but the channel dim 1.
std::vector<int64_t> non_channel_dims(const TensorBase& input, const char* op) {
  TL_CHECK(input.dim() >= 2, op, ": expected input with at least 2 dims (N, C, ...), but got input with sizes ",
           input.sizes());
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  return dims;
}

// A per-channel vector (C,) shaped to broadcast against input: (1, C, 1, ...).
TensorBase per_channel(const TensorBase& v, const TensorBase& input) {
  std::vector<int64_t> shape(input.dim(), 1);
  shape[1] = input.sizes()[1];
  return at::_ops::reshape(v, shape);
}

void check_channel_vector(const TensorBase& v, const TensorBase& input, const char* op, const char* name) {
  TL_CHECK(v.dim() == 1 && v.sizes()[0] == input.sizes()[1], op, ": expected ", name, " to have shape [",
           input.sizes()[1], "] (one entry per channel), but got ", v.sizes());
}

// running = (1 - momentum) * running + momentum * value, written in place and
// outside autograd (the running statistics are buffers, not graph values).
void update_running(const std::optional<TensorBase>& running, const TensorBase& value, double momentum,
                    const char* op, const char* name) {
  if (!running || !running->defined()) return;
  TL_CHECK(running->dim() == 1 && running->sizes()[0] == value.sizes()[0], op, ": expected ", name,
           " to have shape [", value.sizes()[0], "], but got ", running->sizes());
  TensorBase v = at::_ops::detach(value);
  TensorBase blended = at::_ops::add(at::_ops::mul(at::_ops::detach(*running), number(1.0 - momentum)),
                                     at::_ops::mul(v, number(momentum)));
  at::_ops::copy_(*running, blended, false);
}

}  // namespace

// ---------------------------------------------------------------- norms

TensorBase frobenius_norm(const TensorBase& self, IntArrayRef dim, bool keepdim) {
  TL_CHECK(dim.size() <= 2, "Expected at most 2 dimensions, but got ", dim.size(), " dimensions instead.");
  TL_CHECK(isFloatingType(self.scalar_type()),
           "norm(): input dtype should be either floating point or complex. Got ", self.scalar_type(), " instead.");
  if (dim.empty()) return at::_ops::norm(self, Scalar(2.0), std::nullopt, keepdim, std::nullopt);
  return at::_ops::norm(self, Scalar(2.0), dim, keepdim, std::nullopt);
}

// PyTorch's recursion: the norm over dims 1.. for dim 0, over dims ..-2 for
// the last dim, and through a transpose to dim 0 for the others; dim == -1
// means the norm of everything.
TensorBase norm_except_dim(const TensorBase& v, int64_t pow, int64_t dim) {
  TL_CHECK(isFloatingType(v.scalar_type()),
           "norm(): input dtype should be either floating point or complex. Got ", v.scalar_type(), " instead.");
  const Scalar p(pow);
  if (dim == -1) return at::_ops::norm(v, p, std::nullopt, false, std::nullopt);
  const int64_t nd = v.dim();
  if (dim == 0 || dim == nd - 1) {
    const int64_t keep = dim == 0 ? 0 : nd - 1;
    std::vector<int64_t> out_shape(nd, 1);
    out_shape[keep] = v.size(keep);
    const int64_t flat[2] = {dim == 0 ? v.size(0) : -1, dim == 0 ? -1 : v.size(-1)};
    const int64_t reduce = dim == 0 ? 1 : 0;
    TensorBase n = at::_ops::norm(at::_ops::reshape(v, IntArrayRef(flat, 2)), p, IntArrayRef(&reduce, 1), false,
                                  std::nullopt);
    return at::_ops::reshape(n, out_shape);
  }
  return at::_ops::transpose(at::_ops::norm_except_dim(at::_ops::transpose(v, 0, dim), pow, 0), 0, dim);
}

// ---------------------------------------------------------------- shapes and memory

TensorBase channel_shuffle(const TensorBase& self, int64_t groups) {
  TL_CHECK(self.dim() > 2, "channel_shuffle expects input with > 2 dims, but got input with sizes ", self.sizes());
  TL_CHECK(groups > 0, "Number of groups to divide channels in must be positive. Value of groups:", groups);
  const int64_t c = self.sizes()[1];
  TL_CHECK(c % groups == 0, "Number of channels must be divisible by groups. Got ", c, " channels and ", groups,
           " groups.");
  // (N, g, C/g, *) -> swap the two channel factors -> (N, C, *): a copy.
  std::vector<int64_t> split{self.sizes()[0], groups, c / groups};
  split.insert(split.end(), self.sizes().begin() + 2, self.sizes().end());
  TensorBase swapped = at::_ops::transpose(at::_ops::reshape(self, split), 1, 2);
  return at::_ops::clone(at::_ops::reshape(swapped, self.sizes()), std::nullopt);
}

TensorBase empty_permuted(IntArrayRef size, IntArrayRef physical_layout, std::optional<ScalarType> dtype,
                          std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  const int64_t nd = static_cast<int64_t>(size.size());
  TL_CHECK(static_cast<int64_t>(physical_layout.size()) == nd,
           "Number of dimensions in size does not match the length of the physical_layout; i.e. len(size) = ", nd,
           " is not equal to len(physical_layout) = ", physical_layout.size());
  std::vector<bool> seen(nd, false);
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t d = physical_layout[i];
    TL_CHECK(d >= 0 && d < nd, "Dimension out of range (expected to be between 0 and ", nd - 1, ", but got ", d,
             " at index ", i, ").  NB: negative dims not currently supported; file an issue if you want it.");
    TL_CHECK(!seen[d], "Duplicate dim not allowed");
    seen[d] = true;
  }
  for (int64_t s : size) TL_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", size);
  // physical_layout lists dims outermost first: the last one is unit-stride.
  std::vector<int64_t> stride(nd, 1);
  int64_t step = 1;
  for (int64_t i = nd - 1; i >= 0; --i) {
    stride[physical_layout[i]] = step;
    step *= std::max<int64_t>(size[physical_layout[i]], 1);
  }
  return at::_ops::empty_strided(size, stride, dtype, layout, device, pin_memory);
}

TensorBase as_strided_scatter(const TensorBase& self, const TensorBase& src, IntArrayRef size, IntArrayRef stride,
                              std::optional<int64_t> storage_offset) {
  TensorBase output = at::_ops::clone(self, std::nullopt);
  TensorBase slice = at::_ops::as_strided(output, size, stride, storage_offset);
  TL_CHECK(slice.sizes() == src.sizes(), "expected src to have a size equal to the slice of self. src size = ",
           src.sizes(), ", slice size = ", slice.sizes());
  at::_ops::copy_(slice, src, false);
  return output;
}

// ---------------------------------------------------------------- SyncBatchNorm pieces

std::tuple<TensorBase, TensorBase> batch_norm_stats(const TensorBase& input, double eps) {
  std::vector<int64_t> dims = non_channel_dims(input, "batch_norm_stats");
  TL_CHECK(isFloatingType(input.scalar_type()), "batch_norm_stats: expected a floating-point input, but got ",
           input.scalar_type());
  // float16/bfloat16 statistics are kept in float32, as PyTorch's kernel does.
  TensorBase x = is_float16ish(input.scalar_type()) ? at::_ops::to(input, ScalarType::Float, false, false, std::nullopt)
                                                    : input;
  auto [var, mean] = at::_ops::var_mean(x, IntArrayRef(dims), Scalar(0), false);
  return {mean, at::_ops::rsqrt(at::_ops::add(var, number(eps)))};
}

TensorBase batch_norm_elemt(const TensorBase& input, const std::optional<TensorBase>& weight,
                            const std::optional<TensorBase>& bias, const TensorBase& mean, const TensorBase& invstd,
                            double /*eps: invstd already holds it*/) {
  non_channel_dims(input, "batch_norm_elemt");
  check_channel_vector(mean, input, "batch_norm_elemt", "mean");
  check_channel_vector(invstd, input, "batch_norm_elemt", "invstd");
  TensorBase y = at::_ops::mul(at::_ops::sub(input, per_channel(mean, input)), per_channel(invstd, input));
  if (weight && weight->defined()) {
    check_channel_vector(*weight, input, "batch_norm_elemt", "weight");
    y = at::_ops::mul(y, per_channel(*weight, input));
  }
  if (bias && bias->defined()) {
    check_channel_vector(*bias, input, "batch_norm_elemt", "bias");
    y = at::_ops::add(y, per_channel(*bias, input));
  }
  return at::_ops::to(y, input.scalar_type(), false, false, std::nullopt);
}

// Merges the per-process statistics (rows of mean and invstd, one per
// process, weighted by counts) into the global ones: the mean of the means,
// and the variance as the within-process variances plus the spread of the
// means (the parallel-variance formula).
std::tuple<TensorBase, TensorBase> batch_norm_gather_stats_with_counts(
    const TensorBase& input, const TensorBase& mean, const TensorBase& invstd,
    const std::optional<TensorBase>& running_mean, const std::optional<TensorBase>& running_var, double momentum,
    double eps, const TensorBase& counts) {
  (void)input;  // only the statistics are merged; input names the call's dtype in PyTorch
  TL_CHECK(mean.dim() == 2 && invstd.sizes() == mean.sizes(),
           "batch_norm_gather_stats: expected mean and invstd of shape (world_size, C), but got ", mean.sizes(),
           " and ", invstd.sizes());
  const int64_t world = mean.sizes()[0];
  TL_CHECK(counts.numel() == world, "batch_norm_gather_stats: expected one count per row of mean (", world,
           "), but got counts of shape ", counts.sizes());
  const int64_t col[2] = {world, 1};
  const int64_t zero = 0;
  TensorBase c = at::_ops::reshape(at::_ops::to(counts, mean.scalar_type(), false, false, std::nullopt),
                                   IntArrayRef(col, 2));
  TensorBase n = at::_ops::sum(c, std::optional<ScalarType>());
  TensorBase gmean = at::_ops::div(at::_ops::sum(at::_ops::mul(c, mean), IntArrayRef(&zero, 1), false, std::nullopt), n);
  TensorBase local_var = at::_ops::sub(at::_ops::reciprocal(at::_ops::mul(invstd, invstd)), number(eps));
  TensorBase spread = at::_ops::sub(mean, gmean);
  TensorBase var_n = at::_ops::sum(at::_ops::mul(c, at::_ops::add(local_var, at::_ops::mul(spread, spread))),
                                   IntArrayRef(&zero, 1), false, std::nullopt);
  TensorBase ginvstd = at::_ops::rsqrt(at::_ops::add(at::_ops::div(var_n, n), number(eps)));
  update_running(running_mean, gmean, momentum, "batch_norm_gather_stats", "running_mean");
  if (running_var && running_var->defined())
    update_running(running_var, at::_ops::div(var_n, at::_ops::sub(n, number(1.0))), momentum,
                   "batch_norm_gather_stats", "running_var");
  return {gmean, ginvstd};
}

std::tuple<TensorBase, TensorBase> batch_norm_gather_stats(const TensorBase& input, const TensorBase& mean,
                                                           const TensorBase& invstd,
                                                           const std::optional<TensorBase>& running_mean,
                                                           const std::optional<TensorBase>& running_var,
                                                           double momentum, double eps, int64_t count) {
  TL_CHECK(mean.dim() >= 1, "batch_norm_gather_stats: expected mean of shape (world_size, C), but got ",
           mean.sizes());
  const int64_t world = mean.sizes()[0];
  TensorBase counts = at::_ops::full(IntArrayRef(&world, 1), Scalar(count), mean.scalar_type(), std::nullopt,
                                     mean.device(), std::nullopt);
  return batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum, eps, counts);
}

std::vector<TensorBase> batch_norm_backward_reduce(
    const TensorBase& grad_out, const TensorBase& input, const TensorBase& mean, const TensorBase& invstd,
    const std::optional<TensorBase>& weight, bool input_g, bool weight_g, bool bias_g) {
  std::vector<int64_t> dims = non_channel_dims(input, "batch_norm_backward_reduce");
  TL_CHECK(grad_out.sizes() == input.sizes(), "batch_norm_backward_reduce: expected grad_out of shape ",
           input.sizes(), ", but got ", grad_out.sizes());
  check_channel_vector(mean, input, "batch_norm_backward_reduce", "mean");
  check_channel_vector(invstd, input, "batch_norm_backward_reduce", "invstd");
  // Sums accumulate in the statistics' dtype (float32 for float16 inputs).
  const ScalarType stat_t = mean.scalar_type();
  TensorBase g = at::_ops::to(grad_out, stat_t, false, false, std::nullopt);
  TensorBase x = at::_ops::to(input, stat_t, false, false, std::nullopt);
  TensorBase sum_dy = at::_ops::sum(g, IntArrayRef(dims), false, std::nullopt);
  TensorBase xmu = at::_ops::sub(x, per_channel(mean, input));
  TensorBase sum_dy_xmu = at::_ops::sum(at::_ops::mul(g, xmu), IntArrayRef(dims), false, std::nullopt);
  const bool has_weight = weight && weight->defined();
  const ScalarType param_t = has_weight ? weight->scalar_type() : stat_t;
  TensorBase grad_weight, grad_bias;
  if (weight_g) grad_weight = at::_ops::to(at::_ops::mul(sum_dy_xmu, invstd), param_t, false, false, std::nullopt);
  if (bias_g) grad_bias = at::_ops::to(sum_dy, param_t, false, false, std::nullopt);
  if (!input_g) {
    sum_dy = TensorBase();
    sum_dy_xmu = TensorBase();
  }
  return {sum_dy, sum_dy_xmu, grad_weight, grad_bias};
}

// grad_input = (grad_out - mean(dy) - (x - mean) * invstd^2 * mean(dy * (x - mean))) * weight * invstd,
// the means taken over every process's elements (count: per-process counts).
TensorBase batch_norm_backward_elemt(const TensorBase& grad_out, const TensorBase& input, const TensorBase& mean,
                                     const TensorBase& invstd, const std::optional<TensorBase>& weight,
                                     const TensorBase& sum_dy, const TensorBase& sum_dy_xmu,
                                     const TensorBase& count) {
  non_channel_dims(input, "batch_norm_backward_elemt");
  TL_CHECK(grad_out.sizes() == input.sizes(), "batch_norm_backward_elemt: expected grad_out of shape ",
           input.sizes(), ", but got ", grad_out.sizes());
  check_channel_vector(mean, input, "batch_norm_backward_elemt", "mean");
  check_channel_vector(invstd, input, "batch_norm_backward_elemt", "invstd");
  check_channel_vector(sum_dy, input, "batch_norm_backward_elemt", "sum_dy");
  check_channel_vector(sum_dy_xmu, input, "batch_norm_backward_elemt", "sum_dy_xmu");
  const ScalarType stat_t = mean.scalar_type();
  TensorBase total = at::_ops::sum(at::_ops::to(count, stat_t, false, false, std::nullopt), std::optional<ScalarType>());
  TensorBase mean_dy = at::_ops::div(sum_dy, total);
  TensorBase factor1 = at::_ops::div(at::_ops::mul(at::_ops::mul(invstd, invstd), sum_dy_xmu), total);
  TensorBase factor2 = invstd;
  if (weight && weight->defined()) {
    check_channel_vector(*weight, input, "batch_norm_backward_elemt", "weight");
    factor2 = at::_ops::mul(factor2, *weight);
  }
  TensorBase xmu = at::_ops::sub(input, per_channel(mean, input));
  TensorBase gi = at::_ops::sub(at::_ops::sub(grad_out, per_channel(mean_dy, input)),
                                at::_ops::mul(xmu, per_channel(factor1, input)));
  gi = at::_ops::mul(gi, per_channel(factor2, input));
  return at::_ops::to(gi, input.scalar_type(), false, false, std::nullopt);
}

std::tuple<TensorBase, TensorBase> batch_norm_update_stats(const TensorBase& input,
                                                           const std::optional<TensorBase>& running_mean,
                                                           const std::optional<TensorBase>& running_var,
                                                           double momentum) {
  std::vector<int64_t> dims = non_channel_dims(input, "batch_norm_update_stats");
  TL_CHECK_NOT_IMPLEMENTED(isFloatingType(input.scalar_type()), "\"batch_norm_update_stats_cpu\" not implemented for '",
                           input.scalar_type(), "'");
  TL_CHECK(input.numel() > 0, "input tensor must have at least one element, but got input_sizes = ", input.sizes());
  for (const auto* r : {&running_mean, &running_var})
    if (*r && (*r)->defined())
      TL_CHECK((*r)->scalar_type() == input.scalar_type(), "mixed dtype (CPU): all inputs must share same datatype.");
  auto [var, mean] = at::_ops::var_mean(input, IntArrayRef(dims), Scalar(0), false);
  const double n = static_cast<double>(input.numel() / input.sizes()[1]);
  update_running(running_mean, mean, momentum, "batch_norm_update_stats", "running_mean");
  if (running_var && running_var->defined())
    update_running(running_var, at::_ops::mul(var, number(n / (n - 1))), momentum, "batch_norm_update_stats",
                   "running_var");
  return {mean, var};
}

}  // namespace at::native
