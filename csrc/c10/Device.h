// Where a tensor's memory lives. The PrivateUse1 type is what out-of-tree
// backends register under; its Python name can be renamed at runtime.
//
// A Device is a type plus an index; index -1 means "the current device of
// that type" (see DeviceGuard.h). As in PyTorch, only accelerator types carry
// an index on a tensor: CPU and Meta tensors report an index-less device,
// while CUDA and PrivateUse1 tensors always name theirs (tensorDevice()).
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include "Exception.h"

namespace c10 {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1, Meta = 2, PrivateUse1 = 3, NumDeviceTypes = 4 };
constexpr int kNumDeviceTypes = 4;
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kMeta = DeviceType::Meta;
constexpr DeviceType kPrivateUse1 = DeviceType::PrivateUse1;

const std::string& deviceTypeName(DeviceType t);  // "cpu", "cuda", "meta", "privateuseone" (or renamed)
void renamePrivateUse1Backend(const std::string& name);
DeviceType parseDeviceType(const std::string& s);  // throws on unknown

// A device's ordinal within its type; -1 means the current one.
using DeviceIndex = int8_t;
constexpr DeviceIndex kMaxDeviceIndex = 127;

// Whether tensors of this type live on one of several numbered devices
// (CUDA, PrivateUse1) and so always carry an index.
constexpr bool isIndexedDeviceType(DeviceType t) { return t == DeviceType::CUDA || t == DeviceType::PrivateUse1; }

struct Device {
  DeviceType type = DeviceType::CPU;
  DeviceIndex index = -1;  // -1: "current" device of that type
  Device() = default;
  Device(DeviceType t, DeviceIndex i = -1) : type(t), index(i) {}
  // "cpu", "cuda", "cuda:1", "meta": PyTorch's grammar, type[:index] with a
  // decimal index without sign or leading zeros. Raises on anything else.
  explicit Device(const std::string& spec);
  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool is_meta() const { return type == DeviceType::Meta; }
  bool is_privateuseone() const { return type == DeviceType::PrivateUse1; }
  bool has_index() const { return index >= 0; }
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;
};

inline std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

enum class Layout : int8_t { Strided = 0 };
enum class MemoryFormat : int8_t { Contiguous = 0, Preserve = 1 };

}  // namespace c10
