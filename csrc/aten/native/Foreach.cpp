// The _foreach_ operators (multi-tensor arithmetic for the optimizers). Each
// kernel is registered for CPU and Meta: it checks the lists once, then walks
// the rows, sending dense CPU rows to one native loop (cpu/ForeachKernels.cpp)
// and every other row (meta tensors, mixed dtypes, broadcasting, integers)
// to the single-tensor op, which brings that op's promotion and errors.
#include <string>
#include <vector>

#include "Foreach.h"
#include "autograd/AutogradMeta.h"
#include "ops/_foreach_abs.h"
#include "ops/_foreach_add.h"
#include "ops/_foreach_addcdiv.h"
#include "ops/_foreach_addcmul.h"
#include "ops/_foreach_copy.h"
#include "ops/_foreach_div.h"
#include "ops/_foreach_lerp.h"
#include "ops/_foreach_maximum.h"
#include "ops/_foreach_mul.h"
#include "ops/_foreach_neg.h"
#include "ops/_foreach_norm.h"
#include "ops/_foreach_sqrt.h"
#include "ops/_foreach_sub.h"
#include "ops/_foreach_zero.h"
#include "ops/abs.h"
#include "ops/add.h"
#include "ops/addcdiv.h"
#include "ops/addcmul.h"
#include "ops/copy.h"
#include "ops/div.h"
#include "ops/lerp.h"
#include "ops/maximum.h"
#include "ops/mul.h"
#include "ops/neg.h"
#include "ops/norm.h"
#include "ops/sqrt.h"
#include "ops/sub.h"
#include "ops/zero.h"

