// The C++ API, for code outside the library (extensions, the C++ API tests):
// at::Tensor with a method per operator, at:: functions on at::Tensor, and
// operators. Library code includes only what it uses (c10/Tensor.h, ops/<name>.h).
#pragma once
#include "Functions.h"
#include "TensorBody.h"
#include "aten/TensorOperators.h"
