// The edit flags that `propagate` and `render` share: pass options and
// delegate target devices, turned into the pipeline's options. The same
// words as the GUI's Pass options panel.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "passes/Pipeline.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::cli {

class EditFlags {
 public:
  // Adds --skip-h2d-inputs, --skip-d2h-outputs, --no-device-planning,
  // --no-alloc-graph-input, --no-alloc-graph-output and --set-device.
  void addTo(CLI::App* command);
  // Whether any of them was given.
  bool any() const;
  enum class Base {
    Defaults,  // the flags give the whole options, upstream's defaults where none is given (propagate)
    FromFile,  // each method starts from the options read off the file; the flags change them (render, as the app)
  };
  // The pipeline's options for `program`. With `method` the flags apply to
  // that method only and the others keep the options read off the file;
  // without, they apply to every method. `file` names the program in errors.
  Result<passes::PipelineOptions> pipelineOptions(const program::Program& program, const std::string& file,
                                                  const std::string& method, Base base = Base::Defaults) const;

 private:
  bool skipH2d_ = false, skipD2h_ = false, noDevicePlanning_ = false, noAllocInput_ = false, noAllocOutput_ = false;
  std::vector<std::string> setDevices_;
};

}  // namespace ptescope::cli
