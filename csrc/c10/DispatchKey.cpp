#include "DispatchKey.h"

namespace c10 {

static const char* kRuntimeNames[] = {
    "CPU", "CUDA", "Meta", "PrivateUse1",
    "AutogradCPU", "AutogradCUDA", "AutogradMeta", "AutogradPrivateUse1",
    "AutocastCPU", "AutocastCUDA", "AutocastMeta", "AutocastPrivateUse1",
    "Python"};

const char* toString(DispatchKey k) {
  if (isRuntimeKey(k)) return kRuntimeNames[(int)k];
  switch (k) {
    case DispatchKey::Autograd: return "Autograd";
    case DispatchKey::Autocast: return "Autocast";
    case DispatchKey::CompositeImplicitAutograd: return "CompositeImplicitAutograd";
    case DispatchKey::CompositeExplicitAutograd: return "CompositeExplicitAutograd";
    default: return "Undefined";
  }
}

DispatchKey parseDispatchKey(const std::string& s) {
  for (int i = 0; i < kNumRuntimeKeys; ++i)
    if (s == kRuntimeNames[i]) return (DispatchKey)i;
  for (DispatchKey k : {DispatchKey::Autograd, DispatchKey::Autocast, DispatchKey::CompositeImplicitAutograd,
                        DispatchKey::CompositeExplicitAutograd})
    if (s == toString(k)) return k;
  TL_CHECK_VALUE(false, "unknown dispatch key '", s, "'");
  return DispatchKey::Undefined;
}

std::string DispatchKeySet::str() const {
  std::string s = "DispatchKeySet(";
  bool first = true;
  for (int i = kNumRuntimeKeys - 1; i >= 0; --i) {
    if (!has((DispatchKey)i)) continue;
    if (!first) s += ", ";
    s += kRuntimeNames[i];
    first = false;
  }
  return s + ")";
}

LocalDispatchKeySet& tlsLocalDispatchKeySet() {
  static thread_local LocalDispatchKeySet tls;
  return tls;
}

}  // namespace c10
