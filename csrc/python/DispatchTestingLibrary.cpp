// The second file of the _test_multi library (see DispatchTesting.cpp): the
// same TL_LIBRARY_IMPL(ns, key, m) as there, and twice in this file, links
// without symbol clashes and all registrations take effect. `third` uses the
// explicit-init form; tests/test_dispatcher_contract.py checks all three.
#include "c10/Library.h"
#include "ops/mul.h"

static c10::TensorBase multi_second(const c10::TensorBase& self) {
  return at::_ops::mul(self, c10::wrapped_scalar_tensor(5));
}
static c10::TensorBase multi_third(const c10::TensorBase& self) {
  return at::_ops::mul(self, c10::wrapped_scalar_tensor(7));
}

TL_LIBRARY_IMPL(_test_multi, CPU, m) { m.impl("second", TL_KERNEL(multi_second)); }

// Explicit entry point; also registered at load time, and calling it again is a no-op.
TL_LIBRARY_IMPL_INIT(tl_test_multi_init_third, _test_multi, CPU, m) { m.impl("third", TL_KERNEL(multi_third)); }
