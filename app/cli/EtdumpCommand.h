// ptescope-cli etdump: registration and wiring.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>

namespace ptescope::cli {

class EtdumpCommand {
 public:
  virtual ~EtdumpCommand() = default;
  // The exit status when `etdump` was given.
  virtual std::optional<int> runIfParsed() = 0;
};

std::unique_ptr<EtdumpCommand> addEtdumpCommand(CLI::App& app);

}  // namespace ptescope::cli
