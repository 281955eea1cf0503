#include "Library.h"

namespace c10 {

std::string Library::qualify(const std::string& name) const {
  if (name.find("::") != std::string::npos) return name;
  return ns_ + "::" + name;
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

}  // namespace c10
