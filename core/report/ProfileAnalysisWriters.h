// The analyses of a profile (exec/ProfileAnalysis.h) as the CLI's text, as
// JSON (the "analyses" object of every profile JSON, also per method in
// `etdump --json`) and as CSV (one row per direction and size class).
// Times are microseconds, bandwidth 10^9 bytes per second, shares fractions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cost/LinkProfile.h"
#include "exec/ProfileAnalysis.h"

namespace ptescope::report {

std::string transferSummaryText(const exec::TransferSummary& summary);
nlohmann::json transferSummaryJson(const exec::TransferSummary& summary);
// The CSV header, then one row per summary row; `method` fills the first column.
std::string transferSummaryCsvHeader();
std::string transferSummaryCsvRows(const exec::TransferSummary& summary, const std::string& method);

std::string timeBreakdownText(const exec::TimeBreakdown& breakdown);
nlohmann::json timeBreakdownJson(const exec::TimeBreakdown& breakdown);

// The findings as profileCheckText lists them ("  none" when empty).
std::string findingsText(const std::vector<exec::ProfileFinding>& findings);
nlohmann::json findingsJson(const std::vector<exec::ProfileFinding>& findings);
std::string profileCheckText(const exec::ProfileCheck& check);
nlohmann::json profileCheckJson(const exec::ProfileCheck& check);

// Rule options that judge copies against `link` (its pinned curves' rate at
// their largest size, per direction): for sources without a peak of their
// own (an ETDump, the runner).
exec::ProfileRuleOptions ruleOptionsForLink(const cost::LinkProfile& link);

// All of it for one profile: the source's facts, the summary, the breakdown
// and the findings.
std::string profileAnalysesText(const exec::TransferProfile& profile, const exec::ProfileRuleOptions& options = {});
nlohmann::json profileAnalysesJson(const exec::TransferProfile& profile, const exec::ProfileRuleOptions& options = {});

}  // namespace ptescope::report
