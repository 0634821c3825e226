#include "advise/MeasuredAdvice.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "cost/CopyCost.h"
#include "exec/CopyIdentity.h"
#include "passes/ProgramEdits.h"

namespace ptescope::advise {

namespace {

// One copy's time per iteration in a profile.
double perIteration(const exec::CopyProfile& c) {
  return c.seconds.median * double(std::max<size_t>(c.executions_per_iteration, 1));
}

}  // namespace

Result<MeasuredMethodAdvice> rankByMeasurement(const program::Program& program, const Advice& advice,
                                               const exec::TransferProfile& profile, const AdviseOptions& options) {
  const auto method = std::find_if(advice.methods.begin(), advice.methods.end(),
                                   [&](const MethodAdvice& m) { return m.name == profile.method; });
  if (method == advice.methods.end())
    return makeError("the profile is of method '" + profile.method + "', which the advice does not cover");
  auto before = cost::predictProgram(program, profile.method, options.link, options.host_memory, options.run_settings);
  if (!before) return before.error();
  const exec::TransferProfile predictedBefore = cost::asTransferProfile(before.value());

  MeasuredMethodAdvice out;
  out.method = profile.method;
  out.profile_source = profile.runtime;
  out.emulated = profile.emulated;
  out.iterations = profile.iterations;
  out.profile_copies = profile.copies.size();
  // The measured time of each copy of the method as loaded, by identity.
  std::vector<const exec::CopyProfile*> measuredOf(predictedBefore.copies.size(), nullptr);
  std::vector<double> ratios;
  for (const auto& [predicted, measured] : exec::pairCopies(predictedBefore, profile)) {
    if (predicted == nullptr || measured == nullptr) continue;
    measuredOf[size_t(predicted - predictedBefore.copies.data())] = measured;
    ++out.matched_copies;
    if (perIteration(*predicted) > 0 && perIteration(*measured) > 0)
      ratios.push_back(perIteration(*measured) / perIteration(*predicted));
  }
  // Predicted parts on the profile's scale (see predicted_scale).
  if (!ratios.empty()) out.predicted_scale = exec::TimingStats::of(std::move(ratios)).median;
  const double scale = out.predicted_scale;

  for (const Candidate& candidate : method->candidates) {
    auto edits = programEdits(program, candidate.edits);
    if (!edits) return edits.error();
    auto edited = passes::runEdits(program, edits.value());
    if (!edited) return edited.error();
    auto after = cost::predictProgram(edited->program, profile.method, options.link, options.host_memory, options.run_settings);
    if (!after) return after.error();
    const exec::TransferProfile predictedAfter = cost::asTransferProfile(after.value());

    MeasuredCandidate m;
    m.predicted_rank = candidate.rank;
    m.edits = candidate.edits;
    m.predicted_saving_us = candidate.predicted_saving_us;
    double saving = 0;
    for (const auto& [now, was] : exec::pairCopies(predictedAfter, predictedBefore)) {
      if (now != nullptr && was != nullptr) continue;
      if (now != nullptr) {  // added by the edits
        saving -= perIteration(*now) * scale;
        ++m.added;
        continue;
      }
      const exec::CopyProfile* measured = measuredOf[size_t(was - predictedBefore.copies.data())];
      if (measured != nullptr) {
        saving += perIteration(*measured);
        ++m.removed_measured;
      } else {
        saving += perIteration(*was) * scale;
        ++m.removed_predicted;
      }
    }
    const double inside = (before->inside_delegates.seconds - after->inside_delegates.seconds) * scale;
    m.inside_delegates_saving_us = inside * 1e6;
    saving += inside;
    m.measured_saving_us = saving * 1e6;
    out.candidates.push_back(std::move(m));
  }
  std::stable_sort(out.candidates.begin(), out.candidates.end(), [](const auto& a, const auto& b) {
    return a.measured_saving_us > b.measured_saving_us;
  });
  for (size_t i = 0; i < out.candidates.size(); ++i) out.candidates[i].rank = i + 1;
  return out;
}

}  // namespace ptescope::advise
