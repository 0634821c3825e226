#include "cost/LinkProbe.h"

#include <algorithm>

#include "exec/Profiler.h"

namespace ptescope::cost {

using exec::HostMemoryKind;
using exec::MemoryPlace;
using exec::RuntimeBuffer;
using program::CopyDirection;

std::vector<uint64_t> defaultProbeSizes(uint64_t maxBytes) {
  std::vector<uint64_t> sizes;
  for (uint64_t s = 1024; s <= maxBytes; s *= 4) sizes.push_back(s);
  if (sizes.empty() || sizes.back() != maxBytes) sizes.push_back(maxBytes);
  return sizes;
}

Result<LinkProfile> probeLink(exec::DeviceRuntime& runtime, const ProbeOptions& options) {
  if (auto status = runtime.checkDevice(options.device); !status) return status.error();
  std::vector<uint64_t> sizes = options.sizes.empty() ? defaultProbeSizes(options.max_bytes) : options.sizes;
  if (sizes.empty() || sizes.front() == 0) return makeError("link probe: sizes must be positive");
  for (size_t i = 1; i < sizes.size(); ++i)
    if (sizes[i] <= sizes[i - 1]) return makeError("link probe: sizes must be ascending");
  const size_t largest = size_t(sizes.back());
  const size_t repeats = std::max<size_t>(options.repeats, 1);

  auto onDevice = RuntimeBuffer::allocate(runtime, largest, MemoryPlace::onDevice(options.device));
  if (!onDevice) return makeError("link probe: " + onDevice.error().message);
  std::vector<HostMemoryKind> kinds{HostMemoryKind::Pinned};
  if (options.pageable) kinds.push_back(HostMemoryKind::Pageable);

  LinkProfile profile;
  const bool emulated = runtime.isEmulated();
  profile.kind = emulated ? "emulated" : "measured";
  profile.name = emulated ? "emulated-host-memcpy"
                          : "measured-" + program::deviceTypeName(options.device.type) + "-" + std::to_string(options.device.index);
  profile.title = emulated ? "host memcpy" : options.device.str();
  profile.measured_on = runtime.name();
  profile.note = emulated ? "Emulated: no GPU, device memory lives in host memory and the times are this machine's "
                            "memcpy; they say nothing about a GPU link"
                          : "Measured by ptescope-cli probe-link on this machine; other machines, NUMA placements "
                            "and drivers differ";
  profile.rule = "batches of back-to-back copies timed as a whole, one untimed batch first, median of " +
                 std::to_string(repeats) + " batches divided by the batch length";

  // Pinned and pageable, each way; then device to device (the copies
  // inside delegates: CUDA graph replay, TensorRT alias reflects).
  const size_t total = (kinds.size() * 2 + 1) * sizes.size();
  size_t done = 0;
  // One curve of `direction` between `destination` and `source`.
  auto measure = [&](program::CopyDirection direction, LinkMemory memory, void* destination,
                     const void* source) -> Status {
    LinkCurve curve;
    curve.direction = direction;
    curve.memory = memory;
    for (uint64_t bytes : sizes) {
      const size_t copies = size_t(std::clamp<uint64_t>(options.batch_bytes / bytes, 1, std::max<size_t>(options.max_batch_copies, 1)));
      std::vector<double> batches;
      for (size_t r = 0; r <= repeats; ++r) {
        if (options.cancel_requested && options.cancel_requested()) return makeError(kProbeCancelled);
        auto timing = runtime.copyBatch(destination, source, size_t(bytes), copies, direction, options.device);
        if (!timing) return makeError("link probe: " + timing.error().message);
        if (r > 0) batches.push_back(timing->seconds / double(copies));
      }
      // A clock too coarse for the smallest batch reads 0: keep the
      // curve's times positive (the format requires it).
      const double seconds = std::max(exec::TimingStats::of(batches).median, 1e-9);
      curve.points.push_back(CurvePoint{bytes, seconds});
      if (options.on_progress) options.on_progress(++done, total);
    }
    profile.curves.push_back(std::move(curve));
    return Ok{};
  };
  for (HostMemoryKind kind : kinds) {
    auto host = RuntimeBuffer::allocate(runtime, largest, MemoryPlace::host(kind));
    if (!host) return makeError("link probe: " + host.error().message);
    if (auto status = runtime.fill(host->data(), host->place(), 0x5a, host->size()); !status)
      return makeError("link probe: " + status.error().message);
    for (auto direction : program::kHostDeviceDirections) {
      const bool up = direction == program::CopyDirection::HostToDevice;
      void* destination = up ? static_cast<void*>(onDevice->data()) : static_cast<void*>(host->data());
      const void* source = up ? static_cast<const void*>(host->data()) : static_cast<const void*>(onDevice->data());
      if (auto status = measure(direction, linkMemoryOf(kind), destination, source); !status) return status.error();
    }
  }
  auto otherDevice = RuntimeBuffer::allocate(runtime, largest, MemoryPlace::onDevice(options.device));
  if (!otherDevice) return makeError("link probe: " + otherDevice.error().message);
  if (auto status = measure(program::CopyDirection::DeviceToDevice, LinkMemory::Device, otherDevice->data(), onDevice->data());
      !status)
    return status.error();
  return profile;
}

}  // namespace ptescope::cost
