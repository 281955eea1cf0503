#include "FunctionsManual.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "../aten/Parallel.h"

#include "ops/_to_copy.h"
#include "ops/abs.h"
#include "ops/add.h"
#include "ops/any.h"
#include "ops/arange.h"
#include "ops/as_strided.h"
#include "ops/contiguous.h"
#include "ops/copy.h"
#include "ops/cumprod.h"
#include "ops/cumsum.h"
#include "ops/diagonal.h"
#include "ops/exp.h"
#include "ops/expand.h"
#include "ops/isnan.h"
#include "ops/logical_and.h"
#include "ops/logical_not.h"
#include "ops/logical_or.h"
#include "ops/mean.h"
#include "ops/ne.h"
#include "ops/ones_like.h"
#include "ops/permute.h"
#include "ops/prod.h"
#include "ops/reshape.h"
#include "ops/select.h"
#include "ops/sign.h"
#include "ops/slice.h"
#include "ops/squeeze.h"
#include "ops/sum.h"
#include "ops/unfold.h"
#include "ops/unsqueeze.h"
#include "ops/view.h"
#include "ops/zeros.h"
#include "ops/div.h"
#include "ops/eq.h"
#include "ops/ge.h"
#include "ops/gt.h"
#include "ops/le.h"
#include "ops/log.h"
#include "ops/lt.h"
#include "ops/mul.h"
#include "ops/neg.h"
#include "ops/pow.h"
#include "ops/sub.h"
#include "ops/where.h"
#include "ops/zeros_like.h"

