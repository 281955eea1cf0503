#include "Dispatcher.h"
#include "ProfilerHooks.h"

#include <sstream>
#include <utility>

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

// The slot of every missing kernel: an invalid KernelFunction, so a call
// tests isValid() instead of a null pointer.
static const KernelFunction* missingKernel() {
  static const KernelFunction* k = new KernelFunction();
  return k;
}

// Replaced tables, schemas and deregistered kernels: kept, never freed (see
// the note in Dispatcher.h). Only touched under the dispatcher's mutex.
static std::vector<const void*>& retired() {
  static auto* v = new std::vector<const void*>();
  return *v;
}

OperatorEntry::OperatorEntry(std::string name) : name_(std::move(name)) {
  auto* t = new DispatchTable();
  for (auto& k : t->kernels) k = missingKernel();
  t->non_fallthrough = DispatchKeySet::fullSet();
  table_.store(t, std::memory_order_release);
  for (auto& s : table_source_) s = "missing";
}

std::string OperatorEntry::schema() const {
  const FunctionSchema* s = schemaOrNull();
  return s ? s->str() : std::string();
}
size_t OperatorEntry::numArguments() const {
  const FunctionSchema* s = schemaOrNull();
  return s ? s->arguments().size() : 0;
}
size_t OperatorEntry::numReturns() const {
  const FunctionSchema* s = schemaOrNull();
  return s ? s->returns().size() : 0;
}

// The C++ signature every typed kernel and handle of this operator must have:
// the schema's when there is one, else that of the first typed kernel or
// handle (so two kernels of a schemaless operator cannot disagree either).
std::string OperatorEntry::expectedSignature(std::string* from) const {
  if (const FunctionSchema* s = schemaOrNull()) {
    *from = "schema '" + s->str() + "'";
    return s->cppSignature();
  }
  for (const auto& r : kernels_) {
    std::string sig = r.kernel->cppSignature();
    if (!sig.empty()) {
      *from = "kernel " + r.kernel->debug() + " registered earlier (no schema yet)";
      return sig;
    }
  }
  if (!typed_signatures_.empty()) {
    *from = "a typed handle made earlier (no schema yet)";
    return typed_signatures_.front();
  }
  return "";
}

void OperatorEntry::checkSignature(const std::string& actual, const std::string& what) const {
  if (actual.empty()) return;  // boxed kernels take any operator
  std::string from;
  std::string expected = expectedSignature(&from);
  TL_CHECK(expected.empty() || expected == actual, "registration error for operator ", name_, ": ", what,
           " has C++ signature ", actual, ", but the ", from, " requires ", expected);
}

// For each runtime key, precedence: a kernel registered on the key itself;
// then the alias keys that expand onto it (aliasExpansion), in the order
// Autograd, Autocast, CompositeExplicitAutograd, CompositeImplicitAutograd,
// where CompositeImplicitAutograd serves an autograd key only when the
// backend has no kernel of its own (the composite's parts carry autograd);
// finally the key's backend fallback. A key added to the layout gets this
// rule without any change here.
void OperatorEntry::recompute(const std::vector<std::vector<std::pair<uint64_t, const KernelFunction*>>>& fallbacks) {
  auto get = [&](DispatchKey k) -> const KernelFunction* {
    for (auto it = kernels_.rbegin(); it != kernels_.rend(); ++it)
      if (it->key == k) return it->kernel;
    return nullptr;
  };
  const KernelFunction* cea = get(DispatchKey::CompositeExplicitAutograd);
  auto* t = new DispatchTable();
  uint64_t mask = DispatchKeySet::fullSet().raw();
  for (int i = 0; i < kNumRuntimeKeys; ++i) {
    DispatchKey k = (DispatchKey)i;
    const KernelFunction* chosen = get(k);
    std::string src = chosen ? "kernel" : "";
    for (DispatchKey alias : {DispatchKey::Autograd, DispatchKey::Autocast, DispatchKey::CompositeExplicitAutograd,
                              DispatchKey::CompositeImplicitAutograd}) {
      if (chosen || !aliasExpansion(alias).has(k)) continue;
      const KernelFunction* f = get(alias);
      if (!f) continue;
      if (alias == DispatchKey::CompositeImplicitAutograd && toFunctionality(k) == Functionality::Autograd &&
          (get(runtimeKey(Functionality::Dense, toBackend(k))) || cea))
        continue;
      chosen = f;
      src = alias == DispatchKey::Autograd || alias == DispatchKey::Autocast ? std::string(toString(alias)) + " alias"
                                                                              : toString(alias);
    }
    if (!chosen && !fallbacks[i].empty()) chosen = fallbacks[i].back().second, src = "backend fallback";
    t->kernels[i] = chosen ? chosen : missingKernel();
    table_source_[i] = chosen ? src : "missing";
    if (chosen && chosen->isFallthrough()) {
      mask &= ~(uint64_t(1) << i);
      table_source_[i] += " (fallthrough)";
    }
  }
  t->kernels[kNumRuntimeKeys] = missingKernel();
  t->non_fallthrough = DispatchKeySet(mask);
  retired().push_back(table_.load(std::memory_order_relaxed));
  table_.store(t, std::memory_order_release);
}

