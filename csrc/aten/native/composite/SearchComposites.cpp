// bucketize and isin, built from searchsorted and sort: every backend with
// those (and Meta for bucketize) runs them.
#include <optional>
#include <tuple>

#include "ops/clamp.h"
#include "ops/eq.h"
#include "ops/index_select.h"
#include "ops/logical_not.h"
#include "ops/reshape.h"
#include "ops/searchsorted.h"
#include "ops/sort.h"

namespace at::native {

TensorBase bucketize(const TensorBase& self, const TensorBase& boundaries, bool out_int32, bool right) {
  TL_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return at::_ops::searchsorted(boundaries, self, out_int32, right, std::nullopt, std::nullopt);
}

TensorBase bucketize_scalar(const Scalar& self, const TensorBase& boundaries, bool out_int32, bool right) {
  return bucketize(c10::scalar_to_tensor(self, boundaries.scalar_type(), boundaries.device()), boundaries, out_int32,
                   right);
}

TensorBase isin(const TensorBase& elements, const TensorBase& test_elements, bool assume_unique, bool invert) {
  (void)assume_unique;  // a sorted search is exact either way
  TL_CHECK(elements.scalar_type() == test_elements.scalar_type(), "isin(): elements and test_elements must have the ",
           "same dtype here, but got ", c10::toString(elements.scalar_type()), " and ",
           c10::toString(test_elements.scalar_type()));
  TensorBase flat = at::_ops::reshape(test_elements, {-1});
  TensorBase sorted = std::get<0>(at::_ops::sort(flat, 0, false));
  TensorBase found;
  if (flat.numel() == 0) {
    found = at::_ops::eq(elements, elements);   // all true, then inverted below: nothing is in an empty set
    found = at::_ops::logical_not(found);
  } else {
    TensorBase pos = at::_ops::searchsorted(sorted, at::_ops::reshape(elements, {-1}), false, false, std::nullopt,
                                            std::nullopt);
    TensorBase last = c10::scalar_to_tensor(Scalar(flat.numel() - 1), ScalarType::Long, pos.device());
    pos = at::_ops::clamp(pos, std::nullopt, last);
    TensorBase at_pos = at::_ops::index_select(sorted, 0, pos);
    found = at::_ops::reshape(at::_ops::eq(at_pos, at::_ops::reshape(elements, {-1})), elements.sizes());
  }
  return invert ? at::_ops::logical_not(found) : found;
}

TensorBase isin_scalar_tensor(const Scalar& element, const TensorBase& test_elements, bool assume_unique,
                              bool invert) {
  return isin(c10::scalar_to_tensor(element, test_elements.scalar_type(), test_elements.device()), test_elements,
              assume_unique, invert);
}

TensorBase isin_tensor_scalar(const TensorBase& elements, const Scalar& test_element, bool assume_unique,
                              bool invert) {
  return isin(elements, c10::scalar_to_tensor(test_element, elements.scalar_type(), elements.device()),
              assume_unique, invert);
}

}  // namespace at::native