namespace at::native {

void foreach_check_lists(const char* op, std::initializer_list<TensorBaseList> lists) {
  const TensorBaseList& first = *lists.begin();
  TL_CHECK(!first.empty(), op, ": Tensor list must have at least one tensor.");
  for (const TensorBaseList& other : lists) {
    TL_CHECK(other.size() == first.size(), op, ": Tensor lists must have the same number of tensors, got ",
             first.size(), " and ", other.size());
  }
}

bool foreach_row_is_dense(std::initializer_list<const TensorBase*> row) {
  const TensorBase* lead = *row.begin();
  const ScalarType dtype = lead->scalar_type();
  if (!(dtype == kFloat || dtype == kDouble || dtype == kHalf || dtype == kBFloat16)) return false;
  for (const TensorBase* t : row) {
    if (t == nullptr) continue;
    if (!t->is_cpu() || t->scalar_type() != dtype || !t->is_contiguous() || t->sizes() != lead->sizes())
      return false;
  }
  return true;
}

namespace {

using RowFallback = TensorBase (*)(const ForeachRow&);

// One row into a fresh result: dense rows get an empty tensor of the input's
// geometry filled by the CPU loop, the rest come from the single-tensor op.
template <class Fallback>
TensorBase row_result(ForeachFormula f, ForeachRow row, const Fallback& fallback) {
  if (foreach_row_is_dense({row.a, row.b, row.c})) {
    TensorBase out = make_empty(row.a->sizes(), row.a->options());
    row.dst = &out;
    foreach_dense_cpu(f, row);
    return out;
  }
  return fallback(row);
}

// Whether a source's memory partly overlaps the destination's: the dense
// loop reads and writes element i together, so it may only see an input that
// is the destination itself or lies elsewhere. (Both are contiguous here.)
bool partly_overlaps(const TensorBase& dst, const TensorBase* src) {
  if (src == nullptr || src->numel() == 0) return false;
  const char* d = static_cast<const char*>(dst.data_ptr());
  const char* s = static_cast<const char*>(src->data_ptr());
  const bool disjoint = s + src->nbytes() <= d || d + dst.nbytes() <= s;
  return !disjoint && s != d;
}

// One row written into its first tensor. Rows the dense loop cannot take,
// partly overlapping ones included, go to the single-tensor op (which has
// its own overlap rules).
template <class Fallback>
void row_inplace(ForeachFormula f, ForeachRow row, const Fallback& fallback) {
  row.dst = row.a;
  if (foreach_row_is_dense({row.a, row.b, row.c}) && !partly_overlaps(*row.a, row.b) &&
      !partly_overlaps(*row.a, row.c)) {
    foreach_dense_cpu(f, row);
    row.a->bump_version();
    return;
  }
  fallback(row);
}

template <class Fallback>
std::vector<TensorBase> map_rows(ForeachFormula f, TensorBaseList self, TensorBaseList b, TensorBaseList c,
                                 const Scalar& operand, const Scalar& coeff, const Fallback& fallback) {
  std::vector<TensorBase> out;
  out.reserve(self.size());
  for (size_t i = 0; i < self.size(); ++i) {
    ForeachRow row;
    row.a = &self[i];
    row.b = b.empty() ? nullptr : &b[i];
    row.c = c.empty() ? nullptr : &c[i];
    row.operand = operand;
    row.coeff = coeff;
    out.push_back(row_result(f, row, fallback));
  }
  return out;
}

template <class Fallback>
void update_rows(ForeachFormula f, TensorBaseList self, TensorBaseList b, TensorBaseList c, const Scalar& operand,
                 const Scalar& coeff, const Fallback& fallback) {
  for (size_t i = 0; i < self.size(); ++i) {
    ForeachRow row;
    row.a = &self[i];
    row.b = b.empty() ? nullptr : &b[i];
    row.c = c.empty() ? nullptr : &c[i];
    row.operand = operand;
    row.coeff = coeff;
    row_inplace(f, row, fallback);
  }
}

// The second operand of a fallback row: the list's tensor, or the number
// wrapped as Python wraps it.
TensorBase second(const ForeachRow& r) { return r.b ? *r.b : wrapped_scalar_tensor(r.operand); }

void check_scalar_tensor(const TensorBase& t) {
  TL_CHECK(t.dim() == 0, "scalar tensor expected to be 0 dim but it has ", t.dim(), " dimensions and ", t.numel(),
           " elements.");
}

const TensorBaseList kNone{};

// The in-place forms record no autograd history, so in grad mode they refuse
// tensors that take part in autograd instead of silently breaking gradients:
// a leaf that requires grad gets PyTorch's in-place error, a tensor with
// history a message that names the op. (Optimizers call them under no_grad.)
void guard_inplace(const char* op, TensorBaseList self) {
  if (!torchlike::autograd::is_grad_enabled()) return;
  for (const TensorBase& t : self) {
    torchlike::autograd::check_inplace(t, op);
    TL_CHECK(!torchlike::autograd::requires_grad(t), op,
             ": in-place foreach ops are not differentiable; call them on tensors that do not require grad "
             "or under torchlike.no_grad()");
  }
}

}  // namespace

// ------------------------------------------------------------------ add / sub
#define TL_FOREACH_ADD_LIKE(NAME, FORMULA, OP)                                                                  \
  std::vector<TensorBase> foreach_##NAME##_scalar(TensorBaseList self, const Scalar& scalar) {                   \
    foreach_check_lists("_foreach_" #NAME, {self});                                                             \
    return map_rows(FORMULA, self, kNone, kNone, scalar, 1,                                                     \
                    [](const ForeachRow& r) { return at::_ops::OP(*r.a, second(r), 1); });                      \
  }                                                                                                              \
  void foreach_##NAME##_scalar_(TensorBaseList self, const Scalar& scalar) {                                     \
    foreach_check_lists("_foreach_" #NAME "_", {self});                                                         \
    guard_inplace("_foreach_" #NAME "_", self);                                                                 \
    update_rows(FORMULA, self, kNone, kNone, scalar, 1,                                                         \
                [](const ForeachRow& r) { return at::_ops::OP##_(*r.a, second(r), 1); });                       \
  }                                                                                                              \
  std::vector<TensorBase> foreach_##NAME##_list(TensorBaseList self, TensorBaseList other, const Scalar& alpha) { \
    foreach_check_lists("_foreach_" #NAME, {self, other});                                                      \
    return map_rows(FORMULA, self, other, kNone, 0, alpha,                                                      \
                    [](const ForeachRow& r) { return at::_ops::OP(*r.a, *r.b, r.coeff); });                     \
  }                                                                                                              \
  void foreach_##NAME##_list_(TensorBaseList self, TensorBaseList other, const Scalar& alpha) {                  \
    foreach_check_lists("_foreach_" #NAME "_", {self, other});                                                  \
    guard_inplace("_foreach_" #NAME "_", self);                                                                 \
    update_rows(FORMULA, self, other, kNone, 0, alpha,                                                          \
                [](const ForeachRow& r) { return at::_ops::OP##_(*r.a, *r.b, r.coeff); });                      \
  }

TL_FOREACH_ADD_LIKE(add, ForeachFormula::Add, add)
TL_FOREACH_ADD_LIKE(sub, ForeachFormula::Sub, sub)
#undef TL_FOREACH_ADD_LIKE

// ------------------------------------------------------------------ mul / div
#define TL_FOREACH_MUL_LIKE(NAME, FORMULA, OP)                                                                   \
  std::vector<TensorBase> foreach_##NAME##_scalar(TensorBaseList self, const Scalar& scalar) {                   \
    foreach_check_lists("_foreach_" #NAME, {self});                                                             \
    return map_rows(FORMULA, self, kNone, kNone, scalar, 1,                                                     \
                    [](const ForeachRow& r) { return at::_ops::OP(*r.a, second(r)); });                         \
  }                                                                                                              \
  void foreach_##NAME##_scalar_(TensorBaseList self, const Scalar& scalar) {                                     \
    foreach_check_lists("_foreach_" #NAME "_", {self});                                                         \
    guard_inplace("_foreach_" #NAME "_", self);                                                                 \
    update_rows(FORMULA, self, kNone, kNone, scalar, 1,                                                         \
                [](const ForeachRow& r) { return at::_ops::OP##_(*r.a, second(r)); });                          \
  }                                                                                                              \
  std::vector<TensorBase> foreach_##NAME##_list(TensorBaseList self, TensorBaseList other) {                     \
    foreach_check_lists("_foreach_" #NAME, {self, other});                                                      \
    return map_rows(FORMULA, self, other, kNone, 0, 1,                                                          \
                    [](const ForeachRow& r) { return at::_ops::OP(*r.a, *r.b); });                              \
  }                                                                                                              \
  void foreach_##NAME##_list_(TensorBaseList self, TensorBaseList other) {                                       \
    foreach_check_lists("_foreach_" #NAME "_", {self, other});                                                  \
    guard_inplace("_foreach_" #NAME "_", self);                                                                 \
    update_rows(FORMULA, self, other, kNone, 0, 1, [](const ForeachRow& r) { return at::_ops::OP##_(*r.a, *r.b); }); \
  }                                                                                                              \
  /* A 0-dim tensor operand applies to every tensor; it may live on another */                                  \
  /* device or dtype, so these rows always take the single-tensor op. */                                        \
  std::vector<TensorBase> foreach_##NAME##_tensor(TensorBaseList self, const TensorBase& other) {                \
    foreach_check_lists("_foreach_" #NAME, {self});                                                             \
    check_scalar_tensor(other);                                                                                 \
    std::vector<TensorBase> out;                                                                                \
    out.reserve(self.size());                                                                                   \
    for (const TensorBase& t : self) out.push_back(at::_ops::OP(t, other));                                     \
    return out;                                                                                                 \
  }                                                                                                              \
  void foreach_##NAME##_tensor_(TensorBaseList self, const TensorBase& other) {                                  \
    foreach_check_lists("_foreach_" #NAME "_", {self});                                                         \
    check_scalar_tensor(other);                                                                                 \
    guard_inplace("_foreach_" #NAME "_", self);                                                                 \
    for (const TensorBase& t : self) at::_ops::OP##_(t, other);                                                 \
  }

TL_FOREACH_MUL_LIKE(mul, ForeachFormula::Mul, mul)
TL_FOREACH_MUL_LIKE(div, ForeachFormula::Div, div)
#undef TL_FOREACH_MUL_LIKE

// ------------------------------------------------------------ addcmul / addcdiv
#define TL_FOREACH_ADDC(NAME, FORMULA, OP)                                                                        \
  std::vector<TensorBase> foreach_##NAME##_scalar(TensorBaseList self, TensorBaseList tensor1,                   \
                                                  TensorBaseList tensor2, const Scalar& value) {                 \
    foreach_check_lists("_foreach_" #NAME, {self, tensor1, tensor2});                                           \
    return map_rows(FORMULA, self, tensor1, tensor2, 0, value,                                                  \
                    [](const ForeachRow& r) { return at::_ops::OP(*r.a, *r.b, *r.c, r.coeff); });               \
  }                                                                                                              \
  void foreach_##NAME##_scalar_(TensorBaseList self, TensorBaseList tensor1, TensorBaseList tensor2,            \
                                const Scalar& value) {                                                          \
    foreach_check_lists("_foreach_" #NAME "_", {self, tensor1, tensor2});                                       \
    guard_inplace("_foreach_" #NAME "_", self);                                                                 \
    update_rows(FORMULA, self, tensor1, tensor2, 0, value,                                                      \
                [](const ForeachRow& r) { return at::_ops::OP##_(*r.a, *r.b, *r.c, r.coeff); });                \
  }

TL_FOREACH_ADDC(addcmul, ForeachFormula::Addcmul, addcmul)
TL_FOREACH_ADDC(addcdiv, ForeachFormula::Addcdiv, addcdiv)
#undef TL_FOREACH_ADDC

// ------------------------------------------------------------------------ lerp
std::vector<TensorBase> foreach_lerp_scalar(TensorBaseList self, TensorBaseList tensors1, const Scalar& weight) {
  foreach_check_lists("_foreach_lerp", {self, tensors1});
  return map_rows(ForeachFormula::Lerp, self, tensors1, kNone, weight, 1, [](const ForeachRow& r) {
    return at::_ops::lerp(*r.a, *r.b, wrapped_scalar_tensor(r.operand));
  });
}

void foreach_lerp_scalar_(TensorBaseList self, TensorBaseList tensors1, const Scalar& weight) {
  foreach_check_lists("_foreach_lerp_", {self, tensors1});
  guard_inplace("_foreach_lerp_", self);
  update_rows(ForeachFormula::Lerp, self, tensors1, kNone, weight, 1, [](const ForeachRow& r) {
    return at::_ops::lerp_(*r.a, *r.b, wrapped_scalar_tensor(r.operand));
  });
}

std::vector<TensorBase> foreach_lerp_list(TensorBaseList self, TensorBaseList tensors1, TensorBaseList weights) {
  foreach_check_lists("_foreach_lerp", {self, tensors1, weights});
  return map_rows(ForeachFormula::Lerp, self, tensors1, weights, 0, 1,
                  [](const ForeachRow& r) { return at::_ops::lerp(*r.a, *r.b, *r.c); });
}

void foreach_lerp_list_(TensorBaseList self, TensorBaseList tensors1, TensorBaseList weights) {
  foreach_check_lists("_foreach_lerp_", {self, tensors1, weights});
  guard_inplace("_foreach_lerp_", self);
  update_rows(ForeachFormula::Lerp, self, tensors1, weights, 0, 1,
              [](const ForeachRow& r) { return at::_ops::lerp_(*r.a, *r.b, *r.c); });
}

// --------------------------------------------------------------------- maximum
std::vector<TensorBase> foreach_maximum_list(TensorBaseList self, TensorBaseList other) {
  foreach_check_lists("_foreach_maximum", {self, other});
  return map_rows(ForeachFormula::Maximum, self, other, kNone, 0, 1,
                  [](const ForeachRow& r) { return at::_ops::maximum(*r.a, *r.b); });
}

void foreach_maximum_list_(TensorBaseList self, TensorBaseList other) {
  foreach_check_lists("_foreach_maximum_", {self, other});
  guard_inplace("_foreach_maximum_", self);
  update_rows(ForeachFormula::Maximum, self, other, kNone, 0, 1,
              [](const ForeachRow& r) { return at::_ops::maximum_out(*r.a, *r.a, *r.b); });
}

// ------------------------------------------------------------------- unary ops
#define TL_FOREACH_UNARY(NAME, FORMULA, OP)                                                                       \
  std::vector<TensorBase> foreach_##NAME(TensorBaseList self) {                                                  \
    foreach_check_lists("_foreach_" #NAME, {self});                                                             \
    return map_rows(FORMULA, self, kNone, kNone, 0, 1, [](const ForeachRow& r) { return at::_ops::OP(*r.a); }); \
  }                                                                                                              \
  void foreach_##NAME##_(TensorBaseList self) {                                                                  \
    foreach_check_lists("_foreach_" #NAME "_", {self});                                                         \
    guard_inplace("_foreach_" #NAME "_", self);                                                                 \
    update_rows(FORMULA, self, kNone, kNone, 0, 1, [](const ForeachRow& r) { return at::_ops::OP##_(*r.a); });  \
  }

TL_FOREACH_UNARY(sqrt, ForeachFormula::Sqrt, sqrt)
TL_FOREACH_UNARY(neg, ForeachFormula::Neg, neg)
TL_FOREACH_UNARY(abs, ForeachFormula::Abs, abs)
#undef TL_FOREACH_UNARY

// ------------------------------------------------------- zero / copy / norm
void foreach_zero_(TensorBaseList self) {
  foreach_check_lists("_foreach_zero_", {self});
  guard_inplace("_foreach_zero_", self);
  for (const TensorBase& t : self) at::_ops::zero_(t);
}

void foreach_copy_(TensorBaseList self, TensorBaseList src, bool non_blocking) {
  foreach_check_lists("_foreach_copy_", {self, src});
  guard_inplace("_foreach_copy_", self);
  for (size_t i = 0; i < self.size(); ++i) at::_ops::copy_(self[i], src[i], non_blocking);
}

std::vector<TensorBase> foreach_norm(TensorBaseList self, const Scalar& ord, std::optional<ScalarType> dtype) {
  foreach_check_lists("_foreach_norm", {self});
  std::vector<TensorBase> out;
  out.reserve(self.size());
  for (const TensorBase& t : self) out.push_back(at::_ops::norm(t, ord, std::nullopt, false, dtype));
  return out;
}

}  // namespace at::native