void OperatorEntry::reportMissing(DispatchKeySet ks) const {
  DispatchKey k = ks.highestPriorityKey();
  const DispatchTable& t = table();
  std::string avail;
  for (int i = 0; i < kNumPerBackendKeys; ++i)
    if (t.kernels[i]->isValid() && !t.kernels[i]->isFallthrough() &&
        toFunctionality((DispatchKey)i) == Functionality::Dense)
      avail += std::string(avail.empty() ? "" : ", ") + toString((DispatchKey)i);
  // PyTorch's wording, so code matching on it (and users searching for it) behaves the same.
  TL_CHECK_NOT_IMPLEMENTED(false, "Could not run '", name_, "' with arguments from the '",
                           k == DispatchKey::Undefined ? "Undefined" : toString(k),
                           "' backend. This could be because the operator doesn't exist for this backend, or was "
                           "omitted during the selective/custom build process (if using custom build). '",
                           name_, "' is only available for these backends: [", avail, "].");
  abort();
}

std::string OperatorEntry::dumpState() const {
  std::lock_guard<std::mutex> g(Dispatcher::singleton().registrationMutex());
  std::ostringstream ss;
  const FunctionSchema* s = schemaOrNull();
  ss << "name: " << name_ << "\nschema: " << (s ? s->str() : "(none)") << "\n";
  for (auto& r : kernels_) ss << toString(r.key) << ": " << r.kernel->debug() << "\n";
  return ss.str();
}

std::string OperatorEntry::dumpComputedTable() const {
  std::lock_guard<std::mutex> g(Dispatcher::singleton().registrationMutex());
  const DispatchTable& t = table();
  std::ostringstream ss;
  for (int i = 0; i < kNumRuntimeKeys; ++i) {
    ss << toString((DispatchKey)i) << ": ";
    const KernelFunction& k = *t.kernels[i];
    if (!k.isValid() && !k.isFallthrough()) ss << "missing\n";
    else ss << k.debug() << " [" << table_source_[i] << "]\n";
  }
  return ss.str();
}

// ---------------------------------------------------------------- Dispatcher

Dispatcher::Dispatcher() : fallbacks_(kNumRuntimeKeys) {}

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

void Dispatcher::addTypedSignature(OperatorEntry* e, const std::string& sig) {
  std::lock_guard<std::mutex> g(mu_);
  for (const auto& s : e->typed_signatures_)
    if (s == sig) return;
  e->checkSignature(sig, "typed handle");
  e->typed_signatures_.push_back(sig);
}

RegistrationHandle Dispatcher::addSchema(const std::string& schema_text) {
  FunctionSchema parsed = FunctionSchema::parse(schema_text);
  std::string name = parsed.qualifiedName();
  TL_CHECK_VALUE(!parsed.ns().empty(), "schema '", schema_text, "' has no namespace (expected ns::name(...))");
  OperatorEntry* e = findOrCreate(name);
  std::lock_guard<std::mutex> g(mu_);
  const FunctionSchema* old = e->schemaOrNull();
  if (old) {
    TL_CHECK(old->str() == parsed.str(), "operator ", name, " already has schema '", old->str(),
             "'; refusing to redefine it as '", parsed.str(), "'");
  } else {
    // Kernels and typed handles may have come first: check them now.
    std::string want = parsed.cppSignature();
    for (const auto& r : e->kernels_) {
      std::string sig = r.kernel->cppSignature();
      TL_CHECK(sig.empty() || sig == want, "registration error for operator ", name, ": kernel ", r.kernel->debug(),
               " (", toString(r.key), ") has C++ signature ", sig, ", but the schema '", parsed.str(),
               "' requires ", want);
    }
    for (const auto& sig : e->typed_signatures_)
      TL_CHECK(sig == want, "registration error for operator ", name, ": a typed handle has C++ signature ", sig,
               ", but the schema '", parsed.str(), "' requires ", want);
    e->schema_.store(new FunctionSchema(std::move(parsed)), std::memory_order_release);
  }
  uint64_t id = next_id_++;
  e->schema_registrations_.push_back(id);
  return RegistrationHandle([this, e, id] { removeSchema(e, id); });
}

void Dispatcher::removeSchema(OperatorEntry* e, uint64_t id) {
  std::lock_guard<std::mutex> g(mu_);
  auto& v = e->schema_registrations_;
  for (auto it = v.begin(); it != v.end(); ++it)
    if (*it == id) {
      v.erase(it);
      break;
    }
  if (v.empty() && e->schemaOrNull()) {
    retired().push_back(e->schemaOrNull());
    e->schema_.store(nullptr, std::memory_order_release);
  }
}

