// A TensorRT delegate's processed bytes (backend id "TensorRTBackend",
// built by Torch-TensorRT): a 32-byte header `<4sIIIQ8s>` (magic TR01, or
// TR02 when the metadata carries aliased I/O; metadata offset and size;
// engine offset, 16-aligned; engine size; 8 reserved bytes), compact JSON
// metadata, zero padding, then the serialized engine. Upstream writes it in
// pytorch/TensorRT py/torch_tensorrt/executorch/serialization.py and the
// backend parses it in cpp/src/torch_tensorrt/executorch/TensorRTBlobHeader.cpp.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/Result.h"

namespace ptescope::program {

inline constexpr std::string_view kTensorRTBackendId = "TensorRTBackend";
inline constexpr uint32_t kTensorRTHeaderSize = 32;

bool isTensorRTBackend(std::string_view backendId);

struct TensorRTBinding {
  std::string name;
  std::string dtype;           // as written ("float32"), may be empty
  std::vector<int64_t> shape;  // as written, may be empty
  bool is_input = false;       // the C++ parser's default when absent
};

// An engine output that updates one of its inputs in place.
struct TensorRTAlias {
  std::string output;  // output binding name
  std::string input;   // the input binding it aliases
  std::string kind;    // "kv_cache_update" (the default when absent) or "user"
};

struct TensorRTBlob {
  std::string magic;  // "TR01" or "TR02"
  uint32_t metadata_offset = 0;
  uint32_t metadata_size = 0;
  uint32_t engine_offset = 0;
  uint64_t engine_size = 0;
  std::vector<TensorRTBinding> bindings;  // in the metadata's order
  std::vector<TensorRTAlias> aliased_io;
  bool hardware_compatible = false;
  int64_t device_id = 0;  // the GPU the backend runs the engine on (cudaSetDevice)
  std::string serialized_metadata;
  std::string target_platform;

  std::vector<const TensorRTBinding*> inputs() const;
  std::vector<const TensorRTBinding*> outputs() const;
  // The alias whose output binding is `outputName`, or null.
  const TensorRTAlias* aliasOfOutput(std::string_view outputName) const;
};

// Decodes the processed bytes; on failure one message that says what is
// wrong and where ("TensorRT blob: engine (offset 48, 4096 bytes) extends past
// the blob's 100 bytes"). Accepts what the backend's parser accepts and
// checks the same bounds.
Result<TensorRTBlob> parseTensorRTBlob(std::span<const uint8_t> bytes);

// The processed bytes as upstream's serialize_engine writes them for the same
// fields: metadata JSON with separators (",", ":") and ASCII escapes in the
// key order io_bindings, aliased_io, hardware_compatible, device_id,
// serialized_metadata, target_platform; magic TR02 exactly when aliased_io
// is not empty; reserved bytes 01 00 00 00 00 00 00 00. The offsets and sizes
// of `blob` are ignored (recomputed).
std::vector<uint8_t> serializeTensorRTBlob(const TensorRTBlob& blob, std::span<const uint8_t> engine);

}  // namespace ptescope::program
