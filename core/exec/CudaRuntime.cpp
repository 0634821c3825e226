// Compiled into every build (core globs exec/*.cpp) but empty unless the CUDA
// toolkit was found, so that builds without CUDA need no special source list.
#if PTESCOPE_WITH_CUDA

#include "exec/CudaRuntime.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "program/Text.h"

namespace ptescope::exec {
namespace {

constexpr std::align_val_t kPageableAlignment{256};

// "cudaMalloc(1024 bytes) on cuda:0 failed: out of memory (cudaErrorMemoryAllocation, code 2)".
// Non-sticky errors are cleared so that the next call does not report this
// one again.
Status check(cudaError_t code, const std::string& call) {
  if (code == cudaSuccess) return Ok{};
  (void)cudaGetLastError();
  return makeError(call + " failed: " + cudaGetErrorString(code) + " (" + cudaGetErrorName(code) + ", code " +
                   std::to_string(int(code)) + ")");
}

// A size in an error message: rounded for reading, exact for checking
// against the plan ("1.5 MiB (1572864 bytes)").
std::string sizeText(size_t bytes) { return program::exactBytesText(int64_t(bytes)); }

}  // namespace

Result<std::unique_ptr<CudaRuntime>> CudaRuntime::create() {
  int count = 0;
  if (auto status = check(cudaGetDeviceCount(&count), "cudaGetDeviceCount"); !status) return status.error();
  if (count <= 0) return makeError("cudaGetDeviceCount reports no CUDA device");
  std::unique_ptr<CudaRuntime> runtime(new CudaRuntime());
  runtime->device_count_ = count;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp properties{};
    if (auto status = check(cudaGetDeviceProperties(&properties, i), "cudaGetDeviceProperties(" + std::to_string(i) + ")");
        !status)
      return status.error();
    if (i > 0) runtime->device_names_ += ", ";
    runtime->device_names_ += "cuda:" + std::to_string(i) + " " + properties.name;
  }
  return runtime;
}

CudaRuntime::~CudaRuntime() {
  // Teardown errors cannot be acted upon; the driver reclaims everything at
  // process exit anyway.
  for (auto& [index, queue] : queues_) {
    (void)cudaSetDevice(index);
    if (queue.start) (void)cudaEventDestroy(queue.start);
    if (queue.stop) (void)cudaEventDestroy(queue.stop);
    if (queue.stream) (void)cudaStreamDestroy(queue.stream);
  }
}

uint64_t CudaRuntime::availableMemory(const std::string& pool) const {
  if (pool == "host") return DeviceRuntime::availableMemory(pool);
  int index = -1;
  if (pool.rfind("cuda:", 0) == 0) {
    try {
      index = std::stoi(pool.substr(5));
    } catch (...) {
      index = -1;
    }
  }
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) return 0;
  if (index >= 0 && index != current && cudaSetDevice(index) != cudaSuccess) return 0;
  size_t freeBytes = 0, totalBytes = 0;
  const bool known = cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess;
  if (index >= 0 && index != current) (void)cudaSetDevice(current);
  return known ? uint64_t(freeBytes) : 0;
}

std::string CudaRuntime::availableMemorySource(const std::string& pool) const {
  return pool == "host" ? DeviceRuntime::availableMemorySource(pool) : "free memory by cudaMemGetInfo";
}

std::string CudaRuntime::name() const { return "cuda (" + device_names_ + ")"; }

Status CudaRuntime::checkDevice(program::Device device) const {
  if (device.type != program::DeviceType::Cuda)
    return makeError("no device allocator registered for device_type=" + std::to_string(int(device.type)) + " (" +
                     device.str() + ")");
  // -1 is ExecuTorch's "current device".
  if (device.index < -1 || device.index >= device_count_)
    return makeError(device.str() + " is not present: this machine has " +
                     program::countText(uint64_t(std::max(device_count_, 0)), "CUDA device"));
  return Ok{};
}

Status CudaRuntime::selectDevice(int index) {
  if (index < 0) return Ok{};  // current device
  return check(cudaSetDevice(index), "cudaSetDevice(" + std::to_string(index) + ")");
}

