#include "report/ProfileAnalysisWriters.h"

#include "program/Text.h"
#include "report/WriterSupport.h"

namespace ptescope::report {

using namespace program::text;

namespace {

std::string rowLabel(const exec::TransferSummaryRow& row) {
  if (row.inside_delegates) return program::copyDirectionName(row.direction) + " in delegates";
  return row.size_class ? "  " + exec::sizeClassName(*row.size_class) : program::copyDirectionName(row.direction) + " all";
}

// "all", "lt_4KiB", ..., or "inside_delegates" (JSON, CSV).
std::string rowKey(const exec::TransferSummaryRow& row) {
  if (row.inside_delegates) return "inside_delegates";
  return row.size_class ? exec::sizeClassKey(*row.size_class) : std::string("all");
}

std::string sourceKindKey(exec::ProfileSourceKind kind) {
  switch (kind) {
    case exec::ProfileSourceKind::Emulated: return "emulated";
    case exec::ProfileSourceKind::StandIn: return "stand_in";
    case exec::ProfileSourceKind::Cuda: return "cuda";
    case exec::ProfileSourceKind::HostClock: return "host_clock";
    case exec::ProfileSourceKind::Predicted: return "predicted";
    case exec::ProfileSourceKind::HostCpu: return "host_cpu";
  }
  return "";
}

}  // namespace

std::string transferSummaryText(const exec::TransferSummary& s) {
  std::string out = "transfer statistics over " + program::countText(s.iterations, "measured iteration") + ", every copy execution:\n";
  if (s.rows.empty()) return out + "  no copies\n";
  out += "  " + padded("direction / size", 18) + padded("count", 7, true) + padded("bytes", 12, true) + padded("total µs", 12, true) +
         padded("mean µs", 10, true) + padded("median µs", 10, true) + padded("min µs", 10, true) + padded("max µs", 10, true) +
         padded("stddev µs", 10, true) + padded("GB/s", 9, true) + "\n";
  for (const auto& row : s.rows) {
    const auto& t = row.stats;
    out += "  " + padded(rowLabel(row), 18) + padded(std::to_string(t.count), 7, true) + padded(bytesText(int64_t(t.bytes)), 12, true) +
           padded(microsText(t.total_seconds), 12, true) + padded(microsText(t.mean_seconds), 10, true) +
           padded(microsText(t.median_seconds), 10, true) + padded(microsText(t.min_seconds), 10, true) +
           padded(microsText(t.max_seconds), 10, true) + padded(microsText(t.stddev_seconds), 10, true) + padded(gbpsText(t.gbps), 9, true) +
           "\n";
  }
  if (s.copies_without_samples > 0)
    out += "  (" + std::to_string(s.copies_without_samples) + " cop" + (s.copies_without_samples == 1 ? "y has" : "ies have") +
           " no per-execution samples: counted once at the median)\n";
  return out;
}

nlohmann::json transferSummaryJson(const exec::TransferSummary& s) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : s.rows) {
    const auto& t = row.stats;
    rows.push_back({{"direction", program::copyDirectionName(row.direction)},
                    {"size_class", rowKey(row)},
                    {"count", t.count},
                    {"bytes", t.bytes},
                    {"total_us", toMicros(t.total_seconds)},
                    {"mean_us", toMicros(t.mean_seconds)},
                    {"median_us", toMicros(t.median_seconds)},
                    {"min_us", toMicros(t.min_seconds)},
                    {"max_us", toMicros(t.max_seconds)},
                    {"stddev_us", toMicros(t.stddev_seconds)},
                    {"gbps", t.gbps}});
  }
  return {{"iterations", s.iterations}, {"copies_without_samples", s.copies_without_samples}, {"rows", rows}};
}

std::string transferSummaryCsvHeader() {
  return "method,direction,size_class,count,bytes,total_us,mean_us,median_us,min_us,max_us,stddev_us,gbps\n";
}

std::string transferSummaryCsvRows(const exec::TransferSummary& s, const std::string& method) {
  std::string out;
  for (const auto& row : s.rows) {
    const auto& t = row.stats;
    out += csvField(method) + "," + program::copyDirectionName(row.direction) + "," +
           rowKey(row) + "," + std::to_string(t.count) + "," +
           std::to_string(t.bytes) + "," + exactText(toMicros(t.total_seconds)) + "," + exactText(toMicros(t.mean_seconds)) + "," +
           exactText(toMicros(t.median_seconds)) + "," + exactText(toMicros(t.min_seconds)) + "," + exactText(toMicros(t.max_seconds)) +
           "," + exactText(toMicros(t.stddev_seconds)) + "," + exactText(t.gbps) + "\n";
  }
  return out;
}

std::string timeBreakdownText(const exec::TimeBreakdown& b) {
  std::string out = "time per iteration (sums of per-instruction medians; copies: the transfers alone):\n";
  if (b.run_seconds <= 0) {
    out += "  no run time recorded: kernels " + durationText(b.kernel_seconds) + ", delegates " + durationText(b.delegate_seconds) +
           ", copies " + durationText(b.copy_seconds) + "; shares and gaps cannot be given\n";
  } else if (!b.instructions_timed) {
    // Method-level events only: "kernels 0.0% ... gaps 100.0%" said the run did nothing.
    out += "  run " + durationText(b.run_seconds) + ": no instruction was timed, so it cannot be split\n";
  } else {
    auto part = [&](const char* name, double seconds) {
      return std::string(name) + " " + durationText(seconds) + " (" + percentText(b.share(seconds)) + ")";
    };
    out += "  run " + durationText(b.run_seconds) + " = " + part("kernels", b.kernel_seconds) + " + " +
           (b.delegates_timed ? part("delegates", b.delegate_seconds) : std::string(b.untimedDelegatesText())) + " + " +
           part("copies", b.copy_seconds) + " + " + part("copy overhead", b.copy_overhead_seconds) + " + " +
           part("gaps", b.gap_seconds) + "\n";
  }
  if (b.delegates_not_run > 0)
    out += "  " + program::countText(b.delegates_not_run, "delegate call") + " did not run here: their time is in none of these\n";
  if (b.overlap_visible && b.overlap_seconds)
    out += "  copy/compute overlap: " + durationText(*b.overlap_seconds) + " of the copy time\n";
  else
    out += "  copy/compute overlap: cannot be seen (" + b.overlap_note + ")\n";
  return out;
}

