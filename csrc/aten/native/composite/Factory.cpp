// Creation ops built from empty/empty_strided + fill_/random ops. Going
// through the dispatcher makes each of them work on every backend that has
// those kernels (CPU, Meta, later CUDA) with no per-backend code.
#include "../Factory.h"
#include "ops/arange.h"
#include "ops/copy.h"
#include "ops/linspace.h"
#include "ops/randperm.h"
#include "ops/bernoulli.h"
#include "ops/empty.h"
#include "ops/empty_like.h"
#include "ops/empty_strided.h"
#include "ops/eye.h"
#include "ops/fill.h"
#include "ops/full.h"
#include "ops/full_like.h"
#include "ops/new_empty.h"
#include "ops/new_empty_strided.h"
#include "ops/new_full.h"
#include "ops/new_ones.h"
#include "ops/new_zeros.h"
#include "ops/normal.h"
#include "ops/ones.h"
#include "ops/ones_like.h"
#include "ops/rand.h"
#include "ops/rand_like.h"
#include "ops/randint.h"
#include "ops/randint_like.h"
#include "ops/randn.h"
#include "ops/randn_like.h"
#include "ops/random.h"
#include "ops/uniform.h"
#include "ops/zero.h"
#include "ops/zeros.h"
#include "ops/zeros_like.h"

