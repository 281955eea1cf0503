// The hand-written kernel that tests/extensions/yaml_ops.yaml names in
// `dispatch: {CPU: reverse_cumsum_cpu}`: y[..., i] = sum over j >= i of x[..., j].
// Its declaration comes from the generated header, so a signature that does
// not match the schema is a compile error here, not a crash later.
#include "aten/ATen.h"

#include "yamlops/ops/reverse_cumsum.h"

namespace yamlops::native {

at::TensorBase reverse_cumsum_cpu(const at::TensorBase& self_base) {
  at::Tensor self(self_base);
  TL_CHECK(self.is_floating_point(), "reverse_cumsum: expected a floating-point tensor, got ",
           c10::toString(self.scalar_type()));
  at::Tensor x = self.contiguous();
  at::Tensor out = at::empty_like(x);
  const int64_t n = x.dim() == 0 ? 1 : x.size(-1);
  const int64_t rows = n == 0 ? 0 : x.numel() / n;
  TL_DISPATCH_FLOATING_TYPES(x.scalar_type(), "reverse_cumsum", [&] {
    const scalar_t* in = x.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    for (int64_t r = 0; r < rows; ++r) {
      c10::opmath_t<scalar_t> acc = 0;  // float for half and bfloat16
      for (int64_t i = n - 1; i >= 0; --i) {
        acc += static_cast<c10::opmath_t<scalar_t>>(in[r * n + i]);
        o[r * n + i] = static_cast<scalar_t>(acc);
      }
    }
  });
  return out;
}

// Shapes only (tensors on the meta device): the result is shaped like the input.
at::TensorBase reverse_cumsum_meta(const at::TensorBase& self) { return at::empty_like(at::Tensor(self)); }

}  // namespace yamlops::native
