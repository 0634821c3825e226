// ptescope-cli report: registration and wiring (the writer is
// core/report/HtmlReport.h).
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>

namespace ptescope::cli {

class ReportCommand {
 public:
  virtual ~ReportCommand() = default;
  // The exit status when `report` was given.
  virtual std::optional<int> runIfParsed() = 0;
};

std::unique_ptr<ReportCommand> addReportCommand(CLI::App& app);

}  // namespace ptescope::cli
