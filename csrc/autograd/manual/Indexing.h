// Hand-written backward helpers for the Indexing area (issue 10), declared for the
// generated autograd files; definitions in manual/Indexing.cpp.
#pragma once
#include "autograd/FunctionsManual.h"

namespace torchlike::autograd::generated {

// x[indices]: the gradient lands on the indexed positions, summed over repeats.
at::TensorBase index_backward(const at::TensorBase& grad, at::IntArrayRef self_sizes,
                              const std::vector<at::TensorBase>& indices);
// index_put_: self keeps the gradient except where it was overwritten.
at::TensorBase index_put_self_backward(const at::TensorBase& grad, const std::vector<at::TensorBase>& indices,
                                       bool accumulate);
// index_put_: values get grad[indices] (the engine sums broadcast dims).
at::TensorBase index_put_values_backward(const at::TensorBase& grad, const std::vector<at::TensorBase>& indices);
// masked_fill_(mask, value tensor): value receives the sum of grad where mask is set.
at::TensorBase masked_fill_value_backward(const at::TensorBase& grad, const at::TensorBase& mask);
// masked_select: grad scattered back into the positions the mask selected.
at::TensorBase masked_select_backward(const at::TensorBase& grad, const at::TensorBase& self, const at::TensorBase& mask);
// masked_scatter_: source's leading elements were consumed in order; the rest get zeros.
at::TensorBase masked_scatter_source_backward(const at::TensorBase& grad, const at::TensorBase& mask,
                                              at::IntArrayRef source_sizes);
// take: gradients added back at the taken positions.
at::TensorBase take_backward(const at::TensorBase& grad, at::IntArrayRef self_sizes, const at::TensorBase& index);
at::TensorBase put_self_backward(const at::TensorBase& grad, const at::TensorBase& index, bool accumulate);
at::TensorBase put_source_backward(const at::TensorBase& grad, const at::TensorBase& index,
                                   at::IntArrayRef source_sizes);

}  // namespace torchlike::autograd::generated
