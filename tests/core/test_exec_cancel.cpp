// Issue 27: Cancel reaches a run wherever its time goes — while random inputs
// are filled, between instructions and inside one long kernel (a matrix
// product, a convolution) — and a cancelled run is reported as such, never as
// a result. Counted, not timed: the poll must be asked from inside the kernel.
// Issue 34 item 14: every kernel family that can run long stops when asked
// (the output it would have finished is left unfinished), and a Cancel from
// another thread stops a kernel of seconds part way.
#include <QtTest>

#include <atomic>
#include <thread>

#include "support/KernelHarness.h"
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

using ptescope::testing::KernelHarness;
using ST = program::ScalarType;

// One call of a kernel family on inputs big enough that the kernel looks at
// Cancel before it is done: at least 2^17 outputs (KernelCancelPoll asks
// every 2^16 units of work, an output being at least one unit). `call`
// writes `out`, an output of `outputs` elements of `dtype`.
struct LongCall {
  const char* name;
  ST dtype;
  int64_t outputs;
  std::function<exec::KernelResult(KernelHarness&, int32_t out)> call;
};

int32_t filled(KernelHarness& h, std::vector<int64_t> sizes, double value) {
  return h.tensor(ST::Float, sizes, std::vector<double>(size_t(kernels::numelOf(sizes)), value));
}
// 0, 1, 2, ... so that a permutation's last output is one particular input.
int32_t ramp(KernelHarness& h, std::vector<int64_t> sizes) {
  std::vector<double> values(size_t(kernels::numelOf(sizes)));
  for (size_t i = 0; i < values.size(); ++i) values[i] = double(i);
  return h.tensor(ST::Float, sizes, values);
}

