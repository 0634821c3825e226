// The transfer profile as text (the CLI's table), JSON, CSV (one row per
// copy) and a Chrome trace-event file that Perfetto and chrome://tracing
// open: copies on one track per direction, kernels on another, instructions
// that did not run on a fourth.
//
// All three machine formats carry the same numbers; times are microseconds,
// bandwidth is 10^9 bytes per second, shares are fractions (0.25 = 25%).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/CopyIdentity.h"
#include "exec/Profiler.h"
#include "util/Result.h"

namespace ptescope::report {

// Version 2 spells directions "h2d" / "d2h" / "d2d" (version 1 wrote "H2D" /
// "D2H"); both are read, so profiles kept from earlier runs still compare.
inline constexpr int kProfileFormatVersion = 2;
inline constexpr int kOldestProfileFormatVersion = 1;

std::string profileText(const exec::TransferProfile& profile);
nlohmann::json profileJson(const exec::TransferProfile& profile);
std::string profileCsv(const exec::TransferProfile& profile);
// With the method the profile ran (its def/use facts), the trace also has
// flow arrows: the instruction that produces a copy's source → the copy →
// each instruction that reads the copy's destination. Counter tracks per
// direction (bytes in flight, GB/s) are always there.
nlohmann::json profileTraceJson(const exec::TransferProfile& profile, const program::Method* method = nullptr);

// The trace's thread ids, one per track.
int traceThreadId(exec::TimelineSlice::Track track);

// Write the formats to files (atomically); errors name the path.
// With `previous`, the JSON also holds "comparison" (profileComparisonJson).
Status writeProfileJson(const exec::TransferProfile& profile, const std::string& path,
                        const exec::TransferProfile* previous = nullptr);
Status writeProfileCsv(const exec::TransferProfile& profile, const std::string& path);
Status writeProfileTrace(const exec::TransferProfile& profile, const std::string& path,
                         const program::Method* method = nullptr);

// Reads back a profile written by writeProfileJson (or `profile --json`):
// the run's description, per-copy numbers, samples and totals, the link peak
// and the per-instruction list (not the timeline). Errors name the file and what is wrong in it.
Result<exec::TransferProfile> readProfileJson(const std::string& path);

// Copy identity (identifyCopies, pairCopies): exec/CopyIdentity.h.

// Relative change of the total copy time (both directions) from `previous`
// to `latest`: 0.25 is 25% slower; 0 when previous spent no time copying.
double copyTimeChange(const exec::TransferProfile& latest, const exec::TransferProfile& previous);

// The comparison as a table (median per copy now and before, Δ, Δ%, new and
// removed copies, totals per direction) and as JSON (times in µs).
std::string profileComparisonText(const exec::TransferProfile& latest, const exec::TransferProfile& previous,
                                  const std::string& previousName);
nlohmann::json profileComparisonJson(const exec::TransferProfile& latest, const exec::TransferProfile& previous);

}  // namespace ptescope::report
