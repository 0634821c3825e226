#include "exec/Executor.h"
#include "exec/RuntimeChecks.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "analysis/Dataflow.h"
#include "program/Text.h"
#include "exec/InputFiles.h"
#include "util/MappedFile.h"

namespace ptescope::exec {

using program::InstructionKind;
using program::ValueKind;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string valueName(int32_t value) { return "%" + std::to_string(value); }

// splitmix64: a tiny, well-mixed generator whose output is the same on every
// platform, unlike the standard distributions.
struct SplitMix {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

// Random contents for an input: floats in [-1, 1), integers in [0, 10)
// (safe as indices of small tables), booleans 0/1.
// Empty when `cancelRequested` stopped it (polled every 2^20 elements).
std::optional<std::vector<uint8_t>> randomBytes(const TensorRef& tensor, uint64_t seed, size_t position,
                                                const std::function<bool()>& cancelRequested) {
  SplitMix rng{seed * 0x100000001b3ull + position};
  const int64_t n = tensor.numel();
  const int size = program::elementSize(tensor.dtype);
  std::vector<uint8_t> bytes(size_t(n) * size_t(size));
  for (int64_t i = 0; i < n; ++i) {
    if ((i & 0xfffff) == 0 && i != 0 && cancelRequested && cancelRequested()) return std::nullopt;
    uint8_t* p = bytes.data() + i * size;
    switch (tensor.dtype) {
      case program::ScalarType::Float: {
        const float v = float(rng.uniform() * 2 - 1);
        std::memcpy(p, &v, 4);
        break;
      }
      case program::ScalarType::Double: {
        const double v = rng.uniform() * 2 - 1;
        std::memcpy(p, &v, 8);
        break;
      }
      case program::ScalarType::Half:
      case program::ScalarType::BFloat16: {
        // Small exactly representable values: multiples of 1/8 in [-1, 1).
        const float v = float(int(rng.next() % 16) - 8) / 8.0f;
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        uint16_t stored = tensor.dtype == program::ScalarType::BFloat16
                              ? uint16_t(bits >> 16)
                              : uint16_t(((bits >> 16) & 0x8000u) |
                                         (v == 0 ? 0u : ((((bits >> 23) & 0xffu) - 112u) << 10) | ((bits >> 13) & 0x3ffu)));
        std::memcpy(p, &stored, 2);
        break;
      }
      case program::ScalarType::Bool:
        *p = uint8_t(rng.next() & 1u);
        break;
      default: {
        // Integer types (and anything exotic): small non-negative values,
        // little-endian in the element's width.
        const uint64_t v = rng.next() % 10;
        std::memset(p, 0, size_t(size));
        std::memcpy(p, &v, size_t(std::min(size, 8)));
        break;
      }
    }
  }
  return bytes;
}

}  // namespace

std::vector<double> HostTensor::toDoubles() const {
  std::vector<double> result;
  const int size = program::elementSize(dtype);
  if (size == 0) return result;
  const size_t n = bytes.size() / size_t(size);
  result.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* p = bytes.data() + i * size_t(size);
    double v = 0;
    switch (dtype) {
      case program::ScalarType::Float: { float f; std::memcpy(&f, p, 4); v = f; break; }
      case program::ScalarType::Double: std::memcpy(&v, p, 8); break;
      case program::ScalarType::Int: { int32_t x; std::memcpy(&x, p, 4); v = double(x); break; }
      case program::ScalarType::Long: { int64_t x; std::memcpy(&x, p, 8); v = double(x); break; }
      case program::ScalarType::Short: { int16_t x; std::memcpy(&x, p, 2); v = x; break; }
      case program::ScalarType::Char: v = double(int8_t(*p)); break;
      case program::ScalarType::Byte: v = *p; break;
      case program::ScalarType::Bool: v = *p ? 1 : 0; break;
      default: return {};
    }
    result.push_back(v);
  }
  return result;
}

// Everything the executor owns. Values are kept twice: `bound` as they were
// after binding (restored at the start of every run) and `current`.
struct Executor::State {
  struct ValueState {
    program::ValueData literal;
    std::optional<TensorRef> tensor;
  };

  DeviceRuntime* runtime = nullptr;
  const KernelRegistry* kernels = nullptr;
  ExecutorOptions options;
  program::Method method;
  analysis::Dataflow dataflow;
  std::vector<size_t> chain_starts;
  std::vector<PlannedBuffer> buffers;
  std::vector<RuntimeBuffer> owned;  // planned buffers, unplanned tensors, device constants
  std::vector<Bytes> constant_bytes;  // keeps constants mapped
  std::vector<std::optional<TensorBinding>> bindings;
  std::vector<ValueState> bound;
  std::vector<ValueState> current;
  std::vector<bool> is_input;
  // What the caller gave each input. Planned inputs share arena space with
  // values that are computed later, so, like ExecuTorch's set_input before
  // every execute(), each run writes them again.
  std::vector<std::optional<std::vector<uint8_t>>> input_bytes;

