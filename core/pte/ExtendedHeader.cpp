#include "pte/ExtendedHeader.h"

#include <cstring>
#include <string>

namespace ptescope::pte {

uint64_t readLe64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

uint32_t readLe32(const uint8_t* p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}

void appendLe32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void appendLe64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

Result<std::optional<ExtendedHeader>> parseExtendedHeader(std::span<const uint8_t> file) {
  if (file.size() < 12 || std::memcmp(file.data() + 8, "eh00", 4) != 0) return std::optional<ExtendedHeader>{};
  if (file.size() < 16) return makeError("extended header 'eh00' is cut off at byte " + std::to_string(file.size()));
  ExtendedHeader header;
  header.length = readLe32(file.data() + 12);
  if (header.length < kLegacyExtendedHeaderLength)
    return makeError("extended header length " + std::to_string(header.length) + " is below the minimum of 24");
  const uint64_t needed = 8 + uint64_t(header.length);
  if (file.size() < needed)
    return makeError("extended header needs " + std::to_string(needed) + " bytes but the file has " +
                     std::to_string(file.size()));
  header.program_size = readLe64(file.data() + 16);
  header.segment_base_offset = readLe64(file.data() + 24);
  if (header.length >= kExtendedHeaderLength) header.segment_data_size = readLe64(file.data() + 32);
  const uint64_t size = file.size();
  if (header.program_size < needed)
    return makeError("extended header program_size " + std::to_string(header.program_size) +
                     " is too small (the header alone needs " + std::to_string(needed) + " bytes)");
  if (header.program_size > size)
    return makeError("extended header program_size " + std::to_string(header.program_size) +
                     " is past the end of the file (" + std::to_string(size) + " bytes); it is truncated");
  if (header.segment_base_offset != 0) {
    if (header.segment_base_offset < header.program_size)
      return makeError("extended header segment_base_offset " + std::to_string(header.segment_base_offset) +
                       " lies inside the program (program_size " + std::to_string(header.program_size) + ")");
    if (header.segment_base_offset > size)
      return makeError("extended header segment_base_offset " + std::to_string(header.segment_base_offset) +
                       " is past the end of the file (" + std::to_string(size) + " bytes); it is truncated");
    if (header.segment_data_size > size - header.segment_base_offset)
      return makeError("extended header says " + std::to_string(header.segment_data_size) +
                       " bytes of segment data start at " + std::to_string(header.segment_base_offset) +
                       " but the file has only " + std::to_string(size) + " bytes; it is truncated");
  }
  return std::optional<ExtendedHeader>(header);
}

std::vector<uint8_t> encodeExtendedHeader(const ExtendedHeader& header, size_t paddedSize) {
  std::vector<uint8_t> out{'e', 'h', '0', '0'};
  appendLe32(out, kExtendedHeaderLength);
  appendLe64(out, header.program_size);
  appendLe64(out, header.segment_base_offset);
  appendLe64(out, header.segment_data_size);
  out.resize(std::max(paddedSize, out.size()), 0);
  return out;
}

Result<FlatTensorHeader> parseFlatTensorHeader(std::span<const uint8_t> file) {
  if (file.size() < 8 || std::memcmp(file.data() + 4, "FT01", 4) != 0)
    return makeError("not an ExecuTorch data file (no 'FT01' identifier at byte 4)");
  if (file.size() < 48 || std::memcmp(file.data() + 8, "FH01", 4) != 0)
    return makeError("data file header 'FH01' missing or cut off at byte 8");
  FlatTensorHeader h;
  h.length = readLe32(file.data() + 12);
  if (h.length < 40) return makeError("data file header length " + std::to_string(h.length) + " is below 40");
  h.flatbuffer_offset = readLe64(file.data() + 16);
  h.flatbuffer_size = readLe64(file.data() + 24);
  h.segment_base_offset = readLe64(file.data() + 32);
  h.segment_data_size = readLe64(file.data() + 40);
  const uint64_t size = file.size();
  if (h.flatbuffer_offset > size || h.flatbuffer_size > size - h.flatbuffer_offset)
    return makeError("data file header describes a flatbuffer past the end of the file");
  if (h.segment_base_offset > size || h.segment_data_size > size - h.segment_base_offset)
    return makeError("data file segments (base " + std::to_string(h.segment_base_offset) + ", " +
                     std::to_string(h.segment_data_size) + " bytes) run past the end of the file (" +
                     std::to_string(size) + " bytes)");
  return h;
}

}  // namespace ptescope::pte
