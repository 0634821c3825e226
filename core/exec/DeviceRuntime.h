// Where a method's memory lives and how bytes move between host and device.
//
// The executor never calls a GPU API itself: it asks a DeviceRuntime for
// device buffers, host arenas and timed copies. CudaRuntime (built when the
// CUDA toolkit is found) does this on a real GPU; HostRuntime emulates device
// memory in host memory so that every code path also runs, and is tested, on
// machines without a GPU. Results of the host runtime are labelled emulated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "program/CopyDirection.h"
#include "program/Types.h"
#include "util/HostMemory.h"
#include "util/Result.h"

namespace ptescope::exec {


// Host memory the runtime can hand out. Pinned (page-locked) memory lets a
// GPU copy run by DMA at link speed; pageable memory is staged by the driver
// through a pinned bounce buffer, which is what ExecuTorch's Module does with
// its std::vector arenas.
enum class HostMemoryKind { Pageable, Pinned };
std::string hostMemoryKindName(HostMemoryKind kind);  // "pageable", "pinned"

// Where an allocation lives: host memory of some kind, or a device.
struct MemoryPlace {
  program::Device device;  // cpu:0 for host memory
  HostMemoryKind host_kind = HostMemoryKind::Pageable;

  bool onDevice() const { return !device.isCpu(); }
  static MemoryPlace host(HostMemoryKind kind) { return MemoryPlace{program::Device{}, kind}; }
  static MemoryPlace onDevice(program::Device device) { return MemoryPlace{device, HostMemoryKind::Pageable}; }
  // "cuda:0", "host (pinned)".
  std::string str() const;
};

// Timing of one copy as the runtime measured it: on a GPU the interval
// between two events recorded on the copy's stream around the transfer, on
// the host runtime the steady clock around memcpy.
struct CopyTiming {
  double seconds = 0;
};

class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;

  // "cuda (NVIDIA H200, 1 device)", "host (emulated)".
  virtual std::string name() const = 0;
  // True when device memory and copies are imitated in host memory; every
  // number the profile shows is then labelled emulated.
  virtual bool isEmulated() const = 0;

  // Whether `device` can hold buffers here; the error says why not
  // (an unknown device type, an index past the devices present).
  virtual Status checkDevice(program::Device device) const = 0;

  // One device buffer. Zero bytes gives nullptr without an allocation.
  virtual Result<void*> allocateDevice(size_t bytes, program::Device device) = 0;
  virtual void freeDevice(void* data, program::Device device) = 0;
  // One host arena of the given kind. Zero bytes gives nullptr.
  virtual Result<void*> allocateHost(size_t bytes, HostMemoryKind kind) = 0;
  virtual void freeHost(void* data, HostMemoryKind kind) = 0;

  // Copies `bytes` between host memory and memory on `device` (or, d2d,
  // within `device`), waits until
  // the transfer is complete and returns how long the transfer took.
  virtual Result<CopyTiming> copy(void* destination, const void* source, size_t bytes, program::CopyDirection direction,
                                  program::Device device) = 0;
  // Copies `bytes` `count` times back to back and returns the time of the
  // whole batch, the way bandwidth tools time copies: on a GPU two events
  // around the batch (per-copy event pairs would add their own overhead to
  // small copies), on the host the steady clock. The default loops over
  // copy() and sums.
  virtual Result<CopyTiming> copyBatch(void* destination, const void* source, size_t bytes, size_t count,
                                       program::CopyDirection direction, program::Device device);
  // Sets `bytes` bytes at `data` (host or device memory, as `place` says).
  virtual Status fill(void* data, const MemoryPlace& place, uint8_t byte, size_t bytes) = 0;

  // Memory accounting for the executor's budget (exec/MemoryBudget.h): the
  // pool an allocation at `place` draws from ("host", "cuda:0"), the bytes
  // available in a pool now (0: unknown), where that figure comes from, and
  // the pool in words.
  virtual std::string memoryPool(const MemoryPlace& place) const;
  virtual uint64_t availableMemory(const std::string& pool) const;
  virtual std::string availableMemorySource(const std::string& pool) const;
  virtual std::string memoryPoolDescription(const std::string& pool) const;

  // Convenience forms over the calls above.
  Result<void*> allocate(size_t bytes, const MemoryPlace& place);
  void release(void* data, const MemoryPlace& place);
};

// An allocation that frees itself through its runtime. The runtime must
// outlive it.
class RuntimeBuffer {
 public:
  RuntimeBuffer() = default;
  static Result<RuntimeBuffer> allocate(DeviceRuntime& runtime, size_t bytes, const MemoryPlace& place);
  ~RuntimeBuffer() { reset(); }
  RuntimeBuffer(RuntimeBuffer&& other) noexcept { *this = std::move(other); }
  RuntimeBuffer& operator=(RuntimeBuffer&& other) noexcept;
  RuntimeBuffer(const RuntimeBuffer&) = delete;
  RuntimeBuffer& operator=(const RuntimeBuffer&) = delete;

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const MemoryPlace& place() const { return place_; }
  void reset();

 private:
  DeviceRuntime* runtime_ = nullptr;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  MemoryPlace place_;
};

enum class RuntimePreference { Auto, Cuda, Host };
// "auto", "cuda", "host"; nullopt for anything else.
std::optional<RuntimePreference> parseRuntimePreference(std::string_view text);

struct RuntimeSelection {
  std::unique_ptr<DeviceRuntime> runtime;
  // One line for the user when Auto fell back to the host runtime (why no
  // CUDA device could be used, with the driver's whole error); empty otherwise.
  std::string notice;
  // Why, in a few words, for a status bar that already says the run was
  // emulated ("no usable CUDA device"); `notice` has the detail.
  std::string short_notice;
};

// Auto: CUDA when this build has it and a device answers, else the host
// runtime with a notice. Cuda: the CUDA runtime or one error that says why
// it cannot be used. Host: the host runtime.
Result<RuntimeSelection> selectRuntime(RuntimePreference preference);

// hostAvailableMemoryBytes, hostPhysicalMemoryBytes: util/HostMemory.h.
// The error for a host allocation larger than physical memory, if it is.
Status checkHostAllocationSize(size_t bytes, const std::string& what);

// Whether this build contains the CUDA runtime at all.
bool builtWithCuda();

}  // namespace ptescope::exec