  std::string where(size_t flat) const {
    return "method '" + method.displayName() + "', instruction " + std::to_string(flat);
  }
  Status checkValue(int32_t value, const std::string& what) const {
    if (value < 0 || size_t(value) >= current.size())
      return makeError(what + ": value index " + std::to_string(value) + " is out of range (" +
                       std::to_string(current.size()) + " values)");
    return Ok{};
  }
  Status copyToTensor(TensorRef& tensor, std::span<const uint8_t> bytes);

  // The steps of Executor::create.
  Status checkMemory(const std::string& methodText) const;
  Status allocatePlannedBuffers(const std::string& methodText);
  Status bindValues(const program::Program& program, const std::string& methodText);
  Status bindPlanned(const program::Program& program, const program::Tensor& t, TensorRef& ref, TensorBinding& binding,
                     const std::string& what);
  Status bindConstant(const program::Program& program, const program::Tensor& t, TensorRef& ref,
                      TensorBinding& binding, const std::string& what);
  Status bindUnplanned(TensorRef& ref, TensorBinding& binding, const std::string& what);
  Result<std::vector<uint8_t>> copyFromTensor(const TensorRef& tensor) const;
  Result<std::optional<size_t>> executeOne(size_t chain, size_t index, StepRecord& step);
};

namespace {

// The KernelContext of one instruction.
class InstructionContext final : public KernelContext {
 public:
  InstructionContext(const std::vector<int32_t>& args, Executor::State& state, StepRecord& step)
      : args_(args), state_(state), step_(step) {}
  size_t argCount() const override { return args_.size(); }
  int32_t valueIndex(size_t arg) const override { return args_.at(arg); }
  ValueKind kind(size_t arg) const override { return slot(arg).tensor ? ValueKind::Tensor : kindOf(slot(arg).literal); }
  TensorRef* tensor(size_t arg) override {
    auto& s = state_.current[size_t(args_.at(arg))];
    return s.tensor ? &*s.tensor : nullptr;
  }
  const program::ValueData& literal(size_t arg) const override { return slot(arg).literal; }
  const program::ValueData* literalAt(int32_t value) const override {
    if (value < 0 || size_t(value) >= state_.current.size()) return nullptr;
    return &state_.current[size_t(value)].literal;
  }
  TensorRef* tensorAt(int32_t value) override {
    if (value < 0 || size_t(value) >= state_.current.size()) return nullptr;
    auto& s = state_.current[size_t(value)];
    return s.tensor ? &*s.tensor : nullptr;
  }
  Status setLiteral(size_t arg, program::ValueData value) override {
    auto& s = state_.current[size_t(args_.at(arg))];
    if (s.tensor) return makeError(valueName(args_.at(arg)) + " is a tensor, not a scalar value");
    s.literal = std::move(value);
    return Ok{};
  }
  DeviceRuntime& runtime() override { return *state_.runtime; }
  void recordCopy(const CopyEvent& copy) override { step_.copy = copy; }

 private:
  static ValueKind kindOf(const program::ValueData& data) { return static_cast<ValueKind>(data.index()); }
  const Executor::State::ValueState& slot(size_t arg) const { return state_.current[size_t(args_.at(arg))]; }
  const std::vector<int32_t>& args_;
  Executor::State& state_;
  StepRecord& step_;
};

}  // namespace

Status Executor::State::copyToTensor(TensorRef& tensor, std::span<const uint8_t> bytes) {
  if (bytes.size() != tensor.nbytes())
    return makeError(valueName(tensor.value) + " " + program::tensorTypeText(tensor.dtype, tensor.sizes) + " holds " +
                     std::to_string(tensor.nbytes()) + " bytes, not " + std::to_string(bytes.size()));
  if (!tensor.writable) return makeError(valueName(tensor.value) + " is a stored constant and cannot be written");
  if (bytes.empty()) return Ok{};
  if (tensor.data == nullptr) return makeError(valueName(tensor.value) + " has no memory (unbound or freed)");
  if (!tensor.memory.onDevice()) {
    std::memcpy(tensor.data, bytes.data(), bytes.size());
    return Ok{};
  }
  auto timing = runtime->copy(tensor.data, bytes.data(), bytes.size(), program::CopyDirection::HostToDevice, tensor.memory.device);
  if (!timing) return makeError("writing " + valueName(tensor.value) + ": " + timing.error().message);
  return Ok{};
}

