#include "synth/WriteProgram.h"

#include <filesystem>
#include <set>

#include "pte/DataWriter.h"
#include "pte/Writer.h"

namespace ptescope::synth {

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
    const std::string target = (directory / name).string();
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
