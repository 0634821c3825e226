// ptescope-cli render: registration and wiring.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>

namespace ptescope::cli {

class RenderCommand {
 public:
  virtual ~RenderCommand() = default;
  // The exit status when `render` was given.
  virtual std::optional<int> runIfParsed() = 0;
};

std::unique_ptr<RenderCommand> addRenderCommand(CLI::App& app);

}  // namespace ptescope::cli