Result<std::vector<uint8_t>> Executor::State::copyFromTensor(const TensorRef& tensor) const {
  std::vector<uint8_t> bytes(tensor.nbytes());
  if (bytes.empty()) return bytes;
  if (tensor.data == nullptr) return makeError(valueName(tensor.value) + " has no memory (unbound or freed)");
  if (!tensor.memory.onDevice()) {
    std::memcpy(bytes.data(), tensor.data, bytes.size());
    return bytes;
  }
  auto timing = runtime->copy(bytes.data(), tensor.data, bytes.size(), program::CopyDirection::DeviceToHost, tensor.memory.device);
  if (!timing) return makeError("reading " + valueName(tensor.value) + ": " + timing.error().message);
  return bytes;
}

Executor::Executor(std::unique_ptr<State> state) : state_(std::move(state)) {}
Executor::~Executor() = default;

namespace {

const program::Method* findMethodNamed(const program::Program& program, const std::string& methodName,
                                       std::string& error) {
  const program::Method* found = program.findMethod(methodName);
  if (found == nullptr) {
    std::string names;
    for (const auto& m : program.methods()) names += (names.empty() ? "" : ", ") + m.displayName();
    error = "no method named '" + methodName + "' (the program has: " + names + ")";
  }
  return found;
}

// A tensor value's description before it has memory: dtype, device, sizes,
// dim order and capacity.
Result<TensorRef> describeTensor(int32_t value, const program::Tensor& t, const std::string& what) {
  TensorRef ref;
  ref.value = value;
  ref.dtype = t.scalar_type;
  ref.device = t.device();
  ref.dynamism = t.shape_dynamism;
  for (int32_t d : program::items(t.sizes)) ref.sizes.push_back(d);
  const auto& order = program::items(t.dim_order);
  for (size_t d = 0; d < order.size(); ++d)
    if (order[d] != d) ref.default_dim_order = false;
  if (!ref.default_dim_order) ref.dim_order.assign(order.begin(), order.end());
  const int64_t nbytes = t.nbytes();
  if (nbytes < 0)
    return makeError(what + ": its size is unknown (negative size, overflow or invalid scalar type " +
                     std::to_string(int(t.scalar_type)) + ")");
  ref.capacity = uint64_t(nbytes);
  return ref;
}

}  // namespace

// Everything the run will allocate, added up and checked before the first
// allocation (a corrupt size must not push the machine into swap).
Status Executor::State::checkMemory(const std::string& methodText) const {
  auto demand = methodMemoryDemand(method, *runtime, options.host_memory, options.alongside);
  if (!demand) return demand.error();
  return checkMemoryDemand(demand.value(), *runtime, options.max_memory, methodText, options.budget_setting);
}

// Planned buffers: non_const_buffer_sizes[0] is reserved for constants.
Status Executor::State::allocatePlannedBuffers(const std::string& methodText) {
  const auto& sizes = program::items(method.non_const_buffer_sizes);
  for (size_t i = 1; i < sizes.size(); ++i) {
    const int32_t idx = int32_t(i);
    if (sizes[i] < 0)
      return makeError(methodText + ": planned buffer " + std::to_string(i) + " has a negative size " + std::to_string(sizes[i]));
    const program::Device device = method.bufferDevice(idx);
    MemoryPlace place = device.isCpu() ? MemoryPlace::host(options.host_memory) : MemoryPlace::onDevice(device);
    if (place.onDevice())
      if (auto status = runtime->checkDevice(device); !status)
        return makeError(methodText + ": planned buffer " + std::to_string(i) + " on " + device.str() + ": " +
                         status.error().message);
    auto buffer = RuntimeBuffer::allocate(*runtime, size_t(sizes[i]), place);
    if (!buffer)
      return makeError(methodText + ": cannot allocate planned buffer " + std::to_string(i) + " (" + std::to_string(sizes[i]) +
                       " bytes on " + place.str() + "): " + buffer.error().message);
    // Values no instruction writes (outputs of delegates ptescope cannot
    // run) then read as zeros, the same on every runtime.
    if (auto status = runtime->fill(buffer->data(), place, 0, buffer->size()); !status)
      return makeError(methodText + ": clearing planned buffer " + std::to_string(i) + ": " + status.error().message);
    buffers.push_back(PlannedBuffer{idx, uint64_t(sizes[i]), place, buffer->data()});
    owned.push_back(std::move(buffer.value()));
  }
  return Ok{};
}

