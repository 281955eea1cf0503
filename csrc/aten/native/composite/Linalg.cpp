// Composite linear-algebra ops: matmul (all of PyTorch's broadcasting cases),
// outer and nn.linear, written over mm/bmm/dot/mv/addmm so every backend with
// those kernels (and Meta) gets them.
//
// All geometry goes through the view operators (expand, reshape, view,
// squeeze, transpose), so autograd records every step and gradients flow
// back through matmul's internal folding and broadcasting.
#include "../../TensorIterator.h"
#include "ops/addmm.h"
#include "ops/add.h"
#include "ops/bmm.h"
#include "ops/dot.h"
#include "ops/expand.h"
#include "ops/linear.h"
#include "ops/matmul.h"
#include "ops/mm.h"
#include "ops/mul.h"
#include "ops/mv.h"
#include "ops/outer.h"
#include "ops/reshape.h"
#include "ops/squeeze.h"
#include "ops/transpose.h"
#include "ops/unsqueeze.h"
#include "ops/view.h"

namespace at::native {
namespace {

// The last two dims swapped (t() for a matrix; a 1-D tensor is returned as is).
TensorBase transpose_last2(const TensorBase& t) { return t.dim() < 2 ? t : at::_ops::transpose(t, -2, -1); }

}  // namespace

TensorBase matmul(const TensorBase& self, const TensorBase& other) {
  const int64_t d1 = self.dim(), d2 = other.dim();
  TL_CHECK(d1 != 0 && d2 != 0, "both arguments to matmul need to be at least 1D, but they are ", d1, "D and ", d2,
           "D");
  if (d1 == 1 && d2 == 1) return at::_ops::dot(self, other);
  if (d1 == 2 && d2 == 1) return at::_ops::mv(self, other);
  if (d1 == 2 && d2 == 2) return at::_ops::mm(self, other);
  if (d1 == 1 && d2 == 2) {
    // (k) @ (k, p): a (1, k) row times the matrix, the 1 removed.
    return at::_ops::squeeze(at::_ops::mm(at::_ops::unsqueeze(self, 0), other), 0);
  }
  if (d1 >= 3 && d2 <= 2) {
    // (..., n, k) @ (k[, p]): fold the batch dims into the rows, one mm
    // (a view when self's batch dims merge with its rows, else one copy).
    const int64_t k = self.sizes()[d1 - 1];
    DimVector out_sizes(self.sizes().slice(0, d1 - 1));
    int64_t fsz[2] = {c10::multiply_integers(out_sizes), k};
    TensorBase folded = at::_ops::reshape(self, IntArrayRef(fsz, 2));
    TensorBase r = d2 == 2 ? at::_ops::mm(folded, other) : at::_ops::mv(folded, other);
    if (d2 == 2) out_sizes.push_back(other.sizes()[1]);
    return at::_ops::view(r, IntArrayRef(out_sizes.data(), out_sizes.size()));
  }
  // Batched: broadcast the batch dims, one bmm over (B, n, k) @ (B, k, p).
  // A 1-D operand is a row (self) or column (other) whose dim is dropped after.
  const int64_t n = d1 > 1 ? self.sizes()[d1 - 2] : 1, k1 = self.sizes()[d1 - 1];
  const int64_t k2 = d2 > 1 ? other.sizes()[d2 - 2] : other.sizes()[0], p = d2 > 1 ? other.sizes()[d2 - 1] : 1;
  IntArrayRef batch1 = self.sizes().slice(0, std::max<int64_t>(d1 - 2, 0));
  IntArrayRef batch2 = other.sizes().slice(0, std::max<int64_t>(d2 - 2, 0));
  DimVector batch = infer_size(batch1, batch2);
  const int64_t B = c10::multiply_integers(IntArrayRef(batch.data(), batch.size()));

  auto prepare = [&](const TensorBase& t, int64_t rows, int64_t cols, bool is_row) {
    TensorBase m = t;
    if (t.dim() == 1) m = at::_ops::unsqueeze(t, is_row ? 0 : 1);
    DimVector full(batch);
    full.push_back(rows);
    full.push_back(cols);
    TensorBase e = at::_ops::expand(m, IntArrayRef(full.data(), full.size()));
    int64_t s3[3] = {B, rows, cols};
    return at::_ops::reshape(e, IntArrayRef(s3, 3));
  };
  TensorBase r = at::_ops::bmm(prepare(self, n, k1, true), prepare(other, k2, p, false));

  DimVector out_sizes(batch);
  if (d1 > 1) out_sizes.push_back(n);
  if (d2 > 1) out_sizes.push_back(p);
  return at::_ops::view(r, IntArrayRef(out_sizes.data(), out_sizes.size()));
}

TensorBase outer(const TensorBase& self, const TensorBase& vec2) {
  TL_CHECK(self.dim() == 1, "outer: Expected 1-D argument self, but got ", self.dim(), "-D");
  TL_CHECK(vec2.dim() == 1, "outer: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  return at::_ops::mul(at::_ops::unsqueeze(self, 1), vec2);
}

TensorBase linear(const TensorBase& input, const TensorBase& weight, const std::optional<TensorBase>& bias) {
  const bool has_bias = bias.has_value() && bias->defined();
  TensorBase wt = transpose_last2(weight);
  if (has_bias && weight.dim() == 2 && input.dim() >= 2) {
    // y = bias + x @ W^T in one addmm (bias added inside the gemm's beta
    // pass); batch dims of x fold into rows when they are viewable.
    if (input.dim() == 2) return at::_ops::addmm(*bias, input, wt, 1, 1);
    const int64_t k = input.sizes()[input.dim() - 1];
    DimVector out_sizes(input.sizes().slice(0, input.dim() - 1));
    int64_t fsz[2] = {c10::multiply_integers(out_sizes), k};
    TensorBase r = at::_ops::addmm(*bias, at::_ops::reshape(input, IntArrayRef(fsz, 2)), wt, 1, 1);
    out_sizes.push_back(r.sizes()[1]);
    return at::_ops::view(r, IntArrayRef(out_sizes.data(), out_sizes.size()));
  }
  TensorBase r = at::_ops::matmul(input, wt);
  return has_bias ? at::_ops::add(r, *bias) : r;
}

}  // namespace at::native
