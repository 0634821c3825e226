// Profiling one method: warm-up runs, then N measured runs of the whole
// instruction stream, and per copy the bytes, direction, host memory kind,
// min/median/max transfer time, bandwidth and share of the link peak, which
// is measured on the same runtime with a large pinned copy each way.
//
// Runs may take long (a GPU program of thousands of instructions, many
// iterations), so the caller can watch progress and cancel; a cancelled
// profile keeps the iterations that completed, and so does one whose later
// iteration failed (TransferProfile::failure: partial). A failure before any
// measured iteration completed is an error naming the phase and iteration.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/DelegateTransfers.h"
#include "exec/Executor.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::exec {

struct TimingStats {
  double min = 0, median = 0, max = 0;  // seconds
  static TimingStats of(std::vector<double> samples);
};

struct CopyProfile {
  size_t instruction = 0;  // flat index
  program::CopyDirection direction = program::CopyDirection::HostToDevice;
  int32_t source_value = -1;
  int32_t destination_value = -1;
  // The source in the copy-free numbering (passes::canonicalValueIndices),
  // which stays the same across edits; filled by exec::identifyCopies,
  // -1 when unknown.
  int32_t canonical_source = -1;
  // The instruction that last wrote the copy's source before the copy (the
  // method's def/use, analysis::Dataflow): the delegate or kernel whose
  // output it moves. Unset for a method input or a constant, and when
  // unknown; filled by exec::identifyCopies with canonical_source.
  std::optional<size_t> producer;
  program::Device device;  // the device side
  HostMemoryKind host_memory = HostMemoryKind::Pageable;
  uint64_t bytes = 0;              // per execution
  size_t executions_per_iteration = 0;
  std::vector<double> samples;     // seconds, every measured execution in order
  TimingStats seconds;
  double gbps = 0;                 // bytes / median time, 10^9 bytes per second
  double best_gbps = 0;            // bytes / min time
  double peak_share = 0;           // gbps / the link peak of its direction; 0 when no peak
  // Empty when `seconds` is the copy's own time. Otherwise what the host
  // clock measured instead (a blocking copy that first waited for a
  // delegate's queued GPU work, spec P12); gbps, best_gbps and peak_share
  // are then 0, since no bandwidth follows from such a time.
  std::string time_covers;
};

struct InstructionProfile {
  size_t instruction = 0;
  program::InstructionKind kind = program::InstructionKind::None;
  std::string label;
  bool executed = true;
  std::string reason;              // when not executed
  size_t executions_per_iteration = 0;
  TimingStats host_seconds;        // host clock around the instruction, per execution
  bool is_copy = false;
};

struct DirectionTotals {
  size_t copies = 0;      // copy instructions
  uint64_t bytes = 0;     // per iteration
  double seconds = 0;     // median over iterations of the time spent copying
  double gbps = 0;
  double peak_share = 0;
};

struct LinkPeak {
  bool measured = false;
  program::Device device;
  uint64_t bytes = 0;     // size of each probe copy
  size_t repeats = 0;
  double h2d_gbps = 0;    // best of the repeats
  double d2h_gbps = 0;
  std::string note;       // why it was not measured
};

// One slice of the timeline (trace output): an instruction of a measured
// iteration, on the host clock from the start of the first measured run.
struct TimelineSlice {
  // One track per copy direction (copyTrack), then the rest.
  enum class Track { HostToDevice, DeviceToHost, Kernels, NotExecuted };
  static Track copyTrack(program::CopyDirection direction);
  // The direction of a copy track; nullopt for the others.
  static std::optional<program::CopyDirection> copyDirectionOf(Track track);
  Track track = Track::Kernels;
  size_t iteration = 0;
  size_t instruction = 0;
  std::string name;
  double start_seconds = 0;
  double seconds = 0;     // copies: the measured transfer; others: host time
  uint64_t bytes = 0;
};

