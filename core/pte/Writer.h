// Writing the program model back to a .pte.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::pte {

struct WriteOptions {
  // Alignment of the segment base and of every segment (a power of two).
  uint64_t segment_alignment = 128;
  // The file the program was read from; writing over it needs
  // allow_overwrite_input.
  std::string input_path;
  bool allow_overwrite_input = false;
};

// The bytes of a .pte: flatbuffer with identifier ET12, an eh00 header when
// there is segment data, segments laid out at `segment_alignment` with
// identical non-empty segments stored once. No validation beyond what the
// layout needs, so tests can produce deliberately broken programs.
Result<std::vector<uint8_t>> serializeProgram(const program::Program& program, const WriteOptions& options = {});

// Validates the program, serializes it, writes it to a temporary file beside
// `path`, re-reads and verifies that file, and only then renames it into
// place. On failure nothing is left behind and `path` is untouched.
Status writeProgramFile(const program::Program& program, const std::string& path, const WriteOptions& options = {});

}  // namespace ptescope::pte
