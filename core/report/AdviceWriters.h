// The placement advisor's answer (advise/Advise.h) as `ptescope-cli advise`
// prints it: per method, the ranked candidates in propagate's words, their
// copies before/after, bytes and predicted saving per call, device memory
// and caller contract; with --explain the obvious edits that were rejected
// and why. Times are microseconds.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "advise/Advise.h"
#include "advise/MeasuredAdvice.h"

namespace ptescope::report {

inline constexpr int kAdviceFormatVersion = 1;

std::string adviceText(const advise::Advice& advice);
nlohmann::json adviceJson(const advise::Advice& advice);
// One candidate's edits as JSON: the five options, target_devices (the moved
// delegates) and propagate's flags.
nlohmann::json candidateEditsJson(const advise::CandidateEdits& edits);

// The candidates ranked by measured saving (advise --profile / --etdump):
// measured and predicted saving side by side, what part of each measured
// figure is a prediction. `profileName` names the profile file.
std::string measuredAdviceText(const advise::MeasuredMethodAdvice& advice, const std::string& profileName,
                               bool nameMethod = false);
nlohmann::json measuredAdviceJson(const advise::MeasuredMethodAdvice& advice, const std::string& profileName);

}  // namespace ptescope::report
