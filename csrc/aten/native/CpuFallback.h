// "Run it on CPU and copy back": a boxed fallback an out-of-tree backend
// (PrivateUse1) registers so that every operator it has no kernel of its own
// for still runs. A backend then only needs its allocator, DeviceGuard,
// copy kernels, empty/empty_strided and whatever ops it wants fast; the rest
// reach the CPU kernels through here (docs/writing_a_backend.md).
//
//   TL_LIBRARY_IMPL(_, PrivateUse1, m) { at::native::registerCpuFallback(m); }
//
// What one call does:
//  1. checks that every tensor argument is on the one backend device (a CPU
//     0-dim tensor, a Python number, is allowed beside it, as in PyTorch's
//     TensorIterator ops) and raises "Expected all tensors to be on the same
//     device" naming both otherwise;
//  2. copies the backend tensors (and tensor lists) to CPU, and turns a
//     `Device` argument naming the backend into CPU (factories);
//  3. redispatches the operator to its CPU kernel;
//  4. writes back every argument the schema marks as written (`Tensor(a!)`:
//     in-place self, out= arguments, written lists), resizing it when the
//     CPU kernel resized its copy;
//  5. returns, per result: the argument itself for a `Tensor(a!)` result (so
//     `x.add_(y)` returns x), a view of the argument for a `Tensor(a)` view
//     result (raising NotImplementedError when the CPU copy's layout differs
//     from the argument's, so the view cannot be mapped back), else a copy on
//     the backend device.
// Copies go through the dispatcher (aten::_to_copy / aten::copy_), so they
// use the backend's own allocator and copy kernels.
#pragma once
#include "c10/Dispatcher.h"
#include "c10/IValue.h"
#include "c10/KernelFunction.h"
#include "c10/Library.h"

namespace at::native {

// The fallback itself, for a boxed stack holding `op`'s arguments in boxed
// order (out= arguments first, as the C++ signature has them). Leaves the
// results on the stack.
void cpuFallback(const c10::OperatorEntry& op, c10::Stack* stack);

// cpuFallback as a KernelFunction, for Library::fallback or Library::impl
// (a backend may route single operators through it explicitly).
c10::KernelFunction cpuFallbackKernel();

// m.fallback(cpuFallbackKernel()): the one line a backend's
// TL_LIBRARY_IMPL(_, PrivateUse1, m) body needs.
inline void registerCpuFallback(c10::Library& m) { m.fallback(cpuFallbackKernel()); }

}  // namespace at::native
