#include "report/InfoReport.h"

#include "program/DelegatePayload.h"
#include "program/Text.h"

#include <sstream>

#include "analysis/Summary.h"
#include "passes/Pipeline.h"

namespace ptescope::report {
using namespace ptescope::program;
using nlohmann::json;

namespace {

std::string joinInts(const std::vector<int32_t>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  return out;
}

// A TensorRT delegate's blob: header fields, bindings, aliases, device.
json tensorRTJson(const DelegatePayload& payload) {
  json j{{"format", "tensorrt"}};
  if (!payload.tensorrt) {
    j["problem"] = payload.problem;
    return j;
  }
  const TensorRTBlob& blob = *payload.tensorrt;
  auto bindings = [](const std::vector<const TensorRTBinding*>& list) {
    json out = json::array();
    for (const auto* b : list) out.push_back({{"name", b->name}, {"dtype", b->dtype}, {"shape", b->shape}});
    return out;
  };
  json aliased = json::array();
  for (const auto& a : blob.aliased_io) aliased.push_back({{"output", a.output}, {"input", a.input}, {"kind", a.kind}});
  j.update({{"magic", blob.magic},
            {"metadata_offset", blob.metadata_offset},
            {"metadata_bytes", blob.metadata_size},
            {"engine_offset", blob.engine_offset},
            {"engine_bytes", blob.engine_size},
            {"inputs", bindings(blob.inputs())},
            {"outputs", bindings(blob.outputs())},
            {"aliased_io", aliased},
            {"hardware_compatible", blob.hardware_compatible},
            {"device_id", blob.device_id},
            {"target_platform", blob.target_platform}});
  return j;
}

// "      payload: TensorRT engine ..." lines.
void tensorRTText(std::ostream& out, const DelegatePayload& payload, const char* indent) {
  if (!payload.tensorrt) {
    out << indent << "payload: TensorRT blob, unreadable: " << payload.problem << "\n";
    return;
  }
  const TensorRTBlob& blob = *payload.tensorrt;
  out << indent << "payload: TensorRT engine " << blob.engine_size << " bytes at offset " << blob.engine_offset << " ("
      << blob.magic << ", metadata " << blob.metadata_size << " bytes), device_id " << blob.device_id
      << ", hardware_compatible " << (blob.hardware_compatible ? "yes" : "no");
  if (!blob.target_platform.empty()) out << ", platform " << blob.target_platform;
  out << "\n";
  for (const auto& [label, list] : {std::pair{"inputs", blob.inputs()}, std::pair{"outputs", blob.outputs()}}) {
    out << indent << "  " << label << ":";
    for (size_t i = 0; i < list.size(); ++i) out << (i ? ", " : " ") << list[i]->name;
    if (list.empty()) out << " none";
    out << "\n";
  }
  for (const auto& a : blob.aliased_io)
    out << indent << "  aliased: " << a.output << " updates " << a.input << " in place (" << a.kind << ")\n";
}

json delegateJson(const Program& program, const BackendDelegate& d) {
  json j;
  j["id"] = d.id.value_or("");
  if (d.processed) {
    j["location"] = d.processed->location == DelegateDataLocation::Inline ? "inline" : "segment";
    j["index"] = d.processed->index;
  }
  if (auto blob = delegateBlob(program, d)) j["bytes"] = blob->size();
  json specs = json::array();
  for (const auto& s : items(d.compile_specs))
    specs.push_back({{"key", s.key.value_or("")}, {"value", compileSpecValueText(items(s.value))}, {"bytes", items(s.value).size()}});
  j["compile_specs"] = specs;
  // What the processed bytes refer to (AOTI backends: named data keys).
  const auto payload = describeDelegatePayload(program, d);
  if (isTensorRTBackend(d.id.value_or(""))) j["payload"] = tensorRTJson(payload);
  if (payload.aoti) {
    json named = json::array();
    for (const auto& n : payload.named_data) {
      json e{{"key", n.key}, {"role", n.role}};
      switch (n.where) {
        case NamedDataLocation::Where::ProgramNamedData:
          e["where"] = "program_named_data";
          e["segment"] = n.segment_index;
          e["bytes"] = n.size;
          break;
        case NamedDataLocation::Where::ExternalFile:
          e["where"] = "external_file";
          e["file"] = n.file;
          e["bytes"] = n.size;
          break;
        case NamedDataLocation::Where::Missing: e["where"] = "missing"; break;
      }
      named.push_back(e);
    }
    j["payload"] = {{"format", payload.legacy_keys ? "aoti_legacy_keys" : "aoti_keys"}, {"named_data", named}};
    if (!payload.problem.empty()) j["payload"]["problem"] = payload.problem;
  }
  return j;
}

// "  so_blob      <key>: program named data (segment 3), 49 bytes" lines.
void delegatePayloadText(std::ostream& out, const Program& program, const BackendDelegate& d, const char* indent) {
  const auto payload = describeDelegatePayload(program, d);
  if (isTensorRTBackend(d.id.value_or(""))) tensorRTText(out, payload, indent);
  if (!payload.aoti) return;
  out << indent << "payload: AOTI named data"
      << (payload.legacy_keys ? " (empty processed bytes: keys from method_name)" : " (keys in the processed bytes)")
      << "\n";
  for (const auto& n : payload.named_data) {
    out << indent << "  " << n.role << " '" << n.key << "': " << describeWhere(n);
    if (n.where != NamedDataLocation::Where::Missing) out << ", " << exactBytesText(int64_t(n.size));
    out << "\n";
  }
  if (!payload.problem.empty()) out << indent << "  problem: " << payload.problem << "\n";
}

}  // namespace

json delegateTransfersJson(const analysis::DelegateTransfers& d) {
  json j;
  for (auto direction : {CopyDirection::HostToDevice, CopyDirection::DeviceToHost, CopyDirection::DeviceToDevice})
    j[copyDirectionName(direction)] = d.count(direction);
  j["bytes"] = d.bytes();
  json transfers = json::array();
  for (const auto& t : d.transfers)
    transfers.push_back({{"instruction", t.instruction},
                         {"delegate", t.delegate},
                         {"backend", t.backend},
                         {"value", t.value},
                         {"kind", analysis::delegateTransferKindName(t.kind)},
                         {"direction", copyDirectionName(t.direction)},
                         {"bytes", t.bytes},
                         {"device", t.device.str()},
                         {"upstream", t.upstream}});
  j["transfers"] = transfers;
  json refusals = json::array();
  for (const auto& r : d.refusals)
    refusals.push_back({{"instruction", r.instruction}, {"delegate", r.delegate}, {"value", r.value}, {"message", r.message}});
  j["refusals"] = refusals;
  return j;
}

std::string delegateTransfersText(const analysis::DelegateTransfers& d, const std::string& indent) {
  if (d.transfers.empty() && d.refusals.empty()) return {};
  std::string out = indent + "copies inside delegates (no instruction): " +
                    std::to_string(d.count(CopyDirection::HostToDevice)) + " host-to-device, " +
                    std::to_string(d.count(CopyDirection::DeviceToHost)) + " device-to-host, " +
                    std::to_string(d.count(CopyDirection::DeviceToDevice)) + " device-to-device, " +
                    bytesText(int64_t(d.bytes())) + " per call\n";
  for (const auto& t : d.transfers) out += indent + "  " + t.text() + ", " + bytesText(int64_t(t.bytes)) + "\n";
  for (const auto& r : d.refusals) out += indent + "  refused: " + r.message + "\n";
  return out;
}

std::string compileSpecValueText(const std::vector<uint8_t>& value) {
  bool printable = true;
  for (uint8_t c : value)
    if (c < 0x20 || c == 0x7f) printable = false;
  if (printable && value.size() <= 256) return std::string(value.begin(), value.end());
  return "<" + countText(value.size(), "byte") + ">";
}

json infoJson(const pte::LoadedProgram& loaded) {
  const Program& program = loaded.program;
  json j;
  j["file"] = loaded.file.path;
  j["file_size"] = loaded.file.file_size;
  j["version"] = program.version;
  if (loaded.file.header) {
    const auto& h = *loaded.file.header;
    j["extended_header"] = {{"length", h.length},
                            {"program_size", h.program_size},
                            {"segment_base_offset", h.segment_base_offset},
                            {"segment_data_size", h.segment_data_size}};
  } else {
    j["extended_header"] = nullptr;
  }
  json segments = json::array();
  for (const auto& s : items(program.segments)) segments.push_back({{"offset", s.offset}, {"size", s.data.size()}});
  j["segments"] = segments;
  if (program.constant_segment) {
    j["constant_segment"] = {{"segment_index", program.constant_segment->segment_index},
                             {"constants", items(program.constant_segment->offsets).size() > 0
                                               ? items(program.constant_segment->offsets).size() - 1
                                               : 0}};
  }
  j["constant_buffer"] = items(program.constant_buffer).size();
  j["inline_delegate_data"] = items(program.backend_delegate_data).size();
  json named = json::array();
  const auto& segs = items(program.segments);
  for (const auto& n : items(program.named_data)) {
    json e{{"key", n.key.value_or("")}, {"segment_index", n.segment_index}};
    if (n.segment_index < segs.size()) e["bytes"] = segs[n.segment_index].data.size();
    named.push_back(e);
  }
  j["named_data"] = named;
  json external = json::array();
  for (const auto& ext : program.external_data) {
    json keys = json::array();
    for (const auto& e : ext.entries) keys.push_back({{"key", e.key}, {"bytes", e.data.size()}});
    external.push_back({{"path", ext.path}, {"entries", ext.entries.size()}, {"named_data", keys}});
  }
  j["external_data"] = external;
  j["warnings"] = loaded.warnings;

  json methods = json::array();
  for (const auto& m : program.methods()) {
    auto s = analysis::summarizeMethod(m);
    json mj;
    mj["name"] = s.name;
    mj["values"] = s.values;
    mj["values_by_kind"] = s.values_by_kind;
    mj["instructions"] = s.instructions;
    mj["instructions_by_kind"] = s.instructions_by_kind;
    mj["kernel_calls"] = s.kernel_calls;
    mj["delegate_calls"] = s.delegate_calls;
    mj["h2d_copies"] = s.h2d_copies;
    mj["d2h_copies"] = s.d2h_copies;
    mj["delegate_copies"] = delegateTransfersJson(analysis::delegateTransfers(program, m));
    mj["constant_tensors"] = s.constant_tensors;
    mj["planned_tensors"] = s.planned_tensors;
    mj["tensors_by_device"] = json::object();
    for (const auto& [device, n] : s.tensors_by_device) mj["tensors_by_device"][device] = n;
    mj["inputs"] = s.inputs;
    mj["outputs"] = s.outputs;
    mj["operators"] = s.operators;
    json delegates = json::array();
    for (const auto& d : items(m.delegates)) delegates.push_back(delegateJson(program, d));
    mj["delegates"] = delegates;
    mj["non_const_buffer_sizes"] = s.non_const_buffer_sizes;
    json devices = json::array();
    for (const auto& d : s.non_const_buffer_device)
      devices.push_back({{"buffer_idx", d.buffer_idx}, {"device", Device{d.device_type, d.device_index}.str()}});
    mj["non_const_buffer_device"] = devices;
    if (const auto note = passes::planningInferenceNote(m); !note.empty()) mj["options_note"] = note;
    methods.push_back(mj);
  }
  j["methods"] = methods;
  return j;
}

std::string infoText(const pte::LoadedProgram& loaded) { return infoText(loaded.program, loaded.file, loaded.warnings); }

std::string infoText(const Program& program, const pte::FileInfo& file, const std::vector<std::string>& warnings) {
  std::ostringstream out;
  out << file.path << ": ExecuTorch program (ET12), " << exactBytesText(int64_t(file.file_size)) << ", version "
      << program.version << "\n";
  if (file.header) {
    const auto& h = *file.header;
    out << "  extended header: eh00, length " << h.length << (h.isLegacy() ? " (legacy)" : "") << ", program "
        << exactBytesText(int64_t(h.program_size)) << ", segments at offset " << h.segment_base_offset << ", "
        << exactBytesText(int64_t(h.segment_data_size)) << " of segment data\n";
  } else {
    out << "  extended header: none\n";
  }
  const auto& segs = items(program.segments);
  out << "  segments: " << segs.size();
  for (size_t i = 0; i < segs.size(); ++i) out << (i ? ", " : " [") << "(" << segs[i].offset << ", " << segs[i].data.size() << ")" << (i + 1 == segs.size() ? "]" : "");
  out << "\n";
  if (program.constant_segment) {
    size_t n = items(program.constant_segment->offsets).size();
    out << "  constant segment: segment " << program.constant_segment->segment_index << ", "
        << countText(n > 0 ? n - 1 : 0, "constant") << "\n";
  }
  if (!items(program.constant_buffer).empty())
    out << "  legacy constant_buffer: " << countText(program.constant_buffer->size(), "entry", "entries") << " (deprecated form)\n";
  if (!items(program.backend_delegate_data).empty())
    out << "  inline delegate data: " << countText(program.backend_delegate_data->size(), "blob") << "\n";
  for (const auto& n : items(program.named_data)) {
    out << "  named data '" << n.key.value_or("") << "' -> segment " << n.segment_index;
    if (n.segment_index < items(program.segments).size())
      out << ", " << exactBytesText(int64_t((*program.segments)[n.segment_index].data.size()));
    out << "\n";
  }
  for (const auto& ext : program.external_data) {
    uint64_t bytes = 0;
    for (const auto& e : ext.entries) bytes += e.data.size();
    out << "  external data: " << ext.path << " (" << countText(ext.entries.size(), "entry", "entries") << ", " << exactBytesText(int64_t(bytes)) << ")\n";
  }
  for (const auto& w : warnings) out << "  warning: " << w << "\n";

  out << "  methods: " << program.methods().size() << "\n";
  for (const auto& m : program.methods()) {
    auto s = analysis::summarizeMethod(m);
    out << "\n  method '" << s.name << "'\n";
    out << "    inputs [" << joinInts(s.inputs) << "]  outputs [" << joinInts(s.outputs) << "]\n";
    out << "    values " << s.values << ":";
    for (const auto& [k, n] : s.values_by_kind) out << " " << k << " " << n;
    out << "\n    instructions " << s.instructions << ":";
    for (const auto& [k, n] : s.instructions_by_kind) out << " " << k << " " << n;
    out << "\n    copies: " << s.h2d_copies << " host-to-device, " << s.d2h_copies << " device-to-host\n";
    out << delegateTransfersText(analysis::delegateTransfers(program, m), "    ");
    out << "    tensors by device:";
    for (const auto& [d, n] : s.tensors_by_device) out << " " << d << " " << n;
    out << " (constants " << s.constant_tensors << ", planned " << s.planned_tensors << ")\n";
    // Where the file cannot tell which pass options made it, say what
    // propagate will take and why (as propagate and the Pass options panel do).
    if (const auto note = passes::planningInferenceNote(m); !note.empty()) out << "    note: " << note << "\n";
    if (!s.operators.empty()) {
      out << "    operators:";
      for (const auto& op : s.operators) out << " " << op;
      out << "\n";
    }
    const auto& delegates = items(m.delegates);
    for (size_t d = 0; d < delegates.size(); ++d) {
      const auto& del = delegates[d];
      out << "    delegate " << d << ": " << del.id.value_or("<no id>");
      if (del.processed)
        out << " (" << (del.processed->location == DelegateDataLocation::Inline ? "inline " : "segment ")
            << del.processed->index;
      if (auto blob = delegateBlob(program, del)) out << ", " << exactBytesText(int64_t(blob->size()));
      if (del.processed) out << ")";
      out << "\n";
      for (const auto& spec : items(del.compile_specs))
        out << "      " << spec.key.value_or("") << " = " << compileSpecValueText(items(spec.value)) << "\n";
      delegatePayloadText(out, program, del, "      ");
    }
    out << "    non_const_buffer_sizes [";
    for (size_t i = 0; i < s.non_const_buffer_sizes.size(); ++i) out << (i ? ", " : "") << s.non_const_buffer_sizes[i];
    out << "]\n";
    if (!s.non_const_buffer_device.empty()) {
      out << "    buffer devices:";
      for (const auto& d : s.non_const_buffer_device)
        out << " " << d.buffer_idx << "=" << Device{d.device_type, d.device_index}.str();
      out << "\n";
    }
  }
  return out.str();
}

}  // namespace ptescope::report
