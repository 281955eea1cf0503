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
static TensorBase S(const Scalar& s) { return wrapped_scalar_tensor(s); }
TensorBase operator+(const TensorBase& a, const TensorBase& b) { return at::_ops::add(a, b, 1); }
TensorBase operator-(const TensorBase& a, const TensorBase& b) { return at::_ops::sub(a, b, 1); }
TensorBase operator*(const TensorBase& a, const TensorBase& b) { return at::_ops::mul(a, b); }
TensorBase operator/(const TensorBase& a, const TensorBase& b) { return at::_ops::div(a, b); }
TensorBase operator+(const TensorBase& a, const Scalar& b) { return at::_ops::add(a, S(b), 1); }
TensorBase operator-(const TensorBase& a, const Scalar& b) { return at::_ops::sub(a, S(b), 1); }
TensorBase operator*(const TensorBase& a, const Scalar& b) { return at::_ops::mul(a, S(b)); }
TensorBase operator/(const TensorBase& a, const Scalar& b) { return at::_ops::div(a, S(b)); }
TensorBase operator+(const Scalar& a, const TensorBase& b) { return at::_ops::add(S(a), b, 1); }
TensorBase operator-(const Scalar& a, const TensorBase& b) { return at::_ops::sub(S(a), b, 1); }
TensorBase operator*(const Scalar& a, const TensorBase& b) { return at::_ops::mul(S(a), b); }
TensorBase operator/(const Scalar& a, const TensorBase& b) { return at::_ops::div(S(a), b); }
TensorBase operator-(const TensorBase& a) { return at::_ops::neg(a); }
TensorBase operator>(const TensorBase& a, const TensorBase& b) { return at::_ops::gt(a, b); }
TensorBase operator<(const TensorBase& a, const TensorBase& b) { return at::_ops::lt(a, b); }
TensorBase operator>=(const TensorBase& a, const TensorBase& b) { return at::_ops::ge(a, b); }
TensorBase operator<=(const TensorBase& a, const TensorBase& b) { return at::_ops::le(a, b); }
TensorBase operator==(const TensorBase& a, const TensorBase& b) { return at::_ops::eq(a, b); }
TensorBase operator>(const TensorBase& a, const Scalar& b) { return at::_ops::gt(a, S(b)); }
TensorBase operator<(const TensorBase& a, const Scalar& b) { return at::_ops::lt(a, S(b)); }
TensorBase operator>=(const TensorBase& a, const Scalar& b) { return at::_ops::ge(a, S(b)); }
TensorBase operator<=(const TensorBase& a, const Scalar& b) { return at::_ops::le(a, S(b)); }
TensorBase operator==(const TensorBase& a, const Scalar& b) { return at::_ops::eq(a, S(b)); }
TensorBase operator!=(const TensorBase& a, const TensorBase& b) { return at::_ops::ne(a, b); }
TensorBase operator!=(const TensorBase& a, const Scalar& b) { return at::_ops::ne(a, S(b)); }
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

at::TensorBase maybe_multiply(const at::TensorBase& t, const at::Scalar& s) {
  bool is_one = s.isFloatingPoint() ? s.toDouble() == 1.0 : s.toLong() == 1;
  return is_one ? t : t * s;
}

// d/dx x^y = y * x^(y-1); where y == 0 the gradient is 0 (even at x == 0).
at::TensorBase pow_backward_self(const at::TensorBase& grad, const at::TensorBase& self, const at::TensorBase& exponent) {
  at::TensorBase g = grad * exponent * at::_ops::pow(self, exponent - 1);
  return at::_ops::where(exponent == c10::wrapped_scalar_tensor(0.0), at::_ops::zeros_like(g), g);
}

