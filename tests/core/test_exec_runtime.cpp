// The device runtimes without a GPU: the host runtime's allocations and
// timed copies, runtime selection with its fallback notice, and the one clear
// error when CUDA is requested but unusable. The GPU itself is exercised in
// test_exec_cuda, which skips here.
#include <QtTest>

#include <cstring>

#include "exec/DeviceRuntime.h"
#include "exec/HostRuntime.h"
#include "exec/Profiler.h"

using namespace ptescope;
using namespace ptescope::exec;

namespace {
const program::Device kCuda0{program::DeviceType::Cuda, 0};

bool cudaDevicePresent() { return selectRuntime(RuntimePreference::Cuda).ok(); }
}  // namespace

class ExecRuntimeTest : public QObject {
  Q_OBJECT
 private slots:
  void hostRuntimeAllocatesAndCopies() {
    HostRuntime runtime;
    QVERIFY(runtime.isEmulated());
    QVERIFY(runtime.name().find("emulated") != std::string::npos);
    auto device = RuntimeBuffer::allocate(runtime, 4096, MemoryPlace::onDevice(kCuda0));
    auto host = RuntimeBuffer::allocate(runtime, 4096, MemoryPlace::host(HostMemoryKind::Pinned));
    QVERIFY(device.ok() && host.ok());
    QCOMPARE(runtime.liveAllocations().size(), size_t(2));
    QVERIFY(reinterpret_cast<uintptr_t>(device->data()) % 256 == 0);
    for (size_t i = 0; i < 4096; ++i) host->data()[i] = uint8_t(i * 7);
    QVERIFY(runtime.fill(device->data(), device->place(), 0, 4096).ok());
    auto up = runtime.copy(device->data(), host->data(), 4096, program::CopyDirection::HostToDevice, kCuda0);
    QVERIFY(up.ok());
    QVERIFY(up->seconds >= 0);
    QVERIFY(std::memcmp(device->data(), host->data(), 4096) == 0);
    QVERIFY(runtime.fill(host->data(), host->place(), 0, 4096).ok());
    QVERIFY(runtime.copy(host->data(), device->data(), 4096, program::CopyDirection::DeviceToHost, kCuda0).ok());
    QCOMPARE(host->data()[5], uint8_t(35));
    device->reset();
    host->reset();
    QVERIFY(runtime.liveAllocations().empty());

    // Zero bytes: no allocation, a no-op copy.
    auto empty = runtime.allocateDevice(0, kCuda0);
    QVERIFY(empty.ok() && empty.value() == nullptr);
    QVERIFY(runtime.copy(nullptr, nullptr, 0, program::CopyDirection::HostToDevice, kCuda0).ok());
    // A null pointer with bytes to move and an unknown device type are errors.
    uint8_t byte = 0;
    QVERIFY(!runtime.copy(nullptr, &byte, 1, program::CopyDirection::HostToDevice, kCuda0).ok());
    auto unknown = runtime.allocateDevice(16, program::Device{program::DeviceType(7), 0});
    QVERIFY(!unknown.ok());
    QVERIFY(unknown.error().message.find("device_type=7") != std::string::npos);
    // Out of memory is an error, not an abort.
    auto huge = runtime.allocateDevice(size_t(1) << 62, kCuda0);
    QVERIFY(!huge.ok());
  }

  void hostPreferenceGivesHostRuntime() {
    auto selection = selectRuntime(RuntimePreference::Host);
    QVERIFY(selection.ok());
    QVERIFY(selection->runtime->isEmulated());
    QVERIFY(selection->notice.empty());
  }

  void autoFallsBackWithOneLineNotice() {
    auto selection = selectRuntime(RuntimePreference::Auto);
    QVERIFY(selection.ok());
    if (cudaDevicePresent()) {
      QVERIFY(!selection->runtime->isEmulated());
      QVERIFY(selection->notice.empty());
      return;
    }
    QVERIFY(selection->runtime->isEmulated());
    QVERIFY(!selection->notice.empty());
    QVERIFY(selection->notice.find('\n') == std::string::npos);
    QVERIFY(selection->notice.find("host runtime") != std::string::npos);
  }

  void cudaWithoutDeviceIsOneClearError() {
    if (cudaDevicePresent()) QSKIP("a CUDA device is present; this checks the error without one");
    auto selection = selectRuntime(RuntimePreference::Cuda);
    QVERIFY(!selection.ok());
    const std::string& message = selection.error().message;
    QVERIFY(message.starts_with("cannot use the CUDA runtime: "));
    QVERIFY(message.find('\n') == std::string::npos);
    if (builtWithCuda()) {
      // The failing call, its error name and its code.
      QVERIFY2(message.find("cudaGetDeviceCount") != std::string::npos, message.c_str());
      QVERIFY2(message.find("code ") != std::string::npos, message.c_str());
    } else {
      QVERIFY2(message.find("built without the CUDA toolkit") != std::string::npos, message.c_str());
    }
  }

  void runtimePreferenceNames() {
    QCOMPARE(parseRuntimePreference("cuda"), std::optional(RuntimePreference::Cuda));
    QCOMPARE(parseRuntimePreference("host"), std::optional(RuntimePreference::Host));
    QCOMPARE(parseRuntimePreference("auto"), std::optional(RuntimePreference::Auto));
    QVERIFY(!parseRuntimePreference("gpu"));
  }

  void linkPeakOnTheHost() {
    HostRuntime runtime;
    auto peak = measureLinkPeak(runtime, kCuda0, 1 << 20, 3);
    QVERIFY(peak.ok());
    QVERIFY(peak->measured);
    QCOMPARE(peak->bytes, uint64_t(1 << 20));
    QVERIFY(peak->h2d_gbps > 0);
    QVERIFY(peak->d2h_gbps > 0);
    QVERIFY(runtime.liveAllocations().empty());
    QVERIFY(!measureLinkPeak(runtime, program::Device{program::DeviceType(9), 0}, 1024, 1).ok());
  }

  void timingStats() {
    const auto stats = TimingStats::of({3, 1, 2, 10});
    QCOMPARE(stats.min, 1.0);
    QCOMPARE(stats.max, 10.0);
    QCOMPARE(stats.median, 2.5);
    QCOMPARE(TimingStats::of({4, 1, 9}).median, 4.0);
    QCOMPARE(TimingStats::of({}).median, 0.0);
  }
};

QTEST_GUILESS_MAIN(ExecRuntimeTest)
#include "test_exec_runtime.moc"
