// ptescope-cli predict and probe-link: registration and wiring.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>

#include "cost/LinkProfile.h"
#include "exec/DeviceRuntime.h"
#include "util/Result.h"

namespace ptescope::cli {

class PredictCommands {
 public:
  virtual ~PredictCommands() = default;
  // The exit status when `predict` or `probe-link` was given.
  virtual std::optional<int> runIfParsed() = 0;
};

std::unique_ptr<PredictCommands> addPredictCommands(CLI::App& app);

// What --link NAME|FILE means everywhere: empty is the default built-in.
Result<cost::LinkProfile> linkFromOption(const std::string& option);
// The "--link" help text, naming the built-ins and the default.
std::string linkOptionHelp();

}  // namespace ptescope::cli
