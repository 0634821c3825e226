// Issue 27: Cancel reaches a run wherever its time goes — while random inputs
// are filled, between instructions and inside one long kernel (a matrix
// product, a convolution) — and a cancelled run is reported as such, never as
// a result. Counted, not timed: the poll must be asked from inside the kernel.
#include <QtTest>

#include "exec/Executor.h"
#include "exec/HostRuntime.h"
#include "exec/Kernels.h"
#include "exec/RunOnce.h"
#include "synth/JsonSpec.h"

using namespace ptescope;
using namespace ptescope::exec;

namespace {

// One instruction of about 2^30 multiply-adds (a [1024, 1024] @ [1024, 1024]).
constexpr const char* kBigMatmul = R"({"methods": [{"name": "forward", "inputs": ["a", "b"], "outputs": ["y"],
  "tensors": {"a": {"dtype": "float32", "sizes": [1024, 1024]}, "b": {"dtype": "float32", "sizes": [1024, 1024]},
              "y": {"dtype": "float32", "sizes": [1024, 1024]}},
  "nodes": [{"op": "aten::mm.out", "inputs": ["a", "b"], "outputs": ["y"]}]}]})";

// A convolution of 64 output channels, each 2^20 multiply-adds.
constexpr const char* kBigConv = R"({"methods": [{"name": "forward", "inputs": ["x", "w"], "outputs": ["y"],
  "tensors": {"x": {"dtype": "float32", "sizes": [1, 16, 64, 64]}, "w": {"dtype": "float32", "sizes": [64, 16, 3, 3]},
              "y": {"dtype": "float32", "sizes": [1, 64, 64, 64]}},
  "nodes": [{"op": "aten::convolution.out", "inputs": ["x", "w"],
             "args": [null, [1, 1], [1, 1], [1, 1], false, [0, 0], 1], "outputs": ["y"]}]}]})";

}  // namespace

class ExecCancelTest : public QObject {
  Q_OBJECT

 private slots:
  void theScopeSetsAndRestoresThePoll() {
    QVERIFY(!kernelCancelRequested());
    const std::function<bool()> yes = [] { return true; };
    const std::function<bool()> no = [] { return false; };
    {
      KernelCancelScope outer(&yes);
      QVERIFY(kernelCancelRequested());
      {
        KernelCancelScope inner(&no);
        QVERIFY(!kernelCancelRequested());
      }
      QVERIFY(kernelCancelRequested());
    }
    QVERIFY(!kernelCancelRequested());
  }

  void aLongKernelSeesTheCancel_data() {
    QTest::addColumn<QString>("spec");
    QTest::newRow("mm") << QString(kBigMatmul);
    QTest::newRow("convolution") << QString(kBigConv);
  }

  void aLongKernelSeesTheCancel() {
    QFETCH(QString, spec);
    auto synthesized = synth::synthesizeFromSpec(spec.toStdString());
    QVERIFY2(synthesized.ok(), synthesized ? "" : synthesized.error().message.c_str());
    HostRuntime runtime;
    auto executor = Executor::create(synthesized->program, "forward", runtime);
    QVERIFY2(executor.ok(), executor ? "" : executor.error().message.c_str());
    QVERIFY((*executor)->fillInputs({}).ok());
    // The check before the instruction says go on; every later one says stop.
    size_t polls = 0;
    const std::function<bool()> cancel = [&polls] { return ++polls > 1; };
    auto record = (*executor)->run(cancel);
    QVERIFY2(record.ok(), record ? "" : record.error().message.c_str());
    QVERIFY(record->cancelled);
    // Before the instruction, inside the kernel, and after it: three at least.
    // Without the kernel's checks there would be two (before, after).
    QVERIFY2(polls >= 3, QByteArray::number(qulonglong(polls)).constData());
    QVERIFY(!kernelCancelRequested());  // the scope ended with the run
  }

  void runOnceReportsACancelAsCancelled() {
    auto synthesized = synth::synthesizeFromSpec(kBigMatmul);
    QVERIFY(synthesized.ok());
    HostRuntime runtime;
    RunOnceOptions options;
    size_t polls = 0;
    options.cancel_requested = [&polls] { return ++polls > 1; };
    auto result = runMethodOnce(synthesized->program, runtime, options);
    QVERIFY(!result.ok());
    QCOMPARE(result.error().message, std::string(kRunCancelled));
    // And a run nobody cancels completes.
    RunOnceOptions plain;
    plain.method = "forward";
    auto small = synth::synthesizeFromSpec(R"({"methods": [{"name": "forward", "inputs": ["a"], "outputs": ["y"],
      "tensors": {"a": {"dtype": "float32", "sizes": [4, 4]}, "y": {"dtype": "float32", "sizes": [4, 4]}},
      "nodes": [{"op": "aten::mm.out", "inputs": ["a", "a"], "outputs": ["y"]}]}]})");
    QVERIFY(small.ok());
    plain.cancel_requested = [] { return false; };
    auto done = runMethodOnce(small->program, runtime, plain);
    QVERIFY2(done.ok(), done ? "" : done.error().message.c_str());
    QCOMPARE(done->outputs.size(), size_t(1));
  }

  void fillingTheInputsSeesTheCancel() {
    // 8 Mi elements: the fill polls every 2^20 of them.
    auto synthesized = synth::synthesizeFromSpec(R"({"methods": [{"name": "forward", "inputs": ["a"], "outputs": ["a"],
      "tensors": {"a": {"dtype": "float32", "sizes": [8192, 1024]}}, "nodes": []}]})");
    QVERIFY2(synthesized.ok(), synthesized ? "" : synthesized.error().message.c_str());
    HostRuntime runtime;
    auto executor = Executor::create(synthesized->program, "forward", runtime);
    QVERIFY2(executor.ok(), executor ? "" : executor.error().message.c_str());
    InputOptions inputs;
    size_t polls = 0;
    inputs.cancel_requested = [&polls] { return ++polls >= 2; };
    auto status = (*executor)->fillInputs(inputs);
    QVERIFY(!status.ok());
    QCOMPARE(status.error().message, std::string(kInputsCancelled));
    QCOMPARE(polls, size_t(2));
  }
};

QTEST_MAIN(ExecCancelTest)
#include "test_exec_cancel.moc"
