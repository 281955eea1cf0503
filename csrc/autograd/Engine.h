// Runs the backward graph: dependency counts from the roots, then nodes in
// an order where every node runs after all nodes that feed it gradients.
#pragma once
#include "AutogradMeta.h"

namespace torchlike::autograd {

// roots: outputs to differentiate; grad_roots: their incoming gradients.
// inputs empty: accumulate into leaves (.backward()). Otherwise return the
// gradient for each input (autograd.grad), accumulating nothing unless
// accumulate_into_inputs (backward(inputs=...)).
variable_list run_backward(const variable_list& roots, const variable_list& grad_roots, bool keep_graph,
                           bool create_graph, const variable_list& inputs, bool allow_unused,
                           bool accumulate_into_inputs);

// Anomaly mode's NaN check (torch.set_anomaly_enabled(True, check_nan=False)
// keeps the forward traces but skips the per-gradient isnan scan).
bool anomaly_check_nan();
void set_anomaly_check_nan(bool v);

}  // namespace torchlike::autograd