// d/dy x^y = x^y * log(x); where x == 0 and y >= 0 the gradient is 0.
at::TensorBase pow_backward_exponent(const at::TensorBase& grad, const at::TensorBase& self, const at::TensorBase& exponent,
                                 const at::TensorBase& result) {
  at::TensorBase g = grad * result * at::_ops::log(self);
  at::TensorBase zero_base = at::_ops::eq(self, c10::wrapped_scalar_tensor(0.0));
  return at::_ops::where(zero_base, at::_ops::zeros_like(g), g);
}

at::TensorBase threshold_backward(const at::TensorBase& grad, const at::TensorBase& self, const at::Scalar& threshold) {
  return at::_ops::where(self > threshold, grad, at::_ops::zeros_like(grad));
}


// ---------------------------------------------------------------- pointwise

at::TensorBase div_mode_backward_self(const at::TensorBase& grad, const at::TensorBase& other,
                                  std::optional<std::string_view> rounding_mode) {
  // floor/trunc division is piecewise constant: zero gradient almost everywhere.
  if (rounding_mode) return at::_ops::zeros_like(grad);
  return grad / other;
}

at::TensorBase div_mode_backward_other(const at::TensorBase& grad, const at::TensorBase& self, const at::TensorBase& other,
                                   std::optional<std::string_view> rounding_mode) {
  if (rounding_mode) return at::_ops::zeros_like(grad);
  return -grad * self / (other * other);
}

// clamp(self, min, max) passes grad where min <= self <= max (both bounds
// inclusive, as PyTorch); the bound that is active receives it otherwise.
at::TensorBase clamp_backward(const at::TensorBase& grad, const at::TensorBase& self, const std::optional<at::TensorBase>& min,
                          const std::optional<at::TensorBase>& max) {
  bool has_min = min && min->defined(), has_max = max && max->defined();
  at::TensorBase zero = at::_ops::zeros_like(grad);
  if (has_min && has_max) return at::_ops::where(at::_ops::logical_and(self >= *min, self <= *max), grad, zero);
  if (has_min) return at::_ops::where(self >= *min, grad, zero);
  if (has_max) return at::_ops::where(self <= *max, grad, zero);
  return grad;
}

at::TensorBase clamp_backward_min(const at::TensorBase& grad, const at::TensorBase& self, const std::optional<at::TensorBase>& min,
                              const std::optional<at::TensorBase>& max) {
  if (!min || !min->defined()) return at::TensorBase();
  at::TensorBase zero = at::_ops::zeros_like(grad);
  // With both bounds and min > max the result is max: min gets nothing.
  if (max && max->defined()) return at::_ops::where(at::_ops::logical_and(self < *min, *min <= *max), grad, zero);
  return at::_ops::where(self < *min, grad, zero);
}

at::TensorBase clamp_backward_max(const at::TensorBase& grad, const at::TensorBase& self, const std::optional<at::TensorBase>& min,
                              const std::optional<at::TensorBase>& max) {
  if (!max || !max->defined()) return at::TensorBase();
  at::TensorBase zero = at::_ops::zeros_like(grad);
  if (min && min->defined()) return at::_ops::where(at::_ops::logical_or(self > *max, *min > *max), grad, zero);
  return at::_ops::where(self > *max, grad, zero);
}

// ---------------------------------------------------------------- linear maps with a hand-written adjoint
//
// Several backward helpers scatter grad into a zero tensor (select, slice,
// diagonal, as_strided, unfold, reversed cumsum). They run without recording
// (in-place writes into a fresh buffer), and when a graph is being built
// (create_graph) the result gets a node whose backward is the adjoint map
// (the forward view op), so higher-order gradients work to any order.

