// ptescope-cli propagate / diff / lint: registration and wiring.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>

namespace ptescope::cli {

class PassCommands {
 public:
  virtual ~PassCommands() = default;
  // The exit status when one of these subcommands was given.
  virtual std::optional<int> runIfParsed() = 0;
};

std::unique_ptr<PassCommands> addPassCommands(CLI::App& app);

}  // namespace ptescope::cli
