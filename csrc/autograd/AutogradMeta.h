// Per-tensor autograd state, hung off TensorImpl::autograd_meta. A tensor
// without it is a plain tensor (requires_grad=False, no history).
#pragma once
#include <functional>
#include <optional>
#include "Node.h"

namespace torchlike::autograd {

struct AutogradMeta : c10::AutogradMetaInterface {
  TensorBase grad;
  std::shared_ptr<Node> grad_fn;          // non-leaf: the node that produced this tensor
  std::weak_ptr<Node> grad_accumulator;   // leaf that requires grad: its AccumulateGrad
  uint32_t output_nr = 0;
  bool requires_grad = false;             // only meaningful for leaves
  bool retains_grad = false;
  // Hooks on a leaf run before accumulation.
  HookList<std::function<TensorBase(const TensorBase&)>> leaf_hooks;
  // Views of a tensor that requires grad remember their base, so in-place
  // ops through the view can be checked (see check_inplace).
  TensorBase base;
  bool is_view = false;
  // Version of the shared storage when the view was made: an in-place change
  // of the base after that makes the view's recorded history stale.
  uint32_t view_version = 0;
  // A weak reference to the owning tensor for retain_grad's hook (which lives
  // on grad_fn: a strong one would be a cycle tensor -> grad_fn -> hook ->
  // tensor). Cleared when this meta, and so the tensor, dies.
  std::shared_ptr<c10::TensorImpl*> weak_self;
  ~AutogradMeta() override {
    if (weak_self) *weak_self = nullptr;
  }
};

AutogradMeta* get_autograd_meta(const TensorBase& t);  // nullptr if none
AutogradMeta* materialize_autograd_meta(const TensorBase& t);

bool requires_grad(const TensorBase& t);
bool is_leaf(const TensorBase& t);
void set_requires_grad(const TensorBase& t, bool v);
const std::shared_ptr<Node>& grad_fn(const TensorBase& t);
TensorBase& mutable_grad(const TensorBase& t);

// The edge a gradient for t flows along: its grad_fn's output, or its accumulator.
Edge gradient_edge(const TensorBase& t);
std::shared_ptr<Node> grad_accumulator(const TensorBase& t);

// Attaches a freshly computed result to the graph as output `nr` of fn.
void set_history(const TensorBase& result, const std::shared_ptr<Node>& fn, uint32_t nr = 0);

// Appends the gradient edge and input metadata of each differentiable input.
void add_input_edge(Node& fn, const TensorBase& t);
inline void add_input_edge(Node& fn, const std::optional<TensorBase>& t) { add_input_edge(fn, t ? *t : TensorBase()); }
inline void add_input_edge(Node& fn, at::TensorBaseList ts) {
  for (const TensorBase& t : ts) add_input_edge(fn, t);
}
template <class... Ts>
void set_input_edges(Node& fn, const Ts&... ts) {
  (add_input_edge(fn, ts), ...);
}

template <class... Ts>
bool any_requires_grad(const Ts&... ts);
inline bool any_requires_grad_one(const TensorBase& t) { return t.defined() && requires_grad(t); }
inline bool any_requires_grad_one(const std::optional<TensorBase>& t) { return t && t->defined() && requires_grad(*t); }
inline bool any_requires_grad_one(at::TensorBaseList ts) {
  for (const TensorBase& t : ts)
    if (t.defined() && requires_grad(t)) return true;
  return false;
}
template <class... Ts>
bool any_requires_grad(const Ts&... ts) { return (any_requires_grad_one(ts) || ...); }

// In-place on a tensor: error for a leaf that requires grad (outside no_grad).
void check_inplace(const TensorBase& t, const char* op);

// Grad mode is the absence of the autograd keys from the TLS exclude set.
bool is_grad_enabled();
void set_grad_enabled(bool enabled);
c10::DispatchKeySet autograd_keys();

class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(is_grad_enabled()) { set_grad_enabled(enabled); }
  ~AutoGradMode() { set_grad_enabled(prev_); }
 private:
  bool prev_;
};

bool anomaly_enabled();
void set_anomaly_enabled(bool v);

}  // namespace torchlike::autograd

namespace torchlike::autograd {
// A view op's result remembers the tensor it views (through chains of views),
// when that tensor requires grad.
void mark_view(const TensorBase& view, const TensorBase& base);
}  // namespace torchlike::autograd