Status Executor::State::bindPlanned(const program::Program& program, const program::Tensor& t, TensorRef& ref,
                                    TensorBinding& binding, const std::string& what) {
  const auto& info = *t.allocation_info;
  if (info.memory_id == 0 || info.memory_id > buffers.size())
    return makeError(what + ": memory_id " + std::to_string(info.memory_id) + " names no planned buffer (" +
                     std::to_string(buffers.size()) + " planned buffers)");
  const PlannedBuffer& buffer = buffers[info.memory_id - 1];
  const uint64_t offset = info.offset();
  if (offset > buffer.size || ref.capacity > buffer.size - offset)
    return makeError(what + ": " + std::to_string(ref.capacity) + " bytes at offset " + std::to_string(offset) +
                     " run past the end of planned buffer " + std::to_string(info.memory_id) + " (" +
                     std::to_string(buffer.size) + " bytes)");
  ref.data = buffer.data == nullptr ? nullptr : buffer.data + offset;
  ref.memory = buffer.place;
  binding.kind = TensorBinding::Kind::Planned;
  binding.buffer_idx = int32_t(info.memory_id);
  binding.offset = offset;
  // A planned tensor with stored data (a mutable buffer, an external
  // trainable weight) gets its initial state at load, as the runtime does.
  const auto source = program::tensorData(program, t);
  if (source.kind == program::TensorDataSource::Kind::Missing) return makeError(what + ": initial data: " + source.detail);
  if (source.kind != program::TensorDataSource::Kind::None) {
    if (auto status = copyToTensor(ref, source.data.span()); !status) return makeError(what + ": " + status.error().message);
  }
  return Ok{};
}

Status Executor::State::bindConstant(const program::Program& program, const program::Tensor& t, TensorRef& ref,
                                     TensorBinding& binding, const std::string& what) {
  const auto source = program::tensorData(program, t);
  if (source.kind == program::TensorDataSource::Kind::Missing) return makeError(what + ": constant data: " + source.detail);
  binding.kind = TensorBinding::Kind::Constant;
  if (ref.device.isCpu()) {
    // The bytes stay where the reader put them (the mapped file); no
    // kernel writes a constant.
    ref.data = const_cast<uint8_t*>(source.data.data());
    ref.writable = false;
    ref.memory = MemoryPlace::host(HostMemoryKind::Pageable);
    constant_bytes.push_back(source.data);
    return Ok{};
  }
  // A constant tagged for a device (pitfall P9) lives in device memory.
  auto buffer = RuntimeBuffer::allocate(*runtime, size_t(ref.capacity), MemoryPlace::onDevice(ref.device));
  if (!buffer) return makeError(what + ": device constant: " + buffer.error().message);
  ref.data = buffer->data();
  ref.memory = buffer->place();
  if (auto status = copyToTensor(ref, source.data.span()); !status) return makeError(what + ": " + status.error().message);
  ref.writable = false;
  owned.push_back(std::move(buffer.value()));
  return Ok{};
}

// Supplied by the caller at run time (unplanned inputs and outputs, delegate
// I/O without allocation_info): memory of its own, where its tag says.
Status Executor::State::bindUnplanned(TensorRef& ref, TensorBinding& binding, const std::string& what) {
  const MemoryPlace place = ref.device.isCpu() ? MemoryPlace::host(options.host_memory) : MemoryPlace::onDevice(ref.device);
  auto buffer = RuntimeBuffer::allocate(*runtime, size_t(ref.capacity), place);
  if (!buffer) return makeError(what + ": memory for an unplanned tensor: " + buffer.error().message);
  if (auto status = runtime->fill(buffer->data(), place, 0, buffer->size()); !status)
    return makeError(what + ": " + status.error().message);
  ref.data = buffer->data();
  ref.memory = place;
  binding.kind = TensorBinding::Kind::Unplanned;
  owned.push_back(std::move(buffer.value()));
  return Ok{};
}

// Every value's current state and every tensor's memory.
Status Executor::State::bindValues(const program::Program& program, const std::string& methodText) {
  const auto& values = program::items(method.values);
  current.resize(values.size());
  bindings.resize(values.size());
  for (size_t v = 0; v < values.size(); ++v) {
    const int32_t value = int32_t(v);
    const std::string what = methodText + ", value " + valueName(value);
    const program::Tensor* t = values[v].tensor();
    current[v].literal = values[v].data;
    if (t == nullptr) continue;
    auto ref = describeTensor(value, *t, what);
    if (!ref) return ref.error();
    TensorBinding binding;
    binding.value = value;
    binding.capacity = ref->capacity;
    binding.device = ref->device;
    Status bound = t->isPlanned()    ? bindPlanned(program, *t, *ref, binding, what)
                   : t->isConstant() ? bindConstant(program, *t, *ref, binding, what)
                                     : bindUnplanned(*ref, binding, what);
    if (!bound) return bound.error();
    binding.memory = ref->memory;
    bindings[v] = binding;
    current[v].tensor = std::move(ref.value());
  }
  return Ok{};
}

