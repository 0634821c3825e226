// A program of two methods whose caller may send a value to the host and
// back between them (PRF004 across methods), and an ETDump of one run of
// each, for the tests of the rule in core, the CLI, the report and the app.
#pragma once

#include <QtGlobal>

#include <algorithm>
#include <string>
#include <variant>

#include "etdump/EtdumpWriter.h"
#include "synth/JsonSpec.h"

namespace ptescope::test {

// Two methods, each x -> h2d -> a CUDA delegate -> d2h -> out, as export
// writes them: 'encoder' takes float32[1,8] and returns float32[1,8] (its
// delegate's output copied to the host); 'decoder' takes `decoderInput`
// (e.g. "[1, 8]": the encoder's output type, a round trip for a caller that
// passes one to the other; "[1, 4]": none) and returns float32[1,4].
inline program::Program twoMethodProgram(const char* decoderInput) {
  const std::string spec = std::string(R"({"methods": [
    {"name": "encoder", "inputs": ["x"], "outputs": ["h"],
     "tensors": {"x": {"dtype": "float32", "sizes": [1, 8]}, "h": {"dtype": "float32", "sizes": [1, 8]}},
     "nodes": [{"delegate": "CudaBackend", "compile_specs": {"method_name": "encoder", "target_device": "cuda:0"},
                "inputs": ["x"], "outputs": ["h"]}]},
    {"name": "decoder", "inputs": ["e"], "outputs": ["y"],
     "tensors": {"e": {"dtype": "float32", "sizes": )") + decoderInput + R"(}, "y": {"dtype": "float32", "sizes": [1, 4]}},
     "nodes": [{"delegate": "CudaBackend", "compile_specs": {"method_name": "decoder", "target_device": "cuda:0"},
                "inputs": ["e"], "outputs": ["y"]}]}]})";
  auto built = synth::synthesizeFromSpec(spec);
  if (!built) qFatal("%s", built.error().message.c_str());
  auto program = synth::applyDevicePasses(built.value());
  if (!program) qFatal("%s", program.error().message.c_str());
  return std::move(program.value());
}

// The trace of a caller that loads and runs 'encoder' three times, then
// loads and runs 'decoder' three times (a "Default" block and three
// "Execute" blocks each, the decoder's after the encoder's on the clock):
// the ETDump's default attribution gives each method its own blocks. Every
// instruction scope lasts 100 + its flat index ticks (EtdumpWriter's default).
inline etdump::Etdump twoMethodTrace(const program::Program& program) {
  etdump::Etdump out;
  uint64_t clock = 0;
  for (const char* method : {"encoder", "decoder"}) {
    etdump::TraceSpec spec;
    spec.method = method;
    spec.iterations = 3;
    auto dump = etdump::synthesizeEtdump(program, spec);
    if (!dump) qFatal("%s", dump.error().message.c_str());
    uint64_t end = clock;
    for (auto& block : dump->blocks) {
      for (auto& event : block.events)
        if (auto* e = std::get_if<etdump::ProfileEvent>(&event)) {
          e->start_ticks += clock;
          e->end_ticks += clock;
          end = std::max(end, e->end_ticks);
        }
      out.blocks.push_back(std::move(block));
    }
    out.version = dump->version;
    clock = end + 1;
  }
  return out;
}

}  // namespace ptescope::test
