// Every lint rule PTS001-PTS021 (core/analysis/Diagnostics), one table:
// for each rule a program that triggers it, checked for the rule's id,
// severity, slug and location (method, instruction, value, delegate), and a
// near twin that differs in the one thing the rule is about and does not
// trigger it. Programs come from core/synth (a JSON spec or ProgramBuilder),
// run through the device passes where the rule is about a file upstream
// would write, then changed by one targeted edit of the model.
#include <QtTest>

#include <functional>
#include <set>
#include <string>
#include <tuple>

#include "analysis/Diagnostics.h"
#include "support/TestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/ProgramBuilder.h"
#include "synth/Scenarios.h"

using namespace ptescope;
using namespace ptescope::program;
using analysis::Diagnostic;
using analysis::Severity;

namespace {

// ---- programs -------------------------------------------------------------

// a + b in one delegate on `target` (a target_device value; empty: no
// target_device spec), 2×2 float32, with these spec options (a JSON object).
std::string addSpec(const std::string& target, const std::string& options = "{}") {
  const std::string specs = target.empty() ? R"({"max_value": [4]})"
                                           : R"({"max_value": [4], "target_device": ")" + target + R"("})";
  return R"({"methods": [{"name": "forward", "inputs": ["a", "b"], "outputs": ["y"],
    "tensors": {"a": {"dtype": "float32", "sizes": [2, 2]}, "b": {"dtype": "float32", "sizes": [2, 2]},
                "y": {"dtype": "float32", "sizes": [2, 2]}},
    "nodes": [{"delegate": "BackendWithCompilerDemo", "compile_specs": )" +
         specs + R"(, "inputs": ["a", "b"], "outputs": ["y"], "blob": "demo"}]}],
    "options": )" + options + "}";
}

// Method `name`: sin(a + b), the add delegated to cuda:0, sin on CPU.
std::string addThenSinMethod(const std::string& name) {
  return R"({"name": ")" + name + R"(", "inputs": ["a", "b"], "outputs": ["d"],
  "tensors": {"a": {"dtype": "float32", "sizes": [2, 2]}, "b": {"dtype": "float32", "sizes": [2, 2]},
              "c": {"dtype": "float32", "sizes": [2, 2]}, "d": {"dtype": "float32", "sizes": [2, 2]}},
  "nodes": [{"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"}, "inputs": ["a", "b"],
             "outputs": ["c"]},
            {"op": "aten::sin.out", "inputs": ["c"], "outputs": ["d"]}]})";
}
const std::string kAddThenSin = R"({"methods": [)" + addThenSinMethod("forward") + "]}";

// y = a * w on cuda:0 where w is a stored constant.
const char* const kConstantIntoDelegate = R"({"methods": [{"name": "forward", "inputs": ["a"], "outputs": ["y"],
  "tensors": {"a": {"dtype": "float32", "sizes": [2, 2]}, "y": {"dtype": "float32", "sizes": [2, 2]}},
  "constants": {"w": {"dtype": "float32", "sizes": [2, 2], "fill": 0.5}},
  "nodes": [{"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"}, "inputs": ["a", "w"],
             "outputs": ["y"]}]}]})";

// x → TensorRTBackend (target_device `target`, blob fields `trt`) → y.
std::string trtSpec(const std::string& target, const std::string& trt, const std::string& options = "{}") {
  return R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["y"],
    "tensors": {"x": {"dtype": "float32", "sizes": [2, 2]}, "y": {"dtype": "float32", "sizes": [2, 2]}},
    "nodes": [{"delegate": "TensorRTBackend", "compile_specs": {"target_device": ")" +
         target + R"("}, "tensorrt": )" + trt + R"(, "inputs": ["x"], "outputs": ["y"]}]}], "options": )" + options + "}";
}

