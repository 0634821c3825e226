// A program as loaded and as edited, each run through the user's runner
// (runner/ExternalRunner.h): what `profile --runner --compare-edits` shows
// for one set of edits, and what `advise --verify K` measures for each of the
// advisor's top K candidates. The saving to trust is the whole run's: under
// executor_runner a copy's host time may hold a delegate's queued GPU work
// (markHostClockCopies), the run's end-to-end time does not depend on that.
//
// Usage:
//   auto runs = runner::runAsLoadedAndEdited(loadedTarget, {&edited, "", "", "m.pte as edited"}, options);
//   if (runs) show(runs->runSavingSeconds(), runs->differences);
//   auto verified = runner::verifyCandidates(program, loadedTarget, methodAdvice, measured, 3, options);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "advise/Advise.h"
#include "advise/MeasuredAdvice.h"
#include "runner/ExternalRunner.h"

namespace ptescope::runner {

// Both runs of one comparison and how their outputs agree.
struct EditRuns {
  RunnerResult as_loaded;
  RunnerResult as_edited;
  size_t outputs_compared = 0;                 // outputs the as-loaded run wrote
  std::vector<OutputDifference> differences;  // empty: every output agrees bit for bit
  // Medians per run, as loaded minus as edited (negative: the edits cost time).
  double runSavingSeconds() const;
  double copySavingSeconds() const;
};

// Runs `loaded` and then `edited` with the same options (method, inputs,
// iterations); the first failure is the error (kRunnerCancelled when cancelled).
Result<EditRuns> runAsLoadedAndEdited(const RunnerProgram& loaded, const RunnerProgram& edited,
                                      const RunnerOptions& options);

// One advisor candidate measured on the runner.
struct VerifiedCandidate {
  size_t rank = 0;  // its rank in the list verified (by measured saving when a profile ranked them, else predicted)
  advise::CandidateEdits edits;
  double predicted_saving_us = 0;                // the advisor's, per call
  std::optional<double> profile_saving_us;       // MeasuredCandidate::measured_saving_us, when a profile ranked them
  // Why the runner cannot run the program as edited: the first caller duty
  // executor_runner does not do (runnerContractViolations); nothing measured then.
  std::string not_run;
  // Medians per run of the runner, as loaded minus as edited.
  double run_saving_us = 0;
  double copy_saving_us = 0;
  double loaded_run_us = 0, edited_run_us = 0;
  bool copy_times_marked = false;  // a copy time in either run holds a delegate's queued work
  size_t outputs_compared = 0;
  std::vector<OutputDifference> differences;  // empty: the outputs agree bit for bit
};

struct VerifiedMethod {
  std::string method;
  std::string runner_source;  // runnerSource(runner)
  size_t iterations = 0;      // runner executions per run
  bool ranked_by_profile = false;
  std::vector<VerifiedCandidate> candidates;  // in rank order: the ones run and the ones skipped above the last run
  size_t verified() const;  // candidates run
};

// The first `k` candidates (in `measured`'s order when given, else the
// advice's) that the runner can run, each run as loaded and as edited;
// candidates it cannot run are listed with the reason and do not count
// towards k. `options.method` is set to the advice's method. Errors: a
// candidate's edits fail, the runner fails (one line naming the run).
Result<VerifiedMethod> verifyCandidates(const program::Program& program, const RunnerProgram& loaded,
                                        const advise::MethodAdvice& advice, const advise::MeasuredMethodAdvice* measured,
                                        size_t k, RunnerOptions options);

}  // namespace ptescope::runner
