// Backward helpers of the statistics ops (declared in Statistics.h).
#include "autograd/manual/Statistics.h"

#include <limits>

#include "ops/abs.h"
#include "ops/exp.h"
#include "ops/flip.h"
#include "ops/log.h"
#include "ops/logcumsumexp.h"
#include "ops/where.h"

namespace torchlike::autograd::generated {

// d out_j / d x_k = exp(x_k - out_j) for j >= k, so
//   grad_x_k = exp(x_k) * sum_{j >= k} grad_j * exp(-out_j).
// That reversed sum is formed in log space (a reversed logcumsumexp of
// log|grad_j| - out_j), separately for positive and negative grad, so a large
// out_j never overflows exp(-out_j). Zero grads enter as the dtype's lowest
// finite value, whose exp is 0, rather than -inf (which would make NaN).
at::TensorBase logcumsumexp_backward(const at::TensorBase& grad, const at::TensorBase& self,
                                     const at::TensorBase& result, int64_t dim) {
  if (grad.dim() == 0 || grad.numel() == 0) return grad;
  dim = c10::maybe_wrap_dim(dim, grad.dim());
  double lowest = std::numeric_limits<float>::lowest();
  switch (grad.scalar_type()) {
    case at::ScalarType::Double: lowest = std::numeric_limits<double>::lowest(); break;
    case at::ScalarType::Half: lowest = -65504.0; break;
    case at::ScalarType::BFloat16: lowest = -3.3895313892515355e38; break;
    default: break;
  }
  at::TensorBase floor_value = c10::scalar_to_tensor(at::Scalar(lowest), grad.scalar_type(), grad.device());
  auto reverse_logcumsumexp = [dim](const at::TensorBase& x) {
    int64_t d[1] = {dim};
    return at::_ops::flip(at::_ops::logcumsumexp(at::_ops::flip(x, at::IntArrayRef(d, 1)), dim), at::IntArrayRef(d, 1));
  };
  at::TensorBase log_abs_grad = at::_ops::log(at::_ops::abs(grad));
  at::TensorBase log_pos = at::_ops::where(grad > 0, log_abs_grad, floor_value);
  at::TensorBase log_neg = at::_ops::where(grad < 0, log_abs_grad, floor_value);
  at::TensorBase pos = at::_ops::exp(reverse_logcumsumexp(log_pos - result) + self);
  at::TensorBase neg = at::_ops::exp(reverse_logcumsumexp(log_neg - result) + self);
  return pos - neg;
}

}  // namespace torchlike::autograd::generated
