#include "report/ProfileWriters.h"

#include "analysis/Dataflow.h"
#include "exec/CopyIdentity.h"
#include "report/InfoReport.h"
#include "program/Text.h"

#include "report/Json.h"
#include "report/ProfileAnalysisWriters.h"
#include "report/TraceEvents.h"
#include "report/WriterSupport.h"

#include <array>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>
#include <span>

#include "util/MappedFile.h"

namespace ptescope::report {

using namespace program::text;

using exec::TimelineSlice;
using program::CopyDirection;

namespace {

std::string kindName(program::InstructionKind kind) { return program::instructionKindName(kind); }

nlohmann::json totalsJson(const exec::DirectionTotals& totals) {
  return {{"copies", totals.copies},
          {"bytes", totals.bytes},
          {"median_us", toMicros(totals.seconds)},
          {"gbps", totals.gbps},
          {"peak_share", totals.peak_share}};
}

std::string emulatedLabel(const exec::TransferProfile& profile) {
  if (profile.emulated) return "EMULATED (no GPU: device memory lives in host memory, copy times are memcpy times)";
  // tests/cudart-standin names its devices "cudart stand-in (not a GPU)".
  if (profile.runtime.find("stand-in") != std::string::npos)
    return "STAND-IN (no GPU: a test library answered the CUDA calls, copy times are a link model's)";
  if (exec::sourceKind(profile) == exec::ProfileSourceKind::HostCpu)
    return "no GPU involved";
  // runner::runnerSource: the user's runner ran it, whatever it ran on.
  if (profile.runtime.starts_with("ExecuTorch runner "))
    return "measured by the runner: its ETDump, on the host clock";
  return "measured on the GPU";
}

std::string trackName(TimelineSlice::Track track) {
  switch (track) {
    case TimelineSlice::Track::HostToDevice:
    case TimelineSlice::Track::DeviceToHost: return program::copyDirectionName(*TimelineSlice::copyDirectionOf(track)) + " copies";
    case TimelineSlice::Track::Kernels: return "CPU kernels and control flow";
    case TimelineSlice::Track::NotExecuted: return "not executed (delegates, unknown kernels)";
  }
  return "";
}

// The copies inside delegates of one direction, per iteration: count,
// bytes and the sum of their medians (each timed after the run).
struct InsideTotals {
  size_t copies = 0;
  uint64_t bytes = 0;
  double seconds = 0;
};
InsideTotals insideTotals(const exec::TransferProfile& p, std::optional<CopyDirection> direction = std::nullopt) {
  InsideTotals t;
  for (const auto& c : p.delegate_copies)
    if (!direction || c.transfer.direction == *direction) {
      t.copies += 1;
      t.bytes += c.transfer.bytes;
      t.seconds += c.seconds.median;
    }
  return t;
}

constexpr std::array<CopyDirection, 3> kAllDirections{CopyDirection::HostToDevice, CopyDirection::DeviceToHost,
                                                      CopyDirection::DeviceToDevice};

// The trace's thread of the copies inside delegates (after the timeline's).
constexpr int kInsideDelegatesThread = 5;

// Where a copy inside a delegate is, for CSV and comparisons: "delegate 0
// TensorRTBackend tensorrt staging (TensorRTBackend.cpp 720-745)".
std::string insideWhat(const analysis::DelegateTransfer& t) {
  return "delegate " + std::to_string(t.delegate) + " " + t.backend + " " + analysis::delegateTransferKindName(t.kind) +
         " (" + t.upstream + ")";
}

}  // namespace

int traceThreadId(TimelineSlice::Track track) {
  switch (track) {
    case TimelineSlice::Track::HostToDevice: return 1;
    case TimelineSlice::Track::DeviceToHost: return 2;
    case TimelineSlice::Track::Kernels: return 3;
    case TimelineSlice::Track::NotExecuted: return 4;
  }
  return 0;
}

std::string profileText(const exec::TransferProfile& p) {
  std::string out;
  out += "profile of method '" + p.method + "'" + (p.program_name.empty() ? "" : " in " + p.program_name) + "\n";
  out += "  runtime: " + p.runtime + "  [" + emulatedLabel(p) + "]\n";
  // A runtime trace (an ETDump, the user's runner) does not record it.
  const bool recorded = exec::sourceKind(p) != exec::ProfileSourceKind::HostClock;
  out += "  host memory: " + (recorded ? exec::hostMemoryKindName(p.host_memory) : std::string("not recorded by the trace")) +
         "; " + std::to_string(p.warmup_iterations) +
         " warm-up + " + countText(p.iterations, "measured iteration");
  if (p.cancelled)
    out += " (cancelled: " + std::to_string(p.iterations) + " of " + std::to_string(p.requested_iterations) + " completed)";
  if (p.partial())
    out += " (PARTIAL: " + std::to_string(p.iterations) + " of " + std::to_string(p.requested_iterations) +
           " completed)\n  failed: " + p.failure;
  out += "\n\n";

  if (p.copies.empty()) {
    out += "  no host-device copies ran\n";
  } else {
    // An emulated profile timed host memcpy: its bandwidth is memcpy's and
    // a share of a "peak" (a larger memcpy) says nothing about a link.
    std::vector<std::pair<std::string, size_t>> columns = {
        {"instr", 6}, {"dir", 4},    {"source", 8}, {"dest", 8},     {"device", 8}, {"bytes", 12},
        {"host mem", 9}, {"min µs", 10}, {"median µs", 10}, {"max µs", 10}, {p.emulated ? "memcpy GB/s" : "GB/s", 9}};
    if (!p.emulated) columns.push_back({"of peak", 8});
    std::string header = " ";
    for (const auto& [name, width] : columns) header += " " + padded(name, width, name != "dir" && name != "source" && name != "dest" && name != "device" && name != "host mem");
    out += header + "\n";
    for (const auto& c : p.copies) {
      std::string row = " ";
      row += " " + padded(std::to_string(c.instruction), 6, true);
      row += " " + padded(program::copyDirectionName(c.direction), 4);
      row += " " + padded("%" + std::to_string(c.source_value), 8);
      row += " " + padded("%" + std::to_string(c.destination_value), 8);
      row += " " + padded(c.device.str(), 8);
      row += " " + padded(program::bytesText(int64_t(c.bytes)), 12, true);
      row += " " + padded(exec::copyHostMemoryText(p, c), 9);
      row += " " + padded(microsText(c.seconds.min), 10, true);
      // A time that is not the copy's (CopyProfile::time_covers) is marked
      // and gets no bandwidth: none would be true.
      const bool marked = !c.time_covers.empty();
      row += " " + padded(microsText(c.seconds.median) + (marked ? "*" : ""), 10, true);
      row += " " + padded(microsText(c.seconds.max), 10, true);
      row += " " + padded(marked ? "-" : fixedText(c.gbps, 2), 9, true);
      if (!p.emulated) row += " " + padded(p.peak.measured && !marked ? percentText(c.peak_share) : "-", 8, true);
      out += row + "\n";
    }
    for (const auto& c : p.copies)
      if (!c.time_covers.empty()) out += "  * instruction " + std::to_string(c.instruction) + ": " + c.time_covers + "\n";
  }

  out += "\ntotals per iteration" + std::string(p.emulated ? " (emulated)" : "") + ":\n";
  for (auto direction : program::kHostDeviceDirections) {
    const auto& t = p.totals(direction);
    const bool marked = std::any_of(p.copies.begin(), p.copies.end(), [direction](const exec::CopyProfile& c) {
      return c.direction == direction && !c.time_covers.empty();
    });
    out += "  " + program::copyDirectionName(direction) + ": " + countText(t.copies, "copy", "copies") + ", " + bytesText(t.bytes) +
           ", median " + copyTimeText(t.copies, t.seconds) + (marked ? "*, no GB/s (times marked * are not only copies)" : ", " + fixedText(t.gbps, 2) +
           (p.emulated ? " GB/s of memcpy" : " GB/s"));
    if (p.peak.measured && t.copies > 0 && !p.emulated && !marked) out += ", " + percentText(t.peak_share) + " of peak";
    out += "\n";
  }
  for (auto direction : kAllDirections) {
    const auto t = insideTotals(p, direction);
    if (t.copies == 0) continue;
    out += "  " + program::copyDirectionName(direction) + " inside delegates: " + countText(t.copies, "copy", "copies") +
           ", " + bytesText(int64_t(t.bytes)) + ", median " + durationText(t.seconds) +
           " (no instruction; timed after the run, not part of its time)\n";
  }
  out += "  run: median " + durationText(p.run_seconds.median) + " (min " +
         durationText(p.run_seconds.min) + ", max " + durationText(p.run_seconds.max) +
         "), copies " + copyTimeText(p.copies.size(), p.copy_seconds) + " = " + percentText(p.copy_share) + " of the run\n";
  if (p.peak.measured && p.emulated) {
    out += "  host memcpy (emulated, not a GPU link; " + bytesText(p.peak.bytes) + " each way, best of " +
           std::to_string(p.peak.repeats) + "): " + fixedText(p.peak.h2d_gbps, 2) + " GB/s to the emulated device, " +
           fixedText(p.peak.d2h_gbps, 2) + " GB/s back; `ptescope-cli predict` says what the copies cost on a link\n";
  } else if (p.peak.measured) {
    out += "  link peak (pinned, " + bytesText(p.peak.bytes) + " each way on " + p.peak.device.str() + ", best of " +
           std::to_string(p.peak.repeats) + "): h2d " + fixedText(p.peak.h2d_gbps, 2) + " GB/s, d2h " +
           fixedText(p.peak.d2h_gbps, 2) + " GB/s" + (p.emulated ? " (emulated)" : "") + "\n";
  } else {
    out += "  link peak: not measured" + (p.peak.note.empty() ? std::string() : " (" + p.peak.note + ")") + "\n";
  }

  if (!p.delegate_copies.empty()) {
    out += "\ncopies inside delegates (no instruction; ptescope does not run the backend: each timed after the run "
           "where the backend would copy, " + countText(p.iterations, "time") +
           (p.emulated ? ", emulated" : "") + "):\n";
    out += "   instr  dir   value     device         bytes      min µs   median µs  what\n";
    for (const auto& c : p.delegate_copies) {
      const auto& t = c.transfer;
      out += "  " + padded(std::to_string(t.instruction), 6, true) + "  " + padded(program::copyDirectionName(t.direction), 4) +
             "  " + padded("%" + std::to_string(t.value), 8) + "  " + padded(t.device.str(), 8) + " " +
             padded(program::bytesText(int64_t(t.bytes)), 12, true) + " " + padded(microsText(c.seconds.min), 10, true) + " " +
             padded(microsText(c.seconds.median), 10, true) + "  delegate " + std::to_string(t.delegate) + " " + t.backend +
             ", " + analysis::delegateTransferKindName(t.kind) + " (" + t.upstream + ")\n";
    }
  }

  const size_t notExecuted = p.notExecutedCount();
  if (notExecuted > 0) {
    out += "\nnot executed: " + countText(notExecuted, "instruction") + ", outputs left as they were:\n";
    for (const auto& i : p.instructions)
      if (!i.executed) out += "  " + padded(std::to_string(i.instruction), 6, true) + "  " + i.label + ": " + i.reason + "\n";
  }
  if (!p.notes.empty()) {
    out += "\nnotes:\n";
    for (const auto& note : p.notes) out += "  " + note + "\n";
  }
  return out;
}

nlohmann::json profileJson(const exec::TransferProfile& p) {
  nlohmann::json j = {{"format", "ptescope-profile"},
                      {"version", kProfileFormatVersion},
                      {"program", p.program_name},
                      {"method", p.method},
                      {"runtime", p.runtime},
                      {"emulated", p.emulated},
                      {"host_memory", exec::hostMemoryKindName(p.host_memory)},
                      {"warmup_iterations", p.warmup_iterations},
                      {"requested_iterations", p.requested_iterations},
                      {"iterations", p.iterations},
                      {"cancelled", p.cancelled},
                      {"partial", p.partial()},
                      {"failure", p.failure}};
  j["link_peak"] = {{"measured", p.peak.measured},     {"device", p.peak.device.str()}, {"bytes", p.peak.bytes},
                    {"repeats", p.peak.repeats},       {"h2d_gbps", p.peak.h2d_gbps},   {"d2h_gbps", p.peak.d2h_gbps},
                    {"host_memory", "pinned"},         {"note", p.peak.note}};
  nlohmann::json run = timingJson(p.run_seconds);
  run["copy_us"] = toMicros(p.copy_seconds);
  run["copy_share"] = p.copy_share;
  j["run"] = run;
  for (auto direction : program::kHostDeviceDirections)
    j["totals"][program::copyDirectionName(direction)] = totalsJson(p.totals(direction));
  for (auto direction : kAllDirections) {
    const auto t = insideTotals(p, direction);
    j["totals"]["inside_delegates"][program::copyDirectionName(direction)] = {
        {"copies", t.copies}, {"bytes", t.bytes}, {"median_us", toMicros(t.seconds)}};
  }
  nlohmann::json copies = nlohmann::json::array();
  for (const auto& c : p.copies) {
    nlohmann::json copy = copyIdentityJson(c);
    copy.update(nlohmann::json{{"host_memory", exec::copyHostMemoryText(p, c)},
                               {"executions_per_iteration", c.executions_per_iteration},
                               {"gbps", c.gbps},
                               {"best_gbps", c.best_gbps},
                               {"peak_share", c.peak_share}});
    if (!c.time_covers.empty()) copy["time_covers"] = c.time_covers;
    if (c.producer) copy["producer"] = *c.producer;
    copy.update(timingJson(c.seconds));
    nlohmann::json samples = nlohmann::json::array();
    for (double s : c.samples) samples.push_back(toMicros(s));
    copy["samples_us"] = samples;
    copies.push_back(copy);
  }
  j["copies"] = copies;
  nlohmann::json instructions = nlohmann::json::array();
  nlohmann::json notExecuted = nlohmann::json::array();
  for (const auto& i : p.instructions) {
    nlohmann::json item = {{"instruction", i.instruction},
                           {"kind", kindName(i.kind)},
                           {"label", i.label},
                           {"executed", i.executed},
                           {"copy", i.is_copy},
                           {"executions_per_iteration", i.executions_per_iteration}};
    item.update(timingJson(i.host_seconds));
    if (!i.executed) {
      item["reason"] = i.reason;
      notExecuted.push_back({{"instruction", i.instruction}, {"label", i.label}, {"reason", i.reason}});
    }
    instructions.push_back(item);
  }
  j["instructions"] = instructions;
  j["not_executed"] = notExecuted;
  j["notes"] = p.notes;
  j["analyses"] = profileAnalysesJson(p);
  analysis::DelegateTransfers timed;
  for (const auto& c : p.delegate_copies) timed.transfers.push_back(c.transfer);
  nlohmann::json inside = delegateTransfersJson(timed)["transfers"];
  for (size_t i = 0; i < p.delegate_copies.size(); ++i) {
    inside[i].update(timingJson(p.delegate_copies[i].seconds));
    inside[i]["side"] = p.delegate_copies[i].transfer.onInputSide() ? "input" : "output";
  }
  j["delegate_copies"] = inside;
  return j;
}

std::string profileCsv(const exec::TransferProfile& p) {
  std::string out =
      "instruction,direction,source,destination,device,host_memory,bytes,executions_per_iteration,min_us,median_us,"
      "max_us,gbps,best_gbps,peak_share,emulated,runtime,time_covers,inside_delegate\n";
  for (const auto& c : p.copies) {
    out += std::to_string(c.instruction) + "," + program::copyDirectionName(c.direction) + "," + std::to_string(c.source_value) +
           "," + std::to_string(c.destination_value) + "," + c.device.str() + "," + exec::copyHostMemoryText(p, c) +
           "," + std::to_string(c.bytes) + "," + std::to_string(c.executions_per_iteration) + "," +
           exactText(toMicros(c.seconds.min)) + "," + exactText(toMicros(c.seconds.median)) + "," + exactText(toMicros(c.seconds.max)) + "," +
           exactText(c.gbps) + "," + exactText(c.best_gbps) + "," + exactText(c.peak_share) + "," + (p.emulated ? "true" : "false") +
           "," + csvField(p.runtime) + "," + csvField(c.time_covers) + ",\n";
  }
  // The copies inside delegates (no instruction): the delegate call's
  // instruction, the boundary value as source and destination, and in the
  // last column which delegate copies and why.
  for (const auto& c : p.delegate_copies) {
    const auto& t = c.transfer;
    const bool d2d = t.direction == CopyDirection::DeviceToDevice;
    const auto rate = [&](double seconds) { return seconds > 0 ? double(t.bytes) / seconds / 1e9 : 0.0; };
    out += std::to_string(t.instruction) + "," + program::copyDirectionName(t.direction) + "," + std::to_string(t.value) +
           "," + std::to_string(t.value) + "," + t.device.str() + "," +
           (d2d ? std::string("device") : exec::hostMemoryKindName(p.host_memory)) + "," + std::to_string(t.bytes) +
           ",1," + exactText(toMicros(c.seconds.min)) + "," + exactText(toMicros(c.seconds.median)) + "," +
           exactText(toMicros(c.seconds.max)) + "," + exactText(rate(c.seconds.median)) + "," +
           exactText(rate(c.seconds.min)) + ",0," + (p.emulated ? "true" : "false") + "," + csvField(p.runtime) + ",," +
           csvField("inside " + insideWhat(t)) + "\n";
  }
  return out;
}

nlohmann::json profileTraceJson(const exec::TransferProfile& p, const program::Method* method) {
  constexpr int kProcess = 1;
  nlohmann::json events = nlohmann::json::array();
  const std::string process = "ptescope: method '" + p.method + "'" + (p.program_name.empty() ? "" : " of " + p.program_name) +
                              " on " + p.runtime + (p.emulated ? " [EMULATED]" : "");
  events.push_back(traceProcessName(kProcess, process));
  for (auto track : {TimelineSlice::Track::HostToDevice, TimelineSlice::Track::DeviceToHost, TimelineSlice::Track::Kernels,
                     TimelineSlice::Track::NotExecuted})
    appendTraceThread(events, kProcess, traceThreadId(track), trackName(track));
  for (const auto& s : p.timeline) {
    const bool copy = TimelineSlice::copyDirectionOf(s.track).has_value();
    TraceSlice slice{kProcess,
                     traceThreadId(s.track),
                     s.name,
                     copy ? "copy" : s.track == TimelineSlice::Track::NotExecuted ? "not_executed" : "kernel",
                     s.start_seconds,
                     s.seconds,
                     copy ? std::optional<uint64_t>(s.bytes) : std::nullopt,
                     {{"instruction", s.instruction}, {"iteration", s.iteration}}};
    events.push_back(traceSliceEvent(slice));
  }
  std::vector<TraceCopy> copies;
  std::vector<TraceInstruction> instructions;
  std::map<size_t, const exec::CopyProfile*> copyAt;
  for (const auto& c : p.copies) copyAt.emplace(c.instruction, &c);
  for (const auto& s : p.timeline) {
    const auto direction = TimelineSlice::copyDirectionOf(s.track);
    TraceInstruction i{s.iteration, s.instruction, traceThreadId(s.track), s.start_seconds, s.seconds, false};
    if (auto c = copyAt.find(s.instruction); direction && c != copyAt.end()) {
      copies.push_back({*direction, s.start_seconds, s.seconds, s.bytes});
      i.copy = true;
      i.source = c->second->source_value;
      i.destination = c->second->destination_value;
    }
    instructions.push_back(i);
  }
  // The copies inside delegates were timed after the run, one sample per
  // measured iteration: their own track, after the timeline, end to end.
  if (!p.delegate_copies.empty()) {
    appendTraceThread(events, kProcess, kInsideDelegatesThread, "copies inside delegates (no instruction; timed after the run)");
    double at = 0;
    for (const auto& s : p.timeline) at = std::max(at, s.start_seconds + s.seconds);
    for (const auto& c : p.delegate_copies) {
      for (size_t i = 0; i < c.samples.size(); ++i) {
        TraceSlice slice{kProcess,
                         kInsideDelegatesThread,
                         c.transfer.shortText(),
                         "copy_inside_delegate",
                         at,
                         c.samples[i],
                         std::optional<uint64_t>(c.transfer.bytes),
                         {{"instruction", c.transfer.instruction},
                          {"iteration", i},
                          {"delegate", c.transfer.delegate},
                          {"what", insideWhat(c.transfer)}}};
        events.push_back(traceSliceEvent(slice));
        at += c.samples[i];
      }
    }
  }
  appendCopyCounterTracks(events, kProcess, copies);
  uint64_t flowIds = 0;
  if (method != nullptr) appendCopyFlows(events, kProcess, instructions, *method, flowIds);
  return traceDocument(
      events, {{"generator", "ptescope"},
               {"method", p.method},
               {"runtime", p.runtime},
               {"emulated", p.emulated},
               {"host_memory", exec::hostMemoryKindName(p.host_memory)},
               {"iterations_in_trace", std::min(p.iterations, p.timeline.empty() ? size_t(0) : p.timeline.back().iteration + 1)}});
}

Status writeProfileJson(const exec::TransferProfile& profile, const std::string& path,
                        const exec::TransferProfile* previous) {
  nlohmann::json j = profileJson(profile);
  if (previous != nullptr) j["comparison"] = profileComparisonJson(profile, *previous);
  return writeTextFile(path, jsonFileText(j, 2));
}

Status writeProfileCsv(const exec::TransferProfile& profile, const std::string& path) {
  return writeTextFile(path, profileCsv(profile));
}

Status writeProfileTrace(const exec::TransferProfile& profile, const std::string& path, const program::Method* method) {
  return writeTextFile(path, jsonFileText(profileTraceJson(profile, method), -1));
}

// ---- reading back and comparing ----

namespace {

// A field of a profile JSON object, with the error that names it.
class JsonFields {
 public:
  JsonFields(const nlohmann::json& object, std::string where) : object_(object), where_(std::move(where)) {}

