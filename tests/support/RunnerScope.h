// For tests that run ptescope-cli or the app with the executor_runner
// stand-in (tests/runner-standin): the CLI or the app (and through it the
// runner) gets its own TMPDIR and a fault mode, so that a test can check
// nothing is left behind; and the program the runner suites share.
#pragma once

#include <QDir>
#include <QTemporaryDir>
#include <QtGlobal>

#include <string>

#include "support/TestSupport.h"

namespace ptescope::test {

class RunnerScope {
 public:
  explicit RunnerScope(const char* fault = nullptr) {
    qputenv("TMPDIR", dir_.path().toUtf8());
    if (fault != nullptr) qputenv("PTESCOPE_TEST_RUNNER_FAULT", fault);
  }
  ~RunnerScope() {
    qunsetenv("TMPDIR");
    qunsetenv("PTESCOPE_TEST_RUNNER_FAULT");
    qunsetenv("PTESCOPE_TEST_RUNNER_FAULT_MODEL");
  }
  RunnerScope(const RunnerScope&) = delete;
  RunnerScope& operator=(const RunnerScope&) = delete;
  QString path() const { return dir_.path(); }
  QStringList leftBehind() const { return QDir(dir_.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden); }

 private:
  QTemporaryDir dir_;
};

// The spec (synth's JSON) of tests/runner-standin/delegate.json: a CUDA
// delegate reads x, the output is relu(x) on the CPU; one h2d of x
// (float32[2,3], 24 B), which setting the delegate's device to none removes.
inline std::string runnerDelegateSpec() {
  const auto bytes = readAll(QStringLiteral(PTESCOPE_SOURCE_DIR "/tests/runner-standin/delegate.json"));
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace ptescope::test
