#include "DispatchKey.h"

#include "Exception.h"

namespace c10 {

// Names in enumerator order, generated from the same lists as the enum.
#define TL_DK_NAME_ONE(prefix, b) #prefix #b,
#define TL_DK_NAME_FUNC(f, prefix) TL_FORALL_BACKENDS(TL_DK_NAME_ONE, prefix)
#define TL_DK_NAME(k) #k,
static const char* const kRuntimeNames[] = {TL_FORALL_PER_BACKEND_FUNCTIONALITIES(TL_DK_NAME_FUNC)
                                                TL_FORALL_SINGLE_KEYS(TL_DK_NAME)};
static const char* const kAliasNames[] = {TL_FORALL_ALIAS_KEYS(TL_DK_NAME)};
#define TL_DK_BACKEND_NAME(extra, b) #b,
static const char* const kBackendNames[] = {TL_FORALL_BACKENDS(TL_DK_BACKEND_NAME, )};
#define TL_DK_FUNCTIONALITY_NAME(f, prefix) #f,
static const char* const kFunctionalityNames[] = {TL_FORALL_PER_BACKEND_FUNCTIONALITIES(TL_DK_FUNCTIONALITY_NAME)};
#undef TL_DK_NAME_ONE
#undef TL_DK_NAME_FUNC
#undef TL_DK_NAME
#undef TL_DK_BACKEND_NAME
#undef TL_DK_FUNCTIONALITY_NAME

static_assert(sizeof(kRuntimeNames) / sizeof(kRuntimeNames[0]) == (size_t)kNumRuntimeKeys, "one name per runtime key");
static_assert(sizeof(kAliasNames) / sizeof(kAliasNames[0]) == (size_t)kNumAliasKeys, "one name per alias key");

const char* toString(DispatchKey k) {
  if (isRuntimeKey(k)) return kRuntimeNames[(int)k];
  if (isAliasKey(k)) return kAliasNames[(int)k - kFirstAliasKey];
  return "Undefined";
}

const char* toString(BackendComponent b) {
  return (int)b < kNumBackends ? kBackendNames[(int)b] : "UndefinedBackend";
}

const char* toString(Functionality f) {
  return (int)f < kNumPerBackendFunctionalities ? kFunctionalityNames[(int)f] : "UndefinedFunctionality";
}

DispatchKey parseDispatchKey(const std::string& s) {
  for (int i = 0; i < kNumRuntimeKeys; ++i)
    if (s == kRuntimeNames[i]) return (DispatchKey)i;
  for (int i = 0; i < kNumAliasKeys; ++i)
    if (s == kAliasNames[i]) return (DispatchKey)(kFirstAliasKey + i);
  TL_CHECK_VALUE(false, "unknown dispatch key '", s, "'");
  return DispatchKey::Undefined;
}

DispatchKeySet aliasExpansion(DispatchKey alias) {
  switch (alias) {
    case DispatchKey::Autograd: return DispatchKeySet::functionality(Functionality::Autograd);
    case DispatchKey::Autocast: return DispatchKeySet::functionality(Functionality::Autocast);
    case DispatchKey::CompositeExplicitAutograd: return DispatchKeySet::functionality(Functionality::Dense);
    case DispatchKey::CompositeImplicitAutograd:
      return DispatchKeySet::functionality(Functionality::Dense) | DispatchKeySet::functionality(Functionality::Autograd);
    default:
      TL_CHECK_VALUE(false, toString(alias), " is not an alias key with a known expansion");
      return DispatchKeySet();
  }
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
