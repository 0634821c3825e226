// libFuzzer: any bytes through the .pte and .ptd readers, `dump`'s JSON and
// the readable outputs of `info` (text, JSON) for what reads. Nothing may
// crash, hang, leak or hit undefined behaviour; every JSON text must be
// produced without throwing.
#include <cstddef>
#include <cstdint>

#include "FuzzSupport.h"
#include "analysis/Diagnostics.h"
#include "pte/JsonDump.h"
#include "report/GraphText.h"
#include "report/InfoReport.h"
#include "report/Json.h"
#include "report/PassReportWriter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ptescope;
  const std::span<const uint8_t> input(data, size);
  (void)pte::dumpProgramJson(input);
  (void)pte::dumpDataFileJson(input);
  (void)pte::readDataBytes(Bytes::copyOf(input), "fuzz.ptd");
  auto loaded = pte::readProgramBytes(Bytes::copyOf(input), "fuzz.pte", fuzz::fuzzReadOptions());
  if (!loaded) return 0;
  (void)report::jsonText(report::infoJson(loaded.value()));
  (void)report::infoText(loaded.value());
  (void)report::graphText(loaded->program);
  (void)report::jsonText(report::diagnosticsJson(analysis::lintProgram(loaded->program)));
  return 0;
}
