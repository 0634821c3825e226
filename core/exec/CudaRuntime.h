// The device runtime on a real GPU, through the CUDA runtime API (no device
// code, so no GPU architecture is chosen at build time). Built only when the
// CUDA toolkit is found (PTESCOPE_WITH_CUDA).
//
// Copies follow pitfall P12 of spec/device-semantics.md: the host clock
// around a copy would also count whatever the GPU was still doing (a delegate
// returns without synchronizing), so each copy is cudaMemcpyAsync on a stream
// of our own, bracketed by two CUDA events, and the time reported is the
// interval between the events.
#pragma once

#include <map>
#include <memory>
#include <mutex>

#include "exec/DeviceRuntime.h"

struct CUstream_st;
struct CUevent_st;

namespace ptescope::exec {

class CudaRuntime final : public DeviceRuntime {
 public:
  // Fails with one message (the CUDA call, its error name and code) when no
  // device can be used: no driver, no device, a broken installation.
  static Result<std::unique_ptr<CudaRuntime>> create();
  ~CudaRuntime() override;
  CudaRuntime(const CudaRuntime&) = delete;
  CudaRuntime& operator=(const CudaRuntime&) = delete;

  std::string name() const override;
  bool isEmulated() const override { return false; }
  Status checkDevice(program::Device device) const override;

  Result<void*> allocateDevice(size_t bytes, program::Device device) override;
  void freeDevice(void* data, program::Device device) override;
  Result<void*> allocateHost(size_t bytes, HostMemoryKind kind) override;
  void freeHost(void* data, HostMemoryKind kind) override;
  Result<CopyTiming> copy(void* destination, const void* source, size_t bytes, program::CopyDirection direction,
                          program::Device device) override;
  Result<CopyTiming> copyBatch(void* destination, const void* source, size_t bytes, size_t count,
                               program::CopyDirection direction, program::Device device) override;
  Status fill(void* data, const MemoryPlace& place, uint8_t byte, size_t bytes) override;

  // cudaMemGetInfo's free bytes for a "cuda:N" pool; host pools as the base.
  uint64_t availableMemory(const std::string& pool) const override;
  std::string availableMemorySource(const std::string& pool) const override;

  int deviceCount() const { return device_count_; }

 private:
  CudaRuntime() = default;

  // A stream and the two timing events of one device, made on first use.
  struct DeviceQueue {
    CUstream_st* stream = nullptr;
    CUevent_st* start = nullptr;
    CUevent_st* stop = nullptr;
  };
  Result<DeviceQueue*> queueFor(int index);
  // `count` back-to-back copies of `bytes` between one pair of events; the
  // interval between them. `noun` ("copy") and `what` name them in errors.
  Result<CopyTiming> timedCopies(void* destination, const void* source, size_t bytes, size_t count,
                                 program::CopyDirection direction, program::Device device, const char* noun,
                                 const std::string& what);
  Status selectDevice(int index);

  int device_count_ = 0;
  std::string device_names_;  // "NVIDIA H200" or "2× NVIDIA A100, ..."
  std::mutex mutex_;          // one copy at a time keeps the events paired
  std::map<int, DeviceQueue> queues_;
};

}  // namespace ptescope::exec
