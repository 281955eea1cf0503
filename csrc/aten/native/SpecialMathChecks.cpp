// Argument rules of the special-function and pointwise-extra operators that
// their formulas cannot state (declared in PointwiseChecks.h).
#include "PointwiseChecks.h"

namespace at::native {

void nextafter_check(const char* op, const TensorBase& self, const TensorBase& other) {
  for (const TensorBase* t : {&self, &other}) {
    ScalarType st = t->scalar_type();
    TL_CHECK_NOT_IMPLEMENTED(st != ScalarType::Half && st != ScalarType::BFloat16, "\"", op,
                             "\" not implemented for '", c10::toString(st), "'");
  }
}

void heaviside_check(const char* op, const TensorBase& self, const TensorBase& values) {
  TL_CHECK(self.scalar_type() == values.scalar_type(), op,
           " is not yet implemented for tensors with different dtypes (got ", c10::toString(self.scalar_type()),
           " and ", c10::toString(values.scalar_type()), ")");
}

}  // namespace at::native
