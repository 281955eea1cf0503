// What every CPU random kernel starts from: the generator it draws from and
// the loop that reserves Philox counters and fills a tensor in logical order.
// Shared by cpu/Random.cpp (rand, normal_, bernoulli, ...) and
// cpu/RandomDists.cpp (multinomial, normal(Tensor), poisson, ...).
#pragma once
#include <cstdint>
#include <optional>

#include "../Copy.h"
#include "c10/Exception.h"
#include "c10/Generator.h"
#include "c10/Tensor.h"

namespace at::native {

// The generator a CPU random op draws from: the one passed (which must be a
// CPU generator, as in PyTorch) or the CPU device's default generator.
inline c10::GeneratorImpl* cpu_generator(const std::optional<c10::Generator>& g) {
  if (g && g->get()) {
    DeviceType t = (*g)->device().type;
    TL_CHECK(t == DeviceType::CPU, "Expected a 'cpu' device type for generator but found '", c10::deviceTypeName(t),
             "'");
    return g->get();
  }
  return c10::defaultGenerator(Device(DeviceType::CPU)).get();
}

// Runs fill(ptr, n, seed, base) over self's elements in logical order:
// straight into self when contiguous, else into a contiguous buffer copied
// back. Reserves ceil(n / per_counter) counters from the generator.
template <class F>
void fill_logical(const TensorBase& self, int64_t per_counter, const std::optional<c10::Generator>& generator,
                  const F& fill) {
  TL_CHECK(self.is_cpu(), "random ops: expected a CPU tensor, got one on ", self.device());
  int64_t n = self.numel();
  if (n == 0) return;
  c10::GeneratorImpl* g = cpu_generator(generator);
  auto [seed, base] = g->reserve((uint64_t)((n + per_counter - 1) / per_counter));
  if (self.is_contiguous()) {
    fill(self.data_ptr(), n, seed, base);
  } else {
    TensorBase tmp = make_empty(self.sizes(), self.options());
    fill(tmp.data_ptr(), n, seed, base);
    copy_into(self, tmp);
  }
}

}  // namespace at::native
