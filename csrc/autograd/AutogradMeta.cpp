#include "AutogradMeta.h"

namespace torchlike::autograd {

AutogradMeta* get_autograd_meta(const TensorBase& t) {
  return static_cast<AutogradMeta*>(t.unsafeGetTensorImpl()->autograd_meta());
}

AutogradMeta* materialize_autograd_meta(const TensorBase& t) {
  AutogradMeta* m = get_autograd_meta(t);
  if (!m) {
    auto fresh = std::make_unique<AutogradMeta>();
    m = fresh.get();
    t.unsafeGetTensorImpl()->set_autograd_meta(std::move(fresh));
  }
  return m;
}

bool requires_grad(const TensorBase& t) {
  AutogradMeta* m = get_autograd_meta(t);
  return m && (m->requires_grad || m->grad_fn);
}

bool is_leaf(const TensorBase& t) {
  AutogradMeta* m = get_autograd_meta(t);
  return !m || !m->grad_fn;
}

void set_requires_grad(const TensorBase& t, bool v) {
  TL_CHECK(is_leaf(t), "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                       "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  TL_CHECK(!v || c10::isFloatingType(t.scalar_type()),
           "only Tensors of floating point dtype can require gradients (got ", t.scalar_type(), ")");
  TL_CHECK(!v || !t.unsafeGetTensorImpl()->is_inference() || c10::InferenceMode::is_enabled(),
           "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
  if (!v && !get_autograd_meta(t)) return;
  materialize_autograd_meta(t)->requires_grad = v;
}

const std::shared_ptr<Node>& grad_fn(const TensorBase& t) {
  static const std::shared_ptr<Node> none;
  AutogradMeta* m = get_autograd_meta(t);
  return m ? m->grad_fn : none;
}

TensorBase& mutable_grad(const TensorBase& t) { return materialize_autograd_meta(t)->grad; }

std::shared_ptr<Node> grad_accumulator(const TensorBase& t) {
  AutogradMeta* m = get_autograd_meta(t);
  if (!m || m->grad_fn || !m->requires_grad) return nullptr;
  std::shared_ptr<Node> acc = m->grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    m->grad_accumulator = acc;
  }
  return acc;
}

Edge gradient_edge(const TensorBase& t) {
  AutogradMeta* m = get_autograd_meta(t);
  if (!m) return Edge();
  // PyTorch regenerates a view's grad_fn after its base changes in place;
  // until torchlike does, using such a view's stale history is refused.
  TL_CHECK_NOT_IMPLEMENTED(!(m->is_view && m->grad_fn && t._version() != m->view_version),
                           "a view whose base (or itself) was modified in-place after the view was created is used "
                           "in a computation that requires grad; this is not supported yet. Take the view again "
                           "after the in-place operation, or clone() it.");
  if (m->grad_fn) return Edge(m->grad_fn, m->output_nr);
  return Edge(grad_accumulator(t), 0);
}

void add_input_edge(Node& fn, const TensorBase& t) {
  InputMetadata md;
  if (t.defined()) {
    md.sizes = t.sizes();
    md.dtype = t.scalar_type();
    md.defined = true;
  }
  fn.add_next_edge(t.defined() ? gradient_edge(t) : Edge());
  fn.input_metadata().push_back(std::move(md));
}

void set_history(const TensorBase& result, const std::shared_ptr<Node>& fn, uint32_t nr) {
  if (!result.defined()) return;
  AutogradMeta* m = materialize_autograd_meta(result);
  m->grad_fn = fn;
  m->output_nr = nr;
  m->requires_grad = false;
  m->grad_accumulator.reset();
}

void check_inplace(const TensorBase& t, const char* op) {
  AutogradMeta* m = get_autograd_meta(t);
  if (!m) return;
  TL_CHECK(!(m->requires_grad && !m->grad_fn),
           "a leaf Variable that requires grad is being used in an in-place operation. (", op, ")");
  if (m->is_view && m->base.defined() && requires_grad(m->base)) {
    TL_CHECK(!is_leaf(m->base), "a view of a leaf Variable that requires grad is being used in an in-place operation. (",
             op, ")");
    TL_CHECK_NOT_IMPLEMENTED(false, op, ": in-place operations on a view of a non-leaf tensor that requires grad are "
                                        "not supported yet (PyTorch rebases the view's history onto its base); "
                                        "clone() the view first.");
  }
}

c10::DispatchKeySet autograd_keys() { return c10::DispatchKeySet::functionality(c10::Functionality::Autograd); }

bool is_grad_enabled() { return !c10::tlsLocalDispatchKeySet().excluded.has(c10::DispatchKey::AutogradCPU); }

void set_grad_enabled(bool enabled) {
  auto& tls = c10::tlsLocalDispatchKeySet();
  tls.excluded = enabled ? tls.excluded - autograd_keys() : tls.excluded | autograd_keys();
}

static bool g_anomaly = false;
bool anomaly_enabled() { return g_anomaly; }
void set_anomaly_enabled(bool v) { g_anomaly = v; }

}  // namespace torchlike::autograd

namespace torchlike::autograd {
void mark_view(const TensorBase& view, const TensorBase& base) {
  if (!view.defined() || !requires_grad(base)) return;
  AutogradMeta* bm = get_autograd_meta(base);
  AutogradMeta* vm = materialize_autograd_meta(view);
  vm->is_view = true;
  vm->base = (bm && bm->is_view && bm->base.defined()) ? bm->base : base;
  vm->view_version = view._version();
}
}  // namespace torchlike::autograd
