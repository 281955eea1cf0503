// PyTorch's <torch/types.h>: the tensor API without pybind11 (CUDA sources of
// load_inline include it).
#pragma once
#include "torch/torch.h"