// x, k → TensorRTBackend (cuda:0, blob fields `trt`) → y, k2, with options.
std::string kvSpec(const std::string& trt, const std::string& options) {
  return R"({"methods": [{"name": "forward", "inputs": ["x", "k"], "outputs": ["y", "k2"],
    "tensors": {"x": {"dtype": "float32", "sizes": [2, 2]}, "y": {"dtype": "float32", "sizes": [2, 2]},
                "k": {"dtype": "float32", "sizes": [2, 2]}, "k2": {"dtype": "float32", "sizes": [2, 2]}},
    "nodes": [{"delegate": "TensorRTBackend", "compile_specs": {"target_device": "cuda:0"}, "tensorrt": )" +
         trt + R"(, "inputs": ["x", "k"], "outputs": ["y", "k2"]}]}], "options": )" + options + "}";
}

struct Built {
  Program program;
  QString error;
};

Built fromSpec(const std::string& json, bool devicePasses) {
  auto synthesized = synth::synthesizeFromSpec(json);
  if (!synthesized) return {{}, QString::fromStdString(synthesized.error().message)};
  if (!devicePasses) return {synthesized->program, {}};
  auto passed = synth::applyDevicePasses(synthesized.value());
  if (!passed) return {{}, QString::fromStdString(passed.error().message)};
  return {passed.value(), {}};
}

// x on the host → delegate 0 (cuda:0) → D2H → H2D back to `back` → delegate 1
// (on `back`) → D2H → y: the round trip of an un-elided same-device pair
// when `back` is cuda:0, a real cross-device hop when it is cuda:1. Written
// with explicit copies, as a file ptescope did not make could hold them.
Built roundTrip(Device back) {
  const Device cuda0{DeviceType::Cuda, 0};
  synth::ProgramBuilder builder;
  auto& m = builder.addMethod("forward");
  auto tensor = [&](Device device) {
    auto v = m.addTensor(ScalarType::Float, {2, 2});
    m.setDevice(v, device);
    return v;
  };
  const auto x = tensor({}), xDev = tensor(cuda0), t = tensor(cuda0), tHost = tensor({}), tBack = tensor(back),
             u = tensor(back), y = tensor({});
  auto target = [](Device d) { return synth::textCompileSpec("target_device", d.str()); };
  m.addKernelCall("et_copy::_h2d_copy.out", {x}, {xDev});
  m.addDelegateCall("CudaBackend", {target(cuda0)}, {}, {xDev}, {t});
  m.addKernelCall("et_copy::_d2h_copy.out", {t}, {tHost});
  m.addKernelCall("et_copy::_h2d_copy.out", {tHost}, {tBack});
  m.addDelegateCall("CudaBackend", {target(back)}, {}, {tBack}, {u});
  m.addKernelCall("et_copy::_d2h_copy.out", {u}, {y});
  m.setInputs({x});
  m.setOutputs({y});
  auto built = builder.build();
  if (!built) return {{}, QString::fromStdString(built.error().message)};
  return {built.value(), {}};
}

// ---- reading and editing the model ------------------------------------------

Method& forward(Program& p) { return p.methods().front(); }

constexpr size_t kNone = size_t(-1);

Instruction* instructionAt(Method& m, size_t flat) {
  for (auto& chain : ensure(m.chains))
    for (auto& ins : ensure(chain.instructions))
      if (flat-- == 0) return &ins;
  return nullptr;
}

std::string opName(const Method& m, const KernelCall& call) {
  const auto& ops = items(m.operators);
  if (call.op_index < 0 || size_t(call.op_index) >= ops.size()) return {};
  const Operator& op = ops[size_t(call.op_index)];
  return op.name.value_or("") + (op.overload && !op.overload->empty() ? "." + *op.overload : "");
}

// Flat index of the `occurrence`-th kernel call of `op` ("aten::sin.out"), or
// of the `occurrence`-th delegate call when `op` is empty; kNone if absent.
size_t findInstruction(const Method& m, const std::string& op, size_t occurrence = 0) {
  size_t flat = 0;
  for (const auto& chain : items(m.chains))
    for (const auto& ins : items(chain.instructions)) {
      const auto* kernel = std::get_if<KernelCall>(&ins.data);
      const bool match = op.empty() ? std::holds_alternative<DelegateCall>(ins.data)
                                    : kernel != nullptr && opName(m, *kernel) == op;
      if (match && occurrence-- == 0) return flat;
      ++flat;
    }
  return kNone;
}

// The arguments of an instruction (a copy; empty when there is none).
std::vector<int32_t> argsAt(Method& m, size_t flat) {
  Instruction* ins = flat == kNone ? nullptr : instructionAt(m, flat);
  if (ins == nullptr) return {};
  if (auto* k = std::get_if<KernelCall>(&ins->data)) return items(k->args);
  if (auto* d = std::get_if<DelegateCall>(&ins->data)) return items(d->args);
  return {};
}

// The edits below change the model through these two. When the program does
// not have the shape a case expects, they fail the test and hand out a
// scratch object instead of reaching outside the model.
int32_t& argAt(Method& m, size_t flat, size_t i) {
  static int32_t scratch;
  scratch = -1;
  Instruction* ins = flat == kNone ? nullptr : instructionAt(m, flat);
  std::vector<int32_t>* args = nullptr;
  if (ins != nullptr) {
    if (auto* k = std::get_if<KernelCall>(&ins->data)) args = &ensure(k->args);
    if (auto* d = std::get_if<DelegateCall>(&ins->data)) args = &ensure(d->args);
  }
  if (args == nullptr || i >= args->size()) {
    QTest::qFail(qPrintable(QString("no argument %1 at instruction %2").arg(i).arg(qlonglong(flat))), __FILE__, __LINE__);
    return scratch;
  }
  return (*args)[i];
}

Tensor& tensorAt(Method& m, int32_t v) {
  static Tensor scratch;
  scratch = Tensor{};
  auto& values = ensure(m.values);
  if (v < 0 || size_t(v) >= values.size() || values[size_t(v)].tensor() == nullptr) {
    QTest::qFail(qPrintable(QString("value %1 is not a tensor").arg(v)), __FILE__, __LINE__);
    return scratch;
  }
  return *values[size_t(v)].tensor();
}

const std::string kH2d = "et_copy::_h2d_copy.out";
const std::string kD2h = "et_copy::_d2h_copy.out";

void setTargetDevice(Program& p, int32_t delegate, const std::string& text) {
  for (auto& spec : ensure(ensure(forward(p).delegates)[size_t(delegate)].compile_specs))
    if (spec.key == "target_device") spec.value = std::vector<uint8_t>(text.begin(), text.end());
}

// ---- the table ---------------------------------------------------------------

// Where a finding points inside its method.
struct Where {
  std::optional<size_t> instruction;
  std::optional<int32_t> value;
  std::optional<int32_t> delegate;
  auto tie() const { return std::tie(instruction, value, delegate); }
  friend bool operator<(const Where& a, const Where& b) { return a.tie() < b.tie(); }
  friend bool operator==(const Where& a, const Where& b) { return a.tie() == b.tie(); }
};

QString describe(const std::set<Where>& places) {
  QStringList out;
  for (const auto& w : places)
    out << QString("{instruction %1, value %2, delegate %3}")
               .arg(w.instruction ? QString::number(*w.instruction) : "-", w.value ? QString::number(*w.value) : "-",
                    w.delegate ? QString::number(*w.delegate) : "-");
  return "[" + out.join(", ") + "]";
}

struct Case {
  Built trigger;
  Built twin;
  std::set<Where> expected;  // every finding of the rule in `trigger`
  std::string method = "forward";  // where they all are
};

struct Rule {
  const char* name;  // row name
  const char* id;
  const char* slug;
  Severity severity;
  std::function<Case()> make;
};

Where atValue(int32_t v) { return Where{std::nullopt, v, std::nullopt}; }
Where atInstruction(size_t k) { return Where{k, std::nullopt, std::nullopt}; }
Where atInstructionValue(size_t k, int32_t v) { return Where{k, v, std::nullopt}; }
Where atDelegate(int32_t d) { return Where{std::nullopt, std::nullopt, d}; }

// The canonical a+b on cuda:0 after the passes (spec §2.3): H2D a→A', H2D
// b→B', delegate, D2H Y→y. `edit` changes the trigger only.
Case editedAdd(const std::function<std::set<Where>(Program&)>& edit) {
  Case c{fromSpec(addSpec("cuda:0"), true), fromSpec(addSpec("cuda:0"), true), {}};
  if (c.trigger.error.isEmpty()) c.expected = edit(c.trigger.program);
  return c;
}

// Output of the `occurrence`-th copy `op` of the canonical program.
int32_t copyOutput(Program& p, const std::string& op, size_t occurrence = 0) {
  return argAt(forward(p), findInstruction(forward(p), op, occurrence), 1);
}

const Device kCuda0{DeviceType::Cuda, 0};

const std::vector<Rule>& rules() {
  static const std::vector<Rule> table = {
      // Graph inputs planned into the device arena: skip_h2d with upstream's
      // default alloc_graph_input (spec §2.6). Twin: the documented pairing.
      {"PTS001 skip_h2d with planned inputs", "PTS001", "planned-device-input", Severity::Error,
       [] {
         Case c{fromSpec(addSpec("cuda:0", R"({"skip_h2d_for_method_inputs": true})"), true),
                fromSpec(addSpec("cuda:0", R"({"skip_h2d_for_method_inputs": true, "alloc_graph_input": false})"), true),
                {}};
         for (int32_t v : items(forward(c.trigger.program).inputs)) c.expected.insert(atValue(v));
         return c;
       }},
      {"PTS002 skip_d2h with planned outputs", "PTS002", "planned-device-output", Severity::Warning,
       [] {
         Case c{fromSpec(addSpec("cuda:0", R"({"skip_d2h_for_method_outputs": true})"), true),
                fromSpec(addSpec("cuda:0", R"({"skip_d2h_for_method_outputs": true, "alloc_graph_output": false})"), true),
                {}};
         for (int32_t v : items(forward(c.trigger.program).outputs)) c.expected.insert(atValue(v));
         return c;
       }},
      // A' (cuda:0) moved into the CPU arena (buffer 1).
      {"PTS003 device tensor in the CPU buffer", "PTS003", "tensor-buffer-device-mismatch", Severity::Error,
       [] {
         return editedAdd([](Program& p) -> std::set<Where> {
           const int32_t a = copyOutput(p, kH2d);
           Tensor& t = tensorAt(forward(p), a);
           if (!t.allocation_info) return {};
           t.allocation_info->memory_id = 1;
           return {atValue(a)};
         });
       }},
      // The H2D's destination A' retagged to the host.
      {"PTS004 h2d into a host tensor", "PTS004", "copy-wrong-devices", Severity::Error,
       [] {
         return editedAdd([](Program& p) -> std::set<Where> {
           tensorAt(forward(p), copyOutput(p, kH2d)).setDevice({});
           return {atInstruction(findInstruction(forward(p), kH2d))};
         });
       }},
      // The D2H's source Y retagged to the host.
      {"PTS004 d2h from a host tensor", "PTS004", "copy-wrong-devices", Severity::Error,
       [] {
         return editedAdd([](Program& p) -> std::set<Where> {
           const size_t k = findInstruction(forward(p), kD2h);
           tensorAt(forward(p), argAt(forward(p), k, 0)).setDevice({});
           return {atInstruction(k)};
         });
       }},
      // A' made int32: same bytes, other dtype.
      {"PTS005 float32 into int32", "PTS005", "copy-dtype-mismatch", Severity::Error,
       [] {
         return editedAdd([](Program& p) -> std::set<Where> {
           tensorAt(forward(p), copyOutput(p, kH2d)).scalar_type = ScalarType::Int;
           return {atInstruction(findInstruction(forward(p), kH2d))};
         });
       }},
      // A' given a static [4] shape: as many bytes, another shape.
      {"PTS006 static shape differs", "PTS006", "copy-size-mismatch", Severity::Error,
       [] {
         return editedAdd([](Program& p) -> std::set<Where> {
           tensorAt(forward(p), copyOutput(p, kH2d)).sizes = std::vector<int32_t>{4};
           return {atInstruction(findInstruction(forward(p), kH2d))};
         });
       }},
      // A' with a dynamic bound of [2, 1]: too small. Twin: a bound of [2, 3]
      // that covers the source (the rule's own exception).
      {"PTS006 dynamic bound too small", "PTS006", "copy-size-mismatch", Severity::Error,
       [] {
         auto bound = [](Program& p, std::vector<int32_t> sizes) {
           Tensor& t = tensorAt(forward(p), copyOutput(p, kH2d));
           t.sizes = std::move(sizes);
           t.shape_dynamism = ShapeDynamism::DynamicBound;
         };
         Case c = editedAdd([&](Program& p) -> std::set<Where> {
           bound(p, {2, 1});
           return {atInstruction(findInstruction(forward(p), kH2d))};
         });
         if (c.twin.error.isEmpty()) bound(c.twin.program, {2, 3});
         return c;
       }},
      {"PTS007 target_device cpu", "PTS007", "target-device-cpu", Severity::Warning,
       [] {
         return editedAdd([](Program& p) -> std::set<Where> {
           setTargetDevice(p, 0, "cpu");
           return {atDelegate(0)};
         });
       }},
      // Twin: "CUDA:0", which upstream reads case-insensitively (test 15).
      {"PTS008 target_device tpu:0", "PTS008", "bad-target-device", Severity::Error,
       [] {
         Case c = editedAdd([](Program& p) -> std::set<Where> {
           setTargetDevice(p, 0, "tpu:0");
           return {atDelegate(0)};
         });
         if (c.twin.error.isEmpty()) setTargetDevice(c.twin.program, 0, "CUDA:0");
         return c;
       }},
      {"PTS008 target_device cuda:x", "PTS008", "bad-target-device", Severity::Error,
       [] {
         return editedAdd([](Program& p) -> std::set<Where> {
           setTargetDevice(p, 0, "cuda:x");
           return {atDelegate(0)};
         });
       }},
      // Twin: cuda:15, the highest index the rule accepts.
      {"PTS009 delegate on cuda:16", "PTS009", "unusual-device-index", Severity::Warning,
       [] {
         Case c = editedAdd([](Program& p) -> std::set<Where> {
           setTargetDevice(p, 0, "cuda:16");
           return {atDelegate(0)};
         });
         if (c.twin.error.isEmpty()) setTargetDevice(c.twin.program, 0, "cuda:15");
         return c;
       }},
      {"PTS009 delegate on cuda:-1", "PTS009", "unusual-device-index", Severity::Warning,
       [] {
         return editedAdd([](Program& p) -> std::set<Where> {
           setTargetDevice(p, 0, "cuda:-1");
           return {atDelegate(0)};
         });
       }},
      {"PTS009 tensor on cuda:-1", "PTS009", "unusual-device-index", Severity::Warning,
       [] {
         return editedAdd([](Program& p) -> std::set<Where> {
           const int32_t a = copyOutput(p, kH2d);
           tensorAt(forward(p), a).setDevice(Device{DeviceType::Cuda, -1});
           return {atValue(a)};
         });
       }},
      // The CUDA buffer's entry in non_const_buffer_device says cuda:20: a
      // finding about the method, no instruction, value or delegate.
      {"PTS009 buffer on cuda:20", "PTS009", "unusual-device-index", Severity::Warning,
       [] {
         return editedAdd([](Program& p) -> std::set<Where> {
           auto& devices = ensure(forward(p).non_const_buffer_device);
           if (devices.empty()) return {};
           devices.front().device_index = 20;
           return {Where{}};
         });
       }},
      {"PTS010 tensor with device type 2", "PTS010", "unknown-device-type", Severity::Error,
       [] {
         return editedAdd([](Program& p) -> std::set<Where> {
           const int32_t a = copyOutput(p, kH2d);
           tensorAt(forward(p), a).setDevice(Device{static_cast<DeviceType>(2), 0});
           return {atValue(a)};
         });
       }},
      {"PTS010 buffer with device type 7", "PTS010", "unknown-device-type", Severity::Error,
       [] {
         return editedAdd([](Program& p) -> std::set<Where> {
           auto& devices = ensure(forward(p).non_const_buffer_device);
           if (devices.empty()) return {};
           devices.front().device_type = static_cast<DeviceType>(7);
           return {Where{}};
         });
       }},
      // The delegate reads the constant w itself, as upstream writes it.
      // Twin: the same program after ptescope's passes, which copy w to the
      // device first (README, propagate).
      {"PTS011 constant read by a device delegate", "PTS011", "constant-feeds-device-delegate", Severity::Warning,
       [] {
         Case c{fromSpec(kConstantIntoDelegate, false), fromSpec(kConstantIntoDelegate, true), {}};
         if (!c.trigger.error.isEmpty()) return c;
         Method& m = forward(c.trigger.program);
         const size_t k = findInstruction(m, "");
         for (int32_t v : argsAt(m, k))
           if (tensorAt(m, v).isConstant()) c.expected.insert(atInstructionValue(k, v));
         return c;
       }},
      // A planned CUDA tensor (A') with initial data, as a mutable buffer.
      // Twin: the same edit on the planned CPU tensor a.
      {"PTS012 device tensor with initial data", "PTS012", "device-mutable-buffer", Severity::Error,
       [] {
         Case c = editedAdd([](Program& p) -> std::set<Where> {
           const int32_t a = copyOutput(p, kH2d);
           tensorAt(forward(p), a).data_buffer_idx = 1;
           return {atValue(a)};
         });
         if (c.twin.error.isEmpty()) {
           Method& m = forward(c.twin.program);
           tensorAt(m, argAt(m, findInstruction(m, kH2d), 0)).data_buffer_idx = 1;
         }
         return c;
       }},
      // Twin: the copy goes back to another device (cuda:1), a real hop.
      {"PTS013 d2h then h2d to the same device", "PTS013", "round-trip-not-elided", Severity::Warning,
       [] {
         Case c{roundTrip(kCuda0), roundTrip(Device{DeviceType::Cuda, 1}), {}};
         if (c.trigger.error.isEmpty()) c.expected = {atInstruction(findInstruction(forward(c.trigger.program), kH2d, 1))};
         return c;
       }},
      // The pre-pass graph (no copies yet) has the delegate read a and b on
      // the host. Twin: the same graph after the passes.
      {"PTS014 device delegate reads host inputs", "PTS014", "host-tensor-into-device-delegate", Severity::Error,
       [] {
         Case c{fromSpec(addSpec("cuda:0"), false), fromSpec(addSpec("cuda:0"), true), {}};
         if (!c.trigger.error.isEmpty()) return c;
         const size_t k = findInstruction(forward(c.trigger.program), "");
         for (int32_t v : items(forward(c.trigger.program).inputs)) c.expected.insert(atInstructionValue(k, v));
         return c;
       }},
      // sin reads the delegate's CUDA output instead of its D2H copy.
      {"PTS015 CPU kernel reads a device tensor", "PTS015", "device-tensor-into-host-kernel", Severity::Error,
       [] {
         Case c{fromSpec(kAddThenSin, true), fromSpec(kAddThenSin, true), {}};
         if (!c.trigger.error.isEmpty()) {
           return c;
         }
         Method& m = forward(c.trigger.program);
         const size_t d2h = findInstruction(m, kD2h), sin = findInstruction(m, "aten::sin.out");
         if (d2h == kNone || sin == kNone) return c;
         argAt(m, sin, 0) = argAt(m, d2h, 0);
         c.expected = {atInstruction(sin)};
         return c;
       }},
      // Two methods, the finding in the second: it names that method.
      {"PTS015 in the second method", "PTS015", "device-tensor-into-host-kernel", Severity::Error,
       [] {
         const std::string two = R"({"methods": [)" + addThenSinMethod("forward") + ", " +
                                 addThenSinMethod("encode") + "]}";
         Case c{fromSpec(two, true), fromSpec(two, true), {}, "encode"};
         if (!c.trigger.error.isEmpty()) return c;
         Method* m = c.trigger.program.findMethod("encode");
         if (m == nullptr) return c;
         const size_t d2h = findInstruction(*m, kD2h), sin = findInstruction(*m, "aten::sin.out");
         if (d2h == kNone || sin == kNone) return c;
         argAt(*m, sin, 0) = argAt(*m, d2h, 0);
         c.expected = {atInstruction(sin)};
         return c;
       }},
      // sin's output retagged to cuda:0: the kernel would write device memory.
      {"PTS015 CPU kernel writes a device tensor", "PTS015", "device-tensor-into-host-kernel", Severity::Error,
       [] {
         Case c{fromSpec(kAddThenSin, true), fromSpec(kAddThenSin, true), {}};
         if (!c.trigger.error.isEmpty()) return c;
         Method& m = forward(c.trigger.program);
         const size_t sin = findInstruction(m, "aten::sin.out");
         if (sin == kNone) return c;
         const int32_t d = argAt(m, sin, 1);
         tensorAt(m, d).setDevice(kCuda0);
         c.expected = {atInstruction(sin)};
         return c;
       }},
      // A TensorRT engine built for cuda:1 (blob device_id) whose
      // target_device says cuda:0. Twin: target_device cuda:1.
      {"PTS016 TensorRT device_id vs target_device", "PTS016", "tensorrt-device-mismatch", Severity::Warning,
       [] {
         Case c{fromSpec(trtSpec("cuda:0", R"({"engine": "e", "device_id": 1})"), true),
                fromSpec(trtSpec("cuda:1", R"({"engine": "e", "device_id": 1})"), true), {}};
         c.expected = {atDelegate(0)};
         return c;
       }},
      // A TensorRTBackend delegate whose blob is not a TensorRT blob. Twin:
      // the blob synth writes.
      {"PTS017 TensorRT blob unreadable", "PTS017", "tensorrt-blob-unreadable", Severity::Error,
       [] {
         std::string broken = trtSpec("cuda:0", R"({"engine": "e"})");
         broken.replace(broken.find(R"("tensorrt": {"engine": "e"})"), std::string(R"("tensorrt": {"engine": "e"})").size(),
                        R"("blob": "TR01 but far too short")");
         Case c{fromSpec(broken, true), fromSpec(trtSpec("cuda:0", R"({"engine": "e"})"), true), {}};
         c.expected = {atDelegate(0)};
         return c;
       }},
      // Legacy mode: the aliased KV input k of a TensorRT delegate is host
      // memory, which the backend refuses before any copy. Twin: device
      // planning on, k arrives in the cuda arena by et_copy.
      {"PTS018 TensorRT aliased input in host memory", "PTS018", "delegate-refuses-argument", Severity::Error,
       [] {
         const std::string trt = R"({"engine": "e", "aliased_io": [{"output": "k2", "input": "k"}]})";
         Case c{fromSpec(kvSpec(trt, R"({"enable_non_cpu_memory_planning": false})"), true),
                fromSpec(kvSpec(trt, "{}"), true), {}};
         if (c.trigger.error.isEmpty()) c.expected = {Where{0, items(forward(c.trigger.program).inputs)[1], 0}};
         return c;
       }},
      // Legacy mode: the TensorRT delegate stages x in and y out itself (an
      // info finding each, at the delegate call). Twin: device planning on,
      // et_copy at both boundaries.
      {"PTS019 TensorRT staging", "PTS019", "copy-inside-delegate", Severity::Info,
       [] {
         Case c{fromSpec(trtSpec("cuda:0", R"({"engine": "e"})", R"({"enable_non_cpu_memory_planning": false})"), true),
                fromSpec(trtSpec("cuda:0", R"({"engine": "e"})"), true), {}};
         if (c.trigger.error.isEmpty()) {
           const Method& m = forward(c.trigger.program);
           c.expected = {Where{0, items(m.inputs)[0], 0}, Where{0, items(m.outputs)[0], 0}};
         }
         return c;
       }},
      // A CudaBackend delegate whose weights blob is in no .ptd (the export
      // wrote aoti_cuda_blob.ptd; the program was copied without it): init
      // fails. Twin: the same program with its data attached.
      {"PTS020 AOTI weights missing", "PTS020", "delegate-data-missing", Severity::Error,
       [] {
         const std::string spec = R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["y"],
             "tensors": {"x": {"dtype": "float32", "sizes": [4]}, "y": {"dtype": "float32", "sizes": [4]}},
             "nodes": [{"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"},
                        "aoti": {"so": "so bytes", "weights": "weight bytes"}, "inputs": ["x"], "outputs": ["y"]}]}]})";
         Case c{fromSpec(spec, true), fromSpec(spec, true), {}};
         if (c.trigger.error.isEmpty()) {
           c.trigger.program.external_data.clear();
           c.expected = {atDelegate(0)};
         }
         return c;
       }},
      // A CudaBackend delegate with empty processed bytes: init takes the
      // keys from its method_name (upstream's resolve_blob_keys:
      // "enc_so_blob", "enc_weights_blob") and fails when no file holds
      // them. Twin: the same program with a .ptd holding both.
      {"PTS020 AOTI keys from method_name missing", "PTS020", "delegate-data-missing", Severity::Error,
       [] {
         const std::string spec = R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["y"],
             "tensors": {"x": {"dtype": "float32", "sizes": [4]}, "y": {"dtype": "float32", "sizes": [4]}},
             "nodes": [{"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0", "method_name": "enc"},
                        "inputs": ["x"], "outputs": ["y"]}]}]})";
         Case c{fromSpec(spec, true), fromSpec(spec, true), {}};
         if (!c.trigger.error.isEmpty() || !c.twin.error.isEmpty()) return c;
         ExternalData ptd;
         ptd.path = "enc.ptd";
         for (const char* key : {"enc_so_blob", "enc_weights_blob"}) ptd.entries.push_back({key, Bytes::copyOf(std::vector<uint8_t>{1, 2, 3}), std::nullopt});
         c.twin.program.external_data.push_back(std::move(ptd));
         c.expected = {atDelegate(0)};
         return c;
       }},
      // A constant stored in a .ptd (EXTERNAL) whose file is not there: the
      // method cannot load. Twin: the same program with its data attached.
      {"PTS021 external constant without its data", "PTS021", "external-data-missing", Severity::Error,
       [] {
         const char* spec = R"({"methods": [{"name": "forward", "inputs": ["a"], "outputs": ["y"],
             "tensors": {"a": {"dtype": "float32", "sizes": [2, 2]}, "y": {"dtype": "float32", "sizes": [2, 2]}},
             "constants": {"w": {"dtype": "float32", "sizes": [2, 2], "fill": 0.5}},
             "nodes": [{"op": "aten::add.out", "inputs": ["a", "w"], "outputs": ["y"]}]}]})";
         Case c{fromSpec(spec, true), fromSpec(spec, true), {}};
         if (!c.trigger.error.isEmpty() || !c.twin.error.isEmpty()) return c;
         // w moves to a .ptd under the key "w": the twin has the file, the
         // trigger has not.
         for (Built* built : {&c.trigger, &c.twin}) {
           Method& m = forward(built->program);
           for (size_t v = 0; v < items(m.values).size(); ++v) {
             auto* t = (*m.values)[v].tensor();
             if (t == nullptr || !t->isConstant()) continue;
             ExtraTensorInfo extra;
             extra.fully_qualified_name = "w";
             extra.location = TensorDataLocation::External;
             t->extra_tensor_info = extra;
             t->data_buffer_idx = 0;
             if (built == &c.trigger) c.expected.insert(atValue(int32_t(v)));
           }
         }
         ExternalData data;
         data.path = "w.ptd";
         data.entries.push_back({"w", Bytes::copyOf(std::vector<uint8_t>(16, 0)), std::nullopt});
         c.twin.program.external_data = {data};
         return c;
       }},
  };
  return table;
}

