// The device runtime without a GPU: "device" buffers are host memory, copies
// are memcpy timed with the steady clock. It exercises every path of the
// executor and the profile on any machine; its numbers describe host memory
// bandwidth, not a PCIe or NVLink transfer, and are labelled emulated.
#pragma once

#include <map>
#include <mutex>
#include <vector>

#include "exec/DeviceRuntime.h"

namespace ptescope::exec {

class HostRuntime final : public DeviceRuntime {
 public:
  // A live allocation, for tests and the GUI's memory panel.
  struct Allocation {
    MemoryPlace place;
    size_t bytes = 0;
  };

  HostRuntime() = default;
  ~HostRuntime() override;

  std::string name() const override { return "host (emulated)"; }
  bool isEmulated() const override { return true; }
  Status checkDevice(program::Device device) const override;

  Result<void*> allocateDevice(size_t bytes, program::Device device) override;
  void freeDevice(void* data, program::Device device) override;
  Result<void*> allocateHost(size_t bytes, HostMemoryKind kind) override;
  void freeHost(void* data, HostMemoryKind kind) override;
  Result<CopyTiming> copy(void* destination, const void* source, size_t bytes, program::CopyDirection direction,
                          program::Device device) override;
  Status fill(void* data, const MemoryPlace& place, uint8_t byte, size_t bytes) override;
  // Emulated device memory is host memory: one pool.
  std::string memoryPool(const MemoryPlace&) const override { return "host"; }
  std::string memoryPoolDescription(const std::string&) const override {
    return "host memory (emulated device memory included)";
  }

  // The allocations alive now, in address order.
  std::vector<Allocation> liveAllocations() const;

 private:
  Result<void*> allocateBytes(size_t bytes, const MemoryPlace& place);
  void freeBytes(void* data);

  mutable std::mutex mutex_;  // allocations may come from a worker thread
  std::map<const void*, Allocation> live_;
};

}  // namespace ptescope::exec
