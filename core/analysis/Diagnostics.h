// Lint: problems that can be seen in a program file and that the ExecuTorch
// runtime would reject, mis-handle, or that cost copies for nothing (the
// pitfalls of spec/device-semantics.md §5). Ids are stable across versions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "program/Program.h"

namespace ptescope::analysis {

enum class Severity { Info, Warning, Error };
std::string severityName(Severity severity);

struct Diagnostic {
  std::string id;     // "PTS001"
  std::string slug;   // "planned-device-input"
  Severity severity = Severity::Warning;
  std::string method;
  std::optional<size_t> instruction;  // flat index
  std::optional<int32_t> value;
  std::optional<int32_t> delegate;
  std::string message;
  std::string hint;
  // "method 'forward', instruction 3, value %5"
  std::string location() const;
};

struct DiagnosticRule {
  const char* id;
  const char* slug;
  Severity severity;
  const char* summary;
};
// Every rule, for --help texts and documentation.
const std::vector<DiagnosticRule>& diagnosticRules();

std::vector<Diagnostic> lintProgram(const program::Program& program);
std::vector<Diagnostic> lintMethod(const program::Program& program, const program::Method& method);

bool hasErrors(const std::vector<Diagnostic>& diagnostics);

}  // namespace ptescope::analysis
