// Math ops PyTorch also builds from others (issue 10, "Math"): closeness,
// trace, diff, Kronecker and tensor-dot contractions, the fused BLAS-style
// addmv/addr/addbmm/baddbmm, NaN-ignoring and joint reductions, cov/corrcoef
// and dist. All go through the dispatcher, so autograd differentiates them
// and every backend (Meta included) with the parts runs them.
#include <numeric>
#include <tuple>
#include <vector>

#include "ops/abs.h"
#include "ops/add.h"
#include "ops/amax.h"
#include "ops/amin.h"
#include "ops/bmm.h"
#include "ops/cat.h"
#include "ops/clamp.h"
#include "ops/diagonal.h"
#include "ops/div.h"
#include "ops/dot.h"
#include "ops/eq.h"
#include "ops/expand.h"
#include "ops/isfinite.h"
#include "ops/isnan.h"
#include "ops/le.h"
#include "ops/logical_and.h"
#include "ops/logical_not.h"
#include "ops/logical_or.h"
#include "ops/logical_xor.h"
#include "ops/matmul.h"
#include "ops/mean.h"
#include "ops/mul.h"
#include "ops/mv.h"
#include "ops/narrow.h"
#include "ops/ne.h"
#include "ops/norm.h"
#include "ops/outer.h"
#include "ops/permute.h"
#include "ops/reshape.h"
#include "ops/sqrt.h"
#include "ops/std.h"
#include "ops/sub.h"
#include "ops/sum.h"
#include "ops/to.h"
#include "ops/transpose.h"
#include "ops/unsqueeze.h"
#include "ops/var.h"
#include "ops/where.h"
#include "ops/zeros_like.h"

