#include "AutogradMeta.h"

#include "CopySlices.h"

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

// A view's grad_fn made before its base was modified in place describes the
// old values. As PyTorch does, it is regenerated on access: the new grad_fn
// replays the view as an as_strided window of the base's current history
// (or is dropped when the base no longer needs a gradient).
static void regenerate_view_grad_fn(AutogradMeta* m, const TensorBase& t) {
  m->view_version = t._version();
  if (m->requires_grad) return;  // a view made a leaf by requires_grad_(): its history is its own
  // The base is a root (mark_view follows chains of views), so this recursion ends there.
  if (requires_grad(m->base)) {
    m->grad_fn = std::make_shared<AsStridedViewBackward>(m->base, t);
    m->output_nr = 0;
  } else {
    m->grad_fn.reset();
  }
}

static void refresh_view(AutogradMeta* m, const TensorBase& t) {
  if (t._version() != m->view_version) regenerate_view_grad_fn(m, t);
}

bool requires_grad(const TensorBase& t) {
  AutogradMeta* m = get_autograd_meta(t);
  if (!m) return false;
  if (m->requires_grad) return true;
  if (m->is_view) refresh_view(m, t);
  return m->grad_fn != nullptr;
}

bool is_leaf(const TensorBase& t) { return !grad_fn(t); }

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
  if (!m) return none;
  if (m->is_view) refresh_view(m, t);
  return m->grad_fn;
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
  if (m->is_view) refresh_view(m, t);
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
  if (m->is_view && m->base.defined()) {
    AutogradMeta* bm = get_autograd_meta(m->base);
    TL_CHECK(!(bm && bm->requires_grad && !bm->grad_fn),
             "a view of a leaf Variable that requires grad is being used in an in-place operation. (", op, ")");
  }
}

void rebase_history(const TensorBase& t, const std::shared_ptr<Node>& fn, size_t self_edge) {
  AutogradMeta* m = get_autograd_meta(t);
  if (!m || !m->is_view) {
    set_history(t, fn, 0);
    return;
  }
  // The base's gradient edge is taken before the base gets its new history.
  auto copy_slices = std::make_shared<CopySlices>(m->base, t, fn, self_edge);
  set_history(m->base, copy_slices, 0);
  regenerate_view_grad_fn(m, t);
}

void set_inplace_view_history(const TensorBase& t, const std::shared_ptr<Node>& fn) {
  set_history(t, fn, 0);
  // The op bumped the shared version; without this the view's fresh grad_fn
  // would look stale and be replaced by an as_strided replay of the base.
  AutogradMeta* m = get_autograd_meta(t);
  if (m->is_view) m->view_version = t._version();
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
  if (!view.defined()) return;
  AutogradMeta* bm = get_autograd_meta(base);
  AutogradMeta* vm = materialize_autograd_meta(view);
  vm->is_view = true;
  vm->base = (bm && bm->is_view && bm->base.defined()) ? bm->base : base;
  vm->view_version = view._version();
}
}  // namespace torchlike::autograd
