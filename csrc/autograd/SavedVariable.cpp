#include "SavedVariable.h"

namespace torchlike::autograd {

// A tensor sharing t's storage and version counter but carrying no autograd
// state: what the node keeps, so it never owns a reference back to itself.
static TensorBase data_alias(const TensorBase& t) {
  return c10::make_view(t, t.sizes(), t.strides(), t.storage_offset());
}

SavedVariable::SavedVariable(const TensorBase& t, bool is_output) {
  if (!t.defined()) return;
  was_defined_ = true;
  is_output_ = is_output;
  saved_version_ = t._version();
  AutogradMeta* m = get_autograd_meta(t);
  if (m && m->grad_fn) producer_ = m->grad_fn->name();
  requires_grad_ = requires_grad(t);
  if (!is_output && m && !m->grad_fn && m->requires_grad) {
    leaf_ = t;  // leaves are returned as themselves (no cycle: leaves don't own nodes)
    return;
  }
  data_ = data_alias(t);
  if (!is_output && m) {
    grad_fn_ = m->grad_fn;
    output_nr_ = m->output_nr;
  } else if (is_output && m) {
    output_nr_ = m->output_nr;
  }
}

void SavedVariable::reset_data() {
  data_.reset();
  leaf_.reset();
  grad_fn_.reset();
  released_ = true;
}

TensorBase SavedVariable::unpack(const std::shared_ptr<Node>& owner) const {
  if (!was_defined_) return TensorBase();
  TL_CHECK(!released_,
           "Trying to backward through the graph a second time (or directly access saved tensors after they have "
           "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
           "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if "
           "you need to access saved tensors after calling backward.");
  const TensorBase& cur = leaf_.defined() ? leaf_ : data_;
  if (cur._version() != saved_version_) {
    // PyTorch's wording: "[torch.FloatTensor [2]], which is output 0 of Exp,"
    // (the node's name without its "Backward<N>" suffix); a leaf has no "which is".
    std::string who = is_output_ ? (owner ? owner->name() : std::string()) : producer_;
    if (auto pos = who.rfind("Backward"); pos != std::string::npos && pos > 0 &&
        who.find_first_not_of("0123456789", pos + 8) == std::string::npos)
      who.resize(pos);
    std::string which = who.empty() ? std::string() : ", which is output " + std::to_string(output_nr_) + " of " + who + ",";
    TL_ERROR("one of the variables needed for gradient computation has been modified by an inplace operation: [torch.",
             c10::toString(cur.scalar_type()), "Tensor ", cur.sizes(), "]", which, " is at version ", cur._version(),
             "; expected version ", saved_version_,
             " instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
             "torchlike.autograd.set_detect_anomaly(True).");
  }
  if (leaf_.defined()) return leaf_;
  if (!requires_grad_ || !is_grad_enabled()) return data_;
  // Re-attach the history (only matters for create_graph / higher order).
  TensorBase r = data_alias(data_);
  if (is_output_) {
    if (owner) set_history(r, owner, output_nr_);
  } else if (grad_fn_) {
    set_history(r, grad_fn_, output_nr_);
  }
  return r;
}

}  // namespace torchlike::autograd
