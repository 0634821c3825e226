// The whole device pipeline on a program: strip → propagate → plan, per
// method with its own options, and the report of what changed against the
// program as it was loaded. A function of (Program, Options) with no hidden
// state: the same input always gives the same output.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "passes/DevicePasses.h"
#include "passes/MemoryPlanner.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::passes {

struct PipelineOptions {
  DeviceOptions defaults;
  std::map<std::string, DeviceOptions> per_method;  // overrides by method name
  // Target device edits applied before the passes: (method, delegate index)
  // -> device, nullopt removes the target_device spec.
  std::map<std::pair<std::string, int32_t>, std::optional<program::Device>> target_devices;

  const DeviceOptions& forMethod(const std::string& name) const {
    auto it = per_method.find(name);
    return it == per_method.end() ? defaults : it->second;
  }
};

struct BufferInfo {
  int32_t buffer_idx = 0;  // 1-based
  int64_t size = 0;
  program::Device device;
  friend bool operator==(const BufferInfo&, const BufferInfo&) = default;
};

struct RetaggedValue {
  int32_t value = -1;  // index in the result
  program::Device before;
  program::Device after;
};

struct MethodReport {
  std::string name;
  DeviceOptions options;
  std::vector<CopyRecord> copies_before;  // as loaded (source: stripped numbering)
  std::vector<CopyRecord> copies_after;   // in the result (source: stripped numbering)
  std::vector<CopyRecord> copies_added;   // in after, not before (matched by key)
  std::vector<CopyRecord> copies_removed; // in before, not after
  std::vector<RetaggedValue> retagged;
  std::vector<BufferInfo> buffers_before;
  std::vector<BufferInfo> buffers_after;
  size_t device_delegates = 0;
  size_t elided_h2d = 0;
  std::vector<std::string> warnings;
  // The device passes changed nothing and the options are the file's: the
  // method was kept as loaded, memory plan and value numbering included.
  bool plan_kept = false;
  // planningInferenceNote() of the method as loaded.
  std::string inference_note;
  bool changed() const {
    return !copies_added.empty() || !copies_removed.empty() || !retagged.empty() || buffers_before != buffers_after;
  }
};

struct PassReport {
  std::vector<MethodReport> methods;
  bool changed() const;
};

struct PipelineResult {
  program::Program program;
  PassReport report;
};

// Runs the pipeline on a copy of `input`. The first error (invalid options,
// an unparsable target_device, a multi-user placeholder with skip_h2d, ...)
// fails the whole run and names the method.
Result<PipelineResult> runPipeline(const program::Program& input, const PipelineOptions& options);

// The buffers of a method as the file lists them.
std::vector<BufferInfo> buffersOf(const program::Method& method);

// The options a method was most likely exported with, read off its placement:
// device-planned buffers or copies mean planning on, device-tagged inputs
// (outputs) mean skip_h2d (skip_d2h), unplanned inputs (outputs) mean
// alloc_graph_input (output) off. Defaults where the file says nothing.
DeviceOptions inferDeviceOptions(const program::Method& method);
// Where the placement cannot tell (device-tagged tensors, but no copies, no
// device buffers and no planned device tensor: both skips with unplanned
// graph IO, or legacy mode with the same IO), a sentence saying that device
// planning was inferred on and why; else empty.
std::string planningInferenceNote(const program::Method& method);

}  // namespace ptescope::passes
