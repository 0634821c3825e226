// Shared by the libFuzzer harnesses: how a broken property is reported (a
// message on stderr, then abort, which libFuzzer records as a crash with the
// input that caused it).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "pte/Reader.h"
#include "pte/Writer.h"
#include "util/Bytes.h"

namespace ptescope::fuzz {

[[noreturn]] inline void propertyBroken(const std::string& what) {
  std::fprintf(stderr, "ptescope fuzz: property broken: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

inline pte::ReadOptions fuzzReadOptions() {
  pte::ReadOptions options;
  options.find_ptd_beside = false;  // no files beside an input in memory
  return options;
}

// Reader/writer agreement, in both directions, for a program `what` that
// the reader accepted (or the pipeline made): the writer writes it, the
// reader reads what was written, and writing that again gives the same
// bytes (a fixed point: nothing is lost or invented on the way).
inline void checkWritesAndReadsBack(const program::Program& program, const std::string& what) {
  auto bytes = pte::serializeProgram(program);
  if (!bytes) propertyBroken(what + ": the writer refused it: " + bytes.error().message);
  auto again = pte::readProgramBytes(Bytes::fromVector(bytes.value()), what + " (written)", fuzzReadOptions());
  if (!again) propertyBroken(what + ": the reader refused what the writer wrote: " + again.error().message);
  auto twice = pte::serializeProgram(again->program);
  if (!twice) propertyBroken(what + ": the writer refused the program read back: " + twice.error().message);
  if (twice.value() != bytes.value()) propertyBroken(what + ": writing the program read back gives other bytes");
}

}  // namespace ptescope::fuzz
