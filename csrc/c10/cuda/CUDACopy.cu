// Copies to, from and between CUDA devices (the copy registry's (CPU, CUDA),
// (CUDA, CPU) and (CUDA, CUDA) kernels). Same-dtype contiguous data moves as
// one cudaMemcpyAsync on the current stream; a dtype change or a strided
// layout is done on the device by an elementwise cast kernel after the bytes
// have moved, so the host never loops over elements.
//
// Host synchronisation follows PyTorch: a copy touching host memory waits
// for its stream unless non_blocking was asked AND the host side is pinned
// (pageable memory may be reused as soon as the call returns). A pinned block
// used by a non-blocking copy is marked as used on the stream, so the pinned
// cache does not hand it out again before the copy has run.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include "aten/TensorIterator.h"
#include "aten/native/Copy.h"
#include "aten/native/ElementwiseIndex.h"
#include "aten/native/cuda/Loops.cuh"
#include "c10/cuda/CUDAContext.h"
#include "c10/cuda/CUDARuntime.h"

namespace c10::cuda::runtime {

namespace {

using c10::TensorBase;

// ---- the cast kernel

// Rounds toward zero to float and sets the last bit when the value was not
// exact ("round to odd"): the following float -> 16-bit rounding then gives
// the correctly rounded result, as the CPU copy does (aten/native/HalfConvert.h).
__device__ inline float roundToOddFloat(double v) {
  if (v != v) return float(v);
  float t = __double2float_rz(v);
  if (double(t) != v) t = __uint_as_float(__float_as_uint(t) | 1u);
  return t;
}
__device__ inline float roundToOddFloat(long long v) {
  float t = __ll2float_rz(v);
  if ((long long)t != v) t = __uint_as_float(__float_as_uint(t) | 1u);
  return t;
}
__device__ inline float roundToOddFloat(int v) {
  float t = __int2float_rz(v);
  if ((int)t != v) t = __uint_as_float(__float_as_uint(t) | 1u);
  return t;
}

template <class T>
constexpr bool kIsHalfType = std::is_same<T, c10::Half>::value || std::is_same<T, c10::BFloat16>::value;
template <class T>
constexpr bool kWiderThanFloat =
    std::is_same<T, double>::value || std::is_same<T, int64_t>::value || std::is_same<T, int32_t>::value;

template <class Out, class In>
struct CastFunctor {
  __device__ Out operator()(In x) const {
    if constexpr (kIsHalfType<Out> && kWiderThanFloat<In>) {
      if constexpr (std::is_same<In, int64_t>::value) {
        return Out(roundToOddFloat((long long)x));
      } else {
        return Out(roundToOddFloat(x));
      }
    } else {
      using C = c10::opmath_t<In>;
      return static_cast<Out>(static_cast<C>(x));
    }
  }
};

// dst = src cast to dst's dtype; both on the same CUDA device (the current
// one), any strides, equal sizes.
void castOnDevice(const TensorBase& dst, const TensorBase& src) {
  at::TensorIterator iter = at::TensorIteratorConfig("copy_")
                                .add_output(dst)
                                .add_input(src)
                                .promote_inputs_to_common_dtype(false)
                                .resize_outputs(false)
                                .allow_any_output_cast(true)
                                .common_dtype(src.scalar_type())
                                .output_dtype(dst.scalar_type())
                                .build();
  if (iter.numel() == 0) return;
  TL_CHECK(iter.ndim() <= at::native::elementwise::kMaxLoopDims, "copy_: CUDA copy over ", iter.ndim(),
           " dims, more than ", at::native::elementwise::kMaxLoopDims);
  const int64_t* strides[2] = {iter.strides(0).data(), iter.strides(1).data()};
  char* data[2] = {iter.data_ptr(0), iter.data_ptr(1)};
  cudaStream_t stream = getCurrentCUDAStream(dst.device().index);
  TL_DISPATCH_ALL_TYPES(dst.scalar_type(), "copy_", [&] {
    using out_t = scalar_t;
    TL_DISPATCH_ALL_TYPES(src.scalar_type(), "copy_", [&] {
      at::native::cuda_loops::launch_elementwise<out_t, CastFunctor<out_t, scalar_t>, scalar_t>(
          iter.ndim(), iter.shape().data(), strides, data, iter.numel(), iter.is_contiguous(),
          CastFunctor<out_t, scalar_t>{}, stream);
    });
  });
  TL_CUDA_KERNEL_LAUNCH_CHECK("copy_");
}

TensorBase emptyLike(const TensorBase& t, ScalarType dtype, Device device) {
  return c10::make_empty(t.sizes(), c10::TensorOptions(dtype, device));
}

bool plainBytes(const TensorBase& dst, const TensorBase& src) {
  return dst.scalar_type() == src.scalar_type() && dst.is_contiguous() && src.is_contiguous();
}

// ---- host <-> device byte moves, on device `index`'s current stream

void moveBytesWithHost(void* dst, const void* src, size_t n, cudaMemcpyKind kind, DeviceIndex index,
                       bool non_blocking) {
  if (n == 0) return;
  const void* host = kind == cudaMemcpyHostToDevice ? src : dst;
  StreamId sid = currentStreamId(index);
  cudaStream_t stream = streamHandle(index, sid);
  TL_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, kind, stream));
  if (non_blocking && isPinned(host)) {
    recordPinnedUse(host, Stream(Device(DeviceType::CUDA, index), sid));
    return;
  }
  onSynchronize("copy between host and device");
  TL_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void copyHostToDevice(const TensorBase& dst, const TensorBase& src, bool non_blocking) {
  const DeviceIndex index = dst.device().index;
  ScopedDevice guard(index);
  if (plainBytes(dst, src)) {
    moveBytesWithHost(dst.data_ptr(), src.data_ptr(), dst.nbytes(), cudaMemcpyHostToDevice, index, non_blocking);
    return;
  }
  // Gather on the host only what the layout needs; the cast runs on the device.
  TensorBase host = at::native::contiguous(src);
  if (host.scalar_type() == dst.scalar_type() && dst.is_contiguous()) {
    moveBytesWithHost(dst.data_ptr(), host.data_ptr(), dst.nbytes(), cudaMemcpyHostToDevice, index, non_blocking);
    return;
  }
  TensorBase staged = emptyLike(src, src.scalar_type(), dst.device());
  moveBytesWithHost(staged.data_ptr(), host.data_ptr(), staged.nbytes(), cudaMemcpyHostToDevice, index,
                    non_blocking);
  castOnDevice(dst, staged);
}

void copyDeviceToHost(const TensorBase& dst, const TensorBase& src, bool non_blocking) {
  const DeviceIndex index = src.device().index;
  ScopedDevice guard(index);
  if (plainBytes(dst, src)) {
    moveBytesWithHost(dst.data_ptr(), src.data_ptr(), dst.nbytes(), cudaMemcpyDeviceToHost, index, non_blocking);
    return;
  }
  // Cast (and make contiguous) on the device, then move dst's dtype.
  TensorBase packed = src;
  if (src.scalar_type() != dst.scalar_type() || !src.is_contiguous()) {
    packed = emptyLike(src, dst.scalar_type(), src.device());
    castOnDevice(packed, src);
  }
  if (dst.is_contiguous()) {
    moveBytesWithHost(dst.data_ptr(), packed.data_ptr(), dst.nbytes(), cudaMemcpyDeviceToHost, index, non_blocking);
    return;
  }
  TensorBase host = emptyLike(dst, dst.scalar_type(), Device(DeviceType::CPU));
  moveBytesWithHost(host.data_ptr(), packed.data_ptr(), host.nbytes(), cudaMemcpyDeviceToHost, index, false);
  at::native::copy_into(dst, host);
}

// Makes `waiter`'s stream wait for the work queued so far on `signaller`'s
// (devices may differ), without blocking the host.
void streamWaitsFor(DeviceIndex waiter, cudaStream_t waiter_stream, DeviceIndex signaller,
                    cudaStream_t signaller_stream) {
  cudaEvent_t ev = nullptr;
  {
    ScopedDevice guard(signaller);
    TL_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    TL_CUDA_CHECK(cudaEventRecord(ev, signaller_stream));
  }
  ScopedDevice guard(waiter);
  cudaError_t err = cudaStreamWaitEvent(waiter_stream, ev, 0);
  (void)cudaEventDestroy(ev);  // released once it has completed
  TL_CUDA_CHECK(err);
}

void copyDeviceToDevice(const TensorBase& dst, const TensorBase& src, bool /*non_blocking*/) {
  const DeviceIndex di = dst.device().index, si = src.device().index;
  if (di == si) {
    ScopedDevice guard(di);
    if (plainBytes(dst, src)) {
      TL_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), dst.nbytes(), cudaMemcpyDeviceToDevice,
                                    getCurrentCUDAStream(di)));
    } else {
      castOnDevice(dst, src);
    }
    return;
  }
  // Across devices: pack on the source device in dst's dtype, move the bytes
  // on the destination's stream, then scatter there if dst is strided.
  TensorBase packed = src;
  if (src.scalar_type() != dst.scalar_type() || !src.is_contiguous()) {
    ScopedDevice guard(si);
    packed = emptyLike(src, dst.scalar_type(), src.device());
    castOnDevice(packed, src);
  }
  TensorBase landing = dst;
  if (!dst.is_contiguous()) {
    ScopedDevice guard(di);
    landing = emptyLike(dst, dst.scalar_type(), dst.device());
  }
  cudaStream_t dst_stream = getCurrentCUDAStream(di), src_stream = getCurrentCUDAStream(si);
  // The copy must see the source's pending writes; and the source must not
  // be reused or overwritten while the copy still reads it.
  streamWaitsFor(di, dst_stream, si, src_stream);
  {
    ScopedDevice guard(di);
    TL_CUDA_CHECK(cudaMemcpyPeerAsync(landing.data_ptr(), di, packed.data_ptr(), si, landing.nbytes(), dst_stream));
  }
  streamWaitsFor(si, src_stream, di, dst_stream);
  if (!landing.is_same(dst)) {
    ScopedDevice guard(di);
    castOnDevice(dst, landing);
  }
}

void copyCUDA(const TensorBase& dst, const TensorBase& src, bool non_blocking) {
  const bool dst_cuda = dst.device().type == DeviceType::CUDA, src_cuda = src.device().type == DeviceType::CUDA;
  if (dst_cuda && src_cuda) {
    copyDeviceToDevice(dst, src, non_blocking);
  } else if (dst_cuda) {
    copyHostToDevice(dst, src, non_blocking);
  } else {
    copyDeviceToHost(dst, src, non_blocking);
  }
}

}  // namespace

void registerCopyKernels() {
  at::native::registerCopyKernel(DeviceType::CPU, DeviceType::CUDA, &copyCUDA);
  at::native::registerCopyKernel(DeviceType::CUDA, DeviceType::CPU, &copyCUDA);
  at::native::registerCopyKernel(DeviceType::CUDA, DeviceType::CUDA, &copyCUDA);
}

}  // namespace c10::cuda::runtime
