// A kernel whose C++ signature does not match its schema (int instead of
// float): registering it must fail with a clear error, not crash the loader.
#include <torch/extension.h>

torch::Tensor wrong(const torch::Tensor& x, int64_t alpha) { return x; }

TORCH_LIBRARY(bad_signature_ops, m) { m.def("wrong(Tensor x, float alpha) -> Tensor"); }
TORCH_LIBRARY_IMPL(bad_signature_ops, CPU, m) { m.impl("wrong", &wrong); }