std::vector<LongCall> longCalls() {
  return {
      {"mm", ST::Float, 512 * 512,
       [](KernelHarness& h, int32_t out) { return h.call("aten::mm.out", {filled(h, {512, 64}, 1), filled(h, {64, 512}, 1), out, out}); }},
      {"linear", ST::Float, 512 * 512,
       [](KernelHarness& h, int32_t out) {
         return h.call("aten::linear.out", {filled(h, {512, 64}, 1), filled(h, {512, 64}, 1), h.none(), out, out});
       }},
      {"convolution", ST::Float, 4 * 128 * 128,
       [](KernelHarness& h, int32_t out) {
         return h.call("aten::convolution.out", {filled(h, {1, 4, 128, 128}, 1), filled(h, {4, 4, 3, 3}, 1), h.none(), h.ints({1, 1}),
                                                 h.ints({1, 1}), h.ints({1, 1}), h.boolean(false), h.ints({0, 0}), h.integer(1), out, out});
       }},
      {"add", ST::Float, 512 * 512,
       [](KernelHarness& h, int32_t out) {
         return h.call("aten::add.out", {filled(h, {512, 512}, 1), filled(h, {512, 512}, 1), h.integer(1), out, out});
       }},
      {"sigmoid", ST::Float, 512 * 512,
       [](KernelHarness& h, int32_t out) { return h.call("aten::sigmoid.out", {filled(h, {512, 512}, 1), out, out}); }},
      {"sum over a dim", ST::Float, 512,
       [](KernelHarness& h, int32_t out) {
         return h.call("aten::sum.IntList_out", {filled(h, {512, 512}, 1), h.ints({1}), h.boolean(false), h.none(), out, out});
       }},
      {"amax", ST::Float, 512,
       [](KernelHarness& h, int32_t out) {
         return h.call("aten::amax.out", {ramp(h, {512, 512}), h.ints({1}), h.boolean(false), out, out});
       }},
      {"argmax", ST::Long, 512,
       [](KernelHarness& h, int32_t out) {
         return h.call("aten::argmax.out", {ramp(h, {512, 512}), h.integer(1), h.boolean(false), out, out});
       }},
      {"softmax", ST::Float, 512 * 512,
       [](KernelHarness& h, int32_t out) {
         return h.call("aten::_softmax.out", {filled(h, {512, 512}, 1), h.integer(1), h.boolean(false), out, out});
       }},
      {"max pool", ST::Float, 4 * 256 * 256,
       [](KernelHarness& h, int32_t out) {
         const int32_t indices = h.output(ST::Long, 4 * 256 * 256);
         return h.call("aten::max_pool2d_with_indices.out", {ramp(h, {1, 4, 512, 512}), h.ints({2, 2}), h.ints({2, 2}), h.ints({0, 0}),
                                                             h.ints({1, 1}), h.boolean(false), out, indices, h.list({out, indices})});
       }},
      {"avg pool", ST::Float, 4 * 256 * 256,
       [](KernelHarness& h, int32_t out) {
         return h.call("aten::avg_pool2d.out", {filled(h, {1, 4, 512, 512}, 1), h.ints({2, 2}), h.ints({2, 2}), h.ints({0, 0}),
                                                h.boolean(false), h.boolean(true), h.none(), out, out});
       }},
      {"permute copy", ST::Float, 512 * 512,
       [](KernelHarness& h, int32_t out) { return h.call("aten::permute_copy.out", {ramp(h, {512, 512}), h.ints({1, 0}), out, out}); }},
      {"cat", ST::Float, 2 * 512 * 512,
       [](KernelHarness& h, int32_t out) {
         return h.call("aten::cat.out", {h.list({filled(h, {512, 512}, 1), filled(h, {512, 512}, 2)}), h.integer(0), out, out});
       }},
      {"constant pad", ST::Float, 514 * 514,
       [](KernelHarness& h, int32_t out) {
         return h.call("aten::constant_pad_nd.out", {filled(h, {512, 512}, 1), h.ints({1, 1, 1, 1}), h.real(2.0), out, out});
       }},
      {"quantize", ST::Char, 512 * 512,
       [](KernelHarness& h, int32_t out) {
         return h.call("quantized_decomposed::quantize_per_tensor.out", {filled(h, {512, 512}, 1), h.real(0.1), h.integer(3),
                                                                         h.integer(-128), h.integer(127), h.integer(int(ST::Char)), out, out});
       }},
  };
}

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

  // Each family, first run to the end (what its last output is when done),
  // then once more into a fresh output with Cancel raised: the kernel looks
  // at Cancel and leaves its last output unwritten (still the harness's
  // 0xAB fill) or unfinished.
  void everyLongKernelFamilyStopsWhenCancelled() {
    for (const LongCall& c : longCalls()) {
      KernelHarness h;
      const int32_t finished = h.output(c.dtype, c.outputs);
      auto done = c.call(h, finished);
      QVERIFY2(done.ok() && done->kind == KernelOutcome::Kind::Done, c.name);
      const auto whole = h.values(finished);
      QVERIFY2(whole.size() == size_t(c.outputs), c.name);
      const int32_t cut = h.output(c.dtype, c.outputs);
      size_t polls = 0;
      const std::function<bool()> cancel = [&polls] {
        ++polls;
        return true;
      };
      {
        KernelCancelScope scope(&cancel);
        (void)c.call(h, cut);  // its result is dropped with the run
      }
      QVERIFY2(polls >= 1, c.name);
      const auto partial = h.values(cut);
      QVERIFY2(partial.size() != whole.size() || partial.back() != whole.back(),
               (std::string(c.name) + ": the last output was finished: " + std::to_string(whole.back())).c_str());
    }
  }

  // A Cancel from another thread while one kernel of seconds runs (a
  // [2048, 1024] @ [1024, 1024] product, 2^31 multiply-adds): the run ends
  // cancelled, and part way through the kernel. Measured in polls, not
  // time: mm looks once per 2^16 multiply-adds, so a finished product would
  // have looked 2^31 / 2^16 = 32768 times.
  void aCancelFromAnotherThreadStopsTheKernelPartWay() {
    auto synthesized = synth::synthesizeFromSpec(R"({"methods": [{"name": "forward", "inputs": ["a", "b"], "outputs": ["y"],
      "tensors": {"a": {"dtype": "float32", "sizes": [2048, 1024]}, "b": {"dtype": "float32", "sizes": [1024, 1024]},
                  "y": {"dtype": "float32", "sizes": [2048, 1024]}},
      "nodes": [{"op": "aten::mm.out", "inputs": ["a", "b"], "outputs": ["y"]}]}]})");
    QVERIFY2(synthesized.ok(), synthesized ? "" : synthesized.error().message.c_str());
    HostRuntime runtime;
    auto executor = Executor::create(synthesized->program, "forward", runtime);
    QVERIFY2(executor.ok(), executor ? "" : executor.error().message.c_str());
    QVERIFY((*executor)->fillInputs({}).ok());
    std::atomic<bool> stop{false};
    std::atomic<size_t> polls{0};
    const std::function<bool()> cancel = [&] {
      polls.fetch_add(1);
      return stop.load();
    };
    RunProgress progress;
    Result<RunRecord> record = makeError("not run");
    std::thread worker([&] { record = (*executor)->run(cancel, &progress); });
    // Once the kernel has looked at Cancel (the look before the instruction
    // is the first), let it work a while, then cancel.
    while (polls.load() < 2) std::this_thread::yield();
    QCOMPARE(progress.instructions.load(), size_t(1));
    QCOMPARE(progress.step.load(), size_t(1));  // the product is under way
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop = true;
    worker.join();
    QVERIFY2(record.ok(), record ? "" : record.error().message.c_str());
    QVERIFY(record->cancelled);
    QVERIFY2(polls.load() < 32768, QByteArray::number(qulonglong(polls.load())).constData());
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
