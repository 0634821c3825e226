// ptescope-cli run: execute a method once, write its outputs as .npy.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>

namespace ptescope::cli {

class RunCommand {
 public:
  virtual ~RunCommand() = default;
  // The exit status when `run` was given.
  virtual std::optional<int> runIfParsed() = 0;
};

std::unique_ptr<RunCommand> addRunCommand(CLI::App& app);

}  // namespace ptescope::cli
