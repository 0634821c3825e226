#include "report/EtdumpReport.h"

#include "program/Text.h"

#include "report/Json.h"

#include <cstdio>
#include <map>

#include "report/ProfileAnalysisWriters.h"
#include "report/ProfileWriters.h"
#include "report/TraceEvents.h"
#include "report/WriterSupport.h"
#include "util/MappedFile.h"

namespace ptescope::report {

using namespace program::text;

namespace {

std::string blocksSummary(const etdump::EtdumpAnalysis& a) {
  // Runs of equal (name, method): "Default→forward, Execute×3→forward".
  std::string out;
  for (size_t i = 0; i < a.blocks.size();) {
    size_t j = i;
    while (j < a.blocks.size() && a.blocks[j].name == a.blocks[i].name && a.blocks[j].method == a.blocks[i].method) ++j;
    if (!out.empty()) out += ", ";
    out += "\"" + a.blocks[i].name + "\"";
    if (j - i > 1) out += "\u00d7" + std::to_string(j - i);
    out += " \u2192 " + (a.blocks[i].method >= 0 ? a.blocks[i].method_name : std::string("(no method)"));
    i = j;
  }
  return out;
}

}  // namespace

std::vector<std::string> etdumpAssumptions(const etdump::EtdumpAnalysis& a) {
  std::vector<std::string> out{"ticks: 1 tick = " + shortText(a.scale.ns_per_tick) +
                                   " ns (the file does not say; the POSIX runtime ticks in ns)",
                               "methods: " + a.attribution_rule};
  if (const std::string warning = a.warning(); !warning.empty()) out.push_back(warning);
  return out;
}

std::string etdumpText(const etdump::EtdumpAnalysis& a, const program::Program& program, const EtdumpSource& source,
                       const exec::ProfileRuleOptions& rules) {
  std::string out;
  out += "ETDump " + source.etdump_name + " on program " + source.program_name + " (" + etdump::kEtdumpSource + ")\n";
  out += "  " + std::to_string(a.blocks.size()) + " blocks: " + blocksSummary(a) + "\n";
  out += "  events: " + std::to_string(a.profile_events) + " profile, " + std::to_string(a.debug_events) + " debug, " +
         std::to_string(a.allocation_events) + " allocation\n";
  const auto assumed = etdumpAssumptions(a);
  out += "  " + assumed[1] + " (--method overrides)\n";
  out += "  " + assumed[0].substr(0, assumed[0].size() - 1) + "; --tick-ns overrides)\n";

  for (const auto& m : a.methods) {
    out += "\nmethod '" + m.method + "': " + countText(m.iterations, "iteration") + ", " + countText(m.loads, "load") + "\n";
    out += "  run (Method::execute): median " + durationText(m.run_seconds.median) + " (min " + durationText(m.run_seconds.min) + ", max " +
           durationText(m.run_seconds.max) + ")";
    if (m.loads > 0) out += "; load_method median " + durationText(m.load_seconds.median);
    out += "\n";
    const double rest = std::max(0.0, m.run_seconds.median - m.copy_seconds - m.delegate_seconds - m.kernel_seconds - m.other_seconds);
    const auto copies = size_t(std::count_if(m.instructions.begin(), m.instructions.end(),
                                             [](const etdump::InstructionStats& i) { return i.is_copy; }));
    if (m.instructions.empty())
      // Method-level events only: "CPU kernels 0 (0.0%), runtime between
      // instructions <the whole run>" said the run did nothing.
      out += "  per iteration: no instruction was timed, so the run cannot be split\n";
    else
      out += "  per iteration: copies " + program::copyTimeText(copies, m.copy_seconds) + " (" + percentText(m.copy_share) +
             "), delegates " + durationText(m.delegate_seconds) + " (" + percentText(m.delegate_share) + "), CPU kernels " +
             durationText(m.kernel_seconds) + " (" + percentText(m.kernel_share) + "), runtime between instructions " +
             durationText(rest) + "\n";
    if (m.debug_events || m.allocation_events)
      out += "  also " + std::to_string(m.debug_events) + " debug and " +
             countText(m.allocation_events, "allocation event") + "\n";
    const std::string analyses = profileAnalysesText(etdump::toTransferProfile(m, program, source.program_name), rules);
    if (m.instructions.empty()) {
      out += "  no instruction events (traced with method-level profiling only?)\n" + analyses;
      continue;
    }
    out += "\n  " + padded("instr", 6, true) + "  " + padded("category", 10) + " " + padded("per it", 6, true) + " " +
           padded("min µs", 10, true) + " " + padded("median µs", 10, true) + " " + padded("max µs", 10, true) + "  label\n";
    for (const auto& i : m.instructions) {
      out += "  " + padded(std::to_string(i.instruction), 6, true) + "  " + padded(etdump::categoryName(i.category), 10) + " " +
             padded(std::to_string(i.executions_per_iteration), 6, true) + " " + padded(microsText(i.seconds.min), 10, true) + " " +
             padded(microsText(i.seconds.median), 10, true) + " " + padded(microsText(i.seconds.max), 10, true) + "  " + i.label + "\n";
      for (const auto& d : i.delegate_events)
        out += "  " + std::string(6, ' ') + "    " + padded("", 10) + " " + padded(std::to_string(d.executions_per_iteration), 6, true) +
               " " + padded(microsText(d.seconds.min), 10, true) + " " + padded(microsText(d.seconds.median), 10, true) + " " +
               padded(microsText(d.seconds.max), 10, true) + "    \u2514 " + d.name + "\n";
    }
    bool anyCopy = false;
    for (const auto& i : m.instructions) anyCopy = anyCopy || i.is_copy;
    if (!anyCopy) {
      out += analyses;
      continue;
    }
    out += "\n  copies (the et_copy kernel's time; bytes and devices from the program: a trace does not record them):\n";
    out += "  " + padded("instr", 6, true) + "  " + padded("dir", 4) + padded("source", 8) + padded("dest", 8) + padded("device", 8) +
           padded("bytes", 12, true) + " " + padded("min µs", 10, true) + " " + padded("median µs", 10, true) + " " +
           padded("max µs", 10, true) + " " + padded("GB/s", 9, true) + "\n";
    for (const auto& i : m.instructions) {
      if (!i.is_copy) continue;
      out += "  " + padded(std::to_string(i.instruction), 6, true) + "  " + padded(program::copyDirectionName(i.direction), 4) +
             padded("%" + std::to_string(i.source_value), 8) + padded("%" + std::to_string(i.destination_value), 8) +
             padded(i.device.str(), 8) + padded(program::bytesText(int64_t(i.bytes)), 12, true) + " " + padded(microsText(i.copy_seconds.min), 10, true) +
             " " + padded(microsText(i.copy_seconds.median), 10, true) + " " + padded(microsText(i.copy_seconds.max), 10, true) + " " +
             padded(fixedText(i.gbps, 3), 9, true) + "\n";
    }
    out += analyses;
  }
  if (a.methods.size() > 1)
    out += "\nfindings across methods (one trace of the caller running each):\n" +
           findingsText(etdump::roundTripsAcrossMethods(a, program, source.program_name));
  return out;
}

nlohmann::json etdumpJson(const etdump::EtdumpAnalysis& a, const program::Program& program, const EtdumpSource& source,
                          const exec::ProfileRuleOptions& rules) {
  nlohmann::json j;
  j["format"] = "ptescope-etdump";
  j["version"] = kEtdumpReportVersion;
  j["program"] = source.program_name;
  j["etdump"] = source.etdump_name;
  j["source"] = etdump::kEtdumpSource;
  j["ns_per_tick"] = a.scale.ns_per_tick;
  j["attribution"] = a.attribution_rule;
  nlohmann::json blocks = nlohmann::json::array();
  for (const auto& b : a.blocks)
    blocks.push_back({{"block", b.block}, {"name", b.name}, {"method", b.method >= 0 ? nlohmann::json(b.method_name) : nlohmann::json()}});
  j["blocks"] = blocks;
  j["events"] = {{"profile", a.profile_events}, {"debug", a.debug_events}, {"allocation", a.allocation_events}};
  const auto& f = a.misfits;
  j["misfits"] = {{"matched", f.matched},
                  {"out_of_range", f.out_of_range},
                  {"kind_mismatch", f.kind_mismatch},
                  {"name_mismatch", f.name_mismatch},
                  {"unknown", f.unknown},
                  {"unattributed_blocks", f.unattributed_blocks},
                  {"unattributed_events", f.unattributed_events}};
  const std::string warning = a.warning();
  j["warnings"] = warning.empty() ? nlohmann::json::array() : nlohmann::json::array({warning});
  nlohmann::json methods = nlohmann::json::array();
  for (const auto& m : a.methods) {
    const exec::TransferProfile profile = etdump::toTransferProfile(m, program, source.program_name);
    nlohmann::json item = profileJson(profile);
    item["analyses"] = profileAnalysesJson(profile, rules);
    item["loads"] = m.loads;
    item["load"] = timingJson(m.load_seconds);
    item["per_iteration_us"] = {{"copies", toMicros(m.copy_seconds)},
                                {"delegates", toMicros(m.delegate_seconds)},
                                {"cpu_kernels", toMicros(m.kernel_seconds)},
                                {"other", toMicros(m.other_seconds)},
                                {"copy_transfers", toMicros(m.copy_transfer_seconds)}};
    item["shares"] = {{"copies", m.copy_share}, {"delegates", m.delegate_share}, {"cpu_kernels", m.kernel_share}};
    item["debug_events"] = m.debug_events;
    item["allocation_events"] = m.allocation_events;
    // Per instruction: the category and, for delegates, their inner events.
    auto& instructions = item["instructions"];
    for (size_t k = 0; k < instructions.size() && k < m.instructions.size(); ++k) {
      const auto& i = m.instructions[k];
      instructions[k]["category"] = etdump::categoryName(i.category);
      nlohmann::json samples = nlohmann::json::array();
      for (double s : i.samples) samples.push_back(toMicros(s));
      instructions[k]["samples_us"] = samples;
      if (!i.delegate_events.empty()) {
        nlohmann::json inner = nlohmann::json::array();
        for (const auto& d : i.delegate_events) {
          nlohmann::json e = {{"name", d.name}, {"executions_per_iteration", d.executions_per_iteration}};
          if (d.id_int != -1) e["delegate_debug_id_int"] = d.id_int;
          if (!d.id_str.empty()) e["delegate_debug_id_str"] = d.id_str;
          e.update(timingJson(d.seconds));
          inner.push_back(e);
        }
        instructions[k]["delegate_events"] = inner;
      }
    }
    methods.push_back(item);
  }
  j["methods"] = methods;
  j["across_methods"] = findingsJson(etdump::roundTripsAcrossMethods(a, program, source.program_name));
  return j;
}

constexpr const char* kEtdumpCsvHeader =
    "method,instruction,category,label,executions_per_iteration,min_us,median_us,max_us,direction,bytes,copy_min_us,"
    "copy_median_us,copy_max_us,gbps\n";

std::string etdumpCsv(const etdump::EtdumpAnalysis& a) {
  std::string out = kEtdumpCsvHeader;
  for (const auto& m : a.methods) {
    for (const auto& i : m.instructions) {
      out += csvField(m.method) + "," + std::to_string(i.instruction) + "," + etdump::categoryName(i.category) + "," +
             csvField(i.label) + "," + std::to_string(i.executions_per_iteration) + "," + exactText(toMicros(i.seconds.min)) + "," +
             exactText(toMicros(i.seconds.median)) + "," + exactText(toMicros(i.seconds.max)) + ",";
      if (i.is_copy)
        out += program::copyDirectionName(i.direction) + "," + std::to_string(i.bytes) + "," + exactText(toMicros(i.copy_seconds.min)) +
               "," + exactText(toMicros(i.copy_seconds.median)) + "," + exactText(toMicros(i.copy_seconds.max)) + "," + exactText(i.gbps);
      else
        out += ",,,,,";
      out += "\n";
    }
  }
  return out;
}

nlohmann::json etdumpTraceJson(const etdump::EtdumpAnalysis& a, const EtdumpSource& source, const program::Program* program) {
  nlohmann::json events = nlohmann::json::array();
  int pid = 0;
  uint64_t flowIds = 0;  // unique over the processes: viewers match flows by id
  for (const auto& m : a.methods) {
    ++pid;
    const std::string process = "ETDump: method '" + m.method + "' of " + source.program_name + " (" + etdump::kEtdumpSource + ")";
    events.push_back(traceProcessName(pid, process));
    // Lanes in a fixed order: copies up, kernels, delegates per device, down, the method.
    auto rank = [](const std::string& lane) {
      if (lane == program::copyDirectionName(program::CopyDirection::HostToDevice) + " copies") return 0;
      if (lane == "CPU kernels") return 1;
      if (lane.rfind("delegates on ", 0) == 0) return 2;
      if (lane == program::copyDirectionName(program::CopyDirection::DeviceToHost) + " copies") return 3;
      return 4;
    };
    std::map<std::pair<int, std::string>, int> lanes;
    for (const auto& s : m.trace) lanes.emplace(std::make_pair(rank(s.lane), s.lane), 0);
    int tid = 0;
    for (auto& [key, id] : lanes) {
      id = ++tid;
      appendTraceThread(events, pid, id, key.second);
    }
    for (const auto& s : m.trace) {
      nlohmann::json args = {{"block", s.block}, {"iteration", s.iteration}};
      if (s.instruction >= 0) args["instruction"] = s.instruction;
      const std::string cat = s.lane == "method" ? "method" : s.lane.find("copies") != std::string::npos ? "copy"
                              : s.lane.rfind("delegates", 0) == 0                               ? "delegate"
                                                                                               : "kernel";
      events.push_back(traceSliceEvent(TraceSlice{pid, lanes.at(std::make_pair(rank(s.lane), s.lane)), s.name, cat,
                                                  s.start_seconds, s.seconds,
                                                  s.bytes > 0 ? std::optional<uint64_t>(s.bytes) : std::nullopt, args}));
    }
    // Counter tracks from the copy kernels; flow arrows between the
    // instruction scopes of each execution (with the program's def/use).
    std::map<size_t, const etdump::InstructionStats*> statsOf;
    for (const auto& i : m.instructions) statsOf.emplace(i.instruction, &i);
    std::vector<TraceCopy> copies;
    std::vector<TraceInstruction> scopes;
    for (const auto& s : m.trace) {
      if (s.instruction < 0 || s.load) continue;
      const auto stats = statsOf.find(size_t(s.instruction));
      if (stats == statsOf.end()) continue;
      const auto& i = *stats->second;
      if (s.nested && i.is_copy && s.bytes > 0) copies.push_back({i.direction, s.start_seconds, s.seconds, s.bytes});
      if (!s.nested)
        scopes.push_back({s.block, size_t(s.instruction), lanes.at(std::make_pair(rank(s.lane), s.lane)), s.start_seconds,
                          s.seconds, i.is_copy, i.source_value, i.destination_value});
    }
    appendCopyCounterTracks(events, pid, copies);
    if (const program::Method* method = program != nullptr ? program->findMethod(m.method) : nullptr)
      appendCopyFlows(events, pid, scopes, *method, flowIds);
  }
  return traceDocument(events, {{"generator", "ptescope"},
                                {"source", etdump::kEtdumpSource},
                                {"program", source.program_name},
                                {"etdump", source.etdump_name},
                                {"ns_per_tick", a.scale.ns_per_tick}});
}

Status writeEtdumpJson(const etdump::EtdumpAnalysis& a, const program::Program& program, const EtdumpSource& source,
                       const std::string& path, const exec::ProfileRuleOptions& rules) {
  return writeTextFile(path, jsonFileText(etdumpJson(a, program, source, rules), 2));
}

Status writeEtdumpCsv(const etdump::EtdumpAnalysis& a, const std::string& path) { return writeTextFile(path, etdumpCsv(a)); }

Status writeEtdumpTrace(const etdump::EtdumpAnalysis& a, const EtdumpSource& source, const std::string& path,
                        const program::Program* program) {
  return writeTextFile(path, jsonFileText(etdumpTraceJson(a, source, program), -1));
}

}  // namespace ptescope::report
