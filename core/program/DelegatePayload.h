// What a delegate's processed data refers to: for the AOTI-driven backends
// (CudaBackend, MetalBackend) the processed bytes are not the compiled code
// but the names of two named-data entries, "<so_key>\n<weights_key>"
// (upstream backends/aoti/aoti_backend.py preprocess; the runtime resolves
// them in backends/aoti/aoti_delegate_handle.h resolve_blob_keys, falling
// back to "<method_name>_so_blob" / "<method_name>_weights_blob" when the
// payload is empty). The shared object is stored in the program's named
// data; the weights in a .ptd (tag "aoti_cuda_blob") or the program.
// A TensorRT delegate's processed bytes are its engine with a header and
// metadata (program/TensorRTBlob.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "program/Program.h"
#include "program/TensorRTBlob.h"

namespace ptescope::program {

// True for the backends whose processed data is an AOTI key payload.
bool isAotiBackend(std::string_view backendId);

struct NamedDataLocation {
  enum class Where { ProgramNamedData, ExternalFile, Missing };
  std::string key;
  std::string role;  // "so_blob" or "weights_blob"
  Where where = Where::Missing;
  uint32_t segment_index = 0;  // ProgramNamedData: the segment holding it
  std::string file;            // ExternalFile: the .ptd path
  uint64_t size = 0;           // bytes, when found
};

struct DelegatePayload {
  std::string location;   // "inline 0", "segment 2", "missing"
  uint64_t size = 0;      // bytes of the processed data
  bool aoti = false;      // an AOTI key payload (named_data is filled)
  bool legacy_keys = false;  // empty payload: keys derived from method_name
  std::vector<NamedDataLocation> named_data;
  std::optional<TensorRTBlob> tensorrt;  // a TensorRTBackend delegate whose blob decodes
  std::string problem;    // why the runtime would refuse the payload, or empty
};

// The named data entry `key` of the program or of its attached .ptd files.
NamedDataLocation findNamedData(const Program& program, std::string_view key);

DelegatePayload describeDelegatePayload(const Program& program, const BackendDelegate& delegate);

// "program named data (segment 3)", "aoti_cuda_blob.ptd", "missing".
std::string describeWhere(const NamedDataLocation& location);

}  // namespace ptescope::program
