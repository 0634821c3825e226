// Ready-made programs: the graph shapes of ExecuTorch's device-pass tests
// (spec/device-semantics.md §4.1), the embedded demo, and a large
// transformer-like program for benchmarks.
//
// Scenario and demo programs are *pre-pass* graphs, as ExecuTorch has them
// before PropagateDevicePass: delegates carry a target_device compile spec,
// every tensor is on CPU and there are no copies yet. Their options (skip
// flags, planning) travel with them in the spec.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "program/Program.h"
#include "synth/JsonSpec.h"
#include "util/Result.h"

namespace ptescope::synth {

struct Scenario {
  std::string name;         // stable, e.g. "cross_device"
  std::string description;  // the graph, the config and the upstream tests it mirrors
  std::string spec_json;    // a JsonSpec
};

// Every scenario, in the order of the upstream test table.
const std::vector<Scenario>& scenarios();
const Scenario* findScenario(std::string_view name);
Result<SynthesizedProgram> synthesizeScenario(std::string_view name);

// Backend id and compile specs of the scenarios' delegates, as upstream's
// DeviceAwarePartitioner / CpuOnlyPartitioner make them.
inline constexpr std::string_view kScenarioBackendId = "BackendWithCompilerDemo";

// The demo program's spec: the text of resources/demo.json, compiled in.
// Two methods ("forward", "prefill"), each with two CudaBackend delegates on
// cuda:0, CPU kernels between them and a constant.
std::string_view demoSpecJson();
Result<SynthesizedProgram> synthesizeDemo();

// A program imitating an N-layer transformer: one method "forward", input
// [1, 8, 32] float32. Each layer is kLargeProgramInstructionsPerLayer
// instructions, alternating CPU kernels and CudaBackend delegates (cuda:0):
//    1 CPU  aten::native_layer_norm.out   h -> ln1 (+ mean, rstd)
//    2 GPU  delegate "attention"          ln1 -> attn
//    3 CPU  aten::add.out                 h, attn -> h1
//    4 CPU  aten::native_layer_norm.out   h1 -> ln2 (+ mean, rstd)
//    5 GPU  delegate "mlp_gate_up"        ln2 -> gate, up
//    6 CPU  aten::sigmoid.out             gate -> sig   (silu as gate * sigmoid(gate):
//    7 CPU  aten::mul.out                 gate, sig -> act   portable has no silu.out)
//    8 CPU  aten::mul.out                 act, up -> gated
//    9 GPU  delegate "mlp_down"           gated -> down
//   10 CPU  aten::add.out                 h1, down -> h2
//   11 CPU  aten::mul.out                 h2, layer_scale -> next h
// so N = 500 gives 5,500 instructions and N = 5,000 gives 55,000. Five
// constants per layer (layer-norm weights and biases, layer scale). After
// the device passes with default options each layer gains 7 copies (one H2D
// per delegate input, one D2H per delegate output; nothing to elide), i.e.
// 18 instructions per layer. Every op is in the portable kernel library and
// is laid out as upstream's emitter lays it out (layer norm: 9 args ending in
// a TensorList); the delegates carry upstream's AOTI payload (one so blob
// per delegate kind in the program's named data, its weights in
// aoti_cuda_blob.ptd).
inline constexpr size_t kLargeProgramInstructionsPerLayer = 11;
inline constexpr size_t kLargeProgramCopiesPerLayer = 7;
// A layer is about 96 flatbuffer tables, about 135 once the device passes
// have added the copies; beyond this many layers the program with copies
// would pass the verifier's limit of 1,000,000 tables and no longer load.
inline constexpr size_t kLargeProgramMaxLayers = 7000;
Result<program::Program> largeProgram(size_t layers);

}  // namespace ptescope::synth
