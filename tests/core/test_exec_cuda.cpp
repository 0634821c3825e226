// The CUDA runtime on a real GPU: allocations, timed copies with pinned and
// pageable memory, errors as values (out of memory, a missing device), and
// the executor and profile running there. Every test skips with the reason
// when no CUDA device can be used (no GPU, no driver, a build without CUDA);
// tests/gpu/run.sh runs this suite on a GPU machine and fails if it skips.
#include <QtTest>

#include <cstring>

#include "analysis/Dataflow.h"
#include "cost/LinkProbe.h"
#include "exec/Executor.h"
#include "exec/Profiler.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"

using namespace ptescope;
using namespace ptescope::exec;

namespace {
const program::Device kCuda0{program::DeviceType::Cuda, 0};

program::Program demo() {
  auto synthesized = synth::synthesizeDemo();
  if (!synthesized) return {};
  auto program = synth::applyDevicePasses(synthesized.value());
  return program ? std::move(program.value()) : program::Program{};
}
}  // namespace

class ExecCudaTest : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<DeviceRuntime> runtime_;

 private slots:
  void initTestCase() {
    auto selection = selectRuntime(RuntimePreference::Cuda);
    if (selection) runtime_ = std::move(selection->runtime);
    else
      qInfo("GPU tests will skip: %s", selection.error().message.c_str());
  }

  void init() {
    if (!runtime_) QSKIP("no usable CUDA device (see the message above); GPU tests skipped");
  }

  void runtimeIsReal() {
    QVERIFY(!runtime_->isEmulated());
    QVERIFY2(runtime_->name().starts_with("cuda ("), runtime_->name().c_str());
    qInfo("%s", runtime_->name().c_str());
  }

  void roundTripWithPinnedAndPageableMemory() {
    constexpr size_t kBytes = 8 << 20;
    auto device = RuntimeBuffer::allocate(*runtime_, kBytes, MemoryPlace::onDevice(kCuda0));
    QVERIFY2(device.ok(), device ? "" : device.error().message.c_str());
    for (auto kind : {HostMemoryKind::Pinned, HostMemoryKind::Pageable}) {
      auto source = RuntimeBuffer::allocate(*runtime_, kBytes, MemoryPlace::host(kind));
      auto back = RuntimeBuffer::allocate(*runtime_, kBytes, MemoryPlace::host(kind));
      QVERIFY(source.ok() && back.ok());
      for (size_t i = 0; i < kBytes; ++i) source->data()[i] = uint8_t(i * 13 + (i >> 12));
      QVERIFY(runtime_->fill(device->data(), device->place(), 0, kBytes).ok());
      QVERIFY(runtime_->fill(back->data(), back->place(), 0, kBytes).ok());
      auto up = runtime_->copy(device->data(), source->data(), kBytes, program::CopyDirection::HostToDevice, kCuda0);
      QVERIFY2(up.ok(), up ? "" : up.error().message.c_str());
      auto down = runtime_->copy(back->data(), device->data(), kBytes, program::CopyDirection::DeviceToHost, kCuda0);
      QVERIFY2(down.ok(), down ? "" : down.error().message.c_str());
      QVERIFY(up->seconds > 0 && down->seconds > 0);
      QVERIFY(std::memcmp(source->data(), back->data(), kBytes) == 0);
      qInfo("%s 8 MiB: h2d %.2f GB/s, d2h %.2f GB/s", hostMemoryKindName(kind).c_str(), kBytes / up->seconds / 1e9,
            kBytes / down->seconds / 1e9);
    }
  }

  void outOfMemoryIsAnErrorValue() {
    auto huge = runtime_->allocateDevice(size_t(1) << 52, kCuda0);  // 4 PiB
    QVERIFY(!huge.ok());
    const std::string& message = huge.error().message;
    QVERIFY2(message.find("cudaMalloc") != std::string::npos, message.c_str());
    QVERIFY2(message.find("code 2") != std::string::npos, message.c_str());  // cudaErrorMemoryAllocation
    // The runtime is still usable afterwards.
    auto small = RuntimeBuffer::allocate(*runtime_, 1024, MemoryPlace::onDevice(kCuda0));
    QVERIFY2(small.ok(), small ? "" : small.error().message.c_str());
  }

  void missingDeviceIsAnErrorValue() {
    const program::Device absent{program::DeviceType::Cuda, 120};
    QVERIFY(!runtime_->checkDevice(absent).ok());
    auto buffer = runtime_->allocateDevice(16, absent);
    QVERIFY(!buffer.ok());
    QVERIFY2(buffer.error().message.find("cuda:120 is not present") != std::string::npos, buffer.error().message.c_str());
  }

  void executorCopiesOnTheGpu() {
    const auto program = demo();
    ExecutorOptions options;
    options.host_memory = HostMemoryKind::Pinned;
    auto executor = Executor::create(program, "forward", *runtime_, options);
    QVERIFY2(executor.ok(), executor ? "" : executor.error().message.c_str());
    auto& exec = *executor.value();
    QCOMPARE(exec.buffers()[1].place.device, kCuda0);
    QVERIFY(exec.fillInputs({}).ok());
    const auto graph = analysis::Dataflow::build(exec.method());
    for (const auto& facts : graph.instructions()) {
      if (!facts.is_h2d_copy && !facts.is_d2h_copy) continue;
      const int32_t self = facts.inputs[0], out = facts.outputs[0];
      std::vector<uint8_t> pattern(exec.binding(self)->capacity);
      for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = uint8_t(facts.flat_index * 17 + i);
      QVERIFY(exec.writeTensor(self, pattern).ok());
      QVERIFY(exec.fillBuffer(exec.binding(out)->buffer_idx, 0xa5).ok());
      auto step = exec.executeInstruction(facts.flat_index);
      QVERIFY2(step.ok(), step ? "" : step.error().message.c_str());
      QVERIFY(step->copy && step->copy->seconds > 0);
      QCOMPARE(exec.readTensor(out)->bytes, pattern);
    }
    auto record = exec.run();
    QVERIFY2(record.ok(), record ? "" : record.error().message.c_str());
  }

  void profileOfTheDemo() {
    const auto program = demo();
    for (auto kind : {HostMemoryKind::Pinned, HostMemoryKind::Pageable}) {
      ProfileOptions options;
      options.iterations = 5;
      options.warmup = 1;
      options.host_memory = kind;
      auto profile = profileMethod(program, *runtime_, options);
      QVERIFY2(profile.ok(), profile ? "" : profile.error().message.c_str());
      QVERIFY(!profile->emulated);
      QCOMPARE(profile->copies.size(), size_t(4));
      QVERIFY(profile->peak.measured);
      QVERIFY(profile->peak.h2d_gbps > 0 && profile->peak.d2h_gbps > 0);
      for (const auto& copy : profile->copies) {
        QCOMPARE(copy.host_memory, kind);
        QCOMPARE(copy.samples.size(), size_t(5));
        QVERIFY(copy.seconds.min > 0);
      }
    }
  }

  // Batched copies (probe-link's timing) move the bytes and take time.
  void batchedCopiesAndTheLinkProbe() {
    constexpr size_t kBytes = 1 << 20;
    auto device = RuntimeBuffer::allocate(*runtime_, kBytes, MemoryPlace::onDevice(kCuda0));
    auto host = RuntimeBuffer::allocate(*runtime_, kBytes, MemoryPlace::host(HostMemoryKind::Pinned));
    auto back = RuntimeBuffer::allocate(*runtime_, kBytes, MemoryPlace::host(HostMemoryKind::Pinned));
    QVERIFY(device.ok() && host.ok() && back.ok());
    std::memset(host->data(), 0x3c, kBytes);
    std::memset(back->data(), 0, kBytes);
    auto up = runtime_->copyBatch(device->data(), host->data(), kBytes, 4, program::CopyDirection::HostToDevice, kCuda0);
    QVERIFY2(up.ok(), up ? "" : up.error().message.c_str());
    auto down = runtime_->copyBatch(back->data(), device->data(), kBytes, 4, program::CopyDirection::DeviceToHost, kCuda0);
    QVERIFY2(down.ok(), down ? "" : down.error().message.c_str());
    QVERIFY(up->seconds > 0 && down->seconds > 0);
    QCOMPARE(std::memcmp(host->data(), back->data(), kBytes), 0);

    cost::ProbeOptions options;
    options.max_bytes = 16 << 20;
    options.repeats = 3;
    auto link = cost::probeLink(*runtime_, options);
    QVERIFY2(link.ok(), link ? "" : link.error().message.c_str());
    QCOMPARE(link->kind, std::string("measured"));
    // h2d and d2h, each pageable and pinned, and device to device.
    QCOMPARE(link->curves.size(), size_t(5));
    for (const auto& c : link->curves) {
      QCOMPARE(c.points.back().bytes, uint64_t(16) << 20);
      // A 16 MiB copy takes longer than a 1 KiB one on any link.
      QVERIFY(c.points.back().seconds > c.points.front().seconds);
    }
  }
};

QTEST_GUILESS_MAIN(ExecCudaTest)
#include "test_exec_cuda.moc"
