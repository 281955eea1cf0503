// bernoulli_ on CUDA: the mask nn.functional.dropout draws (torchlike's
// dropout is bernoulli_(1 - p) on an empty tensor, a division and a
// multiply, all pointwise but this).
//
// Counters are reserved exactly as the CPU kernel reserves them (two
// elements per Philox counter, element i of the logical order on counter
// base + i/2, CudaNnPlan.h's bernoulli_draw), so a CUDA generator and a CPU
// generator with the same seed and offset give the same mask for the same
// shape. A non-contiguous self is filled through a contiguous buffer, as on
// CPU, so its mask follows the logical order too.
#include <optional>

#include "aten/native/cuda/NnCommon.cuh"
#include "c10/Generator.h"
#include "c10/Library.h"
#include "ops/bernoulli.h"
#include "ops/contiguous.h"
#include "ops/copy.h"

namespace at::native::cuda_nn {
namespace {

// One thread per counter: both of its elements come from one Philox call.
template <class T, class Prob>
__global__ void bernoulli_kernel(T* out, int64_t n, uint64_t seed, uint64_t base, Prob prob) {
  const int64_t counters = int64_t(bernoulli_counters(n));
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < counters;
       c += int64_t(gridDim.x) * blockDim.x) {
    uint32_t w[4];
    philox_words(seed, 0, base + uint64_t(c), w);
    const int64_t i = c * kBernoulliPerCounter;
    out[i] = T(uniform53(w[0], w[1]) < prob(i) ? 1 : 0);
    if (i + 1 < n) out[i + 1] = T(uniform53(w[2], w[3]) < prob(i + 1) ? 1 : 0);
  }
}

struct ConstantProb {
  double p;
  __device__ double operator()(int64_t) const { return p; }
};
// Probabilities already expanded to self's shape, contiguous, as double.
struct TensorProb {
  const double* p;
  __device__ double operator()(int64_t i) const { return p[i]; }
};

// (seed, first counter) for `counters` counters of the generator passed or of
// the device's default one.
std::pair<uint64_t, uint64_t> reserve_counters(const TensorBase& self, const std::optional<c10::Generator>& generator,
                                               uint64_t counters) {
  if (generator && generator->get()) {
    const Device gd = (*generator)->device();
    TL_CHECK(gd.type == DeviceType::CUDA, "Expected a 'cuda' device type for generator but found '",
             c10::deviceTypeName(gd.type), "'");
    auto r = (*generator)->reserve(counters);
    return {r.seed, r.offset};
  }
  return c10::cuda::philoxSeedOffset(self.device().index, counters);
}

template <class Prob>
void bernoulli_fill_cuda(const TensorBase& self, const std::optional<c10::Generator>& generator, Prob prob) {
  const int64_t n = self.numel();
  if (n == 0) return;
  const uint64_t counters = bernoulli_counters(n);
  // (Plain variables: the dispatch lambda captures them, which C++17 does
  // not allow for structured bindings.)
  const std::pair<uint64_t, uint64_t> reservation = reserve_counters(self, generator, counters);
  const uint64_t seed = reservation.first, base = reservation.second;
  TensorBase target = self.is_contiguous() ? self : make_empty(self.sizes(), self.options());
  cudaStream_t st = stream();
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), "bernoulli_", [&] {
    bernoulli_kernel<scalar_t, Prob><<<blocks_for(int64_t(counters), 256), 256, 0, st>>>(
        static_cast<scalar_t*>(target.data_ptr()), n, seed, base, prob);
    TL_CUDA_KERNEL_LAUNCH_CHECK("bernoulli_");
  });
  if (!target.is_same(self)) at::_ops::copy_(self, target, false);
}

__global__ void probability_range_kernel(const double* p, int64_t n, BadIndexFlag::Slot* bad) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    if (!(p[i] >= 0.0 && p[i] <= 1.0)) record_bad_index(bad, i);
}

TensorBase bernoulli_float_cuda_(const TensorBase& self, double p, const std::optional<c10::Generator>& generator) {
  at::native::bernoulli_float_meta_(self, p, generator);
  bernoulli_fill_cuda(self, generator, ConstantProb{p});
  return self;
}

TensorBase bernoulli_tensor_cuda_(const TensorBase& self, const TensorBase& p,
                                  const std::optional<c10::Generator>& generator) {
  at::native::bernoulli_tensor_meta_(self, p, generator);
  check_same_device("bernoulli_", self, p);
  // p broadcast to self's shape (stride 0 on broadcast dims), then laid out
  // contiguously in double, so element i of the logical order reads p[i].
  const int64_t nd = self.dim(), off = nd - p.dim();
  DimVector strides(nd);
  for (int64_t d = 0; d < nd; ++d) strides[d] = d < off || p.sizes()[d - off] == 1 ? 0 : p.strides()[d - off];
  TensorBase pd = make_empty(self.sizes(), self.options().with_dtype(ScalarType::Double));
  at::_ops::copy_(pd, make_view(p, self.sizes(), strides, p.storage_offset()), false);
  if (pd.numel() > 0) {
    cudaStream_t st = stream();
    BadIndexFlag bad(st);
    probability_range_kernel<<<blocks_for(pd.numel(), 256), 256, 0, st>>>(static_cast<const double*>(pd.data_ptr()),
                                                                         pd.numel(), bad.dev);
    TL_CUDA_KERNEL_LAUNCH_CHECK("bernoulli_");
    TL_CHECK(!bad.read().has_value(), "bernoulli_: expected all elements of p to be in [0, 1]");
  }
  bernoulli_fill_cuda(self, generator, TensorProb{static_cast<const double*>(pd.data_ptr())});
  return self;
}

}  // namespace
}  // namespace at::native::cuda_nn

TL_LIBRARY_IMPL(aten, CUDA, m) {
  using namespace at::native::cuda_nn;
  m.impl("bernoulli_.float", TL_KERNEL(bernoulli_float_cuda_));
  m.impl("bernoulli_.Tensor", TL_KERNEL(bernoulli_tensor_cuda_));
}