std::vector<Diagnostic> findingsOf(const std::vector<Diagnostic>& all, const std::string& id) {
  std::vector<Diagnostic> out;
  for (const auto& d : all)
    if (d.id == id) out.push_back(d);
  return out;
}

QString listIds(const std::vector<Diagnostic>& all) {
  QStringList ids;
  for (const auto& d : all) ids << QString::fromStdString(d.id + " at " + d.location());
  return ids.join("; ");
}

}  // namespace

class LintRulesTest : public QObject {
  Q_OBJECT
 private slots:
  // The table covers every rule the linter has, once at least, with the
  // severity and slug the README documents.
  void everyRuleIsInTheTable() {
    std::set<std::string> inTable;
    for (const auto& r : rules()) inTable.insert(r.id);
    std::set<std::string> registered;
    for (const auto& r : analysis::diagnosticRules()) {
      registered.insert(r.id);
      for (const auto& row : rules())
        if (std::string(row.id) == r.id) {
          QCOMPARE(r.severity, row.severity);
          QCOMPARE(std::string(r.slug), std::string(row.slug));
        }
    }
    QCOMPARE(registered.size(), size_t(21));
    QCOMPARE(inTable, registered);
    QCOMPARE(*registered.begin(), std::string("PTS001"));
    QCOMPARE(*registered.rbegin(), std::string("PTS021"));
  }

