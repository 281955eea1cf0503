#include "../Copy.h"

#include <cstring>
#include "Loops.h"
#include "../Math.h"
#include "../HalfConvert.h"

namespace at::native {

template <class out_t, class in_t>
static void cast_loop(TensorIterator& iter) {
  using C = c10::opmath_t<in_t>;
  if constexpr (half_convert::is_half_type_v<out_t> && half_convert::wider_than_float_v<in_t>) {
    // Into float16/bfloat16 from double or a wide integer: see HalfConvert.h
    // for why the step through float rounds to odd.
    cpu_kernel<out_t, in_t>(iter, [](in_t x) { return half_convert::round_to_odd_float(x); });
  } else {
    cpu_kernel<out_t, in_t>(iter, [](C x) { return x; });
  }
}

static void check_not_from_meta(const TensorBase& dst, const TensorBase& src) {
  TL_CHECK_NOT_IMPLEMENTED(!src.is_meta() || dst.is_meta(), "Cannot copy out of meta tensor; no data! Please "
                           "use torch.nn.Module.to_empty() instead of torch.nn.Module.to() when moving module from "
                           "meta to a different device.");
}

void copy_into(const TensorBase& dst, const TensorBase& src) {
  if (dst.is_same(src)) return;
  check_not_from_meta(dst, src);
  TensorIterator iter = TensorIteratorConfig("copy_")
                            .add_output(dst)
                            .add_input(src)
                            .promote_inputs_to_common_dtype(false)
                            .resize_outputs(false)
                            .allow_any_output_cast(true)
                            .common_dtype(src.scalar_type())
                            .output_dtype(dst.scalar_type())
                            .build();
  if (iter.is_meta() || iter.numel() == 0) return;
  TL_CHECK(dst.is_cpu() && iter.operand(1).is_cpu(), "copy_: this path copies between CPU tensors only");
  ScalarType dt = dst.scalar_type(), st = src.scalar_type();
  if (dt == st && iter.is_contiguous()) {
    // Same dtype, one run: memcpy in parallel chunks.
    char* d = iter.data_ptr(0);
    const char* s = iter.data_ptr(1);
    size_t isz = dst.itemsize();
    parallel_for(0, iter.numel(), kGrainSize * 4, [&](int64_t b, int64_t e) {
      std::memcpy(d + b * isz, s + b * isz, (e - b) * isz);
    });
    return;
  }
  if (iter.is_contiguous() &&
      half_convert::convert_contiguous(dt, iter.data_ptr(0), st, iter.data_ptr(1), iter.numel()))
    return;
  TL_DISPATCH_ALL_TYPES(dt, "copy_", [&] {
    using out_t = scalar_t;
    TL_DISPATCH_ALL_TYPES(st, "copy_", [&] { cast_loop<out_t, scalar_t>(iter); });
  });
}

TensorBase cast_to(const TensorBase& t, ScalarType dtype, Device device) {
  if (t.scalar_type() == dtype && t.device() == device) return t;
  TensorBase out = make_empty(t.sizes(), TensorOptions(dtype, device));
  if (device.is_meta()) return out;
  copy_across_devices(out, t, false);
  return out;
}

TensorBase contiguous(const TensorBase& t) {
  if (t.is_contiguous()) return t;
  TensorBase out = make_empty(t.sizes(), t.options());
  if (!t.is_meta()) copy_into(out, t);
  return out;
}

}  // namespace at::native
