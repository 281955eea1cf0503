// What generated backward formulas compile against: arithmetic operators on
// tensors (formulas are written `grad * other`), saved metadata standing in
// for a tensor when a formula only needs its sizes/dtype, and the hand-written
// backward helpers (sum_backward, ...). Definitions live in FunctionsManual.cpp
// so generated files include only declarations.
#pragma once
#include <optional>
#include <string_view>
#include <vector>
#include "AutogradMeta.h"
#include "SavedVariable.h"

namespace c10 {
// Found by argument-dependent lookup from any namespace.
TensorBase operator+(const TensorBase& a, const TensorBase& b);
TensorBase operator-(const TensorBase& a, const TensorBase& b);
TensorBase operator*(const TensorBase& a, const TensorBase& b);
TensorBase operator/(const TensorBase& a, const TensorBase& b);
TensorBase operator+(const TensorBase& a, const Scalar& b);
TensorBase operator-(const TensorBase& a, const Scalar& b);
TensorBase operator*(const TensorBase& a, const Scalar& b);
TensorBase operator/(const TensorBase& a, const Scalar& b);
TensorBase operator+(const Scalar& a, const TensorBase& b);
TensorBase operator-(const Scalar& a, const TensorBase& b);
TensorBase operator*(const Scalar& a, const TensorBase& b);
TensorBase operator/(const Scalar& a, const TensorBase& b);
TensorBase operator-(const TensorBase& a);
TensorBase operator>(const TensorBase& a, const TensorBase& b);
TensorBase operator<(const TensorBase& a, const TensorBase& b);
TensorBase operator>=(const TensorBase& a, const TensorBase& b);
TensorBase operator<=(const TensorBase& a, const TensorBase& b);
TensorBase operator==(const TensorBase& a, const TensorBase& b);
TensorBase operator>(const TensorBase& a, const Scalar& b);
TensorBase operator<(const TensorBase& a, const Scalar& b);
TensorBase operator>=(const TensorBase& a, const Scalar& b);
TensorBase operator<=(const TensorBase& a, const Scalar& b);
TensorBase operator==(const TensorBase& a, const Scalar& b);
TensorBase operator!=(const TensorBase& a, const TensorBase& b);
TensorBase operator!=(const TensorBase& a, const Scalar& b);
}  // namespace c10

