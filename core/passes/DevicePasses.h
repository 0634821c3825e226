// ExecuTorch's device passes on a serialized method (spec/device-semantics.md
// §1-2): strip existing host/device copies, then propagate devices from the
// delegates' target_device compile specs and insert et_copy ops exactly as
// PropagateDevicePass does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "program/CopyDirection.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::passes {

inline constexpr const char* kTargetDeviceKey = "target_device";

// The per-method options of upstream's to_executorch() with its defaults.
struct DeviceOptions {
  bool enable_non_cpu_memory_planning = true;
  bool skip_h2d_for_method_inputs = false;
  bool skip_d2h_for_method_outputs = false;
  bool alloc_graph_input = true;
  bool alloc_graph_output = true;
  friend bool operator==(const DeviceOptions&, const DeviceOptions&) = default;
};

// Upstream's constructor check: the skips need device planning. The message
// is upstream's.
Status validateDeviceOptions(const DeviceOptions& options);

// A copy instruction, described by values of the stripped (copy-free)
// method so copies of two versions of a program can be matched.
struct CopyRecord {
  program::CopyDirection direction = program::CopyDirection::HostToDevice;
  int32_t source = -1;       // stripped value index the data comes from
  int32_t value = -1;        // index of the copy's output in the program it belongs to
  int32_t consumer_delegate = -1;  // H2D: ordinal of the DelegateCall that reads it
  int32_t consumer_arg = -1;       // H2D: argument position in that call
  program::Device from;
  program::Device to;
  int64_t bytes = 0;
  size_t instruction = 0;  // flat index in the program it belongs to
  // Stable text key: "h2d %3 -> delegate 1 arg 0" / "d2h %5".
  std::string key() const;
};

// The copies of `a` that `b` does not have, matched by key (a copy present
// twice in `a` and once in `b` is listed once).
std::vector<CopyRecord> copiesNotIn(const std::vector<CopyRecord>& a, const std::vector<CopyRecord>& b);

struct StripResult {
  // old value index -> stripped value index; a removed copy output maps to
  // the value its data came from.
  std::vector<int32_t> canonical;
  std::vector<CopyRecord> removed;
};

// The value numbering stripDeviceCopies would give, without changing the
// method: old value index -> index in the copy-free method, where a copy's
// output maps to the value its data came from. Every edit of one loaded
// program strips to the same numbering, so it identifies a copy's source
// across edits (files exported upstream interleave copy outputs with the
// other values, so their own numbering shifts once copies come and go).
Result<std::vector<int32_t>> canonicalValueIndices(const program::Method& method);

// Removes every et_copy::_h2d_copy / _d2h_copy instruction, rewires their
// readers to the source values, drops the copy outputs and unused operators,
// resets every tensor to CPU (ExtraTensorInfo that only carried a device is
// removed) and drops non_const_buffer_device.
Result<StripResult> stripDeviceCopies(program::Method& method);

struct PropagateResult {
  std::vector<CopyRecord> added;      // in the result's numbering (source: stripped index)
  std::vector<int32_t> retagged;      // values whose device is not CPU afterwards
  size_t device_delegates = 0;
  size_t elided_h2d = 0;              // same-device round trips removed
  std::vector<std::string> notes;     // e.g. a constant fed to a device delegate
};

// PropagateDevicePass on a copy-free method: phase 1 (H2D before device
// delegate inputs, skip_h2d retagging, legacy tagging), phase 2 (D2H after
// device delegate outputs, skip_d2h), phase 3 (elide same-device round
// trips, drop D2H copies left unused). Errors are upstream's.
Result<PropagateResult> propagateDevice(program::Method& method, const DeviceOptions& options);

// The target device of a delegate: the first target_device compile spec,
// parsed as upstream parses it; nullopt when it has none.
Result<std::optional<program::Device>> delegateTargetDevice(const program::BackendDelegate& delegate);

// Sets (or, with nullopt, removes every) target_device compile spec of a
// delegate: the edit the GUI and `propagate --set-device` offer.
void setDelegateTargetDevice(program::BackendDelegate& delegate, const std::optional<program::Device>& device);

}  // namespace ptescope::passes
