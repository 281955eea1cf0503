// The fused LSTM recurrence on Meta: the CPU kernels' checks and result
// shapes, without values.
#include <optional>
#include <vector>

#include "../RnnFused.h"

namespace at::native {

static ScalarType lstm_workspace_dtype(ScalarType t) {
  return (t == ScalarType::Half || t == ScalarType::BFloat16) ? ScalarType::Float : t;
}

std::vector<TensorBase> lstm_fused_sequence_meta(const TensorBase& x_gates,
                                                                                    const TensorBase& h0,
                                                                                    const TensorBase& c0,
                                                                                    const TensorBase& w_hh,
                                                                                    bool /*reverse*/) {
  LstmSequencePlan p = lstm_fused_sequence_plan("_lstm_fused_sequence", x_gates, h0, c0, w_hh);
  const TensorOptions opts = x_gates.options();
  return {make_empty({p.steps, p.batch, p.hidden}, opts), make_empty({p.batch, p.hidden}, opts),
          make_empty({p.batch, p.hidden}, opts),
          make_empty({p.steps, p.batch, kLstmWorkspaceBlocks * p.hidden},
                     opts.with_dtype(lstm_workspace_dtype(x_gates.scalar_type())))};
}

std::vector<TensorBase> lstm_fused_sequence_backward_meta(
    const std::optional<TensorBase>& grad_output, const std::optional<TensorBase>& grad_hn,
    const std::optional<TensorBase>& grad_cn, const TensorBase& h0, const TensorBase& c0, const TensorBase& w_hh,
    const TensorBase& output, const TensorBase& workspace, bool /*reverse*/) {
  auto given = [](const std::optional<TensorBase>& g) -> const TensorBase* {
    return g.has_value() && g->defined() ? &*g : nullptr;
  };
  LstmSequencePlan p =
      lstm_fused_backward_plan(given(grad_output), given(grad_hn), given(grad_cn), h0, c0, w_hh, output, workspace);
  const TensorOptions opts = h0.options();
  return {make_empty({p.steps, p.batch, 4 * p.hidden}, opts), make_empty({p.batch, p.hidden}, opts),
          make_empty({p.batch, p.hidden}, opts), make_empty({4 * p.hidden, p.hidden}, opts)};
}

}  // namespace at::native
