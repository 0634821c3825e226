// The Chrome/Perfetto trace-event JSON that both timelines write: the
// measured profile (ProfileWriters) and an imported ETDump (EtdumpReport).
// One spelling of a process, a named and ordered thread (lane) and a slice.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "program/CopyDirection.h"
#include "program/Program.h"

namespace ptescope::report {

// The metadata event that names process `pid`.
nlohmann::json traceProcessName(int pid, const std::string& name);

// Appends the two metadata events that name thread `tid` of `pid` and sort
// it at `tid`.
void appendTraceThread(nlohmann::json& events, int pid, int tid, const std::string& name);

// A complete ("X") slice from `start_seconds` lasting `seconds`. A slice
// with bytes (a copy) gets "bytes" and "gbps" (10^9 bytes per second) in its args.
struct TraceSlice {
  int pid = 0;
  int tid = 0;
  std::string name;
  std::string category;
  double start_seconds = 0;
  double seconds = 0;
  std::optional<uint64_t> bytes;
  nlohmann::json args = nlohmann::json::object();
};
nlohmann::json traceSliceEvent(const TraceSlice& slice);

// A flow (an arrow in Perfetto and chrome://tracing) through slices: one
// point inside each slice, in order; "s" on the first, "t" on the middle
// ones, "f" on the last, every point bound to the slice that encloses it
// ("bp": "e"). Fewer than two points: nothing.
struct TracePoint {
  int pid = 0;
  int tid = 0;
  double seconds = 0;  // inside the slice it binds to
};
void appendTraceFlow(nlohmann::json& events, uint64_t id, const std::string& name, const std::vector<TracePoint>& points);

// A counter sample ("C"): the series in `values` (name → number) of the
// counter track `name` of process `pid`, from `seconds` on.
nlohmann::json traceCounterEvent(int pid, const std::string& name, double seconds, const nlohmann::json& values);

// Counter tracks per copy direction, "<dir> bytes in flight" and "<dir>
// bandwidth" (GB/s): the sum over the copies running at each moment, a
// sample at every change.
struct TraceCopy {
  program::CopyDirection direction = program::CopyDirection::HostToDevice;
  double start_seconds = 0;
  double seconds = 0;
  uint64_t bytes = 0;
};
void appendCopyCounterTracks(nlohmann::json& events, int pid, const std::vector<TraceCopy>& copies);

// Flow arrows, within one group (an iteration), from the instruction that
// produces a copy's source to the copy and on to each instruction that
// reads the copy's destination; `method`'s def/use facts say which. The
// slices are the instructions' own (not nested ones); a point sits in the
// middle of its slice.
struct TraceInstruction {
  size_t group = 0;
  size_t instruction = 0;
  int tid = 0;
  double start_seconds = 0;
  double seconds = 0;
  bool copy = false;
  int32_t source = -1, destination = -1;  // a copy's values
};
// Flow ids must be unique in the whole trace: `nextId` is the last id used
// (0 at first) and is advanced.
void appendCopyFlows(nlohmann::json& events, int pid, const std::vector<TraceInstruction>& slices,
                     const program::Method& method, uint64_t& nextId);

// The whole trace document around `events`, shown in nanoseconds.
nlohmann::json traceDocument(nlohmann::json events, nlohmann::json otherData);

}  // namespace ptescope::report
