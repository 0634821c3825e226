// Kernels the executor can run, looked up as the ExecuTorch runtime does by
// "namespace::name.overload" (e.g. "aten::add.out").
//
// A kernel sees its instruction's arguments through a KernelContext, in the
// order the program stores them, which is upstream's emitter's: the schema's
// arguments (outs last), then the out-variant's return value again (a single
// out) or one TensorList of the outs (several). Three outcomes:
//   - Done: the kernel computed its outputs.
//   - Unsupported: this kernel cannot compute these arguments (a dtype or a
//     layout outside the portable subset, a tensor in device memory); the
//     instruction is recorded as not executed and the run continues.
//   - an Error: a check the ExecuTorch runtime makes failed (e.g. an et_copy
//     whose source is not on the CPU); the run stops with that message, as
//     the runtime's execute() would.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "exec/DeviceRuntime.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::exec {

// A tensor value as the executor holds it while running: its memory and its
// current shape (which a DYNAMIC_BOUND tensor may change within capacity).
struct TensorRef {
  int32_t value = -1;                 // the value index it was bound for
  program::ScalarType dtype = program::ScalarType::Float;
  program::Device device;             // the tag the program gives it (what kernels see)
  program::ShapeDynamism dynamism = program::ShapeDynamism::Static;
  std::vector<int64_t> sizes;         // current sizes
  uint64_t capacity = 0;              // bytes usable at `data`
  uint8_t* data = nullptr;            // null once a FreeCall released it
  bool writable = true;               // false for stored constants mapped from the file
  bool default_dim_order = true;      // contiguous, dim_order 0..n-1
  std::vector<int64_t> dim_order;     // when not the default: outermost dimension first
  MemoryPlace memory;                 // where `data` really is

  int64_t numel() const;
  uint64_t nbytes() const;
  // Host memory that a CPU kernel may read: tagged CPU and stored on the host.
  bool onHost() const { return device.isCpu() && !memory.onDevice(); }
};

// resize_tensor as the runtime does it: a STATIC tensor must already have
// these sizes; a dynamic one may take any sizes whose bytes fit its capacity.
Status resizeTensor(TensorRef& tensor, std::span<const int64_t> sizes);

// What a copy kernel moved, for the profile.
struct CopyEvent {
  program::CopyDirection direction = program::CopyDirection::HostToDevice;
  int32_t source_value = -1;
  int32_t destination_value = -1;
  program::Device device;  // the device side
  HostMemoryKind host_memory = HostMemoryKind::Pageable;
  uint64_t bytes = 0;
  double seconds = 0;      // the transfer as the runtime timed it
};

struct KernelOutcome {
  enum class Kind { Done, Unsupported };
  Kind kind = Kind::Done;
  std::string reason;  // for Unsupported
  static KernelOutcome done() { return {}; }
  static KernelOutcome unsupported(std::string why) { return {Kind::Unsupported, std::move(why)}; }
};
using KernelResult = Result<KernelOutcome>;

class KernelContext {
 public:
  virtual ~KernelContext() = default;

  virtual size_t argCount() const = 0;
  virtual int32_t valueIndex(size_t arg) const = 0;
  virtual program::ValueKind kind(size_t arg) const = 0;
  // The tensor an argument holds, or nullptr when it is not a tensor.
  virtual TensorRef* tensor(size_t arg) = 0;
  // The stored value of a non-tensor argument (Int, Double, Bool, lists).
  virtual const program::ValueData& literal(size_t arg) const = 0;
  // The value at a method value index (IntList items point at Int values);
  // nullptr when out of range.
  virtual const program::ValueData* literalAt(int32_t valueIndex) const = 0;
  // The tensor at a method value index (TensorList items); nullptr when that
  // value is not a tensor or the index is out of range.
  virtual TensorRef* tensorAt(int32_t valueIndex) = 0;
  // Replaces a non-tensor argument's value for the rest of the run (the
  // result of a scalar executorch_prim operator such as sym_size.int).
  virtual Status setLiteral(size_t arg, program::ValueData value) = 0;

  virtual DeviceRuntime& runtime() = 0;
  virtual void recordCopy(const CopyEvent& copy) = 0;

  // Typed access; errors name the argument position and value.
  Result<int64_t> intArg(size_t arg) const;
  Result<double> scalarArg(size_t arg) const;  // Int, Double or Bool as a number
  Result<bool> boolArg(size_t arg) const;
  Result<std::vector<int64_t>> intListArg(size_t arg) const;  // resolves the items' Int values
  bool isNullArg(size_t arg) const;                           // Null / None (an absent optional)
  // "%5".
  std::string valueName(size_t arg) const { return "%" + std::to_string(valueIndex(arg)); }
};

using Kernel = std::function<KernelResult(KernelContext&)>;

class KernelRegistry {
 public:
  // Registering a name twice replaces the first kernel (unlike ExecuTorch's
  // registry, which aborts: tests swap kernels in on purpose).
  void add(std::string qualifiedName, Kernel kernel);
  const Kernel* find(std::string_view qualifiedName) const;
  std::vector<std::string> names() const;

  // The et_copy kernels and the portable CPU subset.
  static const KernelRegistry& builtin();

 private:
  std::map<std::string, Kernel, std::less<>> kernels_;
};

// Adds et_copy::_h2d_copy.out and et_copy::_d2h_copy.out.
void addCopyKernels(KernelRegistry& registry);
// Adds ptescope's CPU kernels (core/exec/kernels/: elementwise, reductions
// and norms, linear algebra, convolution and pooling, shape copies,
// indexing, creation, quantize/dequantize, executorch_prim scalar ops).
void addPortableKernels(KernelRegistry& registry);

// Every kernel that can run long (matrix products, convolutions, pooling,
// reductions, softmax and norms, elementwise maps, copies, gathers,
// quantized and CMSIS-NN ones) polls this through KernelCancelPoll: true
// when the run that called it is being cancelled. The kernel
// then stops early and the executor drops the run (RunRecord::cancelled), so
// Cancel does not wait for one kernel of billions of multiply-adds.
// Executor::run sets the poll for its thread (KernelCancelScope).
bool kernelCancelRequested();

// The one way a kernel looks at Cancel from its loops, cheap enough for an
// innermost one: poll(work) adds the work just done (elements written,
// multiply-adds) and asks kernelCancelRequested once every kWork units, so a
// look costs an addition and a comparison and Cancel is seen within about
// 2^16 units (well under a millisecond). Once it has said yes it keeps
// saying yes without asking again, so every loop of a nest can test it and
// stop. Stopping never changes what a completed kernel computes.
class KernelCancelPoll {
 public:
  static constexpr int64_t kWork = int64_t(1) << 16;
  bool operator()(int64_t work = 1) {
    if (stopped_) return true;
    pending_ += work;
    if (pending_ < kWork) return false;
    pending_ = 0;
    stopped_ = kernelCancelRequested();
    return stopped_;
  }
  bool stopped() const { return stopped_; }

 private:
  int64_t pending_ = 0;
  bool stopped_ = false;
};

class KernelCancelScope {
 public:
  explicit KernelCancelScope(const std::function<bool()>* poll);
  ~KernelCancelScope();
  KernelCancelScope(const KernelCancelScope&) = delete;
  KernelCancelScope& operator=(const KernelCancelScope&) = delete;

 private:
  const std::function<bool()>* previous_;
};

}  // namespace ptescope::exec
