// Backward helpers of the gather/scatter family (declared in ScatterGather.h).
// Built from differentiable operators only, so double backward works.
#include "autograd/manual/ScatterGather.h"

#include <functional>
#include <string>

#include "ops/cat.h"
#include "ops/eq.h"
#include "ops/gather.h"
#include "ops/index_add.h"
#include "ops/index_fill.h"
#include "ops/index_reduce.h"
#include "ops/index_select.h"
#include "ops/logical_and.h"
#include "ops/ones_like.h"
#include "ops/reshape.h"
#include "ops/scatter.h"
#include "ops/scatter_add.h"
#include "ops/scatter_reduce.h"
#include "ops/slice.h"
#include "ops/sum.h"
#include "ops/to.h"
#include "ops/where.h"
#include "ops/zeros.h"
#include "ops/zeros_like.h"

namespace torchlike::autograd::generated {

static at::TensorBase zeros_of(at::IntArrayRef sizes, const at::TensorBase& like) {
  return at::_ops::zeros(sizes, like.scalar_type(), std::nullopt, like.device(), std::nullopt);
}

at::TensorBase gather_backward(const at::TensorBase& grad, at::IntArrayRef self_sizes, int64_t dim,
                               const at::TensorBase& index, bool /*sparse_grad: gradients are dense here*/) {
  return at::_ops::scatter_add(zeros_of(self_sizes, grad), dim, index, grad);
}

// g (index-shaped) padded with zeros up to src_sizes: cat keeps it differentiable.
static at::TensorBase pad_to(const at::TensorBase& g, at::IntArrayRef src_sizes) {
  if (g.sizes().equals(src_sizes)) return g;
  if (g.dim() != (int64_t)src_sizes.size()) return zeros_of(src_sizes, g);  // empty index of another rank
  at::TensorBase r = g;
  for (int64_t d = 0; d < r.dim(); ++d) {
    const int64_t have = r.sizes()[d];
    if (have == src_sizes[d]) continue;
    c10::DimVector zs(r.sizes());
    zs[d] = src_sizes[d] - have;
    const at::TensorBase parts[2] = {r, zeros_of(zs, r)};
    r = at::_ops::cat(at::TensorBaseList(parts, 2), d);
  }
  return r;
}

at::TensorBase gather_src_backward(const at::TensorBase& grad, int64_t dim, const at::TensorBase& index,
                                   at::IntArrayRef src_sizes) {
  if (index.numel() == 0) return zeros_of(src_sizes, grad);
  return pad_to(at::_ops::gather(grad, dim, index, false), src_sizes);
}

at::TensorBase index_select_backward(const at::TensorBase& grad, at::IntArrayRef self_sizes, int64_t dim,
                                     const at::TensorBase& index) {
  return at::_ops::index_add(zeros_of(self_sizes, grad), dim, index, grad, 1);
}

at::TensorBase index_source_backward(const at::TensorBase& grad, int64_t dim, const at::TensorBase& index,
                                     at::IntArrayRef source_sizes, const at::Scalar& alpha) {
  // A 0-dim source (one index) reads one slice; reshape drops its length-1 dim.
  at::TensorBase g = at::_ops::reshape(at::_ops::index_select(grad, dim, index), source_sizes);
  return maybe_multiply(g, alpha);
}

at::TensorBase index_fill_value_backward(const at::TensorBase& grad, int64_t dim, const at::TensorBase& index) {
  // Sum over the filled slices (each once, however often the index repeats it).
  return at::_ops::sum(grad - at::_ops::index_fill(grad, dim, index, 0), std::optional<at::ScalarType>());
}

namespace {

// The pieces PyTorch's scatter_reduce and index_reduce formulas are written
// in, so one derivation serves both: `take` reads self-shaped values at the
// positions each src element went to, `accumulate` adds src-shaped values
// into a self-shaped tensor, `zero_at` zeroes the positions written to, and
// `again` reruns the forward op on other inputs.
struct IndexedOps {
  std::function<at::TensorBase(const at::TensorBase&)> take;
  std::function<at::TensorBase(const at::TensorBase&, const at::TensorBase&)> accumulate;
  std::function<at::TensorBase(const at::TensorBase&)> zero_at;
  std::function<at::TensorBase(const at::TensorBase&, const at::TensorBase&)> again;
};

std::pair<at::TensorBase, at::TensorBase> reduce_backward(const IndexedOps& f, const at::TensorBase& grad,
                                                          const at::TensorBase& self, const at::TensorBase& src,
                                                          std::string_view reduce, bool include_self,
                                                          const at::TensorBase& result) {
  at::TensorBase gs, gsrc;
  auto as_self_dtype = [&](const at::TensorBase& b) { return at::_ops::to(b, self.scalar_type(), false, false, std::nullopt); };
  if (reduce == "sum") {
    gs = grad;
    gsrc = f.take(grad);
  } else if (reduce == "prod") {
    // Products with a zero factor: divide only by the non-zero factors, and
    // give a lone zero in src the product of the others.
    at::TensorBase masked_self = at::_ops::where(self == 0, at::_ops::ones_like(self), self);
    gs = grad * f.again(masked_self, src) / masked_self;
    at::TensorBase src_zero = src == 0;
    at::TensorBase zeros_per_target = f.take(f.accumulate(at::_ops::zeros_like(self), as_self_dtype(src_zero)));
    at::TensorBase single_zero = at::_ops::logical_and(src_zero, zeros_per_target == 1);
    at::TensorBase masked_src_result = f.again(self, at::_ops::where(single_zero, at::_ops::ones_like(src), src));
    gsrc = at::_ops::where(single_zero, f.take(grad * masked_src_result),
                           f.take(grad * result) / at::_ops::where(src_zero, at::_ops::ones_like(src), src));
  } else if (reduce == "mean") {
    at::TensorBase n = include_self ? at::_ops::ones_like(grad) : at::_ops::zeros_like(grad);
    n = f.accumulate(n, at::_ops::ones_like(src));
    n = at::_ops::where(n == 0, at::_ops::ones_like(n), n);
    gs = grad / n;
    gsrc = f.take(grad) / f.take(n);
  } else if (reduce == "amax" || reduce == "amin" || reduce == "max" || reduce == "min") {
    // Ties share the gradient evenly. Without include_self, self's old value
    // at a written position took no part, so it is not counted there.
    at::TensorBase self_is = as_self_dtype(self == result);
    if (!include_self) self_is = f.zero_at(self_is);
    at::TensorBase src_is = as_self_dtype(src == f.take(result));
    at::TensorBase share = grad / f.accumulate(self_is, src_is);
    gs = self_is * share;
    gsrc = src_is * f.take(share);
  } else {
    TL_CHECK(false, "reduce argument must be either sum, prod, mean, amax or amin, got ", reduce);
  }
  if (!include_self) gs = f.zero_at(gs);
  return {gs, gsrc};
}

IndexedOps scatter_ops(int64_t dim, const at::TensorBase& index, std::string_view reduce, bool include_self) {
  std::string r(reduce);
  return IndexedOps{
      [=](const at::TensorBase& t) { return at::_ops::gather(t, dim, index, false); },
      [=](const at::TensorBase& b, const at::TensorBase& v) { return at::_ops::scatter_add(b, dim, index, v); },
      [=](const at::TensorBase& t) { return at::_ops::scatter(t, dim, index, 0); },
      [=](const at::TensorBase& s, const at::TensorBase& v) {
        return at::_ops::scatter_reduce(s, dim, index, v, r, include_self);
      }};
}

IndexedOps index_ops(int64_t dim, const at::TensorBase& index, std::string_view reduce, bool include_self) {
  std::string r(reduce);
  return IndexedOps{
      [=](const at::TensorBase& t) { return at::_ops::index_select(t, dim, index); },
      [=](const at::TensorBase& b, const at::TensorBase& v) { return at::_ops::index_add(b, dim, index, v, 1); },
      [=](const at::TensorBase& t) { return at::_ops::index_fill(t, dim, index, 0); },
      [=](const at::TensorBase& s, const at::TensorBase& v) {
        return at::_ops::index_reduce(s, dim, index, v, r, include_self);
      }};
}

// scatter_reduce reads only the part of src the index covers: the formulas run
// on that part, and src's gradient is zero-padded back to src's shape.
at::TensorBase src_part(const at::TensorBase& src, const at::TensorBase& index) {
  if (index.numel() == 0 || src.sizes().equals(index.sizes())) return src;
  at::TensorBase r = src;
  for (int64_t d = 0; d < index.dim(); ++d)
    if (index.sizes()[d] != r.sizes()[d]) r = at::_ops::slice(r, d, 0, index.sizes()[d], 1);
  return r;
}

}  // namespace

at::TensorBase scatter_reduce_backward_self(const at::TensorBase& grad, const at::TensorBase& self, int64_t dim,
                                            const at::TensorBase& index, const at::TensorBase& src,
                                            std::string_view reduce, bool include_self, const at::TensorBase& result) {
  if (index.numel() == 0) return grad;
  return reduce_backward(scatter_ops(dim, index, reduce, include_self), grad, self, src_part(src, index), reduce,
                         include_self, result).first;
}

at::TensorBase scatter_reduce_backward_src(const at::TensorBase& grad, const at::TensorBase& self, int64_t dim,
                                           const at::TensorBase& index, const at::TensorBase& src,
                                           std::string_view reduce, bool include_self, const at::TensorBase& result) {
  if (index.numel() == 0) return zeros_of(src.sizes(), grad);
  at::TensorBase g = reduce_backward(scatter_ops(dim, index, reduce, include_self), grad, self,
                                     src_part(src, index), reduce, include_self, result).second;
  return pad_to(g, src.sizes());
}

at::TensorBase index_reduce_backward_self(const at::TensorBase& grad, const at::TensorBase& self, int64_t dim,
                                          const at::TensorBase& index, const at::TensorBase& source,
                                          std::string_view reduce, bool include_self, const at::TensorBase& result) {
  return reduce_backward(index_ops(dim, index, reduce, include_self), grad, self, source, reduce, include_self,
                         result).first;
}

at::TensorBase index_reduce_backward_source(const at::TensorBase& grad, const at::TensorBase& self, int64_t dim,
                                            const at::TensorBase& index, const at::TensorBase& source,
                                            std::string_view reduce, bool include_self,
                                            const at::TensorBase& result) {
  at::TensorBase g = reduce_backward(index_ops(dim, index, reduce, include_self), grad, self, source, reduce,
                                     include_self, result).second;
  return at::_ops::reshape(g, source.sizes());
}

}  // namespace torchlike::autograd::generated
