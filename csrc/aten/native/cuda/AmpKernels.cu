// GradScaler("cuda")'s two fused operators on the GPU (see Amp.h for the
// semantics the CPU kernels define): the unscale with its non-finite check
// never brings a value back to the host, so a training step with a scaler
// does not synchronise; the scale update runs the shared host/device rule in
// one thread on the device.
#include <cuda_runtime.h>

#include <cmath>

#include "aten/native/Amp.h"
#include "aten/native/cuda/CudaGemm.h"
#include "aten/native/Copy.h"
#include "c10/Library.h"
#include "c10/cuda/CUDAContext.h"

namespace at::native {
namespace {

constexpr const char* kUnscaleOp = "_amp_foreach_non_finite_check_and_unscale_";
constexpr const char* kUpdateOp = "_amp_update_scale_";

bool is_floating(ScalarType t) { return t == kFloat || t == kDouble || t == kHalf || t == kBFloat16; }

void check_device(const char* op, const TensorBase& t, const char* what, Device expected, const char* expected_what) {
  TL_CHECK(t.device() == expected, op, ": expected ", what, " on the same device as ", expected_what, " (", expected,
           "), but it is on ", t.device());
}

// grad[i] *= *inv_scale; *found_inf = 1 when some grad[i] was inf or NaN.
// Every thread that sees one writes the same value, so the race is benign.
template <class T>
__global__ void unscale_kernel(T* grad, int64_t n, const float* inv_scale, float* found_inf) {
  using acc_t = c10::opmath_t<T>;
  const acc_t inv = acc_t(*inv_scale);
  bool bad = false;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const acc_t v = acc_t(grad[i]);
    bad |= !isfinite(v);
    grad[i] = T(v * inv);
  }
  if (bad) *found_inf = 1.0f;
}

__global__ void update_scale_kernel(float* scale, int32_t* clean_steps, const float* found_inf, double growth,
                                    double backoff, int64_t interval) {
  amp_advance_scale(scale, clean_steps, *found_inf, growth, backoff, interval);
}

template <class T>
void unscale_one(const TensorBase& grad, const float* inv, float* found, cudaStream_t stream) {
  const int64_t n = grad.numel();
  if (n == 0) return;
  const int threads = 256;
  const int blocks = (int)std::min<int64_t>((n + threads - 1) / threads, 132 * 8);
  unscale_kernel<T><<<blocks, threads, 0, stream>>>(grad.data_ptr<T>(), n, inv, found);
  TL_CUDA_KERNEL_LAUNCH_CHECK(kUnscaleOp);
}

void amp_unscale_cuda(TensorBaseList self, const TensorBase& found_inf, const TensorBase& inv_scale) {
  if (self.empty()) return;
  TL_CHECK(inv_scale.numel() == 1, "inv_scale must be a 1-element tensor.");
  TL_CHECK(found_inf.numel() == 1, "found_inf must be a 1-element tensor.");
  TL_CHECK(inv_scale.scalar_type() == kFloat, "inv_scale must be a float tensor.");
  TL_CHECK(found_inf.scalar_type() == kFloat, "found_inf must be a float tensor.");
  for (const TensorBase& grad : self)
    TL_CHECK_NOT_IMPLEMENTED(is_floating(grad.scalar_type()), "\"", kUnscaleOp, "_cuda\" not implemented for '",
                             c10::toString(grad.scalar_type()), "'");
  check_device(kUnscaleOp, inv_scale, "inv_scale", found_inf.device(), "found_inf");
  for (const TensorBase& grad : self) check_device(kUnscaleOp, grad, "every gradient", found_inf.device(), "found_inf");
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  const float* inv = inv_scale.data_ptr<float>();
  float* found = found_inf.data_ptr<float>();
  for (const TensorBase& grad : self) {
    // Gradients are dense in practice; a strided one is unscaled in a
    // contiguous copy that is written back.
    TensorBase work = cuda_blas::contiguous_cuda(grad);
    TL_DISPATCH_FLOATING_TYPES(grad.scalar_type(), kUnscaleOp, [&] { unscale_one<scalar_t>(work, inv, found, stream); });
    if (!work.is_same(grad)) copy_across_devices(grad, work, false);
    grad.bump_version();
  }
  found_inf.bump_version();
}

TensorBase amp_update_scale_cuda(const TensorBase& self, const TensorBase& growth_tracker, const TensorBase& found_inf,
                                 double scale_growth_factor, double scale_backoff_factor, int64_t growth_interval) {
  TL_CHECK(growth_tracker.numel() == 1, "growth_tracker must be a 1-element tensor.");
  TL_CHECK(self.numel() == 1, "current_scale must be a 1-element tensor.");
  TL_CHECK(found_inf.numel() == 1, "found_inf must be a 1-element tensor.");
  TL_CHECK(growth_tracker.scalar_type() == kInt, "growth_tracker must be an int tensor.");
  TL_CHECK(self.scalar_type() == kFloat, "current_scale must be a float tensor.");
  TL_CHECK(found_inf.scalar_type() == kFloat, "found_inf must be a float tensor.");
  check_device(kUpdateOp, growth_tracker, "growth_tracker", self.device(), "current_scale");
  check_device(kUpdateOp, found_inf, "found_inf", self.device(), "current_scale");
  update_scale_kernel<<<1, 1, 0, c10::cuda::getCurrentCUDAStream()>>>(
      self.data_ptr<float>(), growth_tracker.data_ptr<int32_t>(), found_inf.data_ptr<float>(), scale_growth_factor,
      scale_backoff_factor, growth_interval);
  TL_CUDA_KERNEL_LAUNCH_CHECK(kUpdateOp);
  self.bump_version();
  growth_tracker.bump_version();
  return self;
}

}  // namespace

TL_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("_amp_foreach_non_finite_check_and_unscale_", TL_KERNEL(amp_unscale_cuda));
  m.impl("_amp_update_scale_", TL_KERNEL(amp_update_scale_cuda));
}

}  // namespace at::native