namespace at::native {

TensorBase empty_strided(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                     std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  (void)pin_memory;
  return make_empty_strided(size, stride, factory_options(dtype, layout, device));
}

TensorBase zeros(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
             std::optional<Device> device, std::optional<bool> pin_memory) {
  TensorBase t = at::_ops::empty(size, dtype, layout, device, pin_memory, std::nullopt);
  return at::_ops::fill_(t, Scalar(0));
}

TensorBase ones(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
            std::optional<Device> device, std::optional<bool> pin_memory) {
  TensorBase t = at::_ops::empty(size, dtype, layout, device, pin_memory, std::nullopt);
  return at::_ops::fill_(t, Scalar(1));
}

// x.zero_(): fill_ with 0, as its own operator so autograd records ZeroBackward0.
TensorBase zero_(const TensorBase& self) { return at::_ops::fill_(self, Scalar(0)); }

TensorBase full(IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype,
            std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  TensorBase t = at::_ops::empty(size, dtype.value_or(dtype_of_scalar(fill_value)), layout, device, pin_memory, std::nullopt);
  return at::_ops::fill_(t, fill_value);
}

TensorBase arange(const Scalar& end, std::optional<ScalarType> dtype, std::optional<Layout> layout,
              std::optional<Device> device, std::optional<bool> pin_memory) {
  return at::_ops::arange(Scalar(0), end, Scalar(1), dtype, layout, device, pin_memory);
}

TensorBase arange_start(const Scalar& start, const Scalar& end, std::optional<ScalarType> dtype,
                    std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  return at::_ops::arange(start, end, Scalar(1), dtype, layout, device, pin_memory);
}

TensorBase eye_m(int64_t n, int64_t m, std::optional<ScalarType> dtype, std::optional<Layout> layout,
             std::optional<Device> device, std::optional<bool> pin_memory) {
  TL_CHECK(n >= 0, "eye: n must be greater or equal to 0, got ", n);
  TL_CHECK(m >= 0, "eye: m must be greater or equal to 0, got ", m);
  int64_t shape[2] = {n, m};
  TensorBase t = at::_ops::zeros(IntArrayRef(shape, 2), dtype, layout, device, pin_memory);
  int64_t k = std::min(n, m);
  if (k > 0) {
    // The diagonal is a strided view (stride m + 1): filling it through the
    // dispatcher keeps eye backend-agnostic.
    int64_t dsize[1] = {k}, dstride[1] = {m + 1};
    TensorBase diag = make_view(t, IntArrayRef(dsize, 1), IntArrayRef(dstride, 1), 0);
    at::_ops::fill_(diag, Scalar(1));
  }
  return t;
}

TensorBase eye(int64_t n, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
           std::optional<bool> pin_memory) {
  return at::_ops::eye(n, n, dtype, layout, device, pin_memory);
}

// ---------------------------------------------------------------- *_like

// memory_format=None/preserve keeps a dense input's strides (a transposed
// input gives a transposed result), as PyTorch does; anything else is
// row-major contiguous.
TensorBase empty_like(const TensorBase& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  TL_CHECK(!layout || *layout == Layout::Strided, "empty_like: only the strided layout is supported");
  ScalarType st = dtype.value_or(self.scalar_type());
  Device dev = device.value_or(self.device());
  bool keep = (!memory_format || *memory_format == MemoryFormat::Preserve) &&
              self.unsafeGetTensorImpl()->is_non_overlapping_and_dense() && !self.is_contiguous();
  if (keep) return at::_ops::empty_strided(self.sizes(), self.strides(), st, layout, dev, pin_memory);
  return at::_ops::empty(self.sizes(), st, layout, dev, pin_memory, std::nullopt);
}

TensorBase zeros_like(const TensorBase& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  return at::_ops::fill_(at::_ops::empty_like(self, dtype, layout, device, pin_memory, memory_format), Scalar(0));
}

TensorBase ones_like(const TensorBase& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  return at::_ops::fill_(at::_ops::empty_like(self, dtype, layout, device, pin_memory, memory_format), Scalar(1));
}

TensorBase full_like(const TensorBase& self, const Scalar& fill_value, std::optional<ScalarType> dtype,
                 std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  return at::_ops::fill_(at::_ops::empty_like(self, dtype, layout, device, pin_memory, memory_format), fill_value);
}

TensorBase rand_like(const TensorBase& self, const std::optional<c10::Generator>& generator, std::optional<ScalarType> dtype,
                 std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  return at::_ops::uniform_(at::_ops::empty_like(self, dtype, layout, device, pin_memory, memory_format), 0.0, 1.0, generator);
}

TensorBase randn_like(const TensorBase& self, const std::optional<c10::Generator>& generator, std::optional<ScalarType> dtype,
                  std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  return at::_ops::normal_(at::_ops::empty_like(self, dtype, layout, device, pin_memory, memory_format), 0.0, 1.0, generator);
}

TensorBase randint_like_low_dtype(const TensorBase& self, int64_t low, int64_t high,
                              const std::optional<c10::Generator>& generator, std::optional<ScalarType> dtype,
                              std::optional<Layout> layout, std::optional<Device> device,
                              std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  TensorBase t = at::_ops::empty_like(self, dtype, layout, device, pin_memory, memory_format);
  return at::_ops::random_(t, low, std::optional<int64_t>(high), generator);
}

TensorBase randint_like(const TensorBase& self, int64_t high, const std::optional<c10::Generator>& generator,
                    std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
                    std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  return randint_like_low_dtype(self, 0, high, generator, dtype, layout, device, pin_memory, memory_format);
}

// ---------------------------------------------------------------- new_*: inherit self's dtype and device

TensorBase new_empty(const TensorBase& self, IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory) {
  return at::_ops::empty(size, dtype.value_or(self.scalar_type()), layout, device.value_or(self.device()), pin_memory,
                   std::nullopt);
}

TensorBase new_empty_strided(const TensorBase& self, IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                         std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  return at::_ops::empty_strided(size, stride, dtype.value_or(self.scalar_type()), layout, device.value_or(self.device()),
                           pin_memory);
}

TensorBase new_zeros(const TensorBase& self, IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory) {
  return at::_ops::fill_(at::_ops::new_empty(self, size, dtype, layout, device, pin_memory), Scalar(0));
}

TensorBase new_ones(const TensorBase& self, IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                std::optional<Device> device, std::optional<bool> pin_memory) {
  return at::_ops::fill_(at::_ops::new_empty(self, size, dtype, layout, device, pin_memory), Scalar(1));
}

TensorBase new_full(const TensorBase& self, IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype,
                std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  return at::_ops::fill_(at::_ops::new_empty(self, size, dtype, layout, device, pin_memory), fill_value);
}

// ---------------------------------------------------------------- random factories

TensorBase rand(IntArrayRef size, const std::optional<c10::Generator>& generator, std::optional<ScalarType> dtype,
            std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  TensorBase t = at::_ops::empty(size, dtype, layout, device, pin_memory, std::nullopt);
  return at::_ops::uniform_(t, 0.0, 1.0, generator);
}

TensorBase randn(IntArrayRef size, const std::optional<c10::Generator>& generator, std::optional<ScalarType> dtype,
             std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  TensorBase t = at::_ops::empty(size, dtype, layout, device, pin_memory, std::nullopt);
  return at::_ops::normal_(t, 0.0, 1.0, generator);
}

TensorBase randint_low(int64_t low, int64_t high, IntArrayRef size, const std::optional<c10::Generator>& generator,
                   std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
                   std::optional<bool> pin_memory) {
  TensorBase t = at::_ops::empty(size, dtype.value_or(ScalarType::Long), layout, device, pin_memory, std::nullopt);
  return at::_ops::random_(t, low, std::optional<int64_t>(high), generator);
}

TensorBase randint(int64_t high, IntArrayRef size, const std::optional<c10::Generator>& generator,
               std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
               std::optional<bool> pin_memory) {
  return randint_low(0, high, size, generator, dtype, layout, device, pin_memory);
}

TensorBase random_to_(const TensorBase& self, int64_t to, const std::optional<c10::Generator>& generator) {
  return at::_ops::random_(self, 0, std::optional<int64_t>(to), generator);
}

// random_(): integers in [0, max] where max is the dtype's largest value
// (2^digits for floats, every integer up to it being exact).
TensorBase random_(const TensorBase& self, const std::optional<c10::Generator>& generator) {
  return at::_ops::random_(self, 0, std::nullopt, generator);
}

TensorBase bernoulli(const TensorBase& self, const std::optional<c10::Generator>& generator) {
  TL_CHECK(isFloatingType(self.scalar_type()), "bernoulli: expected a floating point tensor of probabilities, got ",
           self.scalar_type());
  TensorBase out = at::_ops::empty_like(self, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt);
  return at::_ops::bernoulli_(out, self, generator);
}

TensorBase bernoulli_p(const TensorBase& self, double p, const std::optional<c10::Generator>& generator) {
  TensorBase out = at::_ops::empty_like(self, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt);
  return at::_ops::bernoulli_(out, p, generator);
}

// ---------------------------------------------------------------- out= variants
// out is resized to the result's shape when it differs (as PyTorch does) and
// keeps its dtype; results that are not a plain fill are computed in out's
// dtype and copied, which also covers a non-contiguous out.

namespace {
void resize_out(const TensorBase& out, IntArrayRef sizes) {
  if (!out.sizes().equals(sizes)) out.unsafeGetTensorImpl()->resize(sizes);
}
TensorBase copy_result(const TensorBase& out, const TensorBase& r) {
  resize_out(out, r.sizes());
  return at::_ops::copy_(out, r, false);
}
}  // namespace

TensorBase zeros_out(const TensorBase& out, IntArrayRef size) {
  resize_out(out, size);
  return at::_ops::fill_(out, Scalar(0));
}

TensorBase ones_out(const TensorBase& out, IntArrayRef size) {
  resize_out(out, size);
  return at::_ops::fill_(out, Scalar(1));
}

TensorBase full_out(const TensorBase& out, IntArrayRef size, const Scalar& fill_value) {
  resize_out(out, size);
  return at::_ops::fill_(out, fill_value);
}

TensorBase arange_start_out(const TensorBase& out, const Scalar& start, const Scalar& end, const Scalar& step) {
  return copy_result(out, at::_ops::arange(start, end, step, out.scalar_type(), std::nullopt, out.device(), std::nullopt));
}

TensorBase arange_out(const TensorBase& out, const Scalar& end) { return arange_start_out(out, Scalar(0), end, Scalar(1)); }

TensorBase linspace_out(const TensorBase& out, const Scalar& start, const Scalar& end, int64_t steps) {
  return copy_result(out, at::_ops::linspace(start, end, steps, out.scalar_type(), std::nullopt, out.device(), std::nullopt));
}

TensorBase eye_m_out(const TensorBase& out, int64_t n, int64_t m) {
  return copy_result(out, at::_ops::eye(n, m, out.scalar_type(), std::nullopt, out.device(), std::nullopt));
}

TensorBase eye_out(const TensorBase& out, int64_t n) { return eye_m_out(out, n, n); }

TensorBase rand_out(const TensorBase& out, IntArrayRef size, const std::optional<c10::Generator>& generator) {
  resize_out(out, size);
  return at::_ops::uniform_(out, 0.0, 1.0, generator);
}

TensorBase randn_out(const TensorBase& out, IntArrayRef size, const std::optional<c10::Generator>& generator) {
  resize_out(out, size);
  return at::_ops::normal_(out, 0.0, 1.0, generator);
}

TensorBase randint_low_out(const TensorBase& out, int64_t low, int64_t high, IntArrayRef size,
                       const std::optional<c10::Generator>& generator) {
  resize_out(out, size);
  return at::_ops::random_(out, low, std::optional<int64_t>(high), generator);
}

TensorBase randint_out(const TensorBase& out, int64_t high, IntArrayRef size, const std::optional<c10::Generator>& generator) {
  return randint_low_out(out, 0, high, size, generator);
}

TensorBase randperm_out(const TensorBase& out, int64_t n, const std::optional<c10::Generator>& generator) {
  return copy_result(out, at::_ops::randperm(n, generator, out.scalar_type(), std::nullopt, out.device(), std::nullopt));
}

}  // namespace at::native
