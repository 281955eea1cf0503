#include "CpuFallback.h"

#include <optional>
#include <string>
#include <vector>

#include "c10/DeviceGuard.h"
#include "c10/Exception.h"
#include "c10/FunctionSchema.h"
#include "ops/_to_copy.h"
#include "ops/as_strided.h"
#include "ops/copy.h"
#include "ops/set.h"

namespace at::native {
namespace {

using c10::IValue;
using Tag = c10::IValue::Tag;

// Schema position of each boxed stack slot: out= arguments come first on the
// stack (the C++ signature's order), then the others in schema order.
std::vector<size_t> boxedOrder(const c10::FunctionSchema& s) {
  const auto& args = s.arguments();
  std::vector<size_t> order;
  order.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].isOut()) order.push_back(i);
  for (size_t i = 0; i < args.size(); ++i)
    if (!args[i].isOut()) order.push_back(i);
  return order;
}

bool isWritten(const c10::SchemaArgument& a) { return a.alias && a.alias->is_write; }

bool holdsTensors(const IValue& v) {
  return v.tag == Tag::TensorList || v.tag == Tag::OptionalTensorList || v.tag == Tag::Tuple;
}

// The one non-CPU device the call runs on, checked across every tensor.
class DeviceOfCall {
 public:
  explicit DeviceOfCall(const std::string& op) : op_(op) {}
  void see(const TensorBase& t) {
    if (!t.defined()) return;
    if (t.is_cpu()) {
      // A CPU 0-dim tensor (a Python number, a loss scale) may accompany
      // device tensors, as in PyTorch's TensorIterator ops; anything larger may not.
      if (t.dim() != 0 && !cpu_) cpu_ = t.device();
      return;
    }
    if (!device_) {
      device_ = t.device();
      return;
    }
    if (*device_ != t.device()) mismatch(*device_, t.device());
  }
  // A `Device` argument names the device only when no tensor does (a
  // factory, or an op making its result on another device than its CPU
  // inputs, which are then no mismatch).
  void seeDevice(Device d) {
    if (!device_ && !d.is_cpu() && !d.is_meta()) {
      device_ = c10::tensorDevice(d);
      from_tensor_ = false;
    }
  }
  Device finish() const {
    TL_CHECK(device_.has_value(), op_, ": the CPU fallback was reached without a backend tensor or device argument");
    if (cpu_ && from_tensor_) mismatch(*device_, *cpu_);
    return *device_;
  }

 private:
  [[noreturn]] void mismatch(Device a, Device b) const {
    TL_CHECK(false, "Expected all tensors to be on the same device, but found at least two devices, ", a, " and ", b,
             "! (when checking arguments for ", op_, ")");
    abort();
  }
  std::string op_;
  std::optional<Device> device_, cpu_;
  bool from_tensor_ = true;
};

TensorBase toCpu(const TensorBase& t) {
  if (!t.defined() || t.is_cpu()) return t;
  return at::_ops::_to_copy(t, std::nullopt, std::nullopt, Device(DeviceType::CPU), std::nullopt, false, std::nullopt);
}

TensorBase toDevice(const TensorBase& t, Device d) {
  if (!t.defined()) return t;
  return at::_ops::_to_copy(t, std::nullopt, std::nullopt, d, std::nullopt, false, std::nullopt);
}

// Writes the CPU kernel's result for a written argument back into it. An
// out= argument the kernel resized gets new storage of the right size.
void writeBack(const TensorBase& original, const TensorBase& cpu) {
  if (!original.defined() || original.is_same(cpu)) return;  // a CPU argument was written in place
  if (original.sizes().equals(cpu.sizes())) {
    at::_ops::copy_(original, cpu, false);
  } else {
    at::_ops::set_(original, toDevice(cpu, original.device()));
    original.bump_version();
  }
}

}  // namespace