namespace at::native {
namespace {

// A Python-number-like operand: participates in type promotion by category only.
TensorBase number(const Scalar& s) {
  ScalarType t = s.isFloatingPoint() ? ScalarType::Double : (s.isBoolean() ? ScalarType::Bool : ScalarType::Long);
  // A wrapped number lives on the CPU and mixes with tensors on any device.
  TensorBase v = c10::scalar_to_tensor(s, t);
  v.unsafeGetTensorImpl()->set_wrapped_number(true);
  return v;
}

TensorBase scaled(const TensorBase& t, const Scalar& s) {
  if (!s.isFloatingPoint() && !s.isBoolean() && s.toLong() == 1) return t;
  return at::_ops::mul(t, number(s));
}

bool is_zero(const Scalar& s) { return s.isFloatingPoint() ? s.toDouble() == 0.0 : s.toLong() == 0; }

// beta * self + alpha * product, with PyTorch's rule that beta == 0 ignores
// self entirely (NaN and inf in it do not propagate).
TensorBase add_scaled(const TensorBase& self, const TensorBase& product, const Scalar& beta, const Scalar& alpha) {
  TensorBase p = scaled(product, alpha);
  if (is_zero(beta)) return at::_ops::add(at::_ops::mul(at::_ops::zeros_like(self), number(0)), p);
  return at::_ops::add(scaled(self, beta), p);
}


}  // namespace

TensorBase isclose(const TensorBase& self, const TensorBase& other, double rtol, double atol, bool equal_nan) {
  TL_CHECK(self.scalar_type() == other.scalar_type(), "isclose(): expected self and other to have the same dtype, ",
           "but got ", c10::toString(self.scalar_type()), " and ", c10::toString(other.scalar_type()), "!");
  TL_CHECK(rtol >= 0, "isclose(): rtol must be greater than or equal to zero, but got ", rtol);
  TL_CHECK(atol >= 0, "isclose(): atol must be greater than or equal to zero, but got ", atol);
  TensorBase close = at::_ops::eq(self, other);
  bool floating = c10::isFloatingType(self.scalar_type());
  if (equal_nan && floating)
    close = at::_ops::logical_or(close, at::_ops::logical_and(at::_ops::isnan(self), at::_ops::isnan(other)));
  if (rtol == 0 && atol == 0) return close;
  // Integers and bools compare in the default float dtype, as PyTorch does.
  TensorBase a = floating ? self : at::_ops::to(self, c10::defaultFloatType());
  TensorBase b = floating ? other : at::_ops::to(other, c10::defaultFloatType());
  TensorBase allowed = at::_ops::add(at::_ops::abs(scaled(b, rtol)), number(atol));
  TensorBase actual = at::_ops::abs(at::_ops::sub(a, b));
  return at::_ops::logical_or(close, at::_ops::logical_and(at::_ops::isfinite(actual), at::_ops::le(actual, allowed)));
}

TensorBase trace(const TensorBase& self) {
  TL_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  return at::_ops::sum(at::_ops::diagonal(self, 0, 0, 1), std::optional<ScalarType>());
}

TensorBase diff(const TensorBase& self, int64_t n, int64_t dim, const std::optional<TensorBase>& prepend,
                const std::optional<TensorBase>& append) {
  TL_CHECK(self.dim() >= 1, "diff expects input to be at least one-dimensional");
  TL_CHECK(n >= 0, "order must be non-negative but got ", n);
  dim = maybe_wrap_dim(dim, self.dim());
  TensorBase x = self;
  if ((prepend && prepend->defined()) || (append && append->defined())) {
    std::vector<TensorBase> parts;
    if (prepend && prepend->defined()) parts.push_back(*prepend);
    parts.push_back(self);
    if (append && append->defined()) parts.push_back(*append);
    x = at::_ops::cat(TensorBaseList(parts), dim);
  }
  for (int64_t i = 0; i < n && x.sizes()[dim] > 0; ++i) {
    int64_t len = x.sizes()[dim] - 1;
    TensorBase hi = at::_ops::narrow(x, dim, 1, len), lo = at::_ops::narrow(x, dim, 0, len);
    x = x.scalar_type() == ScalarType::Bool ? at::_ops::logical_xor(hi, lo) : at::_ops::sub(hi, lo);
  }
  return x;
}

TensorBase kron(const TensorBase& self, const TensorBase& other) {
  // a (.., a_i, ..) and b (.., b_i, ..), right-aligned: out_i = a_i * b_i via
  // a[.., a_i, 1, ..] * b[.., 1, b_i, ..] reshaped.
  int64_t nd = std::max(self.dim(), other.dim());
  DimVector as(nd, 1), bs(nd, 1);
  for (int64_t i = 0; i < self.dim(); ++i) as[nd - self.dim() + i] = self.sizes()[i];
  for (int64_t i = 0; i < other.dim(); ++i) bs[nd - other.dim() + i] = other.sizes()[i];
  DimVector a2, b2, out;
  for (int64_t i = 0; i < nd; ++i) {
    a2.push_back(as[i]);
    a2.push_back(1);
    b2.push_back(1);
    b2.push_back(bs[i]);
    out.push_back(as[i] * bs[i]);
  }
  TensorBase p = at::_ops::mul(at::_ops::reshape(self, a2), at::_ops::reshape(other, b2));
  return at::_ops::reshape(p, out);
}

TensorBase tensordot(const TensorBase& self, const TensorBase& other, IntArrayRef dims_a, IntArrayRef dims_b) {
  TL_CHECK(dims_a.size() == dims_b.size(), "both dimension lists should have same length");
  int64_t na = self.dim(), nb = other.dim();
  std::vector<bool> ca(na, false), cb(nb, false);
  int64_t csize = 1;
  DimVector pa_tail, pb_head;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    int64_t da = maybe_wrap_dim(dims_a[i], na), db = maybe_wrap_dim(dims_b[i], nb);
    TL_CHECK(self.sizes()[da] == other.sizes()[db], "contracted dimensions need to match, but first has size ",
             self.sizes()[da], " in dim ", da, " and second has size ", other.sizes()[db], " in dim ", db);
    TL_CHECK(!ca[da] && !cb[db], "tensordot: a dimension appears twice in the contraction");
    ca[da] = cb[db] = true;
    csize *= self.sizes()[da];
    pa_tail.push_back(da);
    pb_head.push_back(db);
  }
  DimVector pa, pb, out;
  int64_t ra = 1, rb = 1;
  for (int64_t i = 0; i < na; ++i)
    if (!ca[i]) {
      pa.push_back(i);
      out.push_back(self.sizes()[i]);
      ra *= self.sizes()[i];
    }
  for (int64_t d : pa_tail) pa.push_back(d);
  for (int64_t d : pb_head) pb.push_back(d);
  for (int64_t i = 0; i < nb; ++i)
    if (!cb[i]) {
      pb.push_back(i);
      out.push_back(other.sizes()[i]);
      rb *= other.sizes()[i];
    }
  int64_t sa[2] = {ra, csize}, sb[2] = {csize, rb};
  TensorBase m = at::_ops::matmul(at::_ops::reshape(at::_ops::permute(self, pa), IntArrayRef(sa, 2)),
                                  at::_ops::reshape(at::_ops::permute(other, pb), IntArrayRef(sb, 2)));
  return at::_ops::reshape(m, out);
}

