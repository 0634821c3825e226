#include "report/TraceEvents.h"

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

nlohmann::json traceDocument(nlohmann::json events, nlohmann::json otherData) {
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}, {"otherData", std::move(otherData)}};
}

}  // namespace ptescope::report
