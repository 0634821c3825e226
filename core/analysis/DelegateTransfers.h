// Transfers a delegate makes inside its own execute(), which no instruction
// shows: derived copies, a kind of their own next to the et_copy
// instructions (spec/device-semantics.md §7).
//
// - TensorRTBackend (pytorch/TensorRT cpp/src/torch_tensorrt/executorch/
//   TensorRTBackend.cpp, "TRB" below): a boundary tensor in host memory is
//   staged: each such input copied host-to-device into cached device scratch
//   before the engine runs (TRB 720-745), each such output bound to scratch
//   and copied device-to-host after it (TRB 883-900, 957-973); an aliased
//   output (a KV-cache update) is bound to its input and reflected
//   device-to-device into the delegate's output (TRB 789-833, 921-936). An
//   aliased input in host memory is refused before any copy (TRB 694-705):
//   a refusal, not a transfer. Discrete GPUs; an integrated GPU stages
//   nothing (TRB 278-286).
// - CudaBackend with CUDA graphs on for the method (the runtime option
//   enable_cuda_graph_for_method): each replay copies every input
//   device-to-device into the graph's static buffers and every output back
//   (backends/cuda/runtime/cuda_backend.cpp 573-610). A host-memory boundary
//   tensor is refused (cuda_backend.cpp 521-560), never staged.
// - CudaBackend without a target_device: the passes leave the delegate
//   alone, its tensors are host memory, and CudaBackend's execute copies each
//   host input to the GPU (from_etensor) and each output back
//   (copy_slimtensor_to_etensor) in the builds that predate device-aware
//   memory; device-aware builds refuse host memory (above). Either way
//   removing the target_device saves nothing: the copies are counted here.
//
// Memory: a planned tensor is device memory exactly when its arena is a
// device arena (non_const_buffer_device); everything else, unplanned method
// inputs included (the caller's host buffers under executor_runner and
// Module), is host memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "program/CopyDirection.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::analysis {

// Settings of the run that the file does not hold.
struct DelegateTransferOptions {
  // Methods whose CudaBackend delegates replay CUDA graphs
  // (enable_cuda_graph_for_method, comma-separated upstream).
  std::set<std::string> cuda_graph_methods;
};

// The methods of a comma-separated list, read as CudaBackend's
// method_in_csv reads enable_cuda_graph_for_method (cuda_backend.cpp
// 108-125: tokens trimmed, empty ones ignored); each must be a method of
// `program` ("--cuda-graph: the program has no method 'x' (it has forward,
// prefill)").
Result<DelegateTransferOptions> cudaGraphSetting(std::string_view csv, const program::Program& program);

enum class DelegateTransferKind {
  TensorRTStagedInput,   // h2d into scratch
  TensorRTStagedOutput,  // d2h out of scratch
  TensorRTAliasReflect,  // d2d of an aliased output
  CudaGraphInput,        // d2d into the graph's static input
  CudaGraphOutput,       // d2d out of the graph's static output
  CudaStagedInput,       // h2d of a host input (CudaBackend without target_device)
  CudaStagedOutput,      // d2h into a host output (CudaBackend without target_device)
};
// "tensorrt staging", "tensorrt alias reflect", "cuda graph replay", "cuda staging".
std::string delegateTransferKindName(DelegateTransferKind kind);
// A copy of CudaBackend's CUDA graph replay (a run setting, not the file).
bool isCudaGraphReplay(DelegateTransferKind kind);

struct DelegateTransfer {
  size_t instruction = 0;  // flat index of the DelegateCall
  int32_t delegate = -1;   // index in the method's delegates
  std::string backend;     // "TensorRTBackend"
  int32_t value = -1;      // the boundary value moved
  // Its position among the DelegateCall's arguments: what names the copy
  // across an edit that renumbers the values (-1: not an argument).
  int32_t argument = -1;
  DelegateTransferKind kind = DelegateTransferKind::TensorRTStagedInput;
  program::CopyDirection direction = program::CopyDirection::HostToDevice;
  uint64_t bytes = 0;
  program::Device device;  // the GPU side
  std::string upstream;    // the upstream lines that do it
  // "inside delegate 1 (TensorRTBackend): input %3 is host memory, staged host-to-device"
  std::string text() const;
  // "inside delegate 0: h2d 64 B", with " (CUDA graph replay)" for the
  // copies the run's CUDA graph setting adds: the graph's mark, trace slices.
  std::string shortText() const;
  // Before the engine runs (an input's copy) or after it (an output's).
  bool onInputSide() const;
};

// A boundary the backend refuses at run time (not a transfer).
struct DelegateRefusal {
  size_t instruction = 0;
  int32_t delegate = -1;
  int32_t value = -1;
  std::string message;   // what and why, with the upstream line
};

struct DelegateTransfers {
  std::vector<DelegateTransfer> transfers;  // instruction order, then argument order
  std::vector<DelegateRefusal> refusals;
  size_t count(program::CopyDirection direction) const;
  uint64_t bytes(program::CopyDirection direction) const;
  uint64_t bytes() const;
};

// True when value `v` is a tensor planned in a device arena.
bool inDeviceMemory(const program::Method& method, int32_t v);

// The transfers inside the delegates of `method` (of `program`, whose
// TensorRT blobs name the bindings, aliases and the engine's device).
DelegateTransfers delegateTransfers(const program::Program& program, const program::Method& method,
                                    const DelegateTransferOptions& options = {});

}  // namespace ptescope::analysis
