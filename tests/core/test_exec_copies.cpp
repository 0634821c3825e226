// The executor on programs with device copies (the demo and the device-pass
// scenarios after the pipeline), on the host runtime: buffers per device,
// every copy moving exactly its tensor's bytes to the right arena offset, the
// et_copy runtime checks, not-executed reporting, control flow, input files
// and bad programs that must fail with a message rather than crash.
#include <QtTest>

#include <QDir>

#include <cstring>

#include "analysis/Dataflow.h"
#include "exec/Executor.h"
#include "exec/HostRuntime.h"
#include "exec/InputFiles.h"
#include "support/TestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"

using namespace ptescope;
using namespace ptescope::exec;
using program::Device;
using program::DeviceType;

namespace {

constexpr uint8_t kPoison = 0xa5;
const Device kCuda0{DeviceType::Cuda, 0};

program::Program postPass(Result<synth::SynthesizedProgram> synthesized) {
  if (!synthesized) {
    QTest::qFail(synthesized.error().message.c_str(), __FILE__, __LINE__);
    return {};
  }
  auto program = synth::applyDevicePasses(synthesized.value());
  if (!program) {
    QTest::qFail(program.error().message.c_str(), __FILE__, __LINE__);
    return {};
  }
  return std::move(program.value());
}

program::Program demo() { return postPass(synth::synthesizeDemo()); }

// Default executor options but for the host memory kind and the step limit.
ExecutorOptions withHostMemory(HostMemoryKind hostMemory, size_t maxSteps = 0) {
  ExecutorOptions options;
  options.host_memory = hostMemory;
  options.max_steps = maxSteps;
  return options;
}

std::unique_ptr<Executor> makeExecutor(const program::Program& program, const std::string& method, DeviceRuntime& runtime,
                                       ExecutorOptions options = {}) {
  auto executor = Executor::create(program, method, runtime, options);
  if (!executor) {
    QTest::qFail(executor.error().message.c_str(), __FILE__, __LINE__);
    return nullptr;
  }
  return std::move(executor.value());
}

program::Tensor& tensorOf(program::Program& program, const char* method, int32_t value) {
  return *(*program.findMethod(method)->values)[size_t(value)].tensor();
}

// The (self, out) values of every et_copy instruction, by flat index.
struct CopyInstruction {
  size_t instruction;
  bool h2d;
  int32_t self, out;
};
std::vector<CopyInstruction> copyInstructions(const program::Method& method) {
  std::vector<CopyInstruction> copies;
  const auto dataflow = analysis::Dataflow::build(method);
  size_t flat = 0;
  for (const auto& chain : program::items(method.chains)) {
    for (const auto& instruction : program::items(chain.instructions)) {
      const auto& facts = dataflow.instructions()[flat];
      if (facts.is_h2d_copy || facts.is_d2h_copy) {
        const auto& args = *std::get<program::KernelCall>(instruction.data).args;
        copies.push_back({flat, facts.is_h2d_copy, args[0], args[1]});
      }
      ++flat;
    }
  }
  return copies;
}

std::vector<uint8_t> pattern(size_t bytes, uint8_t seed) {
  std::vector<uint8_t> data(bytes);
  for (size_t i = 0; i < bytes; ++i) data[i] = uint8_t(seed + i * 31 + (i >> 8));
  // Never the poison byte, so a copied byte can't pass for an untouched one.
  for (auto& b : data)
    if (b == kPoison) b = 0x11;
  return data;
}

// Runs each copy instruction alone with a known source and a poisoned
// destination arena, and checks that exactly the source's bytes landed at
// the destination's offset and nothing else in that arena changed.
void checkEveryCopy(const program::Program& program, const std::string& method, const QString& context) {
  HostRuntime runtime;
  auto executor = makeExecutor(program, method, runtime);
  QVERIFY(executor);
  const auto copies = copyInstructions(executor->method());
  for (const auto& copy : copies) {
    const QString where = QString("%1, instruction %2").arg(context).arg(copy.instruction);
    const auto self = executor->binding(copy.self);
    const auto out = executor->binding(copy.out);
    QVERIFY2(self && out, qPrintable(where));
    std::vector<uint8_t> expected;
    if (self->kind == TensorBinding::Kind::Constant) {
      expected = executor->readTensor(copy.self)->bytes;
    } else {
      expected = pattern(self->capacity, uint8_t(copy.instruction));
      QVERIFY2(executor->writeTensor(copy.self, expected).ok(), qPrintable(where));
    }
    if (out->kind == TensorBinding::Kind::Planned) {
      QVERIFY(executor->fillBuffer(out->buffer_idx, kPoison).ok());
    } else {
      QVERIFY(executor->writeTensor(copy.out, std::vector<uint8_t>(out->capacity, kPoison)).ok());
    }
    auto step = executor->executeInstruction(copy.instruction);
    QVERIFY2(step.ok(), step ? "" : step.error().message.c_str());
    QVERIFY2(step->status == StepStatus::Executed, qPrintable(where));
    QVERIFY(step->copy.has_value());
    QCOMPARE(step->copy->bytes, uint64_t(expected.size()));
    QCOMPARE(step->copy->direction, copy.h2d ? program::CopyDirection::HostToDevice : program::CopyDirection::DeviceToHost);
    QCOMPARE(step->copy->source_value, copy.self);
    QCOMPARE(step->copy->destination_value, copy.out);
    QCOMPARE(executor->readTensor(copy.out)->bytes, expected);
    if (out->kind != TensorBinding::Kind::Planned) continue;
    const auto& buffer = executor->buffers()[size_t(out->buffer_idx) - 1];
    QCOMPARE(buffer.place.onDevice(), copy.h2d);
    auto arena = executor->readBuffer(out->buffer_idx, 0, buffer.size);
    QVERIFY(arena.ok());
    for (size_t i = 0; i < arena->size(); ++i) {
      const bool inside = i >= out->offset && i < out->offset + expected.size();
      const uint8_t want = inside ? expected[i - out->offset] : kPoison;
      if ((*arena)[i] != want)
        QFAIL(qPrintable(QString("%1: arena byte %2 is 0x%3, expected 0x%4 (destination at offset %5, %6 bytes)")
                             .arg(where)
                             .arg(i)
                             .arg((*arena)[i], 2, 16, QChar('0'))
                             .arg(want, 2, 16, QChar('0'))
                             .arg(out->offset)
                             .arg(expected.size())));
    }
  }
}

// A tiny CPU program to edit by hand: y = a + 1 * b over float32[2].
const char* const kAddSpec = R"({"methods": [{"name": "forward", "inputs": ["a", "b"], "outputs": ["y"],
  "tensors": {"a": {"dtype": "float32", "sizes": [2]}, "b": {"dtype": "float32", "sizes": [2]},
              "y": {"dtype": "float32", "sizes": [2]}},
  "nodes": [{"op": "aten::add.out", "inputs": ["a", "b"], "args": [1], "outputs": ["y"]}]}]})";

