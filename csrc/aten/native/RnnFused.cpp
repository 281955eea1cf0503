#include "RnnFused.h"

#include <initializer_list>
#include <string>

#include "c10/Exception.h"

namespace at::native {

namespace {

void check_shape(const char* op, const char* name, const TensorBase& t, std::initializer_list<int64_t> want) {
  bool ok = t.dim() == (int64_t)want.size();
  if (ok) {
    int64_t d = 0;
    for (int64_t w : want) ok = ok && t.size(d++) == w;
  }
  if (!ok) {
    std::string expected = "(";
    int64_t d = 0;
    for (int64_t w : want) expected += (d++ ? ", " : "") + std::to_string(w);
    expected += ")";
    TL_CHECK(false, op, ": expected ", name, " of shape ", expected, ", got ", t.sizes());
  }
}

void check_same_kind(const char* op, const char* name, const TensorBase& t, const TensorBase& ref) {
  TL_CHECK(t.scalar_type() == ref.scalar_type(), op, ": expected ", name, " to have dtype ",
           c10::toString(ref.scalar_type()), " like the other operands, got ", c10::toString(t.scalar_type()));
  TL_CHECK(t.device() == ref.device(), op, ": expected ", name, " on ", ref.device(), " like the other operands, got ",
           t.device());
}

}  // namespace

LstmSequencePlan lstm_fused_sequence_plan(const char* op, const TensorBase& x_gates, const TensorBase& h0,
                                          const TensorBase& c0, const TensorBase& w_hh) {
  TL_CHECK(c10::isFloatingType(x_gates.scalar_type()), op, ": expected a floating point x_gates, got ",
           c10::toString(x_gates.scalar_type()));
  TL_CHECK(x_gates.dim() == 3, op, ": expected x_gates of shape (T, B, 4 * hidden), got ", x_gates.sizes());
  TL_CHECK(h0.dim() == 2, op, ": expected h0 of shape (B, hidden), got ", h0.sizes());
  LstmSequencePlan p;
  p.steps = x_gates.size(0);
  p.batch = x_gates.size(1);
  p.hidden = h0.size(1);
  check_shape(op, "x_gates", x_gates, {p.steps, p.batch, 4 * p.hidden});
  check_shape(op, "h0", h0, {p.batch, p.hidden});
  check_shape(op, "c0", c0, {p.batch, p.hidden});
  check_shape(op, "w_hh", w_hh, {4 * p.hidden, p.hidden});
  check_same_kind(op, "h0", h0, x_gates);
  check_same_kind(op, "c0", c0, x_gates);
  check_same_kind(op, "w_hh", w_hh, x_gates);
  return p;
}

LstmSequencePlan lstm_fused_backward_plan(const TensorBase* grad_output, const TensorBase* grad_hn,
                                          const TensorBase* grad_cn, const TensorBase& h0, const TensorBase& c0,
                                          const TensorBase& w_hh, const TensorBase& output,
                                          const TensorBase& workspace) {
  const char* op = "_lstm_fused_sequence_backward";
  TL_CHECK(c10::isFloatingType(h0.scalar_type()), op, ": expected a floating point h0, got ",
           c10::toString(h0.scalar_type()));
  TL_CHECK(output.dim() == 3, op, ": expected output of shape (T, B, hidden), got ", output.sizes());
  LstmSequencePlan p;
  p.steps = output.size(0);
  p.batch = output.size(1);
  p.hidden = output.size(2);
  check_shape(op, "h0", h0, {p.batch, p.hidden});
  check_shape(op, "c0", c0, {p.batch, p.hidden});
  check_shape(op, "w_hh", w_hh, {4 * p.hidden, p.hidden});
  check_same_kind(op, "c0", c0, h0);
  check_same_kind(op, "w_hh", w_hh, h0);
  check_same_kind(op, "output", output, h0);
  check_shape(op, "workspace", workspace, {p.steps, p.batch, kLstmWorkspaceBlocks * p.hidden});
  const ScalarType st = h0.scalar_type();
  const ScalarType ws = (st == ScalarType::Half || st == ScalarType::BFloat16) ? ScalarType::Float : st;
  TL_CHECK(workspace.scalar_type() == ws, op, ": expected a workspace of dtype ", c10::toString(ws),
           " (from _lstm_fused_sequence), got ", c10::toString(workspace.scalar_type()));
  if (grad_output) {
    check_shape(op, "grad_output", *grad_output, {p.steps, p.batch, p.hidden});
    check_same_kind(op, "grad_output", *grad_output, h0);
  }
  if (grad_hn) {
    check_shape(op, "grad_hn", *grad_hn, {p.batch, p.hidden});
    check_same_kind(op, "grad_hn", *grad_hn, h0);
  }
  if (grad_cn) {
    check_shape(op, "grad_cn", *grad_cn, {p.batch, p.hidden});
    check_same_kind(op, "grad_cn", *grad_cn, h0);
  }
  return p;
}

}  // namespace at::native
