// The one edit model: what a user changed against a program as loaded, and
// how that becomes the pipeline's options. The CLI (`propagate`, `render`,
// ...), the app's Document and the tests all go through it, so "file options
// + edits → pipeline options" is written once and means the same everywhere:
// every method starts from the options read off the file (inferDeviceOptions),
// and an edit changes only what it names.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "passes/Pipeline.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::passes {

// A change to some of a method's pass options: each option set to a value,
// or left as it is (nullopt). The CLI's tri-state flags fill one of these.
struct OptionChanges {
  std::optional<bool> enable_non_cpu_memory_planning;
  std::optional<bool> skip_h2d_for_method_inputs;
  std::optional<bool> skip_d2h_for_method_outputs;
  std::optional<bool> alloc_graph_input;
  std::optional<bool> alloc_graph_output;

  bool empty() const;
  DeviceOptions appliedTo(DeviceOptions options) const;
  friend bool operator==(const OptionChanges&, const OptionChanges&) = default;
};

// What each method starts from before the changes.
enum class OptionBase {
  File,              // the options the method was exported with (read off its placement)
  UpstreamDefaults,  // upstream to_executorch's defaults (`--defaults`)
};

// Target device edits: (method name, delegate index) -> device; nullopt
// removes the delegate's target_device compile spec.
using TargetDeviceEdits = std::map<std::pair<std::string, int32_t>, std::optional<program::Device>>;

struct ProgramEdits {
  // Whole options of the methods the user changed, by method name; a method
  // not listed keeps the options read off the file.
  std::map<std::string, DeviceOptions> options;
  TargetDeviceEdits target_devices;

  bool empty() const { return options.empty() && target_devices.empty(); }
  friend bool operator==(const ProgramEdits&, const ProgramEdits&) = default;
};

// The options each method of `program` was exported with, in method order.
std::vector<DeviceOptions> fileOptions(const program::Program& program);

// The pipeline's options for `loaded` with `edits`: every method its file
// options unless edited, then the target device edits. Checks that each
// edited method exists and each delegate index is in range, and that every
// method's options are valid (upstream's constructor check); the error names
// the method or the delegate.
Result<PipelineOptions> pipelineOptionsFor(const program::Program& loaded, const ProgramEdits& edits);

// runPipeline(loaded, pipelineOptionsFor(loaded, edits)): the program
// `loaded` becomes with `edits`, and the pipeline's report; the error is the
// options' or the pipeline's. Reads only its arguments (safe off the UI
// thread).
Result<PipelineResult> runEdits(const program::Program& loaded, const ProgramEdits& edits);

// Edits that apply `changes` to method `method` (every method when empty),
// each starting from `base`. Methods not named keep their file options. An
// unknown method name is an error.
Result<ProgramEdits> editsFromChanges(const program::Program& loaded, OptionBase base, const OptionChanges& changes,
                                      const std::string& method = {});

// Sets (or with nullopt removes) delegate `delegate`'s target device in
// method `method` of `loaded`, recording the edit only when it differs from
// the file. Errors: no such method, no such delegate.
Status setTargetDevice(ProgramEdits& edits, const program::Program& loaded, const std::string& method,
                       int32_t delegate, const std::optional<program::Device>& device);

}  // namespace ptescope::passes