std::vector<uint8_t> floatBytes(const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

}  // namespace

class ExecCopiesTest : public QObject {
  Q_OBJECT
 private slots:
  void buffersAreAllocatedPerDevice() {
    const auto program = demo();
    for (auto kind : {HostMemoryKind::Pageable, HostMemoryKind::Pinned}) {
      HostRuntime runtime;
      auto executor = makeExecutor(program, "forward", runtime, withHostMemory(kind));
      QVERIFY(executor);
      // The demo's forward after the passes: [0, 512, 512 cuda:0].
      const auto& buffers = executor->buffers();
      QCOMPARE(buffers.size(), size_t(2));
      QCOMPARE(buffers[0].buffer_idx, 1);
      QCOMPARE(buffers[0].size, uint64_t(512));
      QVERIFY(!buffers[0].place.onDevice());
      QCOMPARE(buffers[0].place.host_kind, kind);
      QCOMPARE(buffers[1].buffer_idx, 2);
      QCOMPARE(buffers[1].size, uint64_t(512));
      QCOMPARE(buffers[1].place.device, kCuda0);

      size_t hostArenas = 0, deviceArenas = 0;
      for (const auto& a : runtime.liveAllocations()) {
        if (a.bytes != 512) continue;
        if (a.place.onDevice() && a.place.device == kCuda0) ++deviceArenas;
        if (!a.place.onDevice() && a.place.host_kind == kind) ++hostArenas;
      }
      QCOMPARE(deviceArenas, size_t(1));
      QCOMPARE(hostArenas, size_t(1));

      // Every planned tensor sits at its allocation_info in the buffer of its device.
      const auto& values = program::items(executor->method().values);
      for (size_t v = 0; v < values.size(); ++v) {
        const auto* t = values[v].tensor();
        if (!t || !t->isPlanned()) continue;
        const auto b = executor->binding(int32_t(v));
        QVERIFY(b);
        QCOMPARE(b->kind, TensorBinding::Kind::Planned);
        QCOMPARE(uint32_t(b->buffer_idx), t->allocation_info->memory_id);
        QCOMPARE(b->offset, t->allocation_info->offset());
        QCOMPARE(b->memory.device, t->device());
      }
    }
    {
      HostRuntime runtime;
      { auto executor = makeExecutor(program, "prefill", runtime); }
      QVERIFY(runtime.liveAllocations().empty());  // everything freed with the executor
    }
  }

