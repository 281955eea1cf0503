// A tensor a backward formula needs, saved at forward time together with its
// version, so modifying it in place before backward is detected. A saved
// output is stored without its grad_fn (which is the saving node itself:
// a reference cycle) and gets it back on unpack.
#pragma once
#include <optional>
#include "AutogradMeta.h"

namespace torchlike::autograd {

class SavedVariable {
 public:
  SavedVariable() = default;
  SavedVariable(const TensorBase& t, bool is_output);
  // Optional tensor arguments (Tensor?): an absent one saves as undefined.
  SavedVariable(const std::optional<TensorBase>& t, bool is_output) : SavedVariable(t ? *t : TensorBase(), is_output) {}
  // `owner` is the node that saved it: needed to re-attach a saved output.
  TensorBase unpack(const std::shared_ptr<Node>& owner = nullptr) const;
  void reset_data();
  bool defined() const { return was_defined_; }

 private:
  TensorBase data_;               // shares storage and version counter, no autograd meta
  std::shared_ptr<Node> grad_fn_;  // for saved inputs that are non-leaves
  std::weak_ptr<Node> accumulator_;
  TensorBase leaf_;               // saved leaf requiring grad: unpack returns it (its .grad identity matters)
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false, was_defined_ = false, released_ = false, requires_grad_ = false;
  std::string producer_;      // for error messages: "ExpBackward0"
};

}  // namespace torchlike::autograd