// A copy a delegate makes inside its execute() (analysis/DelegateTransfers:
// TensorRT staging, CUDA graph replay). ptescope does not run the backend,
// so after the run each one is timed on the run's runtime where the backend
// would make it: `bytes` between buffers in the memory it moves between
// (host memory of the run's kind and the device), once per measured
// iteration.
struct DelegateCopyTiming {
  analysis::DelegateTransfer transfer;
  std::vector<double> samples;  // seconds
  TimingStats seconds;
};

struct TransferProfile {
  std::string program_name;  // set by the caller (file name), for reports
  std::string method;
  std::string runtime;       // DeviceRuntime::name()
  bool emulated = false;
  HostMemoryKind host_memory = HostMemoryKind::Pageable;
  size_t warmup_iterations = 0;
  size_t requested_iterations = 0;
  size_t iterations = 0;     // measured iterations that completed
  bool cancelled = false;
  // Set when a measured iteration failed after at least one had completed
  // (a device lost mid-profile): what failed and where. The profile then
  // covers the completed iterations only and is partial.
  std::string failure;
  bool partial() const { return !failure.empty(); }

  std::vector<CopyProfile> copies;              // in instruction order
  std::vector<InstructionProfile> instructions; // every instruction that ran, in instruction order
  std::vector<DelegateCopyTiming> delegate_copies;  // copies inside delegates, timed after the run
  DirectionTotals host_to_device;
  DirectionTotals device_to_host;
  TimingStats run_seconds;   // wall time of one run of the method
  double copy_seconds = 0;   // median over iterations of the time spent in copies
  double copy_share = 0;     // copy_seconds / median run time
  LinkPeak peak;
  std::vector<TimelineSlice> timeline;
  std::vector<std::string> notes;

  const DirectionTotals& totals(program::CopyDirection direction) const {
    return direction == program::CopyDirection::HostToDevice ? host_to_device : device_to_host;
  }
  size_t notExecutedCount() const;
};

struct ProfileProgress {
  enum class Phase { Preparing, PeakProbe, WarmUp, Measure, Done };
  Phase phase = Phase::Preparing;
  size_t done = 0;
  size_t total = 0;
};
std::string phaseName(ProfileProgress::Phase phase);

struct ProfileOptions {
  std::string method;   // empty: "forward" when present, else the first method
  size_t warmup = 3;
  size_t iterations = 20;
  HostMemoryKind host_memory = HostMemoryKind::Pageable;
  InputOptions inputs;
  // Size of each link peak probe copy; 0 picks 256 MiB on a GPU and 64 MiB
  // on the emulated runtime. No probe at all when `measure_peak` is false.
  uint64_t peak_probe_bytes = 0;
  size_t peak_probe_repeats = 5;
  bool measure_peak = true;
  // Bytes the run may allocate in each memory pool (host, each device); 0:
  // the default budget (exec/MemoryBudget.h, ExecutorOptions::max_memory).
  uint64_t max_memory = 0;
  std::string budget_setting = kCliMemoryBudgetSetting;
  // Instructions one run may execute (ExecutorOptions::max_steps).
  size_t max_steps = 0;
  // How many measured iterations the timeline keeps (the trace output).
  size_t timeline_iterations = 3;
  // Polled between instructions and inside long kernels; true stops the
  // profile, keeping what the completed iterations measured. Called from the
  // profiling thread.
  std::function<bool()> cancel_requested;
  // When given, follows the instructions of the iteration under way
  // (Executor::run), for a caller on another thread.
  RunProgress* run_progress = nullptr;
  // Settings of the run the file does not hold (CUDA graph replay): their
  // copies inside delegates are timed too.
  analysis::DelegateTransferOptions run_settings;
  // Called from the profiling thread after each phase step.
  std::function<void(const ProfileProgress&)> on_progress;
};

// The method a profile runs when none is named.
std::string defaultMethodName(const program::Program& program);

// Best H2D and D2H bandwidth over `repeats` copies of `bytes` between pinned
// host memory and `device`.
Result<LinkPeak> measureLinkPeak(DeviceRuntime& runtime, program::Device device, uint64_t bytes, size_t repeats);

Result<TransferProfile> profileMethod(const program::Program& program, DeviceRuntime& runtime,
                                      const ProfileOptions& options);

}  // namespace ptescope::exec
