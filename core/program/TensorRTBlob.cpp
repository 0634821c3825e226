#include "program/TensorRTBlob.h"

#include <cstring>

#include <nlohmann/json.hpp>

#include "util/Utf8.h"

namespace ptescope::program {

namespace {

using Json = nlohmann::ordered_json;

constexpr uint32_t kEngineAlignment = 16;

uint32_t readU32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

uint64_t readU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void putU32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

void putU64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

Error blobError(const std::string& what) { return makeError("TensorRT blob: " + what); }

// A string member of an object, or `fallback` when absent; false when the
// member is there but not a string.
bool stringMember(const Json& object, const char* key, std::string& out) {
  auto it = object.find(key);
  if (it == object.end()) return true;
  if (!it->is_string()) return false;
  out = it->get<std::string>();
  return true;
}

}  // namespace

bool isTensorRTBackend(std::string_view backendId) { return backendId == kTensorRTBackendId; }

std::vector<const TensorRTBinding*> TensorRTBlob::inputs() const {
  std::vector<const TensorRTBinding*> out;
  for (const auto& b : bindings)
    if (b.is_input) out.push_back(&b);
  return out;
}

std::vector<const TensorRTBinding*> TensorRTBlob::outputs() const {
  std::vector<const TensorRTBinding*> out;
  for (const auto& b : bindings)
    if (!b.is_input) out.push_back(&b);
  return out;
}

const TensorRTAlias* TensorRTBlob::aliasOfOutput(std::string_view outputName) const {
  for (const auto& a : aliased_io)
    if (a.output == outputName) return &a;
  return nullptr;
}

Result<TensorRTBlob> parseTensorRTBlob(std::span<const uint8_t> bytes) {
  const size_t size = bytes.size();
  if (size < kTensorRTHeaderSize)
    return blobError(std::to_string(size) + " bytes, shorter than the " + std::to_string(kTensorRTHeaderSize) +
                     "-byte header");
  const uint8_t* p = bytes.data();
  TensorRTBlob blob;
  blob.magic.assign(reinterpret_cast<const char*>(p), 4);
  if (blob.magic != "TR01" && blob.magic != "TR02")
    return blobError("magic '" + printableUtf8(blob.magic) + "' is neither TR01 nor TR02");
  blob.metadata_offset = readU32(p + 4);
  blob.metadata_size = readU32(p + 8);
  blob.engine_offset = readU32(p + 12);
  blob.engine_size = readU64(p + 16);
  const uint64_t metadataEnd = uint64_t(blob.metadata_offset) + blob.metadata_size;
  if (blob.metadata_offset < kTensorRTHeaderSize)
    return blobError("metadata offset " + std::to_string(blob.metadata_offset) + " lies inside the " +
                     std::to_string(kTensorRTHeaderSize) + "-byte header");
  if (blob.engine_offset % kEngineAlignment != 0)
    return blobError("engine offset " + std::to_string(blob.engine_offset) + " is not 16-byte aligned");
  if (metadataEnd > size)
    return blobError("metadata (offset " + std::to_string(blob.metadata_offset) + ", " +
                     std::to_string(blob.metadata_size) + " bytes) extends past the blob's " + std::to_string(size) +
                     " bytes");
  if (blob.engine_offset > size || blob.engine_size > size - blob.engine_offset)
    return blobError("engine (offset " + std::to_string(blob.engine_offset) + ", " + std::to_string(blob.engine_size) +
                     " bytes) extends past the blob's " + std::to_string(size) + " bytes");
  if (metadataEnd > blob.engine_offset)
    return blobError("metadata (ends at " + std::to_string(metadataEnd) + ") overlaps the engine (offset " +
                     std::to_string(blob.engine_offset) + ")");

  const std::string_view text(reinterpret_cast<const char*>(p + blob.metadata_offset), blob.metadata_size);
  const Json json = Json::parse(text.begin(), text.end(), nullptr, false);
  if (json.is_discarded() || !json.is_object()) return blobError("the metadata is not a JSON object");
  auto bindings = json.find("io_bindings");
  if (bindings == json.end() || !bindings->is_array())
    return blobError("the metadata has no io_bindings list (the backend's init fails with InvalidProgram)");
  for (size_t i = 0; i < bindings->size(); ++i) {
    const Json& b = (*bindings)[i];
    const std::string at = "io_bindings[" + std::to_string(i) + "]";
    if (!b.is_object()) return blobError(at + " is not an object");
    TensorRTBinding binding;
    if (!stringMember(b, "name", binding.name) || !stringMember(b, "dtype", binding.dtype))
      return blobError(at + ": name and dtype must be strings");
    if (auto in = b.find("is_input"); in != b.end()) {
      if (!in->is_boolean()) return blobError(at + ".is_input is not true or false");
      binding.is_input = in->get<bool>();
    }
    if (auto shape = b.find("shape"); shape != b.end()) {
      if (!shape->is_array()) return blobError(at + ".shape is not a list");
      for (const auto& d : *shape) {
        if (!d.is_number_integer()) return blobError(at + ".shape holds a value that is not an integer");
        binding.shape.push_back(d.get<int64_t>());
      }
    }
    // The backend keeps only named bindings (TensorRTBlobHeader.cpp).
    if (!binding.name.empty()) blob.bindings.push_back(std::move(binding));
  }
  if (auto aliased = json.find("aliased_io"); aliased != json.end()) {
    if (!aliased->is_array()) return blobError("aliased_io is not a list");
    for (size_t i = 0; i < aliased->size(); ++i) {
      const Json& a = (*aliased)[i];
      const std::string at = "aliased_io[" + std::to_string(i) + "]";
      TensorRTAlias alias;
      if (!a.is_object() || !stringMember(a, "output", alias.output) || !stringMember(a, "input", alias.input) ||
          !stringMember(a, "kind", alias.kind))
        return blobError(at + " is not an object of strings output, input, kind");
      if (alias.output.empty() || alias.input.empty()) continue;  // ignored by the backend's parser
      if (alias.kind.empty()) alias.kind = "kv_cache_update";
      blob.aliased_io.push_back(std::move(alias));
    }
  }
  if (auto hw = json.find("hardware_compatible"); hw != json.end()) {
    if (!hw->is_boolean()) return blobError("hardware_compatible is not true or false");
    blob.hardware_compatible = hw->get<bool>();
  }
  if (auto device = json.find("device_id"); device != json.end()) {
    if (!device->is_number_integer()) return blobError("device_id is not an integer");
    blob.device_id = device->get<int64_t>();
  }
  if (!stringMember(json, "serialized_metadata", blob.serialized_metadata) ||
      !stringMember(json, "target_platform", blob.target_platform))
    return blobError("serialized_metadata and target_platform must be strings");
  return blob;
}

std::vector<uint8_t> serializeTensorRTBlob(const TensorRTBlob& blob, std::span<const uint8_t> engine) {
  Json metadata = Json::object();
  Json bindings = Json::array();
  for (const auto& b : blob.bindings)
    bindings.push_back(Json{{"name", b.name}, {"dtype", b.dtype}, {"shape", b.shape}, {"is_input", b.is_input}});
  metadata["io_bindings"] = std::move(bindings);
  Json aliased = Json::array();
  for (const auto& a : blob.aliased_io) aliased.push_back(Json{{"output", a.output}, {"input", a.input}, {"kind", a.kind}});
  metadata["aliased_io"] = std::move(aliased);
  metadata["hardware_compatible"] = blob.hardware_compatible;
  metadata["device_id"] = blob.device_id;
  metadata["serialized_metadata"] = blob.serialized_metadata;
  metadata["target_platform"] = blob.target_platform;
  // Python's json.dumps(separators=(",", ":")) with its default ensure_ascii.
  const std::string text = metadata.dump(-1, ' ', true, Json::error_handler_t::replace);

  const uint32_t metadataOffset = kTensorRTHeaderSize;
  const uint32_t metadataSize = uint32_t(text.size());
  const uint32_t engineOffset = (metadataOffset + metadataSize + kEngineAlignment - 1) & ~(kEngineAlignment - 1);
  std::vector<uint8_t> out;
  out.reserve(engineOffset + engine.size());
  const char* magic = blob.aliased_io.empty() ? "TR01" : "TR02";
  out.insert(out.end(), magic, magic + 4);
  putU32(out, metadataOffset);
  putU32(out, metadataSize);
  putU32(out, engineOffset);
  putU64(out, engine.size());
  out.push_back(1);
  out.insert(out.end(), 7, 0);
  out.insert(out.end(), text.begin(), text.end());
  out.resize(engineOffset, 0);
  out.insert(out.end(), engine.begin(), engine.end());
  return out;
}

}  // namespace ptescope::program
