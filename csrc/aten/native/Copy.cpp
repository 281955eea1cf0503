// The copy registry: which kernel moves values from one device type to another.
#include "Copy.h"

#include <atomic>
#include "../TensorIterator.h"

namespace at::native {

namespace {
constexpr int kN = c10::kNumDeviceTypes;
std::atomic<CopyKernel> g_copy_kernels[kN * kN] = {};
std::atomic<CopyKernel>& entry(DeviceType src, DeviceType dst) { return g_copy_kernels[(int)src * kN + (int)dst]; }
}  // namespace

CopyKernel registerCopyKernel(DeviceType src, DeviceType dst, CopyKernel fn) {
  TL_CHECK((int)src >= 0 && (int)src < kN && (int)dst >= 0 && (int)dst < kN, "registerCopyKernel: invalid device type");
  return entry(src, dst).exchange(fn, std::memory_order_acq_rel);
}

CopyKernel copyKernelOrNull(DeviceType src, DeviceType dst) noexcept {
  return entry(src, dst).load(std::memory_order_acquire);
}

void copy_across_devices(const TensorBase& dst, const TensorBase& src, bool non_blocking) {
  DeviceType dt = dst.device().type, st = src.device().type;
  if (TL_LIKELY(dt == DeviceType::CPU && st == DeviceType::CPU)) {
    copy_into(dst, src);
    return;
  }
  TL_CHECK_NOT_IMPLEMENTED(st != DeviceType::Meta || dt == DeviceType::Meta,
                           "Cannot copy out of meta tensor; no data! Please use torch.nn.Module.to_empty() instead of "
                           "torch.nn.Module.to() when moving module from meta to a different device.");
  // src must broadcast to dst's shape, whatever the devices.
  DimVector shape = infer_size(dst.sizes(), src.sizes());
  TL_CHECK(shape.ref().equals(dst.sizes()), "copy_: source of shape ", src.sizes(),
           " cannot be broadcast to destination of shape ", dst.sizes());
  if (dt == DeviceType::Meta) return;  // no values to write
  if (dst.is_same(src)) return;
  CopyKernel fn = copyKernelOrNull(st, dt);
  TL_CHECK(fn != nullptr, "copy from ", src.device(), " to ", dst.device(),
           " is not supported: no copy kernel is registered for device types (", c10::deviceTypeName(st), ", ",
           c10::deviceTypeName(dt), ")");
  if (dst.numel() == 0) return;
  // Hand the kernel equal sizes: broadcast dims of src get stride 0.
  TensorBase s = src;
  if (!src.sizes().equals(dst.sizes())) {
    int64_t nd = dst.dim(), off = nd - src.dim();
    DimVector strides(nd, 0);
    for (int64_t d = 0; d < src.dim(); ++d) strides[off + d] = src.sizes()[d] == 1 ? 0 : src.strides()[d];
    s = make_view(src, dst.sizes(), strides, src.storage_offset());
  }
  fn(dst, s, non_blocking);
}

}  // namespace at::native
