#include "Dispatcher.h"

#include <sstream>

namespace c10 {

const char* IValue::tagName() const {
  static const char* n[] = {"None", "Tensor", "int", "float", "bool", "str", "int[]", "float[]", "bool[]",
                            "Tensor[]", "Tensor?[]", "Device", "Generator", "tuple"};
  return n[(int)tag];
}

void IValue::expect(Tag t) const {
  IValue probe;
  probe.tag = t;
  TL_CHECK_TYPE(tag == t, "expected a boxed value of type ", probe.tagName(), " but got ", tagName());
}

// ---------------------------------------------------------------- OperatorEntry

void OperatorEntry::setSchema(std::string schema, size_t nargs, size_t nret) {
  TL_CHECK(schema_.empty() || schema_ == schema, "operator ", name_, " already has schema '", schema_,
           "'; refusing to redefine it as '", schema, "'");
  schema_ = std::move(schema);
  num_args_ = nargs;
  num_returns_ = nret;
}

void OperatorEntry::addKernel(DispatchKey k, KernelFunction f) { kernels_[k] = std::move(f); }
void OperatorEntry::removeKernel(DispatchKey k) { kernels_.erase(k); }

// For each runtime key, precedence: a kernel registered on the key itself;
// for dense keys CompositeExplicitAutograd then CompositeImplicitAutograd;
// for autograd keys the Autograd alias, then CompositeImplicitAutograd when
// the backend has no kernel of its own (the composite's parts carry autograd);
// for autocast keys the Autocast alias; finally the key's backend fallback.
void OperatorEntry::recompute(const KernelFunction* fallbacks) {
  auto get = [&](DispatchKey k) -> const KernelFunction* {
    auto it = kernels_.find(k);
    return it == kernels_.end() ? nullptr : &it->second;
  };
  const KernelFunction* cia = get(DispatchKey::CompositeImplicitAutograd);
  const KernelFunction* cea = get(DispatchKey::CompositeExplicitAutograd);
  uint64_t mask = DispatchKeySet::fullSet().raw();
  for (int i = 0; i < kNumRuntimeKeys; ++i) {
    DispatchKey k = (DispatchKey)i;
    const KernelFunction* chosen = get(k);
    std::string src = chosen ? "kernel" : "";
    if (!chosen && k != DispatchKey::Python) {
      BackendComponent b = toBackend(k);
      DispatchKey dense = runtimeKey(Functionality::Dense, b);
      switch (toFunctionality(k)) {
        case Functionality::Dense:
          if (cea) chosen = cea, src = "CompositeExplicitAutograd";
          else if (cia) chosen = cia, src = "CompositeImplicitAutograd";
          break;
        case Functionality::Autograd:
          if ((chosen = get(DispatchKey::Autograd))) src = "Autograd alias";
          else if (cia && !get(dense) && !cea) chosen = cia, src = "CompositeImplicitAutograd";
          break;
        case Functionality::Autocast:
          if ((chosen = get(DispatchKey::Autocast))) src = "Autocast alias";
          break;
      }
    }
    if (!chosen && (fallbacks[i].isValid() || fallbacks[i].isFallthrough()))
      chosen = &fallbacks[i], src = "backend fallback";
    table_[i] = chosen ? *chosen : KernelFunction();
    table_source_[i] = chosen ? src : "missing";
    if (chosen && chosen->isFallthrough()) {
      mask &= ~(uint64_t(1) << i);
      table_source_[i] += " (fallthrough)";
    }
  }
  table_[kNumRuntimeKeys] = KernelFunction();
  non_fallthrough_ = DispatchKeySet(mask);
}

void OperatorEntry::reportMissing(DispatchKeySet ks) const {
  DispatchKey k = ks.highestPriorityKey();
  std::string avail;
  for (int i = 0; i < kNumRuntimeKeys; ++i)
    if (table_[i].isValid() && !table_[i].isFallthrough() && toFunctionality((DispatchKey)i) == Functionality::Dense &&
        (DispatchKey)i != DispatchKey::Python)
      avail += std::string(avail.empty() ? "" : ", ") + toString((DispatchKey)i);
  TL_CHECK_NOT_IMPLEMENTED(false, "Could not run '", name_, "' with arguments from the '",
                           k == DispatchKey::Undefined ? "Undefined" : toString(k),
                           "' backend. '", name_, "' is only available for these backends: [", avail, "].");
  abort();
}

std::string OperatorEntry::dumpState() const {
  std::ostringstream ss;
  ss << "name: " << name_ << "\nschema: " << (schema_.empty() ? "(none)" : schema_) << "\n";
  for (auto& kv : kernels_) ss << toString(kv.first) << ": " << kv.second.debug() << "\n";
  return ss.str();
}

std::string OperatorEntry::dumpComputedTable() const {
  std::ostringstream ss;
  for (int i = 0; i < kNumRuntimeKeys; ++i) {
    ss << toString((DispatchKey)i) << ": ";
    if (!table_[i].isValid() && !table_[i].isFallthrough()) ss << "missing\n";
    else ss << table_[i].debug() << " [" << table_source_[i] << "]\n";
  }
  return ss.str();
}

// ---------------------------------------------------------------- Dispatcher

Dispatcher::Dispatcher() {}

Dispatcher& Dispatcher::singleton() {
  static Dispatcher* d = new Dispatcher();  // leaked on purpose: outlives every static user
  return *d;
}

OperatorEntry* Dispatcher::findOrCreate(const std::string& name) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = ops_.find(name);
  if (it != ops_.end()) return it->second;
  auto* e = new OperatorEntry(name);
  e->recompute(fallbacks_);
  ops_.emplace(name, e);
  return e;
}

