// What every ptescope-cli subcommand shares: the exit status for bad input
// or usage, and its one-line error.
#pragma once

#include <iostream>
#include <string>

#include "exec/MemoryBudget.h"
#include "program/Text.h"
#include "pte/Reader.h"
#include "report/Json.h"
#include "util/Utf8.h"

namespace ptescope::cli {

inline constexpr int kExitBadInput = 2;

// Every message on stderr is one line "ptescope-cli: <text>". A message may
// quote a path or a name from a file (a method name with a newline, bytes
// that are not UTF-8): printed through printableLine, so it stays one line.
inline void say(const std::string& text) { std::cerr << "ptescope-cli: " << printableLine(text) << "\n"; }
inline void warn(const std::string& text) { say("warning: " + text); }
inline void note(const std::string& text) { say("note: " + text); }

// A text report for stdout: its own lines kept, every other control
// character escaped as printableLine does. A name from a file (a method
// "for\nward\x1b[31m") then cannot send the terminal an escape sequence
// or split one of the report's lines in two.
inline std::string textForStdout(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t start = 0; start <= text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    out += printableLine(text.substr(start, end - start));
    if (end == text.size()) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

// Prints the error as say() does and returns kExitBadInput.
inline int fail(const std::string& message) {
  say(message);
  return kExitBadInput;
}

// JSON for stdout, through the one JSON writer; says once on stderr when it
// had to escape strings that are not UTF-8.
inline std::string jsonForStdout(const nlohmann::json& value) {
  size_t escaped = 0;
  std::string text = report::jsonText(value, 2, &escaped);
  static bool noted = false;
  if (escaped > 0 && !noted) {
    noted = true;
    note(report::escapedStringsNote(escaped));
  }
  return text;
}

// Once on stderr: the program had names that are not UTF-8 (commands that
// print every reader warning anyway do not need this).
inline void noteEscapedNames(const pte::LoadedProgram& loaded) {
  if (loaded.escaped_strings > 0) note(pte::escapedStringsWarning(loaded.escaped_strings));
}

// --cuda-graph of predict, advise, profile and report.
inline constexpr const char* kCudaGraphHelp =
    "METHOD[,METHOD]: these methods run with CudaBackend's enable_cuda_graph_for_method, so every replay copies each "
    "CudaBackend delegate's inputs and outputs device-to-device (counted as copies inside delegates)";

// --max-memory of profile and run: its help, and its value in bytes (0 when
// not given: the default budget, half of the available host memory);
// false with the error in `error` for a value that is not a size.
inline constexpr const char* kMaxMemoryHelp =
    "Refuse to run when the run would allocate more than SIZE in host memory or on any device (bytes, or with K, M, "
    "G, T: 512M, 2G); default: half of the host memory available (MemAvailable), and what is free on a device";
inline bool parseMaxMemory(const std::string& text, uint64_t& bytes, std::string& error) {
  bytes = 0;
  if (text.empty()) return true;
  auto limit = exec::parseMemorySize(text);
  if (!limit || *limit == 0) {
    error = "--max-memory: '" + text + "' is not a size (bytes, or 512M, 2G, ...)";
    return false;
  }
  bytes = *limit;
  return true;
}

}  // namespace ptescope::cli
