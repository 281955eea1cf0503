#include "Node.h"

#include <atomic>
#include "AutogradMeta.h"
#include "ops/add.h"
#include "ops/clone.h"

namespace torchlike::autograd {

uint64_t next_sequence_nr() {
  static std::atomic<uint64_t> n{0};
  return n.fetch_add(1, std::memory_order_relaxed);
}

AccumulateGrad::AccumulateGrad(TensorBase variable) : variable_(std::move(variable)) { set_num_inputs(1); }

variable_list AccumulateGrad::apply(variable_list&& grads) {
  TensorBase g = grads.empty() ? TensorBase() : grads[0];
  if (!g.defined()) return {};
  // The leaf's tensor hooks already ran in the engine (before capture, so
  // autograd.grad sees them too).
  AutogradMeta* meta = get_autograd_meta(variable_);
  TensorBase& grad = meta->grad;
  if (!grad.defined()) {
    // Steal the incoming gradient only when nothing else holds it and it is a
    // plain dense tensor; otherwise a later in-place accumulation would write
    // into someone else's memory (or into an expanded, self-overlapping view).
    bool steal = !is_grad_enabled() && g.use_count() <= 2 && g.is_contiguous() && requires_grad(g) == false &&
                 get_autograd_meta(g) == nullptr;
    grad = steal ? g : at::_ops::clone(g, std::nullopt);
  } else if (is_grad_enabled()) {
    grad = at::_ops::add(grad, g, 1);  // create_graph: keep the graph of the accumulated gradient
  } else {
    at::_ops::add_(grad, g, 1);
  }
  return {};
}

variable_list NotImplementedNode::apply(variable_list&&) {
  // PyTorch's not-implemented fallback raises a RuntimeError with this text.
  TL_CHECK(false, "derivative for ", op_, " is not implemented");
  return {};
}

void check_list_gradients(const char* node, const char* arg, size_t got, size_t want) {
  TL_CHECK(got == want, node, ": the derivative formula for the Tensor[] argument '", arg, "' returned ", got,
           " gradients for ", want, " tensors");
}

}  // namespace torchlike::autograd
