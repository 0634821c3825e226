// Reading .pte programs and .ptd data files into the program model.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "program/Program.h"
#include "pte/ExtendedHeader.h"
#include "util/Bytes.h"
#include "util/Result.h"

namespace ptescope::pte {

struct FileInfo {
  std::string path;
  uint64_t file_size = 0;
  std::optional<ExtendedHeader> header;
  uint64_t program_size = 0;  // bytes of the flatbuffer region
};

struct ReadOptions {
  // .ptd files to resolve EXTERNAL tensors from. When empty and the program
  // has external tensors, a .ptd beside the program is looked for.
  std::vector<std::string> ptd_paths;
  bool find_ptd_beside = true;
  // Data files already in memory (a synthesized program's aoti_cuda_blob.ptd),
  // attached before any file is looked for; none is looked for beside.
  std::vector<program::ExternalData> external_data;
};

struct LoadedProgram {
  program::Program program;
  FileInfo file;
  std::vector<std::string> warnings;  // problems that do not stop loading
  // Strings of the file that were not valid UTF-8 (shown escaped; see
  // program::Program::raw_strings); warnings then says so too.
  size_t escaped_strings = 0;
};

// The warning for `count` escaped strings.
std::string escapedStringsWarning(size_t count);

// Maps and reads a .pte. Every error message starts with the path.
Result<LoadedProgram> readProgramFile(const std::string& path, const ReadOptions& options = {});
// Reads a .pte already in memory; `name` is used in messages.
Result<LoadedProgram> readProgramBytes(Bytes bytes, const std::string& name, const ReadOptions& options = {});

// Reads a .ptd (FT01 with its FH01 header).
Result<program::ExternalData> readDataFile(const std::string& path);
Result<program::ExternalData> readDataBytes(Bytes bytes, const std::string& name);

// The .ptd files beside `programPath` that may hold its external data:
// <stem>.ptd, then _default_external_constant.ptd, then aoti_cuda_blob.ptd
// (where upstream's AOTI CUDA backend puts delegate weights); only existing ones.
std::vector<std::string> candidateDataFiles(const std::string& programPath);

}  // namespace ptescope::pte