namespace c10 {
static Tensor S(const Scalar& s) { return wrapped_scalar_tensor(s); }
Tensor operator+(const Tensor& a, const Tensor& b) { return at::add(a, b, 1); }
Tensor operator-(const Tensor& a, const Tensor& b) { return at::sub(a, b, 1); }
Tensor operator*(const Tensor& a, const Tensor& b) { return at::mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return at::div(a, b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return at::add(a, S(b), 1); }
Tensor operator-(const Tensor& a, const Scalar& b) { return at::sub(a, S(b), 1); }
Tensor operator*(const Tensor& a, const Scalar& b) { return at::mul(a, S(b)); }
Tensor operator/(const Tensor& a, const Scalar& b) { return at::div(a, S(b)); }
Tensor operator+(const Scalar& a, const Tensor& b) { return at::add(S(a), b, 1); }
Tensor operator-(const Scalar& a, const Tensor& b) { return at::sub(S(a), b, 1); }
Tensor operator*(const Scalar& a, const Tensor& b) { return at::mul(S(a), b); }
Tensor operator/(const Scalar& a, const Tensor& b) { return at::div(S(a), b); }
Tensor operator-(const Tensor& a) { return at::neg(a); }
Tensor operator>(const Tensor& a, const Tensor& b) { return at::gt(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return at::lt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return at::ge(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return at::le(a, b); }
Tensor operator==(const Tensor& a, const Tensor& b) { return at::eq(a, b); }
Tensor operator>(const Tensor& a, const Scalar& b) { return at::gt(a, S(b)); }
Tensor operator<(const Tensor& a, const Scalar& b) { return at::lt(a, S(b)); }
Tensor operator>=(const Tensor& a, const Scalar& b) { return at::ge(a, S(b)); }
Tensor operator<=(const Tensor& a, const Scalar& b) { return at::le(a, S(b)); }
Tensor operator==(const Tensor& a, const Scalar& b) { return at::eq(a, S(b)); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return at::ne(a, b); }
Tensor operator!=(const Tensor& a, const Scalar& b) { return at::ne(a, S(b)); }
}  // namespace c10

namespace torchlike::autograd {

static StackProvider g_stack = nullptr;
void set_stack_provider(StackProvider p) { g_stack = p; }
std::string current_stack() { return g_stack ? g_stack() : std::string(); }

void out_variant_requires_grad(const char* op) {
  TL_ERROR(op, "(): functions with out=... arguments don't support automatic differentiation, but one of the "
               "arguments requires grad.");
}

namespace generated {

at::Tensor maybe_multiply(const at::Tensor& t, const at::Scalar& s) {
  bool is_one = s.isFloatingPoint() ? s.toDouble() == 1.0 : s.toLong() == 1;
  return is_one ? t : t * s;
}

// d/dx x^y = y * x^(y-1); where y == 0 the gradient is 0 (even at x == 0).
at::Tensor pow_backward_self(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& exponent) {
  at::Tensor g = grad * exponent * at::pow(self, exponent - 1);
  return at::where(exponent == c10::wrapped_scalar_tensor(0.0), at::zeros_like(g), g);
}

// d/dy x^y = x^y * log(x); where x == 0 and y >= 0 the gradient is 0.
at::Tensor pow_backward_exponent(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& exponent,
                                 const at::Tensor& result) {
  at::Tensor g = grad * result * at::log(self);
  at::Tensor zero_base = at::eq(self, c10::wrapped_scalar_tensor(0.0));
  return at::where(zero_base, at::zeros_like(g), g);
}

at::Tensor threshold_backward(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& threshold) {
  return at::where(self > threshold, grad, at::zeros_like(grad));
}


// ---------------------------------------------------------------- pointwise

at::Tensor div_mode_backward_self(const at::Tensor& grad, const at::Tensor& other,
                                  std::optional<std::string_view> rounding_mode) {
  // floor/trunc division is piecewise constant: zero gradient almost everywhere.
  if (rounding_mode) return at::zeros_like(grad);
  return grad / other;
}

at::Tensor div_mode_backward_other(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& other,
                                   std::optional<std::string_view> rounding_mode) {
  if (rounding_mode) return at::zeros_like(grad);
  return -grad * self / (other * other);
}

// clamp(self, min, max) passes grad where min <= self <= max (both bounds
// inclusive, as PyTorch); the bound that is active receives it otherwise.
at::Tensor clamp_backward(const at::Tensor& grad, const at::Tensor& self, const std::optional<at::Tensor>& min,
                          const std::optional<at::Tensor>& max) {
  bool has_min = min && min->defined(), has_max = max && max->defined();
  at::Tensor zero = at::zeros_like(grad);
  if (has_min && has_max) return at::where(at::logical_and(self >= *min, self <= *max), grad, zero);
  if (has_min) return at::where(self >= *min, grad, zero);
  if (has_max) return at::where(self <= *max, grad, zero);
  return grad;
}

at::Tensor clamp_backward_min(const at::Tensor& grad, const at::Tensor& self, const std::optional<at::Tensor>& min,
                              const std::optional<at::Tensor>& max) {
  if (!min || !min->defined()) return at::Tensor();
  at::Tensor zero = at::zeros_like(grad);
  // With both bounds and min > max the result is max: min gets nothing.
  if (max && max->defined()) return at::where(at::logical_and(self < *min, *min <= *max), grad, zero);
  return at::where(self < *min, grad, zero);
}

at::Tensor clamp_backward_max(const at::Tensor& grad, const at::Tensor& self, const std::optional<at::Tensor>& min,
                              const std::optional<at::Tensor>& max) {
  if (!max || !max->defined()) return at::Tensor();
  at::Tensor zero = at::zeros_like(grad);
  if (min && min->defined()) return at::where(at::logical_or(self > *max, *min > *max), grad, zero);
  return at::where(self > *max, grad, zero);
}

// ---------------------------------------------------------------- linear maps with a hand-written adjoint
//
// Several backward helpers scatter grad into a zero tensor (select, slice,
// diagonal, as_strided, unfold, reversed cumsum). They run without recording
// (in-place writes into a fresh buffer), and when a graph is being built
// (create_graph) the result gets a node whose backward is the adjoint map
// (the forward view op), so higher-order gradients work to any order.

namespace {

using LinearFn = std::function<at::Tensor(const at::Tensor&)>;

at::Tensor apply_linear(const at::Tensor& x, const std::string& name, const std::string& adj_name, LinearFn f,
                        LinearFn adj);

struct LinearNode final : Node {
  std::string name_, adj_name_;
  LinearFn f_, adj_;
  std::string name() const override { return name_; }
  variable_list apply(variable_list&& grads) override {
    variable_list out(1);
    if (!grads.empty() && grads[0].defined()) out[0] = apply_linear(grads[0], adj_name_, name_, adj_, f_);
    return out;
  }
};

at::Tensor apply_linear(const at::Tensor& x, const std::string& name, const std::string& adj_name, LinearFn f,
                        LinearFn adj) {
  at::Tensor y;
  {
    c10::ExcludeDispatchKeyGuard no_grad(autograd_keys());
    y = f(x);
  }
  if (is_grad_enabled() && requires_grad(x) && c10::isFloatingType(y.scalar_type())) {
    auto node = std::make_shared<LinearNode>();
    // `name` is the map applied here; the node computes the gradient of this
    // result, which is the adjoint map.
    node->name_ = name;
    node->adj_name_ = adj_name;
    node->f_ = std::move(f);
    node->adj_ = std::move(adj);
    set_input_edges(*node, x);
    node->set_num_inputs(1);
    set_history(y, node, 0);
  }
  return y;
}

at::Tensor zeros_of(at::IntArrayRef sizes, const at::Tensor& like) {
  return at::zeros(sizes, like.scalar_type(), std::nullopt, like.device(), std::nullopt);
}

// Which dims a reduction over `dims` (none or empty = all) touched.
std::vector<bool> reduced_mask(std::optional<at::IntArrayRef> dims, int64_t ndim) {
  std::vector<bool> mask(ndim, false);
  if (!dims || dims->empty()) {
    std::fill(mask.begin(), mask.end(), true);
    return mask;
  }
  for (int64_t d : *dims) mask[c10::maybe_wrap_dim(d, ndim)] = true;
  return mask;
}

// grad of a reduction without keepdim -> same rank as the input (size-1 reduced dims).
at::Tensor unsqueeze_reduced(const at::Tensor& grad, const std::vector<bool>& mask, bool keepdim) {
  if (keepdim || grad.dim() == (int64_t)mask.size()) return grad;
  at::Tensor g = grad;
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) g = at::unsqueeze(g, (int64_t)d);
  return g;
}

int64_t reduced_numel(at::IntArrayRef sizes, const std::vector<bool>& mask) {
  int64_t n = 1;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (mask[d]) n *= sizes[d];
  return n;
}

std::vector<int64_t> mask_to_dims(const std::vector<bool>& mask) {
  std::vector<int64_t> dims;
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) dims.push_back((int64_t)d);
  return dims;
}

// Sum of x over dims listed in mask, kept as size-1 dims (all dims when x is 0-dim).
at::Tensor sum_keep(const at::Tensor& x, const std::vector<bool>& mask) {
  if (x.dim() == 0) return x;
  std::vector<int64_t> dims = mask_to_dims(mask);
  return at::sum(x, at::IntArrayRef(dims), true);
}

// Reversed cumulative sum along dim: out[k] = sum_{j >= k} x[j].
at::Tensor reverse_cumsum_impl(const at::Tensor& x, int64_t dim) {
  if (!x.is_cpu()) {
    // Device-generic form (loses a little precision to cancellation).
    return at::sum(x, at::IntArrayRef{dim}, true) - at::cumsum(x, dim) + x;
  }
  at::Tensor in = at::contiguous(x);
  at::Tensor out = zeros_of(x.sizes(), x);
  int64_t n = x.dim() == 0 ? 1 : x.size(dim), inner = 1, outer = 1;
  for (int64_t d = dim + 1; d < x.dim(); ++d) inner *= x.size(d);
  for (int64_t d = 0; d < dim; ++d) outer *= x.size(d);
  TL_DISPATCH_FLOATING_TYPES(x.scalar_type(), "cumsum_backward", [&] {
    using acc_t = c10::opmath_t<scalar_t>;
    const scalar_t* src = in.data_ptr<scalar_t>();
    scalar_t* dst = out.data_ptr<scalar_t>();
    at::parallel_for(0, outer * inner, 2048 / std::max<int64_t>(n, 1) + 1, [&](int64_t b, int64_t e) {
      for (int64_t oi = b; oi < e; ++oi) {
        int64_t o = oi / inner, i = oi % inner;
        const scalar_t* s = src + o * n * inner + i;
        scalar_t* t = dst + o * n * inner + i;
        acc_t acc = 0;
        for (int64_t k = n - 1; k >= 0; --k) {
          acc += (acc_t)s[k * inner];
          t[k * inner] = (scalar_t)acc;
        }
      }
    });
  });
  return out;
}

at::Tensor reverse_cumsum(const at::Tensor& x, int64_t dim) {
  if (x.dim() == 0) return x;
  dim = c10::maybe_wrap_dim(dim, x.dim());
  return apply_linear(
      x, "CumsumBackwardBackward0", "CumsumBackward0", [dim](const at::Tensor& g) { return reverse_cumsum_impl(g, dim); },
      [dim](const at::Tensor& h) { return at::cumsum(h, dim); });
}

// Memory geometry of a strided tensor, for as_strided's backward.
struct Geometry {
  std::vector<int64_t> sizes, strides;
  int64_t offset;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
  // Storage index of each element, in row-major element order.
  std::vector<int64_t> indices() const {
    std::vector<int64_t> idx;
    int64_t n = numel();
    idx.reserve(n);
    std::vector<int64_t> pos(sizes.size(), 0);
    for (int64_t e = 0; e < n; ++e) {
      int64_t off = offset;
      for (size_t d = 0; d < sizes.size(); ++d) off += pos[d] * strides[d];
      idx.push_back(off);
      for (int64_t d = (int64_t)sizes.size() - 1; d >= 0; --d) {
        if (++pos[d] < sizes[d]) break;
        pos[d] = 0;
      }
    }
    return idx;
  }
};

// Scatter-add x (laid out on `from`) into a storage buffer, divide each
// storage slot by how many elements of `counted` alias it (when `counted`
// overlaps itself), and gather the buffer on `to`. as_strided's backward is
// transfer(grad, out, in, in); its adjoint is transfer(h, in, out, in).
at::Tensor strided_transfer(const at::Tensor& x, const Geometry& from, const Geometry& to, const Geometry& counted) {
  TL_CHECK(x.is_cpu(), "as_strided_backward: only CPU tensors are supported");
  std::vector<int64_t> fi = from.indices(), ti = to.indices(), ci = counted.indices();
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = -1;
  for (auto* v : {&fi, &ti, &ci})
    for (int64_t i : *v) lo = std::min(lo, i), hi = std::max(hi, i);
  if (hi < lo) return zeros_of(to.sizes, x);
  at::Tensor xd = at::contiguous(at::_to_copy(x, at::ScalarType::Double));
  const double* src = xd.data_ptr<double>();
  std::vector<double> buf(hi - lo + 1, 0.0);
  for (size_t k = 0; k < fi.size(); ++k) buf[fi[k] - lo] += src[k];
  std::vector<int64_t> count(hi - lo + 1, 0);
  bool overlaps = false;
  for (int64_t i : ci) overlaps |= ++count[i - lo] > 1;
  if (overlaps)
    for (size_t k = 0; k < buf.size(); ++k)
      if (count[k] > 1) buf[k] /= (double)count[k];
  at::Tensor out = at::zeros(to.sizes, at::ScalarType::Double, std::nullopt, x.device(), std::nullopt);
  double* dst = out.data_ptr<double>();
  for (size_t k = 0; k < ti.size(); ++k) dst[k] = buf[ti[k] - lo];
  return at::_to_copy(out, x.scalar_type());
}

}  // namespace

// ---------------------------------------------------------------- views

at::Tensor permute_backwards(const at::Tensor& grad, at::IntArrayRef dims) {
  int64_t n = (int64_t)dims.size();
  std::vector<int64_t> inverse(n);
  for (int64_t i = 0; i < n; ++i) inverse[c10::maybe_wrap_dim(dims[i], n)] = i;
  return at::permute(grad, inverse);
}

// squeeze() removed every size-1 dim of `sizes`: put them back.
at::Tensor unsqueeze_to(const at::Tensor& grad, at::IntArrayRef sizes) {
  at::Tensor g = grad;
  for (int64_t d = 0; d < (int64_t)sizes.size(); ++d)
    if (sizes[d] == 1) g = at::unsqueeze(g, d);
  return g;
}

at::Tensor unsqueeze_to(const at::Tensor& grad, int64_t dim, at::IntArrayRef sizes) {
  if (sizes.empty()) return grad;
  dim = c10::maybe_wrap_dim(dim, (int64_t)sizes.size());
  return sizes[dim] == 1 ? at::unsqueeze(grad, dim) : grad;
}

at::Tensor unsqueeze_to(const at::Tensor& grad, at::IntArrayRef dims, at::IntArrayRef sizes) {
  int64_t n = (int64_t)sizes.size();
  if (n == 0) return grad;
  std::vector<bool> mask(n, false);
  for (int64_t d : dims) mask[c10::maybe_wrap_dim(d, n)] = true;
  at::Tensor g = grad;
  for (int64_t d = 0; d < n; ++d)
    if (mask[d] && sizes[d] == 1) g = at::unsqueeze(g, d);
  return g;
}

at::Tensor select_backward(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dim, int64_t index) {
  std::vector<int64_t> sz = sizes.vec();
  return apply_linear(
      grad, "SelectBackwardBackward0", "SelectBackward0",
      [sz, dim, index](const at::Tensor& g) {
        at::Tensor r = zeros_of(sz, g);
        at::copy_(at::select(r, dim, index), g);
        return r;
      },
      [dim, index](const at::Tensor& h) { return at::select(h, dim, index); });
}

at::Tensor slice_backward(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                          std::optional<int64_t> end, int64_t step) {
  std::vector<int64_t> sz = sizes.vec();
  return apply_linear(
      grad, "SliceBackwardBackward0", "SliceBackward0",
      [=](const at::Tensor& g) {
        at::Tensor r = zeros_of(sz, g);
        at::copy_(at::slice(r, dim, start, end, step), g);
        return r;
      },
      [=](const at::Tensor& h) { return at::slice(h, dim, start, end, step); });
}

at::Tensor diagonal_backward(const at::Tensor& grad, at::IntArrayRef sizes, int64_t offset, int64_t dim1,
                             int64_t dim2) {
  std::vector<int64_t> sz = sizes.vec();
  return apply_linear(
      grad, "DiagonalBackwardBackward0", "DiagonalBackward0",
      [=](const at::Tensor& g) {
        at::Tensor r = zeros_of(sz, g);
        at::copy_(at::diagonal(r, offset, dim1, dim2), g);
        return r;
      },
      [=](const at::Tensor& h) { return at::diagonal(h, offset, dim1, dim2); });
}

// unfold's windows overlap when step < size: add window element k of every
// window at once (one strided slice per k, the windows' k-th elements never
// collide), so the loop runs `size` times, not once per window.
at::Tensor unfold_backward(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dimension, int64_t size,
                           int64_t step) {
  std::vector<int64_t> sz = sizes.vec();
  if (sz.empty()) return at::reshape(grad, at::IntArrayRef{});  // 0-dim input: one window of one element
  int64_t dim = c10::maybe_wrap_dim(dimension, (int64_t)sz.size());
  return apply_linear(
      grad, "UnfoldBackwardBackward0", "UnfoldBackward0",
      [=](const at::Tensor& g) {
        at::Tensor r = zeros_of(sz, g);
        int64_t windows = g.size(dim);
        if (windows == 0) return r;
        for (int64_t k = 0; k < size; ++k) {
          at::Tensor dst = at::slice(r, dim, k, k + (windows - 1) * step + 1, step);
          at::add_(dst, at::select(g, -1, k), 1);
        }
        return r;
      },
      [=](const at::Tensor& h) { return at::unfold(h, dim, size, step); });
}

at::Tensor as_strided_backward(const at::Tensor& grad, const at::Tensor& self, at::IntArrayRef size,
                               at::IntArrayRef stride, std::optional<int64_t> storage_offset) {
  Geometry in{self.sizes().vec(), self.strides().vec(), self.storage_offset()};
  Geometry out{size.vec(), stride.vec(), storage_offset.value_or(self.storage_offset())};
  return apply_linear(
      grad, "AsStridedBackwardBackward0", "AsStridedBackward0",
      [=](const at::Tensor& g) { return strided_transfer(g, out, in, in); },
      [=](const at::Tensor& h) { return strided_transfer(h, in, out, in); });
}

at::Tensor _to_copy_backward(const at::Tensor& grad, const at::TensorOptions& self_options) {
  if (grad.scalar_type() == self_options.dtype && grad.device() == self_options.device) return grad;
  return at::_to_copy(grad, self_options.dtype, std::nullopt, self_options.device);
}

// ---------------------------------------------------------------- reductions

at::Tensor restore_reduced_dims(const at::Tensor& output, at::IntArrayRef dims, bool keepdim) {
  if (keepdim || dims.empty()) return output;  // empty dims reduced everything: output is 0-dim, broadcasts
  int64_t total = output.dim() + (int64_t)dims.size();
  std::vector<bool> mask(total, false);
  for (int64_t d : dims) mask[c10::maybe_wrap_dim(d, total)] = true;
  return unsqueeze_reduced(output, mask, false);
}

// grad split evenly among the positions `mask` selects in each reduced group.
at::Tensor scale_grad_by_count(const at::Tensor& grad, const at::Tensor& mask, at::IntArrayRef dims) {
  at::Tensor count = dims.empty() || mask.dim() == 0 ? at::sum(mask) : at::sum(mask, dims, true);
  return at::where(mask, grad / count, at::zeros_like(grad));
}

at::Tensor sum_backward(const at::Tensor& grad, at::IntArrayRef sizes, std::optional<at::IntArrayRef> dims,
                        bool keepdim) {
  if (sizes.empty()) return grad;
  return at::expand(unsqueeze_reduced(grad, reduced_mask(dims, (int64_t)sizes.size()), keepdim), sizes);
}

at::Tensor mean_backward(const at::Tensor& grad, at::IntArrayRef sizes, std::optional<at::IntArrayRef> dims,
                         bool keepdim) {
  int64_t n = sizes.empty() ? 1 : reduced_numel(sizes, reduced_mask(dims, (int64_t)sizes.size()));
  return sum_backward(grad, sizes, dims, keepdim) / (double)n;
}

namespace {
// d prod / d x_i = product of the others. Without zeros that is result / x;
// with one zero in a group only the zero's position gets the product of the
// rest; with two or more every gradient is 0.
at::Tensor prod_grad(const at::Tensor& grad, const at::Tensor& input_, const at::Tensor& result,
                     std::optional<int64_t> dim) {
  at::Tensor input = input_.scalar_type() == grad.scalar_type() ? input_ : at::_to_copy(input_, grad.scalar_type());
  at::Tensor zero = input == 0.0;
  if (!c10::item(at::any(zero)).toBool()) return grad * result / input;
  at::Tensor x_safe = at::where(zero, at::ones_like(input), input);
  at::Tensor zeros_in_group, prod_nonzero;
  if (dim) {
    zeros_in_group = at::sum(zero, at::IntArrayRef{*dim}, true);
    prod_nonzero = at::prod(x_safe, *dim, true);
  } else {
    zeros_in_group = at::sum(zero);
    prod_nonzero = at::prod(x_safe);
  }
  at::Tensor at_zero = at::where(zeros_in_group == 1.0, prod_nonzero, at::zeros_like(prod_nonzero));
  at::Tensor others = at::where(zero, at_zero, result / x_safe);
  return grad * others;
}
}  // namespace

at::Tensor prod_backward(const at::Tensor& grad, const at::Tensor& input, const at::Tensor& result) {
  if (input.numel() == 0) return zeros_of(input.sizes(), grad);
  return prod_grad(grad, input, result, std::nullopt);
}

at::Tensor prod_backward(const at::Tensor& grad, const at::Tensor& input, const at::Tensor& result, int64_t dim,
                         bool keepdim) {
  if (input.dim() == 0) return grad;
  if (input.numel() == 0) return zeros_of(input.sizes(), grad);
  dim = c10::maybe_wrap_dim(dim, input.dim());
  at::Tensor g = keepdim ? grad : at::unsqueeze(grad, dim);
  at::Tensor r = keepdim ? result : at::unsqueeze(result, dim);
  return prod_grad(g, input, r, dim);
}

// max()/min() over everything: the gradient is shared by all positions equal
// to the result (PyTorch's choice, keeps the gradient symmetric).
at::Tensor evenly_distribute_backward(const at::Tensor& grad, const at::Tensor& input, const at::Tensor& value) {
  at::Tensor mask = input == value;
  if (c10::isFloatingType(input.scalar_type()) && c10::item(at::isnan(value)).toBool()) mask = at::isnan(input);
  at::Tensor count = at::sum(mask);
  return at::where(mask, grad / count, at::zeros_like(input, grad.scalar_type()));
}

// max/min along a dim: the gradient goes to the returned index only.
at::Tensor value_selecting_reduction_backward(const at::Tensor& grad, int64_t dim, const at::Tensor& indices,
                                              at::IntArrayRef sizes, bool keepdim) {
  int64_t n = (int64_t)sizes.size();
  if (n == 0) return grad;
  dim = c10::maybe_wrap_dim(dim, n);
  at::Tensor g = keepdim ? grad : at::unsqueeze(grad, dim);
  at::Tensor idx = keepdim ? indices : at::unsqueeze(indices, dim);
  std::vector<int64_t> pos_shape(n, 1);
  pos_shape[dim] = sizes[dim];
  at::Tensor pos = at::view(at::arange(sizes[dim], at::ScalarType::Long, std::nullopt, grad.device(), std::nullopt),
                            pos_shape);
  at::Tensor mask = at::eq(pos, idx);  // broadcasts to sizes
  return at::where(mask, at::expand(g, sizes), zeros_of(sizes, grad));
}

at::Tensor var_backward(const at::Tensor& grad, const at::Tensor& self, std::optional<at::IntArrayRef> dims,
                        const std::optional<at::Scalar>& correction, bool keepdim) {
  if (self.dim() == 0) return at::zeros_like(self, grad.scalar_type()) * grad;
  std::vector<bool> mask = reduced_mask(dims, self.dim());
  double n = (double)reduced_numel(self.sizes(), mask);
  double c = correction ? correction->toDouble() : 1.0;
  at::Tensor g = unsqueeze_reduced(grad, mask, keepdim);
  std::vector<int64_t> d = mask_to_dims(mask);
  at::Tensor centered = self - at::mean(self, at::IntArrayRef(d), true);
  return (2.0 / std::max(0.0, n - c)) * g * centered;
}

at::Tensor std_backward(const at::Tensor& result, const at::Tensor& grad, const at::Tensor& self,
                        std::optional<at::IntArrayRef> dims, const std::optional<at::Scalar>& correction,
                        bool keepdim) {
  at::Tensor grad_var = at::where(result == 0.0, at::zeros_like(grad), grad / (result * 2.0));
  return var_backward(grad_var, self, dims, correction, keepdim);
}

at::Tensor norm_backward(const at::Tensor& grad, const at::Tensor& self, const std::optional<at::Scalar>& p_,
                         const at::Tensor& norm, std::optional<at::IntArrayRef> dims, bool keepdim) {
  double p = p_ ? p_->toDouble() : 2.0;
  std::vector<bool> mask = reduced_mask(dims, self.dim());
  at::Tensor g = self.dim() == 0 ? grad : unsqueeze_reduced(grad, mask, keepdim);
  at::Tensor nrm = self.dim() == 0 ? norm : unsqueeze_reduced(norm, mask, keepdim);
  at::Tensor zero = at::zeros_like(self, grad.scalar_type());
  if (p == 0.0) return zero;
  if (p == 1.0) return at::sign(self) * g;
  if (p == 2.0) return at::where(nrm == 0.0, zero, self * (g / nrm));
  if (std::isinf(p)) {
    // Shared evenly among the entries whose magnitude is the norm.
    at::Tensor hit = at::abs(self) == nrm;
    at::Tensor count = sum_keep(hit, mask);
    return at::where(hit, at::sign(self) * g / count, zero);
  }
  // sign(x) |x|^(p-1) / ||x||^(p-1); entries at 0 get 0 (also for p < 1,
  // where the one-sided limits disagree: PyTorch's choice).
  at::Tensor scaled = at::sign(self) * at::pow(at::abs(self), c10::wrapped_scalar_tensor(p - 1.0));
  scaled = at::where(self == 0.0, zero, scaled);
  at::Tensor scale = at::where(nrm == 0.0, at::zeros_like(g), g / at::pow(nrm, c10::wrapped_scalar_tensor(p - 1.0)));
  return scaled * scale;
}

at::Tensor logsumexp_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result,
                              at::IntArrayRef dims, bool keepdim) {
  at::Tensor g = grad, r = result;
  if (!keepdim && self.dim() > 0) {
    std::vector<bool> mask = reduced_mask(dims, self.dim());
    g = unsqueeze_reduced(grad, mask, false);
    r = unsqueeze_reduced(result, mask, false);
  }
  return g * at::exp(self - r);
}

at::Tensor cumsum_backward(const at::Tensor& grad, int64_t dim) {
  if (grad.dim() == 0 || grad.numel() == 0) return grad;
  return reverse_cumsum(grad, dim);
}

// d out_j / d x_k = out_j / x_k for j >= k. With zeros, everything after the
// first zero of a slice is 0 and the first zero's gradient is the prefix
// product times the reversed sum of grad * (product of the elements after it).
at::Tensor cumprod_backward(const at::Tensor& grad, const at::Tensor& input_, int64_t dim, const at::Tensor& output) {
  if (grad.dim() == 0 || grad.numel() == 0) return grad;
  dim = c10::maybe_wrap_dim(dim, grad.dim());
  at::Tensor input = input_.scalar_type() == grad.scalar_type() ? input_ : at::_to_copy(input_, grad.scalar_type());
  at::Tensor zero = input == 0.0;
  if (!c10::item(at::any(zero)).toBool()) return reverse_cumsum(grad * output, dim) / input;
  at::Tensor zeros_seen = at::cumsum(zero, dim);  // int64 count of zeros up to and including k
  at::Tensor before = zeros_seen == 0.0;
  at::Tensor first_zero = at::logical_and(zero, zeros_seen == 1.0);
  at::Tensor after = at::logical_and(zeros_seen >= 1.0, at::logical_not(first_zero));
  at::Tensor ones = at::ones_like(input);
  at::Tensor x_safe = at::where(zero, ones, input);
  // Positions before the first zero: output[j] == 0 for j past it, so the plain formula holds.
  at::Tensor g_before = reverse_cumsum(grad * output, dim) / x_safe;
  // First zero: prefix product (x_safe is 1 from there on) times the reversed
  // sum of grad_j * prod_{first < i <= j} x_i over j >= first.
  at::Tensor prefix = at::cumprod(at::where(before, input, ones), dim);
  at::Tensor tail = at::cumprod(at::where(after, input, ones), dim);
  at::Tensor from_first = at::logical_not(before);
  at::Tensor s = reverse_cumsum(at::where(from_first, grad * tail, at::zeros_like(grad)), dim);
  at::Tensor zero_g = at::zeros_like(grad);
  // Past the first zero the gradient is 0, but only because it contains the
  // factor x_first: write it as x_first * (the rest) so second derivatives see
  // it (exact when the slice has one zero; further zeros' cross terms are lost).
  at::Tensor x_first = at::sum(at::where(first_zero, input, zero_g), at::IntArrayRef{dim}, true);
  at::Tensor u = at::where(first_zero, ones, input);
  at::Tensor rest = reverse_cumsum(grad * at::cumprod(u, dim), dim) / x_safe;
  at::Tensor g_after = x_first * at::where(at::logical_and(after, at::logical_not(zero)), rest, zero_g);
  return at::where(before, g_before, at::where(first_zero, prefix * s, g_after));
}

}  // namespace generated
}  // namespace torchlike::autograd
