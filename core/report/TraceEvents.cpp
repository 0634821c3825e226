#include "report/TraceEvents.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/Dataflow.h"
#include "program/Text.h"

namespace ptescope::report {

nlohmann::json traceProcessName(int pid, const std::string& name) {
  return {{"ph", "M"}, {"pid", pid}, {"tid", 0}, {"name", "process_name"}, {"args", {{"name", name}}}};
}

void appendTraceThread(nlohmann::json& events, int pid, int tid, const std::string& name) {
  events.push_back({{"ph", "M"}, {"pid", pid}, {"tid", tid}, {"name", "thread_name"}, {"args", {{"name", name}}}});
  events.push_back({{"ph", "M"}, {"pid", pid}, {"tid", tid}, {"name", "thread_sort_index"}, {"args", {{"sort_index", tid}}}});
}

nlohmann::json traceSliceEvent(const TraceSlice& slice) {
  nlohmann::json args = slice.args;
  if (slice.bytes) {
    args["bytes"] = *slice.bytes;
    args["gbps"] = slice.seconds > 0 ? double(*slice.bytes) / slice.seconds / 1e9 : 0.0;
  }
  return {{"ph", "X"},
          {"pid", slice.pid},
          {"tid", slice.tid},
          {"name", slice.name},
          {"cat", slice.category},
          {"ts", program::toMicros(slice.start_seconds)},
          {"dur", program::toMicros(slice.seconds)},
          {"args", args}};
}

void appendTraceFlow(nlohmann::json& events, uint64_t id, const std::string& name, const std::vector<TracePoint>& points) {
  if (points.size() < 2) return;
  for (size_t i = 0; i < points.size(); ++i) {
    const char* phase = i == 0 ? "s" : i + 1 == points.size() ? "f" : "t";
    events.push_back({{"ph", phase},
                      {"id", id},
                      {"name", name},
                      {"cat", "dataflow"},
                      {"pid", points[i].pid},
                      {"tid", points[i].tid},
                      {"ts", program::toMicros(points[i].seconds)},
                      {"bp", "e"}});
  }
}

nlohmann::json traceCounterEvent(int pid, const std::string& name, double seconds, const nlohmann::json& values) {
  return {{"ph", "C"}, {"pid", pid}, {"tid", 0}, {"name", name}, {"ts", program::toMicros(seconds)}, {"args", values}};
}

void appendCopyCounterTracks(nlohmann::json& events, int pid, const std::vector<TraceCopy>& copies) {
  for (auto direction : {program::CopyDirection::HostToDevice, program::CopyDirection::DeviceToHost,
                         program::CopyDirection::DeviceToDevice}) {
    struct Change {
      double seconds;
      double bytes, gbps;
    };
    std::vector<Change> changes;
    for (const auto& c : copies) {
      if (c.direction != direction) continue;
      const double gbps = c.seconds > 0 ? double(c.bytes) / c.seconds / 1e9 : 0.0;
      changes.push_back({c.start_seconds, double(c.bytes), gbps});
      changes.push_back({c.start_seconds + c.seconds, -double(c.bytes), -gbps});
    }
    if (changes.empty()) continue;
    // Ends before starts at one instant: back-to-back copies do not add up.
    std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
      return a.seconds < b.seconds || (a.seconds == b.seconds && a.bytes < b.bytes);
    });
    const std::string name = program::copyDirectionName(direction);
    double bytes = 0, gbps = 0;
    for (size_t i = 0; i < changes.size(); ++i) {
      bytes += changes[i].bytes;
      gbps += changes[i].gbps;
      if (i + 1 < changes.size() && changes[i + 1].seconds == changes[i].seconds) continue;
      // Sums of doubles that return to nothing: print 0, not 1e-13.
      if (std::fabs(bytes) < 0.5) bytes = 0, gbps = 0;
      events.push_back(traceCounterEvent(pid, name + " bytes in flight", changes[i].seconds, {{"bytes", bytes}}));
      events.push_back(traceCounterEvent(pid, name + " bandwidth", changes[i].seconds, {{"GB/s", gbps}}));
    }
  }
}

void appendCopyFlows(nlohmann::json& events, int pid, const std::vector<TraceInstruction>& slices,
                     const program::Method& method, uint64_t& id) {
  const auto flow = analysis::Dataflow::build(method);
  std::map<std::pair<size_t, size_t>, const TraceInstruction*> at;  // (group, instruction)
  for (const auto& s : slices) at.emplace(std::make_pair(s.group, s.instruction), &s);
  auto point = [&](const TraceInstruction& s) { return TracePoint{pid, s.tid, s.start_seconds + s.seconds / 2}; };
  const auto& values = flow.values();
  auto valueFacts = [&](int32_t value) { return value >= 0 && size_t(value) < values.size() ? &values[size_t(value)] : nullptr; };
  for (const auto& s : slices) {
    if (!s.copy) continue;
    const int32_t source = s.source, destination = s.destination;
    std::vector<TracePoint> head;
    if (const auto* v = valueFacts(source); v && v->producer && *v->producer < s.instruction)
      if (auto producer = at.find({s.group, *v->producer}); producer != at.end()) head.push_back(point(*producer->second));
    head.push_back(point(s));
    std::vector<const TraceInstruction*> readers;
    if (const auto* v = valueFacts(destination))
      for (size_t reader : v->consumers)
        if (auto it = at.find({s.group, reader}); reader > s.instruction && it != at.end()) readers.push_back(it->second);
    const std::string name = "%" + std::to_string(source) + " \u2192 %" + std::to_string(destination);
    if (readers.empty()) appendTraceFlow(events, ++id, name, head);
    for (const auto* reader : readers) {
      auto points = head;
      points.push_back(point(*reader));
      appendTraceFlow(events, ++id, name, points);
    }
  }
}

nlohmann::json traceDocument(nlohmann::json events, nlohmann::json otherData) {
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}, {"otherData", std::move(otherData)}};
}

}  // namespace ptescope::report
