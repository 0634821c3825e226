// Calls one CPU kernel from the builtin registry on values a test makes up,
// with the argument list exactly as upstream's emitter writes it (the
// schema's arguments, outs last, then the return value again or one
// TensorList of the outs). Header-only; used by tests/core/test_kernels_*.
#pragma once

#include <cmath>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "exec/HostRuntime.h"
#include "exec/Kernels.h"
#include "exec/kernels/KernelSupport.h"

namespace ptescope::testing {

class KernelHarness final : public exec::KernelContext {
 public:
  using ScalarType = program::ScalarType;

  // A tensor holding `values` converted to `dtype`.
  int32_t tensor(ScalarType dtype, std::vector<int64_t> sizes, const std::vector<double>& values) {
    const int32_t id = addSlot();
    Slot& s = slots_[size_t(id)];
    s.storage.assign(size_t(exec::kernels::numelOf(sizes)) * size_t(program::elementSize(dtype)) + 8, 0);
    const auto codec = exec::kernels::codecFor(dtype);
    for (size_t i = 0; i < values.size() && i < size_t(exec::kernels::numelOf(sizes)); ++i)
      codec.store(s.storage.data() + i * size_t(codec.size), values[i]);
    s.tensor = makeRef(id, dtype, std::move(sizes), s.storage);
    return id;
  }
  // An int64 tensor from exact integers.
  int32_t longs(std::vector<int64_t> sizes, const std::vector<int64_t>& values) {
    const int32_t id = tensor(ScalarType::Long, std::move(sizes), {});
    std::memcpy(slots_[size_t(id)].storage.data(), values.data(), values.size() * 8);
    return id;
  }
  // An output with room for `capacityElements` (dynamic, so kernels resize it).
  int32_t output(ScalarType dtype, int64_t capacityElements, std::vector<int64_t> initialSizes = {}) {
    const int32_t id = addSlot();
    Slot& s = slots_[size_t(id)];
    s.storage.assign(size_t(capacityElements) * size_t(program::elementSize(dtype)) + 8, 0xAB);
    if (initialSizes.empty()) initialSizes = {capacityElements};
    s.tensor = makeRef(id, dtype, std::move(initialSizes), s.storage);
    s.tensor->dynamism = program::ShapeDynamism::DynamicBound;
    s.tensor->capacity = uint64_t(capacityElements) * uint64_t(program::elementSize(dtype));
    return id;
  }
  // A static output of exactly `sizes`.
  int32_t staticOutput(ScalarType dtype, std::vector<int64_t> sizes) {
    const int64_t n = exec::kernels::numelOf(sizes);
    const int32_t id = output(dtype, n, sizes);
    slots_[size_t(id)].tensor->dynamism = program::ShapeDynamism::Static;
    return id;
  }
  int32_t integer(int64_t v) { return literal(program::IntValue{v}); }
  int32_t real(double v) { return literal(program::DoubleValue{v}); }
  int32_t boolean(bool v) { return literal(program::BoolValue{v}); }
  int32_t none() { return literal(program::NoneValue{}); }
  int32_t text(std::string v) { return literal(program::StringValue{std::move(v)}); }
  int32_t ints(const std::vector<int64_t>& items) {
    std::vector<int64_t> ids;
    for (int64_t v : items) ids.push_back(integer(v));
    return literal(program::IntListValue{ids});
  }
  int32_t doubles(std::vector<double> items) { return literal(program::DoubleListValue{std::move(items)}); }
  int32_t list(std::vector<int32_t> tensors) { return literal(program::TensorListValue{std::move(tensors)}); }
  int32_t optionalList(std::vector<int32_t> tensorsOrMinusOne) {
    return literal(program::OptionalTensorListValue{std::move(tensorsOrMinusOne)});
  }
  void makeConstant(int32_t id) { slots_[size_t(id)].tensor->writable = false; }

  // Runs `op` on `args`.
  exec::KernelResult call(std::string_view op, std::vector<int32_t> args) {
    const exec::Kernel* kernel = exec::KernelRegistry::builtin().find(op);
    if (kernel == nullptr) return makeError("no kernel " + std::string(op));
    args_ = std::move(args);
    return (*kernel)(*this);
  }

