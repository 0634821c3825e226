// What every ptescope-cli subcommand shares: the exit status for bad input
// or usage, and its one-line error.
#pragma once

#include <iostream>
#include <string>

#include "pte/Reader.h"
#include "report/Json.h"
#include "util/Utf8.h"

namespace ptescope::cli {

inline constexpr int kExitBadInput = 2;

// Prints "ptescope-cli: <message>" on stderr and returns kExitBadInput.
// (A message may quote a path or text from a file: printed UTF-8 safe.)
inline int fail(const std::string& message) {
  std::cerr << "ptescope-cli: " << printableUtf8(message) << "\n";
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
    std::cerr << "ptescope-cli: note: " << report::escapedStringsNote(escaped) << "\n";
  }
  return text;
}

// Once on stderr: the program had names that are not UTF-8 (commands that
// print every reader warning anyway do not need this).
inline void noteEscapedNames(const pte::LoadedProgram& loaded) {
  if (loaded.escaped_strings > 0) std::cerr << "ptescope-cli: note: " << pte::escapedStringsWarning(loaded.escaped_strings) << "\n";
}

}  // namespace ptescope::cli
