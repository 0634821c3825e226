// core/exec/RuntimeChecks: the executor refuses where ExecuTorch's runtime
// refuses, with the runtime's message and the lint rule that predicts it.
// Each check has a program that trips it and a twin that does not. Which
// programs the real runtime refuses was seen by running them on the runtime
// built from upstream's source (see the issue 14 note), not by this code.
#include <QtTest>

#include <QDir>
#include <QFile>

#include <cstring>
#include <set>

#include "analysis/Diagnostics.h"
#include "exec/Executor.h"
#include "exec/HostRuntime.h"
#include "exec/RuntimeChecks.h"
#include "support/TestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/ProgramBuilder.h"
#include "synth/Scenarios.h"

using namespace ptescope;
using namespace ptescope::program;

namespace {

Program scenarioAfterPasses(const std::string& name) {
  auto built = synth::synthesizeScenario(name);
  if (!built) {
    QTest::qFail(built.error().message.c_str(), __FILE__, __LINE__);
    return {};
  }
  auto passed = synth::applyDevicePasses(built.value());
  if (!passed) {
    QTest::qFail(passed.error().message.c_str(), __FILE__, __LINE__);
    return {};
  }
  return passed.value();
}

// Executor::create + fillInputs (the set_input step), with inputs from `directory` when given.
Status setInputs(const Program& program, exec::DeviceRuntime& runtime, const std::string& directory = {}) {
  auto executor = exec::Executor::create(program, "forward", runtime);
  if (!executor) return executor.error();
  exec::InputOptions options;
  options.directory = directory;
  return (*executor)->fillInputs(options);
}

bool lintReports(const Program& program, std::string_view rule) {
  for (const auto& d : analysis::lintProgram(program))
    if (d.id == rule) return true;
  return false;
}

void writeNpy(const QString& path, const char* descr, const std::vector<int>& shape, const std::vector<uint8_t>& data) {
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  for (int s : shape) header += std::to_string(s) + ",";
  header += "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::vector<uint8_t> bytes{0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, uint8_t(header.size() & 0xff), uint8_t(header.size() >> 8)};
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), data.begin(), data.end());
  test::writeAll(path, bytes);
}

// a + b (add.out) on CPU, 2x2 float32, inputs planned.
Program cpuAdd(ShapeDynamism dynamism = ShapeDynamism::Static) {
  synth::ProgramBuilder builder;
  auto& m = builder.addMethod("forward");
  auto a = m.addTensor(ScalarType::Float, {2, 2}, dynamism);
  auto b = m.addTensor(ScalarType::Float, {2, 2}, dynamism);
  auto y = m.addTensor(ScalarType::Float, {2, 2}, dynamism);
  m.addKernelCall("aten::add.out", {a, b, m.addInt(1)}, {y});
  m.setInputs({a, b});
  m.setOutputs({y});
  auto program = builder.build();
  if (!program) QTest::qFail(program.error().message.c_str(), __FILE__, __LINE__);
  return program ? program.value() : Program{};
}

}  // namespace

class RuntimeChecksTest : public QObject {
  Q_OBJECT

 private slots:
  void listIsComplete() {
    std::set<std::string_view> ids;
    for (const auto& check : exec::runtimeChecks()) {
      QVERIFY(ids.insert(check.id).second);
      QVERIFY(!check.name.empty() && !check.refusal.empty() && !check.message.empty());
      QVERIFY(!check.upstream.empty() && !check.when.empty());
      QVERIFY(check.phase == "load" || check.phase == "set_input" || check.phase == "execute");
      // A named lint rule exists.
      if (!check.lint_rule.empty()) {
        bool known = false;
        for (const auto& rule : analysis::diagnosticRules()) known = known || std::string_view(rule.id) == check.lint_rule;
        QVERIFY2(known, std::string(check.lint_rule).c_str());
      }
    }
    QCOMPARE(ids.size(), size_t(4));
    QCOMPARE(exec::runtimeCheck("RT001").lint_rule, std::string_view("PTS001"));
  }

  void rt001PlannedInputOnDevice() {
    exec::HostRuntime runtime;
    // skip_h2d with alloc_graph_input (default True): the input is planned on cuda:0.
    const Program trips = scenarioAfterPasses("skip_h2d");
    auto refused = setInputs(trips, runtime);
    QVERIFY(!refused.ok());
    const std::string& message = refused.error().message;
    QVERIFY2(message.find("Method::set_input fails with NotSupported") != std::string::npos, message.c_str());
    QVERIFY(message.find("\"Planned-buffer copy needs host memory on both sides: dst device 1, src device 0.") !=
            std::string::npos);
    QVERIFY(message.find("RT001") != std::string::npos && message.find("PTS001") != std::string::npos);
    QVERIFY(message.starts_with("method 'forward' input 0"));
    QVERIFY(lintReports(trips, "PTS001"));
    // Legacy device tagging without device planning: the tag alone trips it.
    const Program legacy = scenarioAfterPasses("no_device_planning");
    QVERIFY(!setInputs(legacy, runtime).ok());
    QVERIFY(lintReports(legacy, "PTS001"));
    // The twins: the same graph with unplanned IO, and with the H2D copy kept.
    for (const char* twin : {"skip_both_unplanned_io", "h2d_d2h"}) {
      const Program ok = scenarioAfterPasses(twin);
      auto status = setInputs(ok, runtime);
      QVERIFY2(status.ok(), status.ok() ? twin : status.error().message.c_str());
      QVERIFY(!lintReports(ok, "PTS001"));
    }
  }