  std::vector<double> values(int32_t id) const {
    const auto& t = *slots_[size_t(id)].tensor;
    const auto codec = exec::kernels::codecFor(t.dtype);
    std::vector<double> out(size_t(t.numel()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = codec.load(t.data + i * size_t(codec.size));
    return out;
  }
  std::vector<int64_t> longValues(int32_t id) const {
    const auto& t = *slots_[size_t(id)].tensor;
    std::vector<int64_t> out(size_t(t.numel()));
    std::memcpy(out.data(), t.data, out.size() * 8);
    return out;
  }
  std::vector<int64_t> sizes(int32_t id) const { return slots_[size_t(id)].tensor->sizes; }
  const program::ValueData& valueOf(int32_t id) const { return slots_[size_t(id)].literal; }
  exec::TensorRef& ref(int32_t id) { return *slots_[size_t(id)].tensor; }

  // KernelContext
  size_t argCount() const override { return args_.size(); }
  int32_t valueIndex(size_t arg) const override { return args_.at(arg); }
  program::ValueKind kind(size_t arg) const override {
    const Slot& s = slots_[size_t(args_.at(arg))];
    return s.tensor ? program::ValueKind::Tensor : static_cast<program::ValueKind>(s.literal.index());
  }
  exec::TensorRef* tensor(size_t arg) override { return tensorAt(args_.at(arg)); }
  const program::ValueData& literal(size_t arg) const override { return slots_[size_t(args_.at(arg))].literal; }
  const program::ValueData* literalAt(int32_t value) const override {
    return value >= 0 && size_t(value) < slots_.size() ? &slots_[size_t(value)].literal : nullptr;
  }
  exec::TensorRef* tensorAt(int32_t value) override {
    if (value < 0 || size_t(value) >= slots_.size()) return nullptr;
    auto& s = slots_[size_t(value)];
    return s.tensor ? &*s.tensor : nullptr;
  }
  Status setLiteral(size_t arg, program::ValueData value) override {
    slots_[size_t(args_.at(arg))].literal = std::move(value);
    return Ok{};
  }
  exec::DeviceRuntime& runtime() override { return runtime_; }
  void recordCopy(const exec::CopyEvent&) override {}

 private:
  struct Slot {
    program::ValueData literal;
    std::optional<exec::TensorRef> tensor;
    std::vector<uint8_t> storage;
  };
  int32_t addSlot() {
    slots_.emplace_back();
    return int32_t(slots_.size() - 1);
  }
  int32_t literal(program::ValueData data) {
    const int32_t id = addSlot();
    slots_[size_t(id)].literal = std::move(data);
    return id;
  }
  static exec::TensorRef makeRef(int32_t id, ScalarType dtype, std::vector<int64_t> sizes, std::vector<uint8_t>& storage) {
    exec::TensorRef t;
    t.value = id;
    t.dtype = dtype;
    t.sizes = std::move(sizes);
    t.capacity = storage.size();
    t.data = storage.data();
    t.memory = exec::MemoryPlace::host(exec::HostMemoryKind::Pageable);
    return t;
  }

  std::deque<Slot> slots_;  // stable addresses
  std::vector<int32_t> args_;
  exec::HostRuntime runtime_;
};

}  // namespace ptescope::testing

namespace ptescope::testing {

// True when every element of `got` is within `tolerance` of `want` (NaN
// matches NaN); `why` says where they first differ.
inline bool closeTo(const std::vector<double>& got, const std::vector<double>& want, double tolerance, std::string* why) {
  if (got.size() != want.size()) {
    *why = "got " + std::to_string(got.size()) + " elements, want " + std::to_string(want.size());
    return false;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    const bool bothNan = got[i] != got[i] && want[i] != want[i];
    if (!bothNan && !(std::abs(got[i] - want[i]) <= tolerance)) {
      *why = "element " + std::to_string(i) + ": got " + std::to_string(got[i]) + ", want " + std::to_string(want[i]);
      return false;
    }
  }
  return true;
}

}  // namespace ptescope::testing

// Checks a kernel call succeeded (Done), else fails with its message.
#define KH_DONE(result)                                                                               \
  do {                                                                                                \
    auto _r = (result);                                                                               \
    QVERIFY2(_r.ok(), _r.ok() ? "" : _r.error().message.c_str());                                     \
    QVERIFY2(_r->kind == ptescope::exec::KernelOutcome::Kind::Done, _r->reason.c_str());              \
  } while (0)
// Checks a tensor's values.
#define KH_VALUES(harness, id, tolerance, ...)                                                        \
  do {                                                                                                \
    std::string _why;                                                                                 \
    QVERIFY2(ptescope::testing::closeTo((harness).values(id), std::vector<double>__VA_ARGS__, (tolerance), &_why), \
             _why.c_str());                                                                           \
  } while (0)
#define KH_SIZES(harness, id, ...) QCOMPARE((harness).sizes(id), (std::vector<int64_t>__VA_ARGS__))
