// Programs from a JSON spec (`ptescope-cli synth SPEC.json`). The format:
//
//   {
//     "methods": [{
//       "name": "forward",
//       "inputs": ["a", "b"],                 // method inputs, in order
//       "outputs": ["y"],                     // method outputs, in order
//       "tensors": {"a": {"dtype": "float32", "sizes": [2, 2]},
//                   "t": {"dtype": "float32", "sizes": [2, 2], "dynamism": "dynamic_bound"},
//                   "c": {"dtype": "float32", "sizes": [1, 3, 4, 4], "dim_order": [0, 2, 3, 1]}, ...},
//       "constants": {"w": {"dtype": "float32", "sizes": [2, 2], "fill": 0.5},
//                     "v": {"dtype": "int32", "sizes": [3], "data": [1, 2, 3]}},
//       "nodes": [
//         {"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"},
//          "inputs": ["a", "b"], "outputs": ["t"], "blob": "optional processed bytes"},
//         {"op": "aten::add.out", "inputs": ["t", "w"], "args": [1], "outputs": ["y"]}
//       ]
//     }],
//     "options": {"enable_non_cpu_memory_planning": true, "skip_h2d_for_method_inputs": false,
//                 "skip_d2h_for_method_outputs": false, "alloc_graph_input": true,
//                 "alloc_graph_output": true}
//   }
//
// Nodes run in the order listed. A node input is a tensor name (a method
// input, a constant or an earlier node's output) or a literal: an integer
// (Int), a number with a fraction or exponent (Double), true/false (Bool),
// null (Null), or a list of one of those kinds (IntList, DoubleList,
// BoolList; a list of names is a TensorList); {"optional_tensors": ["i",
// null]} is an OptionalTensorList (a Tensor?[], null for None). `args` holds more arguments
// placed after `inputs` (handy for scalars such as alpha). A kernel call's
// arguments are the inputs, the args, the outputs, then the outputs again,
// as ExecuTorch emits out-variant ops; a delegate call's are the inputs, the
// args, then the outputs. Compile spec values are strings (their UTF-8
// bytes) or arrays of byte values; so is `blob`.
//
// "outputs": [["a", "b"]] (one list) is a single tensor-list out, as
// split_copy's `Tensor(a!)[] out`: the list, then a new list of the same
// members as the return.
//
// Multi-output ops end with ONE TensorList of their outputs instead of the
// outputs again, as upstream's emitter writes them (see
// MethodBuilder::addKernelCall).
//
// A CudaBackend (or MetalBackend) delegate may carry, instead of `blob`,
//   "aoti": {"so": "bytes of the shared object", "weights": "bytes of the weights",
//            "weights_in_program": false}
// which lays the payload out as upstream's AOTI backend does: the so under
// "<sha256>_so_blob" in the program's named data, the weights under
// "<sha256>_weights_blob" in aoti_cuda_blob.ptd (written beside the
// program) or, with weights_in_program, in the program; the delegate's
// processed bytes are "<so_key>\n<weights_key>".
//
// A TensorRTBackend delegate may carry, instead of `blob`,
//   "tensorrt": {"engine": "engine bytes", "device_id": 0, "hardware_compatible": false,
//                "aliased_io": [{"output": "k_new", "input": "k", "kind": "kv_cache_update"}],
//                "serialized_metadata": "", "target_platform": ""}
// which writes the blob as Torch-TensorRT's serialize_engine does
// (program/TensorRTBlob.h): one binding per tensor input, then per output,
// named after the node's tensors; an alias names one of each.
//
// Each option is a bool for every method or an object keyed by method name
// (methods not named get the default). Defaults are upstream to_executorch's.
//
// Objects may also carry "comment" / "description" fields and any field
// whose name starts with "_"; other unknown fields are errors, so typos do
// not pass silently. Every error is one message that starts with the JSON
// path of the offending item, e.g. "methods[0].nodes[1].inputs[0]: unknown
// tensor 'q'".
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "passes/Pipeline.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::synth {

// The pass options of one method: the device pipeline's own options, with
// upstream's to_executorch defaults.
using MethodPassOptions = passes::DeviceOptions;

struct SpecOptions {
  std::map<std::string, MethodPassOptions> per_method;  // an entry for every method of the spec
  // The options of `method` (defaults for a method the spec does not have).
  MethodPassOptions forMethod(const std::string& method) const;
  // The same options as the device pipeline takes them.
  passes::PipelineOptions pipelineOptions() const;
};

struct SynthesizedProgram {
  // As built: every tensor on CPU, memory planned for CPU with the
  // alloc_graph_input / alloc_graph_output options.
  program::Program program;
  // The options the device passes will run with.
  SpecOptions options;
};

// The program after the device pipeline (strip, propagate, plan) with the
// spec's options: what upstream export would write for that graph.
Result<program::Program> applyDevicePasses(const SynthesizedProgram& synthesized);

// What a spec may make the synthesizer allocate. Constants are built in
// memory (and held about three times over while the program is assembled and
// written), so a spec whose constants add up to more than the limit is refused
// with one error naming the constant, before its data is allocated.
struct SpecLimits {
  // Largest total of constant data in bytes; 0: a quarter of the memory
  // available now (MemAvailable), or 1 GiB when that is unknown.
  uint64_t max_constant_bytes = 0;
};

// Builds the program a spec describes.
Result<SynthesizedProgram> synthesizeFromSpec(std::string_view jsonText, const SpecLimits& limits = {});
// Reads the spec from a file; errors start with the path.
Result<SynthesizedProgram> synthesizeFromSpecFile(const std::string& path, const SpecLimits& limits = {});

}  // namespace ptescope::synth
