// The advisor's candidates re-ranked by what a measured profile of the same
// program says the copies cost (issue 37): for each candidate, the copies
// its edits remove and add (the method as loaded against the method after
// the edits, matched by copy identity, exec/CopyIdentity.h), each removed
// copy priced at its measured time per iteration when the profile has it and
// at its predicted time otherwise (marked), each added copy at its predicted
// time (no profile can have measured it), and the copies inside delegates
// (cost's delegate copies) at their predicted change. The profile must be of the program
// as loaded (any source: ptescope's own run, an ETDump, the runner).
#pragma once

#include <string>
#include <vector>

#include "advise/Advise.h"
#include "exec/Profiler.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::advise {

struct MeasuredCandidate {
  size_t rank = 0;            // 1-based, by measured saving
  size_t predicted_rank = 0;  // Candidate::rank
  CandidateEdits edits;
  double predicted_saving_us = 0;  // Candidate::predicted_saving_us
  // Removed copies at their measured time (predicted where not measured)
  // minus added copies at their predicted time; per iteration.
  double measured_saving_us = 0;
  size_t removed_measured = 0;   // removed copies priced from the profile
  size_t removed_predicted = 0;  // removed copies the profile does not cover
  size_t added = 0;              // copies the edits add (predicted)
  // The change of the copies inside delegates (TensorRT staging, CUDA graph
  // replay), which no profile times: predicted, included in the saving.
  double inside_delegates_saving_us = 0;
  bool fully_measured() const { return removed_predicted == 0 && added == 0 && inside_delegates_saving_us == 0; }
};

struct MeasuredMethodAdvice {
  std::string method;
  std::string profile_source;  // TransferProfile::runtime
  bool emulated = false;       // memcpy times of the host runtime, not a link's
  size_t iterations = 0;
  size_t profile_copies = 0;
  size_t matched_copies = 0;   // profile copies found in the program as loaded
  // What a predicted part of a saving is multiplied by to be on the
  // profile's scale: the median, over the copies the profile matched, of
  // measured / predicted time (a trace's host-clock nanoseconds beside a
  // PCIe prediction's microseconds made savings negative); 1 when the
  // profile matched no copy the prediction prices.
  double predicted_scale = 1.0;
  std::vector<MeasuredCandidate> candidates;  // by measured saving, descending
};

// `advice` for the method `profile` measured; errors: the method is not in
// the advice, a candidate's edits fail, a copy's link curve is missing.
Result<MeasuredMethodAdvice> rankByMeasurement(const program::Program& program, const Advice& advice,
                                               const exec::TransferProfile& profile, const AdviseOptions& options);

}  // namespace ptescope::advise