  void rt001StopsTheRunBeforeAnyInstruction() {
    exec::HostRuntime runtime;
    const Program trips = scenarioAfterPasses("skip_both");
    auto executor = exec::Executor::create(trips, "forward", runtime);
    QVERIFY(executor.ok());
    QVERIFY(!(*executor)->fillInputs({}).ok());
  }

  void rt002InputDtype() {
    exec::HostRuntime runtime;
    const Program program = cpuAdd();
    const QString dir = QDir(test::tempDir()).filePath("rt002");
    QDir().mkpath(dir);
    std::vector<uint8_t> four(16, 0);
    writeNpy(dir + "/0.npy", "<i4", {2, 2}, four);  // int32 for a float32 input
    writeNpy(dir + "/1.npy", "<f4", {2, 2}, four);
    auto refused = setInputs(program, runtime, dir.toStdString());
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().message.find("\"Input 0 has unexpected scalar type: expected float32 but was int32.\"") !=
                 std::string::npos,
             refused.error().message.c_str());
    QVERIFY(refused.error().message.find("RT002") != std::string::npos);
    writeNpy(dir + "/0.npy", "<f4", {2, 2}, four);
    auto ok = setInputs(program, runtime, dir.toStdString());
    QVERIFY2(ok.ok(), ok.ok() ? "" : ok.error().message.c_str());
  }

  void rt003InputResize() {
    exec::HostRuntime runtime;
    const QString dir = QDir(test::tempDir()).filePath("rt003");
    QDir().mkpath(dir);
    writeNpy(dir + "/0.npy", "<f4", {1, 2}, std::vector<uint8_t>(8, 0));  // [1, 2] for a static [2, 2]
    writeNpy(dir + "/1.npy", "<f4", {2, 2}, std::vector<uint8_t>(16, 0));
    auto refused = setInputs(cpuAdd(), runtime, dir.toStdString());
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().message.find("RT003 input-resize-refused") != std::string::npos,
             refused.error().message.c_str());
    // A DYNAMIC_BOUND input may shrink: the twin is accepted.
    auto ok = setInputs(cpuAdd(ShapeDynamism::DynamicBound), runtime, dir.toStdString());
    QVERIFY2(ok.ok(), ok.ok() ? "" : ok.error().message.c_str());
    // But not grow past its capacity.
    writeNpy(dir + "/0.npy", "<f4", {3, 2}, std::vector<uint8_t>(24, 0));
    QVERIFY(!setInputs(cpuAdd(ShapeDynamism::DynamicBound), runtime, dir.toStdString()).ok());
  }

  void rt004KernelArgCount() {
    QCOMPARE(exec::portableSchemaArgCount("aten::native_layer_norm.out"), std::optional<size_t>(8));
    QCOMPARE(exec::portableSchemaArgCount("aten::add.out"), std::optional<size_t>(4));
    QCOMPARE(exec::portableSchemaArgCount("aten::convolution.out"), std::optional<size_t>(10));
    QCOMPARE(exec::portableSchemaArgCount("et_copy::_h2d_copy.out"), std::optional<size_t>(2));
    QVERIFY(!exec::portableSchemaArgCount("aten::silu.out"));
    QVERIFY(!exec::portableSchemaArgCount("etnp::lstm.out"));

    auto large = synth::largeProgram(1);
    QVERIFY(large.ok());
    exec::HostRuntime runtime;
    {  // as upstream emits it: 9 args, runs
      auto executor = exec::Executor::create(large.value(), "forward", runtime);
      QVERIFY(executor.ok());
      QVERIFY((*executor)->fillInputs({}).ok());
      auto run = (*executor)->run();
      QVERIFY2(run.ok(), run.ok() ? "" : run.error().message.c_str());
    }
    // The old layout (outs repeated instead of one TensorList): 11 args.
    Program old = large.value();
    Method& m = old.methods()[0];
    for (auto& instruction : *(*m.chains)[0].instructions) {
      auto* call = std::get_if<KernelCall>(&instruction.data);
      if (!call || items(m.operators)[size_t(call->op_index)].qualifiedName() != "aten::native_layer_norm.out") continue;
      auto& args = *call->args;
      args.pop_back();
      args.insert(args.end(), {args[5], args[6], args[7]});
    }
    auto executor = exec::Executor::create(old, "forward", runtime);
    QVERIFY(executor.ok());
    QVERIFY((*executor)->fillInputs({}).ok());
    auto run = (*executor)->run();
    QVERIFY(!run.ok());
    QVERIFY2(run.error().message.find("\"Expected 9 args received 11\"") != std::string::npos, run.error().message.c_str());
    QVERIFY(run.error().message.find("aten::native_layer_norm.out") != std::string::npos);
  }

  void rt004TableAgreesWithTheSamples() {
    PTESCOPE_REQUIRE_SAMPLES();
    size_t checked = 0;
    for (const QString& path : test::samplePrograms()) {
      auto loaded = test::loadOrFail(path);
      for (const auto& m : loaded.program.methods())
        for (const auto& chain : items(m.chains))
          for (const auto& instruction : items(chain.instructions)) {
            const auto* call = std::get_if<KernelCall>(&instruction.data);
            if (!call || call->op_index < 0 || size_t(call->op_index) >= items(m.operators).size()) continue;
            const std::string op = items(m.operators)[size_t(call->op_index)].qualifiedName();
            auto arity = exec::portableSchemaArgCount(op);
            if (!arity) continue;
            ++checked;
            QVERIFY2(items(call->args).size() == *arity + 1, qPrintable(path + ": " + QString::fromStdString(op)));
          }
    }
    QVERIFY(checked > 10);
  }
};

QTEST_GUILESS_MAIN(RuntimeChecksTest)
#include "test_runtime_checks.moc"
