#include "synth/WriteProgram.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "pte/DataWriter.h"
#include "pte/Writer.h"

namespace ptescope::synth {

namespace {

// True when the file at `path` holds exactly `bytes`.
bool holds(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  const std::vector<uint8_t> have{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return have == bytes;
}

}  // namespace

Result<std::vector<std::string>> writeProgramAndData(const program::Program& program, const std::string& path) {
  namespace fs = std::filesystem;
  std::vector<std::string> written;
  std::set<std::string> names;
  auto undo = [&] {
    std::error_code ec;
    for (const auto& p : written) fs::remove(p, ec);
  };
  const fs::path directory = fs::path(path).parent_path();
  for (const auto& data : program.external_data) {
    const std::string name = fs::path(data.path).filename().string();
    if (name.empty() || !names.insert(name).second) {
      undo();
      return makeError(path + ": the program's data files need distinct file names ('" + data.path + "')");
    }
    std::string target = (directory / name).string();
    // Another program's data file of that name (every CudaBackend export
    // writes aoti_cuda_blob.ptd) stays as it is: this program's goes under
    // its own name, which the reader looks for first.
    std::error_code ec;
    if (fs::exists(target, ec)) {
      auto bytes = pte::serializeDataFile(data);
      if (!bytes) {
        undo();
        return bytes.error();
      }
      if (!holds(target, bytes.value())) target = fs::path(path).replace_extension(".ptd").string();
    }
    if (auto status = pte::writeDataFile(data, target); !status) {
      undo();
      return status.error();
    }
    written.push_back(target);
  }
  if (auto status = pte::writeProgramFile(program, path); !status) {
    undo();
    return status.error();
  }
  written.push_back(path);
  return written;
}

}  // namespace ptescope::synth
