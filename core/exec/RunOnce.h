// Executing a method once and keeping what it computed: every output's
// contents (tensors brought to the host, scalars as values), summary
// statistics, and the instructions that were not executed and why. The CLI's
// `run` and the GUI's Run > Run Once use it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "exec/BitExact.h"
#include "exec/Executor.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::exec {

struct RunOnceOptions {
  std::string method;  // empty: "forward" when present, else the first method
  InputOptions inputs;
  HostMemoryKind host_memory = HostMemoryKind::Pageable;
  // As ExecutorOptions: 0 is the default budget (exec/MemoryBudget.h).
  uint64_t max_memory = 0;
  std::string budget_setting = kCliMemoryBudgetSetting;
  // Polled while the inputs are filled, between instructions and inside long
  // kernels; true stops the run with kRunCancelled.
  std::function<bool()> cancel_requested;
  // When given, follows the run's instructions (Executor::run).
  RunProgress* progress = nullptr;
};

// runMethodOnce's error when cancel_requested stopped it.
inline constexpr const char* kRunCancelled = "cancelled";

// min/max/mean over the finite and infinite elements; NaNs are counted apart.
struct ValueStats {
  size_t count = 0;
  size_t nan_count = 0;
  double min = 0, max = 0, mean = 0;
};

struct RunOutput {
  size_t position = 0;       // index in the method's outputs
  int32_t value = -1;        // value index
  std::optional<HostTensor> tensor;  // for tensor outputs
  program::ValueData literal;        // for the others (Int, Double, Bool, ...)
  ValueStats stats;          // tensors with a readable dtype
  std::vector<double> first_values;  // up to 8 elements in memory order
  bool readable = true;      // false for dtypes ptescope does not decode
  // Whether every instruction behind it is one ptescope computes bit for bit
  // as the runtime does (exec/BitExact.h).
  OutputExactness exactness;
};

struct RunOnceResult {
  std::string method;
  std::string runtime;
  // Device memory stood in for by host memory (the host runtime on a method
  // with device-planned buffers or device tensors); false on a GPU and for a
  // method that uses only host memory.
  bool emulated = false;
  size_t instructions = 0;        // steps taken (jumps may repeat some), those not executed included
  std::vector<StepRecord> not_executed;
  // The steps that ran: a skipped delegate is a step, not a run one.
  size_t run() const { return instructions > not_executed.size() ? instructions - not_executed.size() : 0; }
  std::vector<RunOutput> outputs;
  double wall_seconds = 0;
};

Result<RunOnceResult> runMethodOnce(const program::Program& program, DeviceRuntime& runtime, const RunOnceOptions& options);

ValueStats statsOf(const HostTensor& tensor);
// The elements as doubles for every dtype the CPU kernels read (float16 and
// bfloat16 included); empty for the others.
std::vector<double> elementsOf(const HostTensor& tensor);

// Writes output i as <directory>/<i>.npy (tensors in their dtype; Int as a
// 0-d int64, Double as float64, Bool as bool), a String as <i>.txt (its
// text); other values are skipped; each atomically. Creates the directory when missing. Returns the paths.
Result<std::vector<std::string>> writeOutputsAsNpy(const RunOnceResult& result, const std::string& directory);

}  // namespace ptescope::exec
