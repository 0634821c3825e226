// --runner [PATH] and --timeout, which `profile` and `run` share: the
// user's own ExecuTorch runner (runner/ExternalRunner.h).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "CliCommon.h"
#include "Interrupt.h"
#include "runner/ExternalRunner.h"
#include "util/Result.h"

namespace ptescope::cli {

class RunnerFlags {
 public:
  // `what` ends the --runner help: what the command does with the runner.
  void addTo(CLI::App* command, const std::string& what) {
    option_ = command->add_option("--runner", path_,
                                  "Your own ExecuTorch runner (upstream's executor_runner built with the event tracer, "
                                  "or anything with its flags): " + what + "; without PATH: $" +
                                      runner::kRunnerEnvironment);
    option_->expected(0, 1);
    command->add_option("--timeout", timeout_, "With --runner: stop the runner after SECONDS")
        ->check(CLI::Range(1.0, 1e7))
        ->capture_default_str();
  }
  bool given() const { return option_ != nullptr && option_->count() > 0; }
  // The runner's path: --runner PATH, else $PTESCOPE_RUNNER.
  Result<std::string> path() const { return runner::runnerPath(path_); }
  double timeoutSeconds() const { return timeout_; }

 private:
  CLI::Option* option_ = nullptr;
  std::string path_;
  double timeout_ = 600;
};

// The exit of a command whose runner run failed: 130 after Ctrl+C, else
// the error's one line and 2.
inline int runnerFailed(const Error& error) {
  if (error.message == runner::kRunnerCancelled) {
    say("interrupted; the runner was stopped and nothing was measured");
    return kExitInterrupted;
  }
  return fail(error.message);
}

}  // namespace ptescope::cli
