// The pipeline's report as readable text and as JSON (for `propagate --json`
// and the GUI's File > Export Pass Report as JSON).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/Diagnostics.h"
#include "passes/Pipeline.h"
#include "passes/ProgramDiff.h"

namespace ptescope::report {

nlohmann::json passReportJson(const passes::PassReport& report);
std::string passReportText(const passes::PassReport& report);
nlohmann::json deviceOptionsJson(const passes::DeviceOptions& options);
nlohmann::json copyRecordJson(const passes::CopyRecord& copy);

nlohmann::json programDiffJson(const passes::ProgramDiff& diff);
std::string programDiffText(const passes::ProgramDiff& diff);

nlohmann::json diagnosticsJson(const std::vector<analysis::Diagnostic>& diagnostics);
std::string diagnosticsText(const std::vector<analysis::Diagnostic>& diagnostics);

}  // namespace ptescope::report
