#include "Node.h"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <vector>
#include "AutogradMeta.h"
#include "c10/ProfilerHooks.h"
#include "ops/add.h"
#include "ops/clone.h"
#include "ops/copy.h"
#include "ops/empty_strided.h"

namespace torchlike::autograd {

uint64_t next_sequence_nr() {
  static std::atomic<uint64_t> n{0};
  uint64_t s = n.fetch_add(1, std::memory_order_relaxed);
  if (TL_UNLIKELY(c10::profiler::enabled())) c10::profiler::tagSequenceNr(static_cast<int64_t>(s));
  return s;
}

namespace {

// torch.autograd.enforce_grad_layout_policy: whether a new .grad must follow the
// layout contract (the parameter's strides when the parameter is dense and
// non-overlapping, row-major otherwise). Thread-local, like PyTorch's.
thread_local bool grad_layout_enforced = true;

// True when the strides place every element exactly once in a contiguous block,
// in some dimension order (a permutation of a contiguous tensor).
bool non_overlapping_and_dense(const TensorBase& t) {
  const int64_t n = t.dim();
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return t.stride(a) < t.stride(b); });
  int64_t expected = 1;
  for (int64_t d : order) {
    const int64_t size = t.size(d);
    if (size == 1) continue;
    if (t.stride(d) != expected) return false;
    expected *= size;
  }
  return true;
}

bool same_strides_where_it_matters(const TensorBase& a, const TensorBase& b) {
  if (a.dim() != b.dim()) return false;
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (a.size(d) > 1 && a.stride(d) != b.stride(d)) return false;
  }
  return true;
}

bool obeys_layout_contract(const TensorBase& grad, const TensorBase& param) {
  if (non_overlapping_and_dense(param)) return same_strides_where_it_matters(grad, param);
  return grad.is_contiguous();
}

// A copy of grad laid out as the contract asks for.
TensorBase copy_in_contract_layout(const TensorBase& grad, const TensorBase& param) {
  if (!non_overlapping_and_dense(param)) return at::_ops::clone(grad, at::MemoryFormat::Contiguous);
  TensorBase r = at::_ops::empty_strided(param.sizes(), param.strides(), grad.scalar_type(), std::nullopt,
                                         grad.device(), std::nullopt);
  at::_ops::copy_(r, grad, false);
  return r;
}

}  // namespace

bool grad_layout_policy_enforced() { return grad_layout_enforced; }
void set_grad_layout_policy_enforced(bool enforced) { grad_layout_enforced = enforced; }

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
    // Under the layout contract a stolen gradient must also have the layout the
    // contract asks for; with the policy relaxed any dense one will do.
    bool steal = !is_grad_enabled() && g.use_count() <= 2 && requires_grad(g) == false &&
                 get_autograd_meta(g) == nullptr &&
                 (grad_layout_enforced ? g.is_contiguous() && obeys_layout_contract(g, variable_)
                                       : non_overlapping_and_dense(g));
    if (steal) {
      grad = g;
    } else if (grad_layout_enforced || !non_overlapping_and_dense(g)) {
      grad = copy_in_contract_layout(g, variable_);
    } else {
      grad = at::_ops::clone(g, std::nullopt);
    }
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
