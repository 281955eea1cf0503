// PyTorch's result_type: dimensioned tensors decide, 0-dim tensors and Python
// numbers (wrapped scalars) participate only when they raise the category
// (bool < integer < floating).
#pragma once
#include "../c10/Tensor.h"

namespace at {

struct ResultTypeState {
  ScalarType dimResult = ScalarType::Undefined;
  ScalarType zeroResult = ScalarType::Undefined;
  ScalarType wrappedResult = ScalarType::Undefined;
};

void update_result_type_state(const TensorBase& t, ResultTypeState& s);
void update_result_type_state(const Scalar& v, ResultTypeState& s);
ScalarType result_type(const ResultTypeState& s);
ScalarType result_type(ArrayRef<TensorBase> tensors);

}  // namespace at