RegistrationHandle Dispatcher::addKernel(const std::string& name, DispatchKey k, KernelFunction f) {
  TL_CHECK(isRuntimeKey(k) || isAliasKey(k), "cannot register a kernel for dispatch key ", toString(k));
  OperatorEntry* e = findOrCreate(name);
  std::lock_guard<std::mutex> g(mu_);
  e->checkSignature(f.cppSignature(), "kernel " + f.debug() + " (" + toString(k) + ")");
  uint64_t id = next_id_++;
  e->kernels_.push_back({id, k, new KernelFunction(std::move(f))});
  e->recompute(fallbacks_);
  return RegistrationHandle([this, e, id] { removeKernel(e, id); });
}

void Dispatcher::removeKernel(OperatorEntry* e, uint64_t id) {
  std::lock_guard<std::mutex> g(mu_);
  auto& v = e->kernels_;
  for (auto it = v.begin(); it != v.end(); ++it)
    if (it->id == id) {
      retired().push_back(it->kernel);
      v.erase(it);
      e->recompute(fallbacks_);
      return;
    }
}

RegistrationHandle Dispatcher::addFallback(DispatchKey k, KernelFunction f) {
  TL_CHECK(isRuntimeKey(k), "backend fallbacks must be registered on runtime keys, got ", toString(k));
  std::lock_guard<std::mutex> g(mu_);
  uint64_t id = next_id_++;
  fallbacks_[(int)k].emplace_back(id, new KernelFunction(std::move(f)));
  for (auto& kv : ops_) kv.second->recompute(fallbacks_);
  return RegistrationHandle([this, k, id] { removeFallback(k, id); });
}

void Dispatcher::removeFallback(DispatchKey k, uint64_t id) {
  std::lock_guard<std::mutex> g(mu_);
  auto& v = fallbacks_[(int)k];
  for (auto it = v.begin(); it != v.end(); ++it)
    if (it->first == id) {
      retired().push_back(it->second);
      v.erase(it);
      for (auto& kv : ops_) kv.second->recompute(fallbacks_);
      return;
    }
}

void Dispatcher::registerSchema(const std::string& name, const std::string& schema, size_t nargs, size_t nret) {
  RegistrationHandle h = addSchema(schema);
  OperatorEntry* e = find(name);
  TL_CHECK(e && e->hasSchema() && e->numArguments() == nargs && e->numReturns() == nret, "registerSchema(", name,
           ", '", schema, "', ", nargs, ", ", nret, "): the schema names another operator or has ",
           e && e->hasSchema() ? e->numArguments() : 0, " arguments and ", e && e->hasSchema() ? e->numReturns() : 0,
           " returns");
  h.release();
}

void Dispatcher::registerKernel(const std::string& name, DispatchKey k, KernelFunction f) {
  addKernel(name, k, std::move(f)).release();
}

void Dispatcher::deregisterKernel(const std::string& name, DispatchKey k) {
  OperatorEntry* e = findOrCreate(name);
  std::lock_guard<std::mutex> g(mu_);
  auto& v = e->kernels_;
  for (auto it = v.begin(); it != v.end();) {
    if (it->key == k) {
      retired().push_back(it->kernel);
      it = v.erase(it);
    } else {
      ++it;
    }
  }
  e->recompute(fallbacks_);
}

void Dispatcher::registerFallback(DispatchKey k, KernelFunction f) { addFallback(k, std::move(f)).release(); }

void Dispatcher::deregisterFallback(DispatchKey k) {
  TL_CHECK(isRuntimeKey(k), "backend fallbacks are registered on runtime keys, got ", toString(k));
  std::lock_guard<std::mutex> g(mu_);
  for (auto& kv : fallbacks_[(int)k]) retired().push_back(kv.second);
  fallbacks_[(int)k].clear();
  for (auto& kv : ops_) kv.second->recompute(fallbacks_);
}

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
  DispatchKeySet ks = applyTLS(keySetOfStack(*stack, nargs));
  if (TL_UNLIKELY(profiler::enabled())) {
    profiler::RangeGuard range(op, ks);
    if (range.recordsInputs()) {
      for (size_t i = stack->size() - nargs; i < stack->size(); ++i) {
        const IValue& v = (*stack)[i];
        if (v.tag == IValue::Tag::Tensor) range.addInput(v.tensor);
        else if (v.tag == IValue::Tag::TensorList || v.tag == IValue::Tag::OptionalTensorList)
          range.addInput(ArrayRef<TensorBase>(v.tensors));
        else range.addNonTensorInput();
      }
    }
    redispatchBoxed(op, ks, stack);
    return;
  }
  redispatchBoxed(op, ks, stack);
}

void Dispatcher::redispatchBoxed(const OperatorEntry& op, DispatchKeySet ks, Stack* stack) const {
  const DispatchTable& t = op.table();
  ks = ks & t.non_fallthrough;
  DispatchKey k = ks.highestPriorityKey();
  const KernelFunction& fn = *t.kernels[k == DispatchKey::Undefined ? kNumRuntimeKeys : (int)k];
  if (!fn.isValid()) op.reportMissing(ks);
  fn.callBoxed(op, ks, stack);
}

std::vector<std::string> Dispatcher::allOperatorNames() const {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<std::string> v;
  for (auto& kv : ops_) v.push_back(kv.first);
  return v;
}


}  // namespace c10