Result<std::unique_ptr<Executor>> Executor::create(const program::Program& program, const std::string& methodName,
                                                   DeviceRuntime& runtime, const ExecutorOptions& options,
                                                   const KernelRegistry& kernels) {
  std::string error;
  const program::Method* found = findMethodNamed(program, methodName, error);
  if (found == nullptr) return makeError(error);
  auto state = std::make_unique<State>();
  State& s = *state;
  s.runtime = &runtime;
  s.kernels = &kernels;
  s.options = options;
  s.method = *found;
  s.dataflow = analysis::Dataflow::build(s.method);
  const std::string methodText = "method '" + s.method.displayName() + "'";
  if (auto status = s.checkMemory(methodText); !status) return status.error();
  size_t start = 0;
  for (const auto& chain : program::items(s.method.chains)) {
    s.chain_starts.push_back(start);
    start += program::items(chain.instructions).size();
  }
  if (auto status = s.allocatePlannedBuffers(methodText); !status) return status.error();
  if (auto status = s.bindValues(program, methodText); !status) return status.error();
  s.is_input.assign(program::items(s.method.values).size(), false);
  for (int32_t input : program::items(s.method.inputs)) {
    if (auto status = s.checkValue(input, methodText + ": method input"); !status) return status.error();
    s.is_input[size_t(input)] = true;
  }
  s.input_bytes.resize(program::items(s.method.values).size());
  s.bound = s.current;
  return std::unique_ptr<Executor>(new Executor(std::move(state)));
}

const program::Method& Executor::method() const { return state_->method; }
const std::vector<PlannedBuffer>& Executor::buffers() const { return state_->buffers; }

bool Executor::usesDeviceMemory() const {
  for (const auto& buffer : buffers())
    if (buffer.place.onDevice()) return true;
  const size_t valueCount = program::items(method().values).size();
  for (size_t v = 0; v < valueCount; ++v)
    if (auto b = binding(int32_t(v)); b && b->memory.onDevice()) return true;
  return false;
}
size_t Executor::instructionCount() const { return state_->dataflow.instructionCount(); }
DeviceRuntime& Executor::runtime() const { return *state_->runtime; }

std::optional<TensorBinding> Executor::binding(int32_t value) const {
  if (value < 0 || size_t(value) >= state_->bindings.size()) return std::nullopt;
  return state_->bindings[size_t(value)];
}

