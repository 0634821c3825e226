#include "exec/HostRuntime.h"

#include <chrono>
#include <cstring>
#include <new>

namespace ptescope::exec {
namespace {

// Device allocators align generously (cudaMalloc gives 256 bytes); the
// emulation does the same so that alignment bugs show up on the host too.
constexpr std::align_val_t kAlignment{256};

}  // namespace

HostRuntime::~HostRuntime() {
  // Buffers still alive belong to executors that outlived the runtime, which
  // is a caller bug; freeing them here keeps the process leak-free anyway.
  for (auto& [data, allocation] : live_) ::operator delete(const_cast<void*>(data), kAlignment);
}

Status HostRuntime::checkDevice(program::Device device) const {
  if (device.type != program::DeviceType::Cuda)
    return makeError("no device allocator registered for device_type=" + std::to_string(int(device.type)) + " (" +
                     device.str() + ")");
  if (device.index < 0) return makeError("device index " + std::to_string(int(device.index)) + " of " + device.str() + " is negative");
  return Ok{};
}

Result<void*> HostRuntime::allocateBytes(size_t bytes, const MemoryPlace& place) {
  if (bytes == 0) return static_cast<void*>(nullptr);
  // Emulated device memory is host memory too.
  if (auto status = checkHostAllocationSize(bytes, "host memory for " + place.str()); !status) return status.error();
  void* data = ::operator new(bytes, kAlignment, std::nothrow);
  if (data == nullptr)
    return makeError("cannot allocate " + std::to_string(bytes) + " bytes of host memory for " + place.str());
  std::lock_guard lock(mutex_);
  live_[data] = Allocation{place, bytes};
  return data;
}

void HostRuntime::freeBytes(void* data) {
  if (data == nullptr) return;
  {
    std::lock_guard lock(mutex_);
    if (live_.erase(data) == 0) return;  // not ours: ignore rather than corrupt the heap
  }
  ::operator delete(data, kAlignment);
}

Result<void*> HostRuntime::allocateDevice(size_t bytes, program::Device device) {
  if (auto status = checkDevice(device); !status) return status.error();
  return allocateBytes(bytes, MemoryPlace::onDevice(device));
}

void HostRuntime::freeDevice(void* data, program::Device) { freeBytes(data); }

Result<void*> HostRuntime::allocateHost(size_t bytes, HostMemoryKind kind) {
  // Pinned memory has no meaning without a GPU; the kind is kept so that the
  // profile reports what was asked for.
  return allocateBytes(bytes, MemoryPlace::host(kind));
}

void HostRuntime::freeHost(void* data, HostMemoryKind) { freeBytes(data); }

Result<CopyTiming> HostRuntime::copy(void* destination, const void* source, size_t bytes, program::CopyDirection,
                                     program::Device device) {
  if (auto status = checkDevice(device); !status) return status.error();
  if (bytes == 0) return CopyTiming{};
  if (destination == nullptr || source == nullptr)
    return makeError("copy of " + std::to_string(bytes) + " bytes with a null " +
                     std::string(destination == nullptr ? "destination" : "source"));
  const auto start = std::chrono::steady_clock::now();
  std::memcpy(destination, source, bytes);
  const auto stop = std::chrono::steady_clock::now();
  return CopyTiming{std::chrono::duration<double>(stop - start).count()};
}

Status HostRuntime::fill(void* data, const MemoryPlace&, uint8_t byte, size_t bytes) {
  if (bytes == 0) return Ok{};
  if (data == nullptr) return makeError("fill of " + std::to_string(bytes) + " bytes at a null address");
  std::memset(data, byte, bytes);
  return Ok{};
}

std::vector<HostRuntime::Allocation> HostRuntime::liveAllocations() const {
  std::lock_guard lock(mutex_);
  std::vector<Allocation> result;
  for (const auto& [data, allocation] : live_) result.push_back(allocation);
  return result;
}

}  // namespace ptescope::exec
