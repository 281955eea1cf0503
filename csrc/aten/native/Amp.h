// GradScaler's two fused operators (native_functions.yaml, section "amp"):
// _amp_foreach_non_finite_check_and_unscale_ and _amp_update_scale_.
//
// The scale-update rule is a host/device function so a CUDA kernel applies
// exactly the arithmetic the CPU one does; the per-gradient loop is a CPU
// entry point (cpu/AmpKernels.cpp).
#pragma once
#include <cmath>
#include <cstdint>

#include "c10/Half.h"
#include "c10/Tensor.h"

namespace at::native {

// One GradScaler.update() on the scale state, in place.
//
// found_inf is the (summed) flag of this iteration: any non-zero value, NaN
// included, backs off the scale and restarts the count of clean steps.
// Otherwise the count goes up by one and, when it reaches growth_interval
// exactly, the scale grows unless that would overflow float, and the count
// restarts. The products are formed in double and rounded once to float (a
// backoff of 0.1 gives the float nearest to scale * 0.1). The counter is an
// int32 that wraps around as two's complement on overflow.
TL_HOST_DEVICE inline void amp_advance_scale(float* scale, int32_t* clean_steps, float found_inf,
                                             double growth_factor, double backoff_factor, int64_t growth_interval) {
  if (found_inf != 0.0f) {
    *scale = static_cast<float>(static_cast<double>(*scale) * backoff_factor);
    *clean_steps = 0;
    return;
  }
  const int64_t clean = static_cast<int64_t>(*clean_steps) + 1;
  if (clean == growth_interval) {
    const float grown = static_cast<float>(static_cast<double>(*scale) * growth_factor);
    if (std::isfinite(grown)) *scale = grown;
    *clean_steps = 0;
  } else {
    *clean_steps = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(clean)));
  }
}

// grad *= inv_scale in place (float16/bfloat16 multiply in float), for a CPU
// floating tensor of any strides. Returns whether some element of grad was
// inf or NaN before the multiplication.
bool amp_unscale_and_check_cpu(const TensorBase& grad, float inv_scale);

}  // namespace at::native
