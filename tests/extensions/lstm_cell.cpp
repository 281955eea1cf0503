// An LSTM cell as a C++ extension, written the way PyTorch extensions are
// (torch/extension.h, torch:: functions, pybind11): forward returns the new
// state plus what backward needs; backward takes the output gradients and
// returns the gradients of every input. tests/test_cpp_extension.py checks it
// against the same cell written in Python and differentiated by autograd.
#include <torch/extension.h>

#include <vector>

namespace {

torch::Tensor sigmoid_grad(const torch::Tensor& s) { return s * (1 - s); }
torch::Tensor tanh_grad(const torch::Tensor& t) { return 1 - t * t; }

}  // namespace

// x: (B, I), h, c: (B, H), w_ih: (4H, I), w_hh: (4H, H), b: (4H)
std::vector<torch::Tensor> cell_forward(torch::Tensor x, torch::Tensor h, torch::Tensor c, torch::Tensor w_ih,
                                        torch::Tensor w_hh, torch::Tensor b) {
  TORCH_CHECK(x.dim() == 2 && h.dim() == 2 && c.dim() == 2, "cell_forward: x, h and c must be 2-d");
  TORCH_CHECK(w_ih.size(0) == 4 * h.size(1), "cell_forward: w_ih must have 4*hidden rows, got ", w_ih.size(0));
  auto pre = torch::addmm(b, x, w_ih.t()) + h.mm(w_hh.t());
  auto parts = pre.chunk(4, 1);
  auto in_gate = torch::sigmoid(parts[0]);
  auto forget_gate = torch::sigmoid(parts[1]);
  auto candidate = torch::tanh(parts[2]);
  auto out_gate = torch::sigmoid(parts[3]);
  auto new_c = forget_gate * c + in_gate * candidate;
  auto tanh_c = torch::tanh(new_c);
  auto new_h = out_gate * tanh_c;
  return {new_h, new_c, in_gate, forget_gate, candidate, out_gate, tanh_c};
}

std::vector<torch::Tensor> cell_backward(torch::Tensor grad_h, torch::Tensor grad_c, torch::Tensor in_gate,
                                         torch::Tensor forget_gate, torch::Tensor candidate, torch::Tensor out_gate,
                                         torch::Tensor tanh_c, torch::Tensor x, torch::Tensor h, torch::Tensor c,
                                         torch::Tensor w_ih, torch::Tensor w_hh) {
  auto d_out = grad_h * tanh_c;
  auto d_c_new = grad_c + grad_h * out_gate * tanh_grad(tanh_c);
  auto d_in = d_c_new * candidate;
  auto d_forget = d_c_new * c;
  auto d_cand = d_c_new * in_gate;
  auto d_c = d_c_new * forget_gate;
  auto d_pre = torch::cat({d_in * sigmoid_grad(in_gate), d_forget * sigmoid_grad(forget_gate),
                           d_cand * tanh_grad(candidate), d_out * sigmoid_grad(out_gate)},
                          1);
  auto d_x = d_pre.mm(w_ih);
  auto d_h = d_pre.mm(w_hh);
  auto d_w_ih = d_pre.t().mm(x);
  auto d_w_hh = d_pre.t().mm(h);
  auto d_b = d_pre.sum(0);
  return {d_x, d_h, d_c, d_w_ih, d_w_hh, d_b};
}

// Sum of the first row through an accessor, for the accessor/dispatch test.
double first_row_sum(torch::Tensor t) {
  double total = 0;
  AT_DISPATCH_FLOATING_TYPES(t.scalar_type(), "first_row_sum", [&] {
    auto a = t.accessor<scalar_t, 2>();
    for (int64_t j = 0; j < a.size(1); ++j) total += static_cast<double>(a[0][j]);
  });
  return total;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &cell_forward, "LSTM cell forward");
  m.def("backward", &cell_backward, "LSTM cell backward");
  m.def("first_row_sum", &first_row_sum);
}
