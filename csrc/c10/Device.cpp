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
  type = parseDeviceType(spec.substr(0, colon));
  index = -1;
  if (colon != std::string::npos) {
    std::string idx = spec.substr(colon + 1);
    bool ok = !idx.empty() && idx.size() < 4;
    for (char c : idx) ok = ok && c >= '0' && c <= '9';
    TL_CHECK(ok, "Invalid device string: '", spec, "'");
    int v = std::atoi(idx.c_str());
    TL_CHECK(v < 128, "Invalid device string: '", spec, "'");
    index = (int8_t)v;
  }
  TL_CHECK(!(type == DeviceType::CPU && index > 0), "CPU device index must be -1 or zero, got ", (int)index);
}

std::string Device::str() const {
  std::string s = deviceTypeName(type);
  if (index >= 0) s += ":" + std::to_string(index);
  return s;
}

}  // namespace c10
