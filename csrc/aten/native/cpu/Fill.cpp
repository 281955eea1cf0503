// copy_, fill_ and empty: the kernels every other op leans on.
#include "../Copy.h"
#include "../HalfConvert.h"
#include "Loops.h"
#include "ops/clone.h"
#include "ops/copy.h"
#include "ops/empty.h"
#include "ops/fill.h"

namespace at::native {

// Registered for every backend (CompositeExplicitAutograd): copies within
// CPU take the direct path, every other device pair goes through the copy
// registry (../Copy.h), so a new backend needs a copy kernel per pair it
// supports, not its own copy_.
TensorBase copy_(const TensorBase& self, const TensorBase& src, bool non_blocking) {
  copy_across_devices(self, src, non_blocking);
  self.bump_version();
  return self;
}

// Meta kernel: a meta destination gets a shape check only; a meta source
// raises NotImplementedError (it has no values to give).
TensorBase copy_meta_(const TensorBase& self, const TensorBase& src, bool non_blocking) {
  copy_across_devices(self, src, non_blocking);
  self.bump_version();
  return self;
}

// A new tensor with self's values: dense like self (transposed stays
// transposed), contiguous otherwise. Copies through the dispatcher so every
// backend with a copy_ kernel gets clone.
TensorBase clone(const TensorBase& self, std::optional<MemoryFormat> memory_format) {
  bool keep = (!memory_format || *memory_format == MemoryFormat::Preserve) &&
              self.unsafeGetTensorImpl()->is_non_overlapping_and_dense();
  TensorBase out = keep ? make_empty_strided(self.sizes(), self.strides(), self.options())
                    : make_empty(self.sizes(), self.options());
  at::_ops::copy_(out, self, false);
  return out;
}

TensorBase fill_(const TensorBase& self, const Scalar& value) {
  TensorIterator iter = TensorIteratorConfig("fill_").add_output(self).promote_inputs_to_common_dtype(false)
                            .resize_outputs(false).check_mem_overlap(false).build();
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), "fill_", [&] {
    scalar_t v = half_convert::fill_value<scalar_t>(value);
    cpu_for_each(iter, [&](char** data, const int64_t* s, int64_t n) {
      char* p = data[0];
      if (s[0] == (int64_t)sizeof(scalar_t)) {
        scalar_t* out = reinterpret_cast<scalar_t*>(p);
        for (int64_t i = 0; i < n; ++i) out[i] = v;
      } else {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<scalar_t*>(p + i * s[0]) = v;
      }
    });
  });
  self.bump_version();
  return self;
}

TensorBase fill_meta_(const TensorBase& self, const Scalar&) {
  self.bump_version();
  return self;
}

TensorBase empty(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
             std::optional<Device> device, std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  (void)layout;
  (void)pin_memory;
  (void)memory_format;
  return make_empty(size, TensorOptions(dtype.value_or(c10::defaultFloatType()), device.value_or(Device(DeviceType::CPU))));
}

}  // namespace at::native