  void rule_data() {
    QTest::addColumn<int>("row");
    for (size_t i = 0; i < rules().size(); ++i) QTest::newRow(rules()[i].name) << int(i);
  }

  void rule() {
    QFETCH(int, row);
    const Rule& r = rules()[size_t(row)];
    const Case c = r.make();
    if (QTest::currentTestFailed()) return;  // the program did not have the shape the case edits
    QVERIFY2(c.trigger.error.isEmpty(), qPrintable("trigger: " + c.trigger.error));
    QVERIFY2(c.twin.error.isEmpty(), qPrintable("twin: " + c.twin.error));
    QVERIFY2(!c.expected.empty(), "the case names no expected location (the edit did not find its target)");

    const auto triggered = analysis::lintProgram(c.trigger.program);
    const auto found = findingsOf(triggered, r.id);
    std::set<Where> places;
    for (const auto& d : found) {
      QCOMPARE(d.severity, r.severity);
      QCOMPARE(d.slug, std::string(r.slug));
      QCOMPARE(d.method, c.method);
      QVERIFY2(!d.message.empty() && !d.hint.empty(), d.id.c_str());
      QVERIFY(QString::fromStdString(d.location()).startsWith(QString::fromStdString("method '" + c.method + "'")));
      places.insert(Where{d.instruction, d.value, d.delegate});
    }
    QVERIFY2(found.size() == places.size(), "the same place reported twice");
    QVERIFY2(places == c.expected, qPrintable(QString("%1 at %2, expected %3 (all findings: %4)")
                                                  .arg(r.id, describe(places), describe(c.expected),
                                                       listIds(triggered))));
    QCOMPARE(analysis::hasErrors(found), r.severity == Severity::Error);

    const auto quiet = analysis::lintProgram(c.twin.program);
    QVERIFY2(findingsOf(quiet, r.id).empty(), qPrintable("the twin triggers it: " + listIds(quiet)));
  }

