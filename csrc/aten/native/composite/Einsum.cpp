// einsum: Einstein summation over any equation PyTorch accepts (issue 10,
// "Contractions"), with PyTorch's parsing rules and error messages.
//
// How it runs, in the order PyTorch's own implementation uses (so results,
// broadcasting and which operand a size-1 dimension broadcasts from match):
//  1. Parse: each operand's labels (A-Z -> 0..25, a-z -> 26..51) and at most
//     one ellipsis; the output is explicit (after "->") or implicit (the
//     ellipsis dims, then every label seen once, in alphabetical order).
//  2. Align: every operand is brought to one common dim order, output dims
//     first and contraction dims after, by taking diagonals for labels that
//     repeat within an operand, unsqueezing the labels it lacks and permuting.
//     All of these are views.
//  3. Contract pairwise (left to right, or in the order `path` gives): a dim
//     only one of the two operands still has, and that no later operand
//     needs, is summed out of it first; the pair is then multiplied and its
//     shared contraction dims summed in one bmm over (batch, left, sum) x
//     (batch, sum, right) reshapes, so BLAS does the work (tiny per-batch
//     products: an elementwise product summed by one gemv with ones).
//  4. The contraction dims left (size 1 by then) are dropped, or, for a single
//     operand, summed.
// Everything goes through differentiable dispatcher ops, so autograd (second
// order included) and every backend with those ops (Meta too) come for free.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <deque>
#include <numeric>
#include <string_view>
#include <vector>

#include "ops/bmm.h"
#include "ops/diagonal.h"
#include "ops/einsum.h"
#include "ops/movedim.h"
#include "ops/mul.h"
#include "ops/mv.h"
#include "ops/ones.h"
#include "ops/permute.h"
#include "ops/reshape.h"
#include "ops/sum.h"
#include "ops/unsqueeze.h"

