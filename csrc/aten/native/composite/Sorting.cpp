// Sorting-family ops built from sort, median.dim and nanmedian.dim: they
// work (and differentiate) on every backend that has those.
#include <limits>
#include <tuple>

#include "ops/full.h"
#include "ops/median.h"
#include "ops/nanmedian.h"
#include "ops/reshape.h"
#include "ops/sort.h"

namespace at::native {

TensorBase argsort(const TensorBase& self, int64_t dim, bool descending) {
  return std::get<1>(at::_ops::sort(self, dim, descending));
}

TensorBase argsort_stable(const TensorBase& self, bool stable, int64_t dim, bool descending) {
  return std::get<1>(at::_ops::sort(self, stable, dim, descending));
}

TensorBase msort(const TensorBase& self) { return std::get<0>(at::_ops::sort(self, 0, false)); }

// The whole tensor's median: the lower of the two middle values; NaN if any
// value is NaN (median) or of the non-NaN values (nanmedian); NaN when empty.
static TensorBase median_all(const TensorBase& self, bool ignore_nan) {
  if (self.numel() == 0) {
    return at::_ops::full({}, std::numeric_limits<double>::quiet_NaN(), self.scalar_type(), std::nullopt,
                          self.device(), std::nullopt);
  }
  TensorBase flat = at::_ops::reshape(self, {-1});
  return std::get<0>(ignore_nan ? at::_ops::nanmedian(flat, 0, false) : at::_ops::median(flat, 0, false));
}

TensorBase median(const TensorBase& self) { return median_all(self, false); }
TensorBase nanmedian(const TensorBase& self) { return median_all(self, true); }

}  // namespace at::native