  // The location text names every part that is set, in a fixed order.
  // A fix's command runs as written: in a program of several methods it names
  // the method (`propagate --set-device 0=none` alone is refused there: "the
  // program has 2 methods; name one"); a name the shell would split is quoted.
  void fixCommandsNameTheirMethod() {
    const auto spec = [](const char* second) {
      return std::string(R"({"methods": [{"name": "my method", "inputs": ["x"], "outputs": ["y"],
          "tensors": {"x": {"dtype": "float32", "sizes": [4]}, "y": {"dtype": "float32", "sizes": [4]}},
          "nodes": [{"delegate": "XnnpackBackend", "compile_specs": {"target_device": "cpu:0"},
                     "inputs": ["x"], "outputs": ["y"]}]})") + second + "]}";
    };
    for (const bool two : {false, true}) {
      const Built built = fromSpec(spec(two ? R"(, {"name": "other", "inputs": ["a"], "outputs": ["b"],
          "tensors": {"a": {"dtype": "float32", "sizes": [4]}, "b": {"dtype": "float32", "sizes": [4]}},
          "nodes": [{"op": "aten::relu.out", "inputs": ["a"], "outputs": ["b"]}]})" : ""), false);
      QVERIFY2(built.error.isEmpty(), qPrintable(built.error));
      const auto found = findingsOf(analysis::lintProgram(built.program), "PTS007");
      QCOMPARE(found.size(), size_t(1));
      const std::string want = two ? "(ptescope-cli propagate --method 'my method' --set-device 0=none)"
                                   : "(ptescope-cli propagate --set-device 0=none)";
      QVERIFY2(found[0].hint.find(want) != std::string::npos, found[0].hint.c_str());
    }
  }

  // Walkthrough 21: PTS002's fix, --no-alloc-graph-output alone, edits every
  // method of a program of several; it names the method as PTS007's does.
  void optionFixesNameTheirMethod() {
    const std::string method = R"({"name": "%1", "inputs": ["x"], "outputs": ["y"],
        "tensors": {"x": {"dtype": "float32", "sizes": [4]}, "y": {"dtype": "float32", "sizes": [4]}},
        "nodes": [{"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"},
                   "inputs": ["x"], "outputs": ["y"]}]})";
    const auto named = [&](const char* name) { return QString::fromStdString(method).arg(name).toStdString(); };
    for (const bool two : {false, true}) {
      const std::string spec = "{\"methods\": [" + named("my method") + (two ? ", " + named("other") : std::string()) +
                               R"(], "options": {"skip_d2h_for_method_outputs": true}})";
      const Built built = fromSpec(spec, true);
      QVERIFY2(built.error.isEmpty(), qPrintable(built.error));
      const auto found = findingsOf(analysis::lintProgram(built.program), "PTS002");
      QVERIFY(!found.empty());
      const std::string want = two ? "(ptescope-cli propagate --method 'my method' --no-alloc-graph-output)"
                                   : "(ptescope-cli propagate --no-alloc-graph-output)";
      QVERIFY2(found[0].hint.find(want) != std::string::npos, found[0].hint.c_str());
    }
  }

  void locationText() {
    Diagnostic d;
    d.method = "forward";
    QCOMPARE(d.location(), std::string("method 'forward'"));
    d.instruction = 3;
    d.value = 5;
    QCOMPARE(d.location(), std::string("method 'forward', instruction 3, value %5"));
    d.delegate = 1;
    QCOMPARE(d.location(), std::string("method 'forward', instruction 3, delegate 1, value %5"));
  }

  // Programs as upstream export writes the scenarios: only the skip options
  // with planned graph IO (spec §2.6: set_input then fails) and legacy mode
  // are findings; the documented pairing and every other scenario lint
  // clean.
  void scenarioPrograms_data() {
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<QStringList>("ids");
    const QStringList none;
    QTest::newRow("h2d_d2h") << "h2d_d2h" << none;
    QTest::newRow("cpu_only_delegate") << "cpu_only_delegate" << none;
    // Legacy mode: a, b and y tagged cuda:0 but planned in the CPU arena
    // (PTS003 each); set_input refuses the tagged planned inputs all the
    // same (spec §3.4, the legacy-mode note), and y is a planned output.
    QTest::newRow("no_device_planning") << "no_device_planning"
                                        << QStringList{"PTS001", "PTS001", "PTS002", "PTS003", "PTS003", "PTS003"};
    QTest::newRow("redundant_same_device") << "redundant_same_device" << none;
    QTest::newRow("cross_device") << "cross_device" << none;
    QTest::newRow("multiple_same_device_consumers") << "multiple_same_device_consumers" << none;
    QTest::newRow("gpu_and_cpu_consumers") << "gpu_and_cpu_consumers" << none;
    QTest::newRow("same_and_cross_device") << "same_and_cross_device" << none;
    QTest::newRow("cuda_1") << "cuda_1" << none;
    QTest::newRow("add_then_sin") << "add_then_sin" << none;
    QTest::newRow("skip_h2d") << "skip_h2d" << QStringList{"PTS001", "PTS001"};
    QTest::newRow("skip_d2h") << "skip_d2h" << QStringList{"PTS002"};
    QTest::newRow("skip_both") << "skip_both" << QStringList{"PTS001", "PTS001", "PTS002"};
    QTest::newRow("skip_both_unplanned_io") << "skip_both_unplanned_io" << none;
    // Test 22: only b is a CUDA placeholder; a feeds sin on the host.
    QTest::newRow("skip_h2d_partial") << "skip_h2d_partial" << QStringList{"PTS001"};
  }

  void scenarioPrograms() {
    QFETCH(QString, scenario);
    QFETCH(QStringList, ids);
    auto s = synth::synthesizeScenario(scenario.toStdString());
    QVERIFY2(s, s ? "" : s.error().message.c_str());
    auto passed = synth::applyDevicePasses(s.value());
    QVERIFY2(passed, passed ? "" : passed.error().message.c_str());
    QStringList found;
    for (const auto& d : analysis::lintProgram(passed.value())) found << QString::fromStdString(d.id);
    found.sort();
    QVERIFY2(found == ids, qPrintable(found.join(", ")));
  }
};

QTEST_GUILESS_MAIN(LintRulesTest)
#include "test_lint_rules.moc"
