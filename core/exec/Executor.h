// Runs one method of a program the way ExecuTorch's runtime does: planned
// buffers allocated per non_const_buffer_device, every tensor bound to its
// buffer and offset (or to its stored constant, or to memory of its own when
// the caller supplies it at run time), then the instructions in order,
// following JumpFalseCall, MoveCall and FreeCall.
//
// Kernels come from a KernelRegistry. An instruction ptescope cannot run (an
// unknown kernel, a delegate whose backend it does not have, a dtype outside
// the portable subset) is recorded as not executed, its outputs keep their
// contents, and the run goes on. A check the runtime would fail on (an
// et_copy whose sides are wrong, an index out of range) stops the run with an
// error that names the instruction.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "exec/DeviceRuntime.h"
#include "exec/Kernels.h"
#include "exec/MemoryBudget.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::exec {

struct InputOptions {
  // Random inputs are drawn from this seed (and the input's position), so a
  // run is repeatable.
  uint64_t seed = 0;
  // When set: a folder with one file per method input i, looked up as
  // i.npy, input_i.npy, i.bin, input_i.bin, i.raw, input_i.raw. A .npy must
  // have the input's dtype and its shape (or, for a DYNAMIC_BOUND input, a
  // shape within its capacity); a raw file holds exactly the input's bytes.
  std::string directory;
  // Polled while random inputs are drawn (every million elements); true
  // stops fillInputs with kInputsCancelled. A large input takes seconds to
  // fill, and a user who cancels should not wait for it.
  std::function<bool()> cancel_requested;
};

// fillInputs' error when InputOptions::cancel_requested stopped it.
inline constexpr const char* kInputsCancelled = "cancelled while filling the inputs";

struct ExecutorOptions {
  // Memory of the CPU arenas and of host tensors the caller supplies.
  HostMemoryKind host_memory = HostMemoryKind::Pageable;
  // Instructions one run may execute before it is stopped as a runaway
  // JumpFalseCall loop; 0 picks 1000 × the instruction count (at least 10^6).
  size_t max_steps = 0;
  // Bytes the run may allocate in each memory pool (0: the default budget,
  // half of the available host memory, and what is available on each
  // device); checked before anything is allocated.
  uint64_t max_memory = 0;
  // How the user raises that limit, named in the refusal (MemoryBudget.h).
  std::string budget_setting = kCliMemoryBudgetSetting;
  // Buffers the caller allocates alongside the run, counted in that budget.
  std::vector<ExtraAllocation> alongside;
};

// One planned buffer (non_const_buffer_sizes[buffer_idx]).
struct PlannedBuffer {
  int32_t buffer_idx = 0;  // 1-based as in the program
  uint64_t size = 0;
  MemoryPlace place;
  uint8_t* data = nullptr;  // nullptr for an empty buffer
};

struct TensorBinding {
  enum class Kind { Planned, Constant, Unplanned };
  int32_t value = -1;
  Kind kind = Kind::Unplanned;
  int32_t buffer_idx = 0;  // Planned: 1-based buffer
  uint64_t offset = 0;     // Planned: byte offset in the buffer
  uint64_t capacity = 0;   // bytes of the declared shape
  program::Device device;  // the tensor's tag
  MemoryPlace memory;      // where its bytes are
};

enum class StepStatus { Executed, NotExecuted };

struct StepRecord {
  size_t instruction = 0;  // flat index (chains in order)
  program::InstructionKind kind = program::InstructionKind::None;
  std::string label;       // "aten::add.out", "delegate CudaBackend", "move", ...
  StepStatus status = StepStatus::Executed;
  std::string reason;      // why it was not executed
  double start_seconds = 0;  // host clock, since the run began
  double host_seconds = 0;   // host clock around the instruction
  std::optional<CopyEvent> copy;  // for et_copy kernels
};

struct RunRecord {
  std::vector<StepRecord> steps;  // in execution order
  double wall_seconds = 0;
  bool cancelled = false;         // stopped by the cancel callback; steps are partial
};

// Where a run is, for a caller on another thread (the app's Run Once header
// reads it on a timer): Executor::run sets `instructions` to the method's
// instruction count and counts `step` up as each instruction starts (jumps
// may repeat some, so step can pass instructions).
struct RunProgress {
  std::atomic<size_t> step{0};
  std::atomic<size_t> instructions{0};
};

// A tensor's contents brought to the host.
struct HostTensor {
  program::ScalarType dtype = program::ScalarType::Float;
  std::vector<int64_t> sizes;
  std::vector<uint8_t> bytes;

  // Elements converted to double, for tests and printing; empty for dtypes
  // the portable kernels do not read.
  std::vector<double> toDoubles() const;
};

// What a method that uses no device memory ran on under the host runtime:
// nothing was emulated, so the result says so rather than "host (emulated)".
inline constexpr const char* kHostCpuRuntimeName = "host CPU (the method uses no device memory)";

class Executor {
 public:
  // Allocates and binds everything for `methodName`. The runtime must
  // outlive the executor; the program need not (constant bytes keep their
  // file mapped through Bytes).
  static Result<std::unique_ptr<Executor>> create(const program::Program& program, const std::string& methodName,
                                                  DeviceRuntime& runtime, const ExecutorOptions& options = {},
                                                  const KernelRegistry& kernels = KernelRegistry::builtin());
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  const program::Method& method() const;
  const std::vector<PlannedBuffer>& buffers() const;
  // True when a planned buffer or a bound tensor lives in device memory.
  // Emulation only stands in for device memory: a method without any runs
  // on the host as it would anywhere (neither emulated nor named so).
  bool usesDeviceMemory() const;
  std::optional<TensorBinding> binding(int32_t value) const;
  size_t instructionCount() const;
  DeviceRuntime& runtime() const;

  // Fills every tensor input: random by default, from files with a directory.
  Status fillInputs(const InputOptions& options);
  // Contents of a tensor value at its current sizes.
  Result<HostTensor> readTensor(int32_t value) const;
  // The current value of a non-tensor value (Int, Double, Bool, ...), as
  // the run left it; an error for a tensor.
  Result<program::ValueData> readLiteral(int32_t value) const;
  // Writes exactly the tensor's bytes at its current sizes (a dynamic tensor
  // is first resized to `sizes` when given).
  Status writeTensor(int32_t value, std::span<const uint8_t> bytes, std::optional<std::vector<int64_t>> sizes = {});
  // Raw access to planned buffers, for tests and the memory view.
  Result<std::vector<uint8_t>> readBuffer(int32_t bufferIdx, uint64_t offset, uint64_t bytes) const;
  Status fillBuffer(int32_t bufferIdx, uint8_t byte);

  // Runs the whole method. Every value starts the run as it was bound, so
  // MoveCall and FreeCall effects do not leak into the next run; inputs keep
  // the sizes the caller gave them and their contents are written again
  // from what fillInputs or writeTensor gave them, since later values may
  // reuse their planned space (as a caller's set_input before every
  // execute() does). That write is not part of the record.
  // `cancelRequested` is polled between instructions and inside long
  // kernels (KernelCancelPoll); `progress`, when given, follows the run.
  Result<RunRecord> run(const std::function<bool()>& cancelRequested = {}, RunProgress* progress = nullptr);
  // Runs the single instruction at a flat index, ignoring where a jump
  // would continue.
  Result<StepRecord> executeInstruction(size_t flatIndex);

  struct State;  // the implementation's, declared here so its helpers can name it

 private:
  explicit Executor(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace ptescope::exec
