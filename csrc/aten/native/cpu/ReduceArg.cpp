// CPU max.dim/min.dim (values and indices) and argmax/argmin kernels (engine in Reduce.h).
#include "ReduceOps.h"
#include "../Copy.h"
#include "ops/argmax.h"
#include "ops/argmin.h"
#include "ops/max.h"
#include "ops/min.h"

namespace at::native {
using namespace reduce_ops;
namespace {

// ---- argmax/argmin and max/min with indices
template <class V>
struct ArgAcc {
  V v;
  int64_t i;
};
template <class T, bool IsMax>
struct ArgOp {
  using V = c10::opmath_t<T>;
  using acc_t = ArgAcc<V>;
  static constexpr int64_t kRowBlock = 128;
  static constexpr bool kCascade = false;
  static bool better(V x, V cur) {
    if constexpr (IsMax) return x > cur || (x != x && cur == cur);
    else return x < cur || (x != x && cur == cur);
  }
  acc_t identity() const { return {V(0), -1}; }
  void chunk(acc_t& a, const T* p, int64_t s, int64_t n, int64_t idx0) const {
    V bv = a.v;
    int64_t bi = a.i;
    for (int64_t k = 0; k < n; ++k) {
      V x = static_cast<V>(p[k * s]);
      if (bi < 0 || better(x, bv)) {
        bv = x;
        bi = idx0 + k;
      }
    }
    a = {bv, bi};
  }
  void row(acc_t* a, const T* p, int64_t w, int64_t idx) const {
    for (int64_t j = 0; j < w; ++j) {
      V x = static_cast<V>(p[j]);
      if (a[j].i < 0 || better(x, a[j].v)) a[j] = {x, idx};
    }
  }
  void combine(acc_t& a, const acc_t& b) const {
    if (b.i >= 0 && (a.i < 0 || better(b.v, a.v))) a = b;
  }
};

// Values and/or indices; `values` may be undefined (argmax).
template <bool IsMax>
void arg_impl(const TensorBase& in, uint64_t mask, const TensorBase& values, const TensorBase& indices) {
  // The linear index handed to the op must be row-major over the reduced
  // dims, so they stay in their natural order (several dims only for the
  // flattened argmax, whose input is made contiguous by the caller).
  ReducePlan P = make_reduce_plan(in, mask, false);
  int64_t* idx = indices.data_ptr<int64_t>();
  TL_DISPATCH_ALL_TYPES(in.scalar_type(), IsMax ? "max" : "min", [&] {
    using Op = ArgOp<scalar_t, IsMax>;
    scalar_t* val = values.defined() ? values.data_ptr<scalar_t>() : nullptr;
    reduce_kernel(P, in.data_ptr<scalar_t>(), Op(), [&](int64_t o, const typename Op::acc_t& a) {
      idx[o] = a.i;
      if (val) val[o] = static_cast<scalar_t>(a.v);
    });
  });
}

}  // namespace

template <bool IsMax>
static std::tuple<TensorBase, TensorBase> minmax_dim(const TensorBase& self, int64_t dim, bool keepdim) {
  const char* name = IsMax ? "max" : "min";
  uint64_t mask = make_dim_mask(self, dim);
  check_nonempty_reduction(name, self, mask, false, false);
  DimVector shape = reduced_shape(self.sizes(), mask, keepdim);
  TensorBase values = make_empty(shape, self.options());
  TensorBase indices = make_empty(shape, self.options().with_dtype(ScalarType::Long));
  arg_impl<IsMax>(self, mask, values, indices);
  return {values, indices};
}
std::tuple<TensorBase, TensorBase> max_dim_cpu(const TensorBase& self, int64_t dim, bool keepdim) {
  return minmax_dim<true>(self, dim, keepdim);
}
std::tuple<TensorBase, TensorBase> min_dim_cpu(const TensorBase& self, int64_t dim, bool keepdim) {
  return minmax_dim<false>(self, dim, keepdim);
}

template <bool IsMax>
static TensorBase arg_reduce(const TensorBase& self, std::optional<int64_t> dim, bool keepdim) {
  const char* name = IsMax ? "argmax" : "argmin";
  TL_CHECK(self.scalar_type() != ScalarType::Bool, name, "(): does not support bool input");
  uint64_t mask = dim ? make_dim_mask(self, *dim) : make_dim_mask(self, std::nullopt);
  check_nonempty_reduction(name, self, mask, !dim, true);
  DimVector shape = dim ? reduced_shape(self.sizes(), mask, keepdim)
                        : (keepdim ? reduced_shape(self.sizes(), mask, true) : DimVector());
  TensorBase indices = make_empty(shape, self.options().with_dtype(ScalarType::Long));
  arg_impl<IsMax>(dim ? self : contiguous(self), mask, TensorBase(), indices);
  return indices;
}
TensorBase argmax_cpu(const TensorBase& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_reduce<true>(self, dim, keepdim);
}
TensorBase argmin_cpu(const TensorBase& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_reduce<false>(self, dim, keepdim);
}

}  // namespace at::native
