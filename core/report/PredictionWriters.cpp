#include "report/PredictionWriters.h"

#include "program/Text.h"

#include <cstdio>
#include <map>

#include "report/InfoReport.h"
#include "report/ProfileWriters.h"
#include "report/WriterSupport.h"

namespace ptescope::report {

using namespace program::text;

using program::CopyDirection;

namespace {

// The measured copy of each predicted one, by instruction of the prediction.
std::map<size_t, const exec::CopyProfile*> measuredByInstruction(const cost::MethodPrediction& prediction,
                                                                 const exec::TransferProfile& predicted,
                                                                 const exec::TransferProfile* measured) {
  std::map<size_t, const exec::CopyProfile*> out;
  if (measured == nullptr || measured->method != prediction.method) return out;
  for (const auto& pair : exec::pairCopies(predicted, *measured))
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
  if (p.copies.empty() && p.delegate_copies.empty()) {
    out += "  the method makes no host-device copies\n";
  } else if (p.copies.empty()) {
    out += "  no et_copy instructions\n";
  } else {
    std::string header = "   instr  dir   source    dest      device           bytes  predicted µs   pred. GB/s";
    if (withMeasured) header += "  measured µs  measured/predicted";
    out += header + "\n";
    for (const auto& c : p.copies) {
      std::string row = "  " + padded(std::to_string(c.instruction), 6, true);
      row += "  " + padded(program::copyDirectionName(c.direction), 4);
      row += "  " + padded("%" + std::to_string(c.source_value), 8);
      row += "  " + padded("%" + std::to_string(c.destination_value), 8);
      row += "  " + padded(c.device.str(), 8);
      row += " " + padded(program::bytesText(int64_t(c.bytes)), 14, true);
      row += " " + padded(microsText(c.seconds), 13, true);
      row += " " + padded(fixedText(c.seconds > 0 ? double(c.bytes) / c.seconds / 1e9 : 0.0, 2), 12, true);
      if (withMeasured) {
        auto it = measured.find(c.instruction);
        row += " " + padded(it != measured.end() ? microsText(it->second->seconds.median) : "-", 12, true);
        row += " " + padded(it != measured.end() && c.seconds > 0 ? fixedText(it->second->seconds.median / c.seconds, 2)
                                                              : "-",
                         19, true);
      }
      out += row + "\n";
    }
  }
  if (!p.delegate_copies.empty()) {
    out += "\n  inside delegates (no instruction: the backend copies; see README \"Copies inside delegates\"):\n";
    out += "   instr  dir   value     device           bytes  predicted µs  kind\n";
    for (const auto& c : p.delegate_copies) {
      const auto& t = c.transfer;
      out += "  " + padded(std::to_string(t.instruction), 6, true) + "  " + padded(program::copyDirectionName(t.direction), 4) +
             "  " + padded("%" + std::to_string(t.value), 8) + "  " + padded(t.device.str(), 8) + " " +
             padded(program::bytesText(int64_t(t.bytes)), 14, true) + " " + padded(microsText(c.seconds), 13, true) + "  delegate " +
             std::to_string(t.delegate) + " " + t.backend + ", " + analysis::delegateTransferKindName(t.kind) + " (" +
             t.upstream + ")\n";
    }
  }
  for (const auto& r : p.delegate_refusals) out += "  refused: " + r.message + "\n";
  out += "\npredicted per iteration:\n";
  for (auto direction : program::kHostDeviceDirections) {
    const auto& t = p.totals(direction);
    out += "  " + program::copyDirectionName(direction) + ": " + std::to_string(t.copies) + " cop" +
           (t.copies == 1 ? "y" : "ies") + ", " + bytesText(t.bytes) + ", " + copyTimeText(t.copies, t.seconds);
    if (withMeasured) out += " (measured median " + durationText(context.measured->totals(direction).seconds) + ")";
    out += "\n";
  }
  for (auto direction : {CopyDirection::HostToDevice, CopyDirection::DeviceToHost, CopyDirection::DeviceToDevice}) {
    const auto t = p.insideDelegates(direction);
    if (t.copies == 0) continue;
    out += "  " + program::copyDirectionName(direction) + " inside delegates: " + std::to_string(t.copies) + " cop" +
           (t.copies == 1 ? "y" : "ies") + ", " + bytesText(t.bytes) + ", " + durationText(t.seconds) + "\n";
  }
  out += "  copies: " + (p.copyCount() == 0 ? std::string("none") : durationText(p.copySeconds()) + " per iteration") +
         (p.inside_delegates.copies ? " (" + durationText(p.inside_delegates.seconds) + " inside delegates)" : "") + "\n";
  if (const std::string note = cost::assumedDeviceCopyNote(link);
      !note.empty() && p.insideDelegates(CopyDirection::DeviceToDevice).copies > 0)
    out += "  " + note + "\n";
  if (context.compute_seconds) {
    const double compute = *context.compute_seconds;
    out += "  with " + fixedText(compute * 1e3, 3) + " ms of compute: copies are " +
           percentText(cost::copyShare(p.copySeconds(), compute)) + " of a " +
           fixedText((compute + p.copySeconds()) * 1e3, 3) + " ms run\n";
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
    nlohmann::json copy = copyIdentityJson(c);
    copy["predicted_us"] = toMicros(c.seconds);
    copy["predicted_gbps"] = c.seconds > 0 ? double(c.bytes) / c.seconds / 1e9 : 0.0;
    if (context.measured != nullptr) {
      auto it = measured.find(c.instruction);
      copy["measured_median_us"] = it != measured.end() ? nlohmann::json(toMicros(it->second->seconds.median)) : nlohmann::json();
      copy["measured_over_predicted"] = it != measured.end() && c.seconds > 0
                                            ? nlohmann::json(it->second->seconds.median / c.seconds)
                                            : nlohmann::json();
    }
    copies.push_back(copy);
  }
  j["copies"] = copies;
  nlohmann::json totals;
  for (auto direction : program::kHostDeviceDirections) {
    const auto& t = p.totals(direction);
    totals[program::copyDirectionName(direction)] = {
        {"copies", t.copies}, {"bytes", t.bytes}, {"predicted_us", toMicros(t.seconds)}};
  }
  for (auto direction : {CopyDirection::HostToDevice, CopyDirection::DeviceToHost, CopyDirection::DeviceToDevice}) {
    const auto t = p.insideDelegates(direction);
    totals["inside_delegates"][program::copyDirectionName(direction)] = {
        {"copies", t.copies}, {"bytes", t.bytes}, {"predicted_us", toMicros(t.seconds)}};
  }
  j["totals"] = totals;
  analysis::DelegateTransfers inside;
  for (const auto& c : p.delegate_copies) inside.transfers.push_back(c.transfer);
  inside.refusals = p.delegate_refusals;
  j["delegate_copies"] = delegateTransfersJson(inside);
  for (size_t i = 0; i < p.delegate_copies.size(); ++i)
    j["delegate_copies"]["transfers"][i]["predicted_us"] = toMicros(p.delegate_copies[i].seconds);
  // Whether the d2d figure is the link's own or assumed (kTypicalDeviceCopy).
  j["d2d_assumed"] = !cost::assumedDeviceCopyNote(link).empty();
  j["copy_us"] = toMicros(p.copySeconds());
  if (context.compute_seconds) {
    j["compute_us"] = toMicros(*context.compute_seconds);
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
    change = "saves " + durationText(-delta);
  else if (delta > 0)
    change = "adds " + durationText(delta);
  else
    change = "no change";
  if (before > 0 && delta != 0) change += ", " + signedFixedText(100 * delta / before, 1) + "%";
  return "predicted copy time per run of " + what + " on " + linkLine(link, hostMemory) + ": " +
         durationText(before) + " -> " + durationText(after) + " (" + change + ")\n";
}

nlohmann::json predictionDeltaJson(double before, double after, const cost::LinkProfile& link,
                                   exec::HostMemoryKind hostMemory) {
  return {{"link", link.name},
          {"link_label", link.label()},
          {"host_memory", exec::hostMemoryKindName(hostMemory)},
          {"before_us", toMicros(before)},
          {"after_us", toMicros(after)},
          {"delta_us", toMicros(after - before)}};
}

}  // namespace ptescope::report
