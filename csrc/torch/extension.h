// PyTorch's extension header, over torchlike's: existing extension sources
// written with `#include <torch/extension.h>` compile unchanged. It gives
// torch::Tensor (at::Tensor), the torch:: functions (at::'s), TORCH_CHECK,
// AT_DISPATCH_*, TORCH_LIBRARY / TORCH_LIBRARY_IMPL, and pybind11 with the
// tensor casters (torchlike/extension.h).
#pragma once
#include "torch/torch.h"
#include "torchlike/extension.h"

// PyTorch's extension header also names pybind11 `py` (py::arg, py::object).
namespace py = pybind11;
