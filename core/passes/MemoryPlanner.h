// Device-aware memory planning of one method, as ExecuTorch's
// MemoryPlanningPass does it (spec/device-semantics.md §2.5-2.6): lifetimes
// in instruction order, the greedy algorithm with 16-byte alignment, one
// arena per (device type, index) with CPU:0 first, buffer 0 reserved for
// constants, and the sparse non_const_buffer_device list.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::passes {

struct PlanningOptions {
  // Off: every tensor goes into one CPU arena whatever its device tag
  // (upstream's legacy mode).
  bool enable_non_cpu_memory_planning = true;
  // Off: method inputs (outputs) get no allocation_info; the caller binds
  // its own memory at run time.
  bool alloc_graph_input = true;
  bool alloc_graph_output = true;
  // Every allocation is rounded up to a multiple of this (a power of two).
  uint32_t alignment = 16;
};

// One planned buffer (arena) of the result.
struct PlannedBuffer {
  uint32_t memory_id = 0;  // 1-based, as AllocationInfo.memory_id
  program::Device device;
  uint64_t size = 0;  // bytes, extra padding included
  size_t tensor_count = 0;
};

struct MemoryPlanResult {
  // Exactly what was written to the method.
  std::vector<int64_t> non_const_buffer_sizes;
  std::vector<PlannedBuffer> buffers;  // buffers[i].memory_id == i + 1
  std::vector<int32_t> planned_values;    // value indices given allocation_info
  std::vector<int32_t> unplanned_values;  // non-constant tensors left without it
  uint64_t extra_padding = 0;             // added to every arena (64 with XNNPACK)
};

// Plans `method` in place: writes allocation_info on every planned tensor,
// clears it on every other non-constant tensor, and sets
// non_const_buffer_sizes and non_const_buffer_device.
//
// Planned: tensor values that are not stored constants, not
// DYNAMIC_UNBOUND, touched by an instruction or listed as method input or
// output, minus method inputs / outputs when alloc_graph_input /
// alloc_graph_output is off. Mutable buffers (a tensor with initial data
// and allocation_info) live for the whole method.
//
// With nothing to plan the sizes are [0, 0], as upstream writes them, except
// that a method without instructions that has [0] (a constant method) keeps
// it. On error the method is left unchanged.
Result<MemoryPlanResult> planMemory(program::Method& method, const PlanningOptions& options = {});

// True when a delegate of the method names an XNNPACK backend, which makes
// upstream pad every arena by 64 bytes.
bool hasXnnpackDelegate(const program::Method& method);

}  // namespace ptescope::passes
