// Hand-written backward helpers for the Statistics area (issue 10), declared for the
// generated autograd files; definitions in manual/Statistics.cpp.
#pragma once
#include "autograd/FunctionsManual.h"

namespace torchlike::autograd::generated {
// logcumsumexp: PyTorch's formula (TensorFlow's), built from differentiable
// ops so double backward works: the positive and negative parts of grad are
// carried in log space through a reversed logcumsumexp.
at::TensorBase logcumsumexp_backward(const at::TensorBase& grad, const at::TensorBase& self,
                                     const at::TensorBase& result, int64_t dim);
}  // namespace torchlike::autograd::generated
