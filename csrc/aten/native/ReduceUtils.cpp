#include "ReduceUtils.h"
#include "Copy.h"
#include "ops/copy.h"

namespace at::native {

uint64_t make_dim_mask(const TensorBase& self, std::optional<IntArrayRef> dim, bool empty_means_all) {
  int64_t nd = self.dim();
  TL_CHECK(nd <= 64, "reductions support at most 64 dims, got ", nd);
  if (!dim || (dim->empty() && empty_means_all)) return nd == 0 ? 0 : (nd == 64 ? ~0ull : ((1ull << nd) - 1));
  uint64_t mask = 0;
  for (int64_t d : *dim) {
    int64_t w = maybe_wrap_dim(d, nd);
    if (nd == 0) continue;  // a 0-dim tensor accepts dim 0 / -1 and has nothing to reduce
    TL_CHECK(!(mask & (1ull << w)), "dim ", w, " appears multiple times in the list of dims");
    mask |= 1ull << w;
  }
  return mask;
}

uint64_t make_dim_mask(const TensorBase& self, int64_t dim) {
  int64_t w = maybe_wrap_dim(dim, self.dim());
  return self.dim() == 0 ? 0 : (1ull << w);
}

DimVector reduced_shape(IntArrayRef sizes, uint64_t mask, bool keepdim) {
  DimVector out;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (mask & (1ull << d)) {
      if (keepdim) out.push_back(1);
    } else {
      out.push_back(sizes[d]);
    }
  }
  return out;
}

int64_t reduced_numel(IntArrayRef sizes, uint64_t mask) {
  int64_t n = 1;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (mask & (1ull << d)) n *= sizes[d];
  return n;
}

void check_nonempty_reduction(const char* op, const TensorBase& self, uint64_t mask, bool full, bool index_error) {
  if (full) {
    if (self.numel() == 0) {
      std::string msg = c10::str(op, "(): Expected reduction dim to be specified for input.numel() == 0.",
                                 index_error ? "" : " Specify the reduction dim with the 'dim' argument.");
      c10::throw_error(index_error ? c10::ErrorKind::Index : c10::ErrorKind::Runtime, msg);
    }
    return;
  }
  for (int64_t d = 0; d < self.dim(); ++d)
    TL_CHECK_INDEX(!(mask & (1ull << d)) || self.sizes()[d] != 0, op, "(): Expected reduction dim ", d,
                   " to have non-zero size.");
}

TensorBase copy_to_out(const TensorBase& out, const TensorBase& result) {
  if (!out.sizes().equals(result.sizes())) out.unsafeGetTensorImpl()->resize(result.sizes());
  at::_ops::copy_(out, result, false);
  return out;
}

void check_out_dtype(const char* op, const TensorBase& out, ScalarType want) {
  TL_CHECK(out.scalar_type() == want, op, "(): Expected out tensor to have dtype ", c10::toPythonName(want),
           ", but got ", c10::toPythonName(out.scalar_type()), " instead");
}

ScalarType mean_result_dtype(const TensorBase& self, std::optional<ScalarType> dtype) {
  ScalarType t = dtype.value_or(self.scalar_type());
  TL_CHECK(c10::isFloatingType(t), "mean(): could not infer output dtype. ",
           dtype ? "Optional" : "Input", " dtype must be either a floating point or complex dtype. Got: ",
           c10::toString(t));
  return t;
}

void check_var_dtype(const TensorBase& self) {
  TL_CHECK(c10::isFloatingType(self.scalar_type()), "std and var only support floating point and complex dtypes");
}

void check_norm_dtype(const TensorBase& self, std::optional<ScalarType> dtype) {
  TL_CHECK(c10::isFloatingType(self.scalar_type()),
           "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ",
           c10::toString(self.scalar_type()));
  if (dtype)
    TL_CHECK(c10::isFloatingType(*dtype), "linalg.vector_norm: dtype should be floating point or complex. Got ",
             c10::toString(*dtype));
}

}  // namespace at::native
