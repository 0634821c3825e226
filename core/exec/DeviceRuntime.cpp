#include "exec/DeviceRuntime.h"

#include "exec/HostRuntime.h"
#if PTESCOPE_WITH_CUDA
#include "exec/CudaRuntime.h"
#endif

namespace ptescope::exec {

std::string hostMemoryKindName(HostMemoryKind kind) { return kind == HostMemoryKind::Pinned ? "pinned" : "pageable"; }

std::string MemoryPlace::str() const {
  if (onDevice()) return device.str();
  return "host (" + hostMemoryKindName(host_kind) + ")";
}

Result<void*> DeviceRuntime::allocate(size_t bytes, const MemoryPlace& place) {
  return place.onDevice() ? allocateDevice(bytes, place.device) : allocateHost(bytes, place.host_kind);
}

void DeviceRuntime::release(void* data, const MemoryPlace& place) {
  if (data == nullptr) return;
  if (place.onDevice())
    freeDevice(data, place.device);
  else
    freeHost(data, place.host_kind);
}

Result<RuntimeBuffer> RuntimeBuffer::allocate(DeviceRuntime& runtime, size_t bytes, const MemoryPlace& place) {
  auto data = runtime.allocate(bytes, place);
  if (!data) return data.error();
  RuntimeBuffer buffer;
  buffer.runtime_ = &runtime;
  buffer.data_ = static_cast<uint8_t*>(data.value());
  buffer.size_ = bytes;
  buffer.place_ = place;
  return buffer;
}

RuntimeBuffer& RuntimeBuffer::operator=(RuntimeBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    runtime_ = other.runtime_;
    data_ = other.data_;
    size_ = other.size_;
    place_ = other.place_;
    other.runtime_ = nullptr;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

void RuntimeBuffer::reset() {
  if (runtime_ != nullptr && data_ != nullptr) runtime_->release(data_, place_);
  runtime_ = nullptr;
  data_ = nullptr;
  size_ = 0;
}

std::optional<RuntimePreference> parseRuntimePreference(std::string_view text) {
  if (text == "auto") return RuntimePreference::Auto;
  if (text == "cuda") return RuntimePreference::Cuda;
  if (text == "host") return RuntimePreference::Host;
  return std::nullopt;
}

std::string DeviceRuntime::memoryPool(const MemoryPlace& place) const {
  return place.onDevice() ? place.device.str() : "host";
}

uint64_t DeviceRuntime::availableMemory(const std::string& pool) const {
  return pool == "host" ? hostAvailableMemoryBytes() : 0;
}

std::string DeviceRuntime::availableMemorySource(const std::string& pool) const {
  return pool == "host" ? "MemAvailable in /proc/meminfo" : "free memory the device reports";
}

std::string DeviceRuntime::memoryPoolDescription(const std::string& pool) const {
  return pool == "host" ? "host memory" : pool + " memory";
}

Status checkHostAllocationSize(size_t bytes, const std::string& what) {
  const uint64_t physical = hostPhysicalMemoryBytes();
  if (physical != 0 && bytes > physical)
    return makeError("cannot allocate " + std::to_string(bytes) + " bytes of " + what + ": more than this machine's " +
                     std::to_string(physical) + " bytes of memory");
  return Ok{};
}

bool builtWithCuda() {
#if PTESCOPE_WITH_CUDA
  return true;
#else
  return false;
#endif
}

Result<RuntimeSelection> selectRuntime(RuntimePreference preference) {
  RuntimeSelection selection;
  if (preference == RuntimePreference::Host) {
    selection.runtime = std::make_unique<HostRuntime>();
    return selection;
  }
#if PTESCOPE_WITH_CUDA
  auto cuda = CudaRuntime::create();
  if (cuda) {
    selection.runtime = std::move(cuda.value());
    return selection;
  }
  if (preference == RuntimePreference::Cuda) return makeError("cannot use the CUDA runtime: " + cuda.error().message);
  selection.notice = "no usable CUDA device (" + cuda.error().message +
                     "); using the host runtime: device memory is emulated in host memory and copy times are memcpy times";
  selection.short_notice = "no usable CUDA device";
#else
  if (preference == RuntimePreference::Cuda)
    return makeError("cannot use the CUDA runtime: this ptescope was built without the CUDA toolkit "
                     "(rebuild with -DPTESCOPE_WITH_CUDA=ON where the toolkit is installed)");
  selection.notice = "this ptescope was built without CUDA; using the host runtime: device memory is emulated in host "
                     "memory and copy times are memcpy times";
  selection.short_notice = "built without CUDA";
#endif
  selection.runtime = std::make_unique<HostRuntime>();
  return selection;
}

Result<CopyTiming> DeviceRuntime::copyBatch(void* destination, const void* source, size_t bytes, size_t count,
                                            program::CopyDirection direction, program::Device device) {
  CopyTiming total;
  for (size_t i = 0; i < count; ++i) {
    auto timing = copy(destination, source, bytes, direction, device);
    if (!timing) return timing.error();
    total.seconds += timing->seconds;
  }
  return total;
}

}  // namespace ptescope::exec
