// The CPU loop of the _foreach_ operators: one contiguous row (dst and up to
// three sources of one dtype and shape) through the single-tensor op's
// generated functor, so a foreach step and a per-tensor step give the same
// bits. float16/bfloat16 compute in float (opmath_t).
#include "../Foreach.h"
#include "aten/Parallel.h"
#include "c10/ScalarType.h"
#include "functors/abs.h"
#include "functors/add.h"
#include "functors/addcdiv.h"
#include "functors/addcmul.h"
#include "functors/div.h"
#include "functors/lerp.h"
#include "functors/maximum.h"
#include "functors/mul.h"
#include "functors/neg.h"
#include "functors/sqrt.h"
#include "functors/sub.h"

namespace at::native {
namespace {

// Elements per parallel chunk: small tensors (biases) stay on one thread.
constexpr int64_t kForeachGrain = 32768;

// out[i] = f(acc(in[i])...) for one contiguous row.
template <class scalar_t, class F, class... In>
void map_row(scalar_t* out, int64_t n, const F& f, const In*... in) {
  using acc_t = c10::opmath_t<scalar_t>;
  at::parallel_for(0, n, kForeachGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = static_cast<scalar_t>(f(static_cast<acc_t>(in[i])...));
  });
}

template <class scalar_t>
void run_row(ForeachFormula formula, const ForeachRow& row) {
  using acc_t = c10::opmath_t<scalar_t>;
  using namespace tl_gen_aten;
  scalar_t* out = row.dst->data_ptr<scalar_t>();
  const scalar_t* a = row.a->data_ptr<scalar_t>();
  const scalar_t* b = row.b ? row.b->data_ptr<scalar_t>() : nullptr;
  const scalar_t* c = row.c ? row.c->data_ptr<scalar_t>() : nullptr;
  const int64_t n = row.dst->numel();
  // The stand-in for a missing tensor operand: like a wrapped Python number
  // in the single-tensor kernels, it enters at computation precision.
  const acc_t k = row.operand.to<acc_t>();
  const acc_t coeff = row.coeff.to<acc_t>();

  // Binary formulas take either the second tensor or the constant operand.
  auto binary = [&](auto fn) {
    if (b) {
      map_row<scalar_t>(out, n, fn, a, b);
    } else {
      map_row<scalar_t>(out, n, [&](acc_t x) { return fn(x, k); }, a);
    }
  };
  switch (formula) {
    case ForeachFormula::Add: return binary(add_Tensor_functor<acc_t>{coeff});
    case ForeachFormula::Sub: return binary(sub_Tensor_functor<acc_t>{coeff});
    case ForeachFormula::Mul: return binary(mul_Tensor_functor<acc_t>{});
    case ForeachFormula::Div: return binary(div_Tensor_functor<acc_t>{});
    case ForeachFormula::Maximum: return binary(maximum_functor<acc_t>{});
    case ForeachFormula::Lerp: {
      // lerp's third operand is the weight: a tensor (List) or a number (Scalar).
      lerp_Tensor_functor<acc_t> fn{};
      if (c) return map_row<scalar_t>(out, n, fn, a, b, c);
      return map_row<scalar_t>(out, n, [&](acc_t x, acc_t y) { return fn(x, y, k); }, a, b);
    }
    case ForeachFormula::Addcmul: return map_row<scalar_t>(out, n, addcmul_functor<acc_t>{coeff}, a, b, c);
    case ForeachFormula::Addcdiv: return map_row<scalar_t>(out, n, addcdiv_functor<acc_t>{coeff}, a, b, c);
    case ForeachFormula::Sqrt: return map_row<scalar_t>(out, n, sqrt_functor<acc_t>{}, a);
    case ForeachFormula::Neg: return map_row<scalar_t>(out, n, neg_functor<acc_t>{}, a);
    case ForeachFormula::Abs: return map_row<scalar_t>(out, n, abs_functor<acc_t>{}, a);
  }
}

}  // namespace

void foreach_dense_cpu(ForeachFormula formula, const ForeachRow& row) {
  if (row.dst->numel() == 0) return;
  TL_DISPATCH_FLOATING_TYPES(row.dst->scalar_type(), "_foreach_", [&] { run_row<scalar_t>(formula, row); });
}

}  // namespace at::native