namespace torchlike::autograd {

// A tensor's metadata, saved when a formula only calls sizes()/dim()/numel()/
// scalar_type()/options() on it.
struct SavedMeta {
  c10::DimVector sizes_;
  // Strides and offset: the geometry an in-place view op (as_strided_) had
  // before it changed it, which its backward maps the gradient back onto.
  c10::DimVector strides_;
  int64_t storage_offset_ = 0;
  at::ScalarType dtype_ = at::ScalarType::Undefined;
  at::Device device_;
  SavedMeta() = default;
  explicit SavedMeta(const at::TensorBase& t)
      : sizes_(t.sizes()),
        strides_(t.strides()),
        storage_offset_(t.storage_offset()),
        dtype_(t.scalar_type()),
        device_(t.device()) {}
  at::IntArrayRef sizes() const { return sizes_; }
  at::IntArrayRef strides() const { return strides_; }
  int64_t storage_offset() const { return storage_offset_; }
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
at::TensorBase maybe_multiply(const at::TensorBase& t, const at::Scalar& s);
at::TensorBase pow_backward_self(const at::TensorBase& grad, const at::TensorBase& self, const at::TensorBase& exponent);
at::TensorBase pow_backward_exponent(const at::TensorBase& grad, const at::TensorBase& self, const at::TensorBase& exponent,
                                 const at::TensorBase& result);
at::TensorBase threshold_backward(const at::TensorBase& grad, const at::TensorBase& self, const at::Scalar& threshold);

// Pointwise ops with piecewise definitions.
at::TensorBase div_mode_backward_self(const at::TensorBase& grad, const at::TensorBase& other,
                                  std::optional<std::string_view> rounding_mode);
at::TensorBase div_mode_backward_other(const at::TensorBase& grad, const at::TensorBase& self, const at::TensorBase& other,
                                   std::optional<std::string_view> rounding_mode);
at::TensorBase clamp_backward(const at::TensorBase& grad, const at::TensorBase& self, const std::optional<at::TensorBase>& min,
                          const std::optional<at::TensorBase>& max);
at::TensorBase clamp_backward_min(const at::TensorBase& grad, const at::TensorBase& self, const std::optional<at::TensorBase>& min,
                              const std::optional<at::TensorBase>& max);
at::TensorBase clamp_backward_max(const at::TensorBase& grad, const at::TensorBase& self, const std::optional<at::TensorBase>& min,
                              const std::optional<at::TensorBase>& max);

// Views: the gradient of a view op, as an op on grad.
at::TensorBase permute_backwards(const at::TensorBase& grad, at::IntArrayRef dims);
at::TensorBase unsqueeze_to(const at::TensorBase& grad, at::IntArrayRef sizes);
at::TensorBase unsqueeze_to(const at::TensorBase& grad, int64_t dim, at::IntArrayRef sizes);
at::TensorBase unsqueeze_to(const at::TensorBase& grad, at::IntArrayRef dims, at::IntArrayRef sizes);
at::TensorBase select_backward(const at::TensorBase& grad, at::IntArrayRef sizes, int64_t dim, int64_t index);
at::TensorBase slice_backward(const at::TensorBase& grad, at::IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                          std::optional<int64_t> end, int64_t step);
at::TensorBase diagonal_backward(const at::TensorBase& grad, at::IntArrayRef sizes, int64_t offset, int64_t dim1,
                             int64_t dim2);
at::TensorBase unfold_backward(const at::TensorBase& grad, at::IntArrayRef sizes, int64_t dimension, int64_t size,
                           int64_t step);
at::TensorBase as_strided_backward(const at::TensorBase& grad, const at::TensorBase& self, at::IntArrayRef size,
                               at::IntArrayRef stride, std::optional<int64_t> storage_offset);
at::TensorBase _to_copy_backward(const at::TensorBase& grad, const at::TensorOptions& self_options);

// Reductions.
at::TensorBase restore_reduced_dims(const at::TensorBase& output, at::IntArrayRef dims, bool keepdim);
at::TensorBase scale_grad_by_count(const at::TensorBase& grad, const at::TensorBase& mask, at::IntArrayRef dims);
at::TensorBase sum_backward(const at::TensorBase& grad, at::IntArrayRef sizes, std::optional<at::IntArrayRef> dims,
                        bool keepdim);
at::TensorBase mean_backward(const at::TensorBase& grad, at::IntArrayRef sizes, std::optional<at::IntArrayRef> dims,
                         bool keepdim);
at::TensorBase prod_backward(const at::TensorBase& grad, const at::TensorBase& input, const at::TensorBase& result);
at::TensorBase prod_backward(const at::TensorBase& grad, const at::TensorBase& input, const at::TensorBase& result, int64_t dim,
                         bool keepdim);
at::TensorBase evenly_distribute_backward(const at::TensorBase& grad, const at::TensorBase& input, const at::TensorBase& value);
at::TensorBase value_selecting_reduction_backward(const at::TensorBase& grad, int64_t dim, const at::TensorBase& indices,
                                              at::IntArrayRef sizes, bool keepdim);
at::TensorBase var_backward(const at::TensorBase& grad, const at::TensorBase& self, std::optional<at::IntArrayRef> dims,
                        const std::optional<at::Scalar>& correction, bool keepdim);
at::TensorBase std_backward(const at::TensorBase& result, const at::TensorBase& grad, const at::TensorBase& self,
                        std::optional<at::IntArrayRef> dims, const std::optional<at::Scalar>& correction,
                        bool keepdim);
at::TensorBase norm_backward(const at::TensorBase& grad, const at::TensorBase& self, const std::optional<at::Scalar>& p,
                         const at::TensorBase& norm, std::optional<at::IntArrayRef> dims, bool keepdim);
at::TensorBase logsumexp_backward(const at::TensorBase& grad, const at::TensorBase& self, const at::TensorBase& result,
                              at::IntArrayRef dims, bool keepdim);
at::TensorBase cumsum_backward(const at::TensorBase& grad, int64_t dim);
at::TensorBase cumprod_backward(const at::TensorBase& grad, const at::TensorBase& input, int64_t dim, const at::TensorBase& output);

// Tensor[] arguments. A formula that reads a list only through
// to_args_sizes(...) saves just its elements' metadata.
std::vector<std::vector<int64_t>> to_args_sizes(const std::vector<SavedMeta>& tensors);
std::vector<std::vector<int64_t>> to_args_sizes(at::TensorBaseList tensors);
// cat: grad split back into the inputs' extents along dim (a legacy 1-D
// empty input, skipped by cat, gets an empty gradient).
std::vector<at::TensorBase> cat_tensors_backward(const at::TensorBase& grad,
                                                 const std::vector<std::vector<int64_t>>& sizes, int64_t dim);
}  // namespace generated

}  // namespace torchlike::autograd

// Per-area helpers (one header each, so areas edit their own files).
#include "autograd/manual/Indexing.h"
#include "autograd/manual/ScatterGather.h"
#include "autograd/manual/ShapeOps.h"
#include "autograd/manual/NnConvPool.h"
#include "autograd/manual/NnNorm.h"
#include "autograd/manual/NnActLoss.h"
#include "autograd/manual/Linalg.h"
#include "autograd/manual/SpecialMath.h"
#include "autograd/manual/UniqueMode.h"
#include "autograd/manual/Statistics.h"
#include "autograd/manual/EinsumMisc.h"
#include "autograd/manual/RandomDists.h"
#include "autograd/manual/TensorMisc.h"
