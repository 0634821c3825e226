#include "pte/JsonDump.h"

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "flat_tensor_generated.h"
#include "flatbuffers/idl.h"
#include "program_generated.h"
#include "pte/ExtendedHeader.h"

namespace ptescope::pte {
namespace {

// The schema parsed once per process (parsing it is most of the cost of a
// small dump); the text generator only reads the parser.
const flatbuffers::Parser* parsedSchema(const char* schema) {
  static std::mutex mutex;
  static std::map<const char*, std::unique_ptr<flatbuffers::Parser>> parsers;
  std::lock_guard lock(mutex);
  auto& parser = parsers[schema];
  if (!parser) {
    flatbuffers::IDLOptions options;
    options.strict_json = true;
    // Strings that are not UTF-8 print as \x escapes instead of failing;
    // valid strings print exactly as flatc prints them.
    options.allow_non_utf8 = true;
    parser = std::make_unique<flatbuffers::Parser>(options);
    if (!parser->Parse(schema)) {
      parser.reset();
      return nullptr;
    }
  }
  return parser.get();
}

// `check` (data → "" or why not) runs after the verifier.
template <class VerifyFn, class CheckFn>
Result<std::string> dump(std::span<const uint8_t> file, size_t regionSize, const char* schema, VerifyFn verify,
                         CheckFn check) {
  // The verifier and generator need aligned memory.
  std::vector<uint8_t> aligned;
  const uint8_t* data = file.data();
  if (reinterpret_cast<uintptr_t>(data) % 16 != 0) {
    aligned.assign(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(regionSize));
    data = aligned.data();
  }
  flatbuffers::Verifier verifier(data, regionSize, 64, 1000000);
  if (!verify(verifier)) return makeError("the flatbuffer failed verification; nothing to dump");
  if (std::string why = check(data); !why.empty()) return makeError(why);
  const flatbuffers::Parser* parser = parsedSchema(schema);
  if (parser == nullptr) return makeError("internal error: the compiled-in schema does not parse");
  std::string text;
  if (!flatbuffers::GenerateText(*parser, data, &text)) return makeError("the flatbuffer could not be printed as JSON");
  return text;
}

// The verifier checks only the alignment of a vector's length, and the text
// generator reads 8-byte elements through typed pointers: a [long],
// [double] or [uint64] vector whose elements are not 8-byte aligned (no
// flatbuffers builder writes one) cannot be printed without undefined
// behaviour. Names the first such vector, or returns an empty string.
template <class T>
bool misaligned(const flatbuffers::Vector<T>* v) {
  return v != nullptr && v->size() > 0 && reinterpret_cast<uintptr_t>(v->Data()) % alignof(T) != 0;
}

std::string firstMisalignedVector(const uint8_t* data) {
  namespace fb = executorch_flatbuffer;
  const fb::Program* program = fb::GetProgram(data);
  if (misaligned(program->constant_segment() ? program->constant_segment()->offsets() : nullptr))
    return "constant_segment.offsets";
  if (const auto* segments = program->mutable_data_segments())
    for (flatbuffers::uoffset_t i = 0; i < segments->size(); ++i)
      if (misaligned(segments->Get(i)->offsets())) return "mutable_data_segments[" + std::to_string(i) + "].offsets";
  if (const auto* plans = program->execution_plan()) {
    for (flatbuffers::uoffset_t m = 0; m < plans->size(); ++m) {
      const auto* plan = plans->Get(m);
      const std::string at = "execution_plan[" + std::to_string(m) + "]";
      if (misaligned(plan->non_const_buffer_sizes())) return at + ".non_const_buffer_sizes";
      // A union value without its type field makes flatbuffers' printer
      // assert (found by tests/fuzz/fuzz_reader).
      if (const auto* chains = plan->chains())
        for (const auto* chain : *chains)
          if (const auto* instructions = chain->instructions())
            for (const auto* ins : *instructions)
              if (reinterpret_cast<const flatbuffers::Table*>(ins)->GetOptionalFieldOffset(fb::Instruction::VT_INSTR_ARGS_TYPE) == 0 && ins->instr_args() != nullptr)
                return "!" + at + ": an instruction has arguments but no argument type";
      const auto* values = plan->values();
      for (flatbuffers::uoffset_t v = 0; values != nullptr && v < values->size(); ++v) {
        const auto* value = values->Get(v);
        if (reinterpret_cast<const flatbuffers::Table*>(value)->GetOptionalFieldOffset(fb::EValue::VT_VAL_TYPE) == 0 && value->val() != nullptr)
          return "!" + at + ".values[" + std::to_string(v) + "] has data but no type";
        if (const auto* list = value->val_as_IntList(); list != nullptr && misaligned(list->items()))
          return at + ".values[" + std::to_string(v) + "] (IntList)";
        if (const auto* list = value->val_as_DoubleList(); list != nullptr && misaligned(list->items()))
          return at + ".values[" + std::to_string(v) + "] (DoubleList)";
      }
    }
  }
  return {};
}

}  // namespace

Result<std::string> dumpProgramJson(std::span<const uint8_t> file) {
  if (file.size() < 8 || std::memcmp(file.data() + 4, "ET12", 4) != 0)
    return makeError("not an ExecuTorch program (no 'ET12' identifier at byte 4)");
  auto header = parseExtendedHeader(file);
  if (!header) return header.error();
  const size_t region = *header ? static_cast<size_t>((*header)->program_size) : file.size();
  return dump(
      file, region, programSchemaText(),
      [](flatbuffers::Verifier& v) { return executorch_flatbuffer::VerifyProgramBuffer(v); },
      [](const uint8_t* data) {
        const std::string vector = firstMisalignedVector(data);
        if (!vector.empty() && vector[0] == '!') return "cannot print the program as flatc would: " + vector.substr(1);
        return vector.empty() ? vector
                              : "cannot print " + vector + " as flatc would: its 8-byte elements are not 8-byte "
                                "aligned (no flatbuffers builder writes that; `ptescope-cli info --json` reads it)";
      });
}

Result<std::string> dumpDataFileJson(std::span<const uint8_t> file) {
  auto header = parseFlatTensorHeader(file);
  if (!header) return header.error();
  const size_t region = static_cast<size_t>(header->flatbuffer_offset + header->flatbuffer_size);
  return dump(file, region, flatTensorSchemaText(),
              [](flatbuffers::Verifier& v) { return flat_tensor_flatbuffer::VerifyFlatTensorBuffer(v); },
              [](const uint8_t*) { return std::string(); });
}

}  // namespace ptescope::pte
