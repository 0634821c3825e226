#include "pte/JsonDump.h"

#include <cstring>
#include <vector>

#include "flat_tensor_generated.h"
#include "flatbuffers/idl.h"
#include "program_generated.h"
#include "pte/ExtendedHeader.h"

namespace ptescope::pte {
namespace {

template <class VerifyFn>
Result<std::string> dump(std::span<const uint8_t> file, size_t regionSize, const char* schema, VerifyFn verify) {
  // The verifier and generator need aligned memory.
  std::vector<uint8_t> aligned;
  const uint8_t* data = file.data();
  if (reinterpret_cast<uintptr_t>(data) % 16 != 0) {
    aligned.assign(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(regionSize));
    data = aligned.data();
  }
  flatbuffers::Verifier verifier(data, regionSize, 64, 1000000);
  if (!verify(verifier)) return makeError("the flatbuffer failed verification; nothing to dump");
  flatbuffers::IDLOptions options;
  options.strict_json = true;
  // Strings that are not UTF-8 print as \x escapes instead of failing; valid
  // strings print exactly as flatc prints them.
  options.allow_non_utf8 = true;
  flatbuffers::Parser parser(options);
  if (!parser.Parse(schema)) return makeError("internal error: schema does not parse: " + parser.error_);
  std::string text;
  if (!flatbuffers::GenerateText(parser, data, &text)) return makeError("the flatbuffer could not be printed as JSON");
  return text;
}

}  // namespace

Result<std::string> dumpProgramJson(std::span<const uint8_t> file) {
  if (file.size() < 8 || std::memcmp(file.data() + 4, "ET12", 4) != 0)
    return makeError("not an ExecuTorch program (no 'ET12' identifier at byte 4)");
  auto header = parseExtendedHeader(file);
  if (!header) return header.error();
  const size_t region = *header ? static_cast<size_t>((*header)->program_size) : file.size();
  return dump(file, region, programSchemaText(),
              [](flatbuffers::Verifier& v) { return executorch_flatbuffer::VerifyProgramBuffer(v); });
}

Result<std::string> dumpDataFileJson(std::span<const uint8_t> file) {
  auto header = parseFlatTensorHeader(file);
  if (!header) return header.error();
  const size_t region = static_cast<size_t>(header->flatbuffer_offset + header->flatbuffer_size);
  return dump(file, region, flatTensorSchemaText(),
              [](flatbuffers::Verifier& v) { return flat_tensor_flatbuffer::VerifyFlatTensorBuffer(v); });
}

}  // namespace ptescope::pte
