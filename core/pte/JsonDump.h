// The whole program as JSON, printed by the FlatBuffers library's own text
// generator with ptescope's schema, so the result equals
// `flatc --json --strict-json --raw-binary program.fbs -- FILE`.
#pragma once

#include <span>
#include <string>

#include "util/Result.h"

namespace ptescope::pte {

// `file` is a whole .pte (header and segments are ignored). The flatbuffer
// is verified before anything is decoded.
Result<std::string> dumpProgramJson(std::span<const uint8_t> file);
// The same for a .ptd (FlatTensor).
Result<std::string> dumpDataFileJson(std::span<const uint8_t> file);

// Schema texts with includes resolved, as compiled into the binary.
const char* programSchemaText();
const char* flatTensorSchemaText();

}  // namespace ptescope::pte
