// Big programs in the shapes that stress graph browsing (issue 12): each is
// an ExecuTorch program built only from operators the portable kernel
// library has (single-output out variants, arguments in the schema's order
// with `out` last) and CudaBackend delegates with a target_device compile
// spec. Like the scenarios they are *pre-pass* graphs: every tensor on CPU,
// no copies; applyDevicePasses() (default options) adds the copies.
//
//   llm       decoder layers. The attention mask, the rotary cos/sin tables
//             (rows picked by input_pos) and input_pos itself are read by
//             every layer; a residual stream runs through the layers; each
//             layer has a K and a V cache buffer (planned, no initial data,
//             as ExecuTorch exports mutable buffers) written in place by
//             aten::index_put.out (out = the cache) and read by the attention
//             delegate. RMS norms on the CPU, delegates (cuda:0) for q/k/v +
//             rope, attention and the MLP.
//   moe       per layer attention (cuda:0), then a router on the CPU
//             (view, mm, softmax) and 8 expert delegates side by side that
//             all read the router's input and its probabilities; the experts'
//             outputs are summed on the CPU.
//   pipeline  layers split in four stages on cuda:0..cuda:3; each layer is
//             an RMS norm on the CPU, attention and MLP delegates on the
//             stage's device and a residual add on the CPU, so every stage
//             boundary is a device-to-device hop through the CPU.
//   fanout    CPU only: one method input read by every second instruction
//             (add, sigmoid, mul, neg repeated), the worst case for a layered
//             layout.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::synth {

struct ProgramShape {
  std::string name;
  std::string description;
  // Instructions one layer adds before and after the device passes
  // (default options); the prologue and epilogue add a few more.
  size_t instructions_per_layer = 0;
  size_t instructions_per_layer_with_copies = 0;
  // Beyond this the program with copies would pass the flatbuffer
  // verifier's table limit.
  size_t max_layers = 0;
};

const std::vector<ProgramShape>& programShapes();
const ProgramShape* findProgramShape(std::string_view name);

// The pre-pass program of `layers` layers of shape `name`. Fails for an
// unknown shape (naming the known ones) or a layer count out of range.
Result<program::Program> shapeProgram(std::string_view name, size_t layers);

// Layers for about `instructions` instructions after the device passes
// (at least 1).
Result<size_t> layersForInstructions(std::string_view name, size_t instructions);

}  // namespace ptescope::synth
