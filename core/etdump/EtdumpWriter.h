// Writing an ETDump: the inverse of parseEtdump, for tests and benchmarks
// that need a trace no runtime wrote (a 50k-instruction method, a delegate
// that logs events, a debug buffer). Bytes as ETDumpGen lays them out:
// size-prefixed with identifier "ED00" unless `sizePrefixed` is false (the
// form Python's serializer writes).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "etdump/Etdump.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::etdump {

std::vector<uint8_t> serializeEtdump(const Etdump& dump, bool sizePrefixed = true);

// The trace the runtime would write for one load and `iterations` runs of a
// method, event for event as ETDumpGen orders them (by end): per KernelCall a
// native_call_<op> inside an OPERATOR_CALL, per DelegateCall a DELEGATE_CALL
// (with, when `delegate_events`, one int-id and one string-id event inside),
// MOVE/JF/FREE_CALL for the others, Method::execute around each run. Every
// instruction scope lasts `ticks(iteration, flat instruction)` (at least 4);
// the kernel inside it 2 ticks less; one tick separates neighbours.
struct TraceSpec {
  std::string method;  // empty: the first method
  size_t iterations = 3;
  std::function<uint64_t(size_t iteration, size_t instruction)> ticks;  // default: 100 + instruction
  bool delegate_events = false;
};
Result<Etdump> synthesizeEtdump(const program::Program& program, const TraceSpec& spec);

}  // namespace ptescope::etdump
