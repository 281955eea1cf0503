// Multi-tensor (_foreach_*) operators: list checks shared by every backend
// and the CPU loop they hand dense rows to.
//
// A "row" is the i-th tensor of every list argument. A row whose tensors are
// all dense, contiguous CPU tensors of one floating dtype and one shape runs
// in foreach_dense_cpu; any other row goes through the single-tensor op, so
// promotion, broadcasting and errors are that op's.
#pragma once
#include <initializer_list>
#include "c10/Tensor.h"

namespace at::native {

// The per-element formula a dense row applies (the single-tensor op's
// generated functor).
enum class ForeachFormula { Add, Sub, Mul, Div, Maximum, Addcmul, Addcdiv, Lerp, Sqrt, Neg, Abs };

// Named operands of one dense row. `operand` stands in for a missing second
// tensor (add.Scalar's number, lerp.Scalar's weight); `coeff` is the
// formula's own Scalar (alpha, value). Both enter at computation precision
// (float for float16/bfloat16 rows), as in the single-tensor kernels.
struct ForeachRow {
  const TensorBase* dst = nullptr;
  const TensorBase* a = nullptr;
  const TensorBase* b = nullptr;  // null: use `operand`
  const TensorBase* c = nullptr;
  Scalar operand = 0;
  Scalar coeff = 1;
};

void foreach_dense_cpu(ForeachFormula formula, const ForeachRow& row);

// Lists must be non-empty and, when there are several, equally long.
void foreach_check_lists(const char* op, std::initializer_list<TensorBaseList> lists);

// Whether every (defined) tensor can take the dense CPU loop together.
bool foreach_row_is_dense(std::initializer_list<const TensorBase*> row);

}  // namespace at::native
