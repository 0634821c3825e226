// libFuzzer: any text as a `synth` JSON spec. The parser answers with a
// program or one error (within 4 MiB of constant data); what it builds must
// pass the device passes and be written and read back (the synthesizer makes
// only valid programs).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "FuzzSupport.h"
#include "synth/JsonSpec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ptescope;
  // Specs describe small programs; a huge one is the benchmark generator's job.
  if (size > 64 * 1024) return 0;
  // A constant of billions of elements is refused by the budget (as `synth`
  // refuses one beyond its --max-constants), not built.
  synth::SpecLimits limits;
  limits.max_constant_bytes = 4u << 20;
  auto built = synth::synthesizeFromSpec(std::string_view(reinterpret_cast<const char*>(data), size), limits);
  if (!built) return 0;
  fuzz::checkWritesAndReadsBack(built->program, "the synthesized program");
  auto passed = synth::applyDevicePasses(built.value());
  if (!passed) return 0;
  fuzz::checkWritesAndReadsBack(passed.value(), "the synthesized program after the device passes");
  return 0;
}
