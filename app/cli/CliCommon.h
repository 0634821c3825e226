// What every ptescope-cli subcommand shares: the exit status for bad input
// or usage, and its one-line error.
#pragma once

#include <iostream>
#include <string>

namespace ptescope::cli {

inline constexpr int kExitBadInput = 2;

// Prints "ptescope-cli: <message>" on stderr and returns kExitBadInput.
inline int fail(const std::string& message) {
  std::cerr << "ptescope-cli: " << message << "\n";
  return kExitBadInput;
}

}  // namespace ptescope::cli
