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

nlohmann::json traceDocument(nlohmann::json events, nlohmann::json otherData) {
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}, {"otherData", std::move(otherData)}};
}

}  // namespace ptescope::report
