#include "Device.h"

#include <cstdlib>
#include <mutex>

namespace c10 {

static std::string g_names[kNumDeviceTypes] = {"cpu", "cuda", "meta", "privateuseone"};

const std::string& deviceTypeName(DeviceType t) { return g_names[(int)t]; }

void renamePrivateUse1Backend(const std::string& name) {
  TL_CHECK_VALUE(!name.empty() && name != "cpu" && name != "cuda" && name != "meta",
                 "rename_privateuse1_backend: invalid name '", name, "'");
  g_names[(int)DeviceType::PrivateUse1] = name;
}

DeviceType parseDeviceType(const std::string& s) {
  for (int i = 0; i < kNumDeviceTypes; ++i)
    if (g_names[i] == s) return (DeviceType)i;
  if (s == "privateuseone") return DeviceType::PrivateUse1;
  TL_CHECK_KIND(ErrorKind::Runtime, false,
                "Expected one of cpu, cuda, meta, ", g_names[3], " device type at start of device string: ", s);
  return DeviceType::CPU;
}

Device::Device(const std::string& spec) {
  auto colon = spec.find(':');
  std::string type_name = spec.substr(0, colon);
  // PyTorch's grammar for the type: [a-zA-Z_]+ (we also allow digits after
  // the first character, for renamed PrivateUse1 backends). Anything else
  // (" cuda", "cuda-1") is a malformed string rather than an unknown type.
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  bool name_ok = !type_name.empty() && alpha(type_name[0]);
  for (char c : type_name) name_ok = name_ok && (alpha(c) || (c >= '0' && c <= '9'));
  TL_CHECK(name_ok, "Invalid device string: '", spec, "'");
  type = parseDeviceType(type_name);
  index = -1;
  if (colon != std::string::npos) {
    // PyTorch's grammar: digits only, no sign, no leading zero ("cuda:01").
    std::string idx = spec.substr(colon + 1);
    bool ok = !idx.empty() && idx.size() <= 3 && !(idx.size() > 1 && idx[0] == '0');
    for (char c : idx) ok = ok && c >= '0' && c <= '9';
    TL_CHECK(ok, "Invalid device string: '", spec, "'");
    int v = std::atoi(idx.c_str());
    // PyTorch wraps larger values around int8; we refuse them instead.
    TL_CHECK(v <= kMaxDeviceIndex, "Invalid device string: '", spec, "' (device index must be at most ",
             (int)kMaxDeviceIndex, ")");
    index = (DeviceIndex)v;
  }
}

std::string Device::str() const {
  std::string s = deviceTypeName(type);
  if (index >= 0) s += ":" + std::to_string(index);
  return s;
}

}  // namespace c10
