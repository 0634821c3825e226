// The user's own ExecuTorch runner in the loop: a third way to run a
// program, next to the host emulation and CUDA. ptescope writes the inputs
// `profile` uses into a private temporary folder, starts the runner
// (upstream's examples/portable/executor_runner, or anything with its
// flags) as a child process in its own process group, waits with a timeout
// and a cancel (either kills the group), reads the ETDump the runner wrote
// through the ETDump import (told the method: the trace does not name it)
// and the raw outputs (BASE-<i>.bin), and removes the folder on every path.
//
// Facts this relies on (../shared/spec/device-semantics.md §7.3): the
// runner's inputs are raw files of exactly each input's bytes, its outputs
// raw without header; any abort (exit 134) leaves no ETDump; a CPU-only
// runner aborts on a device-planned program before any delegate is loaded;
// it hands method inputs as host memory and writes outputs without copying
// them from a device, so a program exported with skip_h2d / skip_d2h for
// method IO cannot run correctly under it (refused before running).
//
// Every failure is one line that names the runner, the program and what
// happened; the runner's stderr is kept for the caller to show.
//
// Usage:
//   runner::RunnerOptions o;  o.runner = path;  o.iterations = 20;
//   auto run = runner::runWithRunner({&program, "model.pte"}, o);
//   if (!run) report(run.error().message);
//   else show(run->profile);          // runtime "ExecuTorch runner PATH, host clock"
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "exec/Profiler.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::runner {

// The environment variable naming the runner when no --runner is given.
inline constexpr const char* kRunnerEnvironment = "PTESCOPE_RUNNER";
// runWithRunner's error when cancel_requested stopped it (exec::kRunCancelled).
inline constexpr const char* kRunnerCancelled = "cancelled";

// What the runner runs. With `path` the runner loads that file (and
// `data_path`); without, `program` is written (with its .ptd) into the
// private folder first: a program as edited.
struct RunnerProgram {
  const program::Program* program = nullptr;  // for the inputs, the trace and the outputs
  std::string path;
  std::string data_path;  // --data_path; the runner takes one .ptd
  std::string name;       // in messages and the profile; default: path's file name, else "the program"
};

struct RunnerOptions {
  std::string runner;   // the executable
  std::string method;   // empty: exec::defaultMethodName (always passed as --method_name)
  size_t iterations = 20;  // --num_executions
  exec::InputOptions inputs;  // as `profile`: random from the seed, or a folder of files
  uint64_t max_memory = 0;    // budget of the executor that makes the inputs (ExecutorOptions)
  std::string budget_setting = exec::kCliMemoryBudgetSetting;
  double timeout_seconds = 600;
  // Polled every few milliseconds while the runner runs; true kills it.
  std::function<bool()> cancel_requested;
  // Filled with the runner's stderr (its last 64 KiB), whatever the outcome.
  std::string* runner_log = nullptr;
};

struct RunnerResult {
  exec::TransferProfile profile;
  std::string trace_warning;  // the import's line about events that did not fit; empty when all did
  // Per method output: the raw bytes the runner wrote (BASE-<i>.bin);
  // nullopt where it wrote none (not a tensor).
  std::vector<std::optional<std::vector<uint8_t>>> outputs;  // RawOutputs
  std::string runner_stdout;  // what it printed (the outputs), at most 64 KiB
};

// The runner to use: `given`, else $PTESCOPE_RUNNER; an error naming both when neither is set.
// A name without a '/' is looked up on $PATH as a shell would (findOnPath).
Result<std::string> runnerPath(const std::string& given);
// `name` when it has a '/' (a path, checked later by runWithRunner), else the
// first executable file `name` in a $PATH folder; an error when there is none.
Result<std::string> findOnPath(const std::string& name);
// A program file as the runner loads it: the file and the one .ptd the
// program was read with (executor_runner takes one --data_path; more is an error).
Result<RunnerProgram> runnerProgramFile(const program::Program& program, const std::string& path);

// Whether `runner` (a path) can serve, asked once before any run (the app
// when the runner is chosen): it is an executable file, and its --help
// (gflags' list of flags) names --model_path (else it is no executor_runner)
// and --etdump_path (else it was built without the event tracer). Runs it in
// a private folder that is removed after; one line naming the runner on
// failure. `cancel_requested` (polled) stops it: the error is then kRunnerCancelled.
Status checkRunner(const std::string& runner, double timeout_seconds = 10,
                   std::function<bool()> cancel_requested = {});

// "ExecuTorch runner PATH, host clock": TransferProfile::runtime of a runner profile.
std::string runnerSource(const std::string& runner);
// The runner's path in a runnerSource() text; empty for any other runtime.
std::string runnerOfSource(const std::string& runtime);

// What the caller of `method` must do that executor_runner does not (an
// input or output on a device, as skip_h2d / skip_d2h for method IO leave
// them): one line per duty (the advisor's text), empty when the runner can run it.
std::vector<std::string> runnerContractViolations(const program::Program& program, const std::string& method);

// Marks the copies whose host-clock time is not the copy's, as ptescope
// knows them under executor_runner (no caller stream, §3.4 and P12): the
// first blocking cudaMemcpy after a device delegate waits for the work the
// delegate left queued. Such a copy gets CopyProfile::time_covers and no
// bandwidth; its timeline slices say so in their names.
void markHostClockCopies(exec::TransferProfile& profile, const program::Program& program);
// A copy of `profile` has such a mark (CopyProfile::time_covers).
bool hasHostClockMarks(const exec::TransferProfile& profile);

// Raw output bytes per method output position; nullopt where none was written.
using RawOutputs = std::vector<std::optional<std::vector<uint8_t>>>;

// How output `position` of two runs differs: bit for bit, then element by
// element in the output's dtype (from the method) where both have the bytes.
struct OutputDifference {
  size_t position = 0;
  std::string what;          // one phrase: "differs in 3 of 16 elements, first at element 2 (1.5 vs 1.25)", ...
  size_t differing = 0;      // elements that differ (0 when not compared element-wise)
  double max_abs_error = 0;  // over the differing elements
  double max_rel_error = 0;  // |a - b| / |b|, b the second run's element (0 where b is 0)
};
// Empty when every output both runs wrote agrees bit for bit. An output one
// run wrote and the other did not is a difference.
std::vector<OutputDifference> compareOutputs(const program::Method& method, const RawOutputs& first,
                                             const RawOutputs& second);

Result<RunnerResult> runWithRunner(const RunnerProgram& program, const RunnerOptions& options);

}  // namespace ptescope::runner
