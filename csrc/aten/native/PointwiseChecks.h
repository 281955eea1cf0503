// Argument rules of pointwise operators that their formulas cannot state.
// native_functions.yaml names one per op (`pointwise: {check: ...}`); the
// generated kernel calls it with the op's name and its tensor inputs, as the
// caller passed them (a Python number is a wrapped 0-dim tensor), before the
// loop is built.
#pragma once
#include <initializer_list>
#include "../../c10/Tensor.h"

namespace at::native {

// Floating-only ops (`dtypes: floating` without int_to_float): the tensors'
// own dtypes, Python numbers aside, must be floating (frac(int), lerp(int)).
void check_floating_operands(const char* op, std::initializer_list<const TensorBase*> inputs);

// a - b refuses bool operands; PyTorch points to ~ and ^.
void sub_check(const char* op, const TensorBase& self, const TensorBase& other);
// -b refuses bool.
void neg_check(const char* op, const TensorBase& self);
// int_tensor ** n with a Python number n: n must fit the tensor's dtype and
// not be negative (a tensor exponent may be: 2 ** -1 is 0 there, as in PyTorch).
void pow_check(const char* op, const TensorBase& self, const TensorBase& exponent);

// nextafter refuses float16/bfloat16 (the step would be taken in float).
void nextafter_check(const char* op, const TensorBase& self, const TensorBase& other);
// heaviside needs both tensors of one dtype, as PyTorch.
void heaviside_check(const char* op, const TensorBase& self, const TensorBase& values);

}  // namespace at::native