TensorBase inner(const TensorBase& self, const TensorBase& other) {
  if (self.dim() == 0 || other.dim() == 0) return at::_ops::mul(self, other);
  int64_t ka = self.sizes()[self.dim() - 1], kb = other.sizes()[other.dim() - 1];
  TL_CHECK(ka == kb, "inner() the last dimension must match on both input tensors but got shapes ",
           self.sizes(), " and ", other.sizes());
  int64_t da = -1, db = -1;
  return tensordot(self, other, IntArrayRef(&da, 1), IntArrayRef(&db, 1));
}

TensorBase vdot(const TensorBase& self, const TensorBase& other) {
  TL_CHECK(self.dim() == 1 && other.dim() == 1, "1D tensors expected, but got ", self.dim(), "D and ", other.dim(),
           "D tensors");
  return at::_ops::dot(self, other);
}

TensorBase addmv(const TensorBase& self, const TensorBase& mat, const TensorBase& vec, const Scalar& beta,
                 const Scalar& alpha) {
  TL_CHECK(mat.dim() == 2 && vec.dim() == 1, "vector + matrix @ vector expected, got ", self.dim(), ", ", mat.dim(),
           ", ", vec.dim());
  return add_scaled(self, at::_ops::mv(mat, vec), beta, alpha);
}

TensorBase addr(const TensorBase& self, const TensorBase& vec1, const TensorBase& vec2, const Scalar& beta,
                const Scalar& alpha) {
  TL_CHECK(vec1.dim() == 1 && vec2.dim() == 1, "addr: Expected 1-D arguments vec1 and vec2, but got ", vec1.dim(),
           "-D and ", vec2.dim(), "-D");
  if (vec1.scalar_type() == ScalarType::Bool && self.scalar_type() == ScalarType::Bool) {
    // Bool: (beta and self) or (alpha and vec1 outer vec2), as PyTorch.
    TensorBase o = at::_ops::logical_and(at::_ops::unsqueeze(vec1, 1), vec2);
    TensorBase s = beta.toBool() ? self : at::_ops::zeros_like(self);
    return at::_ops::logical_or(s, alpha.toBool() ? o : at::_ops::zeros_like(o));
  }
  return add_scaled(self, at::_ops::outer(vec1, vec2), beta, alpha);
}

TensorBase baddbmm(const TensorBase& self, const TensorBase& batch1, const TensorBase& batch2, const Scalar& beta,
                   const Scalar& alpha) {
  TL_CHECK(batch1.dim() == 3 && batch2.dim() == 3, "batch1 must be a 3D tensor");
  return add_scaled(self, at::_ops::bmm(batch1, batch2), beta, alpha);
}

TensorBase addbmm(const TensorBase& self, const TensorBase& batch1, const TensorBase& batch2, const Scalar& beta,
                  const Scalar& alpha) {
  TL_CHECK(batch1.dim() == 3 && batch2.dim() == 3, "batch1 must be a 3D tensor");
  int64_t d0 = 0;
  return add_scaled(self, at::_ops::sum(at::_ops::bmm(batch1, batch2), IntArrayRef(&d0, 1), false, std::nullopt),
                    beta, alpha);
}