  void everyCopyMovesExactlyItsBytes() {
    const auto program = demo();
    for (const char* method : {"forward", "prefill"}) checkEveryCopy(program, method, QString("demo %1").arg(method));
    for (const auto& scenario : synth::scenarios()) {
      auto synthesized = synth::synthesizeScenario(scenario.name);
      QVERIFY(synthesized.ok());
      auto passed = synth::applyDevicePasses(synthesized.value());
      if (!passed) continue;  // scenarios whose pass fails by design
      for (const auto& m : passed->methods())
        checkEveryCopy(passed.value(), m.displayName(), QString::fromStdString(scenario.name));
    }
    auto large = synth::largeProgram(2);
    QVERIFY(large.ok());
    auto passedLarge = synth::applyDevicePasses(synth::SynthesizedProgram{large.value(), {}});
    QVERIFY(passedLarge.ok());
    QCOMPARE(copyInstructions(*passedLarge->findMethod("forward")).size(), 2 * synth::kLargeProgramCopiesPerLayer);
    checkEveryCopy(passedLarge.value(), "forward", "large program");
  }

  void demoComputesItsCpuKernelsAndSkipsDelegates() {
    const auto program = demo();
    HostRuntime runtime;
    auto executor = makeExecutor(program, "forward", runtime);
    QVERIFY(executor);
    QVERIFY(executor->fillInputs({}).ok());
    auto record = executor->run();
    QVERIFY2(record.ok(), record ? "" : record.error().message.c_str());
    QCOMPARE(record->steps.size(), executor->instructionCount());
    size_t notExecuted = 0, copySteps = 0;
    for (const auto& step : record->steps) {
      if (step.status == StepStatus::NotExecuted) {
        ++notExecuted;
        QCOMPARE(step.kind, program::InstructionKind::DelegateCall);
        // The label names the backend; the reason says why, without
        // naming it again (issue 34: "delegate CudaBackend: delegate 0
        // (CudaBackend): ..." read it twice).
        QCOMPARE(step.label, std::string("delegate CudaBackend"));
        QVERIFY(step.reason.find("CudaBackend") == std::string::npos);
        QVERIFY(step.reason.find("cannot run") != std::string::npos);
      }
      if (step.copy) ++copySteps;
    }
    QCOMPARE(notExecuted, size_t(2));
    QCOMPARE(copySteps, size_t(4));
    // The delegate did not run, so its output is the zeroed arena; then
    // add(bias = 0.125) and relu give 0.125 everywhere, which the next H2D
    // copies to the device. (relu's CPU slot is reused by the final D2H, so
    // its value is checked on the device copy.)
    const auto graph = analysis::Dataflow::build(executor->method());
    QCOMPARE(graph.instructions()[4].label, std::string("aten::relu.out"));
    const auto copies = copyInstructions(executor->method());
    QCOMPARE(copies[2].instruction, size_t(5));
    QCOMPARE(copies[2].self, graph.instructions()[4].outputs[0]);
    auto onDevice = executor->readTensor(copies[2].out)->toDoubles();
    QCOMPARE(onDevice, std::vector<double>(64, 0.125));
    // The method output is whatever the second delegate's output slot held
    // (it did not run), moved by the last D2H.
    QCOMPARE(copies[3].out, (*executor->method().outputs)[0]);
    QCOMPARE(executor->readTensor(copies[3].out)->bytes, executor->readTensor(copies[3].self)->bytes);
  }

