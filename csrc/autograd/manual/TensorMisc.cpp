#include "autograd/manual/TensorMisc.h"

namespace torchlike::autograd::generated {

at::TensorBase as_strided_geometry_backward(const at::TensorBase& grad, at::IntArrayRef self_sizes,
                                            at::IntArrayRef self_strides, int64_t self_offset, at::IntArrayRef size,
                                            at::IntArrayRef stride, std::optional<int64_t> storage_offset) {
  // as_strided_backward reads only the geometry of its `self`: a Meta tensor
  // (no memory) carries the old one, so the node never keeps self's storage
  // or its version alive, as PyTorch's TensorGeometry does not.
  at::TensorBase geometry = c10::make_empty({0}, at::TensorOptions(grad.scalar_type(), at::Device(at::kMeta)));
  geometry.unsafeGetTensorImpl()->set_sizes_and_strides(self_sizes, self_strides, self_offset);
  return as_strided_backward(grad, geometry, size, stride, storage_offset.value_or(self_offset));
}

}  // namespace torchlike::autograd::generated
