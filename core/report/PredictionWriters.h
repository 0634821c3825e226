// Predicted copy costs (cost/CopyCost.h) as the CLI prints them: the
// per-copy table and totals of `predict`, its JSON, and the one line that
// `propagate` and `diff` add about what an edit saves or adds per run.
// Times are microseconds, bandwidth 10^9 bytes per second, shares fractions.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cost/CopyCost.h"
#include "cost/LinkProfile.h"
#include "exec/Profiler.h"

namespace ptescope::report {

inline constexpr int kPredictionFormatVersion = 1;

struct PredictionContext {
  std::string program_name;                  // for the heading
  std::optional<double> compute_seconds;     // per iteration, when the user gave one
  const exec::TransferProfile* measured = nullptr;  // a profile of the same method, to lay beside
  std::string measured_name;
};

std::string predictionText(const cost::MethodPrediction& prediction, const cost::LinkProfile& link,
                           const PredictionContext& context = {});
nlohmann::json predictionJson(const cost::MethodPrediction& prediction, const cost::LinkProfile& link,
                              const PredictionContext& context = {});

// "predicted copy time per run on PCIe Gen4 x16 (built-in, typical figures), pageable host memory:
//  12.34 us -> 8.10 us (saves 4.24 us, -34.4%)"; `what` names the two sides ("method 'forward'").
std::string predictionDeltaText(const std::string& what, double beforeSeconds, double afterSeconds,
                                const cost::LinkProfile& link, exec::HostMemoryKind hostMemory);
nlohmann::json predictionDeltaJson(double beforeSeconds, double afterSeconds, const cost::LinkProfile& link,
                                   exec::HostMemoryKind hostMemory);

}  // namespace ptescope::report
