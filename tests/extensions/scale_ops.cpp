// Operators defined and implemented by an extension in PyTorch's style:
// TORCH_LIBRARY defines the schemas, TORCH_LIBRARY_IMPL registers plain
// functions on at::Tensor (converted at registration), and the operators are
// then called from Python as torchlike.ops.scale_ops.<name>.
#include <torch/extension.h>

#include <vector>

torch::Tensor scale_cpu(const torch::Tensor& x, double alpha) {
  TORCH_CHECK(x.is_floating_point(), "scale: expected a floating-point tensor");
  auto out = torch::empty_like(x);
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "scale", [&] {
    auto src = x.contiguous();
    const scalar_t* in = src.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    for (int64_t i = 0; i < x.numel(); ++i) o[i] = in[i] * static_cast<scalar_t>(alpha);
  });
  return out;
}

torch::Tensor scale_meta(const torch::Tensor& x, double alpha) { return torch::empty_like(x); }

std::vector<torch::Tensor> halves(const torch::Tensor& x) { return x.chunk(2, 0); }

// Defined with m.def(name, fn): the schema is inferred from the signature and
// the function is the kernel for every backend (CompositeImplicitAutograd),
// so autograd differentiates the torch:: calls it makes.
torch::Tensor muladd(const torch::Tensor& x, const torch::Tensor& y, double alpha) { return x * y + alpha; }
std::tuple<torch::Tensor, torch::Tensor> split_sign(const torch::Tensor& x, c10::optional<torch::Tensor> scale) {
  auto pos = torch::relu(x), neg = torch::relu(-x);
  if (scale) return {pos * *scale, neg * *scale};
  return {pos, neg};
}

TORCH_LIBRARY(scale_ops, m) {
  m.def("scale(Tensor x, float alpha) -> Tensor");
  m.def("halves(Tensor x) -> Tensor[]");
  m.def("muladd", &muladd);
  m.def("split_sign(Tensor x, Tensor? scale=None) -> (Tensor, Tensor)", &split_sign);
}

TORCH_LIBRARY_IMPL(scale_ops, CPU, m) {
  m.impl("scale", &scale_cpu);
  m.impl("halves", &halves);
}

TORCH_LIBRARY_IMPL(scale_ops, Meta, m) { m.impl("scale", &scale_meta); }