void cpuFallback(const c10::OperatorEntry& op, c10::Stack* stack) {
  const c10::FunctionSchema* schema = op.schemaOrNull();
  TL_CHECK(schema != nullptr, op.name(), ": the CPU fallback needs the operator's schema, and none is registered");
  const auto& args = schema->arguments();
  const size_t nargs = args.size();
  TL_CHECK(stack->size() >= nargs, op.name(), ": expected ", nargs, " arguments on the stack, got ", stack->size());
  const size_t base = stack->size() - nargs;
  const std::vector<size_t> order = boxedOrder(*schema);

  // 1. Which device, and are the tensors consistent?
  DeviceOfCall where(op.name());
  for (size_t j = 0; j < nargs; ++j) {
    const IValue& v = (*stack)[base + j];
    if (v.tag == Tag::Tensor) where.see(v.tensor);
    else if (holdsTensors(v))
      for (const auto& t : v.tensors) where.see(t);
  }
  for (size_t j = 0; j < nargs; ++j) {
    const IValue& v = (*stack)[base + j];
    if (v.tag == Tag::Device) where.seeDevice(v.device);
  }
  const Device device = where.finish();
  c10::DeviceGuard guard(device);

  // 2. The originals, kept per slot for the write-back and the results; the
  // stack gets their CPU copies.
  std::vector<IValue> originals(stack->begin() + (std::ptrdiff_t)base, stack->end());
  for (size_t j = 0; j < nargs; ++j) {
    IValue& v = (*stack)[base + j];
    if (v.tag == Tag::Tensor) v.tensor = toCpu(v.tensor);
    else if (holdsTensors(v))
      for (auto& t : v.tensors) t = toCpu(t);
    else if (v.tag == Tag::Device && v.device.type == device.type)
      v.device = Device(DeviceType::CPU);
  }
  std::vector<IValue> cpu_args(stack->begin() + (std::ptrdiff_t)base, stack->end());

  // 3. The CPU kernel. Everything above CPU (autograd, autocast) has already
  // run for the backend's keys, so the call goes straight to the CPU entry.
  c10::Dispatcher::singleton().redispatchBoxed(op, c10::DispatchKeySet(c10::DispatchKey::CPU), stack);

  // 4. Written arguments get the CPU kernel's values.
  for (size_t j = 0; j < nargs; ++j) {
    if (!isWritten(args[order[j]])) continue;
    const IValue& o = originals[j];
    const IValue& c = cpu_args[j];
    if (o.tag == Tag::Tensor) writeBack(o.tensor, c.tensor);
    else if (holdsTensors(o))
      for (size_t i = 0; i < o.tensors.size(); ++i) writeBack(o.tensors[i], c.tensors[i]);
  }

  // 5. Results back on the device. The slot of the argument a result aliases
  // (by its alias set, `a` in Tensor(a!)), or -1.
  auto aliasedSlot = [&](const c10::SchemaReturn& r) -> std::ptrdiff_t {
    if (!r.alias || r.alias->before.empty()) return -1;
    for (size_t j = 0; j < nargs; ++j) {
      const auto& a = args[order[j]];
      if (a.alias && !a.alias->before.empty() && a.alias->before[0] == r.alias->before[0]) return (std::ptrdiff_t)j;
    }
    return -1;
  };
  const auto& rets = schema->returns();
  TL_CHECK(stack->size() == base + rets.size(), op.name(), ": the CPU kernel left ", stack->size() - base,
           " values on the stack for ", rets.size(), " results");
  for (size_t i = 0; i < rets.size(); ++i) {
    IValue& v = (*stack)[base + i];
    if (v.tag == Tag::Tensor) {
      const TensorBase r = v.tensor;
      if (!r.defined()) continue;
      std::ptrdiff_t slot = aliasedSlot(rets[i]);
      if (slot >= 0 && originals[slot].tag == Tag::Tensor) {
        const TensorBase& orig = originals[slot].tensor;
        const TensorBase& copy = cpu_args[slot].tensor;
        if (rets[i].alias->is_write || r.is_same(copy)) {
          v.tensor = orig;  // x.add_(y) returns x itself
          continue;
        }
        // A view result: the same geometry on the original's storage, when
        // the CPU copy laid the elements out as the original does. A kernel
        // that may return a copy instead (as reshape may) gave a fresh
        // tensor, which goes back as one.
        bool same_storage = copy.defined() && r.unsafeGetTensorImpl()->storage().get() ==
                                                  copy.unsafeGetTensorImpl()->storage().get();
        if (same_storage) {
          TL_CHECK_NOT_IMPLEMENTED(copy.strides().equals(orig.strides()), op.name(),
                                   " returns a view of its input, which the CPU fallback cannot map back onto the ",
                                   device.str(), " tensor (its CPU copy has another layout); register a kernel for "
                                   "it on the backend");
          v.tensor = at::_ops::as_strided(orig, r.sizes(), r.strides(),
                                          orig.storage_offset() + (r.storage_offset() - copy.storage_offset()));
          continue;
        }
      }
      // A result that is one of the CPU copies (an op returning an input
      // unchanged) is that input.
      bool found = false;
      for (size_t j = 0; j < nargs && !found; ++j)
        if (cpu_args[j].tag == Tag::Tensor && cpu_args[j].tensor.defined() && r.is_same(cpu_args[j].tensor) &&
            !originals[j].tensor.is_cpu()) {
          v.tensor = originals[j].tensor;
          found = true;
        }
      if (!found) v.tensor = toDevice(r, device);
    } else if (holdsTensors(v)) {
      std::ptrdiff_t slot = aliasedSlot(rets[i]);
      if (slot >= 0 && rets[i].alias->is_write && holdsTensors(originals[slot])) {
        v.tensors = originals[slot].tensors;  // a written list comes back as itself
        continue;
      }
      for (auto& t : v.tensors) t = toDevice(t, device);
    }
  }
}

namespace {
void boxedCpuFallback(void*, const c10::OperatorEntry& op, c10::DispatchKeySet, c10::Stack* stack) {
  cpuFallback(op, stack);
}
}  // namespace

c10::KernelFunction cpuFallbackKernel() {
  return c10::KernelFunction::makeFromBoxed(&boxedCpuFallback, nullptr, nullptr, "CPU fallback");
}

}  // namespace at::native
