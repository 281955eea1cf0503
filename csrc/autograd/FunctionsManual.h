// What generated backward formulas compile against: arithmetic operators on
// tensors (formulas are written `grad * other`), saved metadata standing in
// for a tensor when a formula only needs its sizes/dtype, and the hand-written
// backward helpers (sum_backward, ...). Definitions live in FunctionsManual.cpp
// so generated files include only declarations.
#pragma once
#include <optional>
#include <string_view>
#include "AutogradMeta.h"
#include "SavedVariable.h"

namespace c10 {
// Found by argument-dependent lookup from any namespace.
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Scalar& b);
Tensor operator<(const Tensor& a, const Scalar& b);
Tensor operator>=(const Tensor& a, const Scalar& b);
Tensor operator<=(const Tensor& a, const Scalar& b);
}  // namespace c10

namespace torchlike::autograd {

// A tensor's metadata, saved when a formula only calls sizes()/dim()/numel()/
// scalar_type()/options() on it.
struct SavedMeta {
  c10::DimVector sizes_;
  at::ScalarType dtype_ = at::ScalarType::Undefined;
  at::Device device_;
  SavedMeta() = default;
  explicit SavedMeta(const at::Tensor& t) : sizes_(t.sizes()), dtype_(t.scalar_type()), device_(t.device()) {}
  at::IntArrayRef sizes() const { return sizes_; }
  at::IntArrayRef sym_sizes() const { return sizes_; }
  int64_t dim() const { return (int64_t)sizes_.size(); }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes_) n *= s;
    return n;
  }
  at::ScalarType scalar_type() const { return dtype_; }
  at::TensorOptions options() const { return at::TensorOptions(dtype_, device_); }
};

// Anomaly mode: the Python layer installs a function returning the current
// Python stack, recorded on each node created while anomaly mode is on.
using StackProvider = std::string (*)();
void set_stack_provider(StackProvider p);
std::string current_stack();

// Raised in a forward op with out= when an input requires grad.
[[noreturn]] void out_variant_requires_grad(const char* op);

namespace generated {
// Backward helpers used by derivative formulas in native_functions.yaml.
at::Tensor maybe_multiply(const at::Tensor& t, const at::Scalar& s);
at::Tensor pow_backward_self(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& exponent);
at::Tensor pow_backward_exponent(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& exponent,
                                 const at::Tensor& result);
at::Tensor threshold_backward(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& threshold);
}  // namespace generated

}  // namespace torchlike::autograd
