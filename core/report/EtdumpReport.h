// An ETDump read against its program (etdump::EtdumpAnalysis) as the CLI's
// text, JSON, CSV (one row per instruction) and a Chrome trace-event file.
//
// Times are microseconds, bandwidth 10^9 bytes per second, shares fractions.
// The JSON holds, per method, the same object `profile --json` writes
// (profileJson: copies, instructions, totals, run) plus what only an ETDump
// has (shares, load time, delegate-internal events). The trace has one
// process per method and one track per device lane: "h2d copies", "d2h
// copies", "CPU kernels", "delegates on <device>", and "method"
// (Method::execute, Program::load_method); the kernel inside an
// OPERATOR_CALL and the events a delegate logs nest under their instruction.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "etdump/EtdumpProfile.h"
#include "exec/ProfileAnalysis.h"
#include "util/Result.h"

namespace ptescope::report {

inline constexpr int kEtdumpReportVersion = 1;

struct EtdumpSource {
  std::string program_name;  // file names, for the reports
  std::string etdump_name;
};

// What a trace does not say and was assumed, one line each, for `etdump`'s
// header and the HTML report's notes: "ticks: 1 tick = 1 ns (the file does
// not say; the POSIX runtime ticks in ns)", "methods: <attribution rule>",
// and the warning of events that did not fit, when there is one.
std::vector<std::string> etdumpAssumptions(const etdump::EtdumpAnalysis& analysis);

// `rules`: what the profile rules judge copies against (a link's peak).
std::string etdumpText(const etdump::EtdumpAnalysis& analysis, const program::Program& program, const EtdumpSource& source,
                       const exec::ProfileRuleOptions& rules = {});
nlohmann::json etdumpJson(const etdump::EtdumpAnalysis& analysis, const program::Program& program, const EtdumpSource& source,
                          const exec::ProfileRuleOptions& rules = {});
std::string etdumpCsv(const etdump::EtdumpAnalysis& analysis);
// With the program, the trace also has the flow arrows of profileTraceJson;
// counter tracks (bytes in flight, GB/s per direction) always.
nlohmann::json etdumpTraceJson(const etdump::EtdumpAnalysis& analysis, const EtdumpSource& source,
                               const program::Program* program = nullptr);

// Atomic writes; errors name the path.
Status writeEtdumpJson(const etdump::EtdumpAnalysis& analysis, const program::Program& program,
                       const EtdumpSource& source, const std::string& path, const exec::ProfileRuleOptions& rules = {});
Status writeEtdumpCsv(const etdump::EtdumpAnalysis& analysis, const std::string& path);
Status writeEtdumpTrace(const etdump::EtdumpAnalysis& analysis, const EtdumpSource& source, const std::string& path,
                        const program::Program* program = nullptr);

}  // namespace ptescope::report
