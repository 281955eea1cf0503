#include "aten/Autocast.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "autograd/AutogradMeta.h"
#include "c10/Exception.h"
#include "ops/to.h"

namespace at::autocast {
namespace {

constexpr int kNumDeviceTypes = c10::kNumBackends;

// One low-precision copy per (leaf weight, target dtype). The entry holds the
// source strongly, so its TensorImpl address cannot be freed and handed to a
// new tensor (which would then find this stale copy) before the region ends.
struct CachedCast {
  c10::TensorBase source;
  c10::TensorBase cast;
};
using CacheKey = std::pair<const c10::TensorImpl*, c10::ScalarType>;
struct CacheKeyHash {
  size_t operator()(const CacheKey& k) const {
    return std::hash<const void*>()(k.first) * 31 + static_cast<size_t>(k.second);
  }
};

struct ThreadState {
  c10::ScalarType dtype[kNumDeviceTypes];
  bool cache_enabled = true;
  int64_t nesting = 0;
  std::unordered_map<CacheKey, CachedCast, CacheKeyHash> cache;
  ThreadState() {
    std::fill(std::begin(dtype), std::end(dtype), c10::ScalarType::Half);
    dtype[static_cast<int>(c10::DeviceType::CPU)] = c10::ScalarType::BFloat16;
  }
};

ThreadState& state() {
  thread_local ThreadState s;
  return s;
}

int slot(c10::DeviceType t) {
  int i = static_cast<int>(t);
  TL_CHECK_VALUE(i >= 0 && i < kNumDeviceTypes, "autocast: unknown device type ", i);
  return i;
}

// Leaf weights only: an activation is new each step, so caching it would only hold memory.
bool cacheable(const c10::TensorBase& t, c10::ScalarType to) {
  // Only copies that record history are reused: one made under no_grad has no
  // grad_fn and would cut the weight out of a later differentiable use.
  return state().cache_enabled && t.scalar_type() == c10::ScalarType::Float && to != c10::ScalarType::Float &&
         torchlike::autograd::is_grad_enabled() && torchlike::autograd::requires_grad(t) &&
         torchlike::autograd::is_leaf(t);
}

struct PolicyTable {
  std::mutex mu;
  std::map<std::string, std::string> by_device[kNumDeviceTypes];
};
PolicyTable& policies() {
  static PolicyTable* p = new PolicyTable();  // immortal: read at any time, even at exit
  return *p;
}

}  // namespace

EligibleAlias& tls_eligible_alias() {
  thread_local EligibleAlias alias;
  return alias;
}

bool is_enabled(c10::DeviceType t) {
  slot(t);
  return c10::tlsLocalDispatchKeySet().included.has(key_of(t));
}

void set_enabled(c10::DeviceType t, bool on) {
  slot(t);
  auto& tls = c10::tlsLocalDispatchKeySet();
  tls.included = on ? tls.included.add(key_of(t)) : tls.included.remove(key_of(t));
}

c10::ScalarType get_dtype(c10::DeviceType t) { return state().dtype[slot(t)]; }
void set_dtype(c10::DeviceType t, c10::ScalarType st) { state().dtype[slot(t)] = st; }

bool is_cache_enabled() { return state().cache_enabled; }
void set_cache_enabled(bool on) { state().cache_enabled = on; }

int64_t increment_nesting() { return ++state().nesting; }
int64_t decrement_nesting() { return --state().nesting; }
void clear_cache() { state().cache.clear(); }
size_t cache_size() { return state().cache.size(); }

c10::TensorBase cast(c10::ScalarType to, const c10::TensorBase& t, c10::DeviceType dev) {
  if (!is_eligible(t, dev) || t.scalar_type() == to) return t;
  if (!cacheable(t, to)) return at::_ops::to(t, to, false, false, std::nullopt);
  auto& cache = state().cache;
  CacheKey key{t.unsafeGetTensorImpl(), to};
  auto it = cache.find(key);
  if (it != cache.end()) return it->second.cast;
  c10::TensorBase copy = at::_ops::to(t, to, false, false, std::nullopt);
  cache.emplace(key, CachedCast{t, copy});
  return copy;
}

std::optional<c10::TensorBase> cast(c10::ScalarType to, const std::optional<c10::TensorBase>& t, c10::DeviceType dev) {
  if (!t) return t;
  return cast(to, *t, dev);
}

std::vector<c10::TensorBase> cast(c10::ScalarType to, c10::ArrayRef<c10::TensorBase> ts, c10::DeviceType dev) {
  std::vector<c10::TensorBase> out;
  out.reserve(ts.size());
  for (const c10::TensorBase& t : ts) out.push_back(cast(to, t, dev));
  return out;
}

void raise_banned(const char* op, c10::DeviceType dev) {
  (void)dev;
  // PyTorch's text, word for word: users search for it.
  TL_CHECK(false, "torch.nn.functional.", op, " and torch.nn.BCELoss are unsafe to autocast.\n"
           "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
           "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
           "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
           "safe to autocast.");
  std::abort();  // unreachable: TL_CHECK(false) throws
}

void record_policy(const char* op, c10::DeviceType dev, const char* policy) {
  auto& p = policies();
  std::lock_guard<std::mutex> g(p.mu);
  p.by_device[slot(dev)][op] = policy;
}

std::string policy_of(const std::string& op, c10::DeviceType dev) {
  auto& p = policies();
  std::lock_guard<std::mutex> g(p.mu);
  const auto& m = p.by_device[slot(dev)];
  auto it = m.find(op);
  return it == m.end() ? std::string() : it->second;
}

std::vector<std::string> ops_with_policy(c10::DeviceType dev) {
  auto& p = policies();
  std::lock_guard<std::mutex> g(p.mu);
  std::vector<std::string> out;
  for (const auto& kv : p.by_device[slot(dev)]) out.push_back(kv.first);
  return out;
}

}  // namespace at::autocast
