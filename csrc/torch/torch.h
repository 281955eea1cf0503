// PyTorch's C++ API names over torchlike's (see torch/extension.h).
#pragma once
#include "aten/ATen.h"
#include "c10/Exception.h"
#include "c10/Library.h"
#include "c10/ScalarType.h"

#include <optional>
#include <type_traits>

namespace c10 {
// Older extension sources spell std::optional as c10::optional.
template <class T>
using optional = std::optional<T>;
using std::make_optional;
using std::nullopt;
}  // namespace c10

namespace at {
// PyTorch's factory overloads taking TensorOptions (torch::zeros({n},
// x.options())). Templates constrained to TensorOptions exactly, so a bare
// dtype (torch::zeros({n}, torch::kFloat)) still picks the dtype overload
// instead of being ambiguous between the two conversions.
template <class O>
using if_tensor_options_t = std::enable_if_t<std::is_same_v<std::decay_t<O>, c10::TensorOptions>, int>;
template <class O, if_tensor_options_t<O> = 0>
inline Tensor empty(IntArrayRef size, const O& o) { return empty(size, o.dtype, std::nullopt, o.device); }
template <class O, if_tensor_options_t<O> = 0>
inline Tensor zeros(IntArrayRef size, const O& o) { return zeros(size, o.dtype, std::nullopt, o.device); }
template <class O, if_tensor_options_t<O> = 0>
inline Tensor ones(IntArrayRef size, const O& o) { return ones(size, o.dtype, std::nullopt, o.device); }
template <class O, if_tensor_options_t<O> = 0>
inline Tensor full(IntArrayRef size, const Scalar& value, const O& o) {
  return full(size, value, o.dtype, std::nullopt, o.device);
}
template <class O, if_tensor_options_t<O> = 0>
inline Tensor rand(IntArrayRef size, const O& o) { return rand(size, std::nullopt, o.dtype, std::nullopt, o.device); }
template <class O, if_tensor_options_t<O> = 0>
inline Tensor randn(IntArrayRef size, const O& o) { return randn(size, std::nullopt, o.dtype, std::nullopt, o.device); }
}  // namespace at

namespace torch {
using namespace at;  // torch::Tensor, torch::sigmoid, torch::zeros_like, ...
using c10::Device;
using c10::Scalar;
using c10::ScalarType;
using c10::TensorOptions;
constexpr auto kFloat32 = c10::ScalarType::Float;
constexpr auto kFloat = c10::ScalarType::Float;
constexpr auto kFloat64 = c10::ScalarType::Double;
constexpr auto kDouble = c10::ScalarType::Double;
constexpr auto kFloat16 = c10::ScalarType::Half;
constexpr auto kHalf = c10::ScalarType::Half;
constexpr auto kBFloat16 = c10::ScalarType::BFloat16;
constexpr auto kInt32 = c10::ScalarType::Int;
constexpr auto kInt = c10::ScalarType::Int;
constexpr auto kInt64 = c10::ScalarType::Long;
constexpr auto kLong = c10::ScalarType::Long;
constexpr auto kBool = c10::ScalarType::Bool;
constexpr auto kUInt8 = c10::ScalarType::Byte;
}  // namespace torch

// PyTorch's check macros: TORCH_CHECK(cond, message parts...) raises
// RuntimeError; the _INDEX/_TYPE/_VALUE forms the matching Python types.
#define TORCH_CHECK(cond, ...) TL_CHECK(cond, "" __VA_ARGS__)
#define TORCH_CHECK_INDEX(cond, ...) TL_CHECK_INDEX(cond, "" __VA_ARGS__)
#define TORCH_CHECK_TYPE(cond, ...) TL_CHECK_TYPE(cond, "" __VA_ARGS__)
#define TORCH_CHECK_VALUE(cond, ...) TL_CHECK_VALUE(cond, "" __VA_ARGS__)
#define TORCH_CHECK_NOT_IMPLEMENTED(cond, ...) TL_CHECK_NOT_IMPLEMENTED(cond, "" __VA_ARGS__)
#define TORCH_INTERNAL_ASSERT(cond, ...) TL_CHECK(cond, "internal assert failed: " #cond " " __VA_ARGS__)

// AT_DISPATCH_*(dtype, "name", [&] { ... scalar_t ... }), with PyTorch's type
// sets: FLOATING_TYPES is float and double only (the _AND_HALF/_AND2 forms add
// the 16-bit types), ALL_TYPES the integers and float and double.
#define TORCH_PRIVATE_CASES_FLOAT_DOUBLE(...)    \
  TL_PRIVATE_CASE(float, Float, __VA_ARGS__)     \
  TL_PRIVATE_CASE(double, Double, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) \
  TL_DISPATCH_SWITCH(TYPE, NAME, TORCH_PRIVATE_CASES_FLOAT_DOUBLE(__VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) \
  TL_DISPATCH_SWITCH(TYPE, NAME, TL_PRIVATE_CASE(c10::Half, Half, __VA_ARGS__) TORCH_PRIVATE_CASES_FLOAT_DOUBLE(__VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND2(T1, T2, TYPE, NAME, ...) TL_DISPATCH_FLOATING_TYPES(TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) \
  TL_DISPATCH_SWITCH(TYPE, NAME, TL_CASES_INTEGRAL(__VA_ARGS__) TORCH_PRIVATE_CASES_FLOAT_DOUBLE(__VA_ARGS__))
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) TL_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, __VA_ARGS__)

// TORCH_LIBRARY(ns, m) { m.def("..."); }  TORCH_LIBRARY_IMPL(ns, CPU, m) { m.impl("op", &fn); }
#define TORCH_LIBRARY(ns, m) TL_LIBRARY(ns, m)
#define TORCH_LIBRARY_FRAGMENT(ns, m) TL_LIBRARY(ns, m)
#define TORCH_LIBRARY_IMPL(ns, k, m) TL_LIBRARY_IMPL(ns, k, m)
