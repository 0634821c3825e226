// Measures a link profile on a runtime the way bandwidth tools do: for each
// size, batches of back-to-back copies timed as a whole (CUDA events around
// the batch on a GPU), one untimed batch first, the median of the repeats
// divided by the batch length; pinned and pageable host memory, both
// directions. On the host runtime the result is labelled emulated: it
// describes this machine's memcpy, not a GPU link.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "cost/LinkProfile.h"
#include "exec/DeviceRuntime.h"
#include "util/Result.h"

namespace ptescope::cost {

struct ProbeOptions {
  program::Device device{program::DeviceType::Cuda, 0};
  // Sizes to measure, ascending; empty: 1 KiB, 4 KiB, ... up to max_bytes.
  std::vector<uint64_t> sizes;
  uint64_t max_bytes = uint64_t(256) << 20;
  size_t repeats = 5;                             // timed batches per size
  uint64_t batch_bytes = uint64_t(64) << 20;      // bytes per batch, at least one copy
  size_t max_batch_copies = 1000;
  bool pageable = true;                           // also the pageable curves
  // Called after each size of each curve.
  std::function<void(size_t done, size_t total)> on_progress;
  // Asked before each batch of copies (at most batch_bytes apart): true
  // stops the probe with the error kProbeCancelled.
  std::function<bool()> cancel_requested;
};

// probeLink's error when cancel_requested stopped it.
inline constexpr const char* kProbeCancelled = "link probe cancelled";

// 1 KiB, 4 KiB, 16 KiB, ... up to and including max_bytes when it is a
// power of 4 times 1 KiB (else the last one below it, then max_bytes).
std::vector<uint64_t> defaultProbeSizes(uint64_t maxBytes);

Result<LinkProfile> probeLink(exec::DeviceRuntime& runtime, const ProbeOptions& options);

}  // namespace ptescope::cost