Result<CudaRuntime::DeviceQueue*> CudaRuntime::queueFor(int index) {
  if (index < 0) {
    int current = 0;
    if (auto status = check(cudaGetDevice(&current), "cudaGetDevice"); !status) return status.error();
    index = current;
  }
  auto found = queues_.find(index);
  if (found != queues_.end()) return &found->second;
  if (auto status = selectDevice(index); !status) return status.error();
  DeviceQueue queue;
  const std::string where = " on cuda:" + std::to_string(index);
  // A non-blocking stream does not wait for the legacy default stream, so
  // nothing else queued on the device lands between our two events.
  if (auto status = check(cudaStreamCreateWithFlags(&queue.stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags" + where);
      !status)
    return status.error();
  if (auto status = check(cudaEventCreate(&queue.start), "cudaEventCreate" + where); !status) return status.error();
  if (auto status = check(cudaEventCreate(&queue.stop), "cudaEventCreate" + where); !status) return status.error();
  return &queues_.emplace(index, queue).first->second;
}

Result<void*> CudaRuntime::allocateDevice(size_t bytes, program::Device device) {
  if (auto status = checkDevice(device); !status) return status.error();
  if (bytes == 0) return static_cast<void*>(nullptr);
  std::lock_guard lock(mutex_);
  if (auto status = selectDevice(device.index); !status) return status.error();
  void* data = nullptr;
  if (auto status = check(cudaMalloc(&data, bytes), "cudaMalloc of " + sizeText(bytes) + " on " + device.str()); !status)
    return status.error();
  return data;
}

void CudaRuntime::freeDevice(void* data, program::Device device) {
  if (data == nullptr) return;
  std::lock_guard lock(mutex_);
  (void)selectDevice(device.index);
  (void)cudaFree(data);
}

Result<void*> CudaRuntime::allocateHost(size_t bytes, HostMemoryKind kind) {
  if (bytes == 0) return static_cast<void*>(nullptr);
  if (auto status = checkHostAllocationSize(bytes, hostMemoryKindName(kind) + " host memory"); !status)
    return status.error();
  if (kind == HostMemoryKind::Pageable) {
    void* data = ::operator new(bytes, kPageableAlignment, std::nothrow);
    if (data == nullptr) return makeError("cannot allocate " + sizeText(bytes) + " of pageable host memory");
    return data;
  }
  void* data = nullptr;
  // Portable: the pages are pinned for every device, not only the current one.
  if (auto status = check(cudaHostAlloc(&data, bytes, cudaHostAllocPortable), "cudaHostAlloc of " + sizeText(bytes));
      !status)
    return status.error();
  return data;
}

void CudaRuntime::freeHost(void* data, HostMemoryKind kind) {
  if (data == nullptr) return;
  if (kind == HostMemoryKind::Pageable)
    ::operator delete(data, kPageableAlignment);
  else
    (void)cudaFreeHost(data);
}

Result<CopyTiming> CudaRuntime::copy(void* destination, const void* source, size_t bytes, program::CopyDirection direction,
                                     program::Device device) {
  return timedCopies(destination, source, bytes, 1, direction, device, "copy",
                     program::copyDirectionLongName(direction) + " copy of " + sizeText(bytes) +
                         " on " + device.str());
}

Result<CopyTiming> CudaRuntime::copyBatch(void* destination, const void* source, size_t bytes, size_t count,
                                          program::CopyDirection direction, program::Device device) {
  const bool toDevice = direction == program::CopyDirection::HostToDevice;
  return timedCopies(destination, source, bytes, count, direction, device, "copy batch",
                     std::to_string(count) + " " + (toDevice ? "host-to-device" : "device-to-host") + " copies of " +
                         sizeText(bytes) + " on " + device.str());
}

Result<CopyTiming> CudaRuntime::timedCopies(void* destination, const void* source, size_t bytes, size_t count,
                                            program::CopyDirection direction, program::Device device,
                                            const char* noun, const std::string& what) {
  if (auto status = checkDevice(device); !status) return status.error();
  if (bytes == 0 || count == 0) return CopyTiming{};
  if (destination == nullptr || source == nullptr)
    return makeError(std::string(noun) + " of " + sizeText(bytes) + " with a null " +
                     std::string(destination == nullptr ? "destination" : "source"));
  std::lock_guard lock(mutex_);
  if (auto status = selectDevice(device.index); !status) return status.error();
  auto queue = queueFor(device.index);
  if (!queue) return queue.error();
  const cudaMemcpyKind kind = direction == program::CopyDirection::HostToDevice     ? cudaMemcpyHostToDevice
                              : direction == program::CopyDirection::DeviceToDevice ? cudaMemcpyDeviceToDevice
                                                                                    : cudaMemcpyDeviceToHost;
  cudaStream_t stream = (*queue)->stream;
  if (auto s = check(cudaEventRecord((*queue)->start, stream), "cudaEventRecord (" + what + ")"); !s) return s.error();
  for (size_t i = 0; i < count; ++i)
    if (auto s = check(cudaMemcpyAsync(destination, source, bytes, kind, stream), "cudaMemcpyAsync (" + what + ")"); !s)
      return s.error();
  if (auto s = check(cudaEventRecord((*queue)->stop, stream), "cudaEventRecord (" + what + ")"); !s) return s.error();
  if (auto s = check(cudaEventSynchronize((*queue)->stop), "cudaEventSynchronize (" + what + ")"); !s) return s.error();
  float milliseconds = 0;
  if (auto s = check(cudaEventElapsedTime(&milliseconds, (*queue)->start, (*queue)->stop), "cudaEventElapsedTime (" + what + ")");
      !s)
    return s.error();
  return CopyTiming{double(milliseconds) / 1000.0};
}

Status CudaRuntime::fill(void* data, const MemoryPlace& place, uint8_t byte, size_t bytes) {
  if (bytes == 0) return Ok{};
  if (data == nullptr) return makeError("fill of " + sizeText(bytes) + " at a null address");
  if (!place.onDevice()) {
    std::memset(data, byte, bytes);
    return Ok{};
  }
  if (auto status = checkDevice(place.device); !status) return status.error();
  std::lock_guard lock(mutex_);
  if (auto status = selectDevice(place.device.index); !status) return status.error();
  auto queue = queueFor(place.device.index);
  if (!queue) return queue.error();
  const std::string where = " (" + sizeText(bytes) + " on " + place.device.str() + ")";
  if (auto s = check(cudaMemsetAsync(data, byte, bytes, (*queue)->stream), "cudaMemsetAsync" + where); !s) return s.error();
  return check(cudaStreamSynchronize((*queue)->stream), "cudaStreamSynchronize" + where);
}

}  // namespace ptescope::exec

#endif  // PTESCOPE_WITH_CUDA
