// Shared helpers for the test suites.
#pragma once

#include <QString>
#include <QStringList>

#include <optional>
#include <string>
#include <vector>

#include "program/Program.h"
#include "pte/Reader.h"

namespace ptescope::test {

// Folder of the real .pte samples, or an empty string when it is absent.
QString samplesDir();
// Every .pte sample except the deliberately corrupt one; empty when absent.
QStringList samplePrograms();
QString samplePath(const QString& name);

// Reads a program and fails the current test (QVERIFY2-style message) when
// it does not load.
pte::LoadedProgram loadOrFail(const QString& path);

struct ProcessResult {
  int exitCode = -1;
  QByteArray out;
  QByteArray err;
};
// Runs a program with arguments and waits up to `timeoutMs`.
ProcessResult runProcess(const QString& program, const QStringList& args, int timeoutMs = 60000);
ProcessResult runCli(const QStringList& args, int timeoutMs = 60000);
// Fails the current test unless a ptescope-cli run ended on bad input as
// every subcommand must: exit 2, nothing on stdout, exactly one line on
// stderr starting "ptescope-cli: ".
void expectOneLineCliError(const ProcessResult& r);

// A fresh temporary folder that lives until the process ends.
QString tempDir();

std::vector<uint8_t> readAll(const QString& path);
void writeAll(const QString& path, const std::vector<uint8_t>& data);

// Removes all whitespace (for comparing JSON texts).
QByteArray withoutWhitespace(const QByteArray& text);

// The duration written right after the first PREFIX in TEXT ("15.3 µs",
// "850 ns", "2.44 ms", "1.20 s", or "0"), in microseconds; nothing when
// PREFIX is absent or no duration follows it. Read independently of the
// formatter the CLI uses, so a test can compare it with its own figure.
std::optional<double> microsAfter(const QByteArray& text, const QByteArray& prefix);

// Whether SHOWN (a duration written with three significant digits) is
// WANT microseconds rounded that way: within half a unit of its last digit.
bool sameToThreeDigits(double shownMicros, double wantMicros);

// A float32 tensor of these sizes with the identity dim_order, nothing else set.
program::Tensor floatTensor(std::vector<int32_t> sizes);

// y = a + b on cuda:0 with its copies, its values numbered the way upstream
// export numbers them: copy outputs among the other values (a, b, a', b',
// y', y), not appended at the end as ptescope's passes append them.
program::Program upstreamOrderedAddProgram();

// The JSON spec example of issue 3, exactly as written there.
extern const char* const kIssue3SpecExample;

// A `synth` spec of a TensorRT delegate that stages (issue 35): x [2,8]
// float32 -> relu (#0) -> r -> TensorRTBackend (#1, cuda:0) -> y -> relu
// (#2) -> z, device planning off, so every tensor is host memory and the
// delegate copies r host-to-device and y device-to-host inside itself (64 B
// each). The method input goes through a CPU kernel first: set_input
// refuses a planned input that legacy mode tagged cuda:0 (RT001).
extern const char* const kTensorRTStagingSpec;

}  // namespace ptescope::test

// Skips the current test when the samples folder is absent.
#define PTESCOPE_REQUIRE_SAMPLES()                                              \
  do {                                                                          \
    if (::ptescope::test::samplesDir().isEmpty())                               \
      QSKIP("../shared/pte-samples is absent; sample-based checks skipped");    \
  } while (0)
