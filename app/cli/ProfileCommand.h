// ptescope-cli profile: registration and wiring.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>

namespace ptescope::cli {

class ProfileCommand {
 public:
  virtual ~ProfileCommand() = default;
  // The exit status when `profile` was given.
  virtual std::optional<int> runIfParsed() = 0;
};

std::unique_ptr<ProfileCommand> addProfileCommand(CLI::App& app);

}  // namespace ptescope::cli
