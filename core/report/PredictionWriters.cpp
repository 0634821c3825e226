#include "report/PredictionWriters.h"

#include <cstdio>
#include <map>

#include "report/ProfileWriters.h"

namespace ptescope::report {

using exec::TransferDirection;

namespace {

double micros(double seconds) { return seconds * 1e6; }

std::string formatted(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string bytesText(uint64_t bytes) {
  if (bytes >= 1024ull * 1024 * 1024) return formatted("%.1f GiB", double(bytes) / (1024.0 * 1024 * 1024));
  if (bytes >= 1024ull * 1024) return formatted("%.1f MiB", double(bytes) / (1024.0 * 1024));
  if (bytes >= 1024) return formatted("%.1f KiB", double(bytes) / 1024.0);
  return std::to_string(bytes) + " B";
}

std::string pad(std::string text, size_t width, bool right = false) {
  if (text.size() >= width) return text;
  return right ? std::string(width - text.size(), ' ') + text : text + std::string(width - text.size(), ' ');
}

// The measured copy of each predicted one, by instruction of the prediction.
std::map<size_t, const exec::CopyProfile*> measuredByInstruction(const cost::MethodPrediction& prediction,
                                                                 const exec::TransferProfile& predicted,
                                                                 const exec::TransferProfile* measured) {
  std::map<size_t, const exec::CopyProfile*> out;
  if (measured == nullptr || measured->method != prediction.method) return out;
  for (const auto& pair : pairCopies(predicted, *measured))
    if (pair.latest && pair.previous) out[pair.latest->instruction] = pair.previous;
  return out;
}

std::string linkLine(const cost::LinkProfile& link, exec::HostMemoryKind hostMemory) {
  return link.label() + ", " + exec::hostMemoryKindName(hostMemory) + " host memory";
}

}  // namespace

std::string predictionText(const cost::MethodPrediction& p, const cost::LinkProfile& link,
                           const PredictionContext& context) {
  const auto predicted = cost::asTransferProfile(p);
  const auto measured = measuredByInstruction(p, predicted, context.measured);
  const bool withMeasured = context.measured != nullptr && context.measured->method == p.method;
  std::string out = "predicted copies of method '" + p.method + "'" +
                    (context.program_name.empty() ? "" : " in " + context.program_name) + "\n";
  out += "  link: " + linkLine(link, p.host_memory) + "\n";
  if (!link.note.empty()) out += "  " + link.note + "\n";
  out += "\n";
  if (p.copies.empty()) {
    out += "  the method makes no host-device copies\n";
  } else {
    std::string header = "   instr  dir   source    dest      device           bytes  predicted us   pred. GB/s";
    if (withMeasured) header += "  measured us  measured/predicted";
    out += header + "\n";
    for (const auto& c : p.copies) {
      std::string row = "  " + pad(std::to_string(c.instruction), 6, true);
      row += "  " + pad(exec::directionName(c.direction), 4);
      row += "  " + pad("%" + std::to_string(c.source_value), 8);
      row += "  " + pad("%" + std::to_string(c.destination_value), 8);
      row += "  " + pad(c.device.str(), 8);
      row += " " + pad(std::to_string(c.bytes), 14, true);
      row += " " + pad(formatted("%.2f", micros(c.seconds)), 13, true);
      row += " " + pad(formatted("%.2f", c.seconds > 0 ? double(c.bytes) / c.seconds / 1e9 : 0.0), 12, true);
      if (withMeasured) {
        auto it = measured.find(c.instruction);
        row += " " + pad(it != measured.end() ? formatted("%.2f", micros(it->second->seconds.median)) : "-", 12, true);
        row += " " + pad(it != measured.end() && c.seconds > 0 ? formatted("%.2f", it->second->seconds.median / c.seconds)
                                                              : "-",
                         19, true);
      }
      out += row + "\n";
    }
  }
  out += "\npredicted per iteration:\n";
  for (auto direction : {TransferDirection::HostToDevice, TransferDirection::DeviceToHost}) {
    const auto& t = p.totals(direction);
    out += "  " + exec::directionName(direction) + ": " + std::to_string(t.copies) + " cop" +
           (t.copies == 1 ? "y" : "ies") + ", " + bytesText(t.bytes) + ", " + formatted("%.2f", micros(t.seconds)) +
           " us";
    if (withMeasured) out += " (measured median " + formatted("%.2f", micros(context.measured->totals(direction).seconds)) + " us)";
    out += "\n";
  }
  out += "  copies: " + formatted("%.2f", micros(p.copySeconds())) + " us per iteration\n";
  if (context.compute_seconds) {
    const double compute = *context.compute_seconds;
    out += "  with " + formatted("%.3f", compute * 1e3) + " ms of compute: copies are " +
           formatted("%.1f%%", cost::copyShare(p.copySeconds(), compute) * 100) + " of a " +
           formatted("%.3f", (compute + p.copySeconds()) * 1e3) + " ms run\n";
  }
  if (withMeasured)
    out += "  measured: " + context.measured_name + " (" + context.measured->runtime +
           (context.measured->emulated ? ", emulated: host memcpy, not a link" : "") + ")\n";
  return out;
}

nlohmann::json predictionJson(const cost::MethodPrediction& p, const cost::LinkProfile& link,
                              const PredictionContext& context) {
  const auto predicted = cost::asTransferProfile(p);
  const auto measured = measuredByInstruction(p, predicted, context.measured);
  nlohmann::json j;
  j["format"] = "ptescope-prediction";
  j["version"] = kPredictionFormatVersion;
  j["program"] = context.program_name;
  j["method"] = p.method;
  j["link"] = {{"name", link.name}, {"title", link.title}, {"kind", link.kind}, {"label", link.label()},
               {"note", link.note}};
  j["host_memory"] = exec::hostMemoryKindName(p.host_memory);
  nlohmann::json copies = nlohmann::json::array();
  for (const auto& c : p.copies) {
    nlohmann::json copy = {{"instruction", c.instruction},
                           {"direction", exec::directionName(c.direction)},
                           {"source", c.source_value},
                           {"canonical_source", c.canonical_source},
                           {"destination", c.destination_value},
                           {"device", c.device.str()},
                           {"bytes", c.bytes},
                           {"predicted_us", micros(c.seconds)},
                           {"predicted_gbps", c.seconds > 0 ? double(c.bytes) / c.seconds / 1e9 : 0.0}};
    if (context.measured != nullptr) {
      auto it = measured.find(c.instruction);
      copy["measured_median_us"] = it != measured.end() ? nlohmann::json(micros(it->second->seconds.median)) : nlohmann::json();
      copy["measured_over_predicted"] = it != measured.end() && c.seconds > 0
                                            ? nlohmann::json(it->second->seconds.median / c.seconds)
                                            : nlohmann::json();
    }
    copies.push_back(copy);
  }
  j["copies"] = copies;
  nlohmann::json totals;
  for (auto direction : {TransferDirection::HostToDevice, TransferDirection::DeviceToHost}) {
    const auto& t = p.totals(direction);
    totals[direction == TransferDirection::HostToDevice ? "h2d" : "d2h"] = {
        {"copies", t.copies}, {"bytes", t.bytes}, {"predicted_us", micros(t.seconds)}};
  }
  j["totals"] = totals;
  j["copy_us"] = micros(p.copySeconds());
  if (context.compute_seconds) {
    j["compute_us"] = micros(*context.compute_seconds);
    j["copy_share"] = cost::copyShare(p.copySeconds(), *context.compute_seconds);
  }
  if (context.measured != nullptr) j["measured"] = {{"file", context.measured_name}, {"runtime", context.measured->runtime},
                                                    {"emulated", context.measured->emulated}};
  return j;
}

std::string predictionDeltaText(const std::string& what, double before, double after, const cost::LinkProfile& link,
                                exec::HostMemoryKind hostMemory) {
  const double delta = after - before;
  std::string change;
  if (delta < 0)
    change = "saves " + formatted("%.2f", micros(-delta)) + " us";
  else if (delta > 0)
    change = "adds " + formatted("%.2f", micros(delta)) + " us";
  else
    change = "no change";
  if (before > 0 && delta != 0) change += ", " + formatted("%+.1f%%", 100 * delta / before);
  return "predicted copy time per run of " + what + " on " + linkLine(link, hostMemory) + ": " +
         formatted("%.2f", micros(before)) + " us -> " + formatted("%.2f", micros(after)) + " us (" + change + ")\n";
}

nlohmann::json predictionDeltaJson(double before, double after, const cost::LinkProfile& link,
                                   exec::HostMemoryKind hostMemory) {
  return {{"link", link.name},
          {"link_label", link.label()},
          {"host_memory", exec::hostMemoryKindName(hostMemory)},
          {"before_us", micros(before)},
          {"after_us", micros(after)},
          {"delta_us", micros(after - before)}};
}

}  // namespace ptescope::report