namespace {

using LinearFn = std::function<at::TensorBase(const at::TensorBase&)>;

at::TensorBase apply_linear(const at::TensorBase& x, const std::string& name, const std::string& adj_name, LinearFn f,
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

at::TensorBase apply_linear(const at::TensorBase& x, const std::string& name, const std::string& adj_name, LinearFn f,
                        LinearFn adj) {
  at::TensorBase y;
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

at::TensorBase zeros_of(at::IntArrayRef sizes, const at::TensorBase& like) {
  return at::_ops::zeros(sizes, like.scalar_type(), std::nullopt, like.device(), std::nullopt);
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
at::TensorBase unsqueeze_reduced(const at::TensorBase& grad, const std::vector<bool>& mask, bool keepdim) {
  if (keepdim || grad.dim() == (int64_t)mask.size()) return grad;
  at::TensorBase g = grad;
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) g = at::_ops::unsqueeze(g, (int64_t)d);
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
at::TensorBase sum_keep(const at::TensorBase& x, const std::vector<bool>& mask) {
  if (x.dim() == 0) return x;
  std::vector<int64_t> dims = mask_to_dims(mask);
  return at::_ops::sum(x, at::IntArrayRef(dims), true);
}

// Reversed cumulative sum along dim: out[k] = sum_{j >= k} x[j].
at::TensorBase reverse_cumsum_impl(const at::TensorBase& x, int64_t dim) {
  if (!x.is_cpu()) {
    // Device-generic form (loses a little precision to cancellation).
    return at::_ops::sum(x, at::IntArrayRef{dim}, true) - at::_ops::cumsum(x, dim) + x;
  }
  at::TensorBase in = at::_ops::contiguous(x);
  at::TensorBase out = zeros_of(x.sizes(), x);
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

at::TensorBase reverse_cumsum(const at::TensorBase& x, int64_t dim) {
  if (x.dim() == 0) return x;
  dim = c10::maybe_wrap_dim(dim, x.dim());
  return apply_linear(
      x, "CumsumBackwardBackward0", "CumsumBackward0", [dim](const at::TensorBase& g) { return reverse_cumsum_impl(g, dim); },
      [dim](const at::TensorBase& h) { return at::_ops::cumsum(h, dim); });
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
at::TensorBase strided_transfer(const at::TensorBase& x, const Geometry& from, const Geometry& to, const Geometry& counted) {
  TL_CHECK(x.is_cpu(), "as_strided_backward: only CPU tensors are supported");
  std::vector<int64_t> fi = from.indices(), ti = to.indices(), ci = counted.indices();
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = -1;
  for (auto* v : {&fi, &ti, &ci})
    for (int64_t i : *v) lo = std::min(lo, i), hi = std::max(hi, i);
  if (hi < lo) return zeros_of(to.sizes, x);
  at::TensorBase xd = at::_ops::contiguous(at::_ops::_to_copy(x, at::ScalarType::Double));
  const double* src = xd.data_ptr<double>();
  std::vector<double> buf(hi - lo + 1, 0.0);
  for (size_t k = 0; k < fi.size(); ++k) buf[fi[k] - lo] += src[k];
  std::vector<int64_t> count(hi - lo + 1, 0);
  bool overlaps = false;
  for (int64_t i : ci) overlaps |= ++count[i - lo] > 1;
  if (overlaps)
    for (size_t k = 0; k < buf.size(); ++k)
      if (count[k] > 1) buf[k] /= (double)count[k];
  at::TensorBase out = at::_ops::zeros(to.sizes, at::ScalarType::Double, std::nullopt, x.device(), std::nullopt);
  double* dst = out.data_ptr<double>();
  for (size_t k = 0; k < ti.size(); ++k) dst[k] = buf[ti[k] - lo];
  return at::_ops::_to_copy(out, x.scalar_type());
}

}  // namespace

// ---------------------------------------------------------------- views

at::TensorBase permute_backwards(const at::TensorBase& grad, at::IntArrayRef dims) {
  int64_t n = (int64_t)dims.size();
  std::vector<int64_t> inverse(n);
  for (int64_t i = 0; i < n; ++i) inverse[c10::maybe_wrap_dim(dims[i], n)] = i;
  return at::_ops::permute(grad, inverse);
}

// squeeze() removed every size-1 dim of `sizes`: put them back.
at::TensorBase unsqueeze_to(const at::TensorBase& grad, at::IntArrayRef sizes) {
  at::TensorBase g = grad;
  for (int64_t d = 0; d < (int64_t)sizes.size(); ++d)
    if (sizes[d] == 1) g = at::_ops::unsqueeze(g, d);
  return g;
}

at::TensorBase unsqueeze_to(const at::TensorBase& grad, int64_t dim, at::IntArrayRef sizes) {
  if (sizes.empty()) return grad;
  dim = c10::maybe_wrap_dim(dim, (int64_t)sizes.size());
  return sizes[dim] == 1 ? at::_ops::unsqueeze(grad, dim) : grad;
}

at::TensorBase unsqueeze_to(const at::TensorBase& grad, at::IntArrayRef dims, at::IntArrayRef sizes) {
  int64_t n = (int64_t)sizes.size();
  if (n == 0) return grad;
  std::vector<bool> mask(n, false);
  for (int64_t d : dims) mask[c10::maybe_wrap_dim(d, n)] = true;
  at::TensorBase g = grad;
  for (int64_t d = 0; d < n; ++d)
    if (mask[d] && sizes[d] == 1) g = at::_ops::unsqueeze(g, d);
  return g;
}

at::TensorBase select_backward(const at::TensorBase& grad, at::IntArrayRef sizes, int64_t dim, int64_t index) {
  std::vector<int64_t> sz = sizes.vec();
  return apply_linear(
      grad, "SelectBackwardBackward0", "SelectBackward0",
      [sz, dim, index](const at::TensorBase& g) {
        at::TensorBase r = zeros_of(sz, g);
        at::_ops::copy_(at::_ops::select(r, dim, index), g);
        return r;
      },
      [dim, index](const at::TensorBase& h) { return at::_ops::select(h, dim, index); });
}

at::TensorBase slice_backward(const at::TensorBase& grad, at::IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                          std::optional<int64_t> end, int64_t step) {
  std::vector<int64_t> sz = sizes.vec();
  return apply_linear(
      grad, "SliceBackwardBackward0", "SliceBackward0",
      [=](const at::TensorBase& g) {
        at::TensorBase r = zeros_of(sz, g);
        at::_ops::copy_(at::_ops::slice(r, dim, start, end, step), g);
        return r;
      },
      [=](const at::TensorBase& h) { return at::_ops::slice(h, dim, start, end, step); });
}

at::TensorBase diagonal_backward(const at::TensorBase& grad, at::IntArrayRef sizes, int64_t offset, int64_t dim1,
                             int64_t dim2) {
  std::vector<int64_t> sz = sizes.vec();
  return apply_linear(
      grad, "DiagonalBackwardBackward0", "DiagonalBackward0",
      [=](const at::TensorBase& g) {
        at::TensorBase r = zeros_of(sz, g);
        at::_ops::copy_(at::_ops::diagonal(r, offset, dim1, dim2), g);
        return r;
      },
      [=](const at::TensorBase& h) { return at::_ops::diagonal(h, offset, dim1, dim2); });
}

// unfold's windows overlap when step < size: add window element k of every
// window at once (one strided slice per k, the windows' k-th elements never
// collide), so the loop runs `size` times, not once per window.
at::TensorBase unfold_backward(const at::TensorBase& grad, at::IntArrayRef sizes, int64_t dimension, int64_t size,
                           int64_t step) {
  std::vector<int64_t> sz = sizes.vec();
  if (sz.empty()) return at::_ops::reshape(grad, at::IntArrayRef{});  // 0-dim input: one window of one element
  int64_t dim = c10::maybe_wrap_dim(dimension, (int64_t)sz.size());
  return apply_linear(
      grad, "UnfoldBackwardBackward0", "UnfoldBackward0",
      [=](const at::TensorBase& g) {
        at::TensorBase r = zeros_of(sz, g);
        int64_t windows = g.size(dim);
        if (windows == 0) return r;
        for (int64_t k = 0; k < size; ++k) {
          at::TensorBase dst = at::_ops::slice(r, dim, k, k + (windows - 1) * step + 1, step);
          at::_ops::add_(dst, at::_ops::select(g, -1, k), 1);
        }
        return r;
      },
      [=](const at::TensorBase& h) { return at::_ops::unfold(h, dim, size, step); });
}

at::TensorBase as_strided_backward(const at::TensorBase& grad, const at::TensorBase& self, at::IntArrayRef size,
                               at::IntArrayRef stride, std::optional<int64_t> storage_offset) {
  Geometry in{self.sizes().vec(), self.strides().vec(), self.storage_offset()};
  Geometry out{size.vec(), stride.vec(), storage_offset.value_or(self.storage_offset())};
  return apply_linear(
      grad, "AsStridedBackwardBackward0", "AsStridedBackward0",
      [=](const at::TensorBase& g) { return strided_transfer(g, out, in, in); },
      [=](const at::TensorBase& h) { return strided_transfer(h, in, out, in); });
}

at::TensorBase _to_copy_backward(const at::TensorBase& grad, const at::TensorOptions& self_options) {
  if (grad.scalar_type() == self_options.dtype && grad.device() == self_options.device) return grad;
  return at::_ops::_to_copy(grad, self_options.dtype, std::nullopt, self_options.device);
}

// ---------------------------------------------------------------- reductions

at::TensorBase restore_reduced_dims(const at::TensorBase& output, at::IntArrayRef dims, bool keepdim) {
  if (keepdim || dims.empty()) return output;  // empty dims reduced everything: output is 0-dim, broadcasts
  int64_t total = output.dim() + (int64_t)dims.size();
  std::vector<bool> mask(total, false);
  for (int64_t d : dims) mask[c10::maybe_wrap_dim(d, total)] = true;
  return unsqueeze_reduced(output, mask, false);
}

// grad split evenly among the positions `mask` selects in each reduced group.
at::TensorBase scale_grad_by_count(const at::TensorBase& grad, const at::TensorBase& mask, at::IntArrayRef dims) {
  at::TensorBase count = dims.empty() || mask.dim() == 0 ? at::_ops::sum(mask) : at::_ops::sum(mask, dims, true);
  return at::_ops::where(mask, grad / count, at::_ops::zeros_like(grad));
}

at::TensorBase sum_backward(const at::TensorBase& grad, at::IntArrayRef sizes, std::optional<at::IntArrayRef> dims,
                        bool keepdim) {
  if (sizes.empty()) return grad;
  return at::_ops::expand(unsqueeze_reduced(grad, reduced_mask(dims, (int64_t)sizes.size()), keepdim), sizes);
}

at::TensorBase mean_backward(const at::TensorBase& grad, at::IntArrayRef sizes, std::optional<at::IntArrayRef> dims,
                         bool keepdim) {
  int64_t n = sizes.empty() ? 1 : reduced_numel(sizes, reduced_mask(dims, (int64_t)sizes.size()));
  return sum_backward(grad, sizes, dims, keepdim) / (double)n;
}

namespace {
// d prod / d x_i = product of the others. Without zeros that is result / x;
// with one zero in a group only the zero's position gets the product of the
// rest; with two or more every gradient is 0.
at::TensorBase prod_grad(const at::TensorBase& grad, const at::TensorBase& input_, const at::TensorBase& result,
                     std::optional<int64_t> dim) {
  at::TensorBase input = input_.scalar_type() == grad.scalar_type() ? input_ : at::_ops::_to_copy(input_, grad.scalar_type());
  at::TensorBase zero = input == 0.0;
  if (!c10::item(at::_ops::any(zero)).toBool()) return grad * result / input;
  at::TensorBase x_safe = at::_ops::where(zero, at::_ops::ones_like(input), input);
  at::TensorBase zeros_in_group, prod_nonzero;
  if (dim) {
    zeros_in_group = at::_ops::sum(zero, at::IntArrayRef{*dim}, true);
    prod_nonzero = at::_ops::prod(x_safe, *dim, true);
  } else {
    zeros_in_group = at::_ops::sum(zero);
    prod_nonzero = at::_ops::prod(x_safe);
  }
  at::TensorBase at_zero = at::_ops::where(zeros_in_group == 1.0, prod_nonzero, at::_ops::zeros_like(prod_nonzero));
  at::TensorBase others = at::_ops::where(zero, at_zero, result / x_safe);
  return grad * others;
}
}  // namespace

at::TensorBase prod_backward(const at::TensorBase& grad, const at::TensorBase& input, const at::TensorBase& result) {
  if (input.numel() == 0) return zeros_of(input.sizes(), grad);
  return prod_grad(grad, input, result, std::nullopt);
}

at::TensorBase prod_backward(const at::TensorBase& grad, const at::TensorBase& input, const at::TensorBase& result, int64_t dim,
                         bool keepdim) {
  if (input.dim() == 0) return grad;
  if (input.numel() == 0) return zeros_of(input.sizes(), grad);
  dim = c10::maybe_wrap_dim(dim, input.dim());
  at::TensorBase g = keepdim ? grad : at::_ops::unsqueeze(grad, dim);
  at::TensorBase r = keepdim ? result : at::_ops::unsqueeze(result, dim);
  return prod_grad(g, input, r, dim);
}

// max()/min() over everything: the gradient is shared by all positions equal
// to the result (PyTorch's choice, keeps the gradient symmetric).
at::TensorBase evenly_distribute_backward(const at::TensorBase& grad, const at::TensorBase& input, const at::TensorBase& value) {
  at::TensorBase mask = input == value;
  if (c10::isFloatingType(input.scalar_type()) && c10::item(at::_ops::isnan(value)).toBool()) mask = at::_ops::isnan(input);
  at::TensorBase count = at::_ops::sum(mask);
  return at::_ops::where(mask, grad / count, at::_ops::zeros_like(input, grad.scalar_type()));
}

// max/min along a dim: the gradient goes to the returned index only.
at::TensorBase value_selecting_reduction_backward(const at::TensorBase& grad, int64_t dim, const at::TensorBase& indices,
                                              at::IntArrayRef sizes, bool keepdim) {
  int64_t n = (int64_t)sizes.size();
  if (n == 0) return grad;
  dim = c10::maybe_wrap_dim(dim, n);
  at::TensorBase g = keepdim ? grad : at::_ops::unsqueeze(grad, dim);
  at::TensorBase idx = keepdim ? indices : at::_ops::unsqueeze(indices, dim);
  std::vector<int64_t> pos_shape(n, 1);
  pos_shape[dim] = sizes[dim];
  at::TensorBase pos = at::_ops::view(at::_ops::arange(sizes[dim], at::ScalarType::Long, std::nullopt, grad.device(), std::nullopt),
                            pos_shape);
  at::TensorBase mask = at::_ops::eq(pos, idx);  // broadcasts to sizes
  return at::_ops::where(mask, at::_ops::expand(g, sizes), zeros_of(sizes, grad));
}

at::TensorBase var_backward(const at::TensorBase& grad, const at::TensorBase& self, std::optional<at::IntArrayRef> dims,
                        const std::optional<at::Scalar>& correction, bool keepdim) {
  if (self.dim() == 0) return at::_ops::zeros_like(self, grad.scalar_type()) * grad;
  std::vector<bool> mask = reduced_mask(dims, self.dim());
  double n = (double)reduced_numel(self.sizes(), mask);
  double c = correction ? correction->toDouble() : 1.0;
  at::TensorBase g = unsqueeze_reduced(grad, mask, keepdim);
  std::vector<int64_t> d = mask_to_dims(mask);
  at::TensorBase centered = self - at::_ops::mean(self, at::IntArrayRef(d), true);
  return (2.0 / std::max(0.0, n - c)) * g * centered;
}

at::TensorBase std_backward(const at::TensorBase& result, const at::TensorBase& grad, const at::TensorBase& self,
                        std::optional<at::IntArrayRef> dims, const std::optional<at::Scalar>& correction,
                        bool keepdim) {
  at::TensorBase grad_var = at::_ops::where(result == 0.0, at::_ops::zeros_like(grad), grad / (result * 2.0));
  return var_backward(grad_var, self, dims, correction, keepdim);
}

at::TensorBase norm_backward(const at::TensorBase& grad, const at::TensorBase& self, const std::optional<at::Scalar>& p_,
                         const at::TensorBase& norm, std::optional<at::IntArrayRef> dims, bool keepdim) {
  double p = p_ ? p_->toDouble() : 2.0;
  std::vector<bool> mask = reduced_mask(dims, self.dim());
  at::TensorBase g = self.dim() == 0 ? grad : unsqueeze_reduced(grad, mask, keepdim);
  at::TensorBase nrm = self.dim() == 0 ? norm : unsqueeze_reduced(norm, mask, keepdim);
  at::TensorBase zero = at::_ops::zeros_like(self, grad.scalar_type());
  if (p == 0.0) return zero;
  if (p == 1.0) return at::_ops::sign(self) * g;
  if (p == 2.0) return at::_ops::where(nrm == 0.0, zero, self * (g / nrm));
  if (std::isinf(p)) {
    // Shared evenly among the entries whose magnitude is the norm.
    at::TensorBase hit = at::_ops::abs(self) == nrm;
    at::TensorBase count = sum_keep(hit, mask);
    return at::_ops::where(hit, at::_ops::sign(self) * g / count, zero);
  }
  // sign(x) |x|^(p-1) / ||x||^(p-1); entries at 0 get 0 (also for p < 1,
  // where the one-sided limits disagree: PyTorch's choice).
  at::TensorBase scaled = at::_ops::sign(self) * at::_ops::pow(at::_ops::abs(self), c10::wrapped_scalar_tensor(p - 1.0));
  scaled = at::_ops::where(self == 0.0, zero, scaled);
  at::TensorBase scale = at::_ops::where(nrm == 0.0, at::_ops::zeros_like(g), g / at::_ops::pow(nrm, c10::wrapped_scalar_tensor(p - 1.0)));
  return scaled * scale;
}

at::TensorBase logsumexp_backward(const at::TensorBase& grad, const at::TensorBase& self, const at::TensorBase& result,
                              at::IntArrayRef dims, bool keepdim) {
  at::TensorBase g = grad, r = result;
  if (!keepdim && self.dim() > 0) {
    std::vector<bool> mask = reduced_mask(dims, self.dim());
    g = unsqueeze_reduced(grad, mask, false);
    r = unsqueeze_reduced(result, mask, false);
  }
  return g * at::_ops::exp(self - r);
}

at::TensorBase cumsum_backward(const at::TensorBase& grad, int64_t dim) {
  if (grad.dim() == 0 || grad.numel() == 0) return grad;
  return reverse_cumsum(grad, dim);
}

// d out_j / d x_k = out_j / x_k for j >= k. With zeros, everything after the
// first zero of a slice is 0 and the first zero's gradient is the prefix
// product times the reversed sum of grad * (product of the elements after it).
at::TensorBase cumprod_backward(const at::TensorBase& grad, const at::TensorBase& input_, int64_t dim, const at::TensorBase& output) {
  if (grad.dim() == 0 || grad.numel() == 0) return grad;
  dim = c10::maybe_wrap_dim(dim, grad.dim());
  at::TensorBase input = input_.scalar_type() == grad.scalar_type() ? input_ : at::_ops::_to_copy(input_, grad.scalar_type());
  at::TensorBase zero = input == 0.0;
  if (!c10::item(at::_ops::any(zero)).toBool()) return reverse_cumsum(grad * output, dim) / input;
  at::TensorBase zeros_seen = at::_ops::cumsum(zero, dim);  // int64 count of zeros up to and including k
  at::TensorBase before = zeros_seen == 0.0;
  at::TensorBase first_zero = at::_ops::logical_and(zero, zeros_seen == 1.0);
  at::TensorBase after = at::_ops::logical_and(zeros_seen >= 1.0, at::_ops::logical_not(first_zero));
  at::TensorBase ones = at::_ops::ones_like(input);
  at::TensorBase x_safe = at::_ops::where(zero, ones, input);
  // Positions before the first zero: output[j] == 0 for j past it, so the plain formula holds.
  at::TensorBase g_before = reverse_cumsum(grad * output, dim) / x_safe;
  // First zero: prefix product (x_safe is 1 from there on) times the reversed
  // sum of grad_j * prod_{first < i <= j} x_i over j >= first.
  at::TensorBase prefix = at::_ops::cumprod(at::_ops::where(before, input, ones), dim);
  at::TensorBase tail = at::_ops::cumprod(at::_ops::where(after, input, ones), dim);
  at::TensorBase from_first = at::_ops::logical_not(before);
  at::TensorBase s = reverse_cumsum(at::_ops::where(from_first, grad * tail, at::_ops::zeros_like(grad)), dim);
  at::TensorBase zero_g = at::_ops::zeros_like(grad);
  // Past the first zero the gradient is 0, but only because it contains the
  // factor x_first: write it as x_first * (the rest) so second derivatives see
  // it (exact when the slice has one zero; further zeros' cross terms are lost).
  at::TensorBase x_first = at::_ops::sum(at::_ops::where(first_zero, input, zero_g), at::IntArrayRef{dim}, true);
  at::TensorBase u = at::_ops::where(first_zero, ones, input);
  at::TensorBase rest = reverse_cumsum(grad * at::_ops::cumprod(u, dim), dim) / x_safe;
  at::TensorBase g_after = x_first * at::_ops::where(at::_ops::logical_and(after, at::_ops::logical_not(zero)), rest, zero_g);
  return at::_ops::where(before, g_before, at::_ops::where(first_zero, prefix * s, g_after));
}

std::vector<std::vector<int64_t>> to_args_sizes(const std::vector<SavedMeta>& tensors) {
  std::vector<std::vector<int64_t>> r;
  r.reserve(tensors.size());
  for (const SavedMeta& m : tensors) r.push_back(m.sizes().vec());
  return r;
}

std::vector<std::vector<int64_t>> to_args_sizes(at::TensorBaseList tensors) {
  std::vector<std::vector<int64_t>> r;
  r.reserve(tensors.size());
  for (const at::TensorBase& t : tensors) r.push_back(t.sizes().vec());
  return r;
}

std::vector<at::TensorBase> cat_tensors_backward(const at::TensorBase& grad,
                                                 const std::vector<std::vector<int64_t>>& sizes, int64_t dim) {
  auto skipped = [](const std::vector<int64_t>& s) { return s.size() == 1 && s[0] == 0; };
  // cat wraps dim against the first input it does not skip.
  for (const auto& s : sizes)
    if (!skipped(s)) {
      const int64_t n = (int64_t)s.size();
      if (dim < 0) dim += n;
      break;
    }
  std::vector<at::TensorBase> out;
  out.reserve(sizes.size());
  int64_t offset = 0;
  for (const auto& s : sizes) {
    if (skipped(s)) {
      out.push_back(at::_ops::zeros(at::IntArrayRef(s), grad.scalar_type(), std::nullopt, grad.device(), std::nullopt));
      continue;
    }
    const int64_t len = s[dim];
    out.push_back(at::_ops::slice(grad, dim, offset, offset + len, 1));
    offset += len;
  }
  return out;
}

}  // namespace generated
}  // namespace torchlike::autograd
