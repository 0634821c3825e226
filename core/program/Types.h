// Enumerations of the ExecuTorch program format, with the facts about them
// that every layer needs (element sizes, printable names, device parsing).
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "util/Result.h"

namespace ptescope::program {

// Codes as in scalar_type.fbs plus the runtime-only ones (8-10, 18-21).
enum class ScalarType : int8_t {
  Byte = 0, Char = 1, Short = 2, Int = 3, Long = 4, Half = 5, Float = 6, Double = 7,
  ComplexHalf = 8, ComplexFloat = 9, ComplexDouble = 10, Bool = 11, QInt8 = 12,
  QUInt8 = 13, QInt32 = 14, BFloat16 = 15, QUInt4x2 = 16, QUInt2x4 = 17, Bits1x8 = 18,
  Bits2x4 = 19, Bits4x2 = 20, Bits8 = 21, Bits16 = 22, Float8e5m2 = 23, Float8e4m3fn = 24,
  Float8e5m2fnuz = 25, Float8e4m3fnuz = 26, UInt16 = 27, UInt32 = 28, UInt64 = 29,
};

// Valid as the runtime's isValid(): 0..29.
bool isValidScalarType(int code);
// Bytes per element; 0 for an invalid code.
int elementSize(ScalarType type);
// Schema name ("FLOAT"), or the number for runtime-only codes.
std::string scalarTypeName(ScalarType type);
// Friendly name used by ptescope's JSON specs and tables ("float32").
std::string scalarTypeShortName(ScalarType type);
// Accepts both forms above (case-insensitive).
std::optional<ScalarType> parseScalarType(std::string_view name);

enum class ShapeDynamism : int8_t { Static = 0, DynamicBound = 1, DynamicUnbound = 2 };
std::string shapeDynamismName(ShapeDynamism d);

// TensorDataLocation in the schema.
enum class TensorDataLocation : int8_t { Segment = 0, External = 1 };
// DataLocation in the schema: where a delegate's processed blob is.
enum class DelegateDataLocation : int8_t { Inline = 0, Segment = 1 };

enum class DeviceType : int8_t { Cpu = 0, Cuda = 1 };

struct Device {
  DeviceType type = DeviceType::Cpu;
  int8_t index = 0;

  bool isCpu() const { return type == DeviceType::Cpu; }
  // "cpu:0", "cuda:1"; an unknown type code prints as "device<code>:<index>".
  std::string str() const;
  friend auto operator<=>(const Device&, const Device&) = default;
};

std::string deviceTypeName(DeviceType type);  // "cpu", "cuda"

// Parses a target_device value exactly as ExecuTorch's PropagateDevicePass
// does: UTF-8, surrounding whitespace stripped, lower-cased, split at the
// first ':', type compared to the DeviceType names, index through Python's
// int() rules (sign, underscores between digits, surrounding whitespace).
// The index must also fit the schema's signed byte.
Result<Device> parseDeviceSpec(std::string_view text);

}  // namespace ptescope::program