TensorBase nansum(const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim,
                  std::optional<ScalarType> dtype) {
  TensorBase x = self;
  if (c10::isFloatingType(self.scalar_type()))
    x = at::_ops::where(at::_ops::isnan(self), at::_ops::zeros_like(self), self);
  return at::_ops::sum(x, dim, keepdim, dtype);
}

TensorBase nanmean(const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  TL_CHECK(c10::isFloatingType(self.scalar_type()) || (dtype && c10::isFloatingType(*dtype)),
           "nanmean(): expected input to have floating point dtype but got ", c10::toString(self.scalar_type()));
  TensorBase count = at::_ops::sum(at::_ops::logical_not(at::_ops::isnan(self)), dim, keepdim, std::nullopt);
  return at::_ops::div(nansum(self, dim, keepdim, dtype), count);
}

TensorBase count_nonzero_dims(const TensorBase& self, IntArrayRef dim) {
  return at::_ops::sum(at::_ops::ne(self, number(0)), dim.empty() ? std::nullopt : std::optional(dim), false,
                       ScalarType::Long);
}

TensorBase count_nonzero(const TensorBase& self, std::optional<int64_t> dim) {
  if (!dim) return count_nonzero_dims(self, {});
  int64_t d = *dim;
  return count_nonzero_dims(self, IntArrayRef(&d, 1));
}

std::tuple<TensorBase, TensorBase> var_mean(const TensorBase& self, std::optional<IntArrayRef> dim,
                                            const std::optional<Scalar>& correction, bool keepdim) {
  return {at::_ops::var(self, dim, correction, keepdim), at::_ops::mean(self, dim, keepdim, std::nullopt)};
}

std::tuple<TensorBase, TensorBase> std_mean(const TensorBase& self, std::optional<IntArrayRef> dim,
                                            const std::optional<Scalar>& correction, bool keepdim) {
  return {at::_ops::std(self, dim, correction, keepdim), at::_ops::mean(self, dim, keepdim, std::nullopt)};
}

std::tuple<TensorBase, TensorBase> var_mean_unbiased(const TensorBase& self, bool unbiased) {
  return var_mean(self, std::nullopt, Scalar(unbiased ? 1 : 0), false);
}

std::tuple<TensorBase, TensorBase> std_mean_unbiased(const TensorBase& self, bool unbiased) {
  return std_mean(self, std::nullopt, Scalar(unbiased ? 1 : 0), false);
}

std::tuple<TensorBase, TensorBase> var_mean_dim(const TensorBase& self, std::optional<IntArrayRef> dim, bool unbiased,
                                                bool keepdim) {
  return var_mean(self, dim, Scalar(unbiased ? 1 : 0), keepdim);
}

std::tuple<TensorBase, TensorBase> std_mean_dim(const TensorBase& self, std::optional<IntArrayRef> dim, bool unbiased,
                                                bool keepdim) {
  return std_mean(self, dim, Scalar(unbiased ? 1 : 0), keepdim);
}

std::tuple<TensorBase, TensorBase> aminmax(const TensorBase& self, std::optional<int64_t> dim, bool keepdim) {
  if (dim) {
    int64_t d = *dim;
    return {at::_ops::amin(self, IntArrayRef(&d, 1), keepdim), at::_ops::amax(self, IntArrayRef(&d, 1), keepdim)};
  }
  TL_CHECK(self.numel() > 0, "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
           "identity.");
  TensorBase flat = at::_ops::reshape(self, {-1});
  TensorBase mn = at::_ops::amin(flat, {}, false), mx = at::_ops::amax(flat, {}, false);
  if (keepdim && self.dim() > 0) {
    DimVector ones(self.dim(), 1);
    return {at::_ops::reshape(mn, ones), at::_ops::reshape(mx, ones)};
  }
  return {mn, mx};
}

