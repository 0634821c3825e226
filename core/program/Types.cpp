#include "program/Types.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace ptescope::program {
namespace {

struct ScalarTypeInfo {
  int code;
  const char* schemaName;  // nullptr for runtime-only codes
  const char* shortName;
  int size;
};

constexpr std::array<ScalarTypeInfo, 30> kScalarTypes{{
    {0, "BYTE", "uint8", 1},
    {1, "CHAR", "int8", 1},
    {2, "SHORT", "int16", 2},
    {3, "INT", "int32", 4},
    {4, "LONG", "int64", 8},
    {5, "HALF", "float16", 2},
    {6, "FLOAT", "float32", 4},
    {7, "DOUBLE", "float64", 8},
    {8, nullptr, "complex32", 4},
    {9, nullptr, "complex64", 8},
    {10, nullptr, "complex128", 16},
    {11, "BOOL", "bool", 1},
    {12, "QINT8", "qint8", 1},
    {13, "QUINT8", "quint8", 1},
    {14, "QINT32", "qint32", 4},
    {15, "BFLOAT16", "bfloat16", 2},
    {16, "QUINT4X2", "quint4x2", 1},
    {17, "QUINT2X4", "quint2x4", 1},
    {18, nullptr, "bits1x8", 1},
    {19, nullptr, "bits2x4", 1},
    {20, nullptr, "bits4x2", 1},
    {21, nullptr, "bits8", 1},
    {22, "BITS16", "bits16", 2},
    {23, "FLOAT8E5M2", "float8_e5m2", 1},
    {24, "FLOAT8E4M3FN", "float8_e4m3fn", 1},
    {25, "FLOAT8E5M2FNUZ", "float8_e5m2fnuz", 1},
    {26, "FLOAT8E4M3FNUZ", "float8_e4m3fnuz", 1},
    {27, "UINT16", "uint16", 2},
    {28, "UINT32", "uint32", 4},
    {29, "UINT64", "uint64", 8},
}};

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool isPySpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view strip(std::string_view s) {
  while (!s.empty() && isPySpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isPySpace(s.back())) s.remove_suffix(1);
  return s;
}

// Python int() on a str in base 10: optional whitespace, optional sign,
// digits with single underscores between them.
std::optional<long long> pythonInt(std::string_view text) {
  std::string_view s = strip(text);
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front())) ||
      !std::isdigit(static_cast<unsigned char>(s.back())))
    return std::nullopt;
  long long value = 0;
  char previous = 0;
  for (char c : s) {
    if (c == '_') {
      if (previous == '_') return std::nullopt;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      value = value * 10 + (c - '0');
      if (value > (1LL << 40)) return std::nullopt;  // far past any device index
    } else {
      return std::nullopt;
    }
    previous = c;
  }
  return negative ? -value : value;
}

}  // namespace

bool isValidScalarType(int code) { return code >= 0 && code <= 29; }

int elementSize(ScalarType type) {
  int code = static_cast<int>(type);
  return isValidScalarType(code) ? kScalarTypes[static_cast<size_t>(code)].size : 0;
}

std::string scalarTypeName(ScalarType type) {
  int code = static_cast<int>(type);
  if (isValidScalarType(code) && kScalarTypes[static_cast<size_t>(code)].schemaName != nullptr)
    return kScalarTypes[static_cast<size_t>(code)].schemaName;
  return std::to_string(code);
}

std::string scalarTypeShortName(ScalarType type) {
  int code = static_cast<int>(type);
  if (isValidScalarType(code)) return kScalarTypes[static_cast<size_t>(code)].shortName;
  return "invalid(" + std::to_string(code) + ")";
}

std::optional<ScalarType> parseScalarType(std::string_view name) {
  std::string wanted = lower(name);
  for (const auto& info : kScalarTypes) {
    if (wanted == info.shortName || (info.schemaName != nullptr && wanted == lower(info.schemaName)))
      return static_cast<ScalarType>(info.code);
  }
  // Common aliases.
  if (wanted == "float") return ScalarType::Float;
  if (wanted == "half") return ScalarType::Half;
  if (wanted == "double") return ScalarType::Double;
  if (wanted == "long") return ScalarType::Long;
  if (wanted == "int") return ScalarType::Int;
  return std::nullopt;
}

std::string shapeDynamismName(ShapeDynamism d) {
  switch (d) {
    case ShapeDynamism::Static: return "static";
    case ShapeDynamism::DynamicBound: return "dynamic_bound";
    case ShapeDynamism::DynamicUnbound: return "dynamic_unbound";
  }
  return "dynamism(" + std::to_string(static_cast<int>(d)) + ")";
}

std::string deviceTypeName(DeviceType type) {
  switch (type) {
    case DeviceType::Cpu: return "cpu";
    case DeviceType::Cuda: return "cuda";
  }
  return "device" + std::to_string(static_cast<int>(type));
}

std::string Device::str() const { return deviceTypeName(type) + ":" + std::to_string(index); }

Result<Device> parseDeviceSpec(std::string_view text) {
  std::string value = lower(strip(text));
  std::string typePart = value;
  long long index = 0;
  if (auto colon = value.find(':'); colon != std::string::npos) {
    typePart = value.substr(0, colon);
    std::string indexPart = value.substr(colon + 1);
    auto parsed = pythonInt(indexPart);
    if (!parsed)
      return makeError("'" + indexPart + "' is not a device index (target_device '" + std::string(text) +
                       "'; expected a device such as 'cuda:0'; upstream's int() refuses it too)");
    index = *parsed;
  }
  Device device;
  if (typePart == "cpu") {
    device.type = DeviceType::Cpu;
  } else if (typePart == "cuda") {
    device.type = DeviceType::Cuda;
  } else {
    return makeError("Unknown device type '" + typePart + "'. Valid types: CPU, CUDA");
  }
  if (index < -128 || index > 127)
    return makeError("device index " + std::to_string(index) + " in target_device '" + std::string(text) +
                     "' does not fit the program format (a signed byte, -128..127)");
  device.index = static_cast<int8_t>(index);
  return device;
}

}  // namespace ptescope::program