  void unknownKernelIsNotExecutedAndLeavesItsOutput() {
    auto synthesized = synth::synthesizeFromSpec(R"({"methods": [{"name": "forward", "inputs": ["a"], "outputs": ["y"],
      "tensors": {"a": {"dtype": "float32", "sizes": [4]}, "t": {"dtype": "float32", "sizes": [4]},
                  "y": {"dtype": "float32", "sizes": [4]}},
      "nodes": [{"op": "custom::mystery.out", "inputs": ["a"], "outputs": ["t"]},
                {"op": "aten::relu.out", "inputs": ["t"], "outputs": ["y"]}]}]})");
    QVERIFY2(synthesized.ok(), synthesized ? "" : synthesized.error().message.c_str());
    HostRuntime runtime;
    auto executor = makeExecutor(synthesized->program, "forward", runtime);
    QVERIFY(executor);
    const auto& m = executor->method();
    const int32_t a = (*m.inputs)[0];
    const int32_t t = (*std::get<program::KernelCall>((*(*m.chains)[0].instructions)[0].data).args)[1];
    QVERIFY(executor->fillBuffer(executor->binding(t)->buffer_idx, 0).ok());
    QVERIFY(executor->writeTensor(a, floatBytes({1, 2, 3, 4})).ok());
    QVERIFY(executor->writeTensor(t, floatBytes({-1, 5, -7, 9})).ok());
    auto record = executor->run();
    QVERIFY(record.ok());
    QCOMPARE(record->steps.size(), size_t(2));
    QCOMPARE(record->steps[0].status, StepStatus::NotExecuted);
    QVERIFY(record->steps[0].reason.find("custom::mystery.out") != std::string::npos);
    QCOMPARE(record->steps[1].status, StepStatus::Executed);
    QCOMPARE(executor->readTensor(t)->toDoubles(), (std::vector<double>{-1, 5, -7, 9}));
    QCOMPARE(executor->readTensor((*m.outputs)[0])->toDoubles(), (std::vector<double>{0, 5, 0, 9}));
  }

  void copyChecksFollowTheRuntime_data() {
    QTest::addColumn<QString>("edit");
    QTest::addColumn<QString>("message");
    QTest::newRow("source on a device") << "source-device" << "_h2d_copy: source tensor %0 must be on CPU, got device_type=1";
    QTest::newRow("destination on cpu") << "destination-cpu" << "_h2d_copy: destination tensor %7 must be on a device";
    QTest::newRow("dtype mismatch") << "dtype" << "dtype of %0 (float32) differs from %7 (int32)";
    QTest::newRow("static shape mismatch") << "static-shape" << "cannot resize out to self sizes (cannot resize static tensor %7";
    QTest::newRow("beyond capacity") << "capacity" << "exceed its planned capacity of 128 bytes";
    QTest::newRow("unknown device type") << "device-type" << "no device allocator registered for device_type=5";
    QTest::newRow("device tag over a CPU buffer") << "legacy" << "is tagged cuda:0 but its memory is host";
  }
  void copyChecksFollowTheRuntime() {
    QFETCH(QString, edit);
    QFETCH(QString, message);
    auto program = demo();
    // forward starts with h2d %0 (cpu, float32[1, 64]) -> %7 (cuda:0).
    auto& self = tensorOf(program, "forward", 0);
    auto& out = tensorOf(program, "forward", 7);
    QCOMPARE(out.device(), kCuda0);
    if (edit == "source-device") {
      // Unplanned, so the caller's memory is shared (a planned input on a
      // device is refused earlier, by set_input: RuntimeChecks RT001).
      self.setDevice(kCuda0);
      self.allocation_info.reset();
    }
    if (edit == "destination-cpu") out.setDevice(Device{});
    if (edit == "dtype") out.scalar_type = program::ScalarType::Int;
    if (edit == "static-shape") self.sizes = std::vector<int32_t>{1, 32};
    if (edit == "capacity") {
      out.sizes = std::vector<int32_t>{1, 32};
      out.shape_dynamism = program::ShapeDynamism::DynamicBound;
    }
    if (edit == "device-type") out.setDevice(Device{DeviceType(5), 0});
    if (edit == "legacy") program.findMethod("forward")->non_const_buffer_device.reset();
    HostRuntime runtime;
    auto executor = makeExecutor(program, "forward", runtime);
    QVERIFY(executor);
    QVERIFY(executor->fillInputs({}).ok());
    auto record = executor->run();
    QVERIFY(!record.ok());
    const std::string& text = record.error().message;
    QVERIFY2(text.find(message.toStdString()) != std::string::npos, text.c_str());
    QVERIFY2(text.find("instruction 0") != std::string::npos, text.c_str());
    QVERIFY(text.find('\n') == std::string::npos);
  }

  void dynamicBoundCopyResizesWithinCapacity() {
    auto program = demo();
    tensorOf(program, "forward", 0).sizes = std::vector<int32_t>{1, 32};
    tensorOf(program, "forward", 7).shape_dynamism = program::ShapeDynamism::DynamicBound;
    HostRuntime runtime;
    auto executor = makeExecutor(program, "forward", runtime);
    QVERIFY(executor);
    QVERIFY(executor->fillInputs({}).ok());
    auto step = executor->executeInstruction(0);
    QVERIFY2(step.ok(), step ? "" : step.error().message.c_str());
    QCOMPARE(step->copy->bytes, uint64_t(128));
    auto moved = executor->readTensor(7);
    QCOMPARE(moved->sizes, (std::vector<int64_t>{1, 32}));
    QCOMPARE(moved->bytes, executor->readTensor(0)->bytes);
  }

  void controlFlowInstructions() {
    auto synthesized = synth::synthesizeFromSpec(kAddSpec);
    QVERIFY(synthesized.ok());
    program::Program program = synthesized->program;
    auto& method = *program.findMethod("forward");
    const int32_t a = (*method.inputs)[0], b = (*method.inputs)[1], y = (*method.outputs)[0];
    auto& instructions = *(*method.chains)[0].instructions;
    const program::Instruction add = instructions[0];
    const int32_t cond = int32_t(method.values->size());
    method.values->push_back(program::Value{program::BoolValue{false}});

    // 0: jump_false(cond=false) -> 2; 1: add (skipped); 2: move a -> y.
    instructions = {program::Instruction{program::JumpFalseCall{cond, 2}}, add,
                    program::Instruction{program::MoveCall{a, y}}};
    {
      HostRuntime runtime;
      auto executor = makeExecutor(program, "forward", runtime);
      QVERIFY(executor);
      QVERIFY(executor->writeTensor(a, floatBytes({1, 2})).ok());
      QVERIFY(executor->writeTensor(b, floatBytes({10, 20})).ok());
      auto record = executor->run();
      QVERIFY2(record.ok(), record ? "" : record.error().message.c_str());
      QCOMPARE(record->steps.size(), size_t(2));
      QCOMPARE(record->steps[0].instruction, size_t(0));
      QCOMPARE(record->steps[1].instruction, size_t(2));
      QCOMPARE(executor->readTensor(y)->toDoubles(), (std::vector<double>{1, 2}));  // y now is a
      // A true condition falls through to the add, which the move then replaces.
      std::get<program::BoolValue>((*method.values)[size_t(cond)].data).value = true;
    }
    {
      HostRuntime runtime;
      auto executor = makeExecutor(program, "forward", runtime);
      QVERIFY(executor);
      auto record = executor->run();
      QVERIFY(record.ok());
      QCOMPARE(record->steps.size(), size_t(3));
    }
    // free b, then add reads it: the run stops and names the value.
    instructions = {program::Instruction{program::FreeCall{b}}, add};
    {
      HostRuntime runtime;
      auto executor = makeExecutor(program, "forward", runtime);
      QVERIFY(executor);
      auto record = executor->run();
      QVERIFY(!record.ok());
      QVERIFY2(record.error().message.find("%" + std::to_string(b) + " has no memory") != std::string::npos,
               record.error().message.c_str());
    }
    // add, then free b: each run starts from the bound state, so the second
    // run's add still finds b's memory.
    instructions = {add, program::Instruction{program::FreeCall{b}}};
    {
      HostRuntime runtime;
      auto executor = makeExecutor(program, "forward", runtime);
      QVERIFY(executor);
      QVERIFY(executor->run().ok());
      auto second = executor->run();
      QVERIFY2(second.ok(), second ? "" : second.error().message.c_str());
    }
    // A jump to itself never ends: stopped at the step limit.
    std::get<program::BoolValue>((*method.values)[size_t(cond)].data).value = false;
    instructions = {program::Instruction{program::JumpFalseCall{cond, 0}}};
    {
      HostRuntime runtime;
      auto executor = makeExecutor(program, "forward", runtime, withHostMemory(HostMemoryKind::Pageable, 100));
      QVERIFY(executor);
      auto record = executor->run();
      QVERIFY(!record.ok());
      QVERIFY2(record.error().message.find("does not end") != std::string::npos, record.error().message.c_str());
    }
    // Cancelling stops between instructions.
    {
      HostRuntime runtime;
      auto executor = makeExecutor(program, "forward", runtime, withHostMemory(HostMemoryKind::Pageable, 100));
      QVERIFY(executor);
      int polls = 0;
      auto record = executor->run([&] { return ++polls > 5; });
      QVERIFY(record.ok());
      QVERIFY(record->cancelled);
      QCOMPARE(record->steps.size(), size_t(5));
    }
  }

  void inputsFromFiles() {
    auto synthesized = synth::synthesizeFromSpec(kAddSpec);
    QVERIFY(synthesized.ok());
    const QString dir = QDir(test::tempDir()).filePath("inputs");
    QVERIFY(QDir().mkpath(dir));
    test::writeAll(dir + "/0.npy", encodeNpy(HostTensor{program::ScalarType::Float, {2}, floatBytes({1.5f, -2.0f})}));
    test::writeAll(dir + "/input_1.bin", floatBytes({0.25f, 4.0f}));
    HostRuntime runtime;
    auto executor = makeExecutor(synthesized->program, "forward", runtime);
    QVERIFY(executor);
    auto status = executor->fillInputs(InputOptions{0, dir.toStdString()});
    QVERIFY2(status.ok(), status ? "" : status.error().message.c_str());
    QVERIFY(executor->run().ok());
    QCOMPARE(executor->readTensor((*executor->method().outputs)[0])->toDoubles(), (std::vector<double>{1.75, 2.0}));

    // A wrong dtype, a wrong size, a missing file and a missing folder each
    // give one message naming the file.
    test::writeAll(dir + "/0.npy", encodeNpy(HostTensor{program::ScalarType::Double, {2}, std::vector<uint8_t>(16, 0)}));
    status = executor->fillInputs(InputOptions{0, dir.toStdString()});
    QVERIFY(!status.ok());
    QVERIFY2(status.error().message.find("0.npy: method 'forward' input 0") != std::string::npos &&
                 status.error().message.find("expected float32 but was float64") != std::string::npos,
             status.error().message.c_str());
    QVERIFY(QFile::remove(dir + "/0.npy"));
    test::writeAll(dir + "/0.raw", std::vector<uint8_t>(3, 0));
    status = executor->fillInputs(InputOptions{0, dir.toStdString()});
    QVERIFY(!status.ok());
    QVERIFY2(status.error().message.find("holds 3 bytes") != std::string::npos, status.error().message.c_str());
    QVERIFY(QFile::remove(dir + "/0.raw"));
    status = executor->fillInputs(InputOptions{0, dir.toStdString()});
    QVERIFY(!status.ok());
    QVERIFY2(status.error().message.find("no file for input 0") != std::string::npos, status.error().message.c_str());
    status = executor->fillInputs(InputOptions{0, (dir + "/absent").toStdString()});
    QVERIFY(!status.ok());
    QVERIFY(status.error().message.find("not a folder") != std::string::npos);
  }

  void npyRoundTrip() {
    const HostTensor tensor{program::ScalarType::Long, {2, 3}, std::vector<uint8_t>(48, 7)};
    auto parsed = parseNpy(encodeNpy(tensor), "t.npy");
    QVERIFY(parsed.ok());
    QCOMPARE(parsed->dtype, tensor.dtype);
    QCOMPARE(parsed->sizes, tensor.sizes);
    QCOMPARE(parsed->bytes, tensor.bytes);
    QVERIFY(!parseNpy(std::vector<uint8_t>(5, 0), "bad.npy").ok());
  }

  void badProgramsFailWithAMessage() {
    auto synthesized = synth::synthesizeFromSpec(kAddSpec);
    QVERIFY(synthesized.ok());
    HostRuntime runtime;
    {
      auto program = synthesized->program;
      (*program.findMethod("forward")->values)[0].tensor()->allocation_info->memory_id = 9;
      auto executor = Executor::create(program, "forward", runtime);
      QVERIFY(!executor.ok());
      QVERIFY2(executor.error().message.find("memory_id 9 names no planned buffer") != std::string::npos,
               executor.error().message.c_str());
    }
    {
      auto program = synthesized->program;
      (*program.findMethod("forward")->non_const_buffer_sizes)[1] = int64_t(1) << 62;  // out of memory
      auto executor = Executor::create(program, "forward", runtime);
      QVERIFY(!executor.ok());
      // Refused by the memory budget before any allocation (issue 13).
      QVERIFY2(executor.error().message.find("not run: it would allocate 4.0 EiB") != std::string::npos &&
                   executor.error().message.find("planned buffers 4.0 EiB") != std::string::npos,
               executor.error().message.c_str());
    }
    {
      auto program = synthesized->program;
      (*program.findMethod("forward")->non_const_buffer_sizes)[1] = 4;  // tensors run past the end
      auto executor = Executor::create(program, "forward", runtime);
      QVERIFY(!executor.ok());
      QVERIFY(executor.error().message.find("run past the end of planned buffer 1") != std::string::npos);
    }
    {
      auto executor = Executor::create(synthesized->program, "backward", runtime);
      QVERIFY(!executor.ok());
      QVERIFY(executor.error().message.find("no method named 'backward' (the program has: forward)") != std::string::npos);
    }
    {
      auto program = synthesized->program;
      auto& call = std::get<program::KernelCall>((*(*program.findMethod("forward")->chains)[0].instructions)[0].data);
      (*call.args)[0] = 999;
      auto executor = Executor::create(program, "forward", runtime);
      QVERIFY(executor.ok());
      auto record = executor.value()->run();
      QVERIFY(!record.ok());
      QVERIFY(record.error().message.find("value index 999 is out of range") != std::string::npos);
    }
    QVERIFY(runtime.liveAllocations().empty());
  }
};

QTEST_GUILESS_MAIN(ExecCopiesTest)
#include "test_exec_copies.moc"
