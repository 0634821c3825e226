#include "runner/VerifyEdits.h"

#include "passes/Pipeline.h"

namespace ptescope::runner {

double EditRuns::runSavingSeconds() const {
  return as_loaded.profile.run_seconds.median - as_edited.profile.run_seconds.median;
}

double EditRuns::copySavingSeconds() const { return as_loaded.profile.copy_seconds - as_edited.profile.copy_seconds; }

Result<EditRuns> runAsLoadedAndEdited(const RunnerProgram& loaded, const RunnerProgram& edited,
                                      const RunnerOptions& options) {
  const std::string method = options.method.empty() ? exec::defaultMethodName(*loaded.program) : options.method;
  const program::Method* m = loaded.program->findMethod(method);
  if (m == nullptr) return makeError(loaded.name + ": no method named '" + method + "'");
  EditRuns runs;
  auto asLoaded = runWithRunner(loaded, options);
  if (!asLoaded) return asLoaded.error();
  runs.as_loaded = std::move(asLoaded.value());
  auto asEdited = runWithRunner(edited, options);
  if (!asEdited) return asEdited.error();
  runs.as_edited = std::move(asEdited.value());
  for (const auto& o : runs.as_loaded.outputs) runs.outputs_compared += o ? 1 : 0;
  runs.differences = compareOutputs(*m, runs.as_loaded.outputs, runs.as_edited.outputs);
  return runs;
}

size_t VerifiedMethod::verified() const {
  size_t n = 0;
  for (const auto& c : candidates) n += c.not_run.empty() ? 1 : 0;
  return n;
}

Result<VerifiedMethod> verifyCandidates(const program::Program& program, const RunnerProgram& loaded,
                                        const advise::MethodAdvice& advice, const advise::MeasuredMethodAdvice* measured,
                                        size_t k, RunnerOptions options) {
  options.method = advice.name;
  VerifiedMethod out;
  out.method = advice.name;
  out.runner_source = runnerSource(options.runner);
  out.iterations = std::max<size_t>(options.iterations, 1);
  out.ranked_by_profile = measured != nullptr;

  // The candidates in the order they are verified.
  std::vector<VerifiedCandidate> order;
  auto add = [&order](size_t rank, const advise::CandidateEdits& edits, double predicted, std::optional<double> profile) {
    VerifiedCandidate c;
    c.rank = rank;
    c.edits = edits;
    c.predicted_saving_us = predicted;
    c.profile_saving_us = profile;
    order.push_back(std::move(c));
  };
  if (measured != nullptr) {
    for (const auto& c : measured->candidates) add(c.rank, c.edits, c.predicted_saving_us, c.measured_saving_us);
  } else {
    for (const auto& c : advice.candidates) add(c.rank, c.edits, c.predicted_saving_us, std::nullopt);
  }

  for (VerifiedCandidate& candidate : order) {
    if (out.verified() >= k) break;
    auto edits = advise::programEdits(program, candidate.edits);
    if (!edits) return makeError("candidate " + std::to_string(candidate.rank) + ": " + edits.error().message);
    auto edited = passes::runEdits(program, edits.value());
    if (!edited) return makeError("candidate " + std::to_string(candidate.rank) + ": " + edited.error().message);
    if (auto duties = runnerContractViolations(edited->program, advice.name); !duties.empty()) {
      candidate.not_run = duties.front();
      out.candidates.push_back(std::move(candidate));
      continue;
    }
    const RunnerProgram target{&edited->program, "", "",
                               loaded.name + " with candidate " + std::to_string(candidate.rank)};
    auto runs = runAsLoadedAndEdited(loaded, target, options);
    if (!runs) return runs.error();
    candidate.run_saving_us = runs->runSavingSeconds() * 1e6;
    candidate.copy_saving_us = runs->copySavingSeconds() * 1e6;
    candidate.loaded_run_us = runs->as_loaded.profile.run_seconds.median * 1e6;
    candidate.edited_run_us = runs->as_edited.profile.run_seconds.median * 1e6;
    candidate.copy_times_marked = hasHostClockMarks(runs->as_loaded.profile) || hasHostClockMarks(runs->as_edited.profile);
    candidate.outputs_compared = runs->outputs_compared;
    candidate.differences = std::move(runs->differences);
    out.candidates.push_back(std::move(candidate));
  }
  return out;
}

}  // namespace ptescope::runner
