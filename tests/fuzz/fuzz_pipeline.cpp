// libFuzzer: the whole path a user's file takes. Read; analyse (dataflow,
// lint, the graph); run the device passes with one of the valid option sets
// (the last input byte picks which, so the corpus covers all of them) plus a
// target-device edit; then the writer must write the result, the reader must
// read it back, and writing again must give the same bytes. The input itself,
// when it reads, must write and read back the same way (reader and writer
// agree on what a valid program is, in both directions).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "FuzzSupport.h"
#include "analysis/Dataflow.h"
#include "analysis/Diagnostics.h"
#include "passes/Pipeline.h"
#include "passes/ProgramDiff.h"
#include "report/GraphText.h"
#include "report/Json.h"
#include "report/PassReportWriter.h"

namespace {

// Every combination upstream accepts: the skips need device planning.
std::vector<ptescope::passes::DeviceOptions> validOptionSets() {
  std::vector<ptescope::passes::DeviceOptions> out;
  for (int bits = 0; bits < 32; ++bits) {
    ptescope::passes::DeviceOptions o;
    o.enable_non_cpu_memory_planning = bits & 1;
    o.skip_h2d_for_method_inputs = bits & 2;
    o.skip_d2h_for_method_outputs = bits & 4;
    o.alloc_graph_input = bits & 8;
    o.alloc_graph_output = bits & 16;
    if (ptescope::passes::validateDeviceOptions(o)) out.push_back(o);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ptescope;
  static const auto optionSets = validOptionSets();
  auto loaded = pte::readProgramBytes(Bytes::copyOf({data, size}), "fuzz.pte", fuzz::fuzzReadOptions());
  if (!loaded) return 0;
  const program::Program& program = loaded->program;
  fuzz::checkWritesAndReadsBack(program, "the input");

  for (const auto& method : program.methods()) {
    const auto flow = analysis::Dataflow::build(method);
    (void)report::jsonText(report::methodGraphJson(flow));
  }
  (void)analysis::lintProgram(program);

  const uint8_t choice = size > 0 ? data[size - 1] : 0;
  passes::PipelineOptions options;
  options.defaults = optionSets[choice % optionSets.size()];
  if (!program.methods().empty() && (choice & 0x80)) {
    const std::string name = program.methods().front().displayName();
    options.target_devices[{name, 0}] =
        (choice & 0x40) ? std::optional<program::Device>() : program::Device{program::DeviceType::Cuda, 1};
  }
  auto result = passes::runPipeline(program, options);
  if (!result) return 0;  // refused with a message (e.g. an edit naming no delegate)
  (void)report::jsonText(report::passReportJson(result->report));
  (void)report::passReportText(result->report);
  fuzz::checkWritesAndReadsBack(result->program, "the pipeline's output");
  if (auto diff = passes::diffPrograms(program, result->program)) (void)report::jsonText(report::programDiffJson(diff.value()));
  return 0;
}
