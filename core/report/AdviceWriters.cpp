#include "report/AdviceWriters.h"

#include <cstdio>
#include "report/RunText.h"

#include "program/Text.h"

namespace ptescope::report {

namespace {

// A ratio read at a glance: three significant digits ("0.00922", "12.4").
std::string threeDigits(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

}  // namespace
namespace {

using advise::CopyCounts;

nlohmann::json countsJson(const CopyCounts& c) {
  nlohmann::json j{{"h2d", c.h2d}, {"d2h", c.d2h}};
  if (c.d2d > 0) j["d2d"] = c.d2d;
  j["bytes"] = c.bytes;
  j["predicted_us"] = program::tidyMicros(program::toMicros(c.seconds));
  if (c.inside_delegates > 0) j["inside_delegates"] = {{"copies", c.inside_delegates}, {"bytes", c.inside_delegate_bytes}};
  return j;
}

// "4 copies (2 h2d, 2 d2h), 832 B, 20.4 µs"; "no copies" (it read "0
// copies (0 h2d, 0 d2h), 0 B, 0", a time without a unit).
std::string countsText(const CopyCounts& c) {
  if (c.total() == 0 && c.bytes == 0) return "no copies";
  std::string out = std::to_string(c.total()) + (c.total() == 1 ? " copy" : " copies") + " (" + std::to_string(c.h2d) +
                    " h2d, " + std::to_string(c.d2h) + " d2h";
  if (c.d2d > 0) out += ", " + std::to_string(c.d2d) + " d2d";
  if (c.inside_delegates > 0) out += "; " + std::to_string(c.inside_delegates) + " inside delegates";
  return out + "), " + program::bytesText(int64_t(c.bytes)) + ", " + program::durationText(c.seconds);
}

std::string arrow(size_t before, size_t after) { return std::to_string(before) + " -> " + std::to_string(after); }

}  // namespace

nlohmann::json candidateEditsJson(const advise::CandidateEdits& edits) {
  const auto& o = edits.options;
  nlohmann::json j{{"enable_non_cpu_memory_planning", o.enable_non_cpu_memory_planning},
                   {"skip_h2d_for_method_inputs", o.skip_h2d_for_method_inputs},
                   {"skip_d2h_for_method_outputs", o.skip_d2h_for_method_outputs},
                   {"alloc_graph_input", o.alloc_graph_input},
                   {"alloc_graph_output", o.alloc_graph_output}};
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& m : edits.moves)
    devices.push_back({{"delegate", m.delegate}, {"device", m.to.str()}, {"from", m.from.str()}});
  j["target_devices"] = devices;
  j["flags"] = advise::propagateFlags(edits);
  return j;
}

nlohmann::json adviceJson(const advise::Advice& advice) {
  nlohmann::json methods = nlohmann::json::array();
  for (const auto& m : advice.methods) {
    nlohmann::json candidates = nlohmann::json::array();
    for (const auto& c : m.candidates) {
      nlohmann::json memory = nlohmann::json::array();
      for (const auto& d : c.device_memory) memory.push_back({{"device", d.device.str()}, {"bytes", d.bytes}});
      candidates.push_back({{"rank", c.rank},
                            {"edits", candidateEditsJson(c.edits)},
                            {"edit_count", c.edits.count()},
                            {"copies_before", countsJson(c.copies_before)},
                            {"copies_after", countsJson(c.copies_after)},
                            {"bytes_per_call_after", c.copies_after.bytes},
                            {"predicted_saving_us", program::tidyMicros(c.predicted_saving_us)},
                            {"device_memory", memory},
                            {"caller_contract", c.caller_contract}});
    }
    nlohmann::json rejected = nlohmann::json::array();
    for (const auto& r : m.rejected)
      rejected.push_back({{"edits", candidateEditsJson(r.edits)}, {"edits_text", r.edits_text}, {"reason", r.reason}});
    nlohmann::json devices = nlohmann::json::array();
    for (const auto& d : m.devices) devices.push_back(d.str());
    methods.push_back({{"name", m.name},
                       {"copies_now", countsJson(m.copies_now)},
                       {"devices", devices},
                       {"device_delegates", m.device_delegates},
                       {"search", m.search == advise::SearchKind::Exhaustive ? "exhaustive" : "local"},
                       // A count: an integer while a double holds it exactly (it printed 40.0).
                       {"combinations", m.space <= 9007199254740992.0 ? nlohmann::json(uint64_t(m.space)) : nlohmann::json(m.space)},
                       {"pipeline_runs", m.pipeline_runs},
                       {"budget_reached", m.budget_reached},
                       {"search_note", m.search_note},
                       {"valid_with_saving", m.valid_with_saving},
                       {"distinct_with_saving", m.distinct_with_saving},
                       {"file_is_best", m.file_is_best()},
                       {"candidates", candidates},
                       {"rejected", rejected}});
  }
  return {{"format", "ptescope-advice"},
          {"version", kAdviceFormatVersion},
          {"link", advice.link_name},
          {"link_label", advice.link_label},
          {"host_memory", exec::hostMemoryKindName(advice.host_memory)},
          {"pipeline_runs", advice.pipeline_runs},
          {"methods", methods}};
}

std::string adviceText(const advise::Advice& advice) {
  std::string out = "Copy time predicted on " + advice.link_label + ", " + exec::hostMemoryKindName(advice.host_memory) +
                    " host memory.\n";
  // Listed flags paste into propagate as they are: with several methods
  // they name theirs (the skip flags alone would edit every method).
  const bool nameMethod = advice.program_methods > 1;
  for (const auto& m : advice.methods) {
    out += "\nmethod '" + m.name + "': now " + countsText(m.copies_now) + " per call\n";
    out += "  " + m.search_note + "\n";
    if (m.file_is_best() && m.device_delegates == 0 && m.copies_now.total() == 0)
      out += "  no delegate targets a device and nothing is copied: nothing to advise\n";
    else if (m.file_is_best())
      out += "  the file's options are already best: no valid edit saves copy time on this link\n";
    // How many there are beyond those listed, in the words of the list:
    // the app said "best 1 of the 4 valid edits" where 3 only added edits to
    // the first for no more saving and could be seen nowhere.
    if (m.candidates.size() < m.distinct_with_saving)
      out += "  the best " + std::to_string(m.candidates.size()) + " of " + std::to_string(m.distinct_with_saving) +
             " valid edits that save copy time (--top 0 lists them all)\n";
    if (const size_t more = m.valid_with_saving - std::min(m.valid_with_saving, m.distinct_with_saving); more > 0)
      out += "  not listed: " + program::countText(int64_t(more), "valid edit") +
             " that only add edits to a listed one for no more saving\n";
    for (const auto& c : m.candidates) {
      out += "  " + std::to_string(c.rank) + ". " + advise::editsText(c.edits, nameMethod) + "\n";
      out += "     saves " + program::durationText(c.predicted_saving_us / 1e6) + " per call: h2d " +
             arrow(c.copies_before.h2d, c.copies_after.h2d) + ", d2h " + arrow(c.copies_before.d2h, c.copies_after.d2h);
      if (c.copies_before.d2d + c.copies_after.d2d > 0) out += ", d2d " + arrow(c.copies_before.d2d, c.copies_after.d2d);
      if (c.copies_before.inside_delegates + c.copies_after.inside_delegates > 0)
        out += " (inside delegates " + arrow(c.copies_before.inside_delegates, c.copies_after.inside_delegates) + ")";
      out += "; " + program::bytesText(int64_t(c.copies_after.bytes)) + " per call after (was " +
             program::bytesText(int64_t(c.copies_before.bytes)) + ")\n";
      if (!c.device_memory.empty()) {
        std::string memory;
        for (const auto& d : c.device_memory)
          memory += (memory.empty() ? "" : ", ") + d.device.str() + " " + program::bytesText(int64_t(d.bytes));
        out += "     device memory: " + memory + "\n";
      }
      for (const auto& line : c.caller_contract) out += "     caller: " + line + "\n";
    }
    if (!m.rejected.empty()) {
      out += "  rejected:\n";
      for (const auto& r : m.rejected) out += "    " + advise::editsText(r.edits, nameMethod) + ": " + r.reason + "\n";
    }
  }
  return out;
}

namespace {

std::string measuredNote(const advise::MeasuredCandidate& c) {
  if (c.fully_measured()) return "measured";
  std::string out;
  if (c.removed_predicted > 0)
    out += std::to_string(c.removed_predicted) + " removed cop" + (c.removed_predicted == 1 ? "y" : "ies") + " predicted*";
  if (c.added > 0) out += std::string(out.empty() ? "" : ", ") + std::to_string(c.added) + " added predicted*";
  if (c.inside_delegates_saving_us != 0) out += std::string(out.empty() ? "" : ", ") + "inside delegates predicted*";
  return out;
}

}  // namespace

std::string measuredAdviceText(const advise::MeasuredMethodAdvice& a, const std::string& profileName, bool nameMethod) {
  std::string out = "\nmethod '" + a.method + "' ranked by measured copy time (" + profileName + ": " + a.profile_source + ", " +
                    program::countText(a.iterations, "iteration") + "; " + std::to_string(a.matched_copies) + " of its " +
                    program::countText(a.profile_copies, "copy", "copies") + " found in the program)\n";
  if (a.candidates.empty()) return out + "  no candidate to rank\n";
  out += "  " + program::padded("rank", 4, true) + " " + program::padded("pred.", 5, true) + " " +
         program::padded("measured saving", 16, true) + " " + program::padded("predicted saving", 17, true) + "  " +
         program::padded("removed copies", 15) + "edits\n";
  bool anyPredicted = false;
  for (const auto& c : a.candidates) {
    anyPredicted = anyPredicted || !c.fully_measured();
    out += "  " + program::padded(std::to_string(c.rank), 4, true) + " " + program::padded(std::to_string(c.predicted_rank), 5, true) +
           " " + program::padded(program::durationText(c.measured_saving_us / 1e6) + (c.fully_measured() ? " " : "*"), 16, true) +
           " " + program::padded(program::durationText(c.predicted_saving_us / 1e6), 17, true) + "  " +
           program::padded(std::to_string(c.removed_measured + c.removed_predicted) + " (" + measuredNote(c) + ")", 15) + "  " +
           advise::editsText(c.edits, nameMethod) + "\n";
  }
  if (a.emulated)
    out += "  note: an emulated profile: its copy times are host memcpy, not a link's; profile on the GPU to rank by it\n";
  if (anyPredicted) {
    out += "  * part of the figure is predicted: copies the profile does not cover, copies the edits add, copies "
           "inside delegates\n";
    if (a.predicted_scale != 1.0)
      out += "    (on the profile's scale: predicted times × " + threeDigits(a.predicted_scale) +
             ", the median measured / predicted time of the copies it matched)\n";
  }
  if (a.matched_copies < a.profile_copies)
    out += "  note: " + std::to_string(a.profile_copies - a.matched_copies) +
           " cop(ies) of the profile are not in this program: is it a profile of another file?\n";
  return out;
}

nlohmann::json measuredAdviceJson(const advise::MeasuredMethodAdvice& a, const std::string& profileName) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const auto& c : a.candidates)
    candidates.push_back({{"rank", c.rank},
                          {"predicted_rank", c.predicted_rank},
                          {"edits", candidateEditsJson(c.edits)},
                          {"measured_saving_us", program::tidyMicros(c.measured_saving_us)},
                          {"predicted_saving_us", program::tidyMicros(c.predicted_saving_us)},
                          {"removed_measured", c.removed_measured},
                          {"removed_predicted", c.removed_predicted},
                          {"added_predicted", c.added},
                          {"inside_delegates_saving_us", program::tidyMicros(c.inside_delegates_saving_us)},
                          {"fully_measured", c.fully_measured()}});
  return {{"method", a.method},
          {"profile", profileName},
          {"profile_source", a.profile_source},
          {"emulated", a.emulated},
          {"iterations", a.iterations},
          {"profile_copies", a.profile_copies},
          {"matched_copies", a.matched_copies},
          {"predicted_scale", a.predicted_scale},
          {"candidates", candidates}};
}

}  // namespace ptescope::report
