// nll_loss checks and shape plan (see NnActLoss.h).
#include "NnActLoss.h"

#include <string>

#include "c10/Exception.h"

namespace at::native {
namespace {
std::string sizes_str(IntArrayRef sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}
}  // namespace

NllLossPlan nll_loss_plan(const TensorBase& self, const TensorBase& target,
                          const std::optional<TensorBase>& weight, int64_t reduction) {
  NllLossPlan p;
  TL_CHECK(reduction >= 0 && reduction <= 2, "nll_loss: reduction must be 0 (none), 1 (mean) or 2 (sum), got ",
           reduction);
  p.reduction = static_cast<LossReduction>(reduction);
  TL_CHECK(self.dim() >= 1, "nll_loss: input must have at least 1 dimension (classes), got a 0-dim tensor");
  TL_CHECK(c10::isFloatingType(self.scalar_type()), "nll_loss: expected a floating point input, got ",
           c10::toString(self.scalar_type()));
  TL_CHECK(target.scalar_type() == ScalarType::Long || target.scalar_type() == ScalarType::Byte,
           "nll_loss: expected target dtype to be Long or Byte, but got ", c10::toString(target.scalar_type()));
  TL_CHECK(target.device() == self.device(), "nll_loss: input and target must be on the same device");
  if (self.dim() == 1) {
    TL_CHECK(target.dim() <= 1 && target.numel() == 1,
             "nll_loss: a 1-D input (classes) needs a 0-D target or one element, got target of ", target.dim(),
             " dims");
    p.batch = 1;
    p.classes = self.sizes()[0];
  } else {
    TL_CHECK(target.dim() == self.dim() - 1, "nll_loss: expected target with ", self.dim() - 1,
             " dims for an input of ", self.dim(), " dims, got ", target.dim());
    TL_CHECK_VALUE(self.sizes()[0] == target.sizes()[0], "Expected input batch_size (", self.sizes()[0],
                   ") to match target batch_size (", target.sizes()[0], ").");
    p.batch = self.sizes()[0];
    p.classes = self.sizes()[1];
    for (int64_t d = 2; d < self.dim(); ++d) {
      if (self.sizes()[d] != target.sizes()[d - 1]) {
        DimVector want{self.sizes()[0]};
        for (int64_t k = 2; k < self.dim(); ++k) want.push_back(self.sizes()[k]);
        TL_ERROR("nll_loss: Expected target size ", sizes_str(want), ", got ", sizes_str(target.sizes()));
      }
      p.spatial *= self.sizes()[d];
    }
  }
  if (weight) {
    TL_CHECK(weight->dim() == 1 && weight->numel() == p.classes,
             "nll_loss: weight tensor should be defined either for all ", p.classes,
             " classes or no classes but got weight tensor of shape: ", sizes_str(weight->sizes()));
    TL_CHECK(weight->scalar_type() == self.scalar_type(), "nll_loss: expected weight dtype ",
             c10::toString(self.scalar_type()), ", got ", c10::toString(weight->scalar_type()));
  }
  for (int64_t s : target.sizes()) p.target_sizes.push_back(s);
  return p;
}

void nll_target_out_of_bounds(int64_t t) {
  c10::throw_error(c10::ErrorKind::Index, c10::str("nll_loss: Target ", t, " is out of bounds."));
}

}  // namespace at::native