nlohmann::json timeBreakdownJson(const exec::TimeBreakdown& b) {
  nlohmann::json j = {{"run_us", toMicros(b.run_seconds)},
                      {"kernels_us", toMicros(b.kernel_seconds)},
                      {"delegates_us", b.delegates_timed ? nlohmann::json(toMicros(b.delegate_seconds)) : nlohmann::json(nullptr)},
                      {"copies_us", toMicros(b.copy_seconds)},
                      {"copy_overhead_us", toMicros(b.copy_overhead_seconds)},
                      {"gaps_us", b.run_seconds > 0 ? nlohmann::json(toMicros(b.gap_seconds)) : nlohmann::json(nullptr)},
                      {"delegates_not_run", b.delegates_not_run},
                      {"overlap_visible", b.overlap_visible},
                      {"overlap_us", b.overlap_seconds ? nlohmann::json(toMicros(*b.overlap_seconds)) : nlohmann::json(nullptr)},
                      {"overlap_note", b.overlap_note}};
  if (b.run_seconds > 0)
    j["shares"] = {{"kernels", b.share(b.kernel_seconds)},
                   {"delegates", b.delegates_timed ? nlohmann::json(b.share(b.delegate_seconds)) : nlohmann::json(nullptr)},
                   {"copies", b.share(b.copy_seconds)},
                   {"copy_overhead", b.share(b.copy_overhead_seconds)},
                   {"gaps", b.share(b.gap_seconds)}};
  else
    j["shares"] = nullptr;
  return j;
}

std::string findingsText(const std::vector<exec::ProfileFinding>& findings) {
  std::string out;
  if (findings.empty()) out += "  none\n";
  for (const auto& f : findings)
    out += "  warning " + f.id + " [" + f.slug + "] " + f.location() + ": " + f.message + "\n      evidence: " + f.evidence +
           "\n      fix: " + f.fix + "\n";
  return out;
}

std::string profileCheckText(const exec::ProfileCheck& check) {
  std::string out = "findings:\n" + findingsText(check.findings);
  for (const auto& line : check.not_judged) out += "  " + line + "\n";
  return out;
}

nlohmann::json findingsJson(const std::vector<exec::ProfileFinding>& findings) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : findings) {
    nlohmann::json j{{"id", f.id},
                     {"slug", f.slug},
                     {"severity", "warning"},
                     {"method", f.method},
                     {"instructions", f.instructions},
                     {"message", f.message},
                     {"evidence", f.evidence},
                     {"fix", f.fix}};
    if (!f.other_method.empty()) {
      j["other_method"] = f.other_method;
      j["other_instructions"] = f.other_instructions;
    }
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::json profileCheckJson(const exec::ProfileCheck& check) {
  return {{"findings", findingsJson(check.findings)}, {"not_judged", check.not_judged}};
}

exec::ProfileRuleOptions ruleOptionsForLink(const cost::LinkProfile& link) {
  exec::ProfileRuleOptions options;
  for (auto direction : program::kHostDeviceDirections) {
    const cost::LinkCurve* curve = link.curve(direction, cost::LinkMemory::Pinned);
    if (curve == nullptr || curve->points.empty()) continue;
    (direction == program::CopyDirection::HostToDevice ? options.h2d_peak_gbps : options.d2h_peak_gbps) =
        curve->gbpsFor(curve->points.back().bytes);
  }
  options.peak_source = "the link " + link.label() + " (pinned, at its largest size)";
  return options;
}

std::string profileAnalysesText(const exec::TransferProfile& profile, const exec::ProfileRuleOptions& options) {
  const auto facts = exec::sourceFacts(profile);
  std::string out = "\nanalyses (source: " + facts.name + ")\n";
  out += transferSummaryText(exec::summarizeTransfers(profile));
  out += timeBreakdownText(exec::breakDownTime(profile));
  out += profileCheckText(exec::checkProfile(profile, options));
  return out;
}

nlohmann::json profileAnalysesJson(const exec::TransferProfile& profile, const exec::ProfileRuleOptions& options) {
  const auto facts = exec::sourceFacts(profile);
  nlohmann::json j = profileCheckJson(exec::checkProfile(profile, options));
  j["source"] = {{"kind", sourceKindKey(facts.kind)},
                 {"name", facts.name},
                 {"host_memory_known", facts.host_memory_known},
                 {"delegates_timed", facts.delegates_timed},
                 {"link_peak", facts.link_peak},
                 {"overlap_visible", facts.overlap_visible}};
  j["summary"] = transferSummaryJson(exec::summarizeTransfers(profile));
  j["breakdown"] = timeBreakdownJson(exec::breakDownTime(profile));
  return j;
}

}  // namespace ptescope::report