namespace at::native {
namespace {

constexpr int kLetters = 26;
constexpr int kLabels = 2 * kLetters;  // [A-Z] then [a-z]
constexpr int kEllipsis = kLabels;     // marks "..." in an operand's label list
// Per-batch-entry flops (left x summed x right) below which a pairwise
// product is done by mul + sum rather than bmm.
constexpr int64_t kSmallProduct = 256;

int label_index(unsigned char c) { return std::isupper(c) ? c - 'A' : c - 'a' + kLetters; }
char index_label(int s) { return static_cast<char>(s < kLetters ? 'A' + s : 'a' + (s - kLetters)); }

// Multiplies two aligned operands (same number of dims, each dim either equal
// in both or 1 in one of them) and sums sum_dims, keeping them as size 1.
// Dims are sorted into: in both and kept (batch), left only, summed, right
// only; the product is one bmm over the flattened groups.
TensorBase sumproduct_pair(TensorBase left, TensorBase right, const std::vector<int64_t>& sum_dims) {
  const int64_t ndim = left.dim();
  if (sum_dims.empty()) return at::_ops::mul(left, right);
  std::vector<bool> summed(ndim, false);
  for (int64_t d : sum_dims) summed[d] = true;

  std::vector<int64_t> both, left_only, right_only, summed_both;
  int64_t both_size = 1, left_size = 1, right_size = 1, sum_size = 1;
  for (int64_t i = 0; i < ndim; ++i) {
    const bool in_left = left.sizes()[i] != 1, in_right = right.sizes()[i] != 1;
    if (summed[i]) {
      if (in_left && in_right) {
        TL_CHECK(left.sizes()[i] == right.sizes()[i], "einsum(): non-broadcast dimensions must match");
        sum_size *= left.sizes()[i];
      } else if (in_left) {
        left = at::_ops::sum(left, IntArrayRef(&i, 1), true, std::nullopt);
      } else if (in_right) {
        right = at::_ops::sum(right, IntArrayRef(&i, 1), true, std::nullopt);
      }
    } else if (in_left && in_right) {
      TL_CHECK(left.sizes()[i] == right.sizes()[i], "einsum(): non-broadcast dimensions must match");
      both.push_back(i);
      both_size *= left.sizes()[i];
    } else if (in_left) {
      left_only.push_back(i);
      left_size *= left.sizes()[i];
    } else {
      right_only.push_back(i);
      right_size *= right.sizes()[i];
    }
  }

  // Tiny products (such as many short dot products, 'bi,bi->b'): one BLAS
  // call per batch entry costs more than the arithmetic, so multiply
  // elementwise and sum instead (the temporary is as large as the flop
  // count). Not for 16-bit floats, whose products bmm accumulates in float32
  // before rounding, nor bool, which bmm rejects as PyTorch's does.
  const ScalarType t = left.scalar_type();
  if (left_size * sum_size * right_size <= kSmallProduct && sum_size > 0 && t == right.scalar_type() &&
      t != ScalarType::Bool && t != ScalarType::Half && t != ScalarType::BFloat16) {
    // The sum runs as one matrix-vector product with a vector of ones over
    // the product seen as (kept, summed): BLAS streams it, where a reduction
    // over a short inner dim has per-output overhead.
    TensorBase product = at::_ops::mul(left, right);
    std::vector<int64_t> perm, kept_shape;
    for (int64_t i = 0; i < ndim; ++i)
      if (!summed[i]) perm.push_back(i);
    perm.insert(perm.end(), sum_dims.begin(), sum_dims.end());
    for (int64_t i = 0; i < ndim; ++i) kept_shape.push_back(summed[i] ? 1 : product.sizes()[i]);
    const int64_t flat_shape[2] = {-1, sum_size};
    TensorBase flat = at::_ops::reshape(at::_ops::permute(product, perm), IntArrayRef(flat_shape, 2));
    TensorBase ones = at::_ops::ones(IntArrayRef(&sum_size, 1), t, std::nullopt, product.device(), std::nullopt);
    return at::_ops::reshape(at::_ops::mv(flat, ones), kept_shape);
  }

  // left -> (both, left_only, summed [, right_only: all size 1]) -> (B, L, S)
  // right -> (both, summed, right_only [, left_only: size 1]) -> (B, S, R)
  // bmm gives (B, L, R), seen as (both, left_only, 1 per summed dim, right_only)
  // and permuted back to the original dim order.
  std::vector<int64_t> lperm(both), rperm(both), out_sizes;
  lperm.insert(lperm.end(), left_only.begin(), left_only.end());
  lperm.insert(lperm.end(), sum_dims.begin(), sum_dims.end());
  lperm.insert(lperm.end(), right_only.begin(), right_only.end());
  rperm.insert(rperm.end(), sum_dims.begin(), sum_dims.end());
  rperm.insert(rperm.end(), right_only.begin(), right_only.end());
  rperm.insert(rperm.end(), left_only.begin(), left_only.end());
  for (int64_t d : both) out_sizes.push_back(left.sizes()[d]);
  for (int64_t d : left_only) out_sizes.push_back(left.sizes()[d]);
  out_sizes.insert(out_sizes.end(), sum_dims.size(), 1);
  for (int64_t d : right_only) out_sizes.push_back(right.sizes()[d]);
  std::vector<int64_t> operm(ndim);
  for (int64_t i = 0; i < ndim; ++i) operm[lperm[i]] = i;

  const int64_t lshape[3] = {both_size, left_size, sum_size};
  const int64_t rshape[3] = {both_size, sum_size, right_size};
  TensorBase l = at::_ops::reshape(at::_ops::permute(left, lperm), IntArrayRef(lshape, 3));
  TensorBase r = at::_ops::reshape(at::_ops::permute(right, rperm), IntArrayRef(rshape, 3));
  TensorBase product = at::_ops::bmm(l, r);
  return at::_ops::permute(at::_ops::reshape(product, out_sizes), operm);
}

}  // namespace

TensorBase einsum(std::string_view equation, TensorBaseList operands, std::optional<IntArrayRef> path) {
  TL_CHECK(!operands.empty(), "einsum(): must provide at least one operand");
  const int64_t num_ops = static_cast<int64_t>(operands.size());
  if (path) {
    const int64_t want = num_ops == 1 ? 1 : (num_ops - 1) * 2;
    TL_CHECK(static_cast<int64_t>(path->size()) == want,
             "einsum(): expected contraction path given in path parameter to have size ", want, " but got ",
             path->size());
  }

  // ---- 1. parse the operands' labels
  const size_t arrow = equation.find("->");
  const std::string_view lhs = equation.substr(0, arrow);
  std::vector<std::vector<int>> op_labels(num_ops);
  bool ellipsis_here = false;
  int64_t cur = 0;
  for (size_t i = 0; i < lhs.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(lhs[i]);
    if (c == ' ') continue;
    if (c == '.') {
      TL_CHECK(!ellipsis_here, "einsum(): found '.' for operand ", cur, " for which an ellipsis was already found");
      TL_CHECK(i + 2 < lhs.size() && lhs[i + 1] == '.' && lhs[i + 2] == '.', "einsum(): found '.' for operand ", cur,
               " that is not part of any ellipsis");
      i += 2;
      op_labels[cur].push_back(kEllipsis);
      ellipsis_here = true;
    } else if (c == ',') {
      ++cur;
      TL_CHECK(cur < num_ops, "einsum(): fewer operands were provided than specified in the equation");
      ellipsis_here = false;
    } else {
      TL_CHECK(std::isalpha(c), "einsum(): invalid subscript given at index ", i,
               " in the equation string, subscripts must be in [a-zA-Z]");
      op_labels[cur].push_back(label_index(c));
    }
  }
  TL_CHECK(cur == num_ops - 1, "einsum(): more operands were provided than specified in the equation");

  // How often each label occurs over the operands, and the widest ellipsis.
  std::vector<int64_t> label_count(kLabels, 0);
  int64_t ell_ndim = 0;
  for (int64_t i = 0; i < num_ops; ++i) {
    const int64_t ndim = operands[i].dim();
    int64_t nlabels = static_cast<int64_t>(op_labels[i].size());
    bool has_ellipsis = false;
    for (int s : op_labels[i]) {
      if (s == kEllipsis) {
        --nlabels;
        has_ellipsis = true;
      } else {
        ++label_count[s];
      }
    }
    TL_CHECK(has_ellipsis ? nlabels <= ndim : nlabels == ndim, "einsum(): the number of subscripts in the equation (",
             nlabels, ") does not match the number of dimensions (", ndim, ") for operand ", i,
             has_ellipsis ? "" : " and no ellipsis was given");
    if (has_ellipsis) ell_ndim = std::max(ell_ndim, ndim - nlabels);
  }

  // ---- the common dim order: output dims, then contraction dims
  std::vector<int64_t> label_pos(kLabels, -1);
  int64_t npos = 0, ell_pos = 0;
  bool ellipsis_in_output = false;
  if (arrow == std::string_view::npos) {
    // Implicit output: the broadcast ellipsis dims, then the labels seen once.
    npos = ell_ndim;
    ellipsis_in_output = true;
    for (int s = 0; s < kLabels; ++s)
      if (label_count[s] == 1) label_pos[s] = npos++;
  } else {
    const std::string_view rhs = equation.substr(arrow + 2);
    for (size_t i = 0; i < rhs.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(rhs[i]);
      if (c == ' ') continue;
      if (c == '.') {
        TL_CHECK(!ellipsis_in_output, "einsum(): found '.' for output but an ellipsis (...) was already found");
        TL_CHECK(i + 2 < rhs.size() && rhs[i + 1] == '.' && rhs[i + 2] == '.',
                 "einsum(): found '.' for output that is not part of any ellipsis (...)");
        i += 2;
        ell_pos = npos;
        npos += ell_ndim;
        ellipsis_in_output = true;
      } else {
        TL_CHECK(std::isalpha(c), "einsum(): invalid subscript given at index ", lhs.size() + 2 + i,
                 " in the equation string, subscripts must be in [a-zA-Z]");
        const int s = label_index(c);
        TL_CHECK(label_count[s] > 0 && label_pos[s] == -1, "einsum(): output subscript ", static_cast<char>(c),
                 label_pos[s] > -1 ? " appears more than once in the output"
                                   : " does not appear in the equation for any input operand");
        label_pos[s] = npos++;
      }
    }
  }
  const int64_t out_ndim = npos;
  if (!ellipsis_in_output) {  // ellipsis dims not in the output are summed
    ell_pos = npos;
    npos += ell_ndim;
  }
  for (int s = 0; s < kLabels; ++s)
    if (label_count[s] > 0 && label_pos[s] == -1) label_pos[s] = npos++;

  // ---- 2. align every operand to that order, checking sizes as we go.
  // dim_users[p]: how many operands have a non-1 size at position p (a
  // contraction dim used by a single operand can be summed out of it early).
  std::vector<int64_t> label_size(kLabels, 1), ell_size(ell_ndim, 1);
  std::vector<int64_t> dim_users(npos, 0);
  std::deque<TensorBase> ops;
  for (int64_t i = 0; i < num_ops; ++i) {
    TensorBase op = operands[i];
    std::vector<int64_t> perm(npos, -1);
    int64_t dim = 0;
    for (int s : op_labels[i]) {
      if (s == kEllipsis) {
        const int64_t covered = operands[i].dim() - (static_cast<int64_t>(op_labels[i].size()) - 1);
        for (int64_t j = ell_ndim - covered; j < ell_ndim; ++j) {
          const int64_t sz = op.sizes()[dim];
          if (sz != 1) {
            TL_CHECK(ell_size[j] == 1 || ell_size[j] == sz, "einsum(): dimension ", dim,
                     " covered by ellipsis in operand ", i, "has size ", sz,
                     " which does not broadcast with previously seen ellipsis with size ", ell_size[j],
                     " for the respective dimension");
            ell_size[j] = sz;
            ++dim_users[ell_pos + j];
          }
          perm[ell_pos + j] = dim++;
        }
      } else if (perm[label_pos[s]] == -1) {
        const int64_t sz = op.sizes()[dim];
        if (sz != 1) {
          TL_CHECK(label_size[s] == 1 || label_size[s] == sz, "einsum(): subscript ", index_label(s), " has size ", sz,
                   " for operand ", i, " which does not broadcast with previously seen size ", label_size[s]);
          label_size[s] = sz;
          ++dim_users[label_pos[s]];
        }
        perm[label_pos[s]] = dim++;
      } else {
        // A label repeated within one operand: its diagonal, put back where
        // the label first appeared.
        const int64_t prev = perm[label_pos[s]];
        TL_CHECK(op.sizes()[dim] == op.sizes()[prev], "einsum(): subscript ", index_label(s),
                 " is repeated for operand ", i, " but the sizes don't match, ", op.sizes()[dim],
                 " != ", op.sizes()[prev]);
        op = at::_ops::movedim(at::_ops::diagonal(op, 0, prev, dim), -1, prev);
      }
    }
    for (int64_t& p : perm) {
      if (p == -1) {
        op = at::_ops::unsqueeze(op, dim);
        p = dim++;
      }
    }
    ops.push_back(at::_ops::permute(op, perm));
  }

  // ---- 3. contract pairwise
  size_t path_at = 0;
  while (ops.size() > 1) {
    int64_t i = 0, j = 1;
    if (path) {
      i = (*path)[path_at++];
      j = (*path)[path_at++];
      if (j < i) std::swap(i, j);
      TL_CHECK(i != j && i >= 0 && j < static_cast<int64_t>(ops.size()), "einsum(): invalid contraction (", i, ", ",
               j, i == j ? ") cannot contract an operand with itself" : ") operand index is out of bounds");
    }
    TensorBase a = ops[i], b = ops[j];
    ops.erase(ops.begin() + j);
    ops.erase(ops.begin() + i);

    // Contraction dims both have are summed by the product when no other
    // operand still needs them; those only one has (and no other needs) are
    // summed out of it first.
    std::vector<int64_t> sum_dims, a_sum, b_sum;
    for (int64_t d = out_ndim; d < npos; ++d) {
      const bool in_a = a.sizes()[d] != 1, in_b = b.sizes()[d] != 1;
      if (in_a && in_b) {
        if (--dim_users[d] == 1) {
          sum_dims.push_back(d);
          dim_users[d] = 0;
        }
      } else if (dim_users[d] == 1) {
        if (in_a) {
          a_sum.push_back(d);
          dim_users[d] = 0;
        } else if (in_b) {
          b_sum.push_back(d);
          dim_users[d] = 0;
        }
      }
    }
    if (!a_sum.empty()) a = at::_ops::sum(a, IntArrayRef(a_sum), true, std::nullopt);
    if (!b_sum.empty()) b = at::_ops::sum(b, IntArrayRef(b_sum), true, std::nullopt);
    TensorBase product = sumproduct_pair(a, b, sum_dims);
    if (path)
      ops.push_back(product);
    else
      ops.push_front(product);
  }

  // ---- 4. drop (or, for one operand, sum) the contraction dims
  if (npos > out_ndim) {
    if (num_ops > 1) {
      // Every contraction dim has been summed to size 1 by now.
      std::vector<int64_t> sizes(ops[0].sizes().begin(), ops[0].sizes().begin() + out_ndim);
      return at::_ops::reshape(ops[0], sizes);
    }
    std::vector<int64_t> dims(npos - out_ndim);
    std::iota(dims.begin(), dims.end(), out_ndim);
    return at::_ops::sum(ops[0], IntArrayRef(dims), false, std::nullopt);
  }
  return ops[0];
}

}  // namespace at::native
