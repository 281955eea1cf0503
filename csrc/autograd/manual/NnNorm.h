// Hand-written backward helpers for the NnNorm area (issue 10), declared for the
// generated autograd files; definitions in manual/NnNorm.cpp.
#pragma once
#include "autograd/FunctionsManual.h"

namespace torchlike::autograd::generated {

// One of the input/weight/bias gradients (which = 0, 1, 2) of
// native_layer_norm / native_batch_norm; the need_* flags say which the node
// needs, so one fused kernel run serves all three formulas (see NnNorm.cpp).
at::TensorBase layer_norm_backward_part(int which, const at::TensorBase& grad, const at::TensorBase& input,
                                        at::IntArrayRef normalized_shape, const at::TensorBase& mean,
                                        const at::TensorBase& rstd, const at::TensorBase& weight, bool need_input,
                                        bool need_weight, bool need_bias);
at::TensorBase batch_norm_backward_part(int which, const at::TensorBase& grad, const at::TensorBase& input,
                                        const at::TensorBase& weight, const at::TensorBase& running_mean,
                                        const at::TensorBase& running_var, const at::TensorBase& save_mean,
                                        const at::TensorBase& save_invstd, bool training, double eps,
                                        bool need_input, bool need_weight, bool need_bias);

// One of query/key/value's gradients (which = 0, 1, 2) of _sdpa_fused.
at::TensorBase sdpa_backward_part(int which, const at::TensorBase& grad, const at::TensorBase& query,
                                  const at::TensorBase& key, const at::TensorBase& value,
                                  const at::TensorBase& attn_mask, bool is_causal, double scale, bool need_query,
                                  bool need_key, bool need_value);

// Second derivatives of _softmax_backward_data / _log_softmax_backward_data.
at::TensorBase softmax_double_backward_output(const at::TensorBase& grad, const at::TensorBase& grad_output,
                                              const at::TensorBase& output, int64_t dim);
at::TensorBase log_softmax_double_backward_grad(const at::TensorBase& grad, const at::TensorBase& output,
                                                int64_t dim);
at::TensorBase log_softmax_double_backward_output(const at::TensorBase& grad, const at::TensorBase& grad_output,
                                                  const at::TensorBase& output, int64_t dim);

}  // namespace torchlike::autograd::generated
