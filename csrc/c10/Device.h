// Where a tensor's memory lives. The PrivateUse1 type is what out-of-tree
// backends register under; its Python name can be renamed at runtime.
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

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;  // -1: "current" device of that type
  Device() = default;
  Device(DeviceType t, int8_t i = -1) : type(t), index(i) {}
  explicit Device(const std::string& spec);  // "cpu", "cuda:1", "meta"
  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool is_meta() const { return type == DeviceType::Meta; }
  bool has_index() const { return index >= 0; }
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;
};

inline std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

enum class Layout : int8_t { Strided = 0 };
enum class MemoryFormat : int8_t { Contiguous = 0, Preserve = 1 };

}  // namespace c10
