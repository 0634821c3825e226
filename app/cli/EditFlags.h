// The edit flags that `propagate` and `render` share, turned into the one
// edit model of core/passes/ProgramEdits. Every option flag is tri-state
// (`--skip-h2d-inputs` / `--no-skip-h2d-inputs`, ...): not given means "as
// the file has it". `--defaults` starts every method from upstream's
// defaults instead of the file's options.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "passes/ProgramEdits.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::cli {

class EditFlags {
 public:
  void addTo(CLI::App* command);
  // Whether any edit flag (or --defaults) was given.
  bool any() const;
  // The edits for `program`. With `method` the option flags and a
  // --set-device without METHOD: apply to that method only; the others keep
  // the options read off the file. `file` names the program in errors.
  Result<passes::ProgramEdits> edits(const program::Program& program, const std::string& file,
                                     const std::string& method) const;
  // edits() turned into the pipeline's options.
  Result<passes::PipelineOptions> pipelineOptions(const program::Program& program, const std::string& file,
                                                  const std::string& method) const;

 private:
  struct TriState {
    CLI::Option* on = nullptr;
    CLI::Option* off = nullptr;
    std::optional<bool> value() const;
  };
  void addTriState(CLI::App* command, TriState& flag, const std::string& on, const std::string& off,
                   const std::string& field, bool onMeansTrue);
  passes::OptionChanges changes() const;

  TriState devicePlanning_, skipH2d_, skipD2h_, allocInput_, allocOutput_;
  bool defaults_ = false;
  std::vector<std::string> setDevices_;
};

}  // namespace ptescope::cli
