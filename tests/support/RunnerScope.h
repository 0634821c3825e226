// For tests that run ptescope-cli with the executor_runner stand-in
// (tests/runner-standin): the CLI (and through it the runner) gets its own
// TMPDIR and a fault mode, so that a test can check nothing is left behind.
#pragma once

#include <QDir>
#include <QTemporaryDir>
#include <QtGlobal>

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
  QStringList leftBehind() const { return QDir(dir_.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden); }

 private:
  QTemporaryDir dir_;
};

}  // namespace ptescope::test
