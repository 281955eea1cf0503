// In-place writes through views, recorded on the base (PyTorch's CopySlices),
// and the as_strided replay that regenerates a view's grad_fn after its base
// changed in place.
#pragma once
#include <memory>
#include <string>
#include "Node.h"

namespace torchlike::autograd {

// Where a view lies in its base's memory: sizes, strides and storage offset.
struct ViewGeometry {
  c10::DimVector sizes, strides;
  int64_t storage_offset = 0;
  ViewGeometry() = default;
  explicit ViewGeometry(const TensorBase& t)
      : sizes(t.sizes()), strides(t.strides()), storage_offset(t.storage_offset()) {}
};

// The base's history after `fn` wrote in place into a view of it. Next edges
// are fn's, except that the written view's (`self_edge`) becomes the base's
// history before the write. The
// base's gradient passes through unchanged outside the written window; inside
// it, fn maps the gradient of the written values to the gradient of the old
// values (self_edge) and of fn's other inputs.
class CopySlices final : public Node {
 public:
  CopySlices(const TensorBase& base, const TensorBase& view, std::shared_ptr<Node> fn, size_t self_edge);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "CopySlices"; }
  void release_variables() override;

 private:
  ViewGeometry base_, view_;
  std::shared_ptr<Node> fn_;
  size_t self_edge_;
};

// A view's grad_fn regenerated after an in-place change of its base: the
// gradient of the view, scattered into a zero gradient of the base's shape.
class AsStridedViewBackward final : public Node {
 public:
  AsStridedViewBackward(const TensorBase& base, const TensorBase& view);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "AsStridedBackward0"; }

 private:
  ViewGeometry base_, view_;
};

}  // namespace torchlike::autograd
