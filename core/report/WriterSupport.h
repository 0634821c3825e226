// What every report writer (profile, prediction, ETDump) needs besides the
// texts of program/Text.h: timing objects in JSON, CSV fields, and writing a
// finished text to a file in one piece.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "exec/Profiler.h"
#include "util/Result.h"

namespace ptescope::report {

// {"min_us", "median_us", "max_us"} of `stats`.
nlohmann::json timingJson(const exec::TimingStats& stats);

// The fields that say which copy a JSON row is about (exec/CopyIdentity.h),
// for a measured copy (exec::CopyProfile) and a predicted one
// (cost::CopyPrediction) alike.
template <class Copy>
nlohmann::json copyIdentityJson(const Copy& c) {
  return {{"instruction", c.instruction},        {"direction", program::copyDirectionName(c.direction)},
          {"source", c.source_value},            {"canonical_source", c.canonical_source},
          {"destination", c.destination_value},  {"device", c.device.str()},
          {"bytes", c.bytes}};
}

// A CSV field, quoted when it holds a comma, quote or line break.
std::string csvField(const std::string& text);

// `value` through the one JSON writer (report/Json.h), with a final newline.
std::string jsonFileText(const nlohmann::json& value, int indent);

// Writes `text` to `path` atomically; the error names the path.
Status writeTextFile(const std::string& path, const std::string& text);

}  // namespace ptescope::report
