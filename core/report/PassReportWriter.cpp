#include "report/PassReportWriter.h"

#include <sstream>

#include "program/Text.h"

namespace ptescope::report {
using namespace ptescope::passes;
using nlohmann::json;

namespace {


json buffersJson(const std::vector<BufferInfo>& buffers) {
  json out = json::array();
  for (const auto& b : buffers) out.push_back({{"buffer_idx", b.buffer_idx}, {"size", b.size}, {"device", b.device.str()}});
  return out;
}

// The planned buffers in units, each with its device, as the app's Changes
// panel says them: "[32 B cpu:0, 48 B cuda:0]" (it said "[0, 32, 48 cuda:0]",
// the file's sizes with the reserved 0).
std::string buffersText(const std::vector<BufferInfo>& buffers) {
  std::string out = "[";
  for (size_t i = 0; i < buffers.size(); ++i)
    out += (i ? ", " : "") + program::bytesText(int64_t(buffers[i].size)) + " " + buffers[i].device.str();
  return out + "]";
}

std::string copyText(const CopyRecord& c) {
  std::string s = std::string(program::copyDirectionName(c.direction)) + " %" + std::to_string(c.source) + " " + c.from.str() +
                  " -> " + c.to.str() + ", " + program::bytesText(int64_t(c.bytes));
  if (c.direction == program::CopyDirection::HostToDevice && c.consumer_delegate >= 0)
    s += ", for delegate call " + std::to_string(c.consumer_delegate) + " arg " + std::to_string(c.consumer_arg);
  return s;
}

}  // namespace

json deviceOptionsJson(const DeviceOptions& o) {
  return {{"enable_non_cpu_memory_planning", o.enable_non_cpu_memory_planning},
          {"skip_h2d_for_method_inputs", o.skip_h2d_for_method_inputs},
          {"skip_d2h_for_method_outputs", o.skip_d2h_for_method_outputs},
          {"alloc_graph_input", o.alloc_graph_input},
          {"alloc_graph_output", o.alloc_graph_output}};
}

json copyRecordJson(const CopyRecord& c) {
  json j{{"direction", program::copyDirectionName(c.direction)}, {"source", c.source}, {"value", c.value},
         {"instruction", c.instruction}, {"from", c.from.str()}, {"to", c.to.str()}, {"bytes", c.bytes},
         {"key", c.key()}};
  if (c.direction == program::CopyDirection::HostToDevice) {
    j["consumer_delegate"] = c.consumer_delegate;
    j["consumer_arg"] = c.consumer_arg;
  }
  return j;
}

json passReportJson(const PassReport& report) {
  json methods = json::array();
  for (const auto& m : report.methods) {
    json copiesAdded = json::array(), copiesRemoved = json::array(), copies = json::array(), retagged = json::array();
    for (const auto& c : m.copies_added) copiesAdded.push_back(copyRecordJson(c));
    for (const auto& c : m.copies_removed) copiesRemoved.push_back(copyRecordJson(c));
    for (const auto& c : m.copies_after) copies.push_back(copyRecordJson(c));
    for (const auto& r : m.retagged)
      retagged.push_back({{"value", r.value}, {"before", r.before.str()}, {"after", r.after.str()}});
    size_t h2d = 0, d2h = 0;
    for (const auto& c : m.copies_after) (c.direction == program::CopyDirection::HostToDevice ? h2d : d2h)++;
    methods.push_back({{"name", m.name},
                       {"options", deviceOptionsJson(m.options)},
                       {"device_delegates", m.device_delegates},
                       {"h2d_copies", h2d},
                       {"d2h_copies", d2h},
                       {"elided_h2d", m.elided_h2d},
                       {"copies", copies},
                       {"copies_added", copiesAdded},
                       {"copies_removed", copiesRemoved},
                       {"retagged", retagged},
                       {"buffers_before", buffersJson(m.buffers_before)},
                       {"buffers_after", buffersJson(m.buffers_after)},
                       {"changed", m.changed()},
                       {"warnings", m.warnings}});
    // Only where the options were guessed (so the other reports stay as they were).
    if (!m.inference_note.empty()) methods.back()["options_note"] = m.inference_note;
  }
  return {{"methods", methods}, {"changed", report.changed()}};
}

std::string passReportText(const PassReport& report) {
  std::ostringstream out;
  for (const auto& m : report.methods) {
    size_t h2d = 0, d2h = 0;
    for (const auto& c : m.copies_after) (c.direction == program::CopyDirection::HostToDevice ? h2d : d2h)++;
    const auto& o = m.options;
    out << "method '" << m.name << "': " << program::countText(uint64_t(m.device_delegates), "device delegate") << ", "
        << h2d << " h2d, " << d2h << " d2h " << (h2d + d2h == 1 ? "copy" : "copies")
        << (m.elided_h2d ? " (" + program::countText(uint64_t(m.elided_h2d), "round trip") + " elided)" : "") << "\n";
    out << "  options: device planning " << (o.enable_non_cpu_memory_planning ? "on" : "off") << ", skip_h2d "
        << (o.skip_h2d_for_method_inputs ? "on" : "off") << ", skip_d2h " << (o.skip_d2h_for_method_outputs ? "on" : "off")
        << ", alloc_graph_input " << (o.alloc_graph_input ? "on" : "off") << ", alloc_graph_output "
        << (o.alloc_graph_output ? "on" : "off") << "\n";
    if (!m.inference_note.empty()) out << "  note: " << m.inference_note << "\n";
    if (!m.changed()) {
      out << "  unchanged\n";
    } else {
      for (const auto& c : m.copies_added) out << "  + " << copyText(c) << "\n";
      for (const auto& c : m.copies_removed) out << "  - " << copyText(c) << "\n";
      for (const auto& r : m.retagged)
        out << "  ~ %" << r.value << " " << r.before.str() << " -> " << r.after.str() << "\n";
    }
    out << "  buffers " << buffersText(m.buffers_before);
    if (m.buffers_before != m.buffers_after) out << " -> " << buffersText(m.buffers_after);
    out << "\n";
    for (const auto& w : m.warnings) out << "  note: " << w << "\n";
  }
  return out.str();
}

json programDiffJson(const ProgramDiff& diff) {
  json methods = json::array();
  for (const auto& m : diff.methods) {
    json a = json::array(), b = json::array(), placement = json::array();
    for (const auto& c : m.copies_only_in_a) a.push_back(copyRecordJson(c));
    for (const auto& c : m.copies_only_in_b) b.push_back(copyRecordJson(c));
    for (const auto& r : m.placement) placement.push_back({{"value", r.value}, {"a", r.before.str()}, {"b", r.after.str()}});
    methods.push_back({{"name", m.name},
                       {"same", m.same()},
                       {"copies_only_in_a", a},
                       {"copies_only_in_b", b},
                       {"placement", placement},
                       {"buffers_a", buffersJson(m.buffers_a)},
                       {"buffers_b", buffersJson(m.buffers_b)},
                       {"structure", m.structure}});
  }
  return {{"same", diff.same()},
          {"methods_only_in_a", diff.methods_only_in_a},
          {"methods_only_in_b", diff.methods_only_in_b},
          {"methods", methods}};
}

std::string programDiffText(const ProgramDiff& diff) {
  std::ostringstream out;
  for (const auto& name : diff.methods_only_in_a) out << "method '" << name << "' only in A\n";
  for (const auto& name : diff.methods_only_in_b) out << "method '" << name << "' only in B\n";
  for (const auto& m : diff.methods) {
    out << "method '" << m.name << "': " << (m.same() ? "same" : "differs") << "\n";
    for (const auto& c : m.copies_only_in_a) out << "  - " << copyText(c) << " (only in A)\n";
    for (const auto& c : m.copies_only_in_b) out << "  + " << copyText(c) << " (only in B)\n";
    for (const auto& r : m.placement) out << "  ~ %" << r.value << " " << r.before.str() << " -> " << r.after.str() << "\n";
    if (m.buffers_a != m.buffers_b) out << "  buffers " << buffersText(m.buffers_a) << " -> " << buffersText(m.buffers_b) << "\n";
    for (const auto& s : m.structure) out << "  structure: " << s << "\n";
  }
  if (diff.same()) out << "no differences\n";
  return out.str();
}

json diagnosticsJson(const std::vector<analysis::Diagnostic>& diagnostics) {
  json out = json::array();
  for (const auto& d : diagnostics) {
    json j{{"id", d.id}, {"slug", d.slug}, {"severity", analysis::severityName(d.severity)}, {"method", d.method},
           {"location", d.location()}, {"message", d.message}, {"hint", d.hint}};
    if (d.instruction) j["instruction"] = *d.instruction;
    if (d.value) j["value"] = *d.value;
    if (d.delegate) j["delegate"] = *d.delegate;
    out.push_back(j);
  }
  return {{"diagnostics", out}, {"errors", analysis::hasErrors(diagnostics)}};
}

std::string diagnosticsText(const std::vector<analysis::Diagnostic>& diagnostics) {
  std::ostringstream out;
  size_t errors = 0, warnings = 0;
  for (const auto& d : diagnostics) {
    out << analysis::severityName(d.severity) << " " << d.id << " [" << d.slug << "] " << d.location() << ": "
        << d.message << "\n    fix: " << d.hint << "\n";
    if (d.severity == analysis::Severity::Error) ++errors;
    if (d.severity == analysis::Severity::Warning) ++warnings;
  }
  out << program::countText(errors, "error") << ", " << program::countText(warnings, "warning") << "\n";
  return out.str();
}

}  // namespace ptescope::report
