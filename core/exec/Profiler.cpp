#include "exec/Profiler.h"

#include <algorithm>
#include <chrono>
#include <map>

#include "analysis/Summary.h"
#include "program/Text.h"

namespace ptescope::exec {

TimelineSlice::Track TimelineSlice::copyTrack(program::CopyDirection direction) {
  return direction == program::CopyDirection::DeviceToHost ? Track::DeviceToHost : Track::HostToDevice;
}

std::optional<program::CopyDirection> TimelineSlice::copyDirectionOf(Track track) {
  if (track == Track::HostToDevice) return program::CopyDirection::HostToDevice;
  if (track == Track::DeviceToHost) return program::CopyDirection::DeviceToHost;
  return std::nullopt;
}

using Clock = std::chrono::steady_clock;

namespace {

constexpr uint64_t kMiB = 1024 * 1024;

double gigabytesPerSecond(uint64_t bytes, double seconds) { return seconds > 0 ? double(bytes) / seconds / 1e9 : 0.0; }

double median(std::vector<double> samples) { return TimingStats::of(std::move(samples)).median; }

// "2 of 20" for the iteration at 0-based `index`.
std::string iterationText(size_t index, size_t total) { return std::to_string(index + 1) + " of " + std::to_string(total); }

// The device the method's copies go to: its first device buffer, else its
// first device-tagged tensor, else cuda:0.
program::Device probeDevice(const program::Method& method) {
  for (const auto& entry : program::items(method.non_const_buffer_device))
    if (entry.device_type != program::DeviceType::Cpu) return program::Device{entry.device_type, entry.device_index};
  for (const auto& value : program::items(method.values))
    if (const auto* t = value.tensor(); t && !t->device().isCpu()) return t->device();
  return program::Device{program::DeviceType::Cuda, 0};
}

// A method with device delegates but no copies and no device tensors has not
// been through the device passes: profiling it measures no transfer.
std::string prePassNote(const program::Method& method) {
  size_t targeted = 0;
  for (const auto& delegate : program::items(method.delegates))
    if (delegate.findCompileSpec("target_device")) ++targeted;
  if (targeted == 0) return {};
  const auto summary = analysis::summarizeMethod(method);
  if (summary.h2d_copies + summary.d2h_copies > 0) return {};
  for (const auto& [device, count] : summary.tensors_by_device)
    if (device != "cpu:0" && count > 0) return {};
  return "method '" + method.displayName() + "' has " + program::countText(targeted, "delegate") +
         " with a target_device but no copies: it has not been through the device passes, so no "
         "transfer is measured (run `ptescope-cli propagate` on it first)";
}

// What the measured runs saw of one instruction.
struct InstructionSamples {
  InstructionProfile profile;
  std::vector<double> host_seconds;
  std::optional<CopyEvent> copy;  // the last execution's copy
  std::vector<double> copy_seconds;
};

}  // namespace

TimingStats TimingStats::of(std::vector<double> samples) {
  TimingStats stats;
  if (samples.empty()) return stats;
  std::sort(samples.begin(), samples.end());
  stats.min = samples.front();
  stats.max = samples.back();
  const size_t n = samples.size();
  stats.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  return stats;
}

size_t TransferProfile::notExecutedCount() const {
  return size_t(std::count_if(instructions.begin(), instructions.end(), [](const auto& i) { return !i.executed; }));
}

std::string phaseName(ProfileProgress::Phase phase) {
  switch (phase) {
    case ProfileProgress::Phase::Preparing: return "preparing";
    case ProfileProgress::Phase::PeakProbe: return "measuring the link peak";
    case ProfileProgress::Phase::WarmUp: return "warm-up";
    case ProfileProgress::Phase::Measure: return "measuring";
    case ProfileProgress::Phase::Done: return "done";
  }
  return "";
}

std::string defaultMethodName(const program::Program& program) {
  if (program.findMethod("forward")) return "forward";
  return program.methods().empty() ? std::string() : program.methods().front().displayName();
}

Result<LinkPeak> measureLinkPeak(DeviceRuntime& runtime, program::Device device, uint64_t bytes, size_t repeats) {
  LinkPeak peak;
  peak.device = device;
  peak.bytes = bytes;
  peak.repeats = std::max<size_t>(repeats, 1);
  if (auto status = runtime.checkDevice(device); !status) return status.error();
  auto host = RuntimeBuffer::allocate(runtime, size_t(bytes), MemoryPlace::host(HostMemoryKind::Pinned));
  if (!host) return makeError("link peak probe: " + host.error().message);
  auto onDevice = RuntimeBuffer::allocate(runtime, size_t(bytes), MemoryPlace::onDevice(device));
  if (!onDevice) return makeError("link peak probe: " + onDevice.error().message);
  if (auto status = runtime.fill(host->data(), host->place(), 0x5a, host->size()); !status) return status.error();
  // One untimed copy each way first: the first transfer pays for lazy
  // context and mapping set-up that no later copy sees.
  for (size_t i = 0; i <= peak.repeats; ++i) {
    auto up = runtime.copy(onDevice->data(), host->data(), size_t(bytes), program::CopyDirection::HostToDevice, device);
    if (!up) return makeError("link peak probe: " + up.error().message);
    auto down = runtime.copy(host->data(), onDevice->data(), size_t(bytes), program::CopyDirection::DeviceToHost, device);
    if (!down) return makeError("link peak probe: " + down.error().message);
    if (i == 0) continue;
    peak.h2d_gbps = std::max(peak.h2d_gbps, gigabytesPerSecond(bytes, up->seconds));
    peak.d2h_gbps = std::max(peak.d2h_gbps, gigabytesPerSecond(bytes, down->seconds));
  }
  peak.measured = true;
  return peak;
}

namespace {

uint64_t peakProbeBytes(const ProfileOptions& options, bool emulated) {
  return options.peak_probe_bytes ? options.peak_probe_bytes : (emulated ? 64 : 256) * kMiB;
}

// The executor's options for a profile run. The link probe's two buffers
// count in the run's memory budget.
ExecutorOptions executorOptionsFor(const program::Program& program, const std::string& methodName,
                                   const DeviceRuntime& runtime, const ProfileOptions& options) {
  ExecutorOptions executorOptions;
  executorOptions.host_memory = options.host_memory;
  executorOptions.max_memory = options.max_memory;
  executorOptions.budget_setting = options.budget_setting;
  executorOptions.max_steps = options.max_steps;
  if (const program::Method* m = program.findMethod(methodName); m != nullptr && options.measure_peak) {
    const auto counts = analysis::summarizeMethod(*m);
    if (counts.h2d_copies + counts.d2h_copies > 0) {
      const uint64_t probe = peakProbeBytes(options, runtime.isEmulated());
      executorOptions.alongside.push_back({MemoryPlace::host(HostMemoryKind::Pinned), probe, "link peak probe"});
      executorOptions.alongside.push_back({MemoryPlace::onDevice(probeDevice(*m)), probe, "link peak probe"});
    }
  }
  return executorOptions;
}

// The link peak for the copies to be compared with. A method that never
// crosses the link has no copy to compare with a peak; skipping the probe
// spares a large allocation on the GPU.
void measurePeak(DeviceRuntime& runtime, const program::Method& method, const ProfileOptions& options,
                 TransferProfile& profile) {
  const program::Device device = probeDevice(method);
  const uint64_t bytes = peakProbeBytes(options, profile.emulated);
  auto peak = measureLinkPeak(runtime, device, bytes, options.peak_probe_repeats);
  if (peak) {
    profile.peak = peak.value();
    return;
  }
  profile.peak.device = device;
  profile.peak.bytes = bytes;
  profile.peak.note = peak.error().message;
  profile.notes.push_back("link peak not measured: " + peak.error().message);
}

// What the measured iterations add up: per instruction, and per iteration
// the run's wall time and its copy time in total and by direction.
struct MeasuredRuns {
  std::map<size_t, InstructionSamples> by_instruction;
  std::vector<double> run_seconds, copy_seconds, h2d_seconds, d2h_seconds;
};

// One measured iteration's steps into the samples and (for the first
// timeline_iterations) the timeline.
void recordIteration(const RunRecord& record, size_t iteration, double runOffset, const ProfileOptions& options,
                     MeasuredRuns& runs, TransferProfile& profile) {
  double copies = 0, h2d = 0, d2h = 0;
  for (const StepRecord& step : record.steps) {
    auto& samples = runs.by_instruction[step.instruction];
    if (samples.host_seconds.empty()) {
      samples.profile.instruction = step.instruction;
      samples.profile.kind = step.kind;
      samples.profile.label = step.label;
    }
    // An instruction counts as executed only when every execution was.
    if (step.status == StepStatus::NotExecuted) {
      samples.profile.executed = false;
      samples.profile.reason = step.reason;
    }
    samples.host_seconds.push_back(step.host_seconds);
    TimelineSlice slice;
    slice.iteration = iteration;
    slice.instruction = step.instruction;
    slice.name = step.label;
    slice.start_seconds = runOffset + step.start_seconds;
    slice.seconds = step.host_seconds;
    slice.track = step.status == StepStatus::NotExecuted ? TimelineSlice::Track::NotExecuted : TimelineSlice::Track::Kernels;
    if (step.copy) {
      samples.profile.is_copy = true;
      samples.copy = step.copy;
      samples.copy_seconds.push_back(step.copy->seconds);
      copies += step.copy->seconds;
      (step.copy->direction == program::CopyDirection::HostToDevice ? h2d : d2h) += step.copy->seconds;
      slice.track = TimelineSlice::copyTrack(step.copy->direction);
      slice.seconds = step.copy->seconds;
      slice.bytes = step.copy->bytes;
    }
    if (iteration < options.timeline_iterations) profile.timeline.push_back(std::move(slice));
  }
  runs.run_seconds.push_back(record.wall_seconds);
  runs.copy_seconds.push_back(copies);
  runs.h2d_seconds.push_back(h2d);
  runs.d2h_seconds.push_back(d2h);
}

// The per-instruction and per-copy statistics and the direction totals.
void summarizeRuns(const MeasuredRuns& runs, TransferProfile& profile) {
  const size_t n = std::max<size_t>(profile.iterations, 1);
  for (const auto& [index, samples] : runs.by_instruction) {
    InstructionProfile instruction = samples.profile;
    instruction.executions_per_iteration = samples.host_seconds.size() / n;
    instruction.host_seconds = TimingStats::of(samples.host_seconds);
    profile.instructions.push_back(std::move(instruction));
    if (!samples.copy) continue;
    CopyProfile copy;
    copy.instruction = index;
    copy.direction = samples.copy->direction;
    copy.source_value = samples.copy->source_value;
    copy.destination_value = samples.copy->destination_value;
    copy.device = samples.copy->device;
    copy.host_memory = samples.copy->host_memory;
    copy.bytes = samples.copy->bytes;
    copy.executions_per_iteration = samples.copy_seconds.size() / n;
    copy.samples = samples.copy_seconds;
    copy.seconds = TimingStats::of(samples.copy_seconds);
    copy.gbps = gigabytesPerSecond(copy.bytes, copy.seconds.median);
    copy.best_gbps = gigabytesPerSecond(copy.bytes, copy.seconds.min);
    const double peak = copy.direction == program::CopyDirection::HostToDevice ? profile.peak.h2d_gbps : profile.peak.d2h_gbps;
    copy.peak_share = peak > 0 ? copy.gbps / peak : 0.0;
    DirectionTotals& totals = copy.direction == program::CopyDirection::HostToDevice ? profile.host_to_device : profile.device_to_host;
    totals.copies += 1;
    totals.bytes += copy.bytes * copy.executions_per_iteration;
    profile.copies.push_back(std::move(copy));
  }
  profile.host_to_device.seconds = median(runs.h2d_seconds);
  profile.device_to_host.seconds = median(runs.d2h_seconds);
  for (auto* totals : {&profile.host_to_device, &profile.device_to_host}) {
    totals->gbps = gigabytesPerSecond(totals->bytes, totals->seconds);
    const double peak = totals == &profile.host_to_device ? profile.peak.h2d_gbps : profile.peak.d2h_gbps;
    totals->peak_share = peak > 0 ? totals->gbps / peak : 0.0;
  }
  profile.run_seconds = TimingStats::of(runs.run_seconds);
  profile.copy_seconds = median(runs.copy_seconds);
  profile.copy_share = profile.run_seconds.median > 0 ? std::min(profile.copy_seconds / profile.run_seconds.median, 1.0) : 0.0;
}

}  // namespace

namespace {

// Each copy inside a delegate, `iterations` times between buffers of its
// size: host memory of the run's kind and the transfer's device (two device
// buffers for d2d), as the backend would copy (DelegateCopyTiming).
Result<std::vector<DelegateCopyTiming>> timeDelegateCopies(const program::Program& program, const program::Method& method,
                                                           DeviceRuntime& runtime, const ProfileOptions& options,
                                                           size_t iterations) {
  std::vector<DelegateCopyTiming> out;
  const auto inside = analysis::delegateTransfers(program, method, options.run_settings);
  for (const auto& t : inside.transfers) {
    DelegateCopyTiming timing;
    timing.transfer = t;
    const size_t bytes = size_t(t.bytes);
    const bool d2d = t.direction == program::CopyDirection::DeviceToDevice;
    auto device = RuntimeBuffer::allocate(runtime, bytes, MemoryPlace::onDevice(t.device));
    if (!device) return device.error();
    auto other = RuntimeBuffer::allocate(runtime, bytes,
                                         d2d ? MemoryPlace::onDevice(t.device) : MemoryPlace::host(options.host_memory));
    if (!other) return other.error();
    if (auto status = runtime.fill(other->data(), other->place(), 0x5a, bytes); !status) return status.error();
    const bool fromDevice = t.direction == program::CopyDirection::DeviceToHost;
    for (size_t i = 0; i < iterations; ++i) {
      auto copied = fromDevice ? runtime.copy(other->data(), device->data(), bytes, t.direction, t.device)
                               : runtime.copy(device->data(), other->data(), bytes, t.direction, t.device);
      if (!copied) return copied.error();
      timing.samples.push_back(copied->seconds);
    }
    timing.seconds = TimingStats::of(timing.samples);
    out.push_back(std::move(timing));
  }
  return out;
}

}  // namespace

Result<TransferProfile> profileMethod(const program::Program& program, DeviceRuntime& runtime,
                                      const ProfileOptions& options) {
  const std::string methodName = options.method.empty() ? defaultMethodName(program) : options.method;
  if (methodName.empty()) return makeError("the program has no method to profile");
  if (options.iterations == 0) return makeError("the number of iterations must be at least 1");

  auto progress = [&](ProfileProgress::Phase phase, size_t done, size_t total) {
    if (options.on_progress) options.on_progress(ProfileProgress{phase, done, total});
  };
  auto cancelled = [&] { return options.cancel_requested && options.cancel_requested(); };

  TransferProfile profile;
  profile.method = methodName;
  profile.runtime = runtime.name();
  profile.emulated = runtime.isEmulated();
  profile.host_memory = options.host_memory;
  profile.warmup_iterations = options.warmup;
  profile.requested_iterations = options.iterations;
  progress(ProfileProgress::Phase::Preparing, 0, 1);

  auto executor = Executor::create(program, methodName, runtime, executorOptionsFor(program, methodName, runtime, options));
  if (!executor) return executor.error();
  Executor& exec = *executor.value();
  // A method without device memory ran on the host CPU as anywhere: nothing
  // of it is emulated (Run Once says the same).
  if (runtime.isEmulated() && !exec.usesDeviceMemory()) {
    profile.emulated = false;
    profile.runtime = kHostCpuRuntimeName;
  }
  InputOptions inputs = options.inputs;
  if (!inputs.cancel_requested) inputs.cancel_requested = options.cancel_requested;
  if (auto status = exec.fillInputs(inputs); !status) {
    if (!cancelled()) return status.error();
    profile.cancelled = true;  // nothing measured yet: iterations stays 0
    return profile;
  }
  if (auto note = prePassNote(exec.method()); !note.empty()) profile.notes.push_back(note);
  if (profile.emulated)
    profile.notes.push_back("emulated: the host runtime keeps device memory in host memory and times copies as memcpy; "
                            "the numbers describe this machine's memory bandwidth, not a GPU link");
  progress(ProfileProgress::Phase::Preparing, 1, 1);

  const auto summary = analysis::summarizeMethod(exec.method());
  const bool crossesLink = summary.h2d_copies + summary.d2h_copies > 0;
  if (options.measure_peak && !crossesLink) profile.peak.note = "the method makes no host-device copies";
  if (options.measure_peak && crossesLink && !cancelled()) {
    progress(ProfileProgress::Phase::PeakProbe, 0, 1);
    measurePeak(runtime, exec.method(), options, profile);
    progress(ProfileProgress::Phase::PeakProbe, 1, 1);
  }

  for (size_t i = 0; i < options.warmup && !profile.cancelled; ++i) {
    auto record = exec.run(options.cancel_requested, options.run_progress);
    if (!record) return makeError("warm-up iteration " + iterationText(i, options.warmup) + ": " + record.error().message);
    if (record->cancelled) profile.cancelled = true;
    progress(ProfileProgress::Phase::WarmUp, i + 1, options.warmup);
  }

  MeasuredRuns runs;
  const auto measureStart = Clock::now();
  for (size_t iteration = 0; iteration < options.iterations && !profile.cancelled; ++iteration) {
    const double runOffset = std::chrono::duration<double>(Clock::now() - measureStart).count();
    auto record = exec.run(options.cancel_requested, options.run_progress);
    if (!record) {
      const std::string failure =
          "measured iteration " + iterationText(iteration, options.iterations) + ": " + record.error().message;
      if (iteration == 0) return makeError(failure);
      profile.failure = failure;  // partial: the completed iterations are kept
      break;
    }
    if (record->cancelled) {
      profile.cancelled = true;  // the partial iteration is dropped
      break;
    }
    recordIteration(record.value(), iteration, runOffset, options, runs, profile);
    profile.iterations = iteration + 1;
    progress(ProfileProgress::Phase::Measure, iteration + 1, options.iterations);
  }

  summarizeRuns(runs, profile);
  if (!profile.cancelled && profile.iterations > 0)
    if (auto timed = timeDelegateCopies(program, exec.method(), runtime, options, profile.iterations); timed)
      profile.delegate_copies = std::move(timed.value());
    else
      profile.notes.push_back("copies inside delegates not timed: " + timed.error().message);
  progress(ProfileProgress::Phase::Done, profile.iterations, options.iterations);
  return profile;
}

}  // namespace ptescope::exec
