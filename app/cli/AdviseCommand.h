// ptescope-cli advise: the placement advisor (core/advise), registration
// and wiring; --apply writes a candidate as `propagate` would.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>

namespace ptescope::cli {

class AdviseCommand {
 public:
  virtual ~AdviseCommand() = default;
  // The exit status when `advise` was given.
  virtual std::optional<int> runIfParsed() = 0;
};

std::unique_ptr<AdviseCommand> addAdviseCommand(CLI::App& app);

}  // namespace ptescope::cli
