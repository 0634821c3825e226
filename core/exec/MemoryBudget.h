// What a run will allocate, added up before anything is allocated. One
// changed byte in a file can declare a tensor of float32[2147483647, 2]
// (16 GiB): allocating and clearing it would push the machine into swap long
// before any allocation fails. Executor::create therefore sums, per memory
// pool (host memory, each device), the planned buffers, the unplanned
// tensors, the device copies of constants, the host copies of the inputs and
// whatever the caller allocates alongside (the profiler's link probe), with
// arithmetic that saturates instead of wrapping, and refuses the run with one
// line when a pool would exceed the memory available there or the caller's
// limit. Without a limit from the caller, host memory gets the default
// budget (defaultHostMemoryBudget: half of what is available), so a corrupt
// or accidental size cannot take the whole machine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "exec/DeviceRuntime.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::exec {

// a + b, or UINT64_MAX when that does not fit.
uint64_t saturatingAdd(uint64_t a, uint64_t b);

// "16.0 GiB", "512 B".
std::string memoryText(uint64_t bytes);

struct MemoryDemand {
  std::string pool;  // DeviceRuntime::memoryPool: "host", "cuda:0"
  uint64_t planned = 0;     // planned buffers
  uint64_t unplanned = 0;   // tensors without a plan, each with memory of its own
  uint64_t constants = 0;   // constants copied to a device
  uint64_t inputs = 0;      // the host copy the executor keeps of each input
  uint64_t alongside = 0;   // what the caller allocates next to the run
  std::string alongside_what;  // what that is ("link peak probe"), as the caller named it
  uint64_t total() const;
};

struct ExtraAllocation {
  MemoryPlace place;
  uint64_t bytes = 0;
  std::string what = "other buffers";  // how a refusal names it: "link peak probe"
};

// The demand of running `method` on `runtime`, one entry per pool that gets
// anything, host first. Errors for a tensor whose size cannot be known.
Result<std::vector<MemoryDemand>> methodMemoryDemand(const program::Method& method, const DeviceRuntime& runtime,
                                                     HostMemoryKind hostMemory,
                                                     const std::vector<ExtraAllocation>& alongside = {});

// The host memory a run may allocate when nobody set a limit: half of
// `available` (MemAvailable), leaving the other half to the desktop and
// the rest of the machine; 0 when `available` is unknown (0). The CLI
// (profile, run) and the app (Profile, Run Once) all get it through
// checkMemoryDemand, and show it with this function.
uint64_t defaultHostMemoryBudget(uint64_t available);
// The same for this machine now (hostAvailableMemoryBytes).
uint64_t defaultHostMemoryBudget();

// Where the user sets the limit, for the refusal's "raise it with ...":
// the CLI's option by default; the app names its own setting.
inline constexpr const char* kCliMemoryBudgetSetting = "--max-memory SIZE";

// Ok, or one line naming the method, the pool, how much it needs (and of
// what), and the limit it exceeds: the pool's available memory
// (DeviceRuntime::availableMemory), `maxBytes` (per pool) or, when
// `maxBytes` is 0, the host pool's default budget (defaultHostMemoryBudget)
// and how to raise it (`setting`).
Status checkMemoryDemand(const std::vector<MemoryDemand>& demand, const DeviceRuntime& runtime, uint64_t maxBytes,
                         const std::string& what, const std::string& setting = kCliMemoryBudgetSetting);

// Bytes from "1073741824", "512M", "2G", "1.5GiB", "64k" (powers of 1024);
// nullopt for anything else.
std::optional<uint64_t> parseMemorySize(const std::string& text);

}  // namespace ptescope::exec