Status Executor::fillInputs(const InputOptions& options) {
  State& s = *state_;
  const auto& inputs = program::items(s.method.inputs);
  if (!options.directory.empty()) {
    std::error_code error;
    if (!std::filesystem::is_directory(options.directory, error))
      return makeError(options.directory + ": not a folder (--inputs needs a folder of .npy or raw files)");
  }
  for (size_t position = 0; position < inputs.size(); ++position) {
    const int32_t value = inputs[position];
    auto& slot = s.current[size_t(value)];
    if (!slot.tensor) continue;  // scalar inputs keep their stored value
    TensorRef& tensor = *slot.tensor;
    const std::string what = "input " + std::to_string(position) + " (" + valueName(value) + " " +
                             program::tensorTypeText(tensor.dtype, tensor.sizes) + ")";
    if (!tensor.writable) continue;  // a constant listed as input keeps its data
    // Method::set_input copies into a planned input with a host memcpy and
    // refuses when the input's tensor is on a device.
    if (s.bindings[size_t(value)] && s.bindings[size_t(value)]->kind == TensorBinding::Kind::Planned &&
        !tensor.device.isCpu())
      return makeError(refusal(runtimeCheck("RT001"), ("method '" + s.method.displayName() + "'") + " " + what,
                               "Planned-buffer copy needs host memory on both sides: dst device " +
                                   std::to_string(int(tensor.device.type)) +
                                   ", src device 0. Export with MemoryPlanningPass(alloc_graph_input=False) to share "
                                   "the caller's memory."));
    if (options.directory.empty()) {
      auto bytes = randomBytes(tensor, options.seed, position, options.cancel_requested);
      if (!bytes) return makeError(kInputsCancelled);
      if (auto status = s.copyToTensor(tensor, *bytes); !status) return makeError(what + ": " + status.error().message);
      s.input_bytes[size_t(value)] = std::move(*bytes);
      continue;
    }
    const std::string path = findInputFile(options.directory, position);
    if (path.empty())
      return makeError(options.directory + ": no file for " + what + " (looked for " + std::to_string(position) + ".npy, input_" +
                       std::to_string(position) + ".npy, " + std::to_string(position) + ".bin, " +
                       std::to_string(position) + ".raw)");
    if (path.ends_with(".npy")) {
      auto array = readNpyFile(path);
      if (!array) return array.error();
      if (array->dtype != tensor.dtype)
        return makeError(refusal(runtimeCheck("RT002"), path + ": " + ("method '" + s.method.displayName() + "'") + " " + what,
                                 "Input " + std::to_string(position) + " has unexpected scalar type: expected " +
                                     program::scalarTypeShortName(tensor.dtype) + " but was " +
                                     program::scalarTypeShortName(array->dtype) + "."));
      if (auto status = resizeTensor(tensor, array->sizes); !status)
        return makeError(refusal(runtimeCheck("RT003"), path + ": " + ("method '" + s.method.displayName() + "'") + " " + what,
                                 status.error().message));
      if (auto status = s.copyToTensor(tensor, array->bytes); !status) return makeError(path + ": " + status.error().message);
      s.input_bytes[size_t(value)] = std::move(array->bytes);
    } else {
      auto bytes = mapFile(path);
      if (!bytes) return bytes.error();
      if (bytes->size() != tensor.nbytes())
        return makeError(path + ": holds " + std::to_string(bytes->size()) + " bytes, " + what + " needs " +
                         std::to_string(tensor.nbytes()));
      if (auto status = s.copyToTensor(tensor, bytes->span()); !status) return makeError(path + ": " + status.error().message);
      s.input_bytes[size_t(value)] = std::vector<uint8_t>(bytes->span().begin(), bytes->span().end());
    }
  }
  return Ok{};
}

Result<HostTensor> Executor::readTensor(int32_t value) const {
  const State& s = *state_;
  if (auto status = s.checkValue(value, "readTensor"); !status) return status.error();
  const auto& slot = s.current[size_t(value)];
  if (!slot.tensor) return makeError(valueName(value) + " is not a tensor");
  auto bytes = s.copyFromTensor(*slot.tensor);
  if (!bytes) return bytes.error();
  return HostTensor{slot.tensor->dtype, slot.tensor->sizes, std::move(bytes.value())};
}

Result<program::ValueData> Executor::readLiteral(int32_t value) const {
  const State& s = *state_;
  if (auto status = s.checkValue(value, "readLiteral"); !status) return status.error();
  const auto& slot = s.current[size_t(value)];
  if (slot.tensor) return makeError(valueName(value) + " is a tensor");
  return slot.literal;
}

Status Executor::writeTensor(int32_t value, std::span<const uint8_t> bytes, std::optional<std::vector<int64_t>> sizes) {
  State& s = *state_;
  if (auto status = s.checkValue(value, "writeTensor"); !status) return status.error();
  auto& slot = s.current[size_t(value)];
  if (!slot.tensor) return makeError(valueName(value) + " is not a tensor");
  if (sizes)
    if (auto status = resizeTensor(*slot.tensor, *sizes); !status) return status.error();
  if (auto status = s.copyToTensor(*slot.tensor, bytes); !status) return status;
  if (s.is_input[size_t(value)]) s.input_bytes[size_t(value)] = std::vector<uint8_t>(bytes.begin(), bytes.end());
  return Ok{};
}

Result<std::vector<uint8_t>> Executor::readBuffer(int32_t bufferIdx, uint64_t offset, uint64_t bytes) const {
  const State& s = *state_;
  if (bufferIdx < 1 || size_t(bufferIdx) > s.buffers.size())
    return makeError("planned buffer " + std::to_string(bufferIdx) + " does not exist");
  const PlannedBuffer& buffer = s.buffers[size_t(bufferIdx) - 1];
  if (offset > buffer.size || bytes > buffer.size - offset)
    return makeError("range past the end of planned buffer " + std::to_string(bufferIdx));
  std::vector<uint8_t> out(bytes);
  if (bytes == 0) return out;
  if (!buffer.place.onDevice()) {
    std::memcpy(out.data(), buffer.data + offset, bytes);
    return out;
  }
  auto timing = s.runtime->copy(out.data(), buffer.data + offset, bytes, program::CopyDirection::DeviceToHost, buffer.place.device);
  if (!timing) return timing.error();
  return out;
}

