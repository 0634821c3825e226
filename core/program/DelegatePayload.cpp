#include "program/DelegatePayload.h"

namespace ptescope::program {

bool isAotiBackend(std::string_view backendId) { return backendId == "CudaBackend" || backendId == "MetalBackend"; }

NamedDataLocation findNamedData(const Program& program, std::string_view key) {
  NamedDataLocation found;
  found.key = std::string(key);
  const auto& segments = items(program.segments);
  for (const auto& entry : items(program.named_data)) {
    if (!entry.key || *entry.key != key) continue;
    found.where = NamedDataLocation::Where::ProgramNamedData;
    found.segment_index = entry.segment_index;
    found.size = entry.segment_index < segments.size() ? segments[entry.segment_index].data.size() : 0;
    return found;
  }
  for (const auto& file : program.external_data) {
    if (const auto* entry = file.find(key)) {
      found.where = NamedDataLocation::Where::ExternalFile;
      found.file = file.path;
      found.size = entry->data.size();
      return found;
    }
  }
  return found;
}

DelegatePayload describeDelegatePayload(const Program& program, const BackendDelegate& delegate) {
  DelegatePayload payload;
  auto blob = delegateBlob(program, delegate);
  if (!delegate.processed || !blob) {
    payload.location = "missing";
  } else {
    const auto& ref = *delegate.processed;
    payload.location = std::string(ref.location == DelegateDataLocation::Inline ? "inline " : "segment ") +
                       std::to_string(ref.index);
    payload.size = blob->size();
  }
  if (isTensorRTBackend(delegate.id.value_or(""))) {
    auto decoded = parseTensorRTBlob(blob ? blob->span() : std::span<const uint8_t>());
    if (decoded)
      payload.tensorrt = std::move(decoded.value());
    else
      payload.problem = decoded.error().message + " (the backend's init fails with InvalidProgram)";
    return payload;
  }
  if (!isAotiBackend(delegate.id.value_or(""))) return payload;
  payload.aoti = true;
  std::string soKey, weightsKey;
  if (blob && !blob->empty()) {
    const std::string text(reinterpret_cast<const char*>(blob->data()), blob->size());
    const size_t newline = text.find('\n');
    if (newline == std::string::npos) {
      payload.problem = "the AOTI payload has no newline between the so and weights keys (the backend fails with "
                        "Internal: \"Malformed named-data key payload\")";
      return payload;
    }
    soKey = text.substr(0, newline);
    weightsKey = text.substr(newline + 1);
  } else {
    payload.legacy_keys = true;
    const CompileSpec* spec = delegate.findCompileSpec("method_name");
    const std::string method = spec ? spec->valueText() : std::string();
    soKey = method.empty() ? "so_blob" : method + "_so_blob";
    weightsKey = method.empty() ? "weights_blob" : method + "_weights_blob";
  }
  for (auto [key, role] : {std::pair{soKey, "so_blob"}, std::pair{weightsKey, "weights_blob"}}) {
    NamedDataLocation location = findNamedData(program, key);
    location.role = role;
    if (location.where == NamedDataLocation::Where::Missing && payload.problem.empty())
      payload.problem = std::string("named data '") + key + "' (" + role +
                        ") is neither in the program nor in an attached .ptd: the backend's init fails";
    payload.named_data.push_back(std::move(location));
  }
  return payload;
}

std::string describeWhere(const NamedDataLocation& location) {
  switch (location.where) {
    case NamedDataLocation::Where::ProgramNamedData:
      return "program named data (segment " + std::to_string(location.segment_index) + ")";
    case NamedDataLocation::Where::ExternalFile: return location.file;
    case NamedDataLocation::Where::Missing: break;
  }
  return "missing";
}

}  // namespace ptescope::program
