#include "CopySlices.h"

#include "AutogradMeta.h"
#include "ops/as_strided.h"
#include "ops/clone.h"
#include "ops/copy.h"
#include "ops/empty_strided.h"
#include "ops/fill.h"
#include "ops/sum.h"

namespace torchlike::autograd {

namespace {

// A zero gradient laid out like the base (same strides, its own storage
// starting at the base's offset), so a view's window in it is found by the
// view's strides and its offset relative to the base.
TensorBase zeros_like_base(const ViewGeometry& base, const TensorBase& like) {
  TensorBase r = at::_ops::empty_strided(base.sizes, base.strides, like.scalar_type(), std::nullopt, like.device(),
                                         std::nullopt);
  at::_ops::fill_(r, 0);
  return r;
}

TensorBase window(const TensorBase& base_grad, const ViewGeometry& base, const ViewGeometry& view) {
  return at::_ops::as_strided(base_grad, view.sizes, view.strides, view.storage_offset - base.storage_offset);
}

}  // namespace

CopySlices::CopySlices(const TensorBase& base, const TensorBase& view, std::shared_ptr<Node> fn, size_t self_edge)
    : base_(base), view_(view), fn_(std::move(fn)), self_edge_(self_edge) {
  // fn's edge for the view becomes the base's history as it was before this
  // write; fn's other edges are taken over as they are.
  const edge_list& fe = fn_->next_edges();
  TL_CHECK(self_edge_ < fe.size(), "CopySlices: the in-place op has no input edge ", self_edge_);
  for (size_t i = 0; i < fe.size(); ++i) {
    if (i == self_edge_) {
      add_input_edge(*this, base);
      continue;
    }
    add_next_edge(fe[i]);
    input_metadata().push_back(i < fn_->input_metadata().size() ? fn_->input_metadata()[i] : InputMetadata());
  }
  set_num_inputs(1);
}

variable_list CopySlices::apply(variable_list&& grads) {
  TL_CHECK(fn_, "Trying to backward through the graph a second time (or directly access saved tensors after they "
                "have already been freed). Specify retain_graph=True if you need to backward through the graph a "
                "second time.");
  variable_list grad_inputs(num_outputs());
  if (grads.empty() || !grads[0].defined()) return grad_inputs;
  const TensorBase& grad = grads[0];
  auto base_layout_copy = [&] {
    TensorBase r = at::_ops::empty_strided(base_.sizes, base_.strides, grad.scalar_type(), std::nullopt,
                                           grad.device(), std::nullopt);
    at::_ops::copy_(r, grad, false);
    return r;
  };
  TensorBase result = base_layout_copy();
  // With create_graph the window fn reads is recorded (as_strided saves the
  // tensor it views), so it must come from a buffer that the write below
  // does not modify; without a graph one buffer serves both.
  TensorBase grad_slice = window(is_grad_enabled() ? base_layout_copy() : result, base_, view_);
  // fn gets a private copy: the window of result is overwritten below with fn's answer.
  variable_list res = fn_->apply({at::_ops::clone(grad_slice, std::nullopt)});
  for (size_t i = 0; i < grad_inputs.size(); ++i) {
    if (!should_compute_output(i)) continue;
    if (i == self_edge_) {
      // The written window's old values reach the base's earlier history only
      // through fn (zero when fn says they do not matter, as for copy_).
      TensorBase written = window(result, base_, view_);
      if (i < res.size() && res[i].defined()) at::_ops::copy_(written, res[i], false);
      else at::_ops::fill_(written, 0);
      grad_inputs[i] = result;
    } else if (i < res.size()) {
      grad_inputs[i] = res[i];
    }
  }
  return grad_inputs;
}

void CopySlices::release_variables() {
  if (fn_) fn_->release_variables();
  fn_.reset();
}

AsStridedViewBackward::AsStridedViewBackward(const TensorBase& base, const TensorBase& view)
    : base_(base), view_(view) {
  add_input_edge(*this, base);
  set_num_inputs(1);
}

variable_list AsStridedViewBackward::apply(variable_list&& grads) {
  variable_list out(1);
  if (grads.empty() || !grads[0].defined() || !should_compute_output(0)) return out;
  TensorBase grad = grads[0];
  ViewGeometry view = view_;
  // A broadcast (stride-0) dimension maps many view elements to one base
  // element: their gradients add up there.
  c10::DimVector summed;
  for (size_t d = 0; d < view.sizes.size(); ++d)
    if (view.strides[d] == 0 && view.sizes[d] != 1) {
      summed.push_back((int64_t)d);
      view.sizes[d] = 1;
    }
  if (!summed.empty()) grad = at::_ops::sum(grad, at::IntArrayRef(summed), true, std::nullopt);
  TensorBase result = zeros_like_base(base_, grad);
  at::_ops::copy_(window(result, base_, view), grad, false);
  out[0] = result;
  return out;
}

}  // namespace torchlike::autograd