Status Executor::fillBuffer(int32_t bufferIdx, uint8_t byte) {
  State& s = *state_;
  if (bufferIdx < 1 || size_t(bufferIdx) > s.buffers.size())
    return makeError("planned buffer " + std::to_string(bufferIdx) + " does not exist");
  const PlannedBuffer& buffer = s.buffers[size_t(bufferIdx) - 1];
  return s.runtime->fill(buffer.data, buffer.place, byte, buffer.size);
}

// Runs instruction `index` of chain `chain`; returns the next index in the
// chain when a jump is taken.
Result<std::optional<size_t>> Executor::State::executeOne(size_t chain, size_t index, StepRecord& step) {
  const auto& instructions = program::items(program::items(method.chains)[chain].instructions);
  const program::Instruction& instruction = instructions[index];
  const size_t flat = chain_starts[chain] + index;
  step.instruction = flat;
  step.kind = instruction.kind();
  step.label = flat < dataflow.instructionCount() ? dataflow.instructions()[flat].label : "";
  const std::string here = where(flat);

  if (const auto* call = std::get_if<program::KernelCall>(&instruction.data)) {
    const auto& operators = program::items(method.operators);
    if (call->op_index < 0 || size_t(call->op_index) >= operators.size())
      return makeError(here + ": operator index " + std::to_string(call->op_index) + " is out of range");
    const std::string name = operators[size_t(call->op_index)].qualifiedName();
    step.label = name;
    const auto& args = program::items(call->args);
    for (int32_t arg : args)
      if (auto status = checkValue(arg, here + " (" + name + ")"); !status) return status.error();
    // The generated unboxing of the runtime's kernel library counts the args.
    if (auto expected = portableSchemaArgCount(name); expected && args.size() != *expected + 1)
      return makeError(refusal(runtimeCheck("RT004"), here + " (" + name + ")",
                               "Expected " + std::to_string(*expected + 1) + " args received " +
                                   std::to_string(args.size())));
    const Kernel* kernel = kernels->find(name);
    if (kernel == nullptr) {
      step.status = StepStatus::NotExecuted;
      step.reason = "ptescope has no kernel for " + name;
      return std::optional<size_t>{};
    }
    InstructionContext context(args, *this, step);
    auto outcome = (*kernel)(context);
    if (!outcome) return makeError(here + " (" + name + "): " + outcome.error().message);
    if (outcome->kind == KernelOutcome::Kind::Unsupported) {
      step.status = StepStatus::NotExecuted;
      step.reason = outcome->reason;
    }
    return std::optional<size_t>{};
  }
  if (const auto* call = std::get_if<program::DelegateCall>(&instruction.data)) {
    const auto& delegates = program::items(method.delegates);
    if (call->delegate_index < 0 || size_t(call->delegate_index) >= delegates.size())
      return makeError(here + ": delegate index " + std::to_string(call->delegate_index) + " is out of range");
    // The step's label already names the delegate's backend ("delegate
    // CudaBackend"), and its instruction number tells two of one backend apart.
    // That a step not executed leaves its outputs as they were is said once,
    // by whoever lists the steps, not on every line.
    step.status = StepStatus::NotExecuted;
    step.reason = "ptescope cannot run this backend";
    return std::optional<size_t>{};
  }
  if (const auto* move = std::get_if<program::MoveCall>(&instruction.data)) {
    if (auto status = checkValue(move->move_from, here + " (move)"); !status) return status.error();
    if (auto status = checkValue(move->move_to, here + " (move)"); !status) return status.error();
    // As the runtime's EValue assignment: the destination now refers to the
    // same tensor (or holds the same scalar).
    current[size_t(move->move_to)] = current[size_t(move->move_from)];
    return std::optional<size_t>{};
  }
  if (const auto* jump = std::get_if<program::JumpFalseCall>(&instruction.data)) {
    if (auto status = checkValue(jump->cond_value_index, here + " (jump_false)"); !status) return status.error();
    const auto& slot = current[size_t(jump->cond_value_index)];
    bool condition = false;
    if (const auto* b = std::get_if<program::BoolValue>(&slot.literal); b && !slot.tensor) {
      condition = b->value;
    } else if (slot.tensor && slot.tensor->dtype == program::ScalarType::Bool) {
      // A boolean tensor is true when every element is.
      auto bytes = copyFromTensor(*slot.tensor);
      if (!bytes) return makeError(here + ": " + bytes.error().message);
      condition = std::all_of(bytes->begin(), bytes->end(), [](uint8_t x) { return x != 0; });
    } else {
      return makeError(here + ": JumpFalseCall condition " + valueName(jump->cond_value_index) +
                       " is neither a Bool nor a boolean tensor");
    }
    if (condition) return std::optional<size_t>{};
    if (jump->destination_instruction < 0 || size_t(jump->destination_instruction) > instructions.size())
      return makeError(here + ": jump destination " + std::to_string(jump->destination_instruction) +
                       " is outside its chain (" + std::to_string(instructions.size()) + " instructions)");
    return std::optional<size_t>{size_t(jump->destination_instruction)};
  }
  if (const auto* free = std::get_if<program::FreeCall>(&instruction.data)) {
    if (auto status = checkValue(free->value_index, here + " (free)"); !status) return status.error();
    auto& slot = current[size_t(free->value_index)];
    if (!slot.tensor) return makeError(here + ": FreeCall of " + valueName(free->value_index) + ", which is not a tensor");
    // The runtime resets the tensor's data pointer; a later reader fails.
    slot.tensor->data = nullptr;
    return std::optional<size_t>{};
  }
  return makeError(here + ": the instruction has no arguments");
}

