// Predicted cost of a method's host-device copies on a link profile, read
// off the program alone (no run): every et_copy instruction, its bytes
// (the source tensor's size), direction and device side, priced by the
// link's curve for the host memory kind the arenas would be in.
//
// A prediction has the same copy identity as a measured profile (direction,
// canonical source, device side, occurrence: exec/CopyIdentity.h), so
// asTransferProfile() turns it into a profile whose every time is the
// predicted one, to be laid beside a measurement of the same method.
//
// Share of a run: ExecuTorch runs a method's instructions one after the
// other and each et_copy waits for its transfer, so with a compute time C
// per iteration the run takes C + copies and the copy share is
// copies / (C + copies).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/DelegateTransfers.h"
#include "cost/LinkProfile.h"
#include "exec/Profiler.h"
#include "passes/DevicePasses.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::cost {

struct CopyPrediction {
  size_t instruction = 0;  // flat index
  program::CopyDirection direction = program::CopyDirection::HostToDevice;
  int32_t source_value = -1;
  int32_t destination_value = -1;
  int32_t canonical_source = -1;  // passes::canonicalValueIndices; -1 when unknown
  program::Device device;         // the device side
  uint64_t bytes = 0;
  double seconds = 0;             // one execution
};

// A transfer a delegate makes inside its execute() (analysis/
// DelegateTransfers), priced like a copy: h2d/d2h on the link's curve, d2d
// on the profile's device curve or, when it has none, kTypicalDeviceCopy.
struct DelegateCopyPrediction {
  analysis::DelegateTransfer transfer;
  double seconds = 0;
};

// A device-to-device copy where the link profile has no d2d curve: a fixed
// cost of 2 µs (a cudaMemcpyAsync launch) plus the bytes at 1000 GB/s (a
// copy reads and writes device memory: about half of an HBM GPU's peak).
// Typical figures, not a measurement.
struct TypicalDeviceCopy {
  double latency_seconds = 2e-6;
  double gbps = 1000.0;
};
inline constexpr TypicalDeviceCopy kTypicalDeviceCopy{};
// The line that says a d2d figure is assumed, not measured, where `link` has
// no d2d curve ("d2d: no device-to-device curve in this link profile:
// assumed 2.00 us + bytes at 1000 GB/s; `ptescope-cli probe-link` measures
// one"); empty when it has one.
std::string assumedDeviceCopyNote(const LinkProfile& link);

struct PredictionTotals {
  size_t copies = 0;
  uint64_t bytes = 0;
  double seconds = 0;
};

struct MethodPrediction {
  std::string method;
  std::string link_name;
  std::string link_label;  // LinkProfile::label()
  exec::HostMemoryKind host_memory = exec::HostMemoryKind::Pageable;
  std::vector<CopyPrediction> copies;  // instruction order
  PredictionTotals host_to_device;
  PredictionTotals device_to_host;
  // Inside delegates (no instruction): TensorRT staging, CUDA graph replay.
  std::vector<DelegateCopyPrediction> delegate_copies;
  PredictionTotals inside_delegates;  // every direction
  std::vector<analysis::DelegateRefusal> delegate_refusals;

  // Every copy of a call: et_copy instructions and copies inside delegates.
  double copySeconds() const { return host_to_device.seconds + device_to_host.seconds + inside_delegates.seconds; }
  size_t copyCount() const { return host_to_device.copies + device_to_host.copies + inside_delegates.copies; }
  uint64_t copyBytes() const { return host_to_device.bytes + device_to_host.bytes + inside_delegates.bytes; }
  PredictionTotals insideDelegates(program::CopyDirection direction) const;
  const PredictionTotals& totals(program::CopyDirection direction) const {
    return direction == program::CopyDirection::HostToDevice ? host_to_device : device_to_host;
  }
};

// copies / (compute + copies); 0 when both are 0.
double copyShare(double copySeconds, double computeSeconds);

// The copies of `method` priced on `link`. Errors: a copy whose curve the
// profile lacks, an et_copy call with too few arguments.
Result<MethodPrediction> predictMethod(const program::Method& method, const LinkProfile& link,
                                       exec::HostMemoryKind hostMemory);
// The method by name ("" = the one a profile would run); errors name it.
// With the program, the copies inside its delegates are priced too
// (`settings`: which methods replay CUDA graphs).
Result<MethodPrediction> predictProgram(const program::Program& program, const std::string& methodName,
                                        const LinkProfile& link, exec::HostMemoryKind hostMemory,
                                        const analysis::DelegateTransferOptions& settings = {});
// predictMethod plus the copies inside the method's delegates.
Result<MethodPrediction> predictMethod(const program::Program& program, const program::Method& method,
                                       const LinkProfile& link, exec::HostMemoryKind hostMemory,
                                       const analysis::DelegateTransferOptions& settings = {});
// One transfer's predicted time: h2d/d2h on the link's curve for the host
// memory kind, d2d on its device curve or kTypicalDeviceCopy.
Result<double> transferSeconds(const LinkProfile& link, program::CopyDirection direction,
                               exec::HostMemoryKind hostMemory, uint64_t bytes);

// The copies inside delegates that an edit adds or removes: those of
// `after` with no like copy in `before` (same delegate, kind, direction,
// argument of the call and bytes), and the other way round; each once per unmatched
// occurrence. An edit that takes a CudaBackend delegate's target_device
// away removes its et_copy copies and adds as many inside it.
struct DelegateCopyChanges {
  std::vector<DelegateCopyPrediction> added;
  std::vector<DelegateCopyPrediction> removed;
  bool empty() const { return added.empty() && removed.empty(); }
};
DelegateCopyChanges diffDelegateCopies(const MethodPrediction& before, const MethodPrediction& after);

// The predicted time of copies as the pass reports describe them.
Result<double> predictRecords(const std::vector<passes::CopyRecord>& copies, const LinkProfile& link,
                              exec::HostMemoryKind hostMemory);

// The prediction shaped as a measured profile: one execution per iteration,
// min = median = max = the predicted time, runtime "predicted: <link>".
exec::TransferProfile asTransferProfile(const MethodPrediction& prediction);

}  // namespace ptescope::cost