TensorBase cov(const TensorBase& self, int64_t correction, const std::optional<TensorBase>& fweights,
               const std::optional<TensorBase>& aweights) {
  TL_CHECK(self.dim() <= 2, "cov(): expected input to have two or fewer dimensions but got an input with ", self.dim(),
           " dimensions");
  TensorBase x = self.dim() < 2 ? at::_ops::reshape(self, {1, -1}) : self;
  if (!c10::isFloatingType(x.scalar_type())) x = at::_ops::to(x, c10::defaultFloatType());
  int64_t n = x.sizes()[1];
  std::optional<TensorBase> w;
  if (fweights && fweights->defined()) {
    TL_CHECK(fweights->dim() <= 1 && (fweights->dim() == 0 ? 1 : fweights->sizes()[0]) == n,
             "cov(): expected fweights to have the same numel as there are observations in the input but got ",
             fweights->numel(), " != ", n);
    TL_CHECK(!c10::isFloatingType(fweights->scalar_type()), "cov(): expected fweights to have integral dtype but got ",
             c10::toString(fweights->scalar_type()));
    w = *fweights;
  }
  if (aweights && aweights->defined()) {
    TL_CHECK(aweights->dim() <= 1 && (aweights->dim() == 0 ? 1 : aweights->sizes()[0]) == n,
             "cov(): expected aweights to have the same numel as there are observations in the input but got ",
             aweights->numel(), " != ", n);
    TL_CHECK(c10::isFloatingType(aweights->scalar_type()), "cov(): expected aweights to have floating point dtype but "
             "got ", c10::toString(aweights->scalar_type()));
    w = w ? at::_ops::mul(*w, *aweights) : *aweights;
  }
  int64_t d1 = 1;
  TensorBase avg, w_sum, norm_factor;
  if (w) {
    w_sum = at::_ops::sum(*w, std::optional<ScalarType>());
    avg = at::_ops::div(at::_ops::sum(at::_ops::mul(x, *w), IntArrayRef(&d1, 1), false, std::nullopt), w_sum);
    if (correction == 0) {
      norm_factor = w_sum;
    } else if (aweights && aweights->defined()) {
      TensorBase wa = at::_ops::sum(at::_ops::mul(*w, *aweights), std::optional<ScalarType>());
      norm_factor = at::_ops::sub(w_sum, scaled(at::_ops::div(wa, w_sum), Scalar(correction)));
    } else {
      norm_factor = at::_ops::sub(w_sum, number(correction));
    }
  } else {
    avg = at::_ops::mean(x, IntArrayRef(&d1, 1), false, std::nullopt);
    norm_factor = c10::scalar_to_tensor(Scalar(double(n - correction)), x.scalar_type(), x.device());
  }
  TensorBase xc = at::_ops::sub(x, at::_ops::unsqueeze(avg, 1));
  TensorBase xw = w ? at::_ops::mul(xc, *w) : xc;
  TensorBase c = at::_ops::matmul(xw, at::_ops::transpose(xc, 0, 1));
  // A non-positive normaliser gives inf/nan like PyTorch (it clamps to 0).
  TensorBase nf = at::_ops::where(at::_ops::le(norm_factor, number(0)), at::_ops::zeros_like(norm_factor),
                                  norm_factor);
  TensorBase r = at::_ops::div(c, nf);
  return self.dim() < 2 ? at::_ops::reshape(r, {}) : r;
}

TensorBase corrcoef(const TensorBase& self) {
  TL_CHECK(self.dim() <= 2, "corrcoef(): expected input to have two or fewer dimensions but got an input with ",
           self.dim(), " dimensions");
  TensorBase c = cov(self, 1, std::nullopt, std::nullopt);
  if (c.dim() == 0) return at::_ops::div(c, c);
  TensorBase d = at::_ops::diagonal(c, 0, 0, 1);
  TensorBase sd = at::_ops::sqrt(d);
  TensorBase r = at::_ops::div(at::_ops::div(c, at::_ops::unsqueeze(sd, 1)), sd);
  return at::_ops::clamp(r, number(-1), number(1));  // rounding can step past +-1; PyTorch clips too
}

TensorBase dist(const TensorBase& self, const TensorBase& other, const Scalar& p) {
  return at::_ops::norm(at::_ops::sub(self, other), std::optional<Scalar>(p), std::nullopt, false, std::nullopt);
}

}  // namespace at::native
