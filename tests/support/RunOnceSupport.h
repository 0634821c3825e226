// For the suites that compare a whole run with numbers from the real
// runtime: run a program's first method once on the host runtime with the
// input files of a folder, every instruction executed. Kept out of the
// precompiled TestSupport.h so that changing it rebuilds only its users.
#pragma once

#include <QtTest>

#include <optional>
#include <string>

#include "exec/HostRuntime.h"
#include "exec/RunOnce.h"

namespace ptescope::test {

// The run's result, or nullopt after failing the current test (the run
// failed, or an instruction was not executed: its reason is the message).
inline std::optional<exec::RunOnceResult> runOnceWithEveryInstruction(const program::Program& program,
                                                                      const std::string& inputsDir) {
  exec::HostRuntime runtime;
  exec::RunOnceOptions options;
  options.inputs.directory = inputsDir;
  auto result = exec::runMethodOnce(program, runtime, options);
  if (!result) {
    QTest::qFail(result.error().message.c_str(), __FILE__, __LINE__);
    return std::nullopt;
  }
  if (!result->not_executed.empty()) {
    QTest::qFail(("not executed: " + result->not_executed.front().reason).c_str(), __FILE__, __LINE__);
    return std::nullopt;
  }
  return std::move(result.value());
}

}  // namespace ptescope::test
