// The "eh00" extended header of a .pte and the "FH01" header of a .ptd.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "util/Result.h"

namespace ptescope::pte {

inline constexpr uint32_t kExtendedHeaderLength = 32;       // current writers
inline constexpr uint32_t kLegacyExtendedHeaderLength = 24;  // before 2025-09
inline constexpr uint64_t kDefaultSegmentAlignment = 128;
// The runtime's loaders read a program's first 64 bytes before anything
// else: a shorter file never loads. The reader refuses one and the writer
// pads its output to at least this size.
inline constexpr size_t kMinimumProgramFileSize = 64;

struct ExtendedHeader {
  uint32_t length = kExtendedHeaderLength;  // counts magic and length, not padding
  uint64_t program_size = 0;
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;  // only meaningful when length >= 32
  bool isLegacy() const { return length < kExtendedHeaderLength; }
};

// Looks for "eh00" at byte 8. Returns nullopt when the magic is absent (the
// whole file is then the flatbuffer), an error when the magic is there but
// the header is malformed or points past the end of the file.
Result<std::optional<ExtendedHeader>> parseExtendedHeader(std::span<const uint8_t> file);

// The header bytes for a program: magic, length 32, the three sizes, zero
// padding up to `paddedSize`.
std::vector<uint8_t> encodeExtendedHeader(const ExtendedHeader& header, size_t paddedSize);

struct FlatTensorHeader {
  uint32_t length = 40;
  uint64_t flatbuffer_offset = 0;  // the padded header size
  uint64_t flatbuffer_size = 0;    // size of the flatbuffer before the header was inserted
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;
};

Result<FlatTensorHeader> parseFlatTensorHeader(std::span<const uint8_t> file);

uint64_t readLe64(const uint8_t* p);
uint32_t readLe32(const uint8_t* p);
void appendLe32(std::vector<uint8_t>& out, uint32_t v);
void appendLe64(std::vector<uint8_t>& out, uint64_t v);

constexpr uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return alignment == 0 ? value : (value + alignment - 1) / alignment * alignment;
}

}  // namespace ptescope::pte
