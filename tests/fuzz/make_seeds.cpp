// Writes the seed corpora of the fuzz harnesses at run time, from the same
// generators `ptescope-cli synth` uses (nothing is stored in the repository):
//   make_seeds PROGRAM_DIR SPEC_DIR
// PROGRAM_DIR gets every scenario before and after the device passes, the
// demo and a small large-model program; SPEC_DIR gets every scenario's JSON
// spec and the demo's. tests/fuzz/run.sh adds the shared sample programs.
#include <cstdio>
#include <fstream>
#include <string>

#include "pte/Writer.h"
#include "synth/Scenarios.h"

namespace {

int failures = 0;

void writeText(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out.write(text.data(), std::streamsize(text.size()));
  if (!out) {
    std::fprintf(stderr, "make_seeds: cannot write %s\n", path.c_str());
    ++failures;
  }
}

void writeProgram(const std::string& path, const ptescope::Result<ptescope::program::Program>& program) {
  if (!program) {
    std::fprintf(stderr, "make_seeds: %s: %s\n", path.c_str(), program.error().message.c_str());
    ++failures;
    return;
  }
  auto bytes = ptescope::pte::serializeProgram(program.value());
  if (!bytes) {
    std::fprintf(stderr, "make_seeds: %s: %s\n", path.c_str(), bytes.error().message.c_str());
    ++failures;
    return;
  }
  writeText(path, std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ptescope;
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_seeds PROGRAM_DIR SPEC_DIR\n");
    return 2;
  }
  const std::string programs = argv[1], specs = argv[2];
  for (const auto& scenario : synth::scenarios()) {
    writeText(specs + "/" + scenario.name + ".json", scenario.spec_json);
    auto built = synth::synthesizeScenario(scenario.name);
    if (!built) {
      writeProgram(programs + "/" + scenario.name + ".pte", built.error());
      continue;
    }
    writeProgram(programs + "/" + scenario.name + "-prepass.pte", built->program);
    writeProgram(programs + "/" + scenario.name + ".pte", synth::applyDevicePasses(built.value()));
  }
  // A TensorRT delegate (aliased KV output, TR02 blob) beside a CUDA one, so
  // mutations reach the TensorRT blob decoder through info and lint.
  const std::string tensorrt = R"({"methods": [{"name": "forward", "inputs": ["x", "k"], "outputs": ["y", "k2"],
    "tensors": {"x": {"dtype": "float32", "sizes": [2, 8]}, "k": {"dtype": "float32", "sizes": [2, 8]},
                "t": {"dtype": "float32", "sizes": [2, 8]}, "y": {"dtype": "float32", "sizes": [2, 8]},
                "k2": {"dtype": "float32", "sizes": [2, 8]}},
    "nodes": [{"delegate": "CudaBackend", "compile_specs": {"method_name": "forward", "target_device": "cuda:0"},
               "aoti": {"so": "so", "weights": "w", "weights_in_program": true}, "inputs": ["x"], "outputs": ["t"]},
              {"delegate": "TensorRTBackend", "compile_specs": {"target_device": "cuda:0"},
               "tensorrt": {"engine": "engine", "aliased_io": [{"output": "k2", "input": "k"}]},
               "inputs": ["t", "k"], "outputs": ["y", "k2"]}]}]})";
  writeText(specs + "/tensorrt.json", tensorrt);
  if (auto trt = synth::synthesizeFromSpec(tensorrt))
    writeProgram(programs + "/tensorrt.pte", synth::applyDevicePasses(trt.value()));
  else
    writeProgram(programs + "/tensorrt.pte", trt.error());
  writeText(specs + "/demo.json", synth::demoSpecJson());
  if (auto demo = synth::synthesizeDemo()) writeProgram(programs + "/demo.pte", synth::applyDevicePasses(demo.value()));
  if (auto large = synth::largeProgram(2)) {
    writeProgram(programs + "/large-2.pte", large.value());
    writeProgram(programs + "/large-2-passes.pte", synth::applyDevicePasses(synth::SynthesizedProgram{large.value(), {}}));
  }
  return failures == 0 ? 0 : 1;
}