OperatorEntry* Dispatcher::find(const std::string& name) const {
  std::lock_guard<std::mutex> g(mu_);
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : it->second;
}

OperatorEntry* Dispatcher::findSchemaOrThrow(const std::string& name) const {
  OperatorEntry* e = find(name);
  TL_CHECK(e && e->hasSchema(), "Could not find schema for ", name);
  return e;
}

void Dispatcher::registerSchema(const std::string& name, const std::string& schema, size_t nargs, size_t nret) {
  OperatorEntry* e = findOrCreate(name);
  std::lock_guard<std::mutex> g(mu_);
  e->setSchema(schema, nargs, nret);
}

void Dispatcher::registerKernel(const std::string& name, DispatchKey k, KernelFunction f) {
  TL_CHECK(isRuntimeKey(k) || isAliasKey(k), "cannot register a kernel for dispatch key ", toString(k));
  OperatorEntry* e = findOrCreate(name);
  std::lock_guard<std::mutex> g(mu_);
  e->addKernel(k, std::move(f));
  e->recompute(fallbacks_);
}

void Dispatcher::deregisterKernel(const std::string& name, DispatchKey k) {
  OperatorEntry* e = findOrCreate(name);
  std::lock_guard<std::mutex> g(mu_);
  e->removeKernel(k);
  e->recompute(fallbacks_);
}

void Dispatcher::registerFallback(DispatchKey k, KernelFunction f) {
  TL_CHECK(isRuntimeKey(k), "backend fallbacks must be registered on runtime keys, got ", toString(k));
  std::lock_guard<std::mutex> g(mu_);
  fallbacks_[(int)k] = std::move(f);
  for (auto& kv : ops_) kv.second->recompute(fallbacks_);
}

void Dispatcher::deregisterFallback(DispatchKey k) { registerFallback(k, KernelFunction()); }

static DispatchKeySet keySetOfStack(const Stack& s, size_t nargs) {
  DispatchKeySet ks;
  for (size_t i = s.size() - nargs; i < s.size(); ++i) {
    const IValue& v = s[i];
    if (v.tag == IValue::Tag::Tensor && v.tensor.defined()) ks = ks | v.tensor.key_set();
    else if (v.tag == IValue::Tag::TensorList || v.tag == IValue::Tag::OptionalTensorList) {
      for (auto& t : v.tensors)
        if (t.defined()) ks = ks | t.key_set();
    } else if (v.tag == IValue::Tag::Device) {
      ks = ks | DispatchKeySet(runtimeKey(Functionality::Dense, backendOf(v.device.type)));
    }
  }
  if (ks.empty()) ks = DispatchKeySet(DispatchKey::CPU);
  return ks;
}

void Dispatcher::callBoxed(const OperatorEntry& op, Stack* stack) const {
  size_t nargs = op.hasSchema() ? op.numArguments() : stack->size();
  TL_CHECK(stack->size() >= nargs, op.name(), ": expected ", nargs, " arguments, got ", stack->size());
  redispatchBoxed(op, applyTLS(keySetOfStack(*stack, nargs)), stack);
}

void Dispatcher::redispatchBoxed(const OperatorEntry& op, DispatchKeySet ks, Stack* stack) const {
  ks = ks & op.nonFallthroughKeys();
  DispatchKey k = ks.highestPriorityKey();
  const KernelFunction& fn = op.lookup(k == DispatchKey::Undefined ? DispatchKey::NumRuntimeKeys : k);
  if (!fn.isValid()) op.reportMissing(ks);
  fn.callBoxed(op, ks, stack);
}

std::vector<std::string> Dispatcher::allOperatorNames() const {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<std::string> v;
  for (auto& kv : ops_) v.push_back(kv.first);
  return v;
}

Generator& defaultGenerator(DeviceType t) {
  static Generator gens[kNumDeviceTypes];
  static std::once_flag once[kNumDeviceTypes];
  std::call_once(once[(int)t], [&] { gens[(int)t] = Generator::make(Device(t)); });
  return gens[(int)t];
}

}  // namespace c10
