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
Tensor operator==(const Tensor& a, const Scalar& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Scalar& b);
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

// Pointwise ops with piecewise definitions.
at::Tensor div_mode_backward_self(const at::Tensor& grad, const at::Tensor& other,
                                  std::optional<std::string_view> rounding_mode);
at::Tensor div_mode_backward_other(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& other,
                                   std::optional<std::string_view> rounding_mode);
at::Tensor clamp_backward(const at::Tensor& grad, const at::Tensor& self, const std::optional<at::Tensor>& min,
                          const std::optional<at::Tensor>& max);
at::Tensor clamp_backward_min(const at::Tensor& grad, const at::Tensor& self, const std::optional<at::Tensor>& min,
                              const std::optional<at::Tensor>& max);
at::Tensor clamp_backward_max(const at::Tensor& grad, const at::Tensor& self, const std::optional<at::Tensor>& min,
                              const std::optional<at::Tensor>& max);

// Views: the gradient of a view op, as an op on grad.
at::Tensor permute_backwards(const at::Tensor& grad, at::IntArrayRef dims);
at::Tensor unsqueeze_to(const at::Tensor& grad, at::IntArrayRef sizes);
at::Tensor unsqueeze_to(const at::Tensor& grad, int64_t dim, at::IntArrayRef sizes);
at::Tensor unsqueeze_to(const at::Tensor& grad, at::IntArrayRef dims, at::IntArrayRef sizes);
at::Tensor select_backward(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dim, int64_t index);
at::Tensor slice_backward(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                          std::optional<int64_t> end, int64_t step);
at::Tensor diagonal_backward(const at::Tensor& grad, at::IntArrayRef sizes, int64_t offset, int64_t dim1,
                             int64_t dim2);
at::Tensor unfold_backward(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dimension, int64_t size,
                           int64_t step);
at::Tensor as_strided_backward(const at::Tensor& grad, const at::Tensor& self, at::IntArrayRef size,
                               at::IntArrayRef stride, std::optional<int64_t> storage_offset);
at::Tensor _to_copy_backward(const at::Tensor& grad, const at::TensorOptions& self_options);

// Reductions.
at::Tensor restore_reduced_dims(const at::Tensor& output, at::IntArrayRef dims, bool keepdim);
at::Tensor scale_grad_by_count(const at::Tensor& grad, const at::Tensor& mask, at::IntArrayRef dims);
at::Tensor sum_backward(const at::Tensor& grad, at::IntArrayRef sizes, std::optional<at::IntArrayRef> dims,
                        bool keepdim);
at::Tensor mean_backward(const at::Tensor& grad, at::IntArrayRef sizes, std::optional<at::IntArrayRef> dims,
                         bool keepdim);
at::Tensor prod_backward(const at::Tensor& grad, const at::Tensor& input, const at::Tensor& result);
at::Tensor prod_backward(const at::Tensor& grad, const at::Tensor& input, const at::Tensor& result, int64_t dim,
                         bool keepdim);
at::Tensor evenly_distribute_backward(const at::Tensor& grad, const at::Tensor& input, const at::Tensor& value);
at::Tensor value_selecting_reduction_backward(const at::Tensor& grad, int64_t dim, const at::Tensor& indices,
                                              at::IntArrayRef sizes, bool keepdim);
at::Tensor var_backward(const at::Tensor& grad, const at::Tensor& self, std::optional<at::IntArrayRef> dims,
                        const std::optional<at::Scalar>& correction, bool keepdim);
at::Tensor std_backward(const at::Tensor& result, const at::Tensor& grad, const at::Tensor& self,
                        std::optional<at::IntArrayRef> dims, const std::optional<at::Scalar>& correction,
                        bool keepdim);
at::Tensor norm_backward(const at::Tensor& grad, const at::Tensor& self, const std::optional<at::Scalar>& p,
                         const at::Tensor& norm, std::optional<at::IntArrayRef> dims, bool keepdim);
at::Tensor logsumexp_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result,
                              at::IntArrayRef dims, bool keepdim);
at::Tensor cumsum_backward(const at::Tensor& grad, int64_t dim);
at::Tensor cumprod_backward(const at::Tensor& grad, const at::Tensor& input, int64_t dim, const at::Tensor& output);
}  // namespace generated

}  // namespace torchlike::autograd