  template <class T>
  Result<T> get(const char* key) const {
    if (!object_.is_object() || !object_.contains(key)) return makeError(where_ + ": no \"" + key + "\"");
    try {
      return object_.at(key).get<T>();
    } catch (const nlohmann::json::exception&) {
      return makeError(where_ + ": \"" + key + "\" has the wrong type");
    }
  }

 private:
  const nlohmann::json& object_;
  std::string where_;
};

#define PTESCOPE_FIELD(var, fields, type, key)    \
  auto var##_field = (fields).get<type>(key);      \
  if (!var##_field) return var##_field.error();    \
  const type var = var##_field.value()

Result<exec::TimingStats> timingFrom(const JsonFields& fields) {
  PTESCOPE_FIELD(min, fields, double, "min_us");
  PTESCOPE_FIELD(median, fields, double, "median_us");
  PTESCOPE_FIELD(max, fields, double, "max_us");
  return exec::TimingStats{min / 1e6, median / 1e6, max / 1e6};
}

Result<exec::DirectionTotals> totalsFrom(const nlohmann::json& j, const std::string& where) {
  const JsonFields fields(j, where);
  PTESCOPE_FIELD(copies, fields, size_t, "copies");
  PTESCOPE_FIELD(bytes, fields, uint64_t, "bytes");
  PTESCOPE_FIELD(median, fields, double, "median_us");
  PTESCOPE_FIELD(gbps, fields, double, "gbps");
  PTESCOPE_FIELD(share, fields, double, "peak_share");
  return exec::DirectionTotals{copies, bytes, median / 1e6, gbps, share};
}

std::string signedMicros(double seconds) { return signedFixedText(toMicros(seconds), 2); }

std::string changePercent(double now, double before) {
  return before > 0 ? signedFixedText((now - before) / before * 100, 1) + "%" : std::string("-");
}

}  // namespace

Result<exec::TransferProfile> readProfileJson(const std::string& path) {
  auto file = mapFile(path);
  if (!file) return file.error();
  nlohmann::json j;
  try {
    const auto data = file.value().span();
    j = nlohmann::json::parse(data.begin(), data.end());
  } catch (const nlohmann::json::exception& e) {
    return makeError(path + ": not JSON (" + std::string(e.what()) + ")");
  }
  const JsonFields top(j, path);
  PTESCOPE_FIELD(format, top, std::string, "format");
  if (format != "ptescope-profile") return makeError(path + ": not a ptescope profile (format \"" + format + "\")");
  PTESCOPE_FIELD(version, top, int, "version");
  if (version < kOldestProfileFormatVersion || version > kProfileFormatVersion)
    return makeError(path + ": profile format version " + std::to_string(version) + ", this ptescope reads versions " +
                     std::to_string(kOldestProfileFormatVersion) + " to " + std::to_string(kProfileFormatVersion));
  exec::TransferProfile p;
  {
    PTESCOPE_FIELD(program, top, std::string, "program");
    PTESCOPE_FIELD(method, top, std::string, "method");
    PTESCOPE_FIELD(runtime, top, std::string, "runtime");
    PTESCOPE_FIELD(emulated, top, bool, "emulated");
    PTESCOPE_FIELD(memory, top, std::string, "host_memory");
    PTESCOPE_FIELD(iterations, top, size_t, "iterations");
    PTESCOPE_FIELD(cancelled, top, bool, "cancelled");
    p.program_name = program;
    p.method = method;
    p.runtime = runtime;
    p.emulated = emulated;
    p.host_memory = memory == "pinned" ? exec::HostMemoryKind::Pinned : exec::HostMemoryKind::Pageable;
    p.iterations = iterations;
    p.cancelled = cancelled;
    // Profiles written before partial ones were kept have no failure.
    if (auto failure = j.find("failure"); failure != j.end() && failure->is_string()) p.failure = failure->get<std::string>();
  }
  if (auto peak = j.find("link_peak"); peak != j.end() && peak->is_object()) {
    // Optional: what the rules judge copies against (exec/ProfileAnalysis).
    auto number = [&](const char* key) { return peak->contains(key) && (*peak)[key].is_number() ? (*peak)[key].get<double>() : 0.0; };
    p.peak.measured = peak->contains("measured") && (*peak)["measured"].is_boolean() && (*peak)["measured"].get<bool>();
    p.peak.h2d_gbps = number("h2d_gbps");
    p.peak.d2h_gbps = number("d2h_gbps");
    p.peak.bytes = uint64_t(number("bytes"));
  }
  PTESCOPE_FIELD(totals, top, nlohmann::json, "totals");
  for (auto direction : program::kHostDeviceDirections) {
    const std::string key = program::copyDirectionName(direction);
    PTESCOPE_FIELD(directionJson, JsonFields(totals, path + ": totals"), nlohmann::json, key.c_str());
    auto read = totalsFrom(directionJson, path + ": totals." + key);
    if (!read) return read.error();
    (direction == program::CopyDirection::HostToDevice ? p.host_to_device : p.device_to_host) = read.value();
  }
  PTESCOPE_FIELD(run, top, nlohmann::json, "run");
  {
    const JsonFields runFields(run, path + ": run");
    auto timing = timingFrom(runFields);
    if (!timing) return timing.error();
    p.run_seconds = timing.value();
    PTESCOPE_FIELD(copyMicros, runFields, double, "copy_us");
    p.copy_seconds = copyMicros / 1e6;
  }
  PTESCOPE_FIELD(copies, top, nlohmann::json, "copies");
  if (!copies.is_array()) return makeError(path + ": \"copies\" is not a list");
  for (size_t i = 0; i < copies.size(); ++i) {
    const JsonFields c(copies[i], path + ": copies[" + std::to_string(i) + "]");
    exec::CopyProfile copy;
    PTESCOPE_FIELD(instruction, c, size_t, "instruction");
    PTESCOPE_FIELD(direction, c, std::string, "direction");
    PTESCOPE_FIELD(source, c, int32_t, "source");
    PTESCOPE_FIELD(destination, c, int32_t, "destination");
    PTESCOPE_FIELD(device, c, std::string, "device");
    PTESCOPE_FIELD(memory, c, std::string, "host_memory");
    PTESCOPE_FIELD(bytes, c, uint64_t, "bytes");
    PTESCOPE_FIELD(gbps, c, double, "gbps");
    PTESCOPE_FIELD(share, c, double, "peak_share");
    const auto parsedDirection = program::parseCopyDirection(direction);
    if (!parsedDirection || *parsedDirection == program::CopyDirection::DeviceToDevice)
      return makeError(path + ": copies[" + std::to_string(i) + "]: direction \"" + direction + "\" is neither h2d nor d2h");
    auto parsedDevice = program::parseDeviceSpec(device);
    if (!parsedDevice)
      return makeError(path + ": copies[" + std::to_string(i) + "]: device: " + parsedDevice.error().message);
    auto timing = timingFrom(c);
    if (!timing) return timing.error();
    copy.instruction = instruction;
    copy.direction = *parsedDirection;
    copy.source_value = source;
    copy.destination_value = destination;
    if (copies[i].contains("canonical_source") && copies[i]["canonical_source"].is_number_integer())
      copy.canonical_source = copies[i]["canonical_source"].get<int32_t>();
    if (copies[i].contains("producer") && copies[i]["producer"].is_number_unsigned())
      copy.producer = copies[i]["producer"].get<size_t>();
    if (copies[i].contains("time_covers") && copies[i]["time_covers"].is_string())
      copy.time_covers = copies[i]["time_covers"].get<std::string>();
    copy.device = parsedDevice.value();
    copy.host_memory = memory == "pinned" ? exec::HostMemoryKind::Pinned : exec::HostMemoryKind::Pageable;
    copy.bytes = bytes;
    copy.gbps = gbps;
    copy.peak_share = share;
    copy.seconds = timing.value();
    // Both optional: profiles of version 1 may lack them.
    if (const auto& e = copies[i]; e.contains("executions_per_iteration") && e["executions_per_iteration"].is_number_unsigned())
      copy.executions_per_iteration = e["executions_per_iteration"].get<size_t>();
    if (const auto& e = copies[i]; e.contains("samples_us") && e["samples_us"].is_array())
      for (const auto& sample : e["samples_us"])
        if (sample.is_number()) copy.samples.push_back(sample.get<double>() / 1e6);
    p.copies.push_back(std::move(copy));
  }
  // Optional: the per-instruction list (the time breakdown reads it). An
  // entry that lacks a field is skipped, not an error: older files.
  if (auto list = j.find("instructions"); list != j.end() && list->is_array()) {
    for (const auto& item : *list) {
      const JsonFields f(item, path + ": instructions");
      auto index = f.get<size_t>("instruction");
      auto kind = f.get<std::string>("kind");
      auto executed = f.get<bool>("executed");
      auto copy = f.get<bool>("copy");
      auto executions = f.get<size_t>("executions_per_iteration");
      auto timing = timingFrom(f);
      if (!index || !kind || !executed || !copy || !executions || !timing) continue;
      exec::InstructionProfile i;
      i.instruction = index.value();
      for (auto k : {program::InstructionKind::KernelCall, program::InstructionKind::DelegateCall, program::InstructionKind::MoveCall,
                     program::InstructionKind::JumpFalseCall, program::InstructionKind::FreeCall})
        if (kindName(k) == kind.value()) i.kind = k;
      if (auto label = f.get<std::string>("label")) i.label = label.value();
      i.executed = executed.value();
      i.is_copy = copy.value();
      i.executions_per_iteration = executions.value();
      i.host_seconds = timing.value();
      p.instructions.push_back(std::move(i));
    }
  }
  // Optional (profiles before issue 35 have none): the copies inside
  // delegates; an entry that lacks a field is skipped.
  if (auto list = j.find("delegate_copies"); list != j.end() && list->is_array()) {
    for (const auto& item : *list) {
      const JsonFields f(item, path + ": delegate_copies");
      auto instruction = f.get<size_t>("instruction");
      auto delegate = f.get<int32_t>("delegate");
      auto backend = f.get<std::string>("backend");
      auto value = f.get<int32_t>("value");
      auto kind = f.get<std::string>("kind");
      auto direction = f.get<std::string>("direction");
      auto bytes = f.get<uint64_t>("bytes");
      auto device = f.get<std::string>("device");
      auto timing = timingFrom(f);
      if (!instruction || !delegate || !backend || !value || !kind || !direction || !bytes || !device || !timing) continue;
      const auto parsedDirection = program::parseCopyDirection(direction.value());
      auto parsedDevice = program::parseDeviceSpec(device.value());
      if (!parsedDirection || !parsedDevice) continue;
      auto side = f.get<std::string>("side");
      const bool input = !side || side.value() == "input";
      exec::DelegateCopyTiming c;
      auto& t = c.transfer;
      t.instruction = instruction.value();
      t.delegate = delegate.value();
      t.backend = backend.value();
      t.value = value.value();
      t.direction = *parsedDirection;
      t.bytes = bytes.value();
      t.device = parsedDevice.value();
      if (auto upstream = f.get<std::string>("upstream")) t.upstream = upstream.value();
      using K = analysis::DelegateTransferKind;
      for (K k : {K::TensorRTStagedInput, K::TensorRTStagedOutput, K::TensorRTAliasReflect, K::CudaGraphInput, K::CudaGraphOutput,
                   K::CudaStagedInput, K::CudaStagedOutput}) {
        t.kind = k;
        if (analysis::delegateTransferKindName(k) == kind.value() && t.onInputSide() == input) break;
      }
      if (analysis::delegateTransferKindName(t.kind) != kind.value()) continue;
      c.seconds = timing.value();
      p.delegate_copies.push_back(std::move(c));
    }
  }
  return p;
}

#undef PTESCOPE_FIELD

namespace {

// Every copy of a call: the et_copy instructions' medians and those of the
// copies inside delegates (the same bytes whether the backend stages them
// or an edit made them instructions).
double allCopySeconds(const exec::TransferProfile& p) {
  return p.host_to_device.seconds + p.device_to_host.seconds + insideTotals(p).seconds;
}

// The copies inside delegates of two profiles, paired by their identity
// (exec::InsideCopyKey), in order: (latest, previous), either may be null.
std::vector<std::pair<const exec::DelegateCopyTiming*, const exec::DelegateCopyTiming*>> pairInside(
    const exec::TransferProfile& latest, const exec::TransferProfile& previous) {
  std::vector<const analysis::DelegateTransfer*> now;
  for (const auto& c : latest.delegate_copies) now.push_back(&c.transfer);
  const auto keys = exec::insideCopyKeys(now);
  const auto before = exec::insideCopiesByKey(previous);
  std::set<const exec::DelegateCopyTiming*> paired;
  std::vector<std::pair<const exec::DelegateCopyTiming*, const exec::DelegateCopyTiming*>> out;
  for (size_t i = 0; i < keys.size(); ++i) {
    auto it = before.find(keys[i]);
    out.emplace_back(&latest.delegate_copies[i], it == before.end() ? nullptr : it->second);
    if (it != before.end()) paired.insert(it->second);
  }
  for (const auto& c : previous.delegate_copies)
    if (!paired.count(&c)) out.emplace_back(nullptr, &c);
  return out;
}

}  // namespace

double copyTimeChange(const exec::TransferProfile& latest, const exec::TransferProfile& previous) {
  const double before = allCopySeconds(previous);
  const double now = allCopySeconds(latest);
  return before > 0 ? (now - before) / before : 0.0;
}

std::string profileComparisonText(const exec::TransferProfile& latest, const exec::TransferProfile& previous,
                                  const std::string& previousName) {
  std::string out = "\ncompared with " + previousName + " (method '" + previous.method + "', " + previous.runtime + ", " +
                    exec::hostMemoryKindName(previous.host_memory) + ", " + countText(previous.iterations, "iteration") + "):\n";
  if (latest.method != previous.method)
    out += "  note: that profile is of method '" + previous.method + "', this one of '" + latest.method + "'\n";
  if (latest.emulated != previous.emulated)
    out += "  note: one of the two profiles is emulated on the host: their times do not compare\n";
  out += "   instr  dir   source          bytes   median µs   before µs     delta µs    change\n";
  size_t added = 0, removed = 0;
  for (const auto& [now, before] : exec::pairCopies(latest, previous)) {
    const auto& c = now ? *now : *before;
    std::string row = "  " + padded(now ? std::to_string(now->instruction) : std::string("-"), 6, true);
    row += "  " + padded(program::copyDirectionName(c.direction), 4);
    row += "  " + padded("%" + std::to_string(c.source_value), 8);
    row += " " + padded(program::bytesText(int64_t(c.bytes)), 12, true);
    row += " " + padded(now ? microsText(now->seconds.median) : "-", 11, true);
    row += " " + padded(before ? microsText(before->seconds.median) : "-", 11, true);
    const double delta = (now ? now->seconds.median : 0.0) - (before ? before->seconds.median : 0.0);
    row += " " + padded(signedMicros(delta), 12, true);
    row += "    " + (now && before ? changePercent(now->seconds.median, before->seconds.median)
                     : now         ? std::string("new")
                                   : std::string("removed"));
    added += now && !before;
    removed += before && !now;
    out += row + "\n";
  }
  for (auto direction : program::kHostDeviceDirections) {
    const auto& a = latest.totals(direction);
    const auto& b = previous.totals(direction);
    out += "  " + program::copyDirectionName(direction) + ": " + countText(a.copies, "copy", "copies") + " (was " +
           std::to_string(b.copies) + "), " + bytesText(a.bytes) + " (was " + bytesText(b.bytes) + "), median " +
           durationText(a.seconds) + " (was " + durationText(b.seconds) + ", " +
           signedDurationText(a.seconds - b.seconds) + ", " + changePercent(a.seconds, b.seconds) + ")\n";
  }
  const auto pairs = pairInside(latest, previous);
  if (!pairs.empty()) {
    out += "  inside delegates (no instruction; timed after each run):\n";
    for (const auto& [now, before] : pairs) {
      const auto& t = (now ? now : before)->transfer;
      const double delta = (now ? now->seconds.median : 0.0) - (before ? before->seconds.median : 0.0);
      out += "  " + padded(now ? std::to_string(now->transfer.instruction) : std::string("-"), 6, true) + "  " +
             padded(program::copyDirectionName(t.direction), 4) + "  " + padded("%" + std::to_string(t.value), 8) + " " +
             padded(program::bytesText(int64_t(t.bytes)), 12, true) + " " +
             padded(now ? microsText(now->seconds.median) : "-", 11, true) + " " +
             padded(before ? microsText(before->seconds.median) : "-", 11, true) + " " +
             padded(signedMicros(delta), 12, true) + "    " +
             (now && before ? changePercent(now->seconds.median, before->seconds.median)
              : now         ? std::string("new")
                            : std::string("removed")) +
             "  " + insideWhat(t) + "\n";
    }
    const auto a = insideTotals(latest), b = insideTotals(previous);
    out += "  inside delegates: " + countText(a.copies, "copy", "copies") + " (was " + std::to_string(b.copies) + "), " +
           bytesText(int64_t(a.bytes)) + " (was " + bytesText(int64_t(b.bytes)) + "), median " + durationText(a.seconds) +
           " (was " + durationText(b.seconds) + ", " + signedDurationText(a.seconds - b.seconds) + ", " +
           changePercent(a.seconds, b.seconds) + ")\n";
  }
  out += "  copy time per iteration" + std::string(pairs.empty() ? "" : " (with the copies inside delegates)") + ": " +
         changePercent(allCopySeconds(latest), allCopySeconds(previous)) +
         "; " + std::to_string(added) + " new cop" + (added == 1 ? "y" : "ies") + ", " + std::to_string(removed) +
         " removed\n";
  return out;
}

nlohmann::json profileComparisonJson(const exec::TransferProfile& latest, const exec::TransferProfile& previous) {
  nlohmann::json copies = nlohmann::json::array();
  for (const auto& [now, before] : exec::pairCopies(latest, previous)) {
    const auto& c = now ? *now : *before;
    nlohmann::json row = {{"direction", program::copyDirectionName(c.direction)},
                          {"source", c.source_value},
                          {"device", c.device.str()},
                          {"bytes", c.bytes},
                          {"status", now && before ? "both" : now ? "new" : "removed"}};
    row["instruction"] = now ? nlohmann::json(now->instruction) : nlohmann::json(nullptr);
    row["previous_instruction"] = before ? nlohmann::json(before->instruction) : nlohmann::json(nullptr);
    row["median_us"] = now ? nlohmann::json(toMicros(now->seconds.median)) : nlohmann::json(nullptr);
    row["previous_median_us"] = before ? nlohmann::json(toMicros(before->seconds.median)) : nlohmann::json(nullptr);
    row["delta_us"] = toMicros((now ? now->seconds.median : 0.0) - (before ? before->seconds.median : 0.0));
    copies.push_back(row);
  }
  nlohmann::json totals;
  for (auto direction : program::kHostDeviceDirections) {
    const auto& a = latest.totals(direction);
    const auto& b = previous.totals(direction);
    totals[program::copyDirectionName(direction)] = {
        {"copies", a.copies}, {"previous_copies", b.copies}, {"median_us", toMicros(a.seconds)},
        {"previous_median_us", toMicros(b.seconds)}, {"delta_us", toMicros(a.seconds - b.seconds)}};
  }
  {
    const auto a = insideTotals(latest), b = insideTotals(previous);
    totals["inside_delegates"] = {{"copies", a.copies},
                                  {"previous_copies", b.copies},
                                  {"bytes", a.bytes},
                                  {"previous_bytes", b.bytes},
                                  {"median_us", toMicros(a.seconds)},
                                  {"previous_median_us", toMicros(b.seconds)},
                                  {"delta_us", toMicros(a.seconds - b.seconds)}};
  }
  nlohmann::json inside = nlohmann::json::array();
  for (const auto& [now, before] : pairInside(latest, previous)) {
    const auto& t = (now ? now : before)->transfer;
    inside.push_back({{"direction", program::copyDirectionName(t.direction)},
                      {"value", t.value},
                      {"bytes", t.bytes},
                      {"delegate", t.delegate},
                      {"what", insideWhat(t)},
                      {"status", now && before ? "both" : now ? "new" : "removed"},
                      {"median_us", now ? nlohmann::json(toMicros(now->seconds.median)) : nlohmann::json(nullptr)},
                      {"previous_median_us", before ? nlohmann::json(toMicros(before->seconds.median)) : nlohmann::json(nullptr)}});
  }
  return {{"previous_method", previous.method},
          {"previous_runtime", previous.runtime},
          {"previous_emulated", previous.emulated},
          {"copies", copies},
          {"delegate_copies", inside},
          {"totals", totals},
          {"copy_time_change", copyTimeChange(latest, previous)}};
}

}  // namespace ptescope::report
