#include "Library.h"

#include <mutex>

namespace c10 {

std::string Library::qualify(const std::string& name) const {
  if (name.find("::") != std::string::npos) return name;
  return ns_ + "::" + name;
}

void Library::checkRuntimeSignature(const std::string& name, const std::string& signature) const {
  OperatorEntry* e = Dispatcher::singleton().find(qualify(name));
  const FunctionSchema* schema = e ? e->schemaOrNull() : nullptr;
  if (!schema) return;  // defined later: the boxed conversions check each call
  std::string expected = schema->cppSignature();
  TL_CHECK(expected == signature, "Library::impl(", qualify(name), "): the kernel's signature ", signature,
           " does not match the schema ", schema->str(), ", whose kernels have the signature ", expected);
}

Library& Library::def(const std::string& schema) {
  FunctionSchema parsed = FunctionSchema::parse(schema);
  if (parsed.ns().empty()) parsed = parsed.withNamespace(ns_);
  handles_.push_back(Dispatcher::singleton().addSchema(parsed.str()));
  return *this;
}

Library& Library::impl(const std::string& name, DispatchKey key, KernelFunction k) {
  TL_CHECK(key != DispatchKey::Undefined, "Library::impl(", name, "): no dispatch key given");
  handles_.push_back(Dispatcher::singleton().addKernel(qualify(name), key, std::move(k)));
  return *this;
}

Library& Library::fallback(KernelFunction k) {
  TL_CHECK(key_ != DispatchKey::Undefined, "Library::fallback: the library has no dispatch key");
  handles_.push_back(Dispatcher::singleton().addFallback(key_, std::move(k)));
  return *this;
}

namespace {
std::mutex g_registration_errors_mu;
std::vector<std::string>& registration_errors() {
  static auto* v = new std::vector<std::string>();
  return *v;
}
}  // namespace

void detail::recordRegistrationError(const char* ns, const std::string& what) {
  std::lock_guard<std::mutex> g(g_registration_errors_mu);
  registration_errors().push_back(std::string("registering library '") + ns + "': " + what);
}

std::vector<std::string> takeRegistrationErrors() {
  std::lock_guard<std::mutex> g(g_registration_errors_mu);
  std::vector<std::string> out;
  out.swap(registration_errors());
  return out;
}

}  // namespace c10
