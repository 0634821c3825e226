// The transfer profile as text (the CLI's table), JSON, CSV (one row per
// copy) and a Chrome trace-event file that Perfetto and chrome://tracing
// open: copies on one track per direction, kernels on another, instructions
// that did not run on a fourth.
//
// All three machine formats carry the same numbers; times are microseconds,
// bandwidth is 10^9 bytes per second, shares are fractions (0.25 = 25%).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "exec/Profiler.h"
#include "util/Result.h"

namespace ptescope::report {

inline constexpr int kProfileFormatVersion = 1;

std::string profileText(const exec::TransferProfile& profile);
nlohmann::json profileJson(const exec::TransferProfile& profile);
std::string profileCsv(const exec::TransferProfile& profile);
nlohmann::json profileTraceJson(const exec::TransferProfile& profile);

// The trace's thread ids, one per track.
int traceThreadId(exec::TimelineSlice::Track track);

// Write the formats to files (atomically); errors name the path.
Status writeProfileJson(const exec::TransferProfile& profile, const std::string& path);
Status writeProfileCsv(const exec::TransferProfile& profile, const std::string& path);
Status writeProfileTrace(const exec::TransferProfile& profile, const std::string& path);

}  // namespace ptescope::report