Result<RunRecord> Executor::run(const std::function<bool()>& cancelRequested, RunProgress* progress) {
  State& s = *state_;
  for (size_t v = 0; v < s.current.size(); ++v) {
    // An input keeps the sizes the caller gave it; everything else about
    // its slot (a MoveCall into it, a FreeCall of it) is undone too.
    std::optional<std::vector<int64_t>> inputSizes;
    if (s.is_input[v] && s.current[v].tensor && s.current[v].tensor->value == int32_t(v))
      inputSizes = s.current[v].tensor->sizes;
    s.current[v] = s.bound[v];
    if (inputSizes) s.current[v].tensor->sizes = *inputSizes;
    if (s.input_bytes[v] && s.current[v].tensor) {
      if (auto status = s.copyToTensor(*s.current[v].tensor, *s.input_bytes[v]); !status)
        return makeError("restoring input " + valueName(int32_t(v)) + ": " + status.error().message);
    }
  }
  const size_t total = s.dataflow.instructionCount();
  if (progress != nullptr) {
    progress->step = 0;
    progress->instructions = total;
  }
  const size_t limit = s.options.max_steps ? s.options.max_steps : std::max<size_t>(1000 * total, 1000000);
  RunRecord record;
  record.steps.reserve(total);
  const auto start = Clock::now();
  size_t steps = 0;
  const KernelCancelScope kernelCancel(cancelRequested ? &cancelRequested : nullptr);
  const auto& chains = program::items(s.method.chains);
  for (size_t chain = 0; chain < chains.size(); ++chain) {
    const size_t count = program::items(chains[chain].instructions).size();
    size_t index = 0;
    while (index < count) {
      if (cancelRequested && cancelRequested()) {
        record.cancelled = true;
        record.wall_seconds = secondsSince(start);
        return record;
      }
      if (++steps > limit)
        return makeError("method '" + s.method.displayName() + "' ran " + std::to_string(limit) +
                         " instructions without finishing; a JumpFalseCall loop does not end");
      if (progress != nullptr) progress->step.fetch_add(1, std::memory_order_relaxed);
      StepRecord step;
      const auto stepStart = Clock::now();
      step.start_seconds = std::chrono::duration<double>(stepStart - start).count();
      auto next = s.executeOne(chain, index, step);
      step.host_seconds = secondsSince(stepStart);
      if (!next) {
        // A kernel stopped by Cancel may fail on what it left half done:
        // the run was cancelled, whatever the kernel said.
        if (cancelRequested && cancelRequested()) {
          record.cancelled = true;
          record.wall_seconds = secondsSince(start);
          return record;
        }
        return next.error();
      }
      record.steps.push_back(std::move(step));
      index = next->value_or(index + 1);
    }
  }
  // A kernel that saw the cancel stopped early: its output is not a result.
  record.cancelled = cancelRequested && cancelRequested();
  record.wall_seconds = secondsSince(start);
  return record;
}

Result<StepRecord> Executor::executeInstruction(size_t flatIndex) {
  State& s = *state_;
  if (flatIndex >= s.dataflow.instructionCount())
    return makeError("instruction " + std::to_string(flatIndex) + " is out of range (" +
                     std::to_string(s.dataflow.instructionCount()) + " instructions)");
  size_t chain = 0;
  while (chain + 1 < s.chain_starts.size() && s.chain_starts[chain + 1] <= flatIndex) ++chain;
  StepRecord step;
  const auto start = Clock::now();
  auto next = s.executeOne(chain, flatIndex - s.chain_starts[chain], step);
  step.host_seconds = secondsSince(start);
  if (!next) return next.error();
  return step;
}

}  // namespace ptescope::exec
