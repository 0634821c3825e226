// What this machine's memory allows, for the budgets that refuse work before
// allocating it (profile's execution memory, synth's constant data).
#pragma once

#include <cstdint>

namespace ptescope {

// MemAvailable of /proc/meminfo in bytes (what can be allocated without
// swapping), 0 when unknown.
uint64_t hostAvailableMemoryBytes();

// This machine's physical memory in bytes, 0 when unknown. Host allocations
// larger than this are refused up front: with overcommit they could succeed
// and then kill the process when first touched.
uint64_t hostPhysicalMemoryBytes();

}  // namespace ptescope
