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
  // Every view made in grad mode remembers its root base (the tensor that
  // owns the memory, through chains of views), whether or not anything
  // requires grad yet: an in-place write through the view (`out[t] = h`) is
  // recorded on the base as a CopySlices node (see rebase_history).
  TensorBase base;
  bool is_view = false;
  // Version of the shared storage when grad_fn was last made for this view.
  // An in-place change of the base (or of another view of it) after that
  // makes grad_fn stale; it is then regenerated from the base's current
  // history as an as_strided replay (see refresh_view).
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

// In-place on a tensor: error for a leaf that requires grad (outside no_grad),
// or for a view of such a leaf.
void check_inplace(const TensorBase& t, const char* op);

// After an in-place op on `t` recorded as `fn` (t's old value is fn's input
// edge `self_edge`): a plain tensor takes fn as its history; a view's base
// takes a CopySlices node wrapping fn (the base's gradient flows around the
// written window, the window's through fn), and the view's own grad_fn is
// regenerated from it.
void rebase_history(const TensorBase& t, const std::shared_ptr<Node>& fn, size_t self_edge = 0);

// After an in-place view op (transpose_, squeeze_, as_strided_ ...) on `t`
// recorded as `fn`: t's values did not change, only its geometry, so fn
// becomes t's own history even when t is a view (PyTorch does the same); a
// view keeps its base, and its history counts as current for its new version.
void set_inplace_view_history(const TensorBase& t, const std::shared_ptr<Node>& fn);

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
